// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap nccl-check LOG [--verify FILE] [--json]: per pair of ranks, the
 * transport NCCL says it chose (verify/nccl_log.h), set against what
 * "p2pmap verify" found for the same two GPUs (FILE: its --json document,
 * or the text an older setup saved: verify_output.h).
 * A pair p2pmap verified both ways that NCCL still runs over SHM or the
 * network is flagged with the likely cause; so is P2P over a direction
 * verify found broken.  Where the log holds NCCL's own diagnostics
 * (NCCL_RUN_DIAGNOSTICS=1, nccl_diag.h), each direction they failed is
 * flagged too, next to verify's verdict.  Exit 0, or 1 when something is
 * flagged.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "json.h"
#include "nccl_diag.h"
#include "nccl_log.h"
#include "verify_output.h"

#define NCCL_USAGE	cmd_usage("nccl-check", NULL)
/* The verdict's words for @from -> @to, or NULL. */
static const char *verdict_of(const struct verify_output *vr, const char *from,
			      const char *to)
{
	const struct verify_line *v = verify_output_find(vr, from, to);

	return v ? v->what : NULL;
}

/* Is "MAJOR.MINOR.PATCH" @version at least @major.@minor? */
static bool at_least(const char *version, int major, int minor)
{
	int a = 0, b = 0;

	return sscanf(version, "%d.%d", &a, &b) == 2 &&
	       (a > major || (a == major && b >= minor));
}

/* Why NCCL did not use P2P for a pair p2pmap verified, most likely. */
static const char *likely_cause(const struct nccl_log *log)
{
	if (log->p2p_disable == 1 || !strcmp(log->p2p_level, "LOC"))
		return "P2P is disabled by the environment (NCCL_P2P_DISABLE=1): drop it from the server's environment";
	if (log->p2p_level[0])
		return "NCCL_P2P_LEVEL from the environment is below this pair's PCIe path: set NCCL_P2P_LEVEL=SYS";
	if (log->nvml_p2p_disabled)
		return "the driver (NVML) reports P2P disabled between these GPUs (\"P2P is disabled between connected GPUs\" in the log): check NVreg_RegistryDwords and ACS";
	if (at_least(log->version, 2, 23))
		return "NCCL's topology rules: from NCCL 2.23 P2P stops at PXB (GPUs under one host bridge) unless the host is AMD with at most two GPUs, so GPUs under different root complexes use SHM: set NCCL_P2P_LEVEL=SYS";
	return "NCCL's topology rules put this pair's PCIe path above its P2P level: set NCCL_P2P_LEVEL=SYS";
}

struct finding {
	const struct nccl_pair *p;
	const char *fwd, *rev;		/* verify's verdicts, or NULL */
	const char *flag;		/* NULL: nothing to say */
};

static void judge(const struct nccl_log *log, const struct verify_output *vs,
		  const struct nccl_pair *p, struct finding *fd)
{
	bool p2p = p->classes & (1u << NCCL_P2P);

	memset(fd, 0, sizeof(*fd));
	fd->p = p;
	/* Verdicts are of one host's GPUs: a pair across hosts is NET's. */
	if (!p->from_pci[0] || !p->to_pci[0] || !p->same_host)
		return;
	fd->fwd = verdict_of(vs, p->from_pci, p->to_pci);
	fd->rev = verdict_of(vs, p->to_pci, p->from_pci);
	if (!fd->fwd)
		return;
	if (p2p && (strcmp(fd->fwd, "works") ||
		    (fd->rev && strcmp(fd->rev, "works"))))
		fd->flag = "NCCL uses P2P where p2pmap verify found a direction that does not work: expect hangs or wrong results; check the p2pmap links (p2pmap status) or set NCCL_P2P_DISABLE=1 until they work";
	else if (!p2p && !strcmp(fd->fwd, "works") && fd->rev &&
		 !strcmp(fd->rev, "works"))
		fd->flag = likely_cause(log);
}

/* A failure NCCL's diagnostics printed, judged: verify's verdict, why. */
struct diag_finding {
	const struct nccl_diag_fail *f;
	const char *verify;		/* verify's src -> dst verdict, or NULL */
	char flag[512];
};

/* The checks that test the data path, not the test's own setup. */
static bool data_path(const char *check)
{
	return !strcmp(check, "write mismatch") ||
	       !strcmp(check, "read mismatch") ||
	       !strcmp(check, "peer-memory import failed") ||
	       !strcmp(check, "launch/check failed");
}

static void judge_diag(const struct verify_output *vs,
		       const struct nccl_diag_fail *f, struct diag_finding *df)
{
	memset(df, 0, sizeof(*df));
	df->f = f;
	if (f->src_pci[0] && f->dst_pci[0])
		df->verify = verdict_of(vs, f->src_pci, f->dst_pci);
	if (!data_path(f->check))
		snprintf(df->flag, sizeof(df->flag),
			 "NCCL's diagnostics could not test this direction (%s): the log's lines before it say why",
			 f->check);
	else if (df->verify && !strcmp(df->verify, "works") &&
		 !strcmp(f->check, "peer-memory import failed"))
		snprintf(df->flag, sizeof(df->flag),
			 "NCCL cannot import the peer's memory through a %s handle where p2pmap verify's copy works: the path NCCL uses (another process's handle) is not the one verify tested; keep NCCL_P2P_DISABLE=1 until both pass",
			 f->handle[0] ? f->handle : "shared");
	else if (df->verify && !strcmp(df->verify, "works"))
		snprintf(df->flag, sizeof(df->flag),
			 "NCCL's own diagnostics fail where p2pmap verify's copy works: NCCL's kernels load and store through a %s handle, a path the copy engine does not take; p2pmap faults names the BAR the GPU hit; keep NCCL_P2P_DISABLE=1 until both pass",
			 f->handle[0] ? f->handle : "shared");
	else if (df->verify)
		snprintf(df->flag, sizeof(df->flag),
			 "NCCL's own diagnostics fail this direction, as p2pmap verify did: check the p2pmap links (p2pmap status, p2pmap faults)");
	else
		snprintf(df->flag, sizeof(df->flag),
			 "NCCL's own diagnostics fail this direction: p2pmap faults names the BAR the GPU hit, p2pmap doctor the likely cause; keep NCCL_P2P_DISABLE=1 until it passes");
}

/* The same failure logged twice (two communicators): once. */
static bool seen_before(const struct nccl_diag *d, unsigned int i)
{
	const struct nccl_diag_fail *a = &d->fails[i], *b;
	unsigned int k;

	for (k = 0; k < i; k++) {
		b = &d->fails[k];
		if (a->src_rank == b->src_rank && a->dst_rank == b->dst_rank &&
		    !strcmp(a->check, b->check) &&
		    !strcmp(a->src_pci, b->src_pci) &&
		    !strcmp(a->dst_pci, b->dst_pci))
			return true;
	}
	return false;
}

/* Edges the summary counts as failed that no failure line names. */
static bool unexplained(const struct nccl_diag *d, size_t nfound)
{
	return d->has_summary && d->passed < d->tested && !nfound;
}

static void print_diag_text(const struct nccl_diag *d,
			    const struct diag_finding *df, size_t n)
{
	const struct nccl_diag_fail *f;
	size_t i;

	if (!d->has_summary)
		printf("nccl diagnostics: no summary line (they did not finish in this log)\n");
	else if (d->passed == d->tested)
		printf("nccl diagnostics: all %llu GPU P2P checks passed\n",
		       d->tested);
	else
		printf("nccl diagnostics: %llu of %llu GPU P2P checks passed\n",
		       d->passed, d->tested);
	for (i = 0; i < n; i++) {
		f = df[i].f;
		printf("diagnostics rank %d (%s) -> rank %d (%s): %s (path %s, handle %s%s%s)",
		       f->src_rank, f->src_pci[0] ? f->src_pci : "?",
		       f->dst_rank, f->dst_pci[0] ? f->dst_pci : "?", f->check,
		       f->path[0] ? f->path : "?",
		       f->handle[0] ? f->handle : "?",
		       f->reason[0] ? ", reason " : "", f->reason);
		if (df[i].verify)
			printf("; p2pmap verify: %s", df[i].verify);
		printf("\n  FLAG: %s\n", df[i].flag);
	}
	if (unexplained(d, n))
		printf("  FLAG: %llu GPU P2P check%s failed in NCCL's diagnostics and this log names none (the first rank of each node prints them: add that rank's output)\n",
		       d->tested - d->passed,
		       d->tested - d->passed == 1 ? "" : "s");
}

static void print_text(const struct nccl_log *log, const struct finding *fd,
		       size_t n, const struct diag_finding *df, size_t ndf,
		       unsigned int flags)
{
	const struct nccl_pair *p;
	size_t i, k;

	printf("nccl-check: NCCL %s, %u rank%s, %u communicator%s, %zu rank pair%s\n",
	       log->version[0] ? log->version : "(version not logged)",
	       log->nranks, log->nranks == 1 ? "" : "s", log->comms,
	       log->comms == 1 ? "" : "s", n, n == 1 ? "" : "s");
	if (log->p2p_disable == 1)
		printf("environment: NCCL_P2P_DISABLE=1\n");
	if (log->p2p_level[0])
		printf("environment: NCCL_P2P_LEVEL=%s\n", log->p2p_level);
	for (i = 0; i < n; i++) {
		p = fd[i].p;
		printf("rank %d (%s) -> rank %d (%s): ", p->from_rank,
		       p->from_pci[0] ? p->from_pci : "?", p->to_rank,
		       p->to_pci[0] ? p->to_pci : "?");
		for (k = 0; k < p->ntransports; k++)
			printf("%s%s", k ? ", " : "", p->transport[k]);
		printf(" (%u channel%s)", p->channels,
		       p->channels == 1 ? "" : "s");
		if (fd[i].fwd)
			printf("; p2pmap verify: %s", fd[i].fwd);
		else if (!p->same_host)
			printf("; across hosts");
		putchar('\n');
		if (fd[i].flag)
			printf("  FLAG: %s\n", fd[i].flag);
	}
	if (log->diag.ran)
		print_diag_text(&log->diag, df, ndf);
	printf("nccl-check: %u flag%s\n", flags, flags == 1 ? "" : "s");
}

static void diag_json(struct json *j, const struct nccl_diag *d,
		      const struct diag_finding *df, size_t n)
{
	const struct nccl_diag_fail *f;
	size_t i;

	json_key(j, "diagnostics");
	if (!d->ran) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "edges_tested");
	if (d->has_summary)
		json_u64(j, d->tested);
	else
		json_null(j);
	json_key(j, "edges_verified");
	if (d->has_summary)
		json_u64(j, d->passed);
	else
		json_null(j);
	json_key(j, "failures");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		f = df[i].f;
		json_obj_begin(j);
		json_key(j, "from_rank");
		json_u64(j, f->src_rank);
		json_key(j, "to_rank");
		json_u64(j, f->dst_rank);
		json_key(j, "from_pci");
		json_str_or_null(j, f->src_pci);
		json_key(j, "to_pci");
		json_str_or_null(j, f->dst_pci);
		json_key(j, "check");
		json_str(j, f->check);
		json_key(j, "path");
		json_str_or_null(j, f->path);
		json_key(j, "handle");
		json_str_or_null(j, f->handle);
		json_key(j, "reason");
		json_str_or_null(j, f->reason);
		json_key(j, "verify");
		json_enum(j, df[i].verify);
		json_key(j, "flag");
		json_str(j, df[i].flag);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "unexplained_flag");
	json_bool(j, unexplained(d, n));
	json_obj_end(j);
}

static void print_json(const struct nccl_log *log, const struct finding *fd,
		       size_t n, const struct diag_finding *df, size_t ndf,
		       unsigned int flags)
{
	const struct nccl_pair *p;
	struct json j;
	size_t i, k;

	json_init(&j, stdout);
	json_doc_begin(&j);
	json_key(&j, "nccl_version");
	json_str_or_null(&j, log->version);
	json_key(&j, "nranks");
	json_u64(&j, log->nranks);
	json_key(&j, "p2p_disable");
	if (log->p2p_disable < 0)
		json_null(&j);
	else
		json_bool(&j, log->p2p_disable);
	json_key(&j, "p2p_level");
	json_str_or_null(&j, log->p2p_level);
	json_key(&j, "pairs");
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		p = fd[i].p;
		json_obj_begin(&j);
		json_key(&j, "from_rank");
		json_u64(&j, p->from_rank);
		json_key(&j, "to_rank");
		json_u64(&j, p->to_rank);
		json_key(&j, "from_pci");
		json_str_or_null(&j, p->from_pci);
		json_key(&j, "to_pci");
		json_str_or_null(&j, p->to_pci);
		json_key(&j, "transports");
		json_arr_begin(&j);
		for (k = 0; k < p->ntransports; k++)
			json_str(&j, p->transport[k]);
		json_arr_end(&j);
		json_key(&j, "p2p");
		json_bool(&j, p->classes & (1u << NCCL_P2P));
		json_key(&j, "same_host");
		json_bool(&j, p->same_host);
		json_key(&j, "channels");
		json_u64(&j, p->channels);
		json_key(&j, "verify");
		json_enum(&j, fd[i].fwd);	/* its text's words */
		json_key(&j, "flag");
		json_str(&j, fd[i].flag);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	diag_json(&j, &log->diag, df, ndf);
	json_key(&j, "flags");
	json_u64(&j, flags);
	json_obj_end(&j);
	putchar('\n');
}

static int by_ranks(const void *a, const void *b)
{
	const struct nccl_pair *x = a, *y = b;

	if (x->from_rank != y->from_rank)
		return x->from_rank - y->from_rank;
	return x->to_rank - y->to_rank;
}

int cmd_nccl_check(int argc, char **argv)
{
	const char *logpath = NULL, *vpath = NULL;
	struct verify_output *vs = calloc(1, sizeof(*vs));
	struct nccl_log *log = calloc(1, sizeof(*log));
	struct finding *fd = NULL;
	struct diag_finding *df = NULL;
	unsigned int flags = 0;
	size_t ndf = 0;
	struct cmd_getopt g;
	bool json = false;
	int ret = EXIT_FAILED, i, err;
	char why[512];
	size_t k;
	FILE *f;

	if (!vs || !log) {
		fprintf(stderr, "p2pmap: out of memory\n");
		goto out;
	}
	cmd_getopt_init(&g, "nccl-check", NULL, argc, argv);
	while ((i = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--json")) {
			json = true;
		} else if (cmd_opt_is(&g, "--verify")) {
			vpath = g.arg;
		} else {
			ret = cmd_getopt_refuse(&g);
			goto out;
		}
	}
	if (i < 0 || g.npos > 1) {
		ret = i < 0 ? EXIT_USAGE : cmd_getopt_extra(&g, g.pos[1]);
		goto out;
	}
	/* LOG "-" is standard input; "-- -LOG" a file named so. */
	if (!g.npos) {
		fprintf(stderr, "p2pmap: %s\n", NCCL_USAGE);
		ret = EXIT_USAGE;
		goto out;
	}
	logpath = g.pos[0];
	err = vpath ? verify_output_read(vpath, vs, why, sizeof(why)) : 0;
	if (err) {
		fprintf(stderr, "p2pmap: nccl-check: %s: %s\n", vpath, why);
		goto out;
	}
	f = strcmp(logpath, "-") ? fopen(logpath, "r") : stdin;
	if (!f || nccl_log_read(f, log)) {
		fprintf(stderr, "p2pmap: nccl-check: %s: %s\n", logpath,
			strerror(errno));
		if (f && f != stdin)
			fclose(f);
		goto out;
	}
	if (f != stdin)
		fclose(f);
	/* Diagnostics run before the transports connect: alone, enough. */
	if (!log->npairs && !log->diag.ran) {
		fprintf(stderr, "p2pmap: nccl-check: %s: no NCCL channel line (run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P) and no NCCL DIAG line (NCCL_RUN_DIAGNOSTICS=1)\n",
			logpath);
		goto out;
	}
	qsort(log->pairs, log->npairs, sizeof(log->pairs[0]), by_ranks);
	fd = calloc(log->npairs + 1, sizeof(*fd));
	df = calloc(log->diag.nfails + 1, sizeof(*df));
	if (!fd || !df)
		goto out;
	for (k = 0; k < log->npairs; k++) {
		judge(log, vs, &log->pairs[k], &fd[k]);
		flags += fd[k].flag != NULL;
	}
	for (k = 0; k < log->diag.nfails; k++)
		if (!seen_before(&log->diag, k))
			judge_diag(vs, &log->diag.fails[k], &df[ndf++]);
	flags += ndf + unexplained(&log->diag, ndf);
	if (json)
		print_json(log, fd, log->npairs, df, ndf, flags);
	else
		print_text(log, fd, log->npairs, df, ndf, flags);
	ret = flags ? EXIT_FAILED : EXIT_OK;
out:
	free(df);
	free(fd);
	free(log);
	free(vs);
	return ret;
}
