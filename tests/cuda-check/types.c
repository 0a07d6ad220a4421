// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled against NVIDIA's own cuda.h: every function pointer of
 * struct cuda_api (user/verify/cuda.h) must have exactly the type that
 * cuda.h declares for the symbol it is loaded from, the fallbacks too.
 * Nothing to run: the test is that this compiles.
 */
#include <cuda.h>			/* NVIDIA's, from -I */

#define P2PMAP_CUDA_REAL_HEADER
#include P2PMAP_CUDA_HEADER		/* user/verify/cuda.h, or a mutant */

#define SAME_TYPE(field, sym, args)					\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(((struct cuda_api *)0)->field),		\
		__typeof__(&sym)),					\
		"struct cuda_api." #field " is not cuda.h's " #sym);
CUDA_SYMBOLS(SAME_TYPE)
#undef SAME_TYPE

#define SAME_FALLBACK(field, sym)					\
	_Static_assert(__builtin_types_compatible_p(			\
		__typeof__(((struct cuda_api *)0)->field),		\
		__typeof__(&sym)),					\
		"struct cuda_api." #field " is not cuda.h's " #sym);
CUDA_FALLBACKS(SAME_FALLBACK)
#undef SAME_FALLBACK

/* The codes verify compares results with. */
_Static_assert(CUDA_SUCCESS_ == CUDA_SUCCESS, "CUDA_SUCCESS");
_Static_assert(CUDA_ERR_NO_DEVICE == CUDA_ERROR_NO_DEVICE, "NO_DEVICE");
_Static_assert(CUDA_ERR_PEER_ACCESS_UNSUPPORTED ==
	       CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "PEER_ACCESS_UNSUPPORTED");
_Static_assert(CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED ==
	       CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
	       "PEER_ACCESS_ALREADY_ENABLED");
_Static_assert(sizeof(CUresult) == sizeof(int), "CUresult is an int");
/* The flags and enum values the paths pass (verify_paths.c). */
_Static_assert(CUDA_ERR_NOT_READY == CUDA_ERROR_NOT_READY, "NOT_READY");
_Static_assert(CUDA_ERR_ILLEGAL_ADDRESS == CUDA_ERROR_ILLEGAL_ADDRESS,
	       "ILLEGAL_ADDRESS");
_Static_assert(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS_ ==
	       CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, "LAZY_ENABLE_PEER_ACCESS");
_Static_assert(CU_MEM_ALLOCATION_TYPE_PINNED_ == CU_MEM_ALLOCATION_TYPE_PINNED,
	       "ALLOCATION_TYPE_PINNED");
_Static_assert(CU_MEM_HANDLE_TYPE_POSIX_FD_ ==
	       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	       "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
_Static_assert(CU_MEM_LOCATION_TYPE_DEVICE_ == CU_MEM_LOCATION_TYPE_DEVICE,
	       "LOCATION_TYPE_DEVICE");
_Static_assert(CU_MEM_ACCESS_FLAGS_PROT_READWRITE_ ==
	       CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "PROT_READWRITE");
_Static_assert(CU_MEM_ALLOC_GRANULARITY_MINIMUM_ ==
	       CU_MEM_ALLOC_GRANULARITY_MINIMUM, "GRANULARITY_MINIMUM");

int main(void)
{
	return 0;
}
