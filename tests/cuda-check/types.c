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

int main(void)
{
	return 0;
}
