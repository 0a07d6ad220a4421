// SPDX-License-Identifier: GPL-2.0
/*
 * Where a mapping is made: the selected memory BARs of the target are mapped
 * into the initiator's default DMA domain with IOVA == bus address.
 */
#include <linux/slab.h>
#include "p2pmap.h"

#define P2PMAP_PROT	(IOMMU_READ | IOMMU_WRITE | IOMMU_MMIO)
#define P2PMAP_WHY_FOREIGN_MAP \
	"target BAR range is already translated in the initiator's domain, by a mapping p2pmap did not make"
#define P2PMAP_WHY_STUCK \
	"an earlier unmap of this range came back short: it stays reserved and unusable (p2pmap info)"
#define P2PMAP_WHY_SME \
	"SME is active (mem_encrypt=on) and this kernel's AMD IOMMU page table sets the C-bit on MMIO PTEs, which AMD requires clear for MMIO: fixed by e2692c4eeaa4 \"iommupt: Do not set C-bit on MMIO backed PTEs\" (Linux 7.0, 6.19.4); boot without mem_encrypt=on or a kernel with the fix"
#define P2PMAP_WHY_NO_BAR \
	"the BAR mask selects no memory BAR of the target that can be mapped (page-sized and aligned)"

/*
 * Page-table entries needed for [iova, iova + size) with the page sizes the
 * domain offers, each the largest that fits the remaining size and the
 * alignment: what the IOMMU core's own split does.
 */
static u64 p2pmap_pages_needed(unsigned long pgsizes, u64 iova, u64 size)
{
	u64 pages = 0;

	while (size) {
		unsigned long fit = pgsizes;
		unsigned long pgsize;

		fit &= GENMASK_ULL(fls64(size) - 1, 0);
		if (iova)
			fit &= GENMASK_ULL(__ffs64(iova), 0);
		if (!fit)
			return 0;
		pgsize = BIT(__fls(fit));
		iova += pgsize;
		size -= pgsize;
		pages++;
	}
	return pages;
}

/*
 * Nothing may be mapped in the range before p2pmap maps it.  Checked after
 * the reservation, when the DMA API can no longer put anything there (so
 * only a mapping made without the allocator could be): samples, each a
 * page-table walk, bounded so that a 64 GiB BAR costs what a 1 MiB one does.
 */
#define P2PMAP_CHECK_SAMPLES	64

static bool p2pmap_range_untranslated(struct iommu_domain *domain, u64 iova,
				      u64 size)
{
	u64 step = max_t(u64, PAGE_SIZE, size / P2PMAP_CHECK_SAMPLES);
	u64 off;

	for (off = 0; off < size; off += step)
		if (iommu_iova_to_phys(domain, iova + off))
			return false;
	return !iommu_iova_to_phys(domain, iova + size - PAGE_SIZE);
}

static int p2pmap_range_check(struct iommu_domain *domain, u64 iova, u64 size,
			      const char **why)
{
	struct iommu_domain_geometry *g = &domain->geometry;
	unsigned long min_page = BIT(__ffs(domain->pgsize_bitmap));

	if (!IS_ALIGNED(iova | size, min_page)) {
		*why = "target BAR is not aligned to the IOMMU page size";
		return -EINVAL;
	}
	if (iova < g->aperture_start || iova + size - 1 > g->aperture_end) {
		*why = "target BAR lies outside the initiator domain's IOMMU aperture";
		return -ERANGE;
	}
	return 0;
}

/*
 * Map @r, reserved and unmapped.  Nothing of the domain is ever unmapped
 * here but what this call mapped.
 */
static int p2pmap_range_map(struct p2pmap_range *r, phys_addr_t phys,
			    const char **why)
{
	int err;

	if (!p2pmap_range_untranslated(r->domain, r->iova, r->size)) {
		*why = P2PMAP_WHY_FOREIGN_MAP;
		return -EBUSY;
	}
	err = p2pmap_iommu_map(r->domain, r->iova, phys, r->size, P2PMAP_PROT);
	if (err) {
		/* iommu_map() undoes its own partial work. */
		*why = "iommu_map() failed";
		return err;
	}
	r->mapped = true;
	if (iommu_iova_to_phys(r->domain, r->iova) != phys) {
		/* The range was ours alone and empty: undo what we mapped. */
		p2pmap_range_unmap(r);
		*why = "the IOMMU did not translate the new identity range";
		return -EIO;
	}
	r->pages = p2pmap_pages_needed(r->domain->pgsize_bitmap, r->iova,
				       r->size);
	pr_debug("range %#llx+%#llx: mapped, %llu pages\n", r->iova, r->size,
		 r->pages);
	return 0;
}

/*
 * The target's BAR layout changed (the BAR moved or changed size) while
 * the initiator stayed bound: the initiator may still hold the old raw
 * address, so the old range keeps its reservation, as a window (reserved,
 * never mapped), until the domain's reservations go.
 */
static void p2pmap_range_hold(struct p2pmap_range *r)
{
	if (!r->resv) {		/* the kernel's own bridge window holds it */
		p2pmap_range_release(r);
		return;
	}
	pr_debug("range %#llx+%#llx: kept reserved (the BAR layout changed)\n",
		 r->iova, r->size);
	r->window = true;
}

/*
 * The range for @bar in @init's @domain, mapped, with one more user.  A
 * range kept reserved from an earlier link (the target left and came back)
 * is mapped again in its reservation.
 */
static struct p2pmap_range *p2pmap_range_get(struct iommu_domain *domain,
					     struct pci_dev *init,
					     const struct p2pmap_bar *bar,
					     const char **why, int *err)
{
	struct p2pmap_range *r = p2pmap_range_find(domain, bar->bus);
	struct p2pmap_range *o;
	bool fresh = false;

	if (r && r->stuck && !r->users) {
		*why = P2PMAP_WHY_STUCK;
		*err = -EIO;
		return NULL;
	}
	if (r && r->size != bar->size && !r->users) {
		p2pmap_range_hold(r);
		r = NULL;
	}
	if (!r) {
		/* Ranges of an old BAR layout: kept, out of the way. */
		while ((o = p2pmap_range_overlap(domain, bar->bus, bar->size)) &&
		       !o->users && !o->stuck)
			p2pmap_range_hold(o);
		if (o) {
			*why = "target BAR overlaps a different p2pmap range in this domain";
			*err = -EBUSY;
			return NULL;
		}
		*err = p2pmap_range_check(domain, bar->bus, bar->size, why);
		if (*err)
			return NULL;
		r = p2pmap_range_new(domain, init, bar->bus, bar->size, why,
				     err);
		if (!r)
			return NULL;
		fresh = true;
	} else if (r->size != bar->size) {
		*why = "target BAR overlaps a different p2pmap range in this domain";
		*err = -EBUSY;
		return NULL;
	}
	if (!r->mapped) {
		*err = p2pmap_range_map(r, bar->phys, why);
		if (*err) {
			/* A refused link changes nothing; a range kept from
			 * an earlier mapping stays reserved.
			 */
			if (fresh && !r->stuck)
				p2pmap_range_release(r);
			return NULL;
		}
	}
	r->users++;
	return r;
}

int p2pmap_link_map(struct p2pmap_link *link, struct p2pmap_dev *init,
		    struct p2pmap_dev *tgt)
{
	struct iommu_domain *domain = init->domain;
	const char *why = NULL;
	unsigned long min_page;
	int i, n = 0, err = 0;

	lockdep_assert_held(&p2pmap_lock);
	if (!domain) {
		link->reason = "initiator is not on its default DMA domain";
		return -EBUSY;
	}
	if (p2pmap_sme_state() == P2PMAP_SME_REFUSED) {
		link->reason = P2PMAP_WHY_SME;
		return -EOPNOTSUPP;
	}
	min_page = BIT(__ffs(domain->pgsize_bitmap));
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		const struct p2pmap_bar *bar = &tgt->bars[i];
		struct p2pmap_range *r;

		if (!(link->bar_mask & BIT(i)) || !bar->size)
			continue;
		/* Sub-page BARs (small register windows) cannot be mapped
		 * alone without exposing their neighbours: left out.
		 */
		if (!IS_ALIGNED(bar->bus | bar->size, min_page))
			continue;
		r = p2pmap_range_get(domain, init->pdev, bar, &why, &err);
		if (!r) {
			pr_warn("link %s -> %s: BAR%d %#llx+%#llx: %s (%d)\n",
				link->initiator, link->target, i, bar->bus,
				bar->size, why, err);
			link->reason = why;
			p2pmap_link_unmap(link);
			return err;
		}
		link->ranges[n] = r;
		link->range_bar[n] = i;
		n++;
	}
	if (!n) {
		link->reason = P2PMAP_WHY_NO_BAR;
		return -EINVAL;
	}
	link->reason = NULL;
	return 0;
}
