// SPDX-License-Identifier: GPL-2.0
/*
 * Does this kernel's AMD IOMMU page table leave the SME C-bit off the PTEs
 * of IOMMU_MMIO mappings?  The v1 io_pgtable (up to 6.18: io_pgtable.c,
 * io_pgtable_v2.c) applies __sme_set() to every PTE, and
 * amd_iommu_map_pages() drops IOMMU_MMIO before it gets there.  AMD moved
 * to the generic page table (CONFIG_IOMMU_PT_AMDV1) in 6.19; upstream
 * e2692c4eeaa4 "iommupt: Do not set C-bit on MMIO backed PTEs" (7.0,
 * backported to 6.19.4) made it honour IOMMU_MMIO.  The fix lives in
 * drivers/iommu/generic_pt/fmt/, which no headers package ships: the
 * release that carries it is all a build can see (6.19.0 .. 6.19.3 have
 * the generic table without the fix).  It fails safe: a kernel that
 * backported the fix to the v1 table is still refused.
 */
#include <linux/kconfig.h>
#include <linux/version.h>

#if !IS_ENABLED(CONFIG_IOMMU_PT_AMDV1)
#error "AMD's v1 io_pgtable: the C-bit is set on MMIO PTEs"
#endif
#if LINUX_VERSION_MAJOR < 6 || (LINUX_VERSION_MAJOR == 6 && \
	(LINUX_VERSION_PATCHLEVEL < 19 || \
	 (LINUX_VERSION_PATCHLEVEL == 19 && LINUX_VERSION_SUBLEVEL < 4)))
#error "the generic AMD page table before e2692c4eeaa4"
#endif
