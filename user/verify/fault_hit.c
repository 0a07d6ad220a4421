// SPDX-License-Identifier: GPL-2.0
/* What a direction's last fault hit (fault_hit.h). */
#include <stdio.h>
#include <string.h>

#include "bar_hit.h"
#include "fault_hit.h"

void fault_hit_at(const struct p2pmap_dev *devs, size_t n, uint64_t addr,
		  struct verify_fault_hit *hit)
{
	struct bar_hit bh;
	const char *role;

	memset(hit, 0, sizeof(*hit));
	hit->known = true;
	hit->addr = addr;
	if (!bar_hit_find(devs, n, addr, &bh))
		return;
	role = bar_hit_role(&bh);
	hit->in_bar = true;
	snprintf(hit->dev, sizeof(hit->dev), "%s", bh.dev->addr);
	hit->bar = bh.bar;
	hit->offset = bh.offset;
	snprintf(hit->role, sizeof(hit->role), "%s", role ? role : "");
}

const struct p2pmap_fault *fault_hit_peer(const struct p2pmap_dev *dev,
					  const char *target)
{
	unsigned int i, kept;

	kept = dev->npeers < P2PMAP_MAX_PEERS ? dev->npeers : P2PMAP_MAX_PEERS;
	for (i = 0; i < kept; i++)
		if (!strcmp(dev->peers[i].target, target))
			return &dev->peers[i].f;
	return NULL;
}

/* @dev's record of faults at @target, if it has an address; or NULL. */
static const struct p2pmap_fault *pair_fault(const struct p2pmap_dev *devs,
					     size_t n, const char *dev,
					     const char *target)
{
	const struct p2pmap_fault *f;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(devs[i].addr, dev))
			continue;
		f = fault_hit_peer(&devs[i], target);
		return f && f->has_addr ? f : NULL;
	}
	return NULL;
}

bool fault_hit_of_pair(const struct p2pmap_dev *devs, size_t n,
		       const char *from, const char *to,
		       struct verify_fault_hit *hit)
{
	const struct p2pmap_fault *fa = pair_fault(devs, n, from, to);
	const struct p2pmap_fault *fb = pair_fault(devs, n, to, from);
	const struct p2pmap_fault *last = fa ? fa : fb;

	if (fa && fb && fb->has_time &&
	    (!fa->has_time || fb->last_time > fa->last_time))
		last = fb;
	if (!last)
		return false;
	fault_hit_at(devs, n, last->last_addr, hit);
	return true;
}
