// SPDX-License-Identifier: GPL-2.0
/*
 * What a device's IOMMU group is attached to.  Looked up afresh every time:
 * p2pmap never trusts a domain pointer from an earlier event.
 */
#include "p2pmap.h"

enum p2pmap_domain p2pmap_domain_of(struct pci_dev *pdev)
{
	struct iommu_domain *d = iommu_get_domain_for_dev(&pdev->dev);

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
 * The device's default DMA (or DMA-FQ) domain, or NULL if it is attached to
 * anything else.  Only default domains carry the DMA API flag, so a domain
 * that passes iommu_is_dma_domain() is the default one.
 */
struct iommu_domain *p2pmap_dma_domain(struct pci_dev *pdev)
{
	struct iommu_domain *d = iommu_get_domain_for_dev(&pdev->dev);

	if (!d || !iommu_is_dma_domain(d))
		return NULL;
	return d;
}
