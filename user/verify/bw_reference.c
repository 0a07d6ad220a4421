// SPDX-License-Identifier: GPL-2.0
/* The published peer-to-peer figures, by GPU and link (bw_reference.h). */
#include <stdio.h>

#include "bw_reference.h"
#include "pci_sysfs.h"
#include "pcie_link.h"

/*
 * Device IDs from the table of supported GPUs in NVIDIA's
 * open-gpu-kernel-modules README (595.45.04): RTX PRO 6000 Blackwell
 * Workstation Edition, Max-Q Workstation Edition and Server Edition; RTX
 * 6000 Ada Generation.
 */
static const unsigned short rtx_pro_6000_blackwell[] = {
	0x2bb1, 0x2bb4, 0x2bb5, 0
};

static const unsigned short rtx_6000_ada[] = { 0x26b1, 0 };

static const struct bw_reference refs[] = {
	/*
	 * p2pBandwidthLatencyTest (P2P writes) on dual EPYC Turin, EPYC
	 * 9374F and PCIe-switch hosts, GPUs of one NUMA node, collected in
	 * github.com/voipmonitor/rtx6kpro, hardware/pcie-bandwidth.md: 53-56
	 * GB/s one way, 103-111 GB/s both ways, 0.36-0.45 us, about 14 us
	 * without P2P; 39-51 GB/s across sockets on the same page.
	 */
	{
		.gpu = "RTX PRO 6000 Blackwell",
		.devices = rtx_pro_6000_blackwell,
		.gts = 32.0, .width = 16,
		.topology = "GPUs of one NUMA node",
		.gbps_lo = 53.0, .gbps_hi = 56.0,
		.bidir_lo = 103.0, .bidir_hi = 111.0,
		.lat_lo_us = 0.36, .lat_hi_us = 0.45,
		.no_p2p_lat_us = 14.0,
		.elsewhere = "across sockets 39-51 GB/s were measured",
		.source = "github.com/voipmonitor/rtx6kpro hardware/pcie-bandwidth.md",
	},
	/*
	 * p2pBandwidthLatencyTest on three hosts (dual EPYC 9374F with pairs
	 * within and across sockets, two Threadripper PRO): 26.31-27.02 GB/s
	 * one way, 51.10-52.12 both ways, 1.12-1.44 us, 10.27-14.22 us
	 * without P2P, the same across sockets.  github.com/luigifcruz/
	 * stelline docs/quickstart/validated-hardware/server/
	 * asus-esc8000a-e12.md and puget-threadripper-pro-wrx90.md;
	 * github.com/dbkinghorn/Notes 2023/NV-4090-P2P/2x4090-notes.md.
	 */
	{
		.gpu = "RTX 6000 Ada Generation",
		.devices = rtx_6000_ada,
		.gts = 16.0, .width = 16,
		.topology = "GPUs within a socket or across sockets",
		.gbps_lo = 26.3, .gbps_hi = 27.0,
		.bidir_lo = 51.1, .bidir_hi = 52.1,
		.lat_lo_us = 1.12, .lat_hi_us = 1.44,
		.no_p2p_lat_us = 11.0,
		.source = "github.com/luigifcruz/stelline docs/quickstart/validated-hardware/server",
	},
};

static bool has_device(const struct bw_reference *ref, unsigned int device)
{
	const unsigned short *d;

	for (d = ref->devices; *d; d++)
		if (*d == device)
			return true;
	return false;
}

char *bw_reference_link(char *buf, size_t len, const struct bw_reference *ref)
{
	snprintf(buf, len, "PCIe Gen%d x%u", pcie_link_gen(ref->gts),
		 ref->width);
	return buf;
}

const struct bw_reference *bw_reference_find(const char *from, const char *to,
					     char *why, size_t len)
{
	unsigned int vendor[2], device[2];
	struct pcie_link l[2];
	const char *pci[2] = { from, to };
	size_t i;
	int j;

	for (j = 0; j < 2; j++) {
		pcie_link_read(pci[j], &l[j]);
		if (!pci_sysfs_id(pci[j], &vendor[j], &device[j]) ||
		    !l[j].known) {
			snprintf(why, len, "no published figure known: %s's PCI ID or link is not readable",
				 pci[j]);
			return NULL;
		}
	}
	if (vendor[0] != vendor[1] || device[0] != device[1]) {
		snprintf(why, len, "no published figure: two different GPUs (%04x:%04x and %04x:%04x)",
			 vendor[0], device[0], vendor[1], device[1]);
		return NULL;
	}
	if (l[0].max_gts != l[1].max_gts || l[0].max_width != l[1].max_width) {
		snprintf(why, len, "no published figure for %04x:%04x at PCIe Gen%d x%u and Gen%d x%u",
			 vendor[0], device[0], pcie_link_gen(l[0].max_gts),
			 l[0].max_width, pcie_link_gen(l[1].max_gts),
			 l[1].max_width);
		return NULL;
	}
	/* The GPU's own link, the same for both: the figures are a pair's. */
	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
		if (vendor[0] == BW_REF_VENDOR_NVIDIA &&
		    has_device(&refs[i], device[0]) &&
		    l[0].max_gts == refs[i].gts &&
		    l[0].max_width == refs[i].width)
			return &refs[i];
	snprintf(why, len, "no published figure for %04x:%04x at PCIe Gen%d x%u",
		 vendor[0], device[0], pcie_link_gen(l[0].max_gts),
		 l[0].max_width);
	return NULL;
}
