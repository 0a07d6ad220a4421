/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of NCCL's API the stand-in libnccl.so.2 has, as NCCL's
 * published header declares it (NVIDIA/nccl src/nccl.h.in, release
 * v2.30.7-1; unchanged for these calls since 2.19).  Written here, not
 * copied: the values and prototypes are the interface, nothing else.
 * tests/nccl-stub/api-check.c compiles these prototypes against NVIDIA's
 * own nccl.h where one is installed (the enums' values too), so a
 * difference is a build failure, not a surprise on a real host.
 *
 * With NVIDIA's header included first (NCCL_H_ is its guard) only the
 * prototypes are declared here: a redeclaration of another type does not
 * compile.
 */
#ifndef P2PMAP_NCCL_API_H
#define P2PMAP_NCCL_API_H

#include <stddef.h>

#define NCCL_STUB_UNIQUE_ID_BYTES	128

/* X(name, value): ncclResult_t, ncclRedOp_t, ncclDataType_t. */
#define NCCL_STUB_RESULTS(X)						\
	X(ncclSuccess, 0) X(ncclUnhandledCudaError, 1)			\
	X(ncclSystemError, 2) X(ncclInternalError, 3)			\
	X(ncclInvalidArgument, 4) X(ncclInvalidUsage, 5)		\
	X(ncclRemoteError, 6) X(ncclInProgress, 7) X(ncclNumResults, 8)
#define NCCL_STUB_OPS(X)						\
	X(ncclSum, 0) X(ncclProd, 1) X(ncclMax, 2) X(ncclMin, 3)	\
	X(ncclAvg, 4) X(ncclNumOps, 5)
#define NCCL_STUB_TYPES(X)						\
	X(ncclInt8, 0) X(ncclChar, 0) X(ncclUint8, 1) X(ncclInt32, 2)	\
	X(ncclInt, 2) X(ncclUint32, 3) X(ncclInt64, 4) X(ncclUint64, 5)	\
	X(ncclFloat16, 6) X(ncclHalf, 6) X(ncclFloat32, 7)		\
	X(ncclFloat, 7) X(ncclFloat64, 8) X(ncclDouble, 8)		\
	X(ncclBfloat16, 9) X(ncclFloat8e4m3, 10) X(ncclFloat8e5m2, 11)	\
	X(ncclNumTypes, 12)

#ifndef NCCL_H_
#define NCCL_STUB_ENUMERATOR(name, value) name = value,
typedef enum { NCCL_STUB_RESULTS(NCCL_STUB_ENUMERATOR) } ncclResult_t;
/* nccl.h sizes ncclRedOp_t with ncclMaxRedOp = INT_MAX: an int. */
typedef enum { NCCL_STUB_OPS(NCCL_STUB_ENUMERATOR)
	       ncclMaxRedOp = 0x7fffffff } ncclRedOp_t;
typedef enum { NCCL_STUB_TYPES(NCCL_STUB_ENUMERATOR) } ncclDataType_t;
#undef NCCL_STUB_ENUMERATOR

typedef struct ncclComm *ncclComm_t;
typedef struct {
	char internal[NCCL_STUB_UNIQUE_ID_BYTES];
} ncclUniqueId;
/* cuda_runtime.h's cudaStream_t is the driver's CUstream. */
typedef struct CUstream_st *cudaStream_t;
#endif

/*
 * X(name, return type, arguments): every entry point the stand-in
 * exports (run.sh checks the library exports exactly these).
 */
#define NCCL_STUB_SYMBOLS(X)						\
	X(ncclGetVersion, ncclResult_t, (int *version))			\
	X(ncclGetUniqueId, ncclResult_t, (ncclUniqueId *uniqueId))	\
	X(ncclCommInitRank, ncclResult_t,				\
	  (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)) \
	X(ncclCommInitAll, ncclResult_t,				\
	  (ncclComm_t *comm, int ndev, const int *devlist))		\
	X(ncclCommFinalize, ncclResult_t, (ncclComm_t comm))		\
	X(ncclCommDestroy, ncclResult_t, (ncclComm_t comm))		\
	X(ncclCommAbort, ncclResult_t, (ncclComm_t comm))		\
	X(ncclGetErrorString, const char *, (ncclResult_t result))	\
	X(ncclGetLastError, const char *, (ncclComm_t comm))		\
	X(ncclCommGetAsyncError, ncclResult_t,				\
	  (ncclComm_t comm, ncclResult_t *asyncError))			\
	X(ncclCommCount, ncclResult_t, (const ncclComm_t comm, int *count)) \
	X(ncclCommCuDevice, ncclResult_t,				\
	  (const ncclComm_t comm, int *device))				\
	X(ncclCommUserRank, ncclResult_t, (const ncclComm_t comm, int *rank)) \
	X(ncclAllReduce, ncclResult_t,					\
	  (const void *sendbuff, void *recvbuff, size_t count,		\
	   ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,	\
	   cudaStream_t stream))					\
	X(ncclGroupStart, ncclResult_t, (void))				\
	X(ncclGroupEnd, ncclResult_t, (void))

#define NCCL_STUB_PROTOTYPE(name, ret, args) ret name args;
NCCL_STUB_SYMBOLS(NCCL_STUB_PROTOTYPE)
#undef NCCL_STUB_PROTOTYPE

#endif /* P2PMAP_NCCL_API_H */
