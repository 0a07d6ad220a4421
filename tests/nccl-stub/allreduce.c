// SPDX-License-Identifier: GPL-2.0
/*
 * ncclAllReduce, ncclGroupStart/End and the communicator's other calls.
 * The ring all-reduce of NVIDIA/nccl v2.30.7-1 (src/device/all_reduce.h,
 * runRing): on each channel its share of the data in nranks chunks;
 * nranks-1 steps of reduce-scatter (rank r sends chunk r-s to r+1, which
 * adds it to its own), nranks-1 of all-gather; each step's chunk in
 * slices of one buffer slot.  Its copies run on the caller's stream (the
 * rank's own for NULL), so events there time them and a copy that hangs
 * hangs that stream.  Simpler than NCCL: a call returns once the
 * collective is done (NCCL's returns when queued and the wait is the
 * stream's), so a hang is in the call; a rank's own buffers are read and
 * written by the host after its context is synchronized (they are host
 * memory in the stand-in libcuda): only the data between ranks move by
 * the driver, and they are what the rules are about.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "nccl_stub.h"

static __thread int group_depth;
static __thread struct ncclComm *group_ops[MAX_RANKS * 4];
static __thread int group_n;

/* The host's view of the stand-in's device memory. */
#define HOST(p) ((unsigned char *)(uintptr_t)(p))

ncclResult_t work_alloc(struct ncclComm *c, size_t bytes)
{
	if (c->work_size >= bytes + 4)
		return ncclSuccess;
	cu.CtxSetCurrent(c->ctx);
	if (c->work)
		cu.MemFree(c->work);
	c->work = 0;
	c->work_size = 0;
	if (CUCHECK(c, MemAlloc(&c->work, bytes + 4)))
		return ncclUnhandledCudaError;
	c->work_size = bytes + 4;
	return ncclSuccess;
}

/* Elements [*start, *start + *len) of chunk @k of channel @ch. */
void ring_chunk(int nch, int nranks, int ch, int k, size_t count,
		size_t *start, size_t *len)
{
	size_t per_ch = (count + nch - 1) / nch, cs, b, e;

	b = ch * per_ch < count ? ch * per_ch : count;
	e = b + per_ch < count ? b + per_ch : count;
	cs = (e - b + nranks - 1) / nranks;
	*start = b + k * cs < e ? b + k * cs : e;
	*len = (*start + cs < e ? *start + cs : e) - *start;
}

static void chunk(struct clique *cq, int ch, int k, size_t count,
		  size_t *start, size_t *len)
{
	ring_chunk(cq->nch, cq->nranks, ch, k, count, start, len);
}

/* One ring step on channel @ch: each rank's chunk to the next. */
static ncclResult_t step(struct clique *cq, int ch, int s, int gather)
{
	struct ncclComm *c0 = cq->rank[0];
	int n = cq->nranks, es = type_size(c0->type), r;
	size_t start[MAX_RANKS], len[MAX_RANKS], off, pb, most = 0;
	const unsigned char *data;
	ncclResult_t e;

	for (r = 0; r < n; r++) {
		chunk(cq, ch, ((gather ? r + 1 : r) - s + 2 * n) % n, c0->count,
		      &start[r], &len[r]);
		if (len[r] * es > most)
			most = len[r] * es;
	}
	for (off = 0; off < most; off += SLICE) {
		for (r = 0; r < n; r++) {
			pb = len[r] * es > off ? len[r] * es - off : 0;
			pb = pb > SLICE ? SLICE : pb;
			if (pb && (e = conn_send(cq->rank[r], cq->rank[(r + 1) % n],
						 ch, start[r] * es + off, pb)))
				return e;
		}
		for (r = 0; r < n; r++)
			if ((e = rank_sync(cq->rank[r])))
				return e;
		for (r = 0; r < n; r++) {
			struct ncclComm *d = cq->rank[(r + 1) % n];
			unsigned char *dst = HOST(d->work) + start[r] * es + off;

			pb = len[r] * es > off ? len[r] * es - off : 0;
			pb = pb > SLICE ? SLICE : pb;
			if (!pb)
				continue;
			e = conn_recv(cq->rank[r], d, ch, pb, &data);
			if (e)
				return e;
			if (gather)
				memcpy(dst, data, pb);
			else
				reduce(dst, data, pb / es, c0->type, c0->op);
		}
	}
	return ncclSuccess;
}

/* Every rank has posted: the collective, with the stub's lock held. */
ncclResult_t run_allreduce(struct clique *cq)
{
	int n = cq->nranks, r, ch, s, es = type_size(cq->rank[0]->type);
	size_t bytes = cq->rank[0]->count * es, st, len;
	struct ncclComm *c;
	ncclResult_t e = ncclSuccess;

	for (r = 0; r < n && !e; r++) {
		c = cq->rank[r];
		if (c->count != cq->rank[0]->count ||
		    c->type != cq->rank[0]->type || c->op != cq->rank[0]->op) {
			WARN(c, "rank %d: all-reduce arguments differ from rank 0's",
			     r);
			e = ncclInvalidUsage;
			break;
		}
		/* NCCL's kernel runs after the work before it */
		cu.CtxSetCurrent(c->ctx);
		e = work_alloc(c, bytes);
		if (!e)
			e = CUCHECK(c, CtxSynchronize());
		if (!e)
			memcpy(HOST(c->work), c->sendbuff, bytes);
	}
	for (s = 0; s < n - 1 && !e; s++)
		for (ch = 0; ch < cq->nch && !e; ch++)
			e = step(cq, ch, s, 0);
	if (cq->rank[0]->op == ncclAvg)
		for (r = 0; r < n && !e; r++)
			for (ch = 0; ch < cq->nch; ch++) {
				chunk(cq, ch, (r + 1) % n, cq->rank[0]->count,
				      &st, &len);
				divide(HOST(cq->rank[r]->work) + st * es, len,
				       cq->rank[0]->type, n);
			}
	for (s = 0; s < n - 1 && !e; s++)
		for (ch = 0; ch < cq->nch && !e; ch++)
			e = step(cq, ch, s, 1);
	/* the kernel ends when its last writes (the heads) have */
	for (r = 0; r < n && !e; r++)
		e = rank_sync(cq->rank[r]);
	for (r = 0; r < n; r++) {
		c = cq->rank[r];
		if (!e)
			memcpy(c->recvbuff, HOST(c->work), bytes);
		else if (!c->async)
			c->async = e;	/* sticky, as NCCL's */
		c->posted = 0;
	}
	cq->done++;
	pthread_cond_broadcast(&stub_cond);
	return e;
}

/*
 * Post @n ranks' collectives; run each communicator's once all its ranks
 * have posted; wait for ours.  A thread that posts one rank of several
 * and waits for the others (no group) waits for ever, as NCCL's
 * documentation warns.
 */
static ncclResult_t post(struct ncclComm **cs, int n)
{
	ncclResult_t e = ncclSuccess;
	int i, j, all;

	for (i = 0; i < n; i++)		/* a process a rank: its part */
		if (cs[i]->mp && !e)
			e = mp_allreduce(cs[i]);
	pthread_mutex_lock(&stub_lock);
	for (i = 0; i < n; i++)
		cs[i]->posted = !cs[i]->mp;
	for (i = 0; i < n; i++) {
		struct clique *cq = cs[i]->cq;

		if (!cq)
			continue;
		for (all = 1, j = 0; j < cq->nranks; j++)
			all &= cq->rank[j]->posted;
		if (all)
			run_allreduce(cq);
	}
	for (i = 0; i < n; i++) {
		while (cs[i]->posted)
			pthread_cond_wait(&stub_cond, &stub_lock);
		if (!e)
			e = cs[i]->async;
	}
	pthread_mutex_unlock(&stub_lock);
	return e;
}

/* Is @p[0, bytes) memory of @c's device?  src/enqueue.cc's ArgsCheck. */
static int device_buffer(struct ncclComm *c, const void *p, size_t bytes)
{
	unsigned char b;

	cu.CtxSetCurrent(c->ctx);
	return p && !cu.MemcpyDtoH(&b, (CUdeviceptr)(uintptr_t)p, 1) &&
	       !cu.MemcpyDtoH(&b, (CUdeviceptr)(uintptr_t)p + bytes - 1, 1);
}

EXPORT ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff,
				  size_t count, ncclDataType_t type,
				  ncclRedOp_t op, ncclComm_t comm,
				  cudaStream_t stream)
{
	if (!comm) {
		WARN(NULL, "AllReduce : comm argument is NULL");
		return ncclInvalidArgument;
	}
	if (comm->async)
		return comm->async;
	if ((int)type < 0 || type >= ncclNumTypes) {
		WARN(comm, "AllReduce : invalid type %d", type);
		return ncclInvalidArgument;
	}
	if (!type_size(type)) {
		WARN(comm, "AllReduce : type %d is not in the stand-in", type);
		return ncclInvalidArgument;
	}
	if ((int)op < 0 || op >= ncclNumOps) {
		WARN(comm, "AllReduce : invalid reduction operation %d", op);
		return ncclInvalidArgument;
	}
	if (count && (!device_buffer(comm, sendbuff, count * type_size(type)) ||
		      !device_buffer(comm, recvbuff, count * type_size(type)))) {
		WARN(comm, "AllReduce : invalid device pointer");
		return ncclInvalidArgument;
	}
	if (!count)
		return ncclSuccess;
	comm->sendbuff = sendbuff;
	comm->recvbuff = recvbuff;
	comm->count = count;
	comm->type = type;
	comm->op = op;
	comm->run = stream ? stream : comm->stream;
	if (group_depth) {
		if (group_n == (int)(sizeof(group_ops) / sizeof(group_ops[0])))
			return ncclInvalidUsage;
		group_ops[group_n++] = comm;
		return ncclSuccess;
	}
	return post(&comm, 1);
}

EXPORT ncclResult_t ncclGroupStart(void)
{
	group_depth++;
	return ncclSuccess;
}

EXPORT ncclResult_t ncclGroupEnd(void)
{
	int n;

	if (group_depth <= 0) {
		WARN(NULL, "ncclGroupEnd: not in a group call.");
		return ncclInvalidUsage;
	}
	if (--group_depth)
		return ncclSuccess;
	n = group_n;
	group_n = 0;
	return n ? post(group_ops, n) : ncclSuccess;
}

EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm,
					  ncclResult_t *err)
{
	if (!comm || !err)
		return ncclInvalidArgument;
	pthread_mutex_lock(&stub_lock);
	*err = comm->async;
	pthread_mutex_unlock(&stub_lock);
	return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
	if (!comm || !count)
		return ncclInvalidArgument;
	*count = comm->nranks;
	return ncclSuccess;
}

EXPORT ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *dev)
{
	if (!comm || !dev)
		return ncclInvalidArgument;
	*dev = comm->dev;
	return ncclSuccess;
}

EXPORT ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
	if (!comm || !rank)
		return ncclInvalidArgument;
	*rank = comm->rank;
	return ncclSuccess;
}
