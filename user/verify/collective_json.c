// SPDX-License-Identifier: GPL-2.0
/*
 * "p2pmap verify --collective --json": the text's facts as one document
 * (Documentation/JSON.md, verify --collective), written once every group
 * is done, as verify's own document is.
 */
#include <stdlib.h>
#include <string.h>

#include "collective_result.h"
#include "json.h"
#include "verify_paths.h"

static void json_gpu_pair(struct json *j, const struct coll_group *g, int a,
			  int b)
{
	json_key(j, "from");
	json_u64(j, g->gpu[a]->index);
	json_key(j, "to");
	json_u64(j, g->gpu[b]->index);
	json_key(j, "from_pci");
	json_str(j, g->gpu[a]->pci);
	json_key(j, "to_pci");
	json_str(j, g->gpu[b]->pci);
}

/* "2.30.7" from ncclGetVersion's 23007 (2.8 and before: 2807). */
static void json_nccl(struct json *j, const struct coll_report *r)
{
	int v = r->version, major = v >= 10000 ? v / 10000 : v / 1000;
	int minor = v >= 10000 ? v % 10000 / 100 : v % 1000 / 100;
	char s[32];

	snprintf(s, sizeof(s), "%d.%d.%d", major, minor, v % 100);
	json_key(j, "nccl");
	json_obj_begin(j);
	json_key(j, "library");
	json_str(j, r->lib);
	json_key(j, "version");
	json_str(j, s);
	json_key(j, "version_code");
	json_s64(j, v);
	json_key(j, "found");
	json_str(j, r->found);
	json_obj_end(j);
}

static void json_env(struct json *j, const char *name, const char *v)
{
	json_key(j, name);
	json_str(j, v);
}

/* Each arm's settings, as its children get them (collective.c). */
static void json_arms(struct json *j)
{
	const char *level = getenv("NCCL_P2P_LEVEL");

	json_key(j, "arms");
	json_arr_begin(j);
	json_obj_begin(j);
	json_key(j, "arm");
	json_str(j, coll_arm_name(COLL_ARM_P2P));
	json_key(j, "env");
	json_obj_begin(j);
	json_env(j, "NCCL_P2P_DISABLE", NULL);
	json_env(j, "NCCL_P2P_LEVEL", level ? level : "SYS");
	json_env(j, "NCCL_CUMEM_ENABLE", getenv("NCCL_CUMEM_ENABLE"));
	json_env(j, "NCCL_RUN_DIAGNOSTICS", "1");
	json_obj_end(j);
	json_key(j, "faults_path");
	json_str(j, verify_path_name(coll_p2p_path()));
	json_obj_end(j);
	json_obj_begin(j);
	json_key(j, "arm");
	json_str(j, coll_arm_name(COLL_ARM_CONTROL));
	json_key(j, "env");
	json_obj_begin(j);
	json_env(j, "NCCL_P2P_DISABLE", "1");
	json_obj_end(j);
	json_key(j, "faults_path");
	json_null(j);
	json_obj_end(j);
	json_arr_end(j);
}

/* The transports, "P2P/CUMEM,SHM/direct/direct", as an array. */
static void json_transports(struct json *j, const char *s)
{
	char name[96];
	size_t len;

	json_key(j, "transports");
	json_arr_begin(j);
	while (*s) {
		len = strcspn(s, ",");
		snprintf(name, sizeof(name), "%.*s", (int)len, s);
		json_str(j, name);
		s += len + (s[len] == ',');
	}
	json_arr_end(j);
}

static void json_diag(struct json *j, const struct coll_group *g,
		      const struct coll_one *one)
{
	unsigned int i;

	json_key(j, "diagnostics");
	if (!one->diag_ran && !one->ndiag) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "failures");
	json_arr_begin(j);
	for (i = 0; i < one->ndiag; i++) {
		json_obj_begin(j);
		json_key(j, "from_rank");
		json_s64(j, one->diag[i].src);
		json_key(j, "to_rank");
		json_s64(j, one->diag[i].dst);
		if (one->diag[i].src >= 0 && one->diag[i].dst >= 0 &&
		    one->diag[i].src < g->n && one->diag[i].dst < g->n)
			json_gpu_pair(j, g, one->diag[i].src, one->diag[i].dst);
		json_key(j, "check");
		json_str(j, one->diag[i].check);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void json_run(struct json *j, const struct coll_group *g,
		     enum coll_arm arm, size_t s)
{
	const struct coll_one *one = &g->run[arm][s];
	const struct coll_child *c = &one->child;
	double bus = coll_bus_gbps(one, coll_sizes[s], g->n);

	json_obj_begin(j);
	json_key(j, "arm");
	json_str(j, coll_arm_name(arm));
	json_key(j, "size");
	json_u64(j, coll_sizes[s]);
	json_key(j, "result");
	json_enum(j, coll_outcome_name(one->outcome));
	json_key(j, "call");
	json_str(j, one->outcome == COLL_FAILED ? c->call : NULL);
	json_key(j, "code");
	if (one->outcome == COLL_FAILED)
		json_s64(j, c->code);
	else
		json_null(j);
	json_key(j, "error");
	json_str(j, one->outcome == COLL_FAILED ? c->error :
		 one->outcome == COLL_DIED ? one->why : NULL);
	json_key(j, "first_wrong");
	if (one->outcome == COLL_WRONG) {
		json_obj_begin(j);
		json_key(j, "rank");
		json_s64(j, c->bad_rank);
		json_key(j, "element");
		json_u64(j, c->bad_index);
		json_key(j, "got");
		json_double_or_null(j, true, c->got);
		json_key(j, "want");
		json_double_or_null(j, true, c->want);
		json_obj_end(j);
	} else {
		json_null(j);
	}
	json_transports(j, one->transports);
	json_key(j, "time_ms");
	json_double_or_null(j, bus > 0, c->ms);
	json_key(j, "bus_gbps");
	json_double_or_null(j, bus > 0, bus);
	json_diag(j, g, one);
	json_obj_end(j);
}

/* The directions the verdict names, else the pair, as the text says. */
static void json_blame(struct json *j, const struct coll_group *g)
{
	struct coll_blame *b = calloc(COLL_MAX_BLAME, sizeof(*b));
	size_t i, n = b ? coll_blame(g, b) : 0;

	json_key(j, "blame");
	if (g->verdict != COLL_P2P_BROKEN) {
		json_null(j);
		free(b);
		return;
	}
	json_obj_begin(j);
	json_key(j, "directions");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		json_obj_begin(j);
		json_gpu_pair(j, g, b[i].from, b[i].to);
		json_key(j, "by");
		json_str(j, b[i].check ? "diagnostics" : "faults");
		json_key_u64_or_null(j, "faults", !b[i].check, b[i].faults);
		json_key(j, "check");
		json_str(j, b[i].check);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "pair");
	json_bool(j, !n && g->n == 2);
	json_obj_end(j);
	free(b);
}

/* The P2P arm's counter growth, every direction of the group. */
static void json_faults(struct json *j, const struct coll_group *g)
{
	int a, b;

	json_key(j, "faults_known");
	json_bool(j, g->faults_known);
	json_key(j, "faults");
	json_arr_begin(j);
	for (a = 0; a < g->n; a++) {
		for (b = 0; b < g->n; b++) {
			if (a == b)
				continue;
			json_obj_begin(j);
			json_gpu_pair(j, g, a, b);
			json_key_u64_or_null(j, "grew", g->faults_known,
					     g->grew[a][b]);
			json_obj_end(j);
		}
	}
	json_arr_end(j);
}

static void json_group(struct json *j, const struct coll_group *g)
{
	int a, arm;
	size_t s;

	json_obj_begin(j);
	json_key(j, "gpus");
	json_arr_begin(j);
	for (a = 0; a < g->n; a++) {
		json_obj_begin(j);
		json_key(j, "gpu");
		json_u64(j, g->gpu[a]->index);
		json_key(j, "pci");
		json_str(j, g->gpu[a]->pci);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "verdict");
	json_enum(j, coll_verdict_name(g->verdict));
	json_blame(j, g);
	json_faults(j, g);
	json_key(j, "runs");
	json_arr_begin(j);
	for (arm = 0; arm < COLL_NR_ARMS; arm++)
		for (s = 0; s < COLL_NR_SIZES; s++)
			json_run(j, g, arm, s);
	json_arr_end(j);
	json_obj_end(j);
}

void coll_json(FILE *f, const struct coll_report *r)
{
	size_t i, working = 0;
	struct json j;

	json_init(&j, f);
	json_doc_begin(&j);
	json_nccl(&j, r);
	json_key(&j, "timeout_s");
	json_u64(&j, r->timeout);
	json_arms(&j);
	json_key(&j, "groups");
	json_arr_begin(&j);
	for (i = 0; i < r->n; i++) {
		json_group(&j, &r->g[i]);
		working += r->g[i].verdict == COLL_WORKS;
	}
	json_arr_end(&j);
	json_key(&j, "summary");
	json_obj_begin(&j);
	json_key(&j, "groups");
	json_u64(&j, r->n);
	json_key(&j, "working");
	json_u64(&j, working);
	json_obj_end(&j);
	json_obj_end(&j);
	fputc('\n', f);
}

void coll_json_failure(FILE *f, const char *error, int code)
{
	json_failure_doc(f, error, code, "groups");
}
