// SPDX-License-Identifier: GPL-2.0
/*
 * Following PCI devices: the bus notifier, and the replay of devices that
 * existed before p2pmap was loaded.
 *
 * Events (driver core order):  ADD_DEVICE -> BIND_DRIVER -> probe ->
 * BOUND_DRIVER;  UNBIND_DRIVER -> remove -> dma_cleanup -> UNBOUND_DRIVER;
 * DEL_DEVICE -> unbind -> REMOVED_DEVICE.  p2pmap reserves at BIND_DRIVER,
 * maps at BOUND_DRIVER (BARs are final), unmaps at UNBIND_DRIVER (before
 * the driver goes), leaves reservations dormant at UNBOUND_DRIVER (nothing
 * holds the domain then: range.c) and forgets the device at DEL_DEVICE, or
 * at the UNBOUND_DRIVER that follows it when a driver was still there
 * (device.c).
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/slab.h>
#include "p2pmap.h"

/*
 * While the replay runs, devices removed before it reached them: their
 * DEL_DEVICE found nothing to forget, and the replay must not start
 * tracking them (device_is_registered() stays true until kobject_del()).
 */
struct p2pmap_gone {
	struct list_head node;
	struct pci_dev *pdev;		/* reference held */
};

static bool p2pmap_replaying;
static LIST_HEAD(p2pmap_gone_list);

static void p2pmap_gone_add(struct pci_dev *pdev)
{
	struct p2pmap_gone *g = kmalloc(sizeof(*g), GFP_KERNEL);

	if (!g)
		return;	/* tracked then; p2pmap_dev_track() replaces it later */
	g->pdev = pci_dev_get(pdev);
	list_add(&g->node, &p2pmap_gone_list);
}

static bool p2pmap_gone(struct pci_dev *pdev)
{
	struct p2pmap_gone *g;

	list_for_each_entry(g, &p2pmap_gone_list, node)
		if (g->pdev == pdev)
			return true;
	return false;
}

static void p2pmap_gone_free(void)
{
	struct p2pmap_gone *g, *tmp;

	list_for_each_entry_safe(g, tmp, &p2pmap_gone_list, node) {
		pci_dev_put(g->pdev);
		list_del(&g->node);
		kfree(g);
	}
}

static void p2pmap_event(struct pci_dev *pdev, unsigned long action)
{
	struct p2pmap_dev *dev;

	switch (action) {
	case BUS_NOTIFY_ADD_DEVICE:
		p2pmap_dev_track(pdev);
		return;
	case BUS_NOTIFY_BIND_DRIVER:
		dev = p2pmap_dev_track(pdev);
		if (dev)
			p2pmap_dev_binding(dev, pdev);
		return;
	case BUS_NOTIFY_DRIVER_NOT_BOUND:
		dev = p2pmap_dev_find_pdev(pdev);
		if (dev)
			p2pmap_dev_not_bound(dev);
		return;
	case BUS_NOTIFY_BOUND_DRIVER:
		dev = p2pmap_dev_track(pdev);
		if (dev) {
			p2pmap_dev_bind(dev, pdev);
			p2pmap_links_sync_dev(dev->addr);
		}
		return;
	case BUS_NOTIFY_UNBIND_DRIVER:
		dev = p2pmap_dev_find_pdev(pdev);
		if (dev)
			p2pmap_dev_leave(dev);
		return;
	case BUS_NOTIFY_UNBOUND_DRIVER:
		dev = p2pmap_dev_find_pdev(pdev);
		if (dev)
			p2pmap_dev_unbound(dev);
		return;
	case BUS_NOTIFY_DEL_DEVICE:
		/* Unmap while the device (and its domain) still exists. */
		dev = p2pmap_dev_find_pdev(pdev);
		if (dev)
			p2pmap_dev_remove(dev);
		else if (p2pmap_replaying)
			p2pmap_gone_add(pdev);
		return;
	case BUS_NOTIFY_REMOVED_DEVICE:
		/* Only an entry the replay made after DEL_DEVICE (it never
		 * binds one: the driver is gone by then).  Its domain may be
		 * freed already: no IOMMU call.
		 */
		dev = p2pmap_dev_find_pdev(pdev);
		if (dev && !WARN_ON_ONCE(dev->bound || dev->unbinding))
			p2pmap_dev_untrack(dev);
		else if (!dev && p2pmap_replaying)
			p2pmap_gone_add(pdev);
		return;
	default:
		return;
	}
}

#ifdef P2PMAP_DEBUG
static unsigned int debug_unbound_delay_ms;
module_param(debug_unbound_delay_ms, uint, 0644);
MODULE_PARM_DESC(debug_unbound_delay_ms,
		 "DEBUG BUILDS ONLY: wait this long before handling UNBOUND_DRIVER, as behind another device's bind (opens the window after dma_cleanup() for the tests)");
#else
#define debug_unbound_delay_ms 0
#endif

static int p2pmap_bus_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct device *d = data;

	if (action == BUS_NOTIFY_UNBOUND_DRIVER && debug_unbound_delay_ms)
		msleep(debug_unbound_delay_ms);
	mutex_lock(&p2pmap_lock);
	if (!p2pmap_dying)
		p2pmap_event(to_pci_dev(d), action);
	mutex_unlock(&p2pmap_lock);
	return NOTIFY_DONE;
}

static struct notifier_block p2pmap_nb = {
	.notifier_call = p2pmap_bus_notify,
};

/*
 * Devices present before the notifier was registered.  The device lock keeps
 * the driver binding stable while we look at it; a device the notifier saw
 * in the meantime is found and refreshed, not tracked twice, and one whose
 * removal the notifier saw is left alone.
 */
static void p2pmap_replay(void)
{
	struct pci_dev *pdev = NULL;
	struct p2pmap_dev *dev;

	mutex_lock(&p2pmap_lock);
	p2pmap_replaying = true;
	mutex_unlock(&p2pmap_lock);
	for_each_pci_dev(pdev) {
		device_lock(&pdev->dev);
		mutex_lock(&p2pmap_lock);
		dev = NULL;
		if (device_is_registered(&pdev->dev) && !p2pmap_gone(pdev))
			dev = p2pmap_dev_track(pdev);
		if (dev && pdev->dev.driver && !dev->bound) {
			p2pmap_dev_bind(dev, pdev);
			p2pmap_links_sync_dev(dev->addr);
		}
		mutex_unlock(&p2pmap_lock);
		device_unlock(&pdev->dev);
	}
	mutex_lock(&p2pmap_lock);
	p2pmap_replaying = false;
	p2pmap_gone_free();
	mutex_unlock(&p2pmap_lock);
}

int p2pmap_notifier_register(void)
{
	int err = bus_register_notifier(&pci_bus_type, &p2pmap_nb);

	if (err)
		return err;
	p2pmap_replay();
	return 0;
}

/* Waits for running callbacks; must not be called under p2pmap_lock. */
void p2pmap_notifier_unregister(void)
{
	bus_unregister_notifier(&pci_bus_type, &p2pmap_nb);
}
