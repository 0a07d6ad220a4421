/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few CUDA driver API entry points "p2pmap verify" needs, loaded with
 * dlopen("libcuda.so.1") at run time: no CUDA headers, no build or package
 * dependency.  Types as the driver API defines them (cuda.h): CUresult is
 * an int, CUdevice an int, CUcontext a pointer, CUdeviceptr a 64-bit
 * integer.  Where a _v2 entry point exists it is the one looked up (the
 * plain names are the legacy 32-bit ones).
 */
#ifndef P2PMAP_CUDA_H
#define P2PMAP_CUDA_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS				0
#define CUDA_ERROR_NO_DEVICE			100
#define CUDA_ERROR_PEER_ACCESS_UNSUPPORTED	217
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED	704
#define CUDA_ERROR_PEER_ACCESS_NOT_ENABLED	705

/* The entry points, in the order cuda_load() looks them up. */
#define CUDA_SYMBOLS(X)							\
	X(Init, "cuInit", (unsigned int flags))				\
	X(DeviceGetCount, "cuDeviceGetCount", (int *count))		\
	X(DeviceGet, "cuDeviceGet", (CUdevice *dev, int ordinal))	\
	X(DeviceGetPCIBusId, "cuDeviceGetPCIBusId",			\
	  (char *buf, int len, CUdevice dev))				\
	X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",		\
	  (CUcontext *ctx, CUdevice dev))				\
	X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",	\
	  (CUdevice dev))						\
	X(CtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))		\
	X(DeviceCanAccessPeer, "cuDeviceCanAccessPeer",			\
	  (int *can, CUdevice dev, CUdevice peer))			\
	X(CtxEnablePeerAccess, "cuCtxEnablePeerAccess",			\
	  (CUcontext peer, unsigned int flags))				\
	X(MemAlloc, "cuMemAlloc_v2", (CUdeviceptr *dptr, size_t size))	\
	X(MemFree, "cuMemFree_v2", (CUdeviceptr dptr))			\
	X(MemcpyHtoD, "cuMemcpyHtoD_v2",				\
	  (CUdeviceptr dst, const void *src, size_t size))		\
	X(MemcpyDtoH, "cuMemcpyDtoH_v2",				\
	  (void *dst, CUdeviceptr src, size_t size))			\
	X(MemcpyPeer, "cuMemcpyPeer",					\
	  (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,		\
	   CUcontext src_ctx, size_t size))				\
	X(CtxSynchronize, "cuCtxSynchronize", (void))			\
	X(GetErrorString, "cuGetErrorString",				\
	  (CUresult err, const char **str))

#define CUDA_FN_MEMBER(field, sym, args) CUresult (*field) args;

struct cuda_api {
	void *handle;
	CUDA_SYMBOLS(CUDA_FN_MEMBER)
};

#undef CUDA_FN_MEMBER

#define CUDA_LIB	"libcuda.so.1"

/*
 * dlopen(CUDA_LIB) and look every entry point up.  Returns 0; -1 when the
 * library cannot be loaded, -2 when it lacks an entry point; @err says
 * which (dlerror()).
 */
int cuda_load(struct cuda_api *api, char *err, size_t len);
void cuda_unload(struct cuda_api *api);

/* cuGetErrorString's text, or "unknown error" when it has none. */
const char *cuda_strerror(const struct cuda_api *api, CUresult res);

#endif /* P2PMAP_CUDA_H */
