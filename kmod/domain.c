// SPDX-License-Identifier: GPL-2.0
/*
 * What a device's IOMMU group is attached to, read only at bind events:
 * iommu_get_domain_for_dev() is stable only for the device's bound driver
 * (an unbound or VFIO-owned device's domain can be replaced and freed by
 * iommufd or a sysfs type change under us).  What was read is recorded in
 * the p2pmap_dev and used until the next bind event.
 */
#include "p2pmap.h"

static enum p2pmap_domain p2pmap_domain_type(struct iommu_domain *d)
{
	if (!d)
		return P2PMAP_DOMAIN_NONE;
	switch (d->type) {
	case IOMMU_DOMAIN_IDENTITY:
		return P2PMAP_DOMAIN_IDENTITY;
	case IOMMU_DOMAIN_DMA:
		return P2PMAP_DOMAIN_DMA;
	case IOMMU_DOMAIN_DMA_FQ:
		return P2PMAP_DOMAIN_DMA_FQ;
	case IOMMU_DOMAIN_BLOCKED:
		return P2PMAP_DOMAIN_BLOCKED;
	case IOMMU_DOMAIN_UNMANAGED:
		return P2PMAP_DOMAIN_UNMANAGED;
	default:
		return P2PMAP_DOMAIN_OTHER;
	}
}

/*
 * @dev's driver is bound now (BIND/BOUND_DRIVER, or found bound under the
 * device lock at load).  A driver that manages DMA itself (vfio-pci) can
 * hand the group to userspace at any time: nothing is read for it.  Only
 * default domains carry the DMA API flag, so a domain that passes
 * iommu_is_dma_domain() is the device's default one.
 */
void p2pmap_domain_record(struct p2pmap_dev *dev)
{
	struct iommu_domain *d;

	lockdep_assert_held(&p2pmap_lock);
	dev->domain = NULL;
	if (dev->dma_owned) {
		dev->domain_type = P2PMAP_DOMAIN_UNKNOWN;
		return;
	}
	d = iommu_get_domain_for_dev(&dev->pdev->dev);
	dev->domain_type = p2pmap_domain_type(d);
	if (d && iommu_is_dma_domain(d))
		dev->domain = d;
}

/*
 * Is a device other than @except bound to a DMA API driver in @domain?
 * While one is, the domain lives and may hold raw peer addresses.
 */
bool p2pmap_domain_in_use(struct iommu_domain *domain,
			  const struct p2pmap_dev *except)
{
	struct p2pmap_dev *dev;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(dev, &p2pmap_devs, node)
		if (dev != except && dev->domain == domain)
			return true;
	return false;
}

/*
 * Does a driver of @dev that uses the DMA API hold @dev->domain right now?
 * Called under @dev's device lock (and p2pmap_lock): the driver core calls
 * dma_cleanup() under that lock, so a DMA API driver seen bound keeps its
 * group's default domain alive (a sysfs type change and a VFIO claim both
 * need the group's owner count at zero) until the lock is dropped.  The
 * recorded pointer must also be the domain attached now: compared, never
 * dereferenced before that.
 */
bool p2pmap_domain_held(struct p2pmap_dev *dev)
{
	struct device_driver *drv = dev->pdev->dev.driver;

	lockdep_assert_held(&p2pmap_lock);
	device_lock_assert(&dev->pdev->dev);
	return dev->domain && drv && !to_pci_driver(drv)->driver_managed_dma &&
	       iommu_get_domain_for_dev(&dev->pdev->dev) == dev->domain;
}
