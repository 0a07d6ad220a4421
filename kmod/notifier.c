// SPDX-License-Identifier: GPL-2.0
/*
 * Following PCI devices: the bus notifier, and the replay of devices that
 * existed before p2pmap was loaded.
 *
 * Events (driver core order):  ADD_DEVICE -> BIND_DRIVER -> probe ->
 * BOUND_DRIVER;  UNBIND_DRIVER -> remove -> UNBOUND_DRIVER;  DEL_DEVICE ->
 * unbind -> REMOVED_DEVICE.  p2pmap maps at BOUND_DRIVER (BARs are final),
 * unmaps at UNBIND_DRIVER (before the driver goes) and forgets the device at
 * DEL_DEVICE (its domain is still alive then).
 */
#include <linux/device.h>
#include "p2pmap.h"

static void p2pmap_event(struct pci_dev *pdev, unsigned long action)
{
	char addr[P2PMAP_ADDR_LEN];
	struct p2pmap_dev *dev;

	p2pmap_addr_format(pdev, addr);
	switch (action) {
	case BUS_NOTIFY_ADD_DEVICE:
		p2pmap_dev_track(pdev);
		break;
	case BUS_NOTIFY_BOUND_DRIVER:
		dev = p2pmap_dev_track(pdev);
		if (dev)
			p2pmap_dev_bind(dev, pdev);
		break;
	case BUS_NOTIFY_UNBIND_DRIVER:
		dev = p2pmap_dev_find(addr);
		if (dev)
			p2pmap_dev_unbind(dev);
		break;
	case BUS_NOTIFY_DEL_DEVICE:
	case BUS_NOTIFY_REMOVED_DEVICE:	/* only if replay raced a removal */
		dev = p2pmap_dev_find(addr);
		if (!dev)
			return;
		/* Unmap while the device (and its domain) still exists. */
		p2pmap_dev_unbind(dev);
		p2pmap_links_sync_dev(addr);
		p2pmap_dev_untrack(dev);
		return;
	default:
		return;
	}
	p2pmap_links_sync_dev(addr);
}

static int p2pmap_bus_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct device *d = data;

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
 * in the meantime is found and refreshed, not tracked twice.
 */
static void p2pmap_replay(void)
{
	struct pci_dev *pdev = NULL;
	struct p2pmap_dev *dev;

	for_each_pci_dev(pdev) {
		device_lock(&pdev->dev);
		mutex_lock(&p2pmap_lock);
		dev = NULL;
		if (device_is_registered(&pdev->dev))
			dev = p2pmap_dev_track(pdev);
		if (dev && pdev->dev.driver && !dev->bound) {
			p2pmap_dev_bind(dev, pdev);
			p2pmap_links_sync_dev(dev->addr);
		}
		mutex_unlock(&p2pmap_lock);
		device_unlock(&pdev->dev);
	}
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
