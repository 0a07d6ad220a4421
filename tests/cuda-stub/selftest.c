// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in libcuda is as hard as the driver where verify's paths can
 * go wrong: each misuse below must fail as the driver fails it.  Runs
 * against the stub (LD_LIBRARY_PATH), with two devices and no rule; prints
 * TAP lines, one per misuse.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuda.h"

static int n, failed;

static void check(int ok, const char *what, CUresult got)
{
	printf("%sok %d - %s (got %d)\n", ok ? "" : "not ", ++n, what, got);
	failed += !ok;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The GPU time of 100 4-byte copies 0 -> 1 on @s, in us. */
static double hundred_copies(const struct cuda_api *api, CUstream s,
			     CUcontext c0, CUdeviceptr a, CUcontext c1,
			     CUdeviceptr b)
{
	CUevent e0, e1;
	float ms = 0;
	int i;

	api->EventCreate(&e0, 0);
	api->EventCreate(&e1, 0);
	api->EventRecord(e0, s);
	for (i = 0; i < 100; i++)
		api->MemcpyPeerAsync(b, c1, a, c0, 4, s);
	api->EventRecord(e1, s);
	api->StreamSynchronize(s);
	api->EventElapsedTime(&ms, e0, e1);
	return ms * 1000.0;
}

/*
 * 4 KiB on GPU0 (@a, context @c0, current after) and on GPU1 (@b, its
 * context @c1), peer access from GPU0 to GPU1, a non-blocking stream.
 */
static void two_gpus(const struct cuda_api *api, CUcontext c0, CUcontext *c1,
		     CUdeviceptr *a, CUdeviceptr *b, CUstream *s)
{
	api->DevicePrimaryCtxRetain(c1, 1);
	api->CtxSetCurrent(*c1);
	api->MemAlloc(b, 4096);
	api->CtxSetCurrent(c0);
	api->MemAlloc(a, 4096);
	api->CtxEnablePeerAccess(*c1, 0);
	api->StreamCreate(s, CU_STREAM_NON_BLOCKING);
}

/*
 * The host clock (stub.c, "Time"): issued one by one, copies wait on the
 * host's 1.8 us a call; queued behind p2pmap_spin they run back to back
 * (0.4 us each), and a synchronize waits for the gate.
 */
static void clock_checks(const struct cuda_api *api, CUcontext c0)
{
	unsigned long long ns = 2000000;
	void *params[] = { &ns };
	CUcontext c1;
	CUdeviceptr a, b;
	CUstream s;
	CUmodule mod;
	CUfunction spin;
	double us, t;

	two_gpus(api, c0, &c1, &a, &b, &s);
	us = hundred_copies(api, s, c0, a, c1, b);
	check(us >= 180, "100 copies issued one by one: the GPU waits on the host, 1.8 us a call", (int)us);
	api->ModuleLoadData(&mod, ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry p2pmap_spin(\n)\n{\n}\n");
	api->ModuleGetFunction(&spin, mod, "p2pmap_spin");
	t = now_us();
	api->LaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
	us = hundred_copies(api, s, c0, a, c1, b);
	check(us > 39.9 && us < 40.1, "... queued behind p2pmap_spin: back to back, 0.4 us each", (int)us);
	us = now_us() - t;
	check(us >= 2000, "... and the synchronize waited for the 2 ms gate", (int)us);
}

/* @p's first word, read back through the host. */
static unsigned int word(const struct cuda_api *api, CUdeviceptr p)
{
	unsigned int w = 0;

	api->MemcpyDtoH(&w, p, sizeof(w));
	return w;
}

/*
 * Memory changes when the GPU gets there (stub.c, "What a GPU does to
 * memory"): a pageable cuMemcpyHtoD's data land after it returns, a copy
 * behind a gate has not happened before the gate opens.
 */
static void work_checks(const struct cuda_api *api, CUcontext c0)
{
	unsigned long long ns = 100000000;
	void *params[] = { &ns };
	unsigned int one = 1, two = 2, got = 0;
	CUdeviceptr a, b;
	CUcontext c1;
	CUstream s;
	CUmodule mod;
	CUfunction spin;
	int i, old = 0;

	two_gpus(api, c0, &c1, &a, &b, &s);
	/* Ten tries: a host descheduled for 14 us sees the data landed. */
	for (i = 0; i < 10 && !old; i++) {
		api->MemcpyHtoD(a, i & 1 ? &one : &two, sizeof(one));
		api->MemcpyPeerAsync(b, c1, a, c0, sizeof(one), s);
		api->StreamSynchronize(s);
		api->CtxSetCurrent(c1);
		got = word(api, b);
		api->CtxSetCurrent(c0);
		old = got != (i & 1 ? one : two);
	}
	check(old, "a pageable cuMemcpyHtoD returns before its data land: a non-blocking stream's copy issued at once reads the old data", got);
	api->MemcpyHtoD(a, &two, sizeof(two));
	api->CtxSynchronize();
	api->MemcpyPeerAsync(b, c1, a, c0, sizeof(two), s);
	api->StreamSynchronize(s);
	api->CtxSetCurrent(c1);
	got = word(api, b);
	check(got == two, "... after cuCtxSynchronize it reads the new", got);
	api->CtxSetCurrent(c0);
	api->MemcpyHtoD(a, &one, sizeof(one));
	api->CtxSynchronize();
	api->ModuleLoadData(&mod, ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry p2pmap_spin(\n)\n{\n}\n");
	api->ModuleGetFunction(&spin, mod, "p2pmap_spin");
	api->LaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, params, NULL);
	api->MemcpyPeerAsync(b, c1, a, c0, sizeof(one), s);
	api->CtxSetCurrent(c1);
	got = word(api, b);
	check(got == two, "a copy queued behind a 100 ms gate: its destination still holds the old data", got);
	api->CtxSetCurrent(c0);
	api->StreamSynchronize(s);
	api->CtxSetCurrent(c1);
	got = word(api, b);
	check(got == one, "... and the new once the stream is synchronized", got);
	api->CtxSetCurrent(c0);
}

/*
 * A child forked after cuInit: CUDA is not supported there (NVIDIA's CUDA
 * programming guide); the driver answers 3, NOT_INITIALIZED, cuInit too.
 */
static void fork_checks(const struct cuda_api *api)
{
	int status = -1, n = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(api->DeviceGetCount(&n) == 3 && api->Init(0) == 3 ? 0 : 1);
	if (pid > 0)
		waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "a child forked after cuInit: every call, cuInit too, fails with 3 (NOT_INITIALIZED)",
	      status);
	status = api->DeviceGetCount(&n);
	check(!status && n > 0, "... the parent's calls still work", n);
}

int main(void)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	struct cuda_api api;
	CUdeviceptr p, va;
	CUipcMemHandle ih;
	CUcontext ctx;
	CUstream s;
	CUmodule mod;
	CUfunction fn;
	char err[256];
	size_t gran = 0;
	int fd = -1;
	unsigned long long words = 16;
	void *params[] = { &va, &p, &words };
	CUresult r;

	if (cuda_load(&api, NULL, err, sizeof(err))) {
		printf("not ok 1 - the stub loads: %s\n", err);
		return 1;
	}
	api.Init(0);
	api.DevicePrimaryCtxRetain(&ctx, 0);
	api.CtxSetCurrent(ctx);
	api.MemAlloc(&p, 4096);
	api.IpcGetMemHandle(&ih, p);
	r = api.IpcOpenMemHandle(&va, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS_);
	check(r == 201, "an IPC handle does not open in its own process", r);
	r = api.ModuleLoadData(&mod, "not PTX");
	check(r == 218, "cuModuleLoadData refuses what is not PTX", r);
	r = api.ModuleLoadData(&mod, ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry other(\n)\n{\n}\n");
	check(!r && api.ModuleGetFunction(&fn, mod, "p2pmap_copy_u32") == 500,
	      "cuModuleGetFunction: no such entry, 500", r);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED_;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE_;
	prop.location.id = 1;
	api.MemGetAllocationGranularity(&gran, &prop,
					CU_MEM_ALLOC_GRANULARITY_MINIMUM_);
	r = api.MemCreate(&h, gran / 2, &prop, 0);
	check(r == 1, "cuMemCreate: a size that is not a multiple of the granularity", r);
	r = api.MemCreate(&h, gran, &prop, 0);
	check(!r && api.MemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FD_, 0) == 801,
	      "cuMemExportToShareableHandle: a handle type not asked for at creation, 801", r);
	clock_checks(&api, ctx);
	work_checks(&api, ctx);
	fork_checks(&api);
	/* Mapped, but no cuMemSetAccess: a kernel there is an illegal address. */
	api.MemAddressReserve(&va, gran, 0, 0, 0);
	api.MemMap(va, gran, 0, h, 0);
	api.ModuleLoadData(&mod, ".version 7.0\n.target sm_52\n.address_size 64\n.visible .entry p2pmap_copy_u32(\n)\n{\n}\n");
	api.ModuleGetFunction(&fn, mod, "p2pmap_copy_u32");
	api.StreamCreate(&s, CU_STREAM_NON_BLOCKING);
	r = api.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
	check(r == 700, "a kernel into a mapping without cuMemSetAccess: 700", r);
	r = api.MemAlloc(&p, 4096);
	check(r == 700, "... and sticky: every later call fails with 700", r);
	return failed ? 1 : 0;
}
