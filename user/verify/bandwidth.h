/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify --bandwidth: how fast a direction that works moves data, timed
 * with CUDA events on the initiator's stream as p2pBandwidthLatencyTest
 * does, the copies queued behind a gate kernel so that the events time
 * the GPU, not the host's calls: unidirectional GB/s with peer access,
 * the same copy without peer access (CUDA then stages it through host
 * memory), latency of a 4-byte copy with and without (and the host's
 * time to issue one, beside it), both GPUs' PCIe links as they run, and
 * for a pair that works both ways, GB/s with both GPUs copying to each
 * other at once.  A direction is staged through host memory when peer
 * access is not possible or its 4-byte copy takes a staged copy's time
 * with peer access enabled: evidence a slow direct copy cannot fake.  In
 * a child process (verify/isolate.c).
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
/*
 * Staged: a 4-byte copy's GPU latency with peer access at least this.
 * p2pBandwidthLatencyTest's latency matrices: with P2P 1.8-2.3 us at
 * most, without (staged) 11-20 us (github.com/NVIDIA/cuda-samples issue
 * 230, github.com/NVIDIA/nccl issue 1127), 0.36-0.45 us against about
 * 14 us on RTX PRO 6000 (bw_figures.h).  5 us lies between the two.
 */
#define VERIFY_BW_STAGED_LAT_US	5.0
#define VERIFY_BW_DIRECT_LAT_US	2.0	/* a direct copy: under this */
/*
 * The gate, in ns, and how often it is made 4x longer when the host was
 * slower to queue the copies: 5 ms holds 100 copies at the published
 * 1.8-2.2 us a call more than twenty times over.
 */
#define VERIFY_GATE_NS		5000000ULL
#define VERIFY_GATE_TRIES	3


/*
 * In a child: @from -> @to (CUDA ordinals; @pci their PCI addresses, whose
 * links are read while the copies run); @bidir: also both at once.
 */
void verify_bw_run(const struct cuda_api *api, int from, int to,
		   const char *const pci[2], bool bidir, struct verify_bw *bw);

/* No peer access, or copies that take a staged copy's time: staged. */
bool verify_bw_staged(const struct verify_bw *bw);

#endif
