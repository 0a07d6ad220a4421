// SPDX-License-Identifier: GPL-2.0
/*
 * "p2pmap verify --collective": the groups, the arms and the sizes, each
 * run a child under the watchdog, and a verdict per group (see
 * collective.h for the design and what is left).
 */
#define _GNU_SOURCE			/* mkdtemp() */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collective.h"
#include "collective_result.h"
#include "isolate.h"
#include "nccl_diag.h"
#include "nccl_lib.h"
#include "nccl_log.h"
#include "nccl_wheel.h"

/* NCCL's logs go to a directory of their own, under $TMPDIR. */
#define COLL_DIR_LEN	256
#define EXIT_NO_NCCL	3		/* cmd.h's EXIT_NO_GPU: no driver */

const size_t coll_sizes[COLL_NR_SIZES] = { 12u << 10, 32u << 20 };

const char *coll_arm_name(enum coll_arm arm)
{
	static const char *const names[COLL_NR_ARMS] = { "p2p", "control" };

	return names[arm];
}

const char *coll_outcome_name(enum coll_outcome o)
{
	static const char *const names[] = {
		[COLL_RIGHT] = "right", [COLL_NOT_RUN] = "not run",
		[COLL_WRONG] = "wrong data", [COLL_FAILED] = "failed",
		[COLL_DIED] = "died", [COLL_HUNG] = "hung",
	};

	return names[o];
}

const char *coll_verdict_name(enum coll_verdict v)
{
	static const char *const names[] = {
		[COLL_WORKS] = "works", [COLL_P2P_BROKEN] = "P2P broken",
		[COLL_NOT_P2P] = "not P2P",
	};

	return names[v];
}

/* The transports NCCL's log says the channels used, each once. */
static void read_transports(const char *path, char *out, size_t len)
{
	struct nccl_log *log = calloc(1, sizeof(*log));
	FILE *f = fopen(path, "r");
	size_t i, used = 0;
	unsigned int t;

	out[0] = '\0';
	if (!log || !f || nccl_log_read(f, log))
		goto out;
	for (i = 0; i < log->npairs; i++) {
		for (t = 0; t < log->pairs[i].ntransports; t++) {
			const char *name = log->pairs[i].transport[t];

			if (strstr(out, name))
				continue;
			used += snprintf(out + used, used < len ? len - used : 0,
					 "%s%s", used ? "," : "", name);
		}
	}
out:
	if (f)
		fclose(f);
	free(log);
}

/* NCCL's own P2P diagnostics, from the child's stdout. */
static void read_diag(const char *path, struct coll_one *one)
{
	struct nccl_diag *d = calloc(1, sizeof(*d));
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned int i;

	if (!d || !f)
		goto out;
	while (fgets(line, sizeof(line), f))
		nccl_diag_line(d, line);
	one->diag_ran = d->ran;
	for (i = 0; i < d->nfails && one->ndiag < COLL_MAX_DIAG; i++) {
		one->diag[one->ndiag].src = d->fails[i].src_rank;
		one->diag[one->ndiag].dst = d->fails[i].dst_rank;
		snprintf(one->diag[one->ndiag].check,
			 sizeof(one->diag[0].check), "%s", d->fails[i].check);
		one->ndiag++;
	}
out:
	if (f)
		fclose(f);
	free(d);
}

/* The P2P arm's path for the fault counters: cuMem unless turned off. */
enum verify_path coll_p2p_path(void)
{
	const char *c = getenv("NCCL_CUMEM_ENABLE");

	return c && !strcmp(c, "0") ? VERIFY_PATH_SM : VERIFY_PATH_CUMEM;
}

static void read_faults(struct verify_faults *f, const struct coll_group *g,
			bool after, uint64_t (*v)[COLL_MAX_RANKS], bool *known)
{
	enum verify_path p = coll_p2p_path();
	int a, b;

	for (a = 0; a < g->n; a++)
		for (b = 0; b < g->n; b++)
			if (a != b && !f->read(f, g->gpu[a], g->gpu[b], p,
					       VERIFY_WRITE, after, &v[a][b]))
				*known = false;
}

/* NCCL's logs so far, nccl-0.log to nccl-(log_seq - 1).log. */
static unsigned int log_seq;

static void run_one(const struct coll_opts *o, struct coll_arg *arg,
		    const char *dir, struct coll_one *one)
{
	enum isolate_status st;

	snprintf(arg->log, sizeof(arg->log), "%s/nccl-%u.log", dir, log_seq);
	snprintf(arg->out, sizeof(arg->out), "%s/nccl-%u.out", dir, log_seq++);
	st = isolate_run(coll_child_run, arg, &one->child, sizeof(one->child),
			 o->timeout, one->why, sizeof(one->why));
	if (st == ISOLATE_TIMEOUT)
		one->outcome = COLL_HUNG;
	else if (st != ISOLATE_OK)
		one->outcome = COLL_DIED;
	else if (one->child.call[0])
		one->outcome = COLL_FAILED;
	else if (!one->child.data_ok)
		one->outcome = COLL_WRONG;
	else
		one->outcome = COLL_RIGHT;
	if (st != ISOLATE_OK)
		memset(&one->child, 0, sizeof(one->child));
	read_transports(arg->log, one->transports, sizeof(one->transports));
	read_diag(arg->out, one);
}

static bool arm_right(const struct coll_group *g, enum coll_arm arm)
{
	size_t s;

	for (s = 0; s < COLL_NR_SIZES; s++)
		if (g->run[arm][s].outcome != COLL_RIGHT)
			return false;
	return true;
}

static void add_growth(struct coll_group *g,
		       uint64_t (*before)[COLL_MAX_RANKS],
		       uint64_t (*after)[COLL_MAX_RANKS])
{
	int a, b;

	for (a = 0; a < g->n; a++)
		for (b = 0; b < g->n; b++)
			if (after[a][b] > before[a][b])
				g->grew[a][b] += after[a][b] - before[a][b];
}

static void run_group(const struct coll_opts *o, struct verify_faults *f,
		      const char *dir, struct coll_group *g)
{
	uint64_t before[COLL_MAX_RANKS][COLL_MAX_RANKS] = { { 0 } };
	uint64_t after[COLL_MAX_RANKS][COLL_MAX_RANKS] = { { 0 } };
	struct coll_arg *arg = calloc(1, sizeof(*arg));
	int a, arm;
	size_t s;
	bool failed;

	if (!arg)
		return;
	arg->ndev = g->n;
	for (a = 0; a < g->n; a++)
		arg->dev[a] = g->gpu[a]->index;
	if (o->nccl)
		snprintf(arg->nccl, sizeof(arg->nccl), "%s", o->nccl);
	g->faults_known = true;
	for (arm = 0; arm < COLL_NR_ARMS; arm++) {
		arg->arm = arm;
		failed = false;
		for (s = 0; s < COLL_NR_SIZES; s++) {
			if (failed) {
				g->run[arm][s].outcome = COLL_NOT_RUN;
				continue;
			}
			arg->bytes = coll_sizes[s];
			if (arm == COLL_ARM_P2P)
				read_faults(f, g, false, before,
					    &g->faults_known);
			run_one(o, arg, dir, &g->run[arm][s]);
			if (arm == COLL_ARM_P2P) {
				read_faults(f, g, true, after,
					    &g->faults_known);
				add_growth(g, before, after);
			}
			failed = g->run[arm][s].outcome != COLL_RIGHT;
		}
	}
	free(arg);
	if (arm_right(g, COLL_ARM_P2P))
		g->verdict = COLL_WORKS;
	else if (arm_right(g, COLL_ARM_CONTROL))
		g->verdict = COLL_P2P_BROKEN;
	else
		g->verdict = COLL_NOT_P2P;
}

/* NCCL's bus bandwidth: what each link carried, 2 (n - 1) / n. */
double coll_bus_gbps(const struct coll_one *one, size_t bytes, int n)
{
	if (one->outcome != COLL_RIGHT || !(one->child.ms > 0))
		return 0;
	return (double)bytes * 2 * (n - 1) / n / (one->child.ms * 1e6);
}

size_t coll_blame(const struct coll_group *g, struct coll_blame *out)
{
	const struct coll_one *one;
	size_t k = 0, s;
	unsigned int i;
	int a, b;

	for (a = 0; a < g->n; a++)
		for (b = 0; b < g->n; b++)
			if (g->grew[a][b])
				out[k++] = (struct coll_blame){
					.from = a, .to = b,
					.faults = g->grew[a][b],
				};
	for (s = 0; s < COLL_NR_SIZES; s++) {
		one = &g->run[COLL_ARM_P2P][s];
		for (i = 0; i < one->ndiag; i++) {
			a = one->diag[i].src;
			b = one->diag[i].dst;
			if (a < 0 || b < 0 || a >= g->n || b >= g->n)
				continue;
			out[k++] = (struct coll_blame){
				.from = a, .to = b, .check = one->diag[i].check,
			};
		}
	}
	return k;
}

/*
 * Verify ended before any group ran: said on stderr and, with --json, as
 * the failure document.  Returns @code.
 */
static int __attribute__((format(printf, 3, 4)))
fail(const struct coll_opts *o, int code, const char *fmt, ...)
{
	/* the longest: no NCCL, with where the wheel search looked */
	char msg[2 * PATH_MAX + 4096 + 2 * COLL_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", msg);
	if (o->json)
		coll_json_failure(stdout, msg, code);
	return code;
}

/*
 * The library, loaded in a child: its path and version, or exit 3.  None
 * on the library path: the server's nvidia-nccl wheel, which @o then names.
 */
static int probe(struct coll_opts *o, char *dir, struct coll_child *c)
{
	static struct nccl_wheel w;
	struct coll_arg *arg = calloc(1, sizeof(*arg));
	struct coll_one one;
	bool wheel = false, searched = false;

	if (!arg)
		return fail(o, EXIT_FAILURE, "p2pmap: out of memory");
	memset(&one, 0, sizeof(one));
	if (o->nccl)
		snprintf(arg->nccl, sizeof(arg->nccl), "%s", o->nccl);
	run_one(o, arg, dir, &one);
	if (!o->nccl && one.outcome == COLL_FAILED &&
	    one.child.load == NCCL_LOAD_NOT_FOUND) {
		wheel = !nccl_wheel_find(o->unit, &w);
		searched = !wheel;
		if (wheel) {
			o->nccl = w.lib;
			o->from = w.how;
			snprintf(arg->nccl, sizeof(arg->nccl), "%s", o->nccl);
			memset(&one, 0, sizeof(one));
			run_one(o, arg, dir, &one);
		}
	}
	free(arg);
	if (one.outcome == COLL_FAILED && one.child.load != NCCL_LOAD_OK)
		return fail(o, EXIT_NO_NCCL,
			    "p2pmap verify: no usable NCCL (%s%s%s): %s%s%s%s; name it with --nccl PATH or " NCCL_LIB_ENV "=PATH",
			    o->nccl ? o->nccl : NCCL_LIB, wheel ? ", " : "",
			    wheel ? w.how : "", one.child.error,
			    searched ? "; no nvidia-nccl wheel either (looked in: " : "",
			    searched ? w.looked : "", searched ? ")" : "");
	if (one.outcome != COLL_RIGHT)
		return fail(o, EXIT_NO_NCCL, "p2pmap verify: loading NCCL: %s",
			    one.outcome == COLL_FAILED ? one.child.error :
							 one.why);
	*c = one.child;
	if (!o->json)
		printf("nccl: %s, version %d (found: %s)\n", c->lib, c->version,
		       o->from ? o->from : "library path");
	return 0;
}

static void remove_dir(const char *dir)
{
	char path[COLL_DIR_LEN + 32];
	unsigned int i;

	/* Our own files only (a run that hung early may have none). */
	for (i = 0; i < log_seq; i++) {
		snprintf(path, sizeof(path), "%s/nccl-%u.log", dir, i);
		unlink(path);
		snprintf(path, sizeof(path), "%s/nccl-%u.out", dir, i);
		unlink(path);
	}
	rmdir(dir);
}

/* The whole selection first (more than 2 GPUs), then every pair. */
static size_t make_groups(const struct verify_gpu *sel, size_t ngpus,
			  struct coll_group *g)
{
	size_t a, b, i, n = 0;

	if (ngpus > 2) {
		for (i = 0; i < ngpus; i++)
			g[0].gpu[i] = &sel[i];
		g[0].n = ngpus;
		n = 1;
	}
	for (a = 0; a < ngpus; a++) {
		for (b = a + 1; b < ngpus; b++) {
			g[n].gpu[0] = &sel[a];
			g[n].gpu[1] = &sel[b];
			g[n].n = 2;
			n++;
		}
	}
	return n;
}

int coll_run(const struct coll_opts *opts, const struct verify_gpu *sel,
	     size_t ngpus, struct verify_faults *faults)
{
	struct coll_opts lo = *opts, *o = &lo;	/* probe() may name NCCL */
	const char *tmp = getenv("TMPDIR");
	size_t ngroups = ngpus > 2 ? 1 + ngpus * (ngpus - 1) / 2 : 1;
	struct coll_child *lib;
	struct coll_group *g;
	char dir[COLL_DIR_LEN];
	size_t i, n;
	int ret;

	if (ngpus > COLL_MAX_RANKS)
		return fail(o, EXIT_FAILURE,
			    "p2pmap verify: --collective runs at most %d GPUs",
			    COLL_MAX_RANKS);
	if (snprintf(dir, sizeof(dir), "%s/p2pmap-collective.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(dir) ||
	    !mkdtemp(dir))
		return fail(o, EXIT_FAILURE, "p2pmap verify: mkdtemp: %s",
			    strerror(errno));
	lib = calloc(1, sizeof(*lib));
	ret = lib ? probe(o, dir, lib) :
		    fail(o, EXIT_FAILURE, "p2pmap: out of memory");
	g = ret ? NULL : calloc(ngroups, sizeof(*g));
	if (!ret && !g)
		ret = fail(o, EXIT_FAILURE, "p2pmap: out of memory");
	if (ret) {
		free(lib);
		remove_dir(dir);
		return ret;
	}
	n = make_groups(sel, ngpus, g);
	for (i = 0; i < n; i++) {
		run_group(o, faults, dir, &g[i]);
		if (!o->json)
			coll_print_group(&g[i], o->timeout);
		if (g[i].verdict != COLL_WORKS)
			ret = EXIT_FAILURE;
	}
	/* As the rest of verify says it: what the watchdog could not end. */
	if (isolate_left_behind())
		fprintf(stderr, "p2pmap verify: %u test process(es) stayed after SIGKILL (stuck in the driver, which no signal ends): left behind\n",
			isolate_left_behind());
	if (isolate_killed_after_result())
		fprintf(stderr, "p2pmap verify: %u test process(es) did not exit after reporting (NCCL's or libcuda's teardown hung): killed, their results stand\n",
			isolate_killed_after_result());
	if (o->json)
		coll_json(stdout, &(struct coll_report){
			.lib = lib->lib, .version = lib->version,
			.found = o->from ? o->from : "library path",
			.timeout = o->timeout, .g = g, .n = n,
		});
	free(lib);
	free(g);
	remove_dir(dir);
	return ret;
}
