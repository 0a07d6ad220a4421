// SPDX-License-Identifier: GPL-2.0
/*
 * From 6.15 struct iommu_domain says which cookie it carries, and the
 * dma-iommu cookie starts with its struct iova_domain.
 */
#include <linux/iommu.h>

static int __maybe_unused p2pmap_probe(struct iommu_domain *d)
{
	return d->cookie_type == IOMMU_COOKIE_DMA_IOVA;
}
