/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap nccl-check": what NCCL itself says it chose, read from an
 * NCCL_DEBUG=INFO log (NCCL_DEBUG_SUBSYS=INIT,P2P or wider).  The line
 * formats are NCCL's own (NVIDIA/nccl, read at tags v2.18.1 to v2.30.7;
 * the channel lines unchanged at 2.31.2, commit 889806836097):
 *   prefix   "[TIME] HOST:PID:TID [CUDADEV] NCCL INFO " (src/debug.cc;
 *            the time only where NCCL_DEBUG_TIMESTAMP_LEVELS asks)
 *   version  "NCCL version 2.21.5+cuda12.4"
 *   ranks    "[FUNC ]comm %p rank %d nranks %d cudaDev %d [nvmlDev %d ]
 *            busId %lx ... - Init COMPLETE" (src/init.cc); busId is the
 *            PCI address's hex digits as one number (0000:01:00.0 = 1000)
 *   channels "Channel %02d[/%d] : %d[%d] -> %d[%d] [[send] |[receive] ]
 *            via P2P/...|SHM/...|NET/..." (src/transport/p2p.cc, shm.cc,
 *            net.cc); the bracket is the rank's nvmlDev from 2.18.3, its
 *            busId before
 *   env      "NCCL_P2P_DISABLE set by environment to 1" (2.23+),
 *            "NCCL_P2P_LEVEL set by environment to LOC" (also what
 *            NCCL_P2P_DISABLE=1 prints before 2.23), src/graph/paths.cc
 *   driver   "P2P is disabled between connected GPUs %d and %d" (nvmlDev)
 * and NCCL_RUN_DIAGNOSTICS=1's own lines (nccl_diag.h), their ranks' GPUs
 * from the same Init COMPLETE lines.
 */
#ifndef P2PMAP_NCCL_LOG_H
#define P2PMAP_NCCL_LOG_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/p2pmap.h>

#include "nccl_diag.h"

#define NCCL_MAX_DEVS	256
#define NCCL_MAX_PAIRS	1024
#define NCCL_MAX_TRANSPORTS 4
#define NCCL_TRANSPORT_LEN 48

enum nccl_class {
	NCCL_P2P,
	NCCL_SHM,
	NCCL_NET,
	NCCL_OTHER,
};

#define NCCL_HOST_LEN	64
#define NCCL_MAX_RANKS	1024

/* A rank's GPU, from its Init COMPLETE line. */
struct nccl_rank {
	int rank, nvml;			/* nvml: -1 when not logged */
	char host[NCCL_HOST_LEN];
	char pci[P2PMAP_ADDR_LEN];
	unsigned long long comm_id;
};

/* One direction of data between two ranks, from -> to. */
struct nccl_pair {
	int from_rank, to_rank;
	char from_pci[P2PMAP_ADDR_LEN], to_pci[P2PMAP_ADDR_LEN]; /* or "" */
	bool same_host;			/* both ranks known on one host */
	unsigned int channels;
	unsigned int ntransports;
	char transport[NCCL_MAX_TRANSPORTS][NCCL_TRANSPORT_LEN];
	unsigned int classes;		/* bits of enum nccl_class */
};

struct nccl_log {
	char version[32];		/* "2.21.5", or "" */
	unsigned int nranks;		/* largest nranks seen */
	unsigned int comms;		/* communicators (commIds) */
	unsigned int lines;		/* NCCL INFO lines read */
	int p2p_disable;		/* -1 unknown, 0, 1 */
	char p2p_level[16];		/* "" unless set by environment */
	bool nvml_p2p_disabled;		/* "P2P is disabled between ..." */
	size_t nranks_known;
	struct nccl_rank ranks[NCCL_MAX_RANKS];
	size_t npairs;
	struct nccl_pair pairs[NCCL_MAX_PAIRS];
	struct nccl_diag diag;
};

/* NCCL's busId number as a PCI address (its int64ToBusId). */
void nccl_busid_pci(unsigned long id, char out[P2PMAP_ADDR_LEN]);

/* Read the log @f into @log.  Returns 0, or -1 when it cannot be read. */
int nccl_log_read(FILE *f, struct nccl_log *log);

/* "P2P", "SHM", "NET", "other" */
const char *nccl_class_name(enum nccl_class c);

#endif /* P2PMAP_NCCL_LOG_H */
