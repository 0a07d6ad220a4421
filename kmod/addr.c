// SPDX-License-Identifier: GPL-2.0
/* PCI addresses as p2pmap names them: "DDDD:BB:DD.F", lower-case hex. */
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

/* Strict: only the canonical 12-character form is accepted. */
int p2pmap_addr_parse(const char *s, int *domain, unsigned int *bus,
		      unsigned int *devfn)
{
	unsigned int dom, dev, fn;

	if (strlen(s) != P2PMAP_ADDR_LEN - 1 || s[4] != ':' || s[7] != ':' ||
	    s[10] != '.')
		return -EINVAL;
	if (hexfield(s, 4, &dom) || hexfield(s + 5, 2, bus) ||
	    hexfield(s + 8, 2, &dev) || hexfield(s + 11, 1, &fn))
		return -EINVAL;
	if (dev > 0x1f || fn > 7)
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
