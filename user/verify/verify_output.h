/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify_output: what "p2pmap verify" found, read back from a file, per
 * direction; nccl-check and env judge against it.  The file is verify's
 * --json document (verify_json_read.h, JSON.md), or the human text an
 * older setup saved (verify_text_legacy.h): a file whose first non-space
 * character is '{' is JSON.
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
	int from_gpu, to_gpu;		/* the GPUn labels: CUDA ordinals */
	char what[32];			/* "works", "faulted", ...: the text's words */
	char detail[512];		/* what verify says after it, or "" */
	bool looks_staged;		/* --bandwidth found it staged */
	/*
	 * Each path's verdict and each framework's, when verify said them
	 * (the JSON's "paths", the text's lines under a direction); without
	 * them every path verify ran said @what.
	 */
	bool has_paths;
	char path_what[VERIFY_NR_PATHS][32];	/* "" where not run */
	int fw[VERIFY_NR_FW];		/* 1 works, 0 not, -1 not tested */
};

struct verify_output {
	size_t n;
	struct verify_line v[VERIFY_OUTPUT_MAX];
};

/*
 * Appends FILE's verdicts to @vr.  On failure (-errno: unreadable;
 * -EINVAL: a JSON document that is not verify's, or not whole) @err says
 * why and @vr holds nothing: no verdict is taken from a broken document.
 */
int verify_output_read(const char *path, struct verify_output *vr, char *err,
		       size_t errlen);

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

#endif /* P2PMAP_VERIFY_OUTPUT_H */
