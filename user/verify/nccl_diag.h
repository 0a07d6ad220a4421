/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What NCCL's own P2P diagnostics (NCCL_RUN_DIAGNOSTICS=1, NCCL 2.31 and
 * later) print, read from the same log as nccl_log.h.  NCCL writes these
 * with fprintf to stdout, whatever NCCL_DEBUG says, as "HOST:PID NCCL DIAG
 * ..." (DIAG_PRINT, src/include/diagnostics_log.h; the host is
 * gethostname()'s, not cut at the first dot).  Read at NVIDIA/nccl 2.31.2
 * (commit 889806836097), src/diagnostics.cc and src/diagnostics/p2p.cc:
 *   start    "NCCL DIAG === NCCL Diagnostics ==="
 *   summary  "NCCL DIAG %sp2p: %s directed GPU P2P edges verified[ (skipped
 *            indirect=%llu)]", level "[OK]   " or "[INFO] ", counts "all
 *            %llu" or "%llu/%llu" (passed/tested); later commits say
 *            "p2p: verified P2P access in both directions between every GPU
 *            pair (%llu peer accesses)" and "p2p: only %llu/%llu
 *            GPU-to-GPU peer accesses passed verification", read too
 *   failure  "NCCL DIAG [INFO] p2p: CHECK srcRank=%d srcCudaDev=%d
 *            srcNvmlDev=%d dstRank=%d dstCudaDev=%d dstNvmlDev=%d path=%s
 *            handle=%s ..." where CHECK is one of "destination buffer
 *            unavailable", "local CUDA setup failed", "peer-memory import
 *            failed", "write mismatch", "read mismatch", "topology check
 *            failed", "launch/check failed"; "reason=%s" follows for some.
 *            The source rank's kernel writes into, or reads, the
 *            destination's buffer, imported through the handle NCCL's P2P
 *            transport uses (CUMEM_POSIX_FD, LEGACY_CUDA_IPC, ...): src
 *            initiates, as p2pmap's "A -> B".  No bus id is printed: the
 *            ranks' GPUs come from their Init COMPLETE lines.
 *   done     "NCCL DIAG NCCL diagnostics completed in %.1f ms across %d
 *            ranks"
 */
#ifndef P2PMAP_NCCL_DIAG_H
#define P2PMAP_NCCL_DIAG_H

#include <stdbool.h>

#include <linux/p2pmap.h>

#define NCCL_DIAG_MAX_FAILS	256

/* One failing direction as a failure line names it. */
struct nccl_diag_fail {
	char check[40];			/* "write mismatch", ... */
	int src_rank, dst_rank;
	int src_nvml, dst_nvml;		/* -1: not printed */
	char path[8];			/* NCCL's topology path: PXB, SYS, ... */
	char handle[24];		/* CUMEM_POSIX_FD, LEGACY_CUDA_IPC, ... */
	char reason[24];		/* "" when not printed */
	char host[64];
	char src_pci[P2PMAP_ADDR_LEN], dst_pci[P2PMAP_ADDR_LEN]; /* or "" */
};

struct nccl_diag {
	bool ran;			/* any NCCL DIAG line */
	bool has_summary;
	unsigned long long passed, tested;	/* directed edges */
	bool completed;			/* "diagnostics completed" */
	unsigned int nfails;
	struct nccl_diag_fail fails[NCCL_DIAG_MAX_FAILS];
};

/* One log line; ignored unless it holds " NCCL DIAG ". */
void nccl_diag_line(struct nccl_diag *d, const char *line);

#endif /* P2PMAP_NCCL_DIAG_H */
