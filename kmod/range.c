// SPDX-License-Identifier: GPL-2.0
/*
 * The identity ranges p2pmap holds, and when their IOVA reservations are
 * given back.  A range is reserved before it is mapped (map.c) and stays
 * reserved after it is unmapped (unmap.c): the initiator may keep using the
 * raw peer address, and that address must fault, never reach a buffer the
 * DMA API handed out in its place.
 *
 * p2pmap reads or changes a domain's allocator only while something holds
 * the domain: a DMA API driver of its group (dma_configure() to
 * dma_cleanup(): from BIND_DRIVER to UNBIND_DRIVER), or the group's mutex
 * (p2pmap_domain_locked()).  When the last such driver has gone
 * (UNBOUND_DRIVER, after its remove() and dma_cleanup()), root may already
 * have replaced the group's default domain through sysfs, or VFIO claimed
 * the group: the reservations go back with the group locked, in the domain
 * attached then, each only where its own node sits at its own place
 * (p2pmap_iova_holds()); a replaced domain's ranges are forgotten (its
 * nodes went with it).  With VFIO holding the group they stay dormant,
 * untouched, and the next DMA API driver's BIND_DRIVER in the group checks
 * them and gives them back before that driver probes.  Module unload gives
 * back, group by group, what is in the attached domains.
 * All under p2pmap_lock.
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
	r->group = init->dev.iommu_group;
	r->iova = iova;
	r->size = size;
	list_add_tail(&r->node, &p2pmap_ranges);
	pr_debug("range %#llx+%#llx: reserved\n", iova, size);
	return r;
}

/*
 * Forget @r, unmapped and unused, in a domain a driver holds.  Its IOVAs go
 * back to the DMA API unless an unmap came back short: then PTEs may
 * remain, and the node stays in the allocator (the kernel frees it with the
 * domain).
 */
void p2pmap_range_release(struct p2pmap_range *r)
{
	bool in_place;

	lockdep_assert_held(&p2pmap_lock);
	if (WARN_ON_ONCE(r->users || (r->mapped && !r->stuck)))
		return;
	in_place = !r->resv ||
		   p2pmap_iova_holds(r->domain, r->resv, r->iova, r->size);
	if (r->stuck)
		pr_warn("range %#llx+%#llx: left reserved for good (an unmap came back short)\n",
			r->iova, r->size);
	else if (WARN_ON_ONCE(!in_place))
		pr_err("range %#llx+%#llx: p2pmap's node is not where p2pmap put it: left alone\n",
		       r->iova, r->size);
	else
		p2pmap_iova_release(r->domain, r->resv);
	pr_debug("range %#llx+%#llx: released\n", r->iova, r->size);
	list_del(&r->node);
	kfree(r);
}

/* Forget @r without touching its domain (which may be freed). */
static void p2pmap_range_forget(struct p2pmap_range *r)
{
	list_del(&r->node);
	kfree(r);
}

/*
 * No device of @domain, which a driver holds, is bound to a DMA API driver
 * any more, apart from the one now binding.  Returns how many ranges went.
 */
unsigned int p2pmap_ranges_release_domain(struct iommu_domain *domain)
{
	struct p2pmap_range *r, *tmp;
	unsigned int n = 0;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry_safe(r, tmp, &p2pmap_ranges, node) {
		if (r->domain != domain)
			continue;
		p2pmap_range_release(r);
		n++;
	}
	return n;
}

/*
 * Is @r, with @domain held by a driver of @group, still in that domain?
 * A group has one default domain at a time and a type change frees the
 * old one: a range of @group in another domain, or of another group in
 * @domain (an address freed and given out again), is stale.  Otherwise
 * its node must sit at its place (a new domain may have come back at the
 * same address): ranges without a node of their own count as the
 * domain's other ranges do.
 */
static bool p2pmap_range_stale(struct p2pmap_range *r,
			       struct iommu_domain *domain,
			       struct iommu_group *group)
{
	return r->group != group || r->domain != domain ||
	       (r->resv &&
		!p2pmap_iova_holds(domain, r->resv, r->iova, r->size));
}

static bool p2pmap_range_keyed(const struct p2pmap_range *r,
			       struct iommu_domain *domain,
			       struct iommu_group *group)
{
	return r->domain == domain || r->group == group;
}

/*
 * @domain is held, @pdev's group's default domain: @pdev's DMA API
 * driver is binding or bound, or the group's mutex is held.  Ranges
 * recorded for that group or that domain while nothing held them (the
 * group's last driver left) may be stale: a
 * root write to the group's type freed the domain with p2pmap's nodes in
 * it, and the domain at that address may be another one now.  Stale
 * ranges are forgotten untouched, and when any is, so are the ranges
 * without a node of their own (nothing says which domain they were in).
 * Returns how many went.
 */
unsigned int p2pmap_ranges_reconcile(struct iommu_domain *domain,
				     struct pci_dev *pdev)
{
	struct iommu_group *group = pdev->dev.iommu_group;
	struct p2pmap_range *r, *tmp;
	unsigned int gone = 0;
	bool stale = false;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(r, &p2pmap_ranges, node)
		if (p2pmap_range_keyed(r, domain, group) &&
		    p2pmap_range_stale(r, domain, group))
			stale = true;
	if (!stale)
		return 0;
	list_for_each_entry_safe(r, tmp, &p2pmap_ranges, node) {
		if (!p2pmap_range_keyed(r, domain, group))
			continue;
		if (r->group == group && r->domain == domain && r->resv &&
		    p2pmap_iova_holds(domain, r->resv, r->iova, r->size))
			continue;
		/* A mapped range's initiator held the domain all along. */
		if (WARN_ON_ONCE(r->users))
			continue;
		p2pmap_range_forget(r);
		gone++;
	}
	pr_info("%s: its group's default domain was replaced while no driver held it: %u range(s) of p2pmap's went with the old domain, nothing of the new one was touched\n",
		pci_name(pdev), gone);
	return gone;
}

/*
 * UNBOUND_DRIVER of @pdev, the last DMA API driver of its domain, with its
 * group locked (p2pmap_domain_locked()): @domain is what the group has
 * attached now, alive while the lock is held.  Nothing can hold a raw peer
 * address any more: what p2pmap has in that domain goes back, after the
 * check that it is still there (root may have replaced the domain since
 * dma_cleanup()).  No DMA API domain attached (VFIO claimed the group in
 * that window): the ranges stay dormant, untouched, for the next bind.
 */
void p2pmap_ranges_release_group(struct iommu_domain *domain,
				 struct pci_dev *pdev)
{
	if (!domain)
		return;
	p2pmap_ranges_reconcile(domain, pdev);
	if (!p2pmap_domain_in_use(domain, NULL))
		p2pmap_ranges_release_domain(domain);
}

static void p2pmap_ranges_release_unload(struct iommu_domain *domain,
					 struct pci_dev *pdev)
{
	if (!domain)
		return;
	p2pmap_ranges_reconcile(domain, pdev);
	p2pmap_ranges_release_domain(domain);
}

/*
 * Module unload, after every link is unmapped, with events ignored
 * (p2pmap_dying): the one time reservations go back while an initiator
 * may still be bound.  Without p2pmap the host is exactly as the kernel
 * alone makes it; the peer BARs fault again at once (the PTEs went with
 * the links).  Each tracked device's group is locked in turn and what
 * p2pmap has in its attached DMA domain goes back.  Ranges found in no
 * such domain (a group VFIO holds, a group gone with its devices) are
 * left to the kernel, untouched: it frees them with their domain.
 */
void p2pmap_ranges_release_locked(void)
{
	struct p2pmap_range *r, *tmp;
	struct p2pmap_dev *dev;
	unsigned int n = 0;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(dev, &p2pmap_devs, node)
		p2pmap_domain_locked(dev->pdev, p2pmap_ranges_release_unload);
	list_for_each_entry_safe(r, tmp, &p2pmap_ranges, node) {
		p2pmap_range_forget(r);
		n++;
	}
	if (n)
		pr_info("%u reserved range(s) in no domain a group has attached now (VFIO holds it, or the group is gone) are left to the kernel: it frees them with their domain\n",
			n);
}

unsigned int p2pmap_ranges_reserved(void)
{
	struct p2pmap_range *r;
	unsigned int n = 0;

	list_for_each_entry(r, &p2pmap_ranges, node)
		n += !r->mapped && !r->window &&
		     p2pmap_domain_in_use(r->domain, NULL);
	return n;
}

/* Ranges of @domain (all when NULL) that no driver holds now: dormant. */
unsigned int p2pmap_ranges_dormant(struct iommu_domain *domain)
{
	struct p2pmap_range *r;
	unsigned int n = 0;

	list_for_each_entry(r, &p2pmap_ranges, node)
		n += (!domain || r->domain == domain) &&
		     !p2pmap_domain_in_use(r->domain, NULL);
	return n;
}
