// SPDX-License-Identifier: GPL-2.0
/*
 * Where a mapping is made: the selected memory BARs of the target are mapped
 * into the initiator's default DMA domain with IOVA == bus address.
 */
#include <linux/slab.h>
#include "p2pmap.h"

#define P2PMAP_PROT	(IOMMU_READ | IOMMU_WRITE | IOMMU_MMIO)
#define P2PMAP_WHY_NO_BAR \
	"the BAR mask selects no memory BAR of the target that can be mapped (page-sized and aligned)"

static LIST_HEAD(p2pmap_ranges);

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

static struct p2pmap_range *p2pmap_range_find(struct iommu_domain *domain,
					      u64 iova)
{
	struct p2pmap_range *r;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->domain == domain && r->iova == iova)
			return r;
	return NULL;
}

/* Every sampled page of the range must be untranslated before we map it. */
static bool p2pmap_range_untranslated(struct iommu_domain *domain, u64 iova,
				      u64 size)
{
	u64 step = max_t(u64, PAGE_SIZE, size / 64);
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
	if (!p2pmap_range_untranslated(domain, iova, size)) {
		*why = "target BAR range is already translated in the initiator's domain";
		return -EBUSY;
	}
	return 0;
}

static struct p2pmap_range *p2pmap_range_get(struct iommu_domain *domain,
					     const struct p2pmap_bar *bar,
					     const char **why, int *err)
{
	struct p2pmap_range *r = p2pmap_range_find(domain, bar->bus);

	if (r) {
		if (r->size != bar->size) {
			*why = "target BAR overlaps a different p2pmap range in this domain";
			*err = -EBUSY;
			return NULL;
		}
		r->users++;
		return r;
	}

	*err = p2pmap_range_check(domain, bar->bus, bar->size, why);
	if (*err)
		return NULL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		*why = "out of memory";
		*err = -ENOMEM;
		return NULL;
	}
	*err = p2pmap_iova_guard(domain, bar->bus, bar->size, &r->resv, why);
	if (*err)
		goto free;
	*err = p2pmap_iommu_map(domain, bar->bus, bar->phys, bar->size,
				P2PMAP_PROT);
	if (*err) {
		*why = "iommu_map() failed";
		goto unguard;
	}
	if (iommu_iova_to_phys(domain, bar->bus) != bar->phys) {
		iommu_unmap(domain, bar->bus, bar->size);
		*why = "the IOMMU did not translate the new identity range";
		*err = -EIO;
		goto unguard;
	}
	r->domain = domain;
	r->iova = bar->bus;
	r->size = bar->size;
	r->pages = p2pmap_pages_needed(domain->pgsize_bitmap, r->iova, r->size);
	r->users = 1;
	list_add_tail(&r->node, &p2pmap_ranges);
	pr_debug("range %#llx+%#llx: mapped, %llu pages\n", r->iova, r->size,
		 r->pages);
	return r;

unguard:
	p2pmap_iova_unguard(domain, r->resv);
free:
	kfree(r);
	return NULL;
}

int p2pmap_link_map(struct p2pmap_link *link, struct p2pmap_dev *init,
		    struct p2pmap_dev *tgt)
{
	struct iommu_domain *domain = p2pmap_dma_domain(init->pdev);
	const char *why = NULL;
	unsigned long min_page;
	int i, n = 0, err = 0;

	lockdep_assert_held(&p2pmap_lock);
	if (!domain) {
		link->reason = "initiator is not on its default DMA domain";
		return -EBUSY;
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
		r = p2pmap_range_get(domain, bar, &why, &err);
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
