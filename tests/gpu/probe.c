// SPDX-License-Identifier: GPL-2.0
/*
 * What the CUDA driver answers to the calls verify makes, on GPU 0: the
 * same program against the stand-in (tests/cuda-stub) and against the
 * real driver (make check-gpu, on a machine with an NVIDIA GPU), so that
 * tests/gpu/run.sh can set one beside the other.  Prints "KEY VALUE"
 * lines: CUresults, and under "time." what was measured (never compared).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda.h"
#include "gate_ptx.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* In a child, before this process initialises CUDA: cuModuleLoadData's
 * answer with CUDA_DISABLE_JIT=1 (cuda.h: JIT disabled). */
static int jit_disabled(const struct cuda_api *api)
{
	int status = -1, r = -1;
	CUcontext ctx;
	CUmodule mod;
	CUdevice dev;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		setenv("CUDA_DISABLE_JIT", "1", 1);
		if (!api->Init(0) && !api->DeviceGet(&dev, 0) &&
		    !api->DevicePrimaryCtxRetain(&ctx, dev) &&
		    !api->CtxSetCurrent(ctx))
			r = api->ModuleLoadData(&mod, verify_gate_ptx);
		_exit(r < 0 || r > 255 ? 255 : r);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A child forked after cuInit: what its first call answers. */
static int after_fork(const struct cuda_api *api)
{
	int status = -1, n = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(api->DeviceGetCount(&n) & 0xff);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Of 20 tries, how often a copy issued right after a pageable
 * cuMemcpyHtoD (non-blocking stream) read the data from before it. */
static int htod_stale(const struct cuda_api *api, CUstream s, CUcontext ctx,
		      CUdeviceptr a, CUdeviceptr b)
{
	unsigned int w, got;
	int i, stale = 0;

	for (i = 0; i < 20; i++) {
		w = 0x5a000000u + i;
		api->MemcpyHtoD(a, &w, sizeof(w));
		api->MemcpyPeerAsync(b, ctx, a, ctx, sizeof(w), s);
		api->StreamSynchronize(s);
		api->MemcpyDtoH(&got, b, sizeof(got));
		stale += got != w;
	}
	return stale;
}

/* 100 4-byte copies a -> b on @s, behind the gate when @fn: the GPU's
 * time of one in us; @issue: the host's. */
static double copies(const struct cuda_api *api, CUstream s, CUcontext ctx,
		     CUdeviceptr a, CUdeviceptr b, CUfunction fn,
		     double *issue, int *query)
{
	unsigned long long ns = 5000000;
	void *params[] = { &ns };
	CUevent e0, e1;
	float ms = 0;
	double t;
	int i;

	api->EventCreate(&e0, 0);
	api->EventCreate(&e1, 0);
	if (fn)
		api->LaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
	api->EventRecord(e0, s);
	t = now_us();
	for (i = 0; i < 100; i++)
		api->MemcpyPeerAsync(b, ctx, a, ctx, 4, s);
	*issue = (now_us() - t) / 100;
	api->EventRecord(e1, s);
	if (query)
		*query = api->EventQuery(e1);
	api->EventSynchronize(e1);
	api->EventElapsedTime(&ms, e0, e1);
	api->EventDestroy(e0);
	api->EventDestroy(e1);
	return ms * 1000.0 / 100;
}

int main(void)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	struct cuda_api api;
	CUdeviceptr a = 0, b = 0, va;
	CUipcMemHandle ih;
	CUcontext ctx;
	CUfunction fn = NULL;
	CUmodule mod;
	CUdevice dev;
	CUstream s;
	char err[256];
	size_t gran = 0;
	double issue, us;
	int n = 0, r, fd = -1, query = -1;

	if (cuda_load(&api, NULL, err, sizeof(err))) {
		printf("load %s\n", err);
		return 1;
	}
	printf("jit.disabled %d\n", jit_disabled(&api));
	r = api.Init(0);
	printf("init %d\n", r);
	if (r)
		return 0;
	api.DeviceGetCount(&n);
	printf("time.devices %d\n", n);
	printf("ctx %d\n", api.DeviceGet(&dev, 0) ||
	       api.DevicePrimaryCtxRetain(&ctx, dev) || api.CtxSetCurrent(ctx));
	printf("alloc %d\n", api.MemAlloc(&a, 4096) || api.MemAlloc(&b, 4096));
	r = api.ModuleLoadData(&mod, verify_gate_ptx);
	printf("jit %d\n", r);
	if (!r)
		printf("function %d\n",
		       api.ModuleGetFunction(&fn, mod, "p2pmap_spin"));
	printf("fork.after_init %d\n", after_fork(&api));
	api.IpcGetMemHandle(&ih, a);
	printf("ipc.own_process %d\n",
	       api.IpcOpenMemHandle(&va, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS_));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED_;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE_;
	prop.location.id = 0;
	api.MemGetAllocationGranularity(&gran, &prop,
					CU_MEM_ALLOC_GRANULARITY_MINIMUM_);
	printf("cumem.odd_size %d\n", api.MemCreate(&h, gran / 2, &prop, 0));
	r = api.MemCreate(&h, gran, &prop, 0);
	printf("cumem.export_unrequested %d\n", r ? r :
	       api.MemExportToShareableHandle(&fd, h,
					      CU_MEM_HANDLE_TYPE_POSIX_FD_, 0));
	api.StreamCreate(&s, CU_STREAM_NON_BLOCKING);
	printf("time.htod_stale_of_20 %d\n", htod_stale(&api, s, ctx, a, b));
	us = copies(&api, s, ctx, a, b, NULL, &issue, NULL);
	printf("time.ungated_copy_us %.2f\n", us);
	if (fn) {
		us = copies(&api, s, ctx, a, b, fn, &issue, &query);
		printf("event.query_behind_gate %d\n", query);
		printf("time.gated_copy_us %.2f\n", us);
		printf("time.issue_us %.2f\n", issue);
	}
	return 0;
}
