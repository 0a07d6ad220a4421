/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A GPU's PCIe link as sysfs tells it: the speed and width it trained at
 * (current_link_speed, current_link_width) and the most it can do
 * (max_link_speed, max_link_width).  NVIDIA GPUs drop their link speed
 * when idle and train up again under load, so verify --bandwidth reads
 * the current values while its copies run, and keeps the highest.
 */
#ifndef P2PMAP_PCIE_LINK_H
#define P2PMAP_PCIE_LINK_H

#include <stdbool.h>
#include <stddef.h>

struct pcie_link {
	bool known;			/* all four values read */
	double gts, max_gts;		/* GT/s per lane */
	unsigned int width, max_width;	/* lanes */
};

/* @pci's link ("DDDD:BB:DD.F"); l->known false when unreadable. */
void pcie_link_read(const char *pci, struct pcie_link *l);

/*
 * Into @best, @l when it carries more: a link read several times while
 * copies run, its highest (a link still training up reads low at first).
 */
void pcie_link_keep_best(struct pcie_link *best, const struct pcie_link *l);

/* Trained below what it can do (speed or width). */
bool pcie_link_degraded(const struct pcie_link *l);

/* What it carries now, as a share of a Gen5 x16 link (no cap). */
double pcie_link_share_of_gen5x16(const struct pcie_link *l);

/* The PCIe generation of @gts (2.5 -> 1 ... 64 -> 6), 0 if none. */
int pcie_link_gen(double gts);

/* "16.0 GT/s x8" (@cur) or its maximum, into @buf. */
char *pcie_link_format(char *buf, size_t len, const struct pcie_link *l,
		       bool cur);

#endif /* P2PMAP_PCIE_LINK_H */
