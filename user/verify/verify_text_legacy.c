// SPDX-License-Identifier: GPL-2.0
/*
 * Reading back "p2pmap verify"'s human text (verify_text_legacy.h): for
 * files saved before env and nccl-check read its --json document.  Do not
 * follow changes of the text here; the JSON document is the interface.
 */
#include <stdio.h>
#include <string.h>

#include "verify_text_legacy.h"

/*
 * "works", "faulted [write: ...]": the verdict is the words before any
 * " (" or " ["; the rest is its detail.
 */
static void verdict_set(struct verify_line *v, const char *rest)
{
	size_t len = strcspn(rest, "\n");
	const char *paren = strstr(rest, " ("), *brack = strstr(rest, " [");
	const char *cut = paren && (!brack || paren < brack) ? paren : brack;

	if (cut && (size_t)(cut - rest) < len) {
		snprintf(v->detail, sizeof(v->detail), "%.*s",
			 (int)(len - (cut + 1 - rest)), cut + 1);
		len = cut - rest;
	}
	snprintf(v->what, sizeof(v->what), "%.*s", (int)len, rest);
}

/*
 * "GPU0 (A) -> GPU1 (B): ...: STAGED through host memory (...)": marks
 * A -> B's verdict.  An older verify's ": LOOKS STAGED" judged from
 * throughput alone, which a slow direct direction also shows: not taken.
 */
static void bandwidth_line(struct verify_output *vr, const char *line)
{
	char from[P2PMAP_ADDR_LEN], to[P2PMAP_ADDR_LEN];
	size_t i;

	if (sscanf(line, "GPU%*d (%16[^)]) -> GPU%*d (%16[^)]): ", from,
		   to) != 2 || !strstr(line, ": STAGED through host memory"))
		return;
	for (i = 0; i < vr->n; i++)
		if (!strcmp(vr->v[i].from, from) && !strcmp(vr->v[i].to, to))
			vr->v[i].looks_staged = true;
}

/* "  paths: copy works, sm works, ipc wrong data, cumem works" */
static void paths_line(struct verify_line *v, const char *s)
{
	char name[16];
	size_t len;
	int p, n;

	v->has_paths = true;
	while (*s == ' ')
		s++;
	while (*s && *s != '\n') {
		len = strcspn(s, ",\n");
		if (sscanf(s, "%15s %n", name, &n) == 1 && (size_t)n < len) {
			p = verify_path_parse(name);
			if (p >= 0)
				snprintf(v->path_what[p], sizeof(v->path_what[p]),
					 "%.*s", (int)(len - n), s + n);
		}
		s += len;
		s += strspn(s, ", ");
	}
}

/* "  works for: NCCL; not for: vLLM, SGLang; not tested for: ..." */
static void frameworks_line(struct verify_line *v, const char *s)
{
	static const char * const heads[] = {
		"not tested for: ", "not for: ", "works for: ",
	};
	static const int says[] = { -1, 0, 1 };
	size_t len, k;
	int h, fw;

	while (*s && *s != '\n') {
		s += strspn(s, " ;");
		for (h = 0; h < 3; h++)
			if (!strncmp(s, heads[h], strlen(heads[h])))
				break;
		if (h == 3)
			return;
		s += strlen(heads[h]);
		len = strcspn(s, ";\n");
		for (fw = 0; fw < VERIFY_NR_FW; fw++) {
			k = strlen(verify_fw_name(fw));
			const char *at = strstr(s, verify_fw_name(fw));

			if (at && at < s + len &&
			    (at[k] == ',' || at[k] == ';' || at[k] == '\n' ||
			     !at[k]))
				v->fw[fw] = says[h];
		}
		s += len;
	}
}

void verify_text_legacy_read(FILE *f, struct verify_output *vr)
{
	struct verify_line *v;
	char line[1024];
	bool paths_all = false;		/* its summary: every path ran */
	const char *rest;
	size_t i;
	int p;

	while (fgets(line, sizeof(line), f) && vr->n < VERIFY_OUTPUT_MAX) {
		if (!strncmp(line, "bandwidth ", 10)) {
			bandwidth_line(vr, line + 10);
			continue;
		}
		/* The lines under a direction's (verify_paths.h). */
		if (vr->n && !strncmp(line, "  paths:", 8)) {
			paths_line(&vr->v[vr->n - 1], line + 8);
			continue;
		}
		if (vr->n && !strncmp(line, "  ", 2) && vr->v[vr->n - 1].has_paths) {
			frameworks_line(&vr->v[vr->n - 1], line + 2);
			continue;
		}
		/* "verify: 12 directions, 11 work on every path (...)" */
		if (!strncmp(line, "verify: ", 8) &&
		    strstr(line, " work on every path (")) {
			paths_all = true;
			continue;
		}
		v = &vr->v[vr->n];
		memset(v, 0, sizeof(*v));
		if (sscanf(line, "GPU%d (%16[^)]) -> GPU%d (%16[^)]): ",
			   &v->from_gpu, v->from, &v->to_gpu, v->to) != 4)
			continue;
		rest = strstr(line, "): ");
		if (!rest)
			continue;
		verdict_set(v, rest + 3);
		if (v->what[0])
			vr->n++;
	}
	/* Every path ran: a direction without lines said one verdict. */
	for (i = 0; paths_all && i < vr->n; i++) {
		v = &vr->v[i];
		if (v->has_paths)
			continue;
		v->has_paths = true;
		for (p = 0; p < VERIFY_NR_PATHS; p++)
			snprintf(v->path_what[p], sizeof(v->path_what[p]), "%s",
				 v->what);
		for (p = 0; p < VERIFY_NR_FW; p++)
			v->fw[p] = !strcmp(v->what, "works");
	}
}

