/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few CUDA driver API entry points "p2pmap verify" needs, loaded with
 * dlopen("libcuda.so.1") at run time: no CUDA headers, no build or package
 * dependency.  Types as the driver API defines them (cuda.h): CUresult is
 * an int, CUdevice an int, CUcontext and CUstream pointers, CUdeviceptr a
 * 64-bit integer.  Where a _v2 entry point exists it is the one looked up
 * (the plain names are the legacy ones).  tests/cuda-check compiles this
 * table against NVIDIA's own cuda.h, where one is installed, and resolves
 * it in NVIDIA's stub library.
 */
#ifndef P2PMAP_CUDA_H
#define P2PMAP_CUDA_H

#include <stdbool.h>
#include <stddef.h>

#ifndef P2PMAP_CUDA_REAL_HEADER	/* tests/cuda-check has NVIDIA's types */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct CUuuid_st {
	char bytes[16];
} CUuuid;
#include "cuda_types.h"
#endif

#define CUDA_SUCCESS_				0
#define CU_STREAM_NON_BLOCKING			0x1
#define CUDA_ERR_NO_DEVICE			100
#define CUDA_ERR_PEER_ACCESS_UNSUPPORTED	217
#define CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED	704
#define CUDA_ERR_ILLEGAL_ADDRESS		700
#define CUDA_ERR_NOT_READY			600
#define CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS_	0x1
#define CU_MEM_ALLOCATION_TYPE_PINNED_		0x1
#define CU_MEM_HANDLE_TYPE_POSIX_FD_		0x1
#define CU_MEM_LOCATION_TYPE_DEVICE_		0x1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE_	0x3
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM_	0x0

/*
 * The entry points: X(field, symbol, arguments), in the order cuda_load()
 * looks them up.  The symbol is the exported name, as an identifier so
 * that the type check can name NVIDIA's declaration of it.
 */
#define CUDA_SYMBOLS(X)							\
	X(Init, cuInit, (unsigned int flags))				\
	X(DeviceGetCount, cuDeviceGetCount, (int *count))		\
	X(DeviceGet, cuDeviceGet, (CUdevice *dev, int ordinal))		\
	X(DeviceGetPCIBusId, cuDeviceGetPCIBusId,			\
	  (char *buf, int len, CUdevice dev))				\
	X(DeviceGetUuid, cuDeviceGetUuid_v2, (CUuuid *uuid, CUdevice dev)) \
	X(DevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain,		\
	  (CUcontext *ctx, CUdevice dev))				\
	X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2,	\
	  (CUdevice dev))						\
	X(CtxSetCurrent, cuCtxSetCurrent, (CUcontext ctx))		\
	X(DeviceCanAccessPeer, cuDeviceCanAccessPeer,			\
	  (int *can, CUdevice dev, CUdevice peer))			\
	X(CtxEnablePeerAccess, cuCtxEnablePeerAccess,			\
	  (CUcontext peer, unsigned int flags))				\
	X(CtxDisablePeerAccess, cuCtxDisablePeerAccess, (CUcontext peer)) \
	X(StreamCreate, cuStreamCreate,					\
	  (CUstream *stream, unsigned int flags))			\
	X(StreamDestroy, cuStreamDestroy_v2, (CUstream stream))		\
	X(StreamSynchronize, cuStreamSynchronize, (CUstream stream))	\
	X(MemAlloc, cuMemAlloc_v2, (CUdeviceptr *dptr, size_t size))	\
	X(MemFree, cuMemFree_v2, (CUdeviceptr dptr))			\
	X(MemcpyHtoD, cuMemcpyHtoD_v2,					\
	  (CUdeviceptr dst, const void *src, size_t size))		\
	X(MemcpyDtoH, cuMemcpyDtoH_v2,					\
	  (void *dst, CUdeviceptr src, size_t size))			\
	X(MemcpyPeerAsync, cuMemcpyPeerAsync,				\
	  (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,		\
	   CUcontext src_ctx, size_t size, CUstream stream))		\
	X(CtxSynchronize, cuCtxSynchronize, (void))			\
	X(EventCreate, cuEventCreate, (CUevent *ev, unsigned int flags)) \
	X(EventRecord, cuEventRecord, (CUevent ev, CUstream stream))	\
	X(EventSynchronize, cuEventSynchronize, (CUevent ev))		\
	X(EventQuery, cuEventQuery, (CUevent ev))			\
	X(EventElapsedTime, cuEventElapsedTime_v2,			\
	  (float *ms, CUevent start, CUevent end))			\
	X(EventDestroy, cuEventDestroy_v2, (CUevent ev))		\
	X(GetErrorName, cuGetErrorName, (CUresult err, const char **str)) \
	X(GetErrorString, cuGetErrorString,				\
	  (CUresult err, const char **str))				\
	CUDA_PATH_SYMBOLS(X)

/*
 * The other paths (verify_paths.h): a kernel loaded from PTX, CUDA IPC
 * handles, cuMem allocations shared as file descriptors.
 */
#define CUDA_PATH_SYMBOLS(X)						\
	X(ModuleLoadData, cuModuleLoadData,				\
	  (CUmodule *module, const void *image))			\
	X(ModuleGetFunction, cuModuleGetFunction,			\
	  (CUfunction *fn, CUmodule module, const char *name))		\
	X(ModuleUnload, cuModuleUnload, (CUmodule module))		\
	X(LaunchKernel, cuLaunchKernel,					\
	  (CUfunction f, unsigned int gx, unsigned int gy,		\
	   unsigned int gz, unsigned int bx, unsigned int by,		\
	   unsigned int bz, unsigned int shared, CUstream stream,	\
	   void **params, void **extra))				\
	X(IpcGetMemHandle, cuIpcGetMemHandle,				\
	  (CUipcMemHandle *handle, CUdeviceptr dptr))			\
	X(IpcOpenMemHandle, cuIpcOpenMemHandle_v2,			\
	  (CUdeviceptr *dptr, CUipcMemHandle handle, unsigned int flags)) \
	X(IpcCloseMemHandle, cuIpcCloseMemHandle, (CUdeviceptr dptr))	\
	X(MemGetAllocationGranularity, cuMemGetAllocationGranularity,	\
	  (size_t *granularity, const CUmemAllocationProp *prop,	\
	   CUmemAllocationGranularity_flags option))			\
	X(MemCreate, cuMemCreate,					\
	  (CUmemGenericAllocationHandle *handle, size_t size,		\
	   const CUmemAllocationProp *prop, unsigned long long flags))	\
	X(MemRelease, cuMemRelease, (CUmemGenericAllocationHandle handle)) \
	X(MemExportToShareableHandle, cuMemExportToShareableHandle,	\
	  (void *shareable, CUmemGenericAllocationHandle handle,	\
	   CUmemAllocationHandleType type, unsigned long long flags))	\
	X(MemImportFromShareableHandle, cuMemImportFromShareableHandle,	\
	  (CUmemGenericAllocationHandle *handle, void *shareable,	\
	   CUmemAllocationHandleType type))				\
	X(MemAddressReserve, cuMemAddressReserve,			\
	  (CUdeviceptr *ptr, size_t size, size_t alignment,		\
	   CUdeviceptr addr, unsigned long long flags))			\
	X(MemAddressFree, cuMemAddressFree, (CUdeviceptr ptr, size_t size)) \
	X(MemMap, cuMemMap,						\
	  (CUdeviceptr ptr, size_t size, size_t offset,			\
	   CUmemGenericAllocationHandle handle, unsigned long long flags)) \
	X(MemUnmap, cuMemUnmap, (CUdeviceptr ptr, size_t size))	\
	X(MemSetAccess, cuMemSetAccess,					\
	  (CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,	\
	   size_t count))

/*
 * Older drivers lack cuDevicePrimaryCtxRelease_v2, cuDeviceGetUuid_v2
 * (before 11.4) and cuEventElapsedTime_v2 (before 12.8): the legacy entry
 * points (same arguments) stand in for them.
 */
#define CUDA_FALLBACKS(X)						\
	X(DevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease)		\
	X(EventElapsedTime, cuEventElapsedTime)				\
	X(DeviceGetUuid, cuDeviceGetUuid)

#define CUDA_FN_MEMBER(field, sym, args) CUresult (*field) args;

struct cuda_api {
	void *handle;
	CUDA_SYMBOLS(CUDA_FN_MEMBER)
};

#undef CUDA_FN_MEMBER

#define CUDA_LIB	"libcuda.so.1"

enum cuda_load_error {
	CUDA_LOAD_OK = 0,
	CUDA_LOAD_NOT_FOUND = -1,	/* no such library on the path */
	CUDA_LOAD_BROKEN = -2,		/* found, but dlopen() failed */
	CUDA_LOAD_NO_SYMBOL = -3,	/* loaded, an entry point missing */
};

/*
 * dlopen(@path, or CUDA_LIB when NULL) and look every entry point up.
 * Returns an enum cuda_load_error; @err says what failed (dlerror()).
 */
int cuda_load(struct cuda_api *api, const char *path, char *err, size_t len);
void cuda_unload(struct cuda_api *api);
/* The file the loaded library really is (symlinks resolved), in @buf. */
void cuda_library_path(const struct cuda_api *api, char *buf, size_t len);

/*
 * "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was
 * encountered", from cuGetErrorName and cuGetErrorString; the number
 * alone where the driver has no name for it.
 */
void cuda_describe(const struct cuda_api *api, CUresult res, char *buf,
		   size_t len);

/* Where a run keeps the first CUDA call that failed. */
struct cuda_first_error {
	char *call;			/* its name; "" while none failed */
	size_t call_len;
	CUresult *code;
	char *text;			/* cuda_describe() of it */
	size_t text_len;
};

/* The slot of any result with cuda_call, cuda_code and cuda_error fields. */
#define CUDA_FIRST_ERROR(r) {						\
	(r)->cuda_call, sizeof((r)->cuda_call), &(r)->cuda_code,	\
	(r)->cuda_error, sizeof((r)->cuda_error),			\
}

/* True when @res failed; the first failure is kept in @fe. */
bool cuda_failed(const struct cuda_api *api, const struct cuda_first_error *fe,
		 const char *call, CUresult res);

/*
 * In a child of verify: cuda_load(), or false with "dlopen" and the
 * reason kept in @fe.
 */
bool cuda_child_load(struct cuda_api *api, const struct cuda_first_error *fe);

#endif /* P2PMAP_CUDA_H */
