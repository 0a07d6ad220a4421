// SPDX-License-Identifier: GPL-2.0
/*
 * Ranks in processes of their own (ncclCommInitRank, one rank a process,
 * as vLLM and SGLang run NCCL): what NVIDIA/nccl v2.30.7-1 does between
 * processes, src/transport/p2p.cc's different-PID branch: each side's
 * buffer exported (cuMem: cuMemExportToShareableHandle to a file
 * descriptor, which NCCL passes over a UNIX socket and the stand-in
 * reopens through /proc; NCCL_CUMEM_ENABLE=0: cuIpcGetMemHandle) and
 * imported by the peer (cuMemImportFromShareableHandle, cuMemMap,
 * cuMemSetAccess; cuIpcOpenMemHandle with lazy peer access), logged as
 * "P2P/CUMEM" or "P2P/IPC"; NCCL_STEPS (8) slots a connection.  The
 * ranks meet in a file that ncclGetUniqueId names in the id (NCCL's
 * bootstrap is a socket); each one's progress (slots sent, slots
 * consumed) is posted there once its stream is synchronized, so a tail
 * or head that is missing after its sender's work is done is known
 * never to come: the wait for ever is then counted, as in transport.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nccl_stub.h"

#define MP_MEM		(6ul << 20)		/* 3 granules */
#define MP_TAIL		(STEPS * SLICE)
#define MP_HEAD		(MP_TAIL + 64)
#define MP_MAGIC	0x6d706e63u

struct mp_export {
	int fd;				/* cuMem: in the owner's process */
	CUipcMemHandle ipc;		/* legacy IPC */
};

struct mp_rank {
	int pid, dev, nvml;
	unsigned long busid;
	struct mp_export recv[MAX_CHANNELS];	/* prev -> it: ncclRecvMem */
	struct mp_export send[MAX_CHANNELS];	/* it -> next: ncclSendMem */
	unsigned int sent[MAX_CHANNELS];	/* it -> next, synchronized */
	unsigned int consumed[MAX_CHANNELS];	/* prev -> it, head written */
};

struct mp_shared {
	unsigned int magic;
	int nranks, joined, published, connected, failed;
	struct mp_rank rank[MAX_RANKS];
	/* SHM/direct: each rank's host buffer to the next, per channel */
	unsigned char shm[MAX_RANKS][MAX_CHANNELS][MP_HEAD + 64];
};

#define HOST(p) ((unsigned char *)(uintptr_t)(p))

/* A barrier on @counter; false when a rank failed. */
static bool meet(struct mp_shared *sh, int *counter)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(counter, __ATOMIC_SEQ_CST) < sh->nranks &&
	       !__atomic_load_n(&sh->failed, __ATOMIC_SEQ_CST))
		usleep(200);
	return !__atomic_load_n(&sh->failed, __ATOMIC_SEQ_CST);
}

static unsigned int posted(unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static int next_of(struct ncclComm *c) { return (c->rank + 1) % c->nranks; }
static int prev_of(struct ncclComm *c) { return (c->rank + c->nranks - 1) % c->nranks; }

/* P2P between two ranks: peer access both ways (transport.c's rule). */
static int mp_p2p(struct ncclComm *c, int a, int b)
{
	struct mp_shared *sh = c->mp;
	int x = 0, y = 0;

	if (c->p2p_disable)
		return 0;
	if (sh->rank[a].dev == sh->rank[b].dev)
		return 1;
	return !cu.DeviceCanAccessPeer(&x, sh->rank[a].dev, sh->rank[b].dev) &&
	       x && !cu.DeviceCanAccessPeer(&y, sh->rank[b].dev, sh->rank[a].dev) && y;
}

/* MP_MEM of this rank's, exported for its peer. */
static ncclResult_t mp_alloc(struct ncclComm *c, CUdeviceptr *own,
			     CUmemGenericAllocationHandle *h,
			     struct mp_export *ex)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED_,
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FD_,
		.location = { CU_MEM_LOCATION_TYPE_DEVICE_, c->dev },
	};
	CUmemAccessDesc acc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE_, c->dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE_,
	};

	if (!c->cumem)
		return CUCHECK(c, MemAlloc(own, MP_MEM)) ||
		       CUCHECK(c, IpcGetMemHandle(&ex->ipc, *own)) ?
		       ncclUnhandledCudaError : ncclSuccess;
	if (CUCHECK(c, MemCreate(h, MP_MEM, &prop, 0)) ||
	    CUCHECK(c, MemAddressReserve(own, MP_MEM, 0, 0, 0)) ||
	    CUCHECK(c, MemMap(*own, MP_MEM, 0, *h, 0)) ||
	    CUCHECK(c, MemSetAccess(*own, MP_MEM, &acc, 1)) ||
	    CUCHECK(c, MemExportToShareableHandle(&ex->fd, *h,
				CU_MEM_HANDLE_TYPE_POSIX_FD_, 0)))
		return ncclUnhandledCudaError;
	return ncclSuccess;
}

/* The peer's export, mapped here. */
static ncclResult_t mp_import(struct ncclComm *c, int peer,
			      const struct mp_export *ex, CUdeviceptr *view,
			      CUmemGenericAllocationHandle *h)
{
	CUmemAccessDesc acc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE_, c->dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE_,
	};
	char path[64];
	int fd;
	ncclResult_t r;

	if (!c->cumem)
		return CUCHECK(c, IpcOpenMemHandle(view, ex->ipc, 1)) ?
		       ncclUnhandledCudaError : ncclSuccess;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", c->mp->rank[peer].pid,
		 ex->fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		WARN(c, "could not open rank %d's buffer %s: %m", peer, path);
		return ncclSystemError;
	}
	r = CUCHECK(c, MemImportFromShareableHandle(h, (void *)(intptr_t)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FD_));
	close(fd);
	if (r || CUCHECK(c, MemAddressReserve(view, MP_MEM, 0, 0, 0)) ||
	    CUCHECK(c, MemMap(*view, MP_MEM, 0, *h, 0)) ||
	    CUCHECK(c, MemSetAccess(*view, MP_MEM, &acc, 1)))
		return ncclUnhandledCudaError;
	return ncclSuccess;
}

static ncclResult_t mp_connect(struct ncclComm *c)
{
	struct mp_shared *sh = c->mp;
	struct mp_rank *me = &sh->rank[c->rank];
	int ch, nx = next_of(c), pv = prev_of(c);
	ncclResult_t r = ncclSuccess;

	for (ch = 0; ch < c->nch && !r; ch++) {
		struct conn *s = &c->conn[ch], *k = &c->rconn[ch];

		s->transport = mp_p2p(c, c->rank, nx) ? T_P2P : T_SHM;
		k->transport = mp_p2p(c, pv, c->rank) ? T_P2P : T_SHM;
		s->read = k->read = stub_env_int("NCCL_P2P_READ_ENABLE", -2) > 0;
		s->cumem = k->cumem = c->cumem;
		r = CUCHECK(c, MemAlloc(&k->staging, SLICE + 64));
		if (!r)
			r = CUCHECK(c, MemAlloc(&s->flag, 64));
		if (!r && k->transport == T_P2P)
			r = mp_alloc(c, &k->recv_own, &k->recv_h, &me->recv[ch]);
		if (!r && s->transport == T_P2P)
			r = mp_alloc(c, &s->send_own, &s->send_h, &me->send[ch]);
	}
	if (r)
		__atomic_store_n(&sh->failed, 1, __ATOMIC_SEQ_CST);
	if (!meet(sh, &sh->published))
		return r ? r : ncclRemoteError;
	for (ch = 0; ch < c->nch && !r; ch++) {
		struct conn *s = &c->conn[ch], *k = &c->rconn[ch];

		if (s->transport == T_P2P)
			r = mp_import(c, nx, &sh->rank[nx].recv[ch], &s->recv_peer,
				      &s->recv_h);
		if (!r && k->transport == T_P2P)
			r = mp_import(c, pv, &sh->rank[pv].send[ch], &k->send_peer,
				      &k->send_h);
		if (r)
			break;
		if (s->transport == T_SHM)
			stub_info(c->dev, "Channel %02d : %d[%d] -> %d[%d] via SHM/direct",
				  ch, c->rank, c->nvml, nx, sh->rank[nx].nvml);
		else
			stub_info(c->dev, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/%s%s",
				  ch, c->rank, c->nvml, nx, sh->rank[nx].nvml,
				  c->cumem ? "CUMEM" : "IPC", s->read ? "/read" : "");
	}
	if (r)
		__atomic_store_n(&sh->failed, 1, __ATOMIC_SEQ_CST);
	if (!meet(sh, &sh->connected))
		return r ? r : ncclRemoteError;
	return ncclSuccess;
}

ncclResult_t mp_init(struct ncclComm **comm, int nranks,
		     struct mp_shared *sh, int rank)
{
	struct ncclComm *c = calloc(1, sizeof(*c));
	ncclResult_t r;
	int n = 0, min, max;

	if (!c) {
		mp_leave(sh);
		return ncclSystemError;
	}
	c->mp = sh;
	c->rank = rank;
	c->nranks = nranks;
	/* one GPU visible: that one; else GPU RANK (comm.c) */
	c->dev = !cu.DeviceGetCount(&n) && n == 1 ? 0 : rank;
	min = stub_env_int("NCCL_MIN_NCHANNELS", 2);
	max = stub_env_int("NCCL_MAX_NCHANNELS", MAX_CHANNELS);
	c->nch = min < 1 ? 1 : min > MAX_CHANNELS ? MAX_CHANNELS : min;
	if (c->nch > max && max >= 1)
		c->nch = max;
	c->p2p_disable = stub_env_int("NCCL_P2P_DISABLE", 0) != 0;
	c->cumem = stub_env_int("NCCL_CUMEM_ENABLE", 1) != 0;
	r = stub_rank_open(c);
	if (!r) {
		sh->rank[rank].dev = c->dev;
		sh->rank[rank].nvml = c->nvml;
		sh->rank[rank].busid = c->busid;
		stub_info(c->dev, "[Rank %d] ncclCommInitRank comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
			  rank, (void *)c, rank, nranks, c->dev, c->nvml,
			  c->busid, (unsigned long long)sh->rank[0].pid << 32 | nranks);
	} else {
		__atomic_store_n(&sh->failed, 1, __ATOMIC_SEQ_CST);
	}
	if (!meet(sh, &sh->joined) && !r)
		r = ncclRemoteError;
	if (rank == 0 && getenv("NCCL_P2P_DISABLE"))
		stub_info(c->dev, "NCCL_P2P_DISABLE set by environment to %d",
			  c->p2p_disable);
	if (!r)
		r = mp_connect(c);
	if (r) {
		mp_free(c);
		return r;
	}
	stub_info(c->dev, "ncclCommInitRank comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE",
		  (void *)c, rank, nranks, c->dev, c->nvml, c->busid,
		  (unsigned long long)sh->rank[0].pid << 32 | nranks);
	*comm = c;
	return ncclSuccess;
}

static void unmap(struct ncclComm *c, CUdeviceptr p, CUmemGenericAllocationHandle h,
		  int own)
{
	if (!p)
		return;
	if (!c->cumem) {
		if (own)
			cu.MemFree(p);
		else
			cu.IpcCloseMemHandle(p);
		return;
	}
	cu.MemUnmap(p, MP_MEM);
	cu.MemAddressFree(p, MP_MEM);
	cu.MemRelease(h);
}

void mp_free(struct ncclComm *c)
{
	int ch;

	if (c->ctx) {
		cu.CtxSetCurrent(c->ctx);
		for (ch = 0; ch < MAX_CHANNELS; ch++) {
			struct conn *s = &c->conn[ch], *k = &c->rconn[ch];

			unmap(c, s->recv_peer, s->recv_h, 0);
			unmap(c, k->send_peer, k->send_h, 0);
			unmap(c, k->recv_own, k->recv_h, 1);
			unmap(c, s->send_own, s->send_h, 1);
			if (k->staging)
				cu.MemFree(k->staging);
			if (s->flag)
				cu.MemFree(s->flag);
		}
	}
	stub_rank_close(c);
	mp_leave(c->mp);
	free(c);
}

/* A slot to the next rank: data, then the tail; posted once synced. */
static ncclResult_t mp_send(struct ncclComm *c, int ch, size_t off,
			    size_t bytes)
{
	struct mp_shared *sh = c->mp;
	struct conn *s = &c->conn[ch];
	unsigned int step = ++s->step, head, slot = (step - 1) % STEPS;
	unsigned char *shm = sh->shm[c->rank][ch];
	int nx = next_of(c);

	/* a free slot: the next rank's head, once it has written it */
	while (step > STEPS && posted(&sh->rank[nx].consumed[ch]) < step - STEPS)
		usleep(20);
	if (s->transport == T_SHM) {
		if (CUCHECK(c, MemcpyDtoH(shm + slot * SLICE, c->work + off,
					  bytes)))
			return ncclUnhandledCudaError;
		memcpy(shm + MP_TAIL, &step, sizeof(step));
		__atomic_store_n(&sh->rank[c->rank].sent[ch], step,
				 __ATOMIC_SEQ_CST);
		return ncclSuccess;
	}
	memcpy(&head, HOST(s->send_own + MP_HEAD), sizeof(head));
	if (step > STEPS && head < step - STEPS)
		wait_forever(c);	/* written and synced, not there */
	memcpy(HOST(s->flag), &step, sizeof(step));
	if (stub_copy(c, (s->read ? s->send_own : s->recv_peer) + slot * SLICE,
		      c->work + off, bytes) ||
	    stub_copy(c, s->recv_peer + MP_TAIL, s->flag, 4) || rank_sync(c))
		return ncclUnhandledCudaError;
	__atomic_store_n(&sh->rank[c->rank].sent[ch], step, __ATOMIC_SEQ_CST);
	return ncclSuccess;
}

/* A slot from the previous rank, added to or put in the work buffer. */
static ncclResult_t mp_recv(struct ncclComm *c, int ch, size_t off,
			    size_t bytes, int gather)
{
	struct mp_shared *sh = c->mp;
	struct conn *k = &c->rconn[ch];
	unsigned int step = ++k->step, tail, slot = (step - 1) % STEPS;
	int pv = prev_of(c);
	const unsigned char *shm = sh->shm[pv][ch], *data;

	while (posted(&sh->rank[pv].sent[ch]) < step)
		usleep(20);		/* a sender that hangs: for ever */
	if (k->transport == T_SHM) {
		if (CUCHECK(c, MemcpyHtoD(k->staging, shm + slot * SLICE, bytes)) ||
		    CUCHECK(c, CtxSynchronize()))
			return ncclUnhandledCudaError;
		data = HOST(k->staging);
	} else {
		memcpy(&tail, HOST(k->recv_own + MP_TAIL), sizeof(tail));
		if (tail < step)
			wait_forever(c);
		if (!k->read) {
			data = HOST(k->recv_own + slot * SLICE);
		} else {
			if (stub_copy(c, k->staging, k->send_peer + slot * SLICE,
				      bytes) || rank_sync(c))
				return ncclUnhandledCudaError;
			data = HOST(k->staging);
		}
	}
	if (gather)
		memcpy(HOST(c->work) + off, data, bytes);
	else
		reduce(HOST(c->work) + off, data, bytes / type_size(c->type),
		       c->type, c->op);
	if (k->transport == T_P2P) {
		memcpy(HOST(k->staging + SLICE), &step, sizeof(step));
		if (stub_copy(c, k->send_peer + MP_HEAD, k->staging + SLICE, 4) ||
		    rank_sync(c))
			return ncclUnhandledCudaError;
	}
	__atomic_store_n(&sh->rank[c->rank].consumed[ch], step,
			 __ATOMIC_SEQ_CST);
	return ncclSuccess;
}

/* This rank's part of the ring all-reduce (allreduce.c's, one rank). */
ncclResult_t mp_allreduce(struct ncclComm *c)
{
	int n = c->nranks, es = type_size(c->type), pv = prev_of(c);
	int g, s, ch, ks, kr;
	size_t bytes = c->count * es, ss, sl, rs, rl, off, most;
	ncclResult_t e;

	cu.CtxSetCurrent(c->ctx);
	e = work_alloc(c, bytes);
	if (!e)
		e = CUCHECK(c, CtxSynchronize());
	if (e)
		return c->async = e;
	memcpy(HOST(c->work), c->sendbuff, bytes);
	for (g = 0; g < 2 && !e; g++) {
		for (s = 0; s < n - 1 && !e; s++)
			for (ch = 0; ch < c->nch && !e; ch++) {
				ks = ((g ? c->rank + 1 : c->rank) - s + 2 * n) % n;
				kr = ((g ? pv + 1 : pv) - s + 2 * n) % n;
				ring_chunk(c->nch, n, ch, ks, c->count, &ss, &sl);
				ring_chunk(c->nch, n, ch, kr, c->count, &rs, &rl);
				most = sl > rl ? sl : rl;
				for (off = 0; off < most * es && !e; off += SLICE) {
					if (off < sl * es)
						e = mp_send(c, ch, ss * es + off,
							    sl * es - off > SLICE ? SLICE : sl * es - off);
					if (!e && off < rl * es)
						e = mp_recv(c, ch, rs * es + off,
							    rl * es - off > SLICE ? SLICE : rl * es - off, g);
				}
			}
		if (!g && c->op == ncclAvg)
			for (ch = 0; ch < c->nch; ch++) {
				ring_chunk(c->nch, n, ch, (c->rank + 1) % n, c->count,
					   &ss, &sl);
				divide(HOST(c->work) + ss * es, sl, c->type, n);
			}
	}
	if (!e)
		e = rank_sync(c);
	if (e)
		return c->async = e;
	memcpy(c->recvbuff, HOST(c->work), bytes);
	return ncclSuccess;
}

/* ncclGetUniqueId's rendezvous file: @path, for @nranks unknown yet. */
int mp_create(char *path, size_t len, unsigned long long n)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, len, "%s/p2pmap-nccl-%d-%llu", dir && *dir ? dir : "/tmp",
		 getpid(), n);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, sizeof(struct mp_shared))) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * A rank comes to @path: its pid registered; once all have come, are
 * they in one process (the threads' path) or one a process?  NULL:
 * failed.
 */
struct mp_shared *mp_join(const char *path, int nranks, int rank,
			  int *same_pid)
{
	struct mp_shared *sh;
	int fd = open(path, O_RDWR | O_CLOEXEC), i, zero = 0;

	sh = fd < 0 ? MAP_FAILED : mmap(NULL, sizeof(*sh),
					PROT_READ | PROT_WRITE, MAP_SHARED,
					fd, 0);
	if (fd >= 0)
		close(fd);
	if (sh == MAP_FAILED)
		return NULL;
	/* the first to come sets the file up */
	if (__atomic_compare_exchange_n(&sh->nranks, &zero, nranks, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		__atomic_store_n(&sh->magic, MP_MAGIC, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&sh->magic, __ATOMIC_SEQ_CST) != MP_MAGIC)
		usleep(100);
	if (sh->nranks != nranks || sh->rank[rank].pid) {
		munmap(sh, sizeof(*sh));
		return NULL;
	}
	sh->rank[rank].pid = getpid();
	for (i = 0; i < nranks; i++)
		while (!__atomic_load_n(&sh->rank[i].pid, __ATOMIC_SEQ_CST))
			usleep(200);
	*same_pid = 0;
	for (i = 0; i < nranks; i++)
		*same_pid += sh->rank[i].pid == getpid();
	if (rank == 0)
		unlink(path);		/* all have it open */
	return sh;
}

void mp_leave(struct mp_shared *sh)
{
	munmap(sh, sizeof(*sh));
}
