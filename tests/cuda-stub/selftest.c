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

#include "cuda.h"

static int n, failed;

static void check(int ok, const char *what, CUresult got)
{
	printf("%sok %d - %s (got %d)\n", ok ? "" : "not ", ++n, what, got);
	failed += !ok;
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
