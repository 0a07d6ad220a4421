// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled against NVIDIA's own cuda.h: the structs user/verify/
 * cuda_types.h (or a mutant, P2PMAP_CUDA_TYPES) lays out for verify's
 * paths must have NVIDIA's size and every member at NVIDIA's offset, and
 * the enums NVIDIA's size.  Ours are renamed p2_* to sit next to
 * NVIDIA's.  Nothing to run: the test is that this compiles.
 */
#include <stddef.h>

#include <cuda.h>			/* NVIDIA's, from -I */

#define CUmod_st			p2_CUmod_st
#define CUfunc_st			p2_CUfunc_st
#define CUmodule			p2_CUmodule
#define CUfunction			p2_CUfunction
#define CUmemGenericAllocationHandle	p2_CUmemGenericAllocationHandle
#define CUmemAllocationHandleType	p2_CUmemAllocationHandleType
#define CUmemAllocationGranularity_flags p2_CUmemAllocationGranularity_flags
#define CUipcMemHandle_st		p2_CUipcMemHandle_st
#define CUipcMemHandle			p2_CUipcMemHandle
#define CUmemLocation_st		p2_CUmemLocation_st
#define CUmemLocation			p2_CUmemLocation
#define CUmemAllocationProp_st		p2_CUmemAllocationProp_st
#define CUmemAllocationProp		p2_CUmemAllocationProp
#define CUmemAccessDesc_st		p2_CUmemAccessDesc_st
#define CUmemAccessDesc			p2_CUmemAccessDesc
#include P2PMAP_CUDA_TYPES		/* user/verify/cuda_types.h */
#undef CUmod_st
#undef CUfunc_st
#undef CUmodule
#undef CUfunction
#undef CUmemGenericAllocationHandle
#undef CUmemAllocationHandleType
#undef CUmemAllocationGranularity_flags
#undef CUipcMemHandle_st
#undef CUipcMemHandle
#undef CUmemLocation_st
#undef CUmemLocation
#undef CUmemAllocationProp_st
#undef CUmemAllocationProp
#undef CUmemAccessDesc_st
#undef CUmemAccessDesc

#define SAME_SIZE(t)							\
	_Static_assert(sizeof(p2_##t) == sizeof(t), #t "'s size")
#define SAME_AT(t, m)							\
	_Static_assert(offsetof(p2_##t, m) == offsetof(t, m) &&	\
		       sizeof(((p2_##t *)0)->m) == sizeof(((t *)0)->m),	\
		       #t "." #m)

SAME_SIZE(CUmemGenericAllocationHandle);
SAME_SIZE(CUmemAllocationHandleType);
SAME_SIZE(CUmemAllocationGranularity_flags);
SAME_SIZE(CUipcMemHandle);
SAME_SIZE(CUmemLocation);
SAME_AT(CUmemLocation, type);
SAME_AT(CUmemLocation, id);
SAME_SIZE(CUmemAllocationProp);
SAME_AT(CUmemAllocationProp, type);
SAME_AT(CUmemAllocationProp, requestedHandleTypes);
SAME_AT(CUmemAllocationProp, location);
SAME_AT(CUmemAllocationProp, win32HandleMetaData);
SAME_AT(CUmemAllocationProp, allocFlags);
SAME_AT(CUmemAllocationProp, allocFlags.usage);
SAME_SIZE(CUmemAccessDesc);
SAME_AT(CUmemAccessDesc, location);
SAME_AT(CUmemAccessDesc, flags);

int main(void)
{
	return 0;
}
