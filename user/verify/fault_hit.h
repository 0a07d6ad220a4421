/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a direction's last fault hit (struct verify_fault_hit), from the
 * module's devices: the pair's later fault record, its address attributed
 * to a BAR (output/bar_hit.h).  No netlink here, so the unit tests can
 * check the choice.
 */
#ifndef P2PMAP_FAULT_HIT_H
#define P2PMAP_FAULT_HIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objects.h"
#include "verify.h"

/* @dev's record of faults at @target (among those kept), or NULL. */
const struct p2pmap_fault *fault_hit_peer(const struct p2pmap_dev *dev,
					  const char *target);

/* @addr attributed to a BAR of @devs, into @hit. */
void fault_hit_at(const struct p2pmap_dev *devs, size_t n, uint64_t addr,
		  struct verify_fault_hit *hit);

/*
 * The last fault of the pair @from -> @to among @devs: of the records
 * (@from, @to) and (@to, @from) that have an address, the later one (the
 * first when a time is missing), attributed.  False when neither has one.
 */
bool fault_hit_of_pair(const struct p2pmap_dev *devs, size_t n,
		       const char *from, const char *to,
		       struct verify_fault_hit *hit);

#endif /* P2PMAP_FAULT_HIT_H */
