// SPDX-License-Identifier: GPL-2.0
/* A GPU's PCIe link from sysfs (pcie_link.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcie_link.h"

#define GEN5_GTS	32.0
#define GEN5_WIDTH	16

/* The first number in @pci's sysfs file @name; false when unreadable. */
static bool read_num(const char *pci, const char *name, double *v)
{
	const char *dir = getenv(PCIE_LINK_DIR_ENV);
	char path[512], buf[64], *end;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s/%s",
		 dir && *dir ? dir : "/sys/bus/pci/devices", pci, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (!ok)
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

char *pcie_link_format(char *buf, size_t len, const struct pcie_link *l,
		       bool cur)
{
	snprintf(buf, len, "%.1f GT/s x%u", cur ? l->gts : l->max_gts,
		 cur ? l->width : l->max_width);
	return buf;
}
