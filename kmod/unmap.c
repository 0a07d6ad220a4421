// SPDX-License-Identifier: GPL-2.0
/*
 * Where a mapping is undone: at link deletion, when either side unbinds or
 * is removed, and at module unload.  iommu_unmap() flushes the IOTLB before
 * it returns, even in a DMA-FQ domain, so once this returns the peer BAR is
 * unreachable through the range.
 */
#include <linux/slab.h>
#include "p2pmap.h"

/* Drop one user of @r; the last one unmaps it and gives the IOVAs back. */
void p2pmap_range_put(struct p2pmap_range *r)
{
	size_t done;

	lockdep_assert_held(&p2pmap_lock);
	if (--r->users)
		return;
	done = iommu_unmap(r->domain, r->iova, r->size);
	WARN(done != r->size, "p2pmap: range %#llx+%#llx: unmapped %zu\n",
	     r->iova, r->size, done);
	p2pmap_iova_unguard(r->domain, r->resv);
	pr_debug("range %#llx+%#llx: unmapped\n", r->iova, r->size);
	list_del(&r->node);
	kfree(r);
}

void p2pmap_link_unmap(struct p2pmap_link *link)
{
	int i;

	lockdep_assert_held(&p2pmap_lock);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		if (!link->ranges[i])
			continue;
		p2pmap_range_put(link->ranges[i]);
		link->ranges[i] = NULL;
	}
}
