// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in libnccl.so.2's driver for run.sh, "selftest NDEV BYTES
 * [ITERS|threads|procs]": an all-reduce (float32,
 * sum) of BYTES over the first NDEV GPUs, as a caller does it (CUDA
 * driver API for the buffers, ncclCommInitAll and a group, or with
 * "threads" ncclGetUniqueId and one thread per rank, "procs" one process
 * per rank), then every element
 * checked; on each rank's stream of its own, events on rank 0's timing
 * it (the stand-in libcuda's clock: "time" and NCCL's bus bandwidth,
 * 2 (n - 1) / n bytes over the time).  ITERS runs (the last one
 * checked and timed: the first pays for the memory's first touch).
 * Exit 0 right, 1 wrong data (the first wrong element said),
 * 2 an NCCL call failed.  "api": the calls' error paths, as TAP.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "nccl_api.h"

static struct cuda_api cu;
static int ndev;
static size_t count;
static CUdeviceptr buf[16];
static CUstream streams[16];
static ncclComm_t comms[16];
static ncclUniqueId uid;

static float want(int nranks, size_t i)
{
	return nranks * (nranks + 1) / 2.0f * (float)(i % 1000 + 1);
}

static void *rank_thread(void *arg)
{
	int r = (int)(long)arg;
	ncclResult_t e = ncclCommInitRank(&comms[r], ndev, uid, r);

	if (!e)
		e = ncclAllReduce((void *)(uintptr_t)buf[r],
				  (void *)(uintptr_t)buf[r], count, ncclFloat32,
				  ncclSum, comms[r], streams[r]);
	return (void *)(long)e;
}

/* Rank @r of @n in a process of its own: 0 right, 1 wrong, 2 failed. */
static int child(int r, int n, size_t bytes)
{
	char err[256];
	CUcontext ctx;
	CUdeviceptr b;
	CUstream s;
	ncclComm_t c;
	ncclResult_t e;
	float *h = malloc(bytes);
	size_t i;

	if (!h || cuda_load(&cu, NULL, err, sizeof(err)) || cu.Init(0) ||
	    cu.DevicePrimaryCtxRetain(&ctx, r) || cu.CtxSetCurrent(ctx) ||
	    cu.MemAlloc(&b, bytes) ||
	    cu.StreamCreate(&s, CU_STREAM_NON_BLOCKING))
		return 2;
	for (i = 0; i < bytes / 4; i++)
		h[i] = (r + 1) * (float)(i % 1000 + 1);
	cu.MemcpyHtoD(b, h, bytes);
	e = ncclCommInitRank(&c, n, uid, r);
	if (!e)
		e = ncclAllReduce((void *)(uintptr_t)b, (void *)(uintptr_t)b,
				  bytes / 4, ncclFloat32, ncclSum, c, s);
	if (e) {
		printf("rank %d: %s\n", r, ncclGetErrorString(e));
		return 2;
	}
	cu.StreamSynchronize(s);
	cu.MemcpyDtoH(h, b, bytes);
	for (i = 0; i < bytes / 4; i++)
		if (h[i] != want(n, i)) {
			printf("rank %d: element %zu is %g, not %g\n", r, i,
			       h[i], want(n, i));
			return 1;
		}
	ncclCommDestroy(c);
	return 0;
}

/* Rank r's element i: (r + 1) (i % 1000 + 1), on its GPU. */
static void upload(float *h)
{
	CUcontext ctx;
	size_t i;
	int r;

	for (r = 0; r < ndev; r++) {
		cu.DevicePrimaryCtxRetain(&ctx, r);
		cu.CtxSetCurrent(ctx);
		for (i = 0; i < count; i++)
			h[i] = (r + 1) * (float)(i % 1000 + 1);
		cu.MemcpyHtoD(buf[r], h, count * 4);
		cu.CtxSynchronize();
	}
}

static int api_checks(void)
{
	int v = 0, n = 0, fail = 0, dev = 0;
	ncclResult_t e;
	ncclComm_t c[2];

#define CHECK(cond, what) do {						\
	int ok_ = (cond);						\
									\
	printf("%sok %d - %s\n", ok_ ? "" : "not ", ++n, what);	\
	fail += !ok_;							\
} while (0)
	CHECK(!ncclGetVersion(&v) && v == 23007, "ncclGetVersion: 23007 (2.30.7)");
	CHECK(!strcmp(ncclGetErrorString(ncclInvalidArgument),
		      "invalid argument (run with NCCL_DEBUG=WARN for details)"),
	      "ncclGetErrorString as NCCL's");
	CHECK(ncclGroupEnd() == ncclInvalidUsage, "ncclGroupEnd outside a group: ncclInvalidUsage");
	CHECK(ncclCommInitAll(c, 0, NULL) == ncclInvalidArgument, "ncclCommInitAll of 0 devices: ncclInvalidArgument");
	e = ncclCommInitAll(c, 2, NULL);
	CHECK(!e, "ncclCommInitAll of 2");
	if (e)
		return 1;
	CHECK(!ncclCommGetAsyncError(c[0], &e) && e == ncclSuccess, "ncclCommGetAsyncError: ncclSuccess");
	CHECK(!ncclCommCuDevice(c[1], &dev) && dev == 1, "ncclCommCuDevice");
	CHECK(ncclAllReduce((void *)(uintptr_t)buf[0], (void *)(uintptr_t)buf[0], 4,
			    ncclFloat16, ncclSum, c[0], NULL) == ncclInvalidArgument,
	      "a type the stand-in lacks (half): ncclInvalidArgument");
	CHECK(ncclAllReduce((void *)(uintptr_t)buf[0], (void *)(uintptr_t)buf[0], 4,
			    ncclNumTypes, ncclSum, c[0], NULL) == ncclInvalidArgument,
	      "ncclNumTypes: ncclInvalidArgument");
	CHECK(ncclAllReduce((void *)(uintptr_t)buf[0], (void *)(uintptr_t)buf[0], 4,
			    ncclFloat32, ncclNumOps, c[0], NULL) == ncclInvalidArgument,
	      "ncclNumOps: ncclInvalidArgument");
	CHECK(ncclAllReduce((void *)(uintptr_t)buf[1], (void *)(uintptr_t)buf[1], 4,
			    ncclFloat32, ncclSum, c[0], NULL) == ncclInvalidArgument,
	      "another GPU's buffer: ncclInvalidArgument");
	CHECK(!ncclCommDestroy(c[0]) && !ncclCommDestroy(c[1]), "ncclCommDestroy");
	printf("1..%d\n", n);
	return fail ? 1 : 0;
}

/*
 * One process a rank: the id made first, no CUDA in the parent (the
 * stand-in libcuda fails CUDA in a child forked after cuInit, as the
 * driver does); each child checks its own elements.  The worst exit.
 */
static int procs(int n, size_t bytes)
{
	int r, worst = 0, st;
	pid_t pid;

	if (ncclGetUniqueId(&uid))
		return 2;
	fflush(stdout);
	for (r = 0; r < n; r++) {
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid)
			continue;
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* the watchdog's kill */
		exit(child(r, n, bytes));
	}
	while (wait(&st) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st) > worst)
			worst = WIFEXITED(st) ? WEXITSTATUS(st) : 2;
	if (!worst)
		printf("correct: %d ranks in processes, %zu floats\n", n, bytes / 4);
	return worst;
}

int main(int argc, char **argv)
{
	char err[256];
	CUcontext ctx;
	float *h;
	size_t i;
	int r, it, threads = argc > 3 && !strcmp(argv[3], "threads");
	int iters = argc > 3 && !threads ? atoi(argv[3]) : 1;
	ncclResult_t e = ncclSuccess;
	CUevent ev[2];
	float ms = 0;

	if (argc > 3 && !strcmp(argv[3], "procs"))
		return procs(atoi(argv[1]), strtoul(argv[2], NULL, 0));
	if (argc < 2 || cuda_load(&cu, NULL, err, sizeof(err)) || cu.Init(0))
		return 2;
	ndev = !strcmp(argv[1], "api") ? 2 : atoi(argv[1]);
	count = argc > 2 ? strtoul(argv[2], NULL, 0) / 4 : 1024;
	h = malloc(count * 4);
	for (r = 0; r < ndev; r++) {
		cu.DevicePrimaryCtxRetain(&ctx, r);
		cu.CtxSetCurrent(ctx);
		cu.MemAlloc(&buf[r], count * 4);
		cu.StreamCreate(&streams[r], CU_STREAM_NON_BLOCKING);
	}
	upload(h);
	if (!strcmp(argv[1], "api"))
		return api_checks();
	if (threads) {
		pthread_t t[16];
		void *rv;

		ncclGetUniqueId(&uid);
		for (r = 0; r < ndev; r++)
			pthread_create(&t[r], NULL, rank_thread, (void *)(long)r);
		for (r = 0; r < ndev; r++) {
			pthread_join(t[r], &rv);
			if (rv && !e)
				e = (ncclResult_t)(long)rv;
		}
	} else {
		e = ncclCommInitAll(comms, ndev, NULL);
		for (it = 0; !e && it < iters; it++) {
			if (it)		/* the data again, for a warm run */
				upload(h);
			cu.DevicePrimaryCtxRetain(&ctx, 0);
			cu.CtxSetCurrent(ctx);
			cu.EventCreate(&ev[0], 0);
			cu.EventCreate(&ev[1], 0);
			cu.EventRecord(ev[0], streams[0]);
			ncclGroupStart();
			for (r = 0; r < ndev; r++)
				ncclAllReduce((void *)(uintptr_t)buf[r],
					      (void *)(uintptr_t)buf[r], count,
					      ncclFloat32, ncclSum, comms[r],
					      streams[r]);
			e = ncclGroupEnd();
			cu.CtxSetCurrent(ctx);
			cu.EventRecord(ev[1], streams[0]);
			cu.StreamSynchronize(streams[0]);
			cu.EventElapsedTime(&ms, ev[0], ev[1]);
			cu.EventDestroy(ev[0]);
			cu.EventDestroy(ev[1]);
		}
	}
	if (e) {
		printf("nccl: %s\n", ncclGetErrorString(e));
		return 2;
	}
	for (r = 0; r < ndev; r++) {
		cu.DevicePrimaryCtxRetain(&ctx, r);
		cu.CtxSetCurrent(ctx);
		cu.MemcpyDtoH(h, buf[r], count * 4);
		for (i = 0; i < count; i++)
			if (h[i] != want(ndev, i)) {
				printf("rank %d: element %zu is %g, not %g\n", r, i,
				       h[i], want(ndev, i));
				return 1;
			}
	}
	for (r = 0; r < ndev; r++)
		ncclCommDestroy(comms[r]);
	printf("correct: %d ranks, %zu floats\n", ndev, count);
	if (ms > 0)
		printf("time: %.1f us, bus bandwidth %.1f GB/s\n", ms * 1000.0,
		       2.0 * (ndev - 1) / ndev * count * 4 / (ms * 1e6));
	return 0;
}
