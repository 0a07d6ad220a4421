// SPDX-License-Identifier: GPL-2.0
/*
 * "p2pmap verify --collective": the groups, the arms and the sizes, each
 * run a child under the watchdog, and a verdict per group (see
 * collective.h for the design and what is left).
 */
#define _GNU_SOURCE			/* mkdtemp() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collective.h"
#include "isolate.h"
#include "nccl_diag.h"
#include "nccl_lib.h"
#include "nccl_log.h"
#include "nccl_wheel.h"

/* NCCL's logs go to a directory of their own, under $TMPDIR. */
#define COLL_DIR_LEN	256
#define EXIT_NO_NCCL	3		/* cmd.h's EXIT_NO_GPU: no driver */

static const size_t coll_sizes[] = { 12u << 10, 32u << 20 };
#define COLL_NR_SIZES	(sizeof(coll_sizes) / sizeof(coll_sizes[0]))

enum coll_outcome {
	COLL_RIGHT,
	COLL_NOT_RUN,			/* a smaller size failed first */
	COLL_WRONG,
	COLL_FAILED,			/* an NCCL or CUDA call failed */
	COLL_DIED,			/* the child ended without a result */
	COLL_HUNG,			/* killed by the watchdog */
};

enum coll_verdict {
	COLL_WORKS,
	COLL_P2P_BROKEN,		/* fails with P2P, works without */
	COLL_NOT_P2P,			/* fails both ways */
};

struct coll_one {
	enum coll_outcome outcome;
	struct coll_child child;
	char why[COLL_ERR_LEN];		/* the watchdog's word */
	char transports[96];		/* from NCCL's log, "," separated */
	bool diag_ran;			/* NCCL_RUN_DIAGNOSTICS printed */
	unsigned int ndiag;		/* its failing edges, the first few */
	struct {
		int src, dst;		/* ranks */
		char check[40];
	} diag[4];
};

struct coll_group {
	const struct verify_gpu *gpu[COLL_MAX_RANKS];
	int n;
	struct coll_one run[COLL_NR_ARMS][COLL_NR_SIZES];
	/* Fault counter growth per direction [from][to], P2P arm. */
	uint64_t grew[COLL_MAX_RANKS][COLL_MAX_RANKS];
	bool faults_known;
	enum coll_verdict verdict;
};

static const char *const arm_names[COLL_NR_ARMS] = { "p2p", "control" };

static const char *outcome_name(enum coll_outcome o)
{
	static const char *const names[] = {
		[COLL_RIGHT] = "right", [COLL_NOT_RUN] = "not run",
		[COLL_WRONG] = "wrong data", [COLL_FAILED] = "failed",
		[COLL_DIED] = "died", [COLL_HUNG] = "hung",
	};

	return names[o];
}

static const char *verdict_name(enum coll_verdict v)
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
	for (i = 0; i < d->nfails && one->ndiag < 4; i++) {
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
static enum verify_path p2p_path(void)
{
	const char *c = getenv("NCCL_CUMEM_ENABLE");

	return c && !strcmp(c, "0") ? VERIFY_PATH_SM : VERIFY_PATH_CUMEM;
}

static void read_faults(struct verify_faults *f, const struct coll_group *g,
			bool after, uint64_t (*v)[COLL_MAX_RANKS], bool *known)
{
	int a, b;

	for (a = 0; a < g->n; a++)
		for (b = 0; b < g->n; b++)
			if (a != b && !f->read(f, g->gpu[a], g->gpu[b],
					       p2p_path(), VERIFY_WRITE, after,
					       &v[a][b]))
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

static void print_size(size_t bytes)
{
	if (bytes >= 1u << 20)
		printf("%zu MiB", bytes >> 20);
	else
		printf("%zu KiB", bytes >> 10);
}

static void print_one(const struct coll_one *one, unsigned int timeout,
		      size_t bytes, int n)
{
	const struct coll_child *c = &one->child;

	printf("%s", outcome_name(one->outcome));
	if (one->outcome == COLL_HUNG)
		printf(" (killed after %u s)", timeout);
	else if (one->outcome == COLL_DIED)
		printf(" (%s)", one->why);
	else if (one->outcome == COLL_FAILED)
		printf(" (%s: %s)", c->call, c->error);
	else if (one->outcome == COLL_WRONG)
		printf(" (rank %d element %zu is %g, not %g)", c->bad_rank,
		       c->bad_index, c->got, c->want);
	if (one->transports[0])
		printf(", %s", one->transports);
	/* NCCL's bus bandwidth: what each link carried, 2 (n - 1) / n. */
	if (one->outcome == COLL_RIGHT && c->ms > 0)
		printf(", %.3f ms, bus %.2f GB/s", c->ms,
		       (double)bytes * 2 * (n - 1) / n / (c->ms * 1e6));
}

/* Who to blame: the directions whose counters grew, else a 2-rank group. */
static void print_blame(const struct coll_group *g)
{
	bool named = false;
	unsigned int i;
	int a, b;
	size_t s;

	for (a = 0; a < g->n; a++) {
		for (b = 0; b < g->n; b++) {
			if (!g->grew[a][b])
				continue;
			printf("%sGPU%d -> GPU%d (%llu faults)",
			       named ? ", " : "; faulted: ", g->gpu[a]->index,
			       g->gpu[b]->index,
			       (unsigned long long)g->grew[a][b]);
			named = true;
		}
	}
	for (s = 0; s < COLL_NR_SIZES; s++) {
		const struct coll_one *one = &g->run[COLL_ARM_P2P][s];

		for (i = 0; i < one->ndiag; i++) {
			a = one->diag[i].src;
			b = one->diag[i].dst;
			if (a < 0 || b < 0 || a >= g->n || b >= g->n)
				continue;
			printf("%sGPU%d -> GPU%d (NCCL's diagnostics: %s)",
			       named ? ", " : "; ", g->gpu[a]->index,
			       g->gpu[b]->index, one->diag[i].check);
			named = true;
		}
	}
	if (!named && g->n == 2)
		printf("; the pair GPU%d <-> GPU%d", g->gpu[0]->index,
		       g->gpu[1]->index);
	else if (!named)
		printf("; no fault counted: see its 2-rank groups");
}

static void print_group(const struct coll_opts *o, const struct coll_group *g)
{
	int a, arm;
	size_t s;

	printf("collective {");
	for (a = 0; a < g->n; a++)
		printf("%sGPU%d", a ? "," : "", g->gpu[a]->index);
	printf("}: %s", verdict_name(g->verdict));
	if (g->verdict == COLL_P2P_BROKEN)
		print_blame(g);
	else if (g->verdict == COLL_NOT_P2P)
		printf("; fails without P2P too");
	if (!g->faults_known)
		printf(" (fault counters unknown)");
	printf("\n");
	for (arm = 0; arm < COLL_NR_ARMS; arm++) {
		for (s = 0; s < COLL_NR_SIZES; s++) {
			printf("  %-8s ", arm_names[arm]);
			print_size(coll_sizes[s]);
			printf(": ");
			print_one(&g->run[arm][s], o->timeout,
				  coll_sizes[s], g->n);
			printf("\n");
		}
	}
	fflush(stdout);
}

/*
 * The library, loaded in a child: its version, or exit 3.  None on the
 * library path: the server's nvidia-nccl wheel, which @o then names.
 */
static int probe(struct coll_opts *o, char *dir)
{
	static struct nccl_wheel w;
	struct coll_arg *arg = calloc(1, sizeof(*arg));
	struct coll_one one;
	bool wheel = false, searched = false;

	if (!arg)
		return EXIT_FAILURE;
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
	if (one.outcome == COLL_FAILED && one.child.load != NCCL_LOAD_OK) {
		fprintf(stderr, "p2pmap verify: no usable NCCL (%s%s%s): %s",
			o->nccl ? o->nccl : NCCL_LIB, wheel ? ", " : "",
			wheel ? w.how : "", one.child.error);
		if (searched)
			fprintf(stderr, "; no nvidia-nccl wheel either (looked in: %s)",
				w.looked);
		fprintf(stderr, "; name it with --nccl PATH or " NCCL_LIB_ENV "=PATH\n");
		return EXIT_NO_NCCL;
	}
	if (one.outcome != COLL_RIGHT) {
		fprintf(stderr, "p2pmap verify: loading NCCL: %s\n",
			one.outcome == COLL_FAILED ? one.child.error : one.why);
		return EXIT_NO_NCCL;
	}
	printf("nccl: %s, version %d (found: %s)\n", one.child.lib,
	       one.child.version, o->from ? o->from : "library path");
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

int coll_run(const struct coll_opts *opts, const struct verify_gpu *sel,
	     size_t ngpus, struct verify_faults *faults)
{
	struct coll_opts lo = *opts, *o = &lo;	/* probe() may name NCCL */
	const char *tmp = getenv("TMPDIR");
	size_t ngroups = ngpus > 2 ? 1 + ngpus * (ngpus - 1) / 2 : 1;
	struct coll_group *g;
	char dir[COLL_DIR_LEN];
	size_t a, b, i, n = 0;
	int ret;

	if (ngpus > COLL_MAX_RANKS) {
		fprintf(stderr, "p2pmap verify: --collective runs at most %d GPUs\n",
			COLL_MAX_RANKS);
		return EXIT_FAILURE;
	}
	if (snprintf(dir, sizeof(dir), "%s/p2pmap-collective.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") >= (int)sizeof(dir) ||
	    !mkdtemp(dir)) {
		perror("p2pmap verify: mkdtemp");
		return EXIT_FAILURE;
	}
	ret = probe(o, dir);
	g = ret ? NULL : calloc(ngroups, sizeof(*g));
	if (!ret && !g)
		ret = EXIT_FAILURE;
	if (ret) {
		remove_dir(dir);
		return ret;
	}
	/* The whole selection first, then every pair. */
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
	for (i = 0; i < n; i++) {
		run_group(o, faults, dir, &g[i]);
		print_group(o, &g[i]);
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
	free(g);
	remove_dir(dir);
	return ret;
}
