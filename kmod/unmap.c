// SPDX-License-Identifier: GPL-2.0
/*
 * Where a mapping is undone: at link deletion, when either side unbinds or
 * is removed, when the policy no longer admits a side, and at module
 * unload.  iommu_unmap() flushes the IOTLB before it returns, even in a
 * DMA-FQ domain, so once this returns the peer BAR is unreachable through
 * the range.  The range stays reserved (range.c says until when).
 */
#include <linux/module.h>
#include "p2pmap.h"

/* Unmaps that came back short, since load (P2PMAP_A_INFO_UNMAP_SHORT). */
unsigned int p2pmap_unmap_short;

#ifdef P2PMAP_DEBUG
static bool debug_unmap_short;
module_param_cb(debug_unmap_short, &p2pmap_param_ops_bool,
		&debug_unmap_short, 0644);
MODULE_PARM_DESC(debug_unmap_short,
		 "DEBUG BUILDS ONLY: make every unmap come back short (iommu_unmap() is not called)");

/* Makes the range free again after each link del: the churn race repeats. */
static bool debug_release_unused;
module_param_cb(debug_release_unused, &p2pmap_param_ops_bool,
		&debug_release_unused, 0644);
MODULE_PARM_DESC(debug_release_unused,
		 "DEBUG BUILDS ONLY: give a link range's reservation back as soon as no link uses it (lets the IOVA race test repeat)");
#else
#define debug_unmap_short false
#define debug_release_unused false
#endif

/*
 * Remove @r's PTEs.  If iommu_unmap() does less than the whole range, some
 * may remain: the range is marked stuck and its reservation is never given
 * back, so the DMA API cannot put a buffer under a live peer mapping.
 */
int p2pmap_range_unmap(struct p2pmap_range *r)
{
	size_t done = 0;

	lockdep_assert_held(&p2pmap_lock);
	if (!r->mapped || r->stuck)
		return r->stuck ? -EIO : 0;
	if (!debug_unmap_short)
		done = iommu_unmap(r->domain, r->iova, r->size);
	if (done != r->size) {
		pr_err("range %#llx+%#llx: iommu_unmap() unmapped %zu bytes: the range stays reserved\n",
		       r->iova, r->size, done);
		r->stuck = true;
		p2pmap_unmap_short++;
		return -EIO;
	}
	r->mapped = false;
	pr_debug("range %#llx+%#llx: unmapped\n", r->iova, r->size);
	return 0;
}

/* Drop one user of @r; the last one unmaps it.  -EIO: the unmap was short. */
int p2pmap_range_put(struct p2pmap_range *r)
{
	lockdep_assert_held(&p2pmap_lock);
	if (WARN_ON_ONCE(!r->users) || --r->users)
		return 0;
	return p2pmap_range_unmap(r);
}

/* Unmap every range of @link.  -EIO if any unmap came back short. */
int p2pmap_link_unmap(struct p2pmap_link *link)
{
	int i, err = 0;

	lockdep_assert_held(&p2pmap_lock);
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		struct p2pmap_range *r = link->ranges[i];

		if (!r)
			continue;
		if (p2pmap_range_put(r))
			err = -EIO;
		else if (debug_release_unused && !r->users)
			p2pmap_range_release(r);
		link->ranges[i] = NULL;
	}
	return err;
}
