/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlopen("libnccl.so.2"): the few entry points "p2pmap verify
 * --collective" calls, in a child only (collective.c).  NCCL is never a
 * build dependency: the types are declared here, as NVIDIA's nccl.h
 * (NVIDIA/nccl src/nccl.h.in, release v2.30.7-1; unchanged for these
 * calls since 2.19) lays them out, like cuda_types.h does for cuda.h.
 * Enums are C enums there, unsigned int here (GCC's type for an enum
 * without negative values; ncclRedOp_t is an int-sized enum too).
 * tests/nccl-stub/nccl_api.h cites the same release and is compiled
 * against NVIDIA's header by tests/nccl-stub/run.sh.
 */
#ifndef P2PMAP_NCCL_LIB_H
#define P2PMAP_NCCL_LIB_H

#include <stddef.h>

#include "cuda.h"

#define NCCL_LIB	"libnccl.so.2"
/* The library to load, when --nccl does not name one. */
#define NCCL_LIB_ENV	"P2PMAP_NCCL"

typedef unsigned int nccl_result_t;		/* ncclResult_t */
typedef struct ncclComm *nccl_comm_t;		/* ncclComm_t */

#define NCCL_SUCCESS_	0u			/* ncclSuccess */
#define NCCL_FLOAT32_	7u			/* ncclFloat32 */
#define NCCL_SUM_	0u			/* ncclSum */

/* X(field, symbol, return type, arguments) */
#define NCCL_SYMBOLS(X)							\
	X(GetVersion, ncclGetVersion, nccl_result_t, (int *version))	\
	X(GetErrorString, ncclGetErrorString, const char *,		\
	  (nccl_result_t result))					\
	X(CommInitAll, ncclCommInitAll, nccl_result_t,			\
	  (nccl_comm_t *comm, int ndev, const int *devlist))		\
	X(GroupStart, ncclGroupStart, nccl_result_t, (void))		\
	X(GroupEnd, ncclGroupEnd, nccl_result_t, (void))		\
	X(AllReduce, ncclAllReduce, nccl_result_t,			\
	  (const void *sendbuff, void *recvbuff, size_t count,		\
	   unsigned int datatype, unsigned int op, nccl_comm_t comm,	\
	   CUstream stream))						\
	X(CommGetAsyncError, ncclCommGetAsyncError, nccl_result_t,	\
	  (nccl_comm_t comm, nccl_result_t *asyncError))		\
	X(CommDestroy, ncclCommDestroy, nccl_result_t, (nccl_comm_t comm)) \
	X(CommAbort, ncclCommAbort, nccl_result_t, (nccl_comm_t comm))

struct nccl_api {
	void *handle;
#define NCCL_FN_FIELD(field, sym, ret, args) ret (*field) args;
	NCCL_SYMBOLS(NCCL_FN_FIELD)
#undef NCCL_FN_FIELD
};

enum nccl_load_status {
	NCCL_LOAD_OK,
	NCCL_LOAD_NOT_FOUND,		/* no such file on the path given */
	NCCL_LOAD_BROKEN,		/* there, but dlopen() failed */
	NCCL_LOAD_NO_SYMBOL,		/* an entry point is missing */
};

/*
 * Load @path, or NCCL_LIB through the library path when NULL.  @err says
 * why on failure.
 */
enum nccl_load_status nccl_load(struct nccl_api *api, const char *path,
				 char *err, size_t len);
void nccl_unload(struct nccl_api *api);
/* The file the loader really took (realpath), or @path/NCCL_LIB. */
void nccl_library_path(const struct nccl_api *api, char *buf, size_t len);

#endif /* P2PMAP_NCCL_LIB_H */
