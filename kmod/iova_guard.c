// SPDX-License-Identifier: GPL-2.0
/*
 * The IOVA collision hazard.  dma-iommu allocates IOVAs for a device from an
 * iova_domain that only knows the windows of the device's own host bridge
 * and the firmware's reserved regions.  A peer BAR under another host bridge
 * is free space to it: without a guard, the DMA API may later hand out an
 * IOVA inside an identity range, and the two mappings collide (silently on
 * AMD v1 page tables).
 *
 * The guard reserves the range in that iova_domain, exactly as dma-iommu
 * reserves host-bridge windows, and gives it back when the range is unmapped.
 * The iova_domain lives in dma-iommu's private cookie; p2pmap finds it by a
 * layout probed at build time and only trusts it after checking the anchor
 * node every live iova_domain has.  If it cannot be found, mapping is
 * refused: p2pmap never maps a range it cannot protect.
 */
#include <linux/iova.h>
#include <linux/module.h>
#include "p2pmap.h"

/* iova.c's private anchor marker: pfn_lo == pfn_hi == IOVA_ANCHOR. */
#define P2PMAP_IOVA_ANCHOR	(~0UL)

/*
 * A node at least this many granules large is never a cached (rcache) IOVA
 * and, when it covers an untranslated range, is a reservation: dma-iommu's
 * own host-bridge windows are such nodes.
 */
#define P2PMAP_RESERVED_MIN_GRANULES	256

#define P2PMAP_WHY_NO_IOVAD \
	"cannot find the DMA API IOVA allocator of the initiator's domain on this kernel: refusing, the DMA API could hand out IOVAs inside the range"
#define P2PMAP_WHY_IOVA_BUSY \
	"target BAR range overlaps IOVAs the DMA API has allocated (or cached) in the initiator's domain"

#ifdef P2PMAP_DEBUG
static bool debug_skip_iova_guard;
module_param(debug_skip_iova_guard, bool, 0644);
MODULE_PARM_DESC(debug_skip_iova_guard,
		 "DEBUG BUILDS ONLY: map without reserving the IOVA range (proves the collision test can fail)");
#else
#define debug_skip_iova_guard false
#endif

#ifdef P2PMAP_HAVE_DOMAIN_COOKIE_TYPE
/* 6.15+: the domain says what cookie it has; iovad is the cookie's start. */
static struct iova_domain *p2pmap_cookie_iovad(struct iommu_domain *domain)
{
	if (domain->cookie_type != IOMMU_COOKIE_DMA_IOVA)
		return NULL;
	return (struct iova_domain *)domain->iova_cookie;
}
#else
/*
 * Up to 6.14 the cookie is { enum type; union { struct { iovad; ... }; ...}}
 * and type 0 is IOMMU_DMA_IOVA_COOKIE.  Mirror just that head.
 */
struct p2pmap_cookie_head {
	int type;
	struct iova_domain iovad;
};

static struct iova_domain *p2pmap_cookie_iovad(struct iommu_domain *domain)
{
	struct p2pmap_cookie_head *head = (void *)domain->iova_cookie;

	if (!head || head->type != 0)
		return NULL;
	return &head->iovad;
}
#endif

/* The DMA API allocator of @domain, or NULL if it cannot be trusted. */
static struct iova_domain *p2pmap_iovad(struct iommu_domain *domain)
{
	struct iova_domain *iovad;
	unsigned long min_page;

	if (!iommu_is_dma_domain(domain) || !domain->iova_cookie)
		return NULL;
	iovad = p2pmap_cookie_iovad(domain);
	if (!iovad)
		return NULL;
	min_page = BIT(__ffs(domain->pgsize_bitmap));
	if (iovad->anchor.pfn_lo != P2PMAP_IOVA_ANCHOR ||
	    iovad->anchor.pfn_hi != P2PMAP_IOVA_ANCHOR ||
	    !iovad->rbroot.rb_node || iovad->granule != min_page)
		return NULL;
	return iovad;
}

/* Any node overlapping [lo, hi]; nodes are sorted and disjoint. */
static struct iova *p2pmap_iova_overlap(struct iova_domain *iovad,
					unsigned long lo, unsigned long hi)
{
	struct rb_node *n = iovad->rbroot.rb_node;

	while (n) {
		struct iova *v = rb_entry(n, struct iova, node);

		if (v->pfn_hi < lo)
			n = n->rb_right;
		else if (v->pfn_lo > hi)
			n = n->rb_left;
		else
			return v;
	}
	return NULL;
}

/*
 * Make sure the DMA API can never allocate an IOVA in [iova, iova + size).
 * On success *resv is our reservation, or NULL when a kernel reservation
 * (a host-bridge window) already covers the range.
 */
int p2pmap_iova_guard(struct iommu_domain *domain, u64 iova, u64 size,
		      struct iova **resv, const char **why)
{
	struct iova_domain *iovad = p2pmap_iovad(domain);
	unsigned long lo, hi, flags;
	struct iova *v;
	bool covered = false;

	*resv = NULL;
	if (debug_skip_iova_guard)
		return 0;
	if (!iovad) {
		*why = P2PMAP_WHY_NO_IOVAD;
		return -EOPNOTSUPP;
	}
	lo = iova >> iova_shift(iovad);
	hi = (iova + size - 1) >> iova_shift(iovad);

	spin_lock_irqsave(&iovad->iova_rbtree_lock, flags);
	v = p2pmap_iova_overlap(iovad, lo, hi);
	if (v && v->pfn_lo <= lo && v->pfn_hi >= hi &&
	    v->pfn_hi - v->pfn_lo + 1 >= P2PMAP_RESERVED_MIN_GRANULES)
		covered = true;
	spin_unlock_irqrestore(&iovad->iova_rbtree_lock, flags);

	if (covered)
		return 0;
	if (v) {
		*why = P2PMAP_WHY_IOVA_BUSY;
		return -EBUSY;
	}
	v = reserve_iova(iovad, lo, hi);
	if (!v) {
		*why = "could not reserve the range in the DMA API IOVA allocator";
		return -ENOMEM;
	}
	if (v->pfn_lo != lo || v->pfn_hi != hi) {
		/* An allocation raced in; the tree now holds both: refuse. */
		*why = P2PMAP_WHY_IOVA_BUSY;
		return -EBUSY;
	}
	*resv = v;
	return 0;
}

void p2pmap_iova_unguard(struct iommu_domain *domain, struct iova *resv)
{
	struct iova_domain *iovad;

	if (!resv)
		return;
	iovad = p2pmap_iovad(domain);
	if (!WARN_ON_ONCE(!iovad))
		__free_iova(iovad, resv);
}
