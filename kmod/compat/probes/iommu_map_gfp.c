// SPDX-License-Identifier: GPL-2.0
/* iommu_map() takes a gfp_t from 6.3 on. */
#include <linux/iommu.h>

static int __maybe_unused p2pmap_probe(struct iommu_domain *d)
{
	return iommu_map(d, 0, 0, 0, 0, GFP_KERNEL);
}
