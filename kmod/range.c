// SPDX-License-Identifier: GPL-2.0
/*
 * The identity ranges p2pmap holds, and when their IOVA reservations are
 * given back.  A range is reserved before it is mapped (map.c) and stays
 * reserved after it is unmapped (unmap.c): the initiator may keep using the
 * raw peer address, and that address must fault, never reach a buffer the
 * DMA API handed out in its place.  The reservation goes when no device of
 * the domain is bound to a DMA API driver any more (the last one has
 * finished unbinding: UNBOUND_DRIVER, after its remove() and dma_cleanup()),
 * and at module unload.  All under p2pmap_lock.
 */
#include <linux/slab.h>
#include "p2pmap.h"

LIST_HEAD(p2pmap_ranges);

struct p2pmap_range *p2pmap_range_find(struct iommu_domain *domain, u64 iova)
{
	struct p2pmap_range *r;

	lockdep_assert_held(&p2pmap_lock);
	/* Not a window: one may start at a BAR and hold others' ranges. */
	list_for_each_entry(r, &p2pmap_ranges, node)
		if (!r->window && r->domain == domain && r->iova == iova)
			return r;
	return NULL;
}

static bool p2pmap_range_overlaps(const struct p2pmap_range *r,
				  struct iommu_domain *domain, u64 iova,
				  u64 size)
{
	return r->domain == domain && r->iova < iova + size &&
	       iova < r->iova + r->size;
}

/* An identity range of @domain overlapping [iova, iova + size), if any. */
struct p2pmap_range *p2pmap_range_overlap(struct iommu_domain *domain,
					  u64 iova, u64 size)
{
	struct p2pmap_range *r;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(r, &p2pmap_ranges, node)
		if (!r->window && p2pmap_range_overlaps(r, domain, iova, size))
			return r;
	return NULL;
}

/* A new range, reserved in the DMA API allocator of @init's @domain. */
struct p2pmap_range *p2pmap_range_new(struct iommu_domain *domain,
				      struct pci_dev *init, u64 iova, u64 size,
				      const char **why, int *err)
{
	struct p2pmap_range *r;

	lockdep_assert_held(&p2pmap_lock);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		*why = "out of memory for an identity range";
		*err = -ENOMEM;
		return NULL;
	}
	/* Inside another bridge's window, reserved before the driver
	 * probed: that reservation covers it.  Partly inside: the rest is
	 * reserved now, if nothing of the DMA API's is there.
	 */
	*err = p2pmap_windows_fill(domain, init, iova, size, why);
	if (*err == 1)
		*err = p2pmap_iova_reserve(domain, init, iova, size, &r->resv,
					   why);
	if (*err) {
		kfree(r);
		return NULL;
	}
	r->domain = domain;
	r->iova = iova;
	r->size = size;
	list_add_tail(&r->node, &p2pmap_ranges);
	pr_debug("range %#llx+%#llx: reserved\n", iova, size);
	return r;
}

/*
 * Forget @r, unmapped and unused.  Its IOVAs go back to the DMA API unless
 * an unmap came back short: then PTEs may remain, and the node stays in the
 * allocator (the kernel frees it with the domain).
 */
void p2pmap_range_release(struct p2pmap_range *r)
{
	lockdep_assert_held(&p2pmap_lock);
	if (WARN_ON_ONCE(r->users || (r->mapped && !r->stuck)))
		return;
	if (r->stuck)
		pr_warn("range %#llx+%#llx: left reserved for good (an unmap came back short)\n",
			r->iova, r->size);
	else
		p2pmap_iova_release(r->domain, r->resv);
	pr_debug("range %#llx+%#llx: released\n", r->iova, r->size);
	list_del(&r->node);
	kfree(r);
}

/* No device of @domain is bound to a DMA API driver any more. */
void p2pmap_ranges_release_domain(struct iommu_domain *domain)
{
	struct p2pmap_range *r, *tmp;

	list_for_each_entry_safe(r, tmp, &p2pmap_ranges, node)
		if (r->domain == domain)
			p2pmap_range_release(r);
}

/*
 * @domain is no longer attached to the device p2pmap recorded it for (root
 * changed the group's type between dma_cleanup() and UNBOUND_DRIVER): it
 * may be freed, with p2pmap's nodes in it.  Forget the ranges without
 * touching it.  Links were unmapped at UNBIND_DRIVER, while it was alive.
 */
void p2pmap_ranges_forget_domain(struct iommu_domain *domain,
				 const char *addr)
{
	struct p2pmap_range *r, *tmp;
	unsigned int n = 0;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry_safe(r, tmp, &p2pmap_ranges, node) {
		if (r->domain != domain)
			continue;
		WARN_ON_ONCE(r->users || (r->mapped && !r->stuck));
		list_del(&r->node);
		kfree(r);
		n++;
	}
	if (n)
		pr_warn("%s: its default domain was replaced while its driver unbound: %u range(s) forgotten, not given back (the kernel frees them with the domain)\n",
			addr, n);
}

/*
 * Module unload, after every link is unmapped: the one time reservations
 * go back while an initiator may still be bound.  Without p2pmap the host
 * is exactly as the kernel alone makes it (it reserves no peer BAR of
 * another host bridge either); keeping nodes would leave p2pmap state in
 * the kernel after it is gone.  The peer BARs fault again at once: the PTEs
 * went with the links.
 */
void p2pmap_ranges_release_all(void)
{
	struct p2pmap_range *r, *tmp;

	list_for_each_entry_safe(r, tmp, &p2pmap_ranges, node)
		p2pmap_range_release(r);
}

unsigned int p2pmap_ranges_reserved(void)
{
	struct p2pmap_range *r;
	unsigned int n = 0;

	list_for_each_entry(r, &p2pmap_ranges, node)
		n += !r->mapped && !r->window;
	return n;
}
