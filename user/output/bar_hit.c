// SPDX-License-Identifier: GPL-2.0
/* A fault address attributed to a BAR and an offset (bar_hit.h). */
#include <inttypes.h>
#include <stdio.h>

#include "bar_hit.h"

#define PCI_VENDOR_NVIDIA	0x10de

bool bar_hit_find(const struct p2pmap_dev *devs, size_t n, uint64_t addr,
		  struct bar_hit *hit)
{
	const struct p2pmap_bar *b;
	size_t i;
	unsigned int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < devs[i].nbars && k < P2PMAP_NR_BARS; k++) {
			b = &devs[i].bars[k];
			if (!b->size || addr < b->start ||
			    addr - b->start >= b->size)
				continue;
			hit->dev = &devs[i];
			hit->bar = b->index;
			hit->offset = addr - b->start;
			return true;
		}
	}
	return false;
}

const char *bar_hit_role(const struct bar_hit *hit)
{
	if (hit->dev->vendor != PCI_VENDOR_NVIDIA)
		return NULL;
	switch (hit->bar) {
	case 0:
		return "registers/mailbox";
	case 1:
		return "VRAM aperture";
	default:
		return NULL;
	}
}

char *bar_hit_format(char *buf, size_t len, const struct bar_hit *hit)
{
	const char *role = bar_hit_role(hit);

	snprintf(buf, len, "%s BAR%" PRIu32 "+0x%" PRIx64 "%s%s%s",
		 hit->dev->addr, hit->bar, hit->offset, role ? " (" : "",
		 role ? role : "", role ? ")" : "");
	return buf;
}
