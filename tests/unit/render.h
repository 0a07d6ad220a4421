/* SPDX-License-Identifier: GPL-2.0 */
/* Capturing what a formatter writes, for the unit tests that compare it. */
#ifndef P2PMAP_RENDER_H
#define P2PMAP_RENDER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"

/* Run @call with FILE *f on a memstream; @out gets what it wrote. */
#define RENDER(out, call) do {						\
	size_t len_ = 0;						\
	FILE *f = open_memstream(&(out), &len_);			\
									\
	call;								\
	fclose(f);							\
} while (0)

/* One test: what @call writes is exactly @want. */
#define RENDER_CHECK(want, desc, call) do {				\
	char *buf_ = NULL;						\
									\
	RENDER(buf_, call);						\
	if (!tap_ok(!strcmp(buf_, (want)), "%s", (desc)))		\
		printf("# got:\n%s# want:\n%s", buf_, (want));		\
	free(buf_);							\
} while (0)

#endif /* P2PMAP_RENDER_H */
