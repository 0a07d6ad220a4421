// SPDX-License-Identifier: GPL-2.0
/*
 * A ring connection, a rank to the next, as NVIDIA/nccl v2.30.7-1 sets
 * one up and moves a slice along it:
 *  - src/transport/p2p.cc: P2P when cudaDeviceCanAccessPeer says so
 *    (p2pCanConnect); peer access enabled (p2pMap: ranks of one process
 *    get "P2P/direct pointer"), then with cuMem the peer's buffer mapped
 *    from its handle and cuMemSetAccess'd, else its cudaMalloc pointer
 *    used as is.  Writes by default; reads (the slot in the sender's
 *    memory, read by the receiver) where p2pGetInfo says, which on a
 *    PCIe host is only NCCL_P2P_READ_ENABLE=1 (src/graph/paths.cc:
 *    read by default for NVLink Ampere only).  Either way the sender's
 *    kernel writes the tail into the receiver's memory after the data,
 *    and the receiver spins on it with no timeout; the receiver's kernel
 *    writes the head back into the sender's memory, and a sender more
 *    than NCCL_STEPS (8) slots ahead of the head spins on it, likewise
 *    (src/device/prims_simple.h, src/include/device.h).  So a pair's
 *    writes are both ways on every ring edge: data and tail forward,
 *    head back.
 *  - src/transport/shm.cc: otherwise, and with NCCL_P2P_DISABLE=1,
 *    through host memory, "SHM/direct".  The stand-in's GPUs reach host
 *    memory only by cuMemcpyDtoH/HtoD, so that is how it goes.
 * The stand-in's simplifications: a kernel here is the stand-in
 * libcuda's p2pmap_copy_u32; the tail's new value is put in the sender's
 * memory by the host (device memory is host memory in the stand-in).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_stub.h"

/* The stand-in libcuda's kernel, @n words from @src to @dst on @c. */
ncclResult_t stub_copy(struct ncclComm *c, CUdeviceptr dst, CUdeviceptr src,
		       size_t bytes)
{
	unsigned long long n = (bytes + 3) / 4;
	void *params[] = { &dst, &src, &n };

	if (CUCHECK(c, CtxSetCurrent(c->ctx)) ||
	    CUCHECK(c, LaunchKernel(c->copy, 1, 1, 1, 128, 1, 1, 0, c->run,
				    params, NULL)))
		return ncclUnhandledCudaError;
	return ncclSuccess;
}

ncclResult_t rank_sync(struct ncclComm *c)
{
	if (CUCHECK(c, CtxSetCurrent(c->ctx)) ||
	    CUCHECK(c, StreamSynchronize(c->run)))
		return ncclUnhandledCudaError;
	return ncclSuccess;
}

/* @user may reach @owner's memory: p2pMap's cudaDeviceEnablePeerAccess. */
static ncclResult_t peer_enable(struct ncclComm *user, struct ncclComm *owner)
{
	CUresult r;

	if (user->dev == owner->dev)
		return ncclSuccess;
	cu.CtxSetCurrent(user->ctx);
	r = cu.CtxEnablePeerAccess(owner->ctx, 0);
	if (r && r != CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED) {
		WARN(user, "failed to peer with device %d(=%lx): %d", owner->dev,
		     owner->busid, r);
		return ncclInternalError;
	}
	return ncclSuccess;
}

/*
 * MEM_SIZE of @owner's memory, and @user's view of it: with cuMem a
 * second mapping of the same handle (ncclCuMemAllocAddr), else the
 * cudaMalloc pointer itself.
 */
static ncclResult_t shared_alloc(struct ncclComm *owner, struct ncclComm *user,
				 int cumem, CUdeviceptr *own,
				 CUdeviceptr *view,
				 CUmemGenericAllocationHandle *h)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED_,
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FD_,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE_, owner->dev },
	};
	CUmemAccessDesc acc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE_, owner->dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE_,
	};

	if (peer_enable(user, owner))
		return ncclInternalError;
	cu.CtxSetCurrent(owner->ctx);
	if (!cumem) {
		if (CUCHECK(owner, MemAlloc(own, MEM_SIZE)))
			return ncclUnhandledCudaError;
		*view = *own;
		return ncclSuccess;
	}
	if (CUCHECK(owner, MemCreate(h, MEM_SIZE, &prop, 0)) ||
	    CUCHECK(owner, MemAddressReserve(own, MEM_SIZE, 0, 0, 0)) ||
	    CUCHECK(owner, MemMap(*own, MEM_SIZE, 0, *h, 0)) ||
	    CUCHECK(owner, MemSetAccess(*own, MEM_SIZE, &acc, 1)))
		return ncclUnhandledCudaError;
	if (user->dev == owner->dev) {
		*view = *own;
		return ncclSuccess;
	}
	acc.location.id = user->dev;
	cu.CtxSetCurrent(user->ctx);
	if (CUCHECK(user, MemAddressReserve(view, MEM_SIZE, 0, 0, 0)) ||
	    CUCHECK(user, MemMap(*view, MEM_SIZE, 0, *h, 0)) ||
	    CUCHECK(user, MemSetAccess(*view, MEM_SIZE, &acc, 1)))
		return ncclUnhandledCudaError;
	return ncclSuccess;
}

static void shared_free(struct ncclComm *owner, struct ncclComm *user,
			int cumem, CUdeviceptr own, CUdeviceptr view,
			CUmemGenericAllocationHandle h)
{
	if (!own)
		return;
	cu.CtxSetCurrent(owner->ctx);
	if (!cumem) {
		cu.MemFree(own);
		return;
	}
	if (view && view != own) {
		cu.CtxSetCurrent(user->ctx);
		cu.MemUnmap(view, MEM_SIZE);
		cu.MemAddressFree(view, MEM_SIZE);
		cu.CtxSetCurrent(owner->ctx);
	}
	cu.MemUnmap(own, MEM_SIZE);
	cu.MemAddressFree(own, MEM_SIZE);
	cu.MemRelease(h);
}

/* Can @a's kernels reach @b's memory: p2pCanConnect. */
static int p2p_ok(struct ncclComm *a, struct ncclComm *b)
{
	int can = 0;

	if (a->cq->p2p_disable)
		return 0;
	if (a->dev == b->dev)
		return 1;
	/* both ways: the tail forward, the head back */
	if (cu.DeviceCanAccessPeer(&can, a->dev, b->dev) || !can ||
	    cu.DeviceCanAccessPeer(&can, b->dev, a->dev) || !can) {
		stub_info(a->dev, "Could not enable P2P between dev %d(=%lx) and dev %d(=%lx)",
			  a->dev, a->busid, b->dev, b->busid);
		return 0;
	}
	return 1;
}

ncclResult_t conn_setup(struct ncclComm *s, struct ncclComm *d, int ch)
{
	struct conn *k = &s->conn[ch];
	ncclResult_t r;

	memset(k, 0, sizeof(*k));
	cu.CtxSetCurrent(d->ctx);
	if (CUCHECK(d, MemAlloc(&k->staging, SLICE + 64)))
		return ncclUnhandledCudaError;
	if (!p2p_ok(s, d)) {
		k->transport = T_SHM;
		k->shm = calloc(1, SLICE + 64);
		if (!k->shm)
			return ncclSystemError;
		stub_info(s->dev, "Channel %02d : %d[%d] -> %d[%d] via SHM/direct",
			  ch, s->rank, s->nvml, d->rank, d->nvml);
		return ncclSuccess;
	}
	k->transport = T_P2P;
	k->cumem = s->cq->cumem;
	/* -2: the topology decides, which says write on PCIe */
	k->read = stub_env_int("NCCL_P2P_READ_ENABLE", -2) > 0;
	stub_info(s->dev, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/direct pointer%s",
		  ch, s->rank, s->nvml, d->rank, d->nvml, k->read ? "/read" : "");
	r = shared_alloc(d, s, k->cumem, &k->recv_own, &k->recv_peer,
			 &k->recv_h);
	if (!r)
		r = shared_alloc(s, d, k->cumem, &k->send_own, &k->send_peer,
				 &k->send_h);
	if (!r) {
		cu.CtxSetCurrent(s->ctx);
		r = CUCHECK(s, MemAlloc(&k->flag, 64));
	}
	return r;
}

void conn_free(struct ncclComm *s, struct ncclComm *d, int ch)
{
	struct conn *k = &s->conn[ch];

	if (k->staging) {
		cu.CtxSetCurrent(d->ctx);
		cu.MemFree(k->staging);
	}
	free(k->shm);
	shared_free(d, s, k->cumem, k->recv_own, k->recv_peer, k->recv_h);
	shared_free(s, d, k->cumem, k->send_own, k->send_peer, k->send_h);
	if (k->flag) {
		cu.CtxSetCurrent(s->ctx);
		cu.MemFree(k->flag);
	}
	memset(k, 0, sizeof(*k));
}


/* @bytes of @s's work buffer from @off into the slot, then the tail. */
ncclResult_t conn_send(struct ncclComm *s, struct ncclComm *d, int ch,
		       size_t off, size_t bytes)
{
	struct conn *k = &s->conn[ch];
	unsigned int head;

	(void)d;
	k->step++;
	if (k->transport == T_SHM) {
		cu.CtxSetCurrent(s->ctx);
		if (CUCHECK(s, MemcpyDtoH(k->shm, s->work + off, bytes)))
			return ncclUnhandledCudaError;
		memcpy(k->shm + TAIL_OFF, &k->step, sizeof(k->step));
		return ncclSuccess;
	}
	memcpy(&head, (void *)(uintptr_t)(k->send_own + HEAD_OFF), sizeof(head));
	if (k->step > head + STEPS)
		wait_forever(s);	/* no slot free: the head never came */
	if (stub_copy(s, k->read ? k->send_own : k->recv_peer, s->work + off,
		 bytes))
		return ncclUnhandledCudaError;
	memcpy((void *)(uintptr_t)k->flag, &k->step, sizeof(k->step));
	return stub_copy(s, k->recv_peer + TAIL_OFF, k->flag, 4);
}

/*
 * A tail that never comes: NCCL's kernel spins on it for ever.  Counted
 * in the stand-in libcuda's "hangs" file (P2PMAP_CUDA_STUB_STATE), as
 * its own hangs are, for the tests.
 */
void wait_forever(struct ncclComm *d)
{
	const char *dir = getenv("P2PMAP_CUDA_STUB_STATE");
	char path[512];
	FILE *f;

	if (dir && *dir) {
		snprintf(path, sizeof(path), "%s/hangs", dir);
		f = fopen(path, "a");
		if (f) {
			fprintf(f, "hang gpu=%d pid=%d at=nccl\n", d->nvml,
				(int)getpid());
			fclose(f);
		}
	}
	if (!d->mp)
		pthread_mutex_unlock(&stub_lock);
	for (;;)
		pause();
}

/* The slice @s sent, on @d: where its @bytes are to be read. */
ncclResult_t conn_recv(struct ncclComm *s, struct ncclComm *d, int ch,
		       size_t bytes, const unsigned char **data)
{
	struct conn *k = &s->conn[ch];
	unsigned int tail;

	if (k->transport == T_SHM) {
		memcpy(&tail, k->shm + TAIL_OFF, sizeof(tail));
		if (tail != k->step)
			wait_forever(d);
		cu.CtxSetCurrent(d->ctx);
		if (CUCHECK(d, MemcpyHtoD(k->staging, k->shm, bytes)) ||
		    CUCHECK(d, CtxSynchronize()))
			return ncclUnhandledCudaError;
		*data = (const unsigned char *)(uintptr_t)k->staging;
		return ncclSuccess;
	}
	memcpy(&tail, (void *)(uintptr_t)(k->recv_own + TAIL_OFF),
	       sizeof(tail));
	if (tail != k->step)
		wait_forever(d);
	if (!k->read) {
		*data = (const unsigned char *)(uintptr_t)k->recv_own;
	} else {
		if (stub_copy(d, k->staging, k->send_peer, bytes) || rank_sync(d))
			return ncclUnhandledCudaError;
		*data = (const unsigned char *)(uintptr_t)k->staging;
	}
	/* the slot consumed (the host adds it up before d's next sync) */
	memcpy((void *)(uintptr_t)(k->staging + SLICE), &k->step,
	       sizeof(k->step));
	return stub_copy(d, k->send_peer + HEAD_OFF, k->staging + SLICE, 4);
}
