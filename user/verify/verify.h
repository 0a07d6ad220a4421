/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p2pmap verify: a real peer-to-peer transfer per direction between CUDA
 * devices, checked byte by byte and against p2pmap's fault counters.
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

/* Exit code: no CUDA driver, no (or one) CUDA device. */
#define VERIFY_EXIT_NO_CUDA	3

#define VERIFY_SIZE_DEFAULT	(4ULL << 20)
#define VERIFY_SIZE_MAX		(1ULL << 30)
#define VERIFY_MAX_GPUS		64
#define VERIFY_ERR_LEN		160

/* A selected CUDA device. */
struct verify_gpu {
	int index;			/* CUDA ordinal */
	unsigned int pos;		/* position in the selection */
	CUdevice dev;
	CUcontext ctx;			/* primary context, retained */
	char pci[P2PMAP_ADDR_LEN];	/* "DDDD:BB:DD.F", lower case */
};

enum verify_verdict {
	VERIFY_WORKS,
	VERIFY_WRONG_DATA,
	VERIFY_FAULTED,
	VERIFY_REFUSED,
	VERIFY_ERROR,
};

/* One direction: @from copies into @to's memory. */
struct verify_result {
	const struct verify_gpu *from, *to;
	enum verify_verdict verdict;
	bool has_before, has_after;	/* false: counter unknown */
	uint64_t faults_before, faults_after;
	bool can_access;		/* cuDeviceCanAccessPeer */
	const char *cuda_call;		/* the call that failed, or NULL */
	CUresult cuda_code;		/* its result */
	char cuda_error[VERIFY_ERR_LEN]; /* cuGetErrorString(), "" if none */
	bool data_checked;		/* the copy ran and was read back */
	bool data_ok;
	uint64_t first_diff;		/* first wrong byte, when !data_ok */
	uint64_t size;
};

/*
 * A fault counter source.  read() gives the counter of the direction
 * @from -> @to (the production source adds the pairs from -> to and
 * to -> from: either GPU's copy engine may carry the copy); @after is
 * false for the reading before the copy, true for the one after.  Returns
 * false when the counter is unknown; @why then says why, once.
 */
struct verify_faults {
	bool (*read)(struct verify_faults *src, const struct verify_gpu *from,
		     const struct verify_gpu *to, bool after, uint64_t *count);
	void *priv;
	const char *why;		/* set by read() when it returns false */
};

/*
 * The verdict rule: peer access refused; else faulted when the counter
 * grew (whatever the data and the CUDA result); else error on a CUDA
 * error; else wrong data when the bytes differ; else works.
 */
enum verify_verdict verify_decide(bool refused, bool counters_known,
				  uint64_t before, uint64_t after,
				  CUresult err, bool data_ok);

/* "works", "wrong data", "faulted", "peer access refused", "error" */
const char *verify_verdict_name(enum verify_verdict v);

/*
 * cuDeviceGetPCIBusId's "0000:01:00.0" or "00000000:C1:00.0" as
 * "DDDD:BB:DD.F" in lower case.  Returns 0 or -1.
 */
int verify_norm_busid(const char *s, char out[P2PMAP_ADDR_LEN]);

/*
 * cuInit, then open the devices @indices (every device when @n is 0):
 * fills @gpus, returns how many, or -1 with @err set.  *@no_cuda is set
 * when the failure means "no CUDA device here" (CUDA_ERROR_NO_DEVICE, no
 * device, an index out of range is not).
 */
int verify_open(const struct cuda_api *api, const int *indices, size_t n,
		struct verify_gpu *gpus, bool *no_cuda, char *err,
		size_t errlen);
void verify_close(const struct cuda_api *api, struct verify_gpu *gpus,
		  size_t n);

/* Verify one direction; fills @r. */
void verify_direction(const struct cuda_api *api, const struct verify_gpu *from,
		      const struct verify_gpu *to, uint64_t size,
		      struct verify_faults *faults, struct verify_result *r);

/* "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): works[ (detail)]" */
void verify_format_result(FILE *f, const struct verify_result *r);
/* "verify: N directions, W work" */
void verify_format_summary(FILE *f, const struct verify_result *r, size_t n);
/* The --json document; @vllm_cache may be NULL. */
void verify_json(FILE *f, const struct verify_result *r, size_t n,
		 const char *vllm_cache);

/*
 * vLLM's P2P cache: {"0->0": true, "0->1": false, ...}, keys are positions
 * in the selection (vLLM's device indices under CUDA_VISIBLE_DEVICES set
 * to the verified devices), every ordered pair including the diagonal,
 * true only for works.
 */
void verify_vllm_render(FILE *f, const struct verify_result *r, size_t n,
			size_t ngpus);
/*
 * The CUDA_VISIBLE_DEVICES value vLLM will see for this selection: the
 * entries of @visible (the caller's CUDA_VISIBLE_DEVICES, may be NULL) at
 * the selected CUDA indices, else the indices.  Returns 0 or -1 (too long).
 */
int verify_vllm_devs(char *buf, size_t len, const struct verify_gpu *gpus,
		     size_t n, const char *visible);

#endif /* P2PMAP_VERIFY_H */
