// SPDX-License-Identifier: GPL-2.0
/*
 * For tests/collective only: a library in front of the stand-in
 * libnccl.so.2 (its DT_NEEDED, so dlsym() on this one's handle finds the
 * rest there) that prints what NCCL 2.31's NCCL_RUN_DIAGNOSTICS=1 prints
 * for a broken edge (the line of tests/nccl/nccl-2.31-diagnostics.log)
 * when a group holds CUDA devices 0 and 1: GPU1's writes to GPU0
 * mismatch.  The stand-in follows 2.30.7, which has no diagnostics.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*init_all_fn)(void **comm, int ndev, const int *devlist);

static int rank_of(int ndev, const int *devlist, int dev)
{
	int r;

	for (r = 0; r < ndev; r++)
		if ((devlist ? devlist[r] : r) == dev)
			return r;
	return -1;
}

int ncclCommInitAll(void **comm, int ndev, const int *devlist)
{
	const char *e = getenv("NCCL_RUN_DIAGNOSTICS");
	int r0 = rank_of(ndev, devlist, 0), r1 = rank_of(ndev, devlist, 1);
	void *p = dlsym(RTLD_NEXT, "ncclCommInitAll");
	init_all_fn real;

	if (e && !strcmp(e, "1") && r0 >= 0 && r1 >= 0) {
		printf("shim.example:%d NCCL DIAG [INFO] p2p: write mismatch srcRank=%d srcCudaDev=1 srcNvmlDev=1 dstRank=%d dstCudaDev=0 dstNvmlDev=0 path=SYS handle=CUMEM_POSIX_FD expected=0x4000000300000000 got=0x0000000000000000\n",
		       (int)getpid(), r1, r0);
		fflush(stdout);
	}
	memcpy(&real, &p, sizeof(p));
	return real(comm, ndev, devlist);
}
