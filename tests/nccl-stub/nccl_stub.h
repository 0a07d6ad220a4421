/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stand-in libnccl.so.2's insides (see comm.c for what it is).  The
 * sources it follows are NVIDIA/nccl at release v2.30.7-1, each named
 * where it is used.
 */
#ifndef P2PMAP_NCCL_STUB_H
#define P2PMAP_NCCL_STUB_H

#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>

#include "cuda.h"			/* user/verify: the driver, dlopen()ed */
#include "nccl_api.h"

#define EXPORT __attribute__((visibility("default")))

/* The release whose behaviour the stand-in follows, and its CUDA. */
#define STUB_NCCL_MAJOR		2
#define STUB_NCCL_MINOR		30
#define STUB_NCCL_PATCH		7
#define STUB_NCCL_CUDA		"13.0"

#define MAX_RANKS	16
#define MAX_CHANNELS	4
/*
 * NCCL's SIMPLE buffer is NCCL_BUFFSIZE (4 MiB) in NCCL_STEPS (8) slots
 * (src/include/device.h, src/init.cc): one slot a step, 512 KiB.
 */
#define SLICE		(512u << 10)
#define TAIL_OFF	SLICE		/* the tail word after the slot */
#define HEAD_OFF	(SLICE + 64)	/* the head word in ncclSendMem */
/* Slots a sender may fill before it waits for the head (NCCL_STEPS). */
#define STEPS		8
#define MEM_SIZE	(2ul << 20)	/* one cuMem granule holds both */

/* How a connection's data move: NCCL's transports. */
enum { T_P2P, T_SHM };

/*
 * One ring connection, a rank to the next, as src/transport/p2p.cc sets
 * it up: the receiver's memory (ncclRecvMem: the tail, and the slot
 * when writing) and the sender's (ncclSendMem: the slot when reading),
 * each seen by its owner and mapped by the other side.
 */
struct conn {
	int transport, read, cumem;
	CUdeviceptr recv_own, recv_peer;	/* receiver's, sender's view */
	CUdeviceptr send_own, send_peer;	/* sender's, receiver's view */
	CUmemGenericAllocationHandle recv_h, send_h;
	CUdeviceptr staging;		/* receiver's: what it read, then
					 * at SLICE the head's new value */
	CUdeviceptr flag;		/* sender's: the tail's new value */
	unsigned int step;		/* the tail's last value */
	unsigned char *shm;		/* SHM: the host buffer */
};

struct clique;

/* One rank: what ncclComm_t points at. */
struct ncclComm {
	struct clique *cq;
	int rank, nranks, dev, nvml;
	unsigned long busid;		/* NCCL's number: 0000:01:00.0 = 1000 */
	CUcontext ctx;
	CUstream stream;		/* its own */
	CUstream run;			/* the caller's, else its own */
	CUmodule mod;
	CUfunction copy;
	CUdeviceptr work;
	size_t work_size;
	struct conn conn[MAX_CHANNELS];	/* to the next rank */
	ncclResult_t async;		/* sticky, ncclCommGetAsyncError */
	/* A rank in a process of its own: mp.c. */
	struct mp_shared *mp;
	struct conn rconn[MAX_CHANNELS];	/* from the previous rank */
	int nch, p2p_disable, cumem;
	char last_error[256];
	/* A collective posted and not yet run. */
	int posted;
	const void *sendbuff;
	void *recvbuff;
	size_t count;
	ncclDataType_t type;
	ncclRedOp_t op;
};

/* The ranks of one communicator: they meet here (ncclCommInitRank). */
struct clique {
	unsigned long long id;		/* the unique id's hash: commId */
	int nranks, joined, nch, p2p_disable, cumem;
	struct ncclComm *rank[MAX_RANKS];
	unsigned long done;		/* collectives run */
	struct clique *next;
};

extern struct cuda_api cu;
extern pthread_mutex_t stub_lock;
extern pthread_cond_t stub_cond;

/* debug.c: NCCL_DEBUG=INFO and WARN lines as src/debug.cc prints them. */
void stub_info(int dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void stub_warn(struct ncclComm *c, const char *file, int line,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define WARN(c, ...) stub_warn(c, __FILE__, __LINE__, __VA_ARGS__)
int stub_env_int(const char *name, int def);

/* comm.c: a rank's device, context, stream and kernel. */
ncclResult_t stub_rank_open(struct ncclComm *c);
void stub_rank_close(struct ncclComm *c);

/* comm.c: the driver, once. */
ncclResult_t stub_cuda(void);
ncclResult_t stub_cuda_check(struct ncclComm *c, CUresult r,
			     const char *call);
#define CUCHECK(c, call) stub_cuda_check(c, cu.call, #call)

/* transport.c: connections, and a slice along one. */
ncclResult_t conn_setup(struct ncclComm *from, struct ncclComm *to, int ch);
void conn_free(struct ncclComm *from, struct ncclComm *to, int ch);
ncclResult_t conn_send(struct ncclComm *from, struct ncclComm *to, int ch,
		       size_t off, size_t bytes);
ncclResult_t conn_recv(struct ncclComm *from, struct ncclComm *to, int ch,
		       size_t bytes, const unsigned char **data);
ncclResult_t rank_sync(struct ncclComm *c);
ncclResult_t stub_copy(struct ncclComm *c, CUdeviceptr dst, CUdeviceptr src,
		       size_t bytes);
/* A tail or head that never comes: NCCL spins for ever. */
void wait_forever(struct ncclComm *c) __attribute__((noreturn));

/* mp.c: ranks in processes of their own (ncclCommInitRank). */
struct mp_shared;
int mp_create(char *path, size_t len, unsigned long long n);
struct mp_shared *mp_join(const char *path, int nranks, int rank,
			  int *same_pid);
void mp_leave(struct mp_shared *sh);
ncclResult_t mp_init(struct ncclComm **comm, int nranks,
		     struct mp_shared *sh, int rank);
ncclResult_t mp_allreduce(struct ncclComm *c);
void mp_free(struct ncclComm *c);
void ring_chunk(int nch, int nranks, int ch, int k, size_t count,
		size_t *start, size_t *len);

/* reduce.c: element arithmetic. */
int type_size(ncclDataType_t t);
void reduce(void *dst, const void *src, size_t count, ncclDataType_t t,
	    ncclRedOp_t op);
void divide(void *dst, size_t count, ncclDataType_t t, int n);

/* allreduce.c */
ncclResult_t work_alloc(struct ncclComm *c, size_t bytes);
ncclResult_t run_allreduce(struct clique *cq);

#endif /* P2PMAP_NCCL_STUB_H */
