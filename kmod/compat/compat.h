/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included into every p2pmap object.  Kernel API differences are
 * bridged here, and only here, from the results of compat/probes/.
 */
#ifndef P2PMAP_COMPAT_H
#define P2PMAP_COMPAT_H

#include <compat_probed.h>

#ifndef P2PMAP_HAVE_PROBE_SANITY
#error "compat/probe.sh could not compile against this kernel: see compat/probes"
#endif

#include <linux/iommu.h>

/* iommu_map() grew a gfp_t argument in 6.3. */
static inline int p2pmap_iommu_map(struct iommu_domain *domain,
				   unsigned long iova, phys_addr_t paddr,
				   size_t size, int prot)
{
#ifdef P2PMAP_HAVE_IOMMU_MAP_GFP
	return iommu_map(domain, iova, paddr, size, prot, GFP_KERNEL);
#else
	return iommu_map(domain, iova, paddr, size, prot);
#endif
}

/* The domain attached to @dev's group; the caller holds the group's mutex. */
static inline struct iommu_domain *p2pmap_group_domain(struct device *dev)
{
#ifdef P2PMAP_HAVE_IOMMU_DRIVER_GET_DOMAIN
	return iommu_driver_get_domain_for_dev(dev);
#else
	return iommu_get_domain_for_dev(dev);
#endif
}

/*
 * Who may join the events group: CAP_NET_ADMIN where the kernel can say so,
 * else CAP_SYS_ADMIN (stricter).  Without either, anyone could listen: the
 * group is then not offered at all.
 */
#if defined(P2PMAP_HAVE_GENL_MCAST_CAP_NET_ADMIN)
#define P2PMAP_MCGRP_PERM	.flags = GENL_MCAST_CAP_NET_ADMIN
#elif defined(P2PMAP_HAVE_GENL_MCAST_CAP_SYS_ADMIN_BIT)
#define P2PMAP_MCGRP_PERM	.cap_sys_admin = 1
#endif

#endif /* P2PMAP_COMPAT_H */
