// SPDX-License-Identifier: GPL-2.0
/*
 * Proxmox's property strings and PCI ids (pve.h): "k=v" parts separated by
 * commas, no quoting (pve-common's parse_property_string), and
 * qemu-server's PCI id "[DDDD:]BB:DD[.F]", without the function for every
 * function of the device.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "pve.h"

bool pve_prop(const char *s, const char *key, bool is_default, char *out,
	      size_t len)
{
	size_t klen = strlen(key);
	const char *p = s, *end, *eq;

	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', end - p);
		if (eq && (size_t)(eq - p) == klen && !strncmp(p, key, klen)) {
			snprintf(out, len, "%.*s", (int)(end - eq - 1), eq + 1);
			return true;
		}
		if (!eq && is_default && end > p) {
			snprintf(out, len, "%.*s", (int)(end - p), p);
			return true;
		}
		p = *end ? end + 1 : end;
	}
	return false;
}

static bool hex_run(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * "[DDDD:]BB:DD[.F]" into "DDDD:BB:DD[.F]", lower case; false when it is
 * none (Proxmox's own pattern takes lower-case hex only: a file with upper
 * case was not written by it, but means the same device).
 */
static bool pci_id(const char *s, char *out, size_t len)
{
	char buf[32];
	size_t n = strlen(s), i;
	const char *bdf = s;
	char dom[16] = "0000";

	if (n >= sizeof(buf))
		return false;
	if (strchr(s, ':') != strrchr(s, ':')) {	/* a domain */
		n = strchr(s, ':') - s;
		if (n < 4 || n > 8 || !hex_run(s, n))
			return false;
		snprintf(dom, sizeof(dom), "%.*s", (int)n, s);
		bdf = s + n + 1;
	}
	/* BB:DD or BB:DD.F */
	n = strlen(bdf);
	if (!(n == 5 || (n == 7 && bdf[5] == '.' && isxdigit((unsigned char)bdf[6]))) ||
	    !hex_run(bdf, 2) || bdf[2] != ':' || !hex_run(bdf + 3, 2))
		return false;
	snprintf(buf, sizeof(buf), "%.8s:%.7s", dom, bdf);
	for (i = 0; buf[i]; i++)
		buf[i] = tolower((unsigned char)buf[i]);
	snprintf(out, len, "%.23s", buf);
	return true;
}

void pve_add_pci(struct pve_guest *g, const char *list, const char *via)
{
	char item[64], id[24];
	const char *p = list, *end;

	while (*p && g->npci < PVE_MAX_PCI) {
		end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		snprintf(item, sizeof(item), "%.*s", (int)(end - p), p);
		if (pci_id(item, id, sizeof(id))) {
			snprintf(g->pci[g->npci].id, sizeof(g->pci[0].id), "%s",
				 id);
			snprintf(g->pci[g->npci].via, sizeof(g->pci[0].via),
				 "%s", via);
			g->npci++;
		}
		p = *end ? end + 1 : end;
	}
}

bool pve_pci_names(const char *id, const char *addr)
{
	size_t n = strlen(id);

	if (strchr(id, '.'))
		return !strcmp(id, addr);
	return !strncmp(id, addr, n) && addr[n] == '.';	/* every function */
}
