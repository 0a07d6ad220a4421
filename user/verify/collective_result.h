/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "verify --collective" found (collective.h): its runs, groups and
 * verdicts, shared by the runner and its two outputs (the text in
 * collective_run.c, the JSON document in collective_json.c).
 */
#ifndef P2PMAP_VERIFY_COLLECTIVE_RESULT_H
#define P2PMAP_VERIFY_COLLECTIVE_RESULT_H

#include <stdint.h>
#include <stdio.h>

#include "collective.h"

#define COLL_NR_SIZES	2		/* 12 KiB, 32 MiB */
#define COLL_MAX_DIAG	4		/* NCCL's failing edges kept a run */
/* The directions a verdict can name: every counter, every DIAG edge. */
#define COLL_MAX_BLAME	(COLL_MAX_RANKS * COLL_MAX_RANKS + \
			 COLL_NR_SIZES * COLL_MAX_DIAG)

extern const size_t coll_sizes[COLL_NR_SIZES];

enum coll_outcome {
	COLL_RIGHT,
	COLL_NOT_RUN,			/* a smaller size failed first */
	COLL_WRONG,
	COLL_FAILED,			/* an NCCL or CUDA call failed */
	COLL_DIED,			/* the child ended without a result */
	COLL_HUNG,			/* killed by the watchdog */
};

enum coll_verdict {
	COLL_WORKS,
	COLL_P2P_BROKEN,		/* fails with P2P, works without */
	COLL_NOT_P2P,			/* fails both ways */
};

struct coll_one {
	enum coll_outcome outcome;
	struct coll_child child;
	char why[COLL_ERR_LEN];		/* the watchdog's word */
	char transports[96];		/* from NCCL's log, "," separated */
	bool diag_ran;			/* NCCL_RUN_DIAGNOSTICS printed */
	unsigned int ndiag;		/* its failing edges, the first few */
	struct {
		int src, dst;		/* ranks */
		char check[40];
	} diag[COLL_MAX_DIAG];
};

struct coll_group {
	const struct verify_gpu *gpu[COLL_MAX_RANKS];
	int n;
	struct coll_one run[COLL_NR_ARMS][COLL_NR_SIZES];
	/* Fault counter growth per direction [from][to], P2P arm. */
	uint64_t grew[COLL_MAX_RANKS][COLL_MAX_RANKS];
	bool faults_known;
	enum coll_verdict verdict;
};

/* A direction a "P2P broken" verdict names, as ranks of its group. */
struct coll_blame {
	int from, to;
	uint64_t faults;		/* its counter grew by; 0: see check */
	const char *check;		/* NCCL's diagnostics' words, or NULL */
};

/* The whole run, for the JSON document. */
struct coll_report {
	const char *lib;		/* the libnccl loaded */
	int version;			/* ncclGetVersion's */
	const char *found;		/* how: "library path", "--nccl", ... */
	unsigned int timeout;
	const struct coll_group *g;
	size_t n;
};

const char *coll_arm_name(enum coll_arm arm);
const char *coll_outcome_name(enum coll_outcome o);
const char *coll_verdict_name(enum coll_verdict v);
/* The P2P arm's path for the fault counters. */
enum verify_path coll_p2p_path(void);
/* NCCL's bus bandwidth of a right run, GB/s; 0: not timed. */
double coll_bus_gbps(const struct coll_one *one, size_t bytes, int n);
/*
 * The directions of @g's verdict names: those whose counters grew, then
 * those NCCL's diagnostics failed (a direction may be in both).
 */
size_t coll_blame(const struct coll_group *g, struct coll_blame *out);

/* A group's block of text (collective_text.c). */
void coll_print_group(const struct coll_group *g, unsigned int timeout);
/* The document (JSON.md, verify --collective; collective_json.c). */
void coll_json(FILE *f, const struct coll_report *r);
/* Ended before any group ran: the error, the exit code, no groups. */
void coll_json_failure(FILE *f, const char *error, int code);

#endif /* P2PMAP_VERIFY_COLLECTIVE_RESULT_H */
