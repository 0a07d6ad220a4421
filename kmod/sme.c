// SPDX-License-Identifier: GPL-2.0
/*
 * AMD SME (mem_encrypt=on) and identity ranges.  With SME active, the AMD
 * IOMMU page table of 6.1 .. 6.19.3 sets the C-bit (sme_me_mask) on every
 * PTE, MMIO included (compat/probes/iommu_pt_mmio_plain.c), and AMD's APM
 * (vol. 2, "Secure Memory Encryption") requires MMIO pages to have the
 * C-bit clear: what a peer write through such a PTE does is not defined.
 * p2pmap does not map on such a kernel while SME is active.  A SEV-SNP
 * host without mem_encrypt=on has no sme_me_mask and is not affected.
 */
#include <linux/mem_encrypt.h>
#include <linux/module.h>
#include "p2pmap.h"

#ifdef P2PMAP_DEBUG
static bool debug_sme;
module_param_cb(debug_sme, &p2pmap_param_ops_bool, &debug_sme, 0644);
MODULE_PARM_DESC(debug_sme,
		 "DEBUG BUILDS ONLY: act as if SME were active (QEMU cannot emulate it)");
#else
#define debug_sme false
#endif

enum p2pmap_sme p2pmap_sme_state(void)
{
	if (!__sme_set(0ULL) && !debug_sme)
		return P2PMAP_SME_OFF;
#ifdef P2PMAP_HAVE_IOMMU_PT_MMIO_PLAIN
	return P2PMAP_SME_MMIO_PLAIN;
#else
	return P2PMAP_SME_REFUSED;
#endif
}
