/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p2pmap verify: real peer-to-peer transfers between CUDA devices, checked
 * byte by byte and against p2pmap's fault counters.
 *
 * A direction "A -> B" means what a p2pmap link means: A is the DMA
 * initiator.  It is tested twice, each time on a stream of A's context
 * with peer access enabled from A to B only: a write (A's engines push
 * from A's memory into B's) and a read (A's engines pull from B's memory
 * into A's).  Each (direction, operation) runs in a child process of its
 * own with a watchdog (verify/isolate.c): a sticky CUDA error or a copy
 * that never completes cannot spoil another direction, and the parent
 * never initialises CUDA.
 *
 * The fault counters are read through struct verify_faults, so that the
 * tests can inject counters the kernel cannot be made to produce; the
 * production source reads the module's device dump (verify_faults.c).
 */
#ifndef P2PMAP_VERIFY_H
#define P2PMAP_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda.h"
#include "objects.h"
#include "pcie_link.h"

#define VERIFY_SIZE_DEFAULT	(4ULL << 20)
#define VERIFY_SIZE_MAX		(1ULL << 30)
#define VERIFY_TIMEOUT_DEFAULT	60	/* seconds per operation */
#define VERIFY_MAX_GPUS		64
#define VERIFY_ERR_LEN		160
#define VERIFY_BUSID_LEN	32

/* A CUDA device, as the enumeration saw it. */
#define VERIFY_UUID_LEN		41	/* "GPU-" + 36 + NUL */

struct verify_gpu {
	int index;			/* CUDA ordinal */
	unsigned int pos;		/* position in the selection */
	char pci[P2PMAP_ADDR_LEN];	/* "DDDD:BB:DD.F", lower case */
	char uuid[VERIFY_UUID_LEN];	/* nvidia-smi's "GPU-...", or "" */
};

enum verify_op {
	VERIFY_WRITE,			/* initiator's memory -> peer's */
	VERIFY_READ,			/* peer's memory -> initiator's */
	VERIFY_NR_OPS,
};

/* How the initiator reaches the peer's memory (verify_paths.h). */
enum verify_path {
	VERIFY_PATH_COPY,		/* copy engine, same process */
	VERIFY_PATH_SM,			/* SM loads/stores, same process */
	VERIFY_PATH_IPC,		/* CUDA IPC handle, another process */
	VERIFY_PATH_CUMEM,		/* cuMem POSIX fd, another process */
	VERIFY_NR_PATHS,
};

enum verify_verdict {
	VERIFY_WORKS,
	VERIFY_NOT_TESTED,		/* not run: a GPU of it wedged */
	VERIFY_REFUSED,
	VERIFY_WRONG_DATA,
	VERIFY_ERROR,
	VERIFY_HUNG,
	VERIFY_FAULTED,			/* the most telling: last */
};

/* What the child of one (direction, operation) found. */
struct verify_copy {
	bool can_access;		/* cuDeviceCanAccessPeer */
	bool refused;			/* peer access not possible */
	char cuda_call[32];		/* the call that failed, or "" */
	CUresult cuda_code;		/* its result */
	char cuda_error[VERIFY_ERR_LEN]; /* its description */
	bool data_checked;		/* the copy ran and was read back */
	bool data_ok;
	uint64_t first_diff;		/* first wrong byte (!data_ok) */
	bool no_jit;			/* the driver compiled no PTX */
};

/*
 * What a direction's last fault hit, as p2pmap recorded it: the address,
 * and the tracked device's BAR and offset it falls in (output/bar_hit.h:
 * which NVIDIA path fell back to a raw peer address).
 */
struct verify_fault_hit {
	bool known;			/* an address was recorded */
	uint64_t addr;
	bool in_bar;			/* false: in no tracked BAR */
	char dev[P2PMAP_ADDR_LEN];
	uint32_t bar;
	uint64_t offset;
	char role[32];			/* "VRAM aperture", or "" */
};

/* One operation of a direction, as the parent decided it. */
struct verify_op_result {
	enum verify_verdict verdict;
	struct verify_copy copy;
	bool has_before, has_after;	/* false: counter unknown */
	uint64_t faults_before, faults_after;
	struct verify_fault_hit hit;	/* faulted: its last fault */
	bool hung;			/* the watchdog killed the child */
	bool stuck;			/* ... which stayed: left behind */
	char child_error[VERIFY_ERR_LEN]; /* the child died: how, or "" */
};

/* verify --bandwidth's numbers for one direction (verify/bandwidth.h). */
struct verify_bw {
	bool measured;
	char cuda_call[32];		/* the call that failed, or "" */
	CUresult cuda_code;
	char cuda_error[VERIFY_ERR_LEN];
	double gbps;			/* with peer access from the initiator */
	double staged_gbps;		/* without: CUDA stages the copy */
	double latency_us;		/* a 4-byte copy, with peer access */
	double staged_latency_us;	/* the same without */
	double issue_us;		/* the host's time to issue one */
	double staged_issue_us;		/* the same without */
	bool ungated;			/* the host outlasted every gate */
	bool no_peer;			/* peer access not possible */
	bool has_bidir;
	double bidir_gbps;		/* both GPUs copying to each other */
	struct pcie_link link[2];	/* from's and to's, while copying */
};

/* One path of a direction: its two operations. */
struct verify_path_result {
	bool ran;			/* --paths asked for it, and tested */
	bool no_jit;			/* asked for, not tested: no PTX JIT */
	enum verify_verdict verdict;	/* the worse of the two */
	struct verify_op_result op[VERIFY_NR_OPS];
};

struct bw_reference;

/* One direction: @from is the initiator. */
struct verify_result {
	const struct verify_gpu *from, *to;
	uint64_t size;
	unsigned int timeout;		/* seconds per operation */
	enum verify_verdict verdict;	/* the worst of the paths run */
	enum verify_path decided_by;	/* the first path with that verdict */
	struct verify_op_result op[VERIFY_NR_OPS]; /* that path's */
	struct verify_path_result path[VERIFY_NR_PATHS];
	char not_tested[2 * VERIFY_ERR_LEN]; /* why no_jit paths were not */
	/* A GPU found wedged kept operations from running (NULL: none). */
	const struct verify_gpu *wedged;
	char wedged_why[VERIFY_ERR_LEN]; /* "hung in copy write of ..." */
	bool has_bw;			/* --bandwidth ran on it */
	struct verify_bw bw;
	char bw_error[VERIFY_ERR_LEN];	/* its child died: how, or "" */
	/* The figures it is compared with (bw_reference.h), or why none. */
	const struct bw_reference *bw_ref;
	char bw_ref_why[VERIFY_ERR_LEN];
};

/*
 * A fault counter source.  read() gives the counter of the direction
 * @from -> @to for @op over @path (the production source has no path or
 * operation in its counters; it adds the pairs from -> to
 * and to -> from: either GPU's engine may carry the copy); @after is false
 * for the reading before the operation, true for the one after.  Returns
 * false when the counter is unknown; @why then says why, once.
 */
struct verify_faults {
	bool (*read)(struct verify_faults *src, const struct verify_gpu *from,
		     const struct verify_gpu *to, enum verify_path path,
		     enum verify_op op, bool after, uint64_t *count);
	void *priv;
	const char *why;		/* set when read() returns false */
	/*
	 * What the last fault of @from -> @to (for @op over @path) hit, as
	 * of the last read(); NULL or false: not known.
	 */
	bool (*last_hit)(struct verify_faults *src,
			 const struct verify_gpu *from,
			 const struct verify_gpu *to, enum verify_path path,
			 enum verify_op op, struct verify_fault_hit *hit);
};

/*
 * The verdict rule: faulted when the counter grew (whatever the data and
 * the CUDA result); else hung when the watchdog fired; else peer access
 * refused; else error on a CUDA error or a dead child; else wrong data
 * when the bytes differ; else works.
 */
enum verify_verdict verify_decide(const struct verify_op_result *o);

/*
 * "works", "not tested", "wrong data", "faulted", "peer access refused",
 * "hung", "error"
 */
const char *verify_verdict_name(enum verify_verdict v);
/* "write", "read" */
const char *verify_op_name(enum verify_op op);

/*
 * cuDeviceGetPCIBusId's "0000:01:00.0" or "00000000:C1:00.0" as
 * "DDDD:BB:DD.F" in lower case (a domain above 0xffff keeps its digits, as
 * p2pmap's addresses do).  Returns 0, or -1 when malformed.
 */
int verify_norm_busid(const char *s, char out[P2PMAP_ADDR_LEN]);

/* What the enumeration child reports. */
struct verify_enum {
	int load;			/* enum cuda_load_error */
	CUresult init;			/* cuInit / cuDeviceGetCount */
	char err[256];
	char lib[256];			/* the libcuda loaded, its real path */
	int count;
	char busid[VERIFY_MAX_GPUS][VERIFY_BUSID_LEN];
	CUresult busid_res[VERIFY_MAX_GPUS];
	char uuid[VERIFY_MAX_GPUS][VERIFY_UUID_LEN];	/* "" unknown */
};

/* nvidia-smi's spelling of a CUDA UUID: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-x..". */
void verify_format_uuid(const CUuuid *u, char out[VERIFY_UUID_LEN]);

/* cuInit, cuDeviceGetCount and every bus id; fills @e.  In a child. */
void verify_enumerate(const struct cuda_api *api, struct verify_enum *e);
/*
 * isolate_run()'s child for "which CUDA driver, which devices": loads
 * libcuda.so.1 and fills the struct verify_enum at @out (@arg unused).
 * verify and doctor both start here.
 */
void verify_enum_child(void *arg, void *out);

/*
 * One operation of one direction, in the calling process (a child):
 * retain both primary contexts, enable peer access from @from to @to
 * only, copy on a stream of @from's context, read back, disable peer
 * access, free.  Fills @c.
 */
void verify_copy_run(const struct cuda_api *api, int from, int to,
		     enum verify_op op, uint64_t size, struct verify_copy *c);

/*
 * GPU @gpu alone, in the calling process (a child): a context, a small
 * allocation written and read back.  Fills @c as verify_copy_run() does:
 * after a hang, does the GPU still answer?
 */
void verify_probe_run(const struct cuda_api *api, int gpu,
		      struct verify_copy *c);

/* A pattern that differs per @seed and 8-byte word. */
void verify_fill_pattern(unsigned char *buf, uint64_t size, uint64_t seed);

/* "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): works[ (detail)]" */
void verify_format_result(FILE *f, const struct verify_result *r);
/*
 * What follows a direction's verdict in verify_format_result(): "(...)"
 * or "[write: ...; read: ...]", or "" when there is nothing to add.
 */
void verify_format_detail(const struct verify_result *r, char *buf,
			  size_t len);
/* "verify: N directions, W work", and why some were not tested */
void verify_format_summary(FILE *f, const struct verify_result *r, size_t n);

/* Where the frameworks' cache files went: NULL members when not written. */
struct verify_caches {
	const char *vllm, *sglang;
	const char *order;		/* "PCI_BUS_ID" or "FASTEST_FIRST" */
};

/*
 * "bandwidth GPU0 (..) -> GPU1 (..): 54.96 GB/s, latency 0.4 us (host:
 * 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us)[; both
 * ways at once 109.93 GB/s]", then the figures' verdict (bw_figures.h):
 * STAGED or SLOW; "not measured (...)" when its child failed.
 */
void verify_format_bandwidth(FILE *f, const struct verify_result *r);

/* The --json document. */
void verify_json(FILE *f, const struct verify_result *r, size_t n,
		 const struct verify_caches *caches);

#endif /* P2PMAP_VERIFY_H */
