// SPDX-License-Identifier: GPL-2.0
/*
 * PCI addresses as p2pmap names them: "DDDD:BB:DD.F", lower-case hex.  The
 * forms a module parameter takes: p2pmap_addr_parse_any(), param_grammar.c.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "p2pmap.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Read exactly @n lower-case hex digits. */
static int hexfield(const char *s, int n, unsigned int *val)
{
	int i, v;

	*val = 0;
	for (i = 0; i < n; i++) {
		v = hexval(s[i]);
		if (v < 0)
			return -EINVAL;
		*val = *val << 4 | v;
	}
	return 0;
}

/*
 * Strict: only the canonical form is accepted, the one p2pmap_addr_format()
 * writes: a domain of 4 hex digits, or up to 8 when it is above 0xffff.
 */
int p2pmap_addr_parse(const char *s, int *domain, unsigned int *bus,
		      unsigned int *devfn)
{
	unsigned int dom, dev, fn;
	size_t len = strlen(s);
	int d = len - 8;	/* digits of the domain */

	if (d < 4 || d > 8 || s[d] != ':' || s[d + 3] != ':' ||
	    s[d + 6] != '.')
		return -EINVAL;
	if (hexfield(s, d, &dom) || hexfield(s + d + 1, 2, bus) ||
	    hexfield(s + d + 4, 2, &dev) || hexfield(s + d + 7, 1, &fn))
		return -EINVAL;
	if (dev > 0x1f || fn > 7 || (d > 4 && (dom <= 0xffff || s[0] == '0')) ||
	    dom > INT_MAX)
		return -EINVAL;
	*domain = dom;
	*devfn = PCI_DEVFN(dev, fn);
	return 0;
}

void p2pmap_addr_format(struct pci_dev *pdev, char *buf)
{
	snprintf(buf, P2PMAP_ADDR_LEN, "%04x:%02x:%02x.%x",
		 pci_domain_nr(pdev->bus), pdev->bus->number,
		 PCI_SLOT(pdev->devfn), PCI_FUNC(pdev->devfn));
}
