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
	bool on;

	p2pmap_parse_reserve_param(reserve, &on, NULL, 0);
	return on;
}

/* At init: anything but "none" reserves (the safe side), said if odd. */
void p2pmap_reserve_param_check(void)
{
	char problem[P2PMAP_PARAM_PROBLEM_LEN];
	bool on;

	if (p2pmap_parse_reserve_param(reserve, &on, problem, sizeof(problem)))
		p2pmap_param_problem("%s", problem);
}

/* The window range of @domain that holds @iova, if any. */
static struct p2pmap_range *p2pmap_window_at(struct iommu_domain *domain,
					     u64 iova)
{
	struct p2pmap_range *r;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->window && r->domain == domain && r->iova <= iova &&
		    iova - r->iova < r->size)
			return r;
	return NULL;
}

/*
 * The first stretch of [*lo, end) that no window of @domain holds: moves
 * *lo to its start and returns its end; returns *lo when the windows hold
 * all of it.  Windows may lie side by side (reserved in two passes): they
 * are walked as one.
 */
static u64 p2pmap_window_gap(struct iommu_domain *domain, u64 *lo, u64 end)
{
	struct p2pmap_range *r;
	u64 gap_end;

	while (*lo < end && (r = p2pmap_window_at(domain, *lo)))
		*lo = r->iova + r->size;
	if (*lo >= end)
		return *lo;
	gap_end = end;
	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->window && r->domain == domain && r->iova > *lo &&
		    r->iova < gap_end)
			gap_end = r->iova;
	return gap_end;
}

/* Does any window of @domain hold part of the range? */
static bool p2pmap_windows_touch(struct iommu_domain *domain, u64 iova,
				 u64 size)
{
	struct p2pmap_range *r;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->window && r->domain == domain &&
		    r->iova < iova + size && iova < r->iova + r->size)
			return true;
	return false;
}

/* A window range over p2pmap's new node @resv (NULL: covered by the
 * initiator's own host-bridge window).
 */
static struct p2pmap_range *p2pmap_window_add(struct iommu_domain *domain,
					      struct pci_dev *init,
					      u64 iova, u64 size,
					      struct iova *resv)
{
	struct p2pmap_range *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->domain = domain;
	r->group = init->dev.iommu_group;
	r->iova = iova;
	r->size = size;
	r->resv = resv;
	r->window = true;
	list_add_tail(&r->node, &p2pmap_ranges);
	return r;
}

/*
 * A range that windows of @domain hold in part (a BAR of another host
 * bridge whose window had nodes of the driver in it when it was reserved):
 * reserve the rest too, with the guard's rules (any node in the way that
 * p2pmap did not make refuses it, with the guard's reason).  Returns 0
 * when the windows then hold all of it, 1 when no window touches the
 * range (the caller reserves it alone), or an error; a refusal leaves
 * nothing new behind.
 */
int p2pmap_windows_fill(struct iommu_domain *domain, struct pci_dev *init,
			u64 iova, u64 size, const char **why)
{
	u64 lo = iova, end = iova + size, gap_end;
	struct p2pmap_range *r, *tmp;
	LIST_HEAD(added);
	struct iova *node;
	int err = 0;

	lockdep_assert_held(&p2pmap_lock);
	if (!p2pmap_windows_touch(domain, iova, size))
		return 1;
	while ((gap_end = p2pmap_window_gap(domain, &lo, end)) > lo) {
		err = p2pmap_iova_reserve(domain, init, lo, gap_end - lo, &node,
					  why);
		if (err)
			break;
		r = p2pmap_window_add(domain, init, lo, gap_end - lo, node);
		if (!r) {
			p2pmap_iova_release(domain, node);
			*why = "out of memory for an identity range";
			err = -ENOMEM;
			break;
		}
		list_move_tail(&r->node, &added);
		/* Held by @added, not the windows yet: walked past by hand. */
		lo = gap_end;
	}
	if (err) {
		list_for_each_entry_safe(r, tmp, &added, node) {
			p2pmap_iova_release(domain, r->resv);
			list_del(&r->node);
			kfree(r);
		}
		return err;
	}
	list_splice_tail(&added, &p2pmap_ranges);
	return 0;
}

u64 p2pmap_windows_reserved_bytes(void)
{
	struct p2pmap_range *r;
	u64 bytes = 0;

	list_for_each_entry(r, &p2pmap_ranges, node)
		if (r->window && p2pmap_domain_in_use(r->domain, NULL))
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
	struct iova *node;
	int err, foreign = 0;

	while (cur <= hi) {
		err = p2pmap_iova_reserve_gap(domain, cur, hi, &node, &gap,
					      &end, &way, &way_end);
		if (err)
			return err;
		if (node &&
		    !p2pmap_window_add(domain, dev->pdev, gap, end - gap, node)) {
			p2pmap_iova_release(domain, node);
			return -ENOMEM;
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

/* The memory windows of @hb in @dev's domain, as free stretches. */
static int p2pmap_reserve_bridge(struct p2pmap_dev *dev,
				 struct pci_host_bridge *hb,
				 unsigned int *foreign)
{
	struct iommu_domain *domain = dev->domain;
	struct iommu_domain_geometry *g = &domain->geometry;
	unsigned long min_page = BIT(__ffs(domain->pgsize_bitmap));
	struct resource_entry *w;
	int n;

	resource_list_for_each_entry(w, &hb->windows) {
		u64 lo = w->res->start - w->offset;
		u64 hi = w->res->end - w->offset;

		if (resource_type(w->res) != IORESOURCE_MEM ||
		    hi < g->aperture_start || lo > g->aperture_end)
			continue;
		lo = ALIGN_DOWN(max_t(u64, lo, g->aperture_start), min_page);
		hi = ALIGN(min_t(u64, hi, g->aperture_end) + 1, min_page) - 1;
		n = p2pmap_reserve_stretch(dev, lo, hi);
		if (n < 0)
			return n;
		*foreign += n;
	}
	return 0;
}

/* Host bridges already done by one p2pmap_reserve_windows() call. */
#define P2PMAP_BRIDGES_SEEN	16

static bool p2pmap_bridge_seen(struct pci_host_bridge **seen,
			       unsigned int *n, struct pci_host_bridge *hb)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (seen[i] == hb)
			return true;
	if (*n < P2PMAP_BRIDGES_SEEN)
		seen[(*n)++] = hb;	/* beyond that, done again: idempotent */
	return false;
}

/*
 * Reserve, in @dev's default domain, every memory window of every PCI host
 * bridge but its own.  @dev is binding or bound to an admitted DMA API
 * driver.  Idempotent: what p2pmap reserved already is not free.  Returns
 * how many nodes p2pmap did not make were in the way.
 *
 * The host bridges are found through the PCI functions below them, root
 * ports included (for_each_pci_dev() holds a reference on each, which
 * keeps its bus and host bridge alive): walking the kernel's root buses
 * from a notifier would need pci_bus_sem or the rescan lock, which the
 * notifier's callers may hold.  A host bridge with no function at all has
 * no BAR to protect.
 */
unsigned int p2pmap_reserve_windows(struct p2pmap_dev *dev)
{
	struct pci_host_bridge *own, *hb, *seen[P2PMAP_BRIDGES_SEEN];
	struct pci_dev *pdev = NULL;
	unsigned int foreign = 0, nseen = 0;
	int err = 0;

	lockdep_assert_held(&p2pmap_lock);
	if (!dev->domain || !p2pmap_reserve_on())
		return 0;
	own = pci_find_host_bridge(dev->pdev->bus);
	for_each_pci_dev(pdev) {
		hb = pci_find_host_bridge(pdev->bus);
		if (hb == own || p2pmap_bridge_seen(seen, &nseen, hb))
			continue;
		err = p2pmap_reserve_bridge(dev, hb, &foreign);
		if (err) {
			pci_dev_put(pdev);
			break;
		}
	}
	if (err)
		pr_warn("%s: could not reserve the other host bridges' windows (%d): links to BARs there may find their range taken\n",
			dev->addr, err);
	return foreign;
}
