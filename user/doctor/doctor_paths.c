// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: each pair of the server's GPUs' PCIe path, and the ACS control
 * of the switch ports between them (PCI config space, libpci).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"
#include "pci_scan.h"

/* How many leading path components two GPUs share, and their counts. */
static size_t common_depth(const char *a, const char *b, size_t *na,
			   size_t *nb)
{
	size_t depth = 0, la, lb;
	bool same = true;

	*na = *nb = 0;
	while (*a || *b) {
		la = strcspn(a, "/");
		lb = strcspn(b, "/");
		*na += !!la;
		*nb += !!lb;
		same = same && la && la == lb && !strncmp(a, b, la);
		depth += same;
		a += la + !!a[la];
		b += lb + !!b[lb];
	}
	return depth;
}

/* ---- ACS on the switch ports above a GPU (PCI config space, libpci) */

struct acs_query {
	const char *addr;
	int ctrl;			/* ACS control, -1 no capability */
	bool found;
};

static int acs_scan(struct pci_access *pacc, void *arg)
{
	struct acs_query *q = arg;
	struct pci_cap *cap;
	struct pci_dev *d;
	char a[16];

	for (d = pacc->devices; d; d = d->next) {
		snprintf(a, sizeof(a), "%04x:%02x:%02x.%x", d->domain & 0xffff,
			 d->bus, d->dev, d->func);
		if (strcmp(a, q->addr))
			continue;
		q->found = true;
		cap = pci_find_cap(d, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED);
		q->ctrl = cap ? pci_read_word(d, cap->addr + PCI_ACS_CTRL) : -1;
		break;
	}
	return 0;
}

/*
 * Does port @addr redirect peer requests and completions upstream (ACS
 * ReqRedir and CmpltRedir)?  1 yes, 0 no (or no ACS), -1 unreadable.
 */
static int acs_read(const struct host *h, const char *addr)
{
	struct acs_query q = { .addr = addr, .ctrl = -1 };
	char sysfs[PATH_MAX], why[128];

	snprintf(sysfs, sizeof(sysfs), "%s/sys/bus/pci", h->root);
	if (pci_scan_guarded(h->root[0] ? sysfs : NULL, acs_scan, &q, why,
			     sizeof(why)) || !q.found)
		return -1;
	if (q.ctrl < 0)
		return 0;
	return (q.ctrl & (PCI_ACS_CTRL_REQ_RED | PCI_ACS_CTRL_CMPLT_RED)) ==
	       (PCI_ACS_CTRL_REQ_RED | PCI_ACS_CTRL_CMPLT_RED);
}

/* acs_read(), once per port: every pair under a switch asks again. */
static int acs_redirects(struct host *h, const char *addr)
{
	struct acs_seen *a;
	size_t i;

	for (i = 0; i < h->nacs; i++)
		if (!strcmp(h->acs[i].addr, addr))
			return h->acs[i].redirects;
	if (h->nacs == ACS_CACHE)
		return acs_read(h, addr);
	a = &h->acs[h->nacs++];
	snprintf(a->addr, sizeof(a->addr), "%.15s", addr);
	a->redirects = acs_read(h, addr);
	return a->redirects;
}

/*
 * The ports a peer request from @g enters below the pair's common bridge:
 * components @common .. last-1 of its path.  Every one must redirect.
 * Returns 1, 0 (naming the first that does not in @port), or -1.
 */
static int path_redirects(struct host *h, const struct gpu *g,
			  size_t common, char *port, size_t len)
{
	char comp[32];
	const char *p = g->path;
	size_t i = 0, n;
	int ret = 1, r;

	while (*p) {
		n = strcspn(p, "/");
		if (i >= common && p[n]) {	/* not the GPU itself */
			snprintf(comp, sizeof(comp), "%.*s", (int)n, p);
			r = acs_redirects(h, comp);
			if (r <= 0 && ret == 1) {
				snprintf(port, len, "%s", comp);
				ret = r;
			}
		}
		i++;
		p += n + !!p[n];
	}
	return ret;
}

/*
 * Each pair of the server's GPUs in nvidia-smi topo's terms: PIX/PXB
 * (under one PCIe switch: P2P may turn there, before the root complex and
 * the IOMMU, unless ACS redirects it), PHB (one host bridge), NODE (host
 * bridges of one NUMA node), SYS (across NUMA nodes).
 */
void doctor_check_paths(struct host *h)
{
	const char *cls, *what;
	char name[64];
	size_t i, j, d, na, nb;

	for (i = 0; i < h->ngpus; i++) {
		for (j = i + 1; j < h->ngpus; j++) {
			struct gpu *a = &h->gpus[i], *b = &h->gpus[j];

			if (strcmp(a->driver, h->want->driver) ||
			    strcmp(b->driver, h->want->driver) || !a->path[0] ||
			    !b->path[0])
				continue;
			snprintf(name, sizeof(name), "path.%s~%s", a->addr,
				 b->addr);
			d = common_depth(a->path, b->path, &na, &nb);
			if (strcmp(a->root_bus, b->root_bus)) {
				cls = a->numa == b->numa ? "NODE" : "SYS";
				what = a->numa == b->numa ?
				       "different host bridges of one NUMA node" :
				       "different NUMA nodes";
			} else if (d <= 1) {
				cls = "PHB";
				what = "one host bridge, different root ports";
			} else {
				/*
				 * The bridges between them: a switch's two
				 * downstream ports and its upstream port (3)
				 * is PIX; more (nested switches) is PXB.
				 */
				cls = (na - 1 - d) + (nb - 1 - d) + 1 <= 3 ?
				      "PIX" : "PXB";
				what = cls[1] == 'I' ? "one PCIe switch" :
				       "PCIe switches below one root port";
			}
			if (!strcmp(cls, "PIX") || !strcmp(cls, "PXB")) {
				char port[32] = "";
				int ra = path_redirects(h, a, d, port, sizeof(port));
				int rb = ra ? path_redirects(h, b, d, port,
							     sizeof(port)) : 0;

				if (ra == 1 && rb == 1)
					doctor_add(h, name, DOCTOR_OK, NULL,
						   "%s: %s whose ports redirect peer requests upstream (ACS ReqRedir+ CmpltRedir+): their P2P reaches the root complex and the IOMMU",
						   cls, what);
				else if (!ra || !rb)
					doctor_add(h, name, DOCTOR_WARN,
						   "enable ACS ReqRedir and CmpltRedir on the switch's downstream ports (setpci, or the platform's ACS setting), or accept P2P without IOMMU translation",
						   "%s: %s: port %s does not redirect peer requests (no ACS ReqRedir+ CmpltRedir+): their P2P turns in the switch and never reaches the IOMMU, so p2pmap's links do not apply to it",
						   cls, what, port);
				else
					doctor_add(h, name, DOCTOR_WARN,
						   "run as root (ACS sits in the extended configuration space)",
						   "%s: %s: the ACS control of port %s cannot be read: without redirection their P2P turns in the switch, before the IOMMU",
						   cls, what, port);
			} else {
				doctor_add(h, name, DOCTOR_OK, NULL,
					   "%s: %s: their P2P goes through the root complex and the IOMMU, where p2pmap's links apply",
					   cls, what);
			}
		}
	}
}
