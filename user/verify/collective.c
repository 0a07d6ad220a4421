// SPDX-License-Identifier: GPL-2.0
/*
 * The child of one collective run (collective.h): NCCL's environment for
 * the arm, the buffers, one all-reduce, every element checked.  Runs
 * under isolate_run() only: NCCL and CUDA are loaded here, never in the
 * parent.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collective.h"
#include "isolate.h"
#include "nccl_lib.h"

struct coll_ctx {
	struct cuda_api cu;
	struct nccl_api nc;
	struct coll_child *res;
	CUevent ev[2];			/* around the group, rank 0's stream */
	CUcontext ctx[COLL_MAX_RANKS];
	CUdeviceptr buf[COLL_MAX_RANKS];
	CUstream stream[COLL_MAX_RANKS];
	nccl_comm_t comm[COLL_MAX_RANKS];
};

/* Rank r's element i is (r + 1) (i % 1000 + 1): sums exact in float. */
static float element(int r, size_t i)
{
	return (float)(r + 1) * (float)(i % 1000 + 1);
}

static bool cu_failed(struct coll_ctx *c, const char *call, CUresult res)
{
	if (res == CUDA_SUCCESS_)
		return false;
	if (!c->res->call[0]) {
		snprintf(c->res->call, sizeof(c->res->call), "%s", call);
		c->res->code = res;
		cuda_describe(&c->cu, res, c->res->error,
			      sizeof(c->res->error));
	}
	return true;
}

static bool nccl_failed(struct coll_ctx *c, const char *call,
			nccl_result_t res)
{
	const char *s;

	if (res == NCCL_SUCCESS_)
		return false;
	if (!c->res->call[0]) {
		snprintf(c->res->call, sizeof(c->res->call), "%s", call);
		c->res->code = (int)res;
		s = c->nc.GetErrorString(res);
		snprintf(c->res->error, sizeof(c->res->error), "%s (%u)",
			 s ? s : "unknown NCCL error", res);
	}
	return true;
}

/*
 * NCCL reads its environment when it initialises: set before the first
 * call.  The p2p arm keeps the caller's NCCL_P2P_LEVEL and
 * NCCL_CUMEM_ENABLE (env's output, sourced), SYS when the level is unset.
 */
static void arm_env(const struct coll_arg *a)
{
	setenv("NCCL_DEBUG", "INFO", 1);
	setenv("NCCL_DEBUG_FILE", a->log, 1);
	if (a->arm == COLL_ARM_CONTROL) {
		setenv("NCCL_P2P_DISABLE", "1", 1);
		return;
	}
	unsetenv("NCCL_P2P_DISABLE");
	setenv("NCCL_P2P_LEVEL", "SYS", 0);
	setenv("NCCL_RUN_DIAGNOSTICS", "1", 1);
}

/* NCCL's DIAG lines are printed to stdout: into a file, line by line. */
static void stdout_to(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return;
	fflush(stdout);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static bool setup_rank(struct coll_ctx *c, const struct coll_arg *a, int r,
		       float *h)
{
	size_t i, n = a->bytes / sizeof(float);

	if (cu_failed(c, "cuDevicePrimaryCtxRetain",
		      c->cu.DevicePrimaryCtxRetain(&c->ctx[r], a->dev[r])) ||
	    cu_failed(c, "cuCtxSetCurrent", c->cu.CtxSetCurrent(c->ctx[r])) ||
	    cu_failed(c, "cuMemAlloc", c->cu.MemAlloc(&c->buf[r], a->bytes)) ||
	    cu_failed(c, "cuStreamCreate",
		      c->cu.StreamCreate(&c->stream[r],
					 CU_STREAM_NON_BLOCKING)))
		return false;
	for (i = 0; i < n; i++)
		h[i] = element(r, i);
	return !cu_failed(c, "cuMemcpyHtoD",
			  c->cu.MemcpyHtoD(c->buf[r], h, a->bytes));
}

/* Every element of every rank: the first wrong one is kept. */
static bool check_rank(struct coll_ctx *c, const struct coll_arg *a, int r,
		       float *h)
{
	size_t i, n = a->bytes / sizeof(float);
	float sum = (float)a->ndev * (float)(a->ndev + 1) / 2;

	if (cu_failed(c, "cuCtxSetCurrent", c->cu.CtxSetCurrent(c->ctx[r])) ||
	    cu_failed(c, "cuMemcpyDtoH",
		      c->cu.MemcpyDtoH(h, c->buf[r], a->bytes)))
		return false;
	for (i = 0; i < n; i++) {
		if (h[i] != sum * (float)(i % 1000 + 1)) {
			c->res->bad_rank = r;
			c->res->bad_index = i;
			c->res->got = h[i];
			c->res->want = sum * (float)(i % 1000 + 1);
			return false;
		}
	}
	return true;
}

static void all_reduce(struct coll_ctx *c, const struct coll_arg *a, float *h)
{
	nccl_result_t async;
	int r;

	for (r = 0; r < a->ndev; r++)
		if (!setup_rank(c, a, r, h))
			return;
	if (nccl_failed(c, "ncclCommInitAll",
			c->nc.CommInitAll(c->comm, a->ndev, a->dev)))
		return;
	/* Timing is best effort: a failure leaves ms 0, not an error. */
	c->cu.CtxSetCurrent(c->ctx[0]);
	if (c->cu.EventCreate(&c->ev[0], 0) ||
	    c->cu.EventCreate(&c->ev[1], 0) ||
	    c->cu.EventRecord(c->ev[0], c->stream[0]))
		c->ev[0] = c->ev[1] = NULL;
	if (nccl_failed(c, "ncclGroupStart", c->nc.GroupStart()))
		return;
	for (r = 0; r < a->ndev; r++)
		nccl_failed(c, "ncclAllReduce",
			    c->nc.AllReduce((void *)(uintptr_t)c->buf[r],
					    (void *)(uintptr_t)c->buf[r],
					    a->bytes / sizeof(float),
					    NCCL_FLOAT32_, NCCL_SUM_,
					    c->comm[r], c->stream[r]));
	/* Even after a failed call: a group left open is NCCL misuse. */
	if (nccl_failed(c, "ncclGroupEnd", c->nc.GroupEnd()) ||
	    c->res->call[0])
		return;
	c->cu.CtxSetCurrent(c->ctx[0]);
	if (c->ev[1] && c->cu.EventRecord(c->ev[1], c->stream[0]))
		c->ev[0] = c->ev[1] = NULL;
	/* A hang is here: the watchdog's kill ends it. */
	for (r = 0; r < a->ndev; r++) {
		c->cu.CtxSetCurrent(c->ctx[r]);
		if (cu_failed(c, "cuStreamSynchronize",
			      c->cu.StreamSynchronize(c->stream[r])))
			return;
		if (!nccl_failed(c, "ncclCommGetAsyncError",
				 c->nc.CommGetAsyncError(c->comm[r], &async)))
			nccl_failed(c, "ncclAllReduce (async)", async);
		if (c->res->call[0])
			return;
	}
	c->cu.CtxSetCurrent(c->ctx[0]);
	if (c->ev[1] &&
	    c->cu.EventElapsedTime(&c->res->ms, c->ev[0], c->ev[1]))
		c->res->ms = 0;
	c->res->checked = true;
	c->res->data_ok = true;
	for (r = 0; r < a->ndev && c->res->data_ok; r++)
		c->res->data_ok = check_rank(c, a, r, h);
}

void coll_child_run(void *arg, void *out)
{
	const struct coll_arg *a = arg;
	struct coll_ctx *c = calloc(1, sizeof(*c));
	struct coll_child *res = out;
	float *h = NULL;
	int r;

	memset(res, 0, sizeof(*res));
	if (!c) {
		snprintf(res->call, sizeof(res->call), "calloc");
		return;
	}
	c->res = res;
	arm_env(a);
	if (a->out[0])
		stdout_to(a->out);
	res->load = nccl_load(&c->nc, a->nccl[0] ? a->nccl : NULL,
			      res->error, sizeof(res->error));
	if (res->load != NCCL_LOAD_OK) {
		snprintf(res->call, sizeof(res->call), "dlopen");
		return;
	}
	nccl_library_path(&c->nc, res->lib, sizeof(res->lib));
	if (nccl_failed(c, "ncclGetVersion", c->nc.GetVersion(&res->version)))
		goto out;
	if (!a->bytes) {		/* the probe: nothing to check */
		res->data_ok = true;
		goto out;
	}
	if (cuda_load(&c->cu, NULL, res->error, sizeof(res->error))) {
		snprintf(res->call, sizeof(res->call), "dlopen " CUDA_LIB);
		goto out;
	}
	h = malloc(a->bytes);
	if (!h)
		snprintf(res->call, sizeof(res->call), "malloc");
	else if (!cu_failed(c, "cuInit", c->cu.Init(0)))
		all_reduce(c, a, h);
out:
	/* The result first: NCCL's and the driver's teardown may hang. */
	isolate_result_ready();
	if (!isolate_skip_teardown()) {
		for (r = 0; r < a->ndev; r++)
			if (c->comm[r] && res->call[0])	/* NCCL's advice */
				c->nc.CommAbort(c->comm[r]);
			else if (c->comm[r])
				c->nc.CommDestroy(c->comm[r]);
		nccl_unload(&c->nc);
		cuda_unload(&c->cu);
	}
	free(h);
	free(c);
}
