/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify_output: reads back what "p2pmap verify" printed, one line per
 * direction: "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): works[ ...]", and
 * with --bandwidth "bandwidth GPU0 (...) -> GPU1 (...): ...", flagged
 * "LOOKS STAGED" when its copies went through host memory.  nccl-check and
 * env judge against it.
 */
#ifndef P2PMAP_VERIFY_OUTPUT_H
#define P2PMAP_VERIFY_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "objects.h"

#define VERIFY_OUTPUT_MAX 4096

struct verify_line {
	char from[P2PMAP_ADDR_LEN], to[P2PMAP_ADDR_LEN];
	int from_gpu, to_gpu;		/* the GPUn labels */
	char what[32];			/* "works", "faulted", ... */
	char detail[256];		/* the rest of the line, or "" */
	bool looks_staged;		/* --bandwidth flagged it */
};

struct verify_output {
	size_t n;
	struct verify_line v[VERIFY_OUTPUT_MAX];
};

/* Appends FILE's verdicts to @vr; -errno when it cannot be read. */
int verify_output_read(const char *path, struct verify_output *vr);

/* The verdict for @from -> @to (PCI addresses), or NULL. */
const struct verify_line *verify_output_find(const struct verify_output *vr,
						const char *from,
						const char *to);

#endif
