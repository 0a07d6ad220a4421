/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap link auto": which tracked devices to link, and why the others
 * are left out.  Pure: a device dump and a link dump in, a plan out.
 */
#ifndef P2PMAP_AUTOLINK_H
#define P2PMAP_AUTOLINK_H

#include "objects.h"

/* The CLI's own filters, on top of the kernel's admission. */
struct autolink_filter {
	bool has_numa;
	int numa;		/* --numa N */
	const char *driver;	/* --driver D, NULL: any */
};

struct autolink_skip {
	char addr[P2PMAP_ADDR_LEN];
	char why[P2PMAP_REASON_LEN + 64];	/* after "skip ADDR: " */
};

/* One direction of the mesh. */
struct autolink_pair {
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];
	bool exists;		/* already configured: nothing to add */
};

struct autolink_plan {
	size_t nskips;
	struct autolink_skip *skips;
	size_t ncands;
	char (*cands)[P2PMAP_ADDR_LEN];		/* sorted by address */
	size_t npairs;
	struct autolink_pair *pairs;
	size_t nadd;		/* pairs that do not exist yet */
};

/*
 * Decide.  Devices without a memory BAR are left out silently.  A device
 * with one is skipped, with the first reason that applies, when it is
 * owned by a driver that manages DMA (STATE owned), not admitted by the
 * kernel's policy, on another NUMA node than --numa, bound to another
 * driver than --driver, in no IOMMU group, or in an identity domain; the
 * others are the candidates.  The pairs are the full mesh among them, both
 * directions: for candidates a < b, a -> b then b -> a.  Returns 0, or
 * -ENOMEM (the plan is empty then).
 */
int autolink_plan(const struct p2pmap_dev *devs, size_t ndevs,
		  const struct p2pmap_link *links, size_t nlinks,
		  const struct autolink_filter *filter,
		  struct autolink_plan *plan);
void autolink_plan_free(struct autolink_plan *plan);

#endif /* P2PMAP_AUTOLINK_H */
