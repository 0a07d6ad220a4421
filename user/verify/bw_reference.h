/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The published peer-to-peer figures verify --bandwidth compares with,
 * keyed by what the two GPUs are: their PCI IDs and the PCIe link they
 * can do (max_link_speed, max_link_width: the GPU's own, whatever its
 * slot trained at).  Each entry cites where its figures were measured; a
 * pair of GPUs no entry matches has no published figure, and verify then
 * judges its speed against none rather than another GPU's.
 */
#ifndef P2PMAP_BW_REFERENCE_H
#define P2PMAP_BW_REFERENCE_H

#include <stddef.h>

#define BW_REF_VENDOR_NVIDIA	0x10de

struct bw_reference {
	const char *gpu;		/* as NVIDIA names it */
	const unsigned short *devices;	/* NVIDIA PCI device IDs, 0 ends */
	double gts;			/* the link measured: GT/s per lane */
	unsigned int width;		/* and lanes */
	const char *topology;		/* where the pairs measured sat */
	double gbps_lo, gbps_hi;	/* one way, GB/s */
	double bidir_lo, bidir_hi;	/* both ways at once, GB/s */
	double lat_lo_us, lat_hi_us;	/* a small copy's GPU latency */
	double no_p2p_lat_us;		/* the same without P2P (staged) */
	const char *elsewhere;		/* other topologies measured, or NULL */
	const char *source;		/* where the figures are published */
};

/*
 * The figures for the pair of GPUs @from and @to ("DDDD:BB:DD.F"; sysfs
 * read), or NULL with why in @why: "no published figure for 10de:2331
 * at PCIe Gen5 x16" and the like.
 */
const struct bw_reference *bw_reference_find(const char *from, const char *to,
					     char *why, size_t len);

/* "PCIe Gen5 x16", the link @ref was measured on, into @buf. */
char *bw_reference_link(char *buf, size_t len, const struct bw_reference *ref);

#endif /* P2PMAP_BW_REFERENCE_H */
