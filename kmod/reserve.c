// SPDX-License-Identifier: GPL-2.0
/*
 * Early reservations.  dma-iommu hands a PCI device IOVAs below 4 GiB first
 * and keeps out only the windows of the device's own host bridge; on a host
 * with a root complex per GPU, the peers' BARs (BAR0 in the 32-bit windows
 * of the other root complexes) are exactly where a GPU driver's first
 * allocations land while it boots its firmware.  A link mapped after that
 * finds its range taken, and a raw-address peer write lands in the GPU's
 * own RAM instead of faulting.
 *
 * So, before the driver of a device the policy admits, or could admit
 * after a "policy set" without a rebind (its driver is in the allowlist,
 * whatever the vendor, class and NUMA filters say), probes (BIND_DRIVER:
 * the allocator exists, dma_configure() holds the default domain, the
 * driver has allocated nothing), p2pmap reserves in its allocator the
 * memory windows of every other PCI host bridge, as dma-iommu does for the
 * device's own bridge.  Every raw peer address is then either
 * identity-mapped (a link) or unmapped (a fault), never a buffer.  A link
 * to a BAR inside a reserved window maps in that reservation.
 *
 * Only free stretches are reserved: nodes already there (a device loaded
 * before p2pmap) are left to the DMA API.  The same is done, late, when
 * p2pmap finds a driver already bound at load, and when the policy admits
 * a bound device.  The reservations go with the domain's other ranges
 * (range.c).  "reserve=none" turns this off.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include "p2pmap.h"

static const char reserve_dflt[] = "windows";
static const char *reserve = reserve_dflt;
static struct p2pmap_param_str reserve_param = { &reserve, reserve_dflt };
module_param_cb(reserve, &p2pmap_param_ops_str, &reserve_param, 0444);
MODULE_PARM_DESC(reserve,
		 "before an admitted device's driver probes, reserve in its DMA API allocator: windows (default: every other PCI host bridge's memory windows) or none");

static bool p2pmap_reserve_on(void)
{
	return strcmp(reserve, "none");
}

/* At init: anything but "none" reserves (the safe side), said if odd. */
void p2pmap_reserve_param_check(void)
{
	if (strcmp(reserve, "none") && strcmp(reserve, "windows"))
		p2pmap_param_problem("reserve=\"%.32s\" is neither windows nor none: using windows",
				     reserve);
}

struct p2pmap_range *p2pmap_window_covering(struct iommu_domain *domain,
					    u64 iova, u64 size)
{
	struct p2pmap_range *r;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->window && r->domain == domain && r->iova <= iova &&
		    iova + size <= r->iova + r->size)
			return r;
	return NULL;
}

u64 p2pmap_windows_reserved_bytes(void)
{
	struct p2pmap_range *r;
	u64 bytes = 0;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->window)
			bytes += r->size;
	return bytes;
}

/* Is [lo, end) one of p2pmap's own nodes in @domain? */
static bool p2pmap_range_is_ours(struct iommu_domain *domain, u64 lo, u64 end)
{
	struct p2pmap_range *r;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->domain == domain && r->resv && r->iova == lo &&
		    r->iova + r->size == end)
			return true;
	return false;
}

/*
 * The free stretches of [lo, hi] in @dev's allocator become windows.
 * Returns how many nodes that are not p2pmap's sit in it, or an error.
 */
static int p2pmap_reserve_stretch(struct p2pmap_dev *dev, u64 lo, u64 hi)
{
	struct iommu_domain *domain = dev->domain;
	u64 cur = lo, gap, end, way, way_end;
	struct p2pmap_range *r;
	struct iova *node;
	int err, foreign = 0;

	while (cur <= hi) {
		err = p2pmap_iova_reserve_gap(domain, cur, hi, &node, &gap,
					      &end, &way, &way_end);
		if (err)
			return err;
		if (node) {
			r = kzalloc(sizeof(*r), GFP_KERNEL);
			if (!r) {
				p2pmap_iova_release(domain, node);
				return -ENOMEM;
			}
			r->domain = domain;
			r->iova = gap;
			r->size = end - gap;
			r->resv = node;
			r->window = true;
			list_add_tail(&r->node, &p2pmap_ranges);
		}
		if (way > hi)
			break;
		foreign += !p2pmap_range_is_ours(domain, way, way_end);
		if (way_end <= cur)
			break;
		cur = way_end;
	}
	return foreign;
}

/*
 * Reserve, in @dev's default domain, every memory window of every PCI host
 * bridge but its own.  @dev is binding or bound to an admitted DMA API
 * driver.  Idempotent: what p2pmap reserved already is not free.  Returns
 * how many nodes p2pmap did not make were in the way.
 */
unsigned int p2pmap_reserve_windows(struct p2pmap_dev *dev)
{
	struct iommu_domain *domain = dev->domain;
	struct pci_host_bridge *own, *hb;
	struct pci_bus *bus = NULL;
	struct resource_entry *w;
	unsigned int foreign = 0;
	int n = 0;

	lockdep_assert_held(&p2pmap_lock);
	if (!domain || !p2pmap_reserve_on())
		return 0;
	own = pci_find_host_bridge(dev->pdev->bus);
	while (n >= 0 && (bus = pci_find_next_bus(bus))) {
		hb = pci_find_host_bridge(bus);
		if (hb == own)
			continue;
		resource_list_for_each_entry(w, &hb->windows) {
			struct iommu_domain_geometry *g = &domain->geometry;
			unsigned long min_page = BIT(__ffs(domain->pgsize_bitmap));
			u64 lo = w->res->start - w->offset;
			u64 hi = w->res->end - w->offset;

			if (resource_type(w->res) != IORESOURCE_MEM ||
			    hi < g->aperture_start || lo > g->aperture_end)
				continue;
			lo = ALIGN_DOWN(max_t(u64, lo, g->aperture_start),
					min_page);
			hi = ALIGN(min_t(u64, hi, g->aperture_end) + 1,
				   min_page) - 1;
			n = p2pmap_reserve_stretch(dev, lo, hi);
			if (n < 0)
				break;
			foreign += n;
		}
	}
	if (n < 0)
		pr_warn("%s: could not reserve the other host bridges' windows (%d): links to BARs there may find their range taken\n",
			dev->addr, n);
	return foreign;
}
