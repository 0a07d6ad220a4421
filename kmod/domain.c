// SPDX-License-Identifier: GPL-2.0
/*
 * What a device's IOMMU group is attached to, read at bind events, where
 * iommu_get_domain_for_dev() is stable for the device's bound driver (an
 * unbound or VFIO-owned device's domain can be replaced and freed by
 * iommufd or a sysfs type change under us), or with the group's mutex
 * held.  What a bind read is recorded in the p2pmap_dev and used until the
 * next bind event.
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

struct p2pmap_group_call {
	void (*fn)(struct iommu_domain *domain, struct pci_dev *pdev);
	struct pci_dev *pdev;
};

static int p2pmap_group_call_once(struct device *d, void *arg)
{
	struct p2pmap_group_call *c = arg;
	struct iommu_domain *domain = p2pmap_group_domain(d);

	c->fn(domain && iommu_is_dma_domain(domain) ? domain : NULL, c->pdev);
	return 1;	/* once: every device of the group has that domain */
}

/*
 * Call @fn with @pdev's IOMMU group's mutex held (through
 * iommu_group_for_each_dev()): no type change, VFIO claim or release can
 * run meanwhile, so the domain attached now stays alive until @fn returns,
 * driver or no driver.  @fn gets that domain when it is a DMA API domain
 * (only a group's default domain is one), else NULL.  Nothing is called
 * for a device no longer in a group.  Under p2pmap_lock: p2pmap_lock,
 * then the group's mutex (the IOMMU core sends no bus event under it).
 */
void p2pmap_domain_locked(struct pci_dev *pdev,
			  void (*fn)(struct iommu_domain *domain,
				     struct pci_dev *pdev))
{
	struct p2pmap_group_call c = { .fn = fn, .pdev = pdev };
	struct iommu_group *group;

	lockdep_assert_held(&p2pmap_lock);
	group = iommu_group_get(&pdev->dev);
	if (!group)
		return;
	iommu_group_for_each_dev(group, &c, p2pmap_group_call_once);
	iommu_group_put(group);
}
