// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled against NVIDIA's own nccl.h (from -I, never shipped): every
 * prototype of nccl_api.h redeclares NCCL's, so a type that differs does
 * not compile ("conflicting types"); the enums' values and the id's size
 * must be NCCL's.  Nothing to run: the test is that this compiles.
 */
#include <nccl.h>			/* NVIDIA's */
#include NCCL_STUB_HEADER		/* nccl_api.h, or a mutant */

#define SAME(name, value) _Static_assert(name == value, #name " is not nccl.h's");
NCCL_STUB_RESULTS(SAME)
NCCL_STUB_OPS(SAME)
NCCL_STUB_TYPES(SAME)
#undef SAME
_Static_assert(NCCL_UNIQUE_ID_BYTES == NCCL_STUB_UNIQUE_ID_BYTES &&
	       sizeof(ncclUniqueId) == NCCL_STUB_UNIQUE_ID_BYTES,
	       "ncclUniqueId is not nccl.h's");
_Static_assert(sizeof(ncclRedOp_t) == sizeof(int), "ncclRedOp_t is an int");

int main(void)
{
	return 0;
}
