// SPDX-License-Identifier: GPL-2.0
/*
 * iommu_driver_get_domain_for_dev(): the attached domain for a caller that
 * holds the group's mutex (7.0 on; iommu_get_domain_for_dev() then expects
 * the mutex not held).
 */
#include <linux/iommu.h>

static __maybe_unused struct iommu_domain *p2pmap_probe(struct device *dev)
{
	return iommu_driver_get_domain_for_dev(dev);
}
