// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libnccl.so.2 for p2pmap's tests, over the stand-in libcuda
 * (tests/cuda-stub), which it reaches as NCCL does, through the CUDA
 * driver API of whatever "libcuda.so.1" the loader finds: so every rule
 * of the stand-in libcuda (P2PMAP_CUDA_STUB: fault, hang, wrong, refuse,
 * noenable, per path and direction) bears on the collectives as the real
 * driver's faults bear on NCCL's.  What it follows, from NVIDIA/nccl at
 * release v2.30.7-1:
 *  - communicators: ncclCommInitAll (one process, its devices, src/init.cc)
 *    and ncclCommInitRank with ncclGetUniqueId's id, its ranks threads
 *    of one process (as InitAll's) or one process each (mp.c);
 *  - the ring all-reduce: reduce-scatter then all-gather around the ranks
 *    in order on every channel (src/device/all_reduce.h), through the
 *    P2P transport (src/transport/p2p.cc: the receiver's buffer written
 *    by the sender's kernels, or read by the receiver's with
 *    NCCL_P2P_READ_ENABLE=1; cuMem or cudaMalloc memory as
 *    NCCL_CUMEM_ENABLE says) or, with NCCL_P2P_DISABLE=1 or no peer
 *    access, through host memory (src/transport/shm.cc);
 *  - no timeout: a tail that never arrives is waited for forever.
 * Where it is simpler than NCCL it says so beside the code.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_stub.h"

struct cuda_api cu;
pthread_mutex_t stub_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t stub_cond = PTHREAD_COND_INITIALIZER;
static struct clique *cliques;
static unsigned long long id_counter;

/*
 * The driver, loaded and initialised once, whichever rank's thread comes
 * first: the others wait for its outcome (ncclCommInitRank's threads
 * come at once; one that saw "loading" as "failed" left its ring waiting
 * for it for ever).
 */
static int cuda_loaded;		/* 1 ok, -1 failed */

static void cuda_load_once(void)
{
	char err[256];

	cuda_loaded = -1;
	if (cuda_load(&cu, NULL, err, sizeof(err)) != CUDA_LOAD_OK) {
		WARN(NULL, "Failed to load CUDA driver: %s", err);
		return;
	}
	if (stub_cuda_check(NULL, cu.Init(0), "cuInit"))
		return;
	cuda_loaded = 1;
	stub_info(0, "NCCL version %d.%d.%d+cuda%s", STUB_NCCL_MAJOR,
		  STUB_NCCL_MINOR, STUB_NCCL_PATCH, STUB_NCCL_CUDA);
}

ncclResult_t stub_cuda(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, cuda_load_once);
	return cuda_loaded > 0 ? ncclSuccess : ncclUnhandledCudaError;
}

/* NCCL's CUCHECK: "Cuda failure N 'text'", ncclUnhandledCudaError. */
ncclResult_t stub_cuda_check(struct ncclComm *c, CUresult r, const char *call)
{
	const char *s = NULL;

	if (!r)
		return ncclSuccess;
	if (cu.GetErrorString)
		cu.GetErrorString(r, &s);
	WARN(c, "Cuda failure %d '%s' (%s)", r, s ? s : "unknown error",
	     call);
	return ncclUnhandledCudaError;
}

EXPORT ncclResult_t ncclGetVersion(int *version)
{
	if (!version)
		return ncclInvalidArgument;
	/* NCCL_VERSION(X, Y, Z) from 2.9: X * 10000 + Y * 100 + Z */
	*version = STUB_NCCL_MAJOR * 10000 + STUB_NCCL_MINOR * 100 +
		   STUB_NCCL_PATCH;
	return ncclSuccess;
}

EXPORT const char *ncclGetErrorString(ncclResult_t r)
{
	/* src/init.cc's ncclGetErrorString, by code */
	switch (r) {
	case ncclSuccess: return "no error";
	case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
	case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError: return "remote process exited or there was a network error";
	case ncclInProgress: return "NCCL operation in progress";
	default: return "unknown result code";
	}
}

EXPORT const char *ncclGetLastError(ncclComm_t comm)
{
	return comm ? comm->last_error : "";
}

/*
 * The id: a magic, this process, a counter, and the file where the ranks
 * meet (mp.c).  NCCL's holds its bootstrap root's socket address.
 */
struct stub_id {
	unsigned int magic;
	int pid;
	unsigned long long n;
	char path[NCCL_STUB_UNIQUE_ID_BYTES - 16];
};
_Static_assert(sizeof(struct stub_id) == NCCL_STUB_UNIQUE_ID_BYTES, "an id");
#define ID_MAGIC	0x6e63636cu	/* "nccl" */

/*
 * No CUDA here: a process that makes the id and then forks its ranks
 * (which the stand-in libcuda's fork guard would fail) works.
 */
EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	struct stub_id s = { ID_MAGIC, getpid(), 0, "" };

	if (!id)
		return ncclInvalidArgument;
	pthread_mutex_lock(&stub_lock);
	s.n = ++id_counter;
	pthread_mutex_unlock(&stub_lock);
	if (mp_create(s.path, sizeof(s.path), s.n)) {
		WARN(NULL, "stand-in: cannot create %s: %m", s.path);
		return ncclSystemError;
	}
	memcpy(id->internal, &s, sizeof(s));
	return ncclSuccess;
}

/* One rank's device: context, stream, the copy kernel. */
static const char copy_ptx[] =
	".version 7.0\n.target sm_52\n.address_size 64\n"
	".visible .entry p2pmap_copy_u32(\n.param .u64 d,\n.param .u64 s,\n"
	".param .u64 n\n)\n{\nret;\n}\n";

ncclResult_t stub_rank_open(struct ncclComm *c)
{
	char bus[32];
	unsigned int dom, b, d, f;
	int n, i;
	CUdevice dev;

	if (CUCHECK(c, DeviceGet(&dev, c->dev)) ||
	    CUCHECK(c, DevicePrimaryCtxRetain(&c->ctx, dev)) ||
	    CUCHECK(c, CtxSetCurrent(c->ctx)) ||
	    CUCHECK(c, StreamCreate(&c->stream, CU_STREAM_NON_BLOCKING)) ||
	    CUCHECK(c, ModuleLoadData(&c->mod, copy_ptx)) ||
	    CUCHECK(c, ModuleGetFunction(&c->copy, c->mod, "p2pmap_copy_u32")) ||
	    CUCHECK(c, DeviceGetPCIBusId(bus, sizeof(bus), dev)))
		return ncclUnhandledCudaError;
	c->run = c->stream;
	sscanf(bus, "%x:%x:%x.%x", &dom, &b, &d, &f);
	c->busid = (unsigned long)dom << 20 | b << 12 | d << 4 | f;
	/* NVML numbers the GPUs in PCI order: count those before ours. */
	c->nvml = 0;
	if (!cu.DeviceGetCount(&n))
		for (i = 0; i < n; i++) {
			char o[32];

			if (!cu.DeviceGetPCIBusId(o, sizeof(o), i) &&
			    strcasecmp(o, bus) < 0)
				c->nvml++;
		}
	return ncclSuccess;
}

void stub_rank_close(struct ncclComm *c)
{
	if (!c->ctx)
		return;
	cu.CtxSetCurrent(c->ctx);
	if (c->work)
		cu.MemFree(c->work);
	if (c->mod)
		cu.ModuleUnload(c->mod);
	if (c->stream)
		cu.StreamDestroy(c->stream);
	cu.DevicePrimaryCtxRelease(c->dev);
	c->ctx = NULL;
}

/* Ranks, channels, connections: src/init.cc's initTransportsRank. */
static ncclResult_t clique_setup(struct clique *cq, const char *fn)
{
	struct ncclComm *c;
	ncclResult_t r;
	char ring[3 * MAX_RANKS + 1];
	int i, ch, n = 0;

	for (i = 0; i < cq->nranks; i++) {
		c = cq->rank[i];
		r = stub_rank_open(c);
		if (r)
			return r;
		stub_info(c->dev, "[Rank %d] %s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START",
			  i, fn, (void *)c, i, cq->nranks, c->dev, c->nvml,
			  c->busid, cq->id);
	}
	if (getenv("NCCL_P2P_DISABLE"))
		stub_info(cq->rank[0]->dev, "NCCL_P2P_DISABLE set by environment to %d",
			  cq->p2p_disable);
	for (i = 0; i < cq->nranks; i++)
		n += snprintf(ring + n, sizeof(ring) - n, " %d", i);
	for (ch = 0; ch < cq->nch; ch++)
		stub_info(cq->rank[0]->dev, "Channel %02d/%02d :%s", ch, cq->nch,
			  ring);
	for (ch = 0; ch < cq->nch; ch++)
		for (i = 0; i < cq->nranks; i++) {
			r = conn_setup(cq->rank[i],
				       cq->rank[(i + 1) % cq->nranks], ch);
			if (r)
				return r;
		}
	stub_info(cq->rank[0]->dev, "Connected all rings, use ring PXN 0 GDR 0");
	for (i = 0; i < cq->nranks; i++) {
		c = cq->rank[i];
		stub_info(c->dev, "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE",
			  fn, (void *)c, i, cq->nranks, c->dev, c->nvml,
			  c->busid, cq->id);
	}
	return ncclSuccess;
}

static void clique_free(struct clique *cq)
{
	struct clique **p;
	int i, ch;

	for (ch = 0; ch < cq->nch; ch++)
		for (i = 0; i < cq->nranks; i++)
			if (cq->rank[i] && cq->rank[(i + 1) % cq->nranks])
				conn_free(cq->rank[i],
					  cq->rank[(i + 1) % cq->nranks], ch);
	for (i = 0; i < cq->nranks; i++)
		if (cq->rank[i]) {
			stub_rank_close(cq->rank[i]);
			free(cq->rank[i]);
		}
	for (p = &cliques; *p; p = &(*p)->next)
		if (*p == cq) {
			*p = cq->next;
			break;
		}
	free(cq);
}

static struct clique *clique_new(unsigned long long id, int nranks)
{
	struct clique *cq = calloc(1, sizeof(*cq));
	int min, max;

	if (!cq)
		return NULL;
	cq->id = id;
	cq->nranks = nranks;
	/* Two rings on a PCIe host (tests/nccl's logs); NCCL_{MIN,MAX}_NCHANNELS */
	min = stub_env_int("NCCL_MIN_NCHANNELS", 2);
	max = stub_env_int("NCCL_MAX_NCHANNELS", MAX_CHANNELS);
	cq->nch = min < 1 ? 1 : min > MAX_CHANNELS ? MAX_CHANNELS : min;
	if (cq->nch > max && max >= 1)
		cq->nch = max;
	cq->p2p_disable = stub_env_int("NCCL_P2P_DISABLE", 0) != 0;
	/* cuMem on by default since 2.19 (src/misc/cudawrap.cc) */
	cq->cumem = stub_env_int("NCCL_CUMEM_ENABLE", 1) != 0;
	cq->next = cliques;
	cliques = cq;
	return cq;
}

EXPORT ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev,
				    const int *devlist)
{
	struct clique *cq;
	ncclResult_t r;
	int i, n;

	r = stub_cuda();
	if (r)
		return r;
	if (!comms) {
		WARN(NULL, "CommInitAll : comms argument is NULL");
		return ncclInvalidArgument;
	}
	if (ndev < 1 || ndev > MAX_RANKS) {
		WARN(NULL, "Invalid device count requested : %d", ndev);
		return ncclInvalidArgument;
	}
	if (cu.DeviceGetCount(&n))
		return ncclUnhandledCudaError;
	for (i = 0; i < ndev; i++)
		if ((devlist ? devlist[i] : i) < 0 ||
		    (devlist ? devlist[i] : i) >= n) {
			WARN(NULL, "Invalid device %d (totalnDev=%d)",
			     devlist ? devlist[i] : i, n);
			return ncclInvalidArgument;
		}
	pthread_mutex_lock(&stub_lock);
	cq = clique_new(((unsigned long long)getpid() << 32) ^ ++id_counter,
			ndev);
	r = cq ? ncclSuccess : ncclSystemError;
	for (i = 0; !r && i < ndev; i++) {
		cq->rank[i] = calloc(1, sizeof(struct ncclComm));
		if (!cq->rank[i]) {
			r = ncclSystemError;
			break;
		}
		*cq->rank[i] = (struct ncclComm){
			.cq = cq, .rank = i, .nranks = ndev,
			.dev = devlist ? devlist[i] : i,
		};
	}
	if (!r) {
		cq->joined = ndev;
		r = clique_setup(cq, "ncclCommInitAll");
	}
	if (r && cq)
		clique_free(cq);
	else
		for (i = 0; i < ndev; i++)
			comms[i] = cq->rank[i];
	pthread_mutex_unlock(&stub_lock);
	return r;
}

/*
 * Each rank waits, as NCCL's bootstrap does, until all have come (the id's
 * file, mp.c).  One process a rank: mp.c.  All in this process (threads):
 * they meet again here, and the last sets the communicator up as
 * ncclCommInitAll's.
 */
EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
				     ncclUniqueId id, int rank)
{
	struct stub_id s;
	struct clique *cq;
	struct ncclComm *c;
	struct mp_shared *sh;
	ncclResult_t r;
	unsigned long long key;
	int dev, same;

	r = stub_cuda();
	if (r)
		return r;
	memcpy(&s, id.internal, sizeof(s));
	if (!comm || nranks < 1 || nranks > MAX_RANKS || rank < 0 ||
	    rank >= nranks) {
		WARN(NULL, "Invalid rank requested : %d/%d", rank, nranks);
		return ncclInvalidArgument;
	}
	if (s.magic != ID_MAGIC) {
		WARN(NULL, "stand-in: not a unique id of the stand-in's");
		return ncclInvalidArgument;
	}
	sh = mp_join(s.path, nranks, rank, &same);
	if (!sh) {
		WARN(NULL, "stand-in: rank %d cannot join %s", rank, s.path);
		return ncclSystemError;
	}
	if (same == 1 && nranks > 1)
		return mp_init(comm, nranks, sh, rank);	/* a process a rank */
	mp_leave(sh);
	if (same != nranks) {
		/* The stand-in's limit, not NCCL's. */
		WARN(NULL, "stand-in: ranks are all threads of one process or one a process");
		return ncclInvalidUsage;
	}
	key = ((unsigned long long)s.pid << 32) ^ s.n ^ 1ull << 63;
	pthread_mutex_lock(&stub_lock);
	for (cq = cliques; cq && cq->id != key; cq = cq->next)
		;
	if (!cq)
		cq = clique_new(key, nranks);
	r = !cq ? ncclSystemError :
	    cq->nranks != nranks || cq->rank[rank] ? ncclInvalidUsage :
	    ncclSuccess;
	c = r ? NULL : calloc(1, sizeof(*c));
	if (!r && !c)
		r = ncclSystemError;
	if (r) {
		pthread_mutex_unlock(&stub_lock);
		WARN(NULL, "rank %d: joining the communicator failed", rank);
		return r;
	}
	/*
	 * NCCL takes the thread's current device (cudaSetDevice); the
	 * stand-in, which sees only the driver API, takes device RANK of
	 * those visible: pick GPUs with CUDA_VISIBLE_DEVICES.
	 */
	dev = rank;
	*c = (struct ncclComm){ .cq = cq, .rank = rank, .nranks = nranks,
				.dev = dev };
	cq->rank[rank] = c;
	if (++cq->joined == nranks) {
		r = clique_setup(cq, "ncclCommInitRank");
		cq->joined = r ? -1 : nranks + 1;	/* set up, or failed */
		pthread_cond_broadcast(&stub_cond);
	}
	while (cq->joined > 0 && cq->joined <= nranks)
		pthread_cond_wait(&stub_cond, &stub_lock);
	r = cq->joined < 0 ? ncclSystemError : ncclSuccess;
	pthread_mutex_unlock(&stub_lock);
	*comm = r ? NULL : c;
	return r;
}

/*
 * A rank leaves; the last one frees the communicator's connections and
 * contexts.  NCCL's Destroy waits for the rank's work and Abort does
 * not; here a rank's work is done when its call returns.
 */
static ncclResult_t leave(ncclComm_t comm, const char *fn)
{
	struct clique *cq;
	int i, left = 0;

	if (!comm)
		return ncclInvalidArgument;
	if (comm->mp) {
		stub_info(comm->dev, "comm %p rank %d nRanks %d cudaDev %d busId %lx - %s COMPLETE",
			  (void *)comm, comm->rank, comm->nranks, comm->dev,
			  comm->busid, fn);
		mp_free(comm);
		return ncclSuccess;
	}
	pthread_mutex_lock(&stub_lock);
	cq = comm->cq;
	stub_info(comm->dev, "comm %p rank %d nRanks %d cudaDev %d busId %lx - %s COMPLETE",
		  (void *)comm, comm->rank, comm->nranks, comm->dev,
		  comm->busid, fn);
	comm->nranks = -1;		/* gone */
	for (i = 0; i < cq->nranks; i++)
		left += cq->rank[i] && cq->rank[i]->nranks > 0;
	if (!left)
		clique_free(cq);
	pthread_mutex_unlock(&stub_lock);
	return ncclSuccess;
}

EXPORT ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
	return comm ? ncclSuccess : ncclInvalidArgument;
}

EXPORT ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
	return leave(comm, "Destroy");
}

EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm)
{
	return leave(comm, "Abort");
}
