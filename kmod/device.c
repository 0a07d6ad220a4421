// SPDX-License-Identifier: GPL-2.0
/* The registry of PCI functions p2pmap tracks.  All under p2pmap_lock. */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "p2pmap.h"

/*
 * Long enough for dma-iommu's flush queue to free what was queued: one
 * timer per domain, 10 ms, re-armed at most once by a racing unmap, plus
 * two jiffies (HZ=250: 8 ms).
 */
#define P2PMAP_FQ_WAIT_MS	40

LIST_HEAD(p2pmap_devs);
static u32 p2pmap_next_dev_id = 1;

struct p2pmap_dev *p2pmap_dev_find(const char *addr)
{
	struct p2pmap_dev *dev;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(dev, &p2pmap_devs, node)
		if (!strcmp(dev->addr, addr))
			return dev;
	return NULL;
}

struct p2pmap_dev *p2pmap_dev_find_pdev(struct pci_dev *pdev)
{
	struct p2pmap_dev *dev;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(dev, &p2pmap_devs, node)
		if (dev->pdev == pdev)
			return dev;
	return NULL;
}

/* Bridges carry no GPU memory: only ordinary functions are tracked. */
static bool p2pmap_dev_wanted(struct pci_dev *pdev)
{
	return pdev->hdr_type == PCI_HEADER_TYPE_NORMAL;
}

/* A new entry for @pdev at @addr, with its sysfs directory; NULL on ENOMEM. */
static struct p2pmap_dev *p2pmap_dev_new(struct pci_dev *pdev,
					 const char *addr)
{
	struct p2pmap_dev *dev = kzalloc(sizeof(*dev), GFP_KERNEL);

	if (!dev)
		return NULL;
	strscpy(dev->addr, addr, sizeof(dev->addr));
	dev->host_bridge = (pdev->class >> 8) == PCI_CLASS_BRIDGE_HOST;
	dev->domain_type = P2PMAP_DOMAIN_UNKNOWN;
	dev->pdev = pci_dev_get(pdev);	/* put by the kobject release */
	if (p2pmap_sysfs_dev_add(dev)) {
		kobject_put(&dev->kobj);
		return NULL;
	}
	return dev;
}

/*
 * Find or start tracking @pdev; NULL if it is not wanted or on ENOMEM.  An
 * entry belongs to one pci_dev: if another one holds @pdev's address, that
 * device is gone (a removal p2pmap did not see), and its entry goes first.
 */
struct p2pmap_dev *p2pmap_dev_track(struct pci_dev *pdev)
{
	char addr[P2PMAP_ADDR_LEN];
	struct p2pmap_dev *dev;

	lockdep_assert_held(&p2pmap_lock);
	if (!p2pmap_dev_wanted(pdev))
		return NULL;
	dev = p2pmap_dev_find_pdev(pdev);
	if (dev)
		return dev;
	p2pmap_addr_format(pdev, addr);
	dev = p2pmap_dev_find(addr);
	if (dev) {
		/*
		 * Cannot happen since the replay skips removed devices
		 * (notifier.c); if it does, never map by a dead entry.  A
		 * bound one may still hold ranges in a freed domain: the
		 * new device is then not tracked at all.
		 */
		if (WARN_ON_ONCE(dev->bound))
			return NULL;
		pr_warn("%s: a new device took the address of one that left unseen: forgetting the old one\n",
			addr);
		p2pmap_dev_untrack(dev);
	}
	dev = p2pmap_dev_new(pdev, addr);
	if (!dev) {
		/* The next bind event of @pdev tries again. */
		pr_warn("%s: not tracked: out of memory for its entry or its sysfs directory\n",
			addr);
		return NULL;
	}
	dev->id = p2pmap_next_dev_id++;
	p2pmap_fault_sid_note(dev);
	list_add_tail(&dev->node, &p2pmap_devs);
	p2pmap_fault_index_rebuild();
	p2pmap_generation++;
	p2pmap_ntf_dev(dev, P2PMAP_CMD_DEV_ADD_NTF);
	pr_debug("%s: tracked\n", dev->addr);
	return dev;
}

static void p2pmap_dev_read_bars(struct p2pmap_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	int i;

	memset(dev->bars, 0, sizeof(dev->bars));
	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		unsigned long fl = pci_resource_flags(pdev, i);
		struct p2pmap_bar *bar = &dev->bars[i];

		/* Only BARs the device decodes: assigned, enabled, claimed. */
		if (!(fl & IORESOURCE_MEM) || !pci_resource_len(pdev, i) ||
		    (fl & (IORESOURCE_UNSET | IORESOURCE_DISABLED)) ||
		    !pdev->resource[i].parent)
			continue;
		bar->bus = pci_bus_address(pdev, i);
		bar->phys = pci_resource_start(pdev, i);
		bar->size = pci_resource_len(pdev, i);
		if (fl & IORESOURCE_MEM_64)
			bar->flags |= P2PMAP_BAR_F_64BIT;
		if (fl & IORESOURCE_PREFETCH)
			bar->flags |= P2PMAP_BAR_F_PREFETCH;
	}
}

#ifdef P2PMAP_DEBUG
static bool debug_release_at_unbind;
module_param_cb(debug_release_at_unbind, &p2pmap_param_ops_bool,
		&debug_release_at_unbind, 0644);
MODULE_PARM_DESC(debug_release_at_unbind,
		 "DEBUG BUILDS ONLY: give reservations back at UNBIND_DRIVER, while remove() still runs (proves the remove-time test can fail)");
#else
#define debug_release_at_unbind false
#endif

/*
 * @dev's driver holds its recorded domain again (binding or bound): what
 * p2pmap left in it while nothing held it is checked, and given back when
 * no other DMA API driver of the domain remains (the one about to probe
 * has allocated nothing).  One still unbinding keeps them: its remove()
 * may still hold raw peer addresses.
 */
static void p2pmap_dev_reclaim(struct p2pmap_dev *dev)
{
	unsigned int n;

	if (!dev->domain)
		return;
	p2pmap_ranges_reconcile(dev->domain, dev->pdev);
	if (p2pmap_domain_in_use(dev->domain, dev))
		return;
	n = p2pmap_ranges_release_domain(dev->domain);
	if (n)
		pr_info("%s: %u range(s) kept in its default domain since its group's last driver left are given back before this driver probes\n",
			dev->addr, n);
}

/*
 * BIND_DRIVER: @pdev's driver is about to probe.  dma_configure() holds
 * the default domain for it, and it has allocated nothing yet: the time to
 * reserve what it must never be handed out (reserve.c).
 */
void p2pmap_dev_binding(struct p2pmap_dev *dev, struct pci_dev *pdev)
{
	struct device_driver *drv = pdev->dev.driver;
	unsigned int foreign;
	const char *why;

	lockdep_assert_held(&p2pmap_lock);
	if (!drv || dev->bound || dev->unbinding)
		return;
	dev->dma_owned = to_pci_driver(drv)->driver_managed_dma;
	strscpy(dev->driver, drv->name, sizeof(dev->driver));
	p2pmap_domain_record(dev);
	p2pmap_dev_reclaim(dev);
	if (!p2pmap_policy_may_admit(dev, &why) ||
	    !p2pmap_reserve_windows(dev) ||
	    p2pmap_domain_in_use(dev->domain, dev))
		return;
	/*
	 * Nodes p2pmap did not make sit in the windows, and no other driver
	 * uses the domain: the IOVAs of the previous driver, freed into the
	 * DMA-FQ flush queue (emptied within 10 ms) and from there, or at
	 * once under strict invalidation, into the per-CPU IOVA caches,
	 * which hand them out first.  Once more after both are emptied.
	 */
	msleep(P2PMAP_FQ_WAIT_MS);
	p2pmap_iova_flush_caches(dev->domain);
	foreign = p2pmap_reserve_windows(dev);
	if (foreign)
		pr_info("%s: %u IOVA range(s) of its allocator that p2pmap did not make stay in other host bridges' windows: links to BARs there may be refused\n",
			dev->addr, foreign);
}

/* DRIVER_NOT_BOUND: the probe failed; the domain is still held. */
void p2pmap_dev_not_bound(struct p2pmap_dev *dev)
{
	struct iommu_domain *domain = dev->domain;

	lockdep_assert_held(&p2pmap_lock);
	if (dev->bound || dev->unbinding)
		return;
	dev->domain = NULL;
	dev->dma_owned = false;
	dev->driver[0] = '\0';
	if (domain && !p2pmap_domain_in_use(domain, dev))
		p2pmap_ranges_release_domain(domain);
}

/*
 * A driver is bound (BOUND_DRIVER, or found bound at load).  BARs are read
 * here, not at ADD_DEVICE: they may be unassigned then, and drivers such as
 * amdgpu resize BARs before they are bound.  A driver may also have
 * attached a domain of its own in probe: what p2pmap reserved at
 * BIND_DRIVER in the default domain goes back now, while that domain is
 * alive (the device is in its group), not after it was freed with the
 * group.
 */
void p2pmap_dev_bind(struct p2pmap_dev *dev, struct pci_dev *pdev)
{
	struct device_driver *drv = pdev->dev.driver;
	struct iommu_domain *before = dev->domain;
	const char *why;

	lockdep_assert_held(&p2pmap_lock);
	if (!drv)
		return;
	dev->bound = true;
	dev->dma_owned = to_pci_driver(drv)->driver_managed_dma;
	strscpy(dev->driver, drv->name, sizeof(dev->driver));
	p2pmap_domain_record(dev);
	if (dev->domain != before)	/* else done at BIND_DRIVER */
		p2pmap_dev_reclaim(dev);
	if (before && before != dev->domain &&
	    !p2pmap_domain_in_use(before, dev)) {
		pr_info("%s: its driver attached a domain of its own in probe: the reservations of its default domain go back\n",
			dev->addr);
		p2pmap_ranges_release_domain(before);
	}
	p2pmap_dev_read_bars(dev);
	if (p2pmap_policy_may_admit(dev, &why)) {
		/* Late (loaded after the driver): the free stretches, with
		 * what the caches held given back to the tree first.
		 */
		p2pmap_iova_flush_caches(dev->domain);
		p2pmap_reserve_windows(dev);
	}
	p2pmap_fault_index_rebuild();
	p2pmap_generation++;
}

/*
 * @dev's driver is about to go (UNBIND_DRIVER, or DEL_DEVICE while bound):
 * its remove() has not run yet.  Every link naming it is unmapped now, so
 * that its peer DMA faults at once, but the domain stays recorded and its
 * reservations stay: remove() and the driver's clients still run, may
 * still use raw peer addresses and still allocate (NVIDIA's remove waits
 * for its clients), and no such allocation may land in a peer's BAR.
 */
void p2pmap_dev_leave(struct p2pmap_dev *dev)
{
	lockdep_assert_held(&p2pmap_lock);
	if (!dev->bound)
		return;
	dev->bound = false;
	dev->unbinding = true;
	memset(dev->bars, 0, sizeof(dev->bars));
	p2pmap_fault_index_rebuild();
	p2pmap_generation++;
	p2pmap_links_sync_dev(dev->addr);
	if (debug_release_at_unbind && dev->domain &&
	    !p2pmap_domain_in_use(dev->domain, dev))
		p2pmap_ranges_release_domain(dev->domain);
}

/*
 * UNBOUND_DRIVER: remove() and dma_cleanup() are done, the driver is gone.
 * If no other device of the domain is bound to a DMA API driver (or still
 * unbinding), nothing holds the domain any more: since dma_cleanup(), root
 * may have replaced the group's default domain through sysfs (6.12+ checks
 * only that no DMA API user is left, not the device lock) or VFIO claimed
 * the group.  So the reservations go back only with the group locked, in
 * the domain it has attached then, each checked to be where p2pmap put it
 * (range.c); with VFIO holding the group they stay dormant, untouched,
 * until a driver of the group binds again.
 */
void p2pmap_dev_unbound(struct p2pmap_dev *dev)
{
	struct iommu_domain *domain = dev->domain;

	lockdep_assert_held(&p2pmap_lock);
	if (dev->bound)		/* UNBIND_DRIVER was not seen: p2pmap loaded */
		p2pmap_dev_leave(dev);
	dev->unbinding = false;
	dev->dma_owned = false;
	dev->domain = NULL;
	dev->driver[0] = '\0';
	p2pmap_generation++;
	if (domain && !p2pmap_domain_in_use(domain, NULL)) {
		p2pmap_domain_locked(dev->pdev, p2pmap_ranges_release_group);
		if (p2pmap_ranges_dormant(domain))
			pr_info("%s: its group's default domain is not attached (VFIO holds the group?): p2pmap's ranges there stay reserved, untouched, until a driver of its group binds\n",
				dev->addr);
	}
	if (dev->removing)
		p2pmap_dev_untrack(dev);
}

/*
 * DEL_DEVICE: the device leaves.  Without a driver it is forgotten now;
 * with one, or while its driver is unbinding, device_del() releases the
 * driver after this event: the entry, its domain and its reservations
 * stay until UNBOUND_DRIVER (p2pmap_dev_unbound()).
 */
void p2pmap_dev_remove(struct p2pmap_dev *dev)
{
	lockdep_assert_held(&p2pmap_lock);
	p2pmap_dev_leave(dev);
	if (dev->unbinding)
		dev->removing = true;
	else
		p2pmap_dev_untrack(dev);
}

/* The fault index no longer names @dev; free what is left of it. */
static void p2pmap_dev_free(struct p2pmap_dev *dev)
{
	kobject_del(&dev->kobj);
	kobject_put(&dev->kobj);	/* pci_dev_put(), kfree_rcu(): release */
}

/*
 * Links naming @dev must have been synced (unmapped) before this.  Its
 * counters go with it, in every initiator that faulted into it too.
 */
void p2pmap_dev_untrack(struct p2pmap_dev *dev)
{
	lockdep_assert_held(&p2pmap_lock);
	pr_debug("%s: untracked\n", dev->addr);
	list_del(&dev->node);
	p2pmap_fault_index_rebuild();
	/* Its slots in other devices are freed after a grace period. */
	p2pmap_faults_forget_target(dev->id);
	p2pmap_generation++;
	p2pmap_ntf_dev(dev, P2PMAP_CMD_DEV_DEL_NTF);
	p2pmap_dev_free(dev);
}

/* Module exit: the fault sources are already gone. */
void p2pmap_dev_untrack_all(void)
{
	struct p2pmap_dev *dev, *tmp;

	lockdep_assert_held(&p2pmap_lock);
	p2pmap_fault_index_free();
	list_for_each_entry_safe(dev, tmp, &p2pmap_devs, node) {
		list_del(&dev->node);
		p2pmap_dev_free(dev);
	}
}
