/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver API's types for the paths beyond the copy engine, laid out
 * as NVIDIA's cuda.h lays them out (CUDA 12 and 13: the _v1 structs).
 * Enums are C enums there, unsigned int here (GCC's type for an enum
 * without negative values).  tests/cuda-check/types.c compares every
 * size and offset with NVIDIA's header; included by cuda.h only when
 * that header is not.
 */
#ifndef P2PMAP_CUDA_TYPES_H
#define P2PMAP_CUDA_TYPES_H

typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef unsigned int CUmemAllocationHandleType;
typedef unsigned int CUmemAllocationGranularity_flags;

typedef struct CUipcMemHandle_st {
	char reserved[64];			/* CU_IPC_HANDLE_SIZE */
} CUipcMemHandle;

typedef struct CUmemLocation_st {
	unsigned int type;			/* CUmemLocationType */
	int id;
} CUmemLocation;

typedef struct CUmemAllocationProp_st {
	unsigned int type;			/* CUmemAllocationType */
	CUmemAllocationHandleType requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp;

typedef struct CUmemAccessDesc_st {
	CUmemLocation location;
	unsigned int flags;			/* CUmemAccess_flags */
} CUmemAccessDesc;

#endif /* P2PMAP_CUDA_TYPES_H */
