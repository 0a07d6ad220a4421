// SPDX-License-Identifier: GPL-2.0
/*
 * Loads a libcuda (argv[1], NVIDIA's stub library in the test) through
 * verify's own cuda_load(): every entry point must resolve by the name
 * verify uses.  Prints the names, one per line, for the test to compare.
 */
#include <stdio.h>

#include "cuda.h"

int main(int argc, char **argv)
{
	struct cuda_api api;
	char err[512];
	int rc;

	if (argc == 2 && argv[1][0] == '-') {
#define NAME(field, sym, args) puts(#sym);
		CUDA_SYMBOLS(NAME)
#undef NAME
		return 0;
	}
	if (argc != 2)
		return 2;
	rc = cuda_load(&api, argv[1], err, sizeof(err));
	if (rc) {
		fprintf(stderr, "cuda_load: %d: %s\n", rc, err);
		return 1;
	}
	cuda_unload(&api);
	return 0;
}
