/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap verify --collective" (issue 37, item 1): run the collective an
 * inference server runs, an NCCL all-reduce over the chosen GPUs, with
 * P2P and without, and say which group breaks it.  Per-pair copies
 * (the rest of verify) can all pass on a host where every NCCL
 * collective deadlocks; this runs the real thing.
 *
 * Design (built: [x]; designed, not yet built: [ ]):
 * [x] The library: --nccl PATH, else $P2PMAP_NCCL, else
 *     dlopen("libnccl.so.2") through the library path (nccl_lib.c, a
 *     table of the few entry points, NCCL's types declared there: nccl.h
 *     is never included).  A probe child loads it first and asks its
 *     version: missing or unusable is a clear message and exit 3
 *     (EXIT_NO_GPU: "no usable driver", as for libcuda).
 * [x] Then, when the library path has none, the NCCL wheels
 *     (nvidia-nccl-cu12/-cu13) under site-packages/nvidia/nccl/lib of
 *     the server's Python (nccl_wheel.c): --unit NAME's ExecStart
 *     interpreter (its program, or its script's #! line), else
 *     $VIRTUAL_ENV's, the python3 on PATH's, /usr/local's and /usr's;
 *     files read only, no Python run.  The "nccl:" line says how the
 *     library was found; exit 3's message where it looked.
 * [x] Every run is a child of its own under verify's watchdog
 *     (isolate.c): a hang is the watchdog's kill after --timeout, never
 *     a measured time; CUDA and NCCL are only ever loaded in children.
 *     The child (collective.c): cuInit, a buffer and a stream per rank,
 *     ncclCommInitAll over the group's CUDA ordinals, one in-place
 *     float32 sum all-reduce in a group, every element of every rank
 *     checked against the exact sum.  The result is sent before
 *     ncclCommDestroy and the unloads (their teardown may hang).
 * [x] Arms (collective_run.c): "p2p", P2P as `p2pmap env` would configure
 *     it: NCCL_P2P_DISABLE unset, NCCL_P2P_LEVEL and NCCL_CUMEM_ENABLE as
 *     the caller's environment has them (source env's output first to
 *     test exactly that), NCCL_P2P_LEVEL=SYS when unset (what env sets
 *     across root complexes); "control": NCCL_P2P_DISABLE=1.
 * [ ] The p2p arm's settings read from env's plan itself (--verify FILE).
 * [x] Sizes 12 KiB (the decode case) and 32 MiB; in an arm, a size that
 *     fails skips the larger ones (each costs up to --timeout).
 * [x] Groups: the whole selection, then every 2-rank subgroup (the hang
 *     reported on RTX PRO 6000 hosts is at 2 ranks only).  Cost: 1 +
 *     n (n - 1) / 2 groups of up to 4 runs, each a fresh process (NCCL's
 *     init dominates: seconds on real GPUs), plus --timeout per hang;
 *     8 GPUs: 29 groups, 116 runs.  Running pairs of disjoint GPUs side
 *     by side is left for later.
 * [x] NCCL_DEBUG=INFO to a file per run (NCCL_DEBUG_FILE), read with
 *     nccl-check's parser (nccl_log.c): the transports the channels used.
 * [x] NCCL_RUN_DIAGNOSTICS=1 in the P2P arm (NCCL 2.31 and later run
 *     their own P2P check; older ones ignore the variable).  Its lines go
 *     to stdout whatever NCCL_DEBUG says: the child's stdout is a file of
 *     its own, read with nccl_diag.c; a failing edge names its ranks,
 *     which are the group's GPUs in order (ncclCommInitAll's devlist).
 *     Not yet tested: the stand-in follows 2.30.7, which has none.
 * [x] p2pmap's fault counters (verify_faults.c, the same source as the
 *     rest of verify) for each direction of the group before and after
 *     each run: a direction whose counter grew is named.
 * [x] Verdicts per group: works; P2P broken (fails with P2P, works
 *     without: the pair named from the faults, or the 2-rank group
 *     itself); not P2P (fails both ways: NCCL's error said).
 * [x] The time of each run, CUDA events on rank 0's stream around the
 *     group (one cold run: the first touch of NCCL's buffers counts),
 *     and NCCL's bus bandwidth, 2 (n - 1) / n bytes over that time.
 * [ ] Warm runs timed (a few iterations, the last timed, as
 *     nccl-tests), "slower with P2P than without" as a verdict, the
 *     published figures next to them (bw_figures.c), small-message
 *     latency.
 * [x] --json (collective_json.c): one document after the last group,
 *     the text's facts (JSON.md, "verify --collective", linted as every
 *     document); an end before any group ran is verify's failure
 *     document with "groups" for "directions", exit codes unchanged.
 * [ ] env refusing P2P for a group whose collective failed with P2P (and
 *     saying why), the ExecStartPre= (items 2 and 3), the README walk.
 *
 * Seen on the build machine: NVIDIA's own libnccl.so.2 (2.28.9, CUDA
 * 13.0's) over the stand-in libcuda fails ncclCommInitAll with
 * ncclUnhandledCudaError in both arms ("not P2P"): the stand-in has only
 * the driver calls p2pmap and the stand-in libnccl use.  The tests use
 * the stand-in libnccl (tests/nccl-stub).
 */
#ifndef P2PMAP_VERIFY_COLLECTIVE_H
#define P2PMAP_VERIFY_COLLECTIVE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "verify.h"

#define COLL_MAX_RANKS	16
#define COLL_ERR_LEN	160

enum coll_arm {
	COLL_ARM_P2P,			/* P2P as env configures it */
	COLL_ARM_CONTROL,		/* NCCL_P2P_DISABLE=1 */
	COLL_NR_ARMS,
};

/* What one child runs. */
struct coll_arg {
	int dev[COLL_MAX_RANKS];	/* CUDA ordinals, rank order */
	int ndev;
	size_t bytes;			/* 0: only load NCCL (the probe) */
	enum coll_arm arm;
	char nccl[PATH_MAX];		/* the library, or "" */
	char log[PATH_MAX];		/* NCCL_DEBUG_FILE */
	char out[PATH_MAX];		/* stdout: NCCL DIAG lines */
};

/* What it found. */
struct coll_child {
	int load;			/* enum nccl_load_status */
	int version;			/* ncclGetVersion's, or 0 */
	char lib[PATH_MAX];		/* the file loaded */
	char call[32];			/* the call that failed, or "" */
	int code;			/* its result */
	char error[COLL_ERR_LEN];	/* its description */
	bool checked;			/* the data were read back */
	bool data_ok;
	int bad_rank;			/* the first wrong element */
	size_t bad_index;
	float got, want;
	float ms;			/* rank 0's stream, events; 0: none */
};

/* The child, for isolate_run(): @arg a struct coll_arg. */
void coll_child_run(void *arg, void *out);

struct coll_opts {
	const char *nccl;		/* --nccl, or NULL */
	const char *from;		/* "--nccl", P2PMAP_NCCL, a wheel; NULL: ld.so */
	const char *unit;		/* --unit: the server's Python, or NULL */
	unsigned int timeout;		/* seconds per run */
	bool json;
};

/*
 * Every group, every arm, every size, then a verdict per group, as text
 * or (@o->json) as one document.  Returns an exit code: 0 every group works, 1 one does not, 3 no
 * usable NCCL.
 */
int coll_run(const struct coll_opts *o, const struct verify_gpu *sel,
	     size_t ngpus, struct verify_faults *faults);

#endif /* P2PMAP_VERIFY_COLLECTIVE_H */
