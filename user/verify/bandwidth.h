/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify --bandwidth: how fast a direction that works moves data, timed
 * with CUDA events on the initiator's stream as p2pBandwidthLatencyTest
 * does: unidirectional GB/s with peer access, the same copy without peer
 * access (CUDA then stages it through host memory), latency of a 4-byte
 * copy with and without, both GPUs' PCIe links as they run, and for a pair that works both ways, GB/s with both GPUs copying
 * to each other at once.  A direction no faster with peer access than
 * CUDA's own staged copy is flagged: its copies most likely go through
 * host memory, not peer to peer.  In a child process (verify/isolate.c).
 */
#ifndef P2PMAP_VERIFY_BANDWIDTH_H
#define P2PMAP_VERIFY_BANDWIDTH_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda.h"
#include "verify.h"

#define VERIFY_BW_SIZE		(32ULL << 20)	/* bytes per copy */
#define VERIFY_BW_REPS		8		/* copies per measurement */
#define VERIFY_LAT_REPS		100		/* 4-byte copies */
/* "looks staged": peer access gains less than this over a staged copy */
#define VERIFY_BW_STAGED_GAIN	1.25


/*
 * In a child: @from -> @to (CUDA ordinals; @pci their PCI addresses, whose
 * links are read while the copies run); @bidir: also both at once.
 */
void verify_bw_run(const struct cuda_api *api, int from, int to,
		   const char *const pci[2], bool bidir, struct verify_bw *bw);

/* Peer access made the copy no faster than CUDA's staged copy. */
bool verify_bw_looks_staged(const struct verify_bw *bw);

#endif
