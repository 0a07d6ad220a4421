// SPDX-License-Identifier: GPL-2.0
/* A GPU's PCIe link from sysfs (pcie_link.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pci_sysfs.h"
#include "pcie_link.h"

#define GEN5_GTS	32.0
#define GEN5_WIDTH	16

/* The first number in @pci's sysfs file @name; false when unreadable. */
static bool read_num(const char *pci, const char *name, double *v)
{
	char buf[64], *end;

	if (!pci_sysfs_read(pci, name, buf, sizeof(buf)))
		return false;
	/* "32.0 GT/s PCIe", "8 GT/s", "16"; "Unknown" is not a number. */
	*v = strtod(buf, &end);
	return end != buf && *v > 0;
}

void pcie_link_read(const char *pci, struct pcie_link *l)
{
	double w, mw;

	memset(l, 0, sizeof(*l));
	if (!read_num(pci, "current_link_speed", &l->gts) ||
	    !read_num(pci, "max_link_speed", &l->max_gts) ||
	    !read_num(pci, "current_link_width", &w) ||
	    !read_num(pci, "max_link_width", &mw))
		return;
	l->width = (unsigned int)w;
	l->max_width = (unsigned int)mw;
	l->known = true;
}

void pcie_link_keep_best(struct pcie_link *best, const struct pcie_link *l)
{
	if (l->known && (!best->known ||
			 pcie_link_share_of_gen5x16(l) >
			 pcie_link_share_of_gen5x16(best)))
		*best = *l;
}

bool pcie_link_degraded(const struct pcie_link *l)
{
	return l->known && (l->gts < l->max_gts || l->width < l->max_width);
}

/* Payload per lane: 8b/10b up to 5 GT/s (Gen1, Gen2), 128b/130b after. */
static double lane_rate(double gts)
{
	return gts * (gts > 5.0 ? 128.0 / 130.0 : 0.8);
}

double pcie_link_share_of_gen5x16(const struct pcie_link *l)
{
	return lane_rate(l->gts) * l->width /
	       (lane_rate(GEN5_GTS) * GEN5_WIDTH);
}

int pcie_link_gen(double gts)
{
	static const double speeds[] = { 2.5, 5.0, 8.0, 16.0, 32.0, 64.0 };
	size_t i;

	for (i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (gts == speeds[i])
			return (int)i + 1;
	return 0;
}

char *pcie_link_format(char *buf, size_t len, const struct pcie_link *l,
		       bool cur)
{
	snprintf(buf, len, "%.1f GT/s x%u", cur ? l->gts : l->max_gts,
		 cur ? l->width : l->max_width);
	return buf;
}
