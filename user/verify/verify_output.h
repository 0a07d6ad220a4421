/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify_output: reads back what "p2pmap verify" printed, one line per
 * direction: "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): works[ ...]", and
 * with --bandwidth "bandwidth GPU0 (...) -> GPU1 (...): ...", flagged
 * "STAGED through host memory" when its copies went through the host.  nccl-check and
 * env judge against it.
 */
#ifndef P2PMAP_VERIFY_OUTPUT_H
#define P2PMAP_VERIFY_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "objects.h"
#include "verify_paths.h"

#define VERIFY_OUTPUT_MAX 4096

struct verify_line {
	char from[P2PMAP_ADDR_LEN], to[P2PMAP_ADDR_LEN];
	int from_gpu, to_gpu;		/* the GPUn labels */
	char what[32];			/* "works", "faulted", ... */
	char detail[256];		/* the rest of the line, or "" */
	bool looks_staged;		/* --bandwidth flagged it */
	/*
	 * The lines under it when verify's paths disagreed or some were
	 * not run ("  paths: copy works, sm works, ipc faulted, cumem
	 * works", "  works for: NCCL; not for: vLLM, SGLang"); without
	 * them every path verify ran said @what.
	 */
	bool has_paths;
	char path_what[VERIFY_NR_PATHS][32];	/* "" where not run */
	int fw[VERIFY_NR_FW];		/* 1 works, 0 not, -1 not tested */
};

struct verify_output {
	bool paths_all;			/* its summary: every path ran */
	size_t n;
	struct verify_line v[VERIFY_OUTPUT_MAX];
};

/* Appends FILE's verdicts to @vr; -errno when it cannot be read. */
int verify_output_read(const char *path, struct verify_output *vr);

/*
 * Does @v work for framework @fw: 1, 0, or -1 when verify did not test
 * the paths it uses (or is older than its paths: no way to tell).
 */
int verify_line_fw(const struct verify_line *v, enum verify_fw fw);

/* Path @p's verdict on @v: "works", ..., or NULL when unknown. */
const char *verify_line_path(const struct verify_line *v, enum verify_path p);

/* The verdict for @from -> @to (PCI addresses), or NULL. */
const struct verify_line *verify_output_find(const struct verify_output *vr,
						const char *from,
						const char *to);

#endif
