/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a fault address hit: a tracked device's BAR and the offset in it.
 * Under the translating IOMMU a peer address that faults is the raw bus
 * address of the target's BAR, so the BAR names the NVIDIA path that fell
 * back to raw addresses: BAR0 (registers, where mailbox P2P writes), BAR1
 * (the VRAM aperture, where copy engines and SM loads and stores land),
 * BAR3 (NVIDIA's third 64-bit BAR).
 */
#ifndef P2PMAP_BAR_HIT_H
#define P2PMAP_BAR_HIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objects.h"

struct bar_hit {
	const struct p2pmap_dev *dev;	/* the device whose BAR it is */
	uint32_t bar;			/* BAR index */
	uint64_t offset;		/* from the BAR's start */
};

/* The BAR of @devs holding @addr; false when none does. */
bool bar_hit_find(const struct p2pmap_dev *devs, size_t n, uint64_t addr,
		  struct bar_hit *hit);

/* "registers/mailbox", "VRAM aperture"; NULL where no role is known
 * (a BAR of another vendor's device). */
const char *bar_hit_role(const struct bar_hit *hit);

/* "0000:41:00.0 BAR1+0x1000 (VRAM aperture)" into @buf. */
char *bar_hit_format(char *buf, size_t len, const struct bar_hit *hit);

#endif /* P2PMAP_BAR_HIT_H */
