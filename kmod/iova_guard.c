// SPDX-License-Identifier: GPL-2.0
/*
 * The IOVA collision hazard.  dma-iommu allocates IOVAs for a device from an
 * iova_domain that only knows the windows of the device's own host bridge
 * and the firmware's reserved regions.  A peer BAR under another host bridge
 * is free space to it: without a guard, the DMA API may later hand out an
 * IOVA inside an identity range, and the two mappings collide (silently on
 * AMD v1 page tables).
 *
 * The guard puts a node of its own over the range in that iova_domain.  The
 * check that the range is free and the insertion happen under one hold of
 * the allocator's lock, so no allocation can land in between, and p2pmap
 * never merges with, widens or adopts a node the DMA API made (what
 * reserve_iova() would do).  Only the initiator's own host-bridge windows,
 * which dma-iommu reserves itself, count as "already reserved"; any other
 * node in the range is the DMA API's (in use, cached, waiting in the flush
 * queue, or allocated and not yet mapped) or a firmware region: refused.
 *
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

#define P2PMAP_WHY_NO_IOVAD \
	"cannot find the DMA API IOVA allocator of the initiator's domain on this kernel: refusing, the DMA API could hand out IOVAs inside the range"
#define P2PMAP_WHY_IOVA_BUSY \
	"target BAR holds IOVAs of the initiator's DMA API allocator that p2pmap did not reserve (its driver allocated there before p2pmap could, or a firmware reserved region): load p2pmap before the driver, or unbind and bind the driver"
#define P2PMAP_WHY_IOVA_NOMEM \
	"out of memory for the IOVA reservation"

#ifdef P2PMAP_DEBUG
static bool debug_skip_iova_guard;
module_param_cb(debug_skip_iova_guard, &p2pmap_param_ops_bool,
		&debug_skip_iova_guard, 0644);
MODULE_PARM_DESC(debug_skip_iova_guard,
		 "DEBUG BUILDS ONLY: map without reserving the IOVA range (proves the collision test can fail)");

static bool debug_no_cache_flush;
module_param_cb(debug_no_cache_flush, &p2pmap_param_ops_bool,
		&debug_no_cache_flush, 0644);
MODULE_PARM_DESC(debug_no_cache_flush,
		 "DEBUG BUILDS ONLY: leave the IOVA caches alone before reserving windows (proves the rebind test can fail)");
#else
#define debug_skip_iova_guard false
#define debug_no_cache_flush false
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

/* The lowest node that ends at or above @lo: O(log n) in the live IOVAs. */
static struct iova *p2pmap_iova_from(struct iova_domain *iovad,
				     unsigned long lo)
{
	struct rb_node *n = iovad->rbroot.rb_node;
	struct iova *found = NULL;

	while (n) {
		struct iova *v = rb_entry(n, struct iova, node);

		if (v->pfn_hi < lo) {
			n = n->rb_right;
		} else {
			found = v;
			n = n->rb_left;
		}
	}
	return found;
}

/* A node other than @skip overlapping [lo, hi]; nodes are disjoint. */
static struct iova *p2pmap_iova_overlap(struct iova_domain *iovad,
					unsigned long lo, unsigned long hi,
					const struct iova *skip)
{
	struct iova *v = p2pmap_iova_from(iovad, lo);

	while (v && v->pfn_lo <= hi) {
		struct rb_node *next;

		if (v != skip)
			return v;
		next = rb_next(&v->node);
		v = next ? rb_entry(next, struct iova, node) : NULL;
	}
	return NULL;
}

/*
 * Is @v what dma-iommu's iova_reserve_pci_windows() made for the memory
 * window of @init's own host bridge that holds [lo, hi] (bus offset
 * applied)?  It reserved the whole window at domain init; a firmware
 * reserved region overlapping it is merged into that node afterwards by
 * reserve_iova() (which lowers the node's start), so the node holds at
 * least the whole window.  A node of the DMA API never does: it cannot
 * allocate inside a reserved window.
 */
static bool p2pmap_iova_is_bridge_window(struct iova_domain *iovad,
					 struct pci_dev *init,
					 const struct iova *v, unsigned long lo,
					 unsigned long hi)
{
	struct pci_host_bridge *bridge = pci_find_host_bridge(init->bus);
	struct resource_entry *w;

	resource_list_for_each_entry(w, &bridge->windows) {
		unsigned long wlo, whi;

		if (resource_type(w->res) != IORESOURCE_MEM)
			continue;
		wlo = iova_pfn(iovad, w->res->start - w->offset);
		whi = iova_pfn(iovad, w->res->end - w->offset);
		if (wlo <= lo && hi <= whi && v->pfn_lo <= wlo &&
		    whi <= v->pfn_hi)
			return true;
	}
	return false;
}

/*
 * Move @v, a node p2pmap just allocated, to [lo, hi], under the tree lock.
 * Removing it from its old place does iova.c's own bookkeeping for a freed
 * node (the allocation hints must not point at the old place); the insert
 * is what reserve_iova() does for a fresh range (the hints stay).
 */
static void p2pmap_iova_move(struct iova_domain *iovad, struct iova *v,
			     unsigned long lo, unsigned long hi)
{
	struct iova *c32 = rb_entry(iovad->cached32_node, struct iova, node);
	struct iova *c = rb_entry(iovad->cached_node, struct iova, node);
	struct rb_node **link = &iovad->rbroot.rb_node, *parent = NULL;

	lockdep_assert_held(&iovad->iova_rbtree_lock);
	if (v == c32 || (v->pfn_hi < iovad->dma_32bit_pfn &&
			 v->pfn_lo >= c32->pfn_lo))
		iovad->cached32_node = rb_next(&v->node);
	if (v->pfn_lo < iovad->dma_32bit_pfn)
		iovad->max32_alloc_size = iovad->dma_32bit_pfn;
	if (v->pfn_lo >= c->pfn_lo)
		iovad->cached_node = rb_next(&v->node);
	rb_erase(&v->node, &iovad->rbroot);

	v->pfn_lo = lo;
	v->pfn_hi = hi;
	while (*link) {
		parent = *link;
		if (lo < rb_entry(parent, struct iova, node)->pfn_lo)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&v->node, parent, link);
	rb_insert_color(&v->node, &iovad->rbroot);
}

/*
 * A node from the allocator's own cache (iova.c does not export its node
 * allocator), taken at the top of the pfn space, where no device can
 * address, to be moved into place under the allocator's lock.
 */
static struct iova *p2pmap_iova_spare(struct iova_domain *iovad)
{
	return alloc_iova(iovad, 1, (ULONG_MAX >> iova_shift(iovad)) - 1,
			  false);
}

/*
 * Make sure the DMA API of @domain, the default domain of @init, can never
 * hand out an IOVA in [iova, iova + size).  On success *resv is p2pmap's
 * node, or NULL when @init's own host-bridge window already covers the
 * range.  Refuses (EBUSY) when any other node overlaps it.
 */
int p2pmap_iova_reserve(struct iommu_domain *domain, struct pci_dev *init,
			u64 iova, u64 size, struct iova **resv,
			const char **why)
{
	struct iova_domain *iovad = p2pmap_iovad(domain);
	unsigned long lo, hi, flags;
	bool covered = false, inside;
	u64 in_way_lo = 0, in_way_hi = 0;
	struct iova *spare, *v;

	*resv = NULL;
	if (debug_skip_iova_guard)
		return 0;
	if (!iovad) {
		*why = P2PMAP_WHY_NO_IOVAD;
		return -EOPNOTSUPP;
	}
	lo = iova_pfn(iovad, iova);
	hi = iova_pfn(iovad, iova + size - 1);

	spare = p2pmap_iova_spare(iovad);
	if (!spare) {
		*why = P2PMAP_WHY_IOVA_NOMEM;
		return -ENOMEM;
	}

	spin_lock_irqsave(&iovad->iova_rbtree_lock, flags);
	v = p2pmap_iova_overlap(iovad, lo, hi, spare);
	if (v) {
		/* Read @v only here: it is not ours and may go any time. */
		inside = v->pfn_lo <= lo && v->pfn_hi >= hi;
		covered = inside &&
			  p2pmap_iova_is_bridge_window(iovad, init, v, lo, hi);
		in_way_lo = (u64)v->pfn_lo << iova_shift(iovad);
		in_way_hi = ((u64)v->pfn_hi + 1) << iova_shift(iovad);
	} else {
		p2pmap_iova_move(iovad, spare, lo, hi);
	}
	spin_unlock_irqrestore(&iovad->iova_rbtree_lock, flags);

	if (!v) {
		*resv = spare;
		return 0;
	}
	__free_iova(iovad, spare);
	if (covered)
		return 0;
	pr_info("%s: IOVAs %#llx-%#llx of its DMA API allocator are in the way of %#llx+%#llx\n",
		pci_name(init), in_way_lo, in_way_hi - 1, iova, size);
	*why = P2PMAP_WHY_IOVA_BUSY;
	return -EBUSY;
}

/*
 * Reserve the first free stretch of [lo, hi] (bytes, inclusive), up to the
 * next node of the allocator, in one hold of its lock.  *resv is p2pmap's
 * new node over [*gap_lo, *gap_end), or NULL when a node sits at @lo.
 * [*way_lo, *way_end) is the node that ended the stretch, where the caller
 * goes on past; both are beyond @hi when no node did.  Nodes that are not
 * p2pmap's are left exactly as they are.
 */
int p2pmap_iova_reserve_gap(struct iommu_domain *domain, u64 lo, u64 hi,
			    struct iova **resv, u64 *gap_lo, u64 *gap_end,
			    u64 *way_lo, u64 *way_end)
{
	struct iova_domain *iovad = p2pmap_iovad(domain);
	unsigned long plo, phi, ghi, wlo, whi, flags;
	struct iova *spare, *v;
	bool gap;

	*resv = NULL;
	if (!iovad)
		return -EOPNOTSUPP;
	plo = iova_pfn(iovad, lo);
	phi = iova_pfn(iovad, hi);
	spare = p2pmap_iova_spare(iovad);
	if (!spare)
		return -ENOMEM;

	spin_lock_irqsave(&iovad->iova_rbtree_lock, flags);
	v = p2pmap_iova_overlap(iovad, plo, phi, spare);
	if (v) {
		wlo = v->pfn_lo;
		whi = v->pfn_hi;
	} else {
		wlo = phi + 1;
		whi = phi;
	}
	gap = wlo > plo;
	ghi = min(wlo - 1, phi);
	if (gap)
		p2pmap_iova_move(iovad, spare, plo, ghi);
	spin_unlock_irqrestore(&iovad->iova_rbtree_lock, flags);

	if (gap)
		*resv = spare;
	else
		__free_iova(iovad, spare);
	*gap_lo = (u64)plo << iova_shift(iovad);
	*gap_end = ((u64)ghi + 1) << iova_shift(iovad);
	*way_lo = (u64)wlo << iova_shift(iovad);
	*way_end = ((u64)whi + 1) << iova_shift(iovad);
	return 0;
}

/*
 * Empty @domain's per-CPU and global IOVA caches: freed IOVAs of up to 32
 * pages wait there as allocated tree nodes (also under strict
 * invalidation) and are handed out first, so a window reserved around them
 * would get holes that the next driver is given.  iova.c flushes them only
 * when an alloc_iova_fast() with flush_rcache fails; this one cannot
 * succeed (the whole 32-bit space below 4 GiB), bypasses the caches (too
 * large for them) and leaves the tree as it was.
 */
void p2pmap_iova_flush_caches(struct iommu_domain *domain)
{
	struct iova_domain *iovad;
	unsigned long pfn;

	if (!domain || debug_no_cache_flush)
		return;
	iovad = p2pmap_iovad(domain);
	if (!iovad || !iovad->rcaches || iovad->dma_32bit_pfn < 2)
		return;
	pfn = alloc_iova_fast(iovad, iovad->dma_32bit_pfn,
			      iovad->dma_32bit_pfn - 1, true);
	if (WARN_ON_ONCE(pfn))
		free_iova_fast(iovad, pfn, iovad->dma_32bit_pfn);
}

/*
 * Is @resv still p2pmap's node over [iova, iova + size) in @domain's
 * allocator?  @domain must be held (a DMA API driver of its group is bound
 * or binding): it is alive then, but it may be a new domain at the address
 * of a freed one, whose nodes went with it.  Only that exact node at that
 * exact place counts; @resv is compared, never read, until found.
 */
bool p2pmap_iova_holds(struct iommu_domain *domain, struct iova *resv,
		       u64 iova, u64 size)
{
	struct iova_domain *iovad = p2pmap_iovad(domain);
	unsigned long lo, hi, flags;
	struct iova *v;
	bool found;

	if (!iovad || !resv)
		return false;
	lo = iova_pfn(iovad, iova);
	hi = iova_pfn(iovad, iova + size - 1);
	spin_lock_irqsave(&iovad->iova_rbtree_lock, flags);
	v = p2pmap_iova_from(iovad, lo);
	found = v == resv && v->pfn_lo == lo && v->pfn_hi == hi;
	spin_unlock_irqrestore(&iovad->iova_rbtree_lock, flags);
	return found;
}

/* Give back a reservation made by p2pmap_iova_reserve(). */
void p2pmap_iova_release(struct iommu_domain *domain, struct iova *resv)
{
	struct iova_domain *iovad;

	if (!resv)
		return;
	iovad = p2pmap_iovad(domain);
	if (!WARN_ON_ONCE(!iovad))
		__free_iova(iovad, resv);
}
