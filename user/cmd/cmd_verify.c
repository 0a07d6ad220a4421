// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap verify [--devices 0,1,...] [--size BYTES] [--timeout SECONDS]
 *               [--vllm-cache] [--sglang-cache] [--json]:
 * per direction A -> B of the selected CUDA devices, a write and a read
 * issued by A (verify.h), each in a child process with a watchdog, with
 * p2pmap's fault counters read before and after; then, if asked, the
 * frameworks' cache files (caches.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "bw_figures.h"
#include "bw_reference.h"
#include "cache_record.h"
#include "caches.h"
#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "collective.h"
#include "collective_result.h"
#include "cuda_errors.h"
#include "isolate.h"
#include "json.h"
#include "nccl_lib.h"
#include "pciaddr.h"
#include "verify.h"
#include "verify_faults.h"
#include "verify_paths.h"

/* "0,1,3": CUDA indices, distinct. */
/* "GPU-" and 32 hex digits in nvidia-smi's 8-4-4-4-12 groups. */
static bool is_uuid(const char *s)
{
	int i;

	if (strncmp(s, "GPU-", 4) || strlen(s) != VERIFY_UUID_LEN - 1)
		return false;
	for (i = 4; s[i]; i++)
		if (i == 12 || i == 17 || i == 22 || i == 27 ? s[i] != '-' :
		    !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * --devices: CUDA ordinals, PCI addresses or GPU UUIDs, comma-separated,
 * each kept as given (an address normalised, a UUID in lower case) until
 * the enumeration says which device it names.
 */
static int parse_devices(const char *s, char (*spec)[VERIFY_UUID_LEN],
			 size_t *n)
{
	char tok[64], addr[P2PMAP_ADDR_LEN], err[96];
	size_t len, k;
	char *end;

	*n = 0;
	for (;;) {
		len = strcspn(s, ",");
		if (!len || len >= sizeof(tok) || *n == VERIFY_MAX_GPUS)
			return -1;
		snprintf(tok, sizeof(tok), "%.*s", (int)len, s);
		if (tok[0] >= '0' && tok[0] <= '9' &&
		    strtoul(tok, &end, 10) <= INT_MAX && !*end) {
			snprintf(spec[*n], VERIFY_UUID_LEN, "%lu",
				 strtoul(tok, NULL, 10));
		} else if (is_uuid(tok)) {
			for (k = 4; tok[k]; k++)
				tok[k] = (char)tolower((unsigned char)tok[k]);
			snprintf(spec[*n], VERIFY_UUID_LEN, "%s", tok);
		} else if (!pciaddr_parse(tok, addr, err, sizeof(err))) {
			snprintf(spec[*n], VERIFY_UUID_LEN, "%s", addr);
		} else {
			return -1;
		}
		(*n)++;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

/* The device @spec names among @count (-1: none). */
static int resolve_device(const char *spec, const struct verify_gpu *all,
			  int count)
{
	int i;

	if (spec[0] >= '0' && spec[0] <= '9' && !strchr(spec, ':'))
		return atoi(spec) < count ? atoi(spec) : -1;
	for (i = 0; i < count; i++)
		if (!strcmp(all[i].pci, spec) || !strcmp(all[i].uuid, spec))
			return i;
	return -1;
}

/* BYTES: decimal, with an optional K, M or G (powers of 1024). */
static int parse_size(const char *s, uint64_t *size)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'G': case 'g':
		v = v > VERIFY_SIZE_MAX ? 0 : v << 30;
		end++;
		break;
	case 'M': case 'm':
		v = v > VERIFY_SIZE_MAX ? 0 : v << 20;
		end++;
		break;
	case 'K': case 'k':
		v = v > VERIFY_SIZE_MAX ? 0 : v << 10;
		end++;
		break;
	}
	if (*end || !v || v > VERIFY_SIZE_MAX)
		return -1;
	*size = v;
	return 0;
}

struct verify_opts {
	char spec[VERIFY_MAX_GPUS][VERIFY_UUID_LEN];	/* --devices */
	size_t nspec;
	uint64_t size;
	unsigned int timeout;
	unsigned int paths;		/* bit per enum verify_path */
	bool json, vllm, sglang, bandwidth;
	bool collective;		/* --collective: collective.h */
	const char *nccl;		/* --nccl */
	const char *unit;		/* --unit: whose nvidia-nccl wheel */
};

/* --paths: "all", or path names (verify_paths.h), comma-separated. */
static int parse_paths(const char *s, unsigned int *mask)
{
	char tok[16];
	size_t len;
	int p;

	*mask = 0;
	if (!strcmp(s, "all")) {
		*mask = (1u << VERIFY_NR_PATHS) - 1;
		return 0;
	}
	for (;;) {
		len = strcspn(s, ",");
		if (!len || len >= sizeof(tok))
			return -1;
		snprintf(tok, sizeof(tok), "%.*s", (int)len, s);
		p = verify_path_parse(tok);
		if (p < 0 || (*mask & (1u << p)))
			return -1;
		*mask |= 1u << p;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int parse_timeout(const char *s, unsigned int *t)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > 3600)
		return -1;
	*t = v;
	return 0;
}

/* The last error that ended verify before any direction ran, for --json. */
static char verify_error[1024];

static void __attribute__((format(printf, 1, 2))) verr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(verify_error, sizeof(verify_error), fmt, ap);
	va_end(ap);
	fputs(verify_error, stderr);
	verify_error[strcspn(verify_error, "\n")] = '\0';
}

/* --collective's failure document has "groups", not "directions". */
static bool collective_failure;

/* --json: an outcome without results is a document too. */
static int json_failure(int code)
{
	const char *error = verify_error[0] ? verify_error : "verify failed";

	if (collective_failure)
		coll_json_failure(stdout, error, code);
	else
		json_failure_doc(stdout, error, code, "directions");
	return code;
}

static int parse_args(int argc, char **argv, struct verify_opts *o)
{
	struct cmd_getopt g;
	const char *a;
	int r;

	memset(o, 0, sizeof(*o));
	o->size = VERIFY_SIZE_DEFAULT;
	o->timeout = VERIFY_TIMEOUT_DEFAULT;
	o->paths = (1u << VERIFY_NR_PATHS) - 1;
	cmd_getopt_init(&g, "verify", NULL, argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		a = g.arg;
		if (cmd_opt_is(&g, "--json")) {
			o->json = true;
		} else if (cmd_opt_is(&g, "--vllm-cache")) {
			o->vllm = true;
		} else if (cmd_opt_is(&g, "--sglang-cache")) {
			o->sglang = true;
		} else if (cmd_opt_is(&g, "--bandwidth")) {
			o->bandwidth = true;
		} else if (cmd_opt_is(&g, "--collective")) {
			o->collective = true;
		} else if (cmd_opt_is(&g, "--nccl")) {
			o->nccl = a;
		} else if (cmd_opt_is(&g, "--unit")) {
			/* As doctor takes it: a name under systemd's dirs. */
			if (!*a || strchr(a, '/')) {
				verr("p2pmap: verify: --unit takes a unit name (vllm.service), not a path\n");
				return -1;
			}
			o->unit = a;
		} else if (cmd_opt_is(&g, "--devices")) {
			if (parse_devices(a, o->spec, &o->nspec) ||
			    o->nspec < 2) {
				verr("p2pmap: invalid --devices \"%s\" (two or more CUDA ordinals, PCI addresses or GPU UUIDs, e.g. 0,1)\n",
					a);
				return -1;
			}
		} else if (cmd_opt_is(&g, "--paths")) {
			if (parse_paths(a, &o->paths)) {
				verr("p2pmap: invalid --paths \"%s\" (all, or copy, sm, ipc, cumem, comma-separated, each once)\n",
					a);
				return -1;
			}
		} else if (cmd_opt_is(&g, "--size")) {
			if (parse_size(a, &o->size)) {
				verr("p2pmap: invalid --size \"%s\" (1 byte to 1G; suffixes K, M, G)\n",
					a);
				return -1;
			}
		} else if (cmd_opt_is(&g, "--timeout")) {
			if (parse_timeout(a, &o->timeout)) {
				verr("p2pmap: invalid --timeout \"%s\" (1 to 3600 seconds)\n",
					a);
				return -1;
			}
		} else {
			cmd_getopt_refuse(&g);
			r = -1;
			break;
		}
	}
	if (!r && g.npos) {
		cmd_getopt_extra(&g, g.pos[0]);
		r = -1;
	}
	if (!r && (o->nccl || o->unit) && !o->collective) {
		verr("p2pmap: %s is for --collective\n",
		     o->nccl ? "--nccl" : "--unit");
		return -1;
	}
	/* Not yet: collective.h's design. */
	if (!r && o->collective && (o->vllm || o->sglang || o->bandwidth)) {
		verr("p2pmap: --collective does not yet combine with --vllm-cache, --sglang-cache or --bandwidth\n");
		return -1;
	}
	if (!r)
		return 0;
	/* The parser's message, for --json's document too. */
	snprintf(verify_error, sizeof(verify_error), "%s", g.error);
	return -1;
}

/* The children: everything CUDA happens there. */
struct copy_arg {
	int from, to;
	enum verify_path path;
	enum verify_op op;
	uint64_t size;
};

/*
 * A CUDA child's end: its result first (the driver's teardown may crash
 * or hang), then libcuda unloaded unless a teardown hung before.
 */
static void child_done(struct cuda_api *api)
{
	isolate_result_ready();
	if (!isolate_skip_teardown())
		cuda_unload(api);
}

static void copy_child(void *arg, void *out)
{
	const struct copy_arg *a = arg;
	struct verify_copy *c = out;
	const struct cuda_first_error fe = CUDA_FIRST_ERROR(c);
	struct cuda_api api;

	memset(c, 0, sizeof(*c));
	if (!cuda_child_load(&api, &fe))
		return;
	if (a->path == VERIFY_PATH_COPY)
		verify_copy_run(&api, a->from, a->to, a->op, a->size, c);
	else
		verify_path_run(&api, a->path, a->from, a->to, a->op, a->size,
				c);
	child_done(&api);
}

/* A GPU alone (verify_probe_run): does it still answer after a hang? */
static void probe_child(void *arg, void *out)
{
	const int *gpu = arg;
	struct verify_copy *c = out;
	const struct cuda_first_error fe = CUDA_FIRST_ERROR(c);
	struct cuda_api api;

	memset(c, 0, sizeof(*c));
	if (!cuda_child_load(&api, &fe))
		return;
	verify_probe_run(&api, *gpu, c);
	child_done(&api);
}

struct bw_arg {
	int from, to;
	const char *pci[2];		/* the child is forked: still valid */
	bool bidir;
};

static void bw_child(void *arg, void *out)
{
	const struct bw_arg *a = arg;
	struct verify_bw *bw = out;
	const struct cuda_first_error fe = CUDA_FIRST_ERROR(bw);
	struct cuda_api api;

	memset(bw, 0, sizeof(*bw));
	if (!cuda_child_load(&api, &fe))
		return;
	verify_bw_run(&api, a->from, a->to, a->pci, a->bidir, bw);
	child_done(&api);
}

/*
 * Why a GPU (by CUDA ordinal) is wedged, "" while it is not: it hung (or
 * stuck in the driver) in an operation, then hung or failed again alone.
 * Every later operation on it would cost a timeout: none is started.
 */
static char wedged_why[VERIFY_MAX_GPUS][VERIFY_ERR_LEN];

/* The GPU of @r found wedged, or NULL. */
static const struct verify_gpu *wedged_gpu(const struct verify_result *r)
{
	if (wedged_why[r->from->index][0])
		return r->from;
	return wedged_why[r->to->index][0] ? r->to : NULL;
}

/* The direction @to -> @from among the @n results, or NULL. */
static const struct verify_result *reverse(const struct verify_result *r,
					   size_t n,
					   const struct verify_result *d)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].from == d->to && r[i].to == d->from)
			return &r[i];
	return NULL;
}

static bool copy_works(const struct verify_result *r)
{
	return r->path[VERIFY_PATH_COPY].ran &&
	       r->path[VERIFY_PATH_COPY].verdict == VERIFY_WORKS;
}

/*
 * --bandwidth, after every verdict is in: only directions that work are
 * timed (a broken one could fault or hang again); both at once for the
 * first of two directions that both work.  Exit 1 when one is staged
 * through host memory (a slow direct one is not: its P2P works).
 */
static int run_bandwidth(const struct verify_opts *o, struct verify_result *r,
			 size_t n)
{
	const struct verify_result *rev;
	const struct verify_gpu *g;
	enum isolate_status st;
	struct bw_arg arg;
	int ret = EXIT_OK, timed = 0;
	size_t i;

	/* The figures each is compared with, all named before the numbers. */
	for (i = 0; i < n; i++) {
		if (!copy_works(&r[i]))
			continue;
		timed++;
		r[i].bw_ref = bw_reference_find(r[i].from->pci, r[i].to->pci,
						r[i].bw_ref_why,
						sizeof(r[i].bw_ref_why));
	}
	if (timed && !o->json)
		bw_figures_header(stdout, r, n);
	for (i = 0; i < n; i++) {
		/* The copy engine's numbers: where it works. */
		if (!copy_works(&r[i]))
			continue;
		rev = reverse(r, n, &r[i]);
		arg.from = r[i].from->index;
		arg.to = r[i].to->index;
		arg.pci[0] = r[i].from->pci;
		arg.pci[1] = r[i].to->pci;
		arg.bidir = rev && rev > &r[i] && copy_works(rev) &&
			    !wedged_gpu(rev);
		/* Wedged since its verdict: timing it would hang. */
		g = wedged_gpu(&r[i]);
		if (g)
			snprintf(r[i].bw_error, sizeof(r[i].bw_error),
				 "GPU%d (%s) wedged: %s", g->index, g->pci,
				 wedged_why[g->index]);
		st = g ? ISOLATE_FAILED :
			 isolate_run(bw_child, &arg, &r[i].bw, sizeof(r[i].bw),
				     o->timeout, r[i].bw_error,
				     sizeof(r[i].bw_error));
		if (st != ISOLATE_OK)
			memset(&r[i].bw, 0, sizeof(r[i].bw));
		r[i].has_bw = true;
		if (!r[i].bw.measured || verify_bw_staged(&r[i].bw))
			ret = EXIT_FAILED;
		if (!o->json) {
			verify_format_bandwidth(stdout, &r[i]);
			fflush(stdout);
		}
	}
	return ret;
}

/*
 * Every visible device, then the selection.  Returns the number selected,
 * or -(exit code).
 */
static int select_gpus(const struct verify_opts *o, struct verify_gpu *all,
		       int *count, struct verify_gpu *sel)
{
	struct verify_enum *e = calloc(1, sizeof(*e));
	enum isolate_status st;
	char why[VERIFY_ERR_LEN], kernel[256], advice[768];
	int i, j, n = 0, ret;
	size_t k;

	if (!e) {
		verr("p2pmap: out of memory\n");
		return -EXIT_FAILED;
	}
	st = isolate_run(verify_enum_child, NULL, e, sizeof(*e), o->timeout, why,
			 sizeof(why));
	ret = -EXIT_FAILED;
	if (st != ISOLATE_OK) {
		verr("p2pmap verify: listing the CUDA devices: %s\n",
			why);
	} else if (e->load == CUDA_LOAD_NOT_FOUND) {
		verr("p2pmap verify: no CUDA driver (" CUDA_LIB " not found)\n");
		ret = -EXIT_NO_GPU;
	} else if (e->load) {
		verr("p2pmap verify: the CUDA driver cannot be used: %s\n",
			e->err);
		ret = -EXIT_NO_GPU;
	} else if (e->init == CUDA_SUCCESS_ && !e->count) {
		verr("p2pmap verify: no CUDA devices\n");
		ret = -EXIT_NO_GPU;
	} else if (e->init != CUDA_SUCCESS_) {
		/* No usable CUDA driver, whatever the reason: exit 3. */
		cuda_init_advice(e->init, e->lib, nvidia_kernel_version(kernel,
				 sizeof(kernel)), advice, sizeof(advice));
		if (e->init == CUDA_ERR_NO_DEVICE)
			verr("p2pmap verify: no CUDA devices (cuInit: %s): %s\n",
			     e->err, advice);
		else
			verr("p2pmap verify: cuInit: %s: %s\n", e->err,
			     advice);
		ret = -EXIT_NO_GPU;
	} else {
		ret = 0;
	}
	if (ret) {
		free(e);
		return ret;
	}
	*count = e->count;
	for (i = 0; i < e->count; i++) {
		all[i].index = i;
		all[i].pci[0] = '\0';
		snprintf(all[i].uuid, sizeof(all[i].uuid), "%s", e->uuid[i]);
		if (e->busid_res[i] != CUDA_SUCCESS_)
			fprintf(stderr, "p2pmap verify: CUDA device %d: cuDeviceGetPCIBusId failed (%d): skipped\n",
				i, e->busid_res[i]);
		else if (verify_norm_busid(e->busid[i], all[i].pci))
			fprintf(stderr, "p2pmap verify: CUDA device %d: malformed PCI bus id \"%s\": skipped\n",
				i, e->busid[i]);
	}
	free(e);
	for (k = 0; k < (o->nspec ? o->nspec : (size_t)*count); k++) {
		i = o->nspec ? resolve_device(o->spec[k], all, *count) : (int)k;
		if (i < 0) {
			verr("p2pmap verify: no CUDA device %s (%d present)\n",
				o->spec[k], *count);
			return -EXIT_USAGE;
		}
		for (j = 0; j < n; j++) {
			if (sel[j].index == i) {
				verr("p2pmap verify: --devices names CUDA device %d twice (as %s)\n",
					i, o->spec[k]);
				return -EXIT_USAGE;
			}
		}
		if (!all[i].pci[0])
			continue;
		sel[n] = all[i];
		sel[n].pos = n;
		n++;
	}
	if (n < 2) {
		verr("p2pmap verify: fewer than two usable CUDA devices: no direction to verify\n");
		return -EXIT_NO_GPU;
	}
	return n;
}

/* One operation of one path of one direction: counters around its child. */
static void run_op(const struct verify_opts *o, struct verify_faults *faults,
		   struct verify_result *r, enum verify_path path,
		   enum verify_op op)
{
	struct verify_op_result *res = &r->path[path].op[op];
	struct copy_arg arg = {
		.from = r->from->index, .to = r->to->index, .path = path,
		.op = op, .size = o->size,
	};
	unsigned int left = isolate_left_behind();
	enum isolate_status st;

	res->has_before = faults->read(faults, r->from, r->to, path, op,
				       false, &res->faults_before);
	st = isolate_run(copy_child, &arg, &res->copy, sizeof(res->copy),
			 o->timeout, res->child_error,
			 sizeof(res->child_error));
	if (st != ISOLATE_OK)
		memset(&res->copy, 0, sizeof(res->copy));
	res->hung = st == ISOLATE_TIMEOUT;
	res->stuck = res->hung && isolate_left_behind() > left;
	res->has_after = faults->read(faults, r->from, r->to, path, op, true,
				      &res->faults_after);
	res->verdict = verify_decide(res);
	if (res->verdict == VERIFY_FAULTED && faults->last_hit &&
	    !faults->last_hit(faults, r->from, r->to, path, op, &res->hit))
		memset(&res->hit, 0, sizeof(res->hit));
}

/*
 * Why the PTX paths are not tested, once a child found that the driver
 * compiles no PTX ("" until then): every later child would find the same,
 * so they are not run.
 */
static char no_jit_why[2 * VERIFY_ERR_LEN];

/* Did path @pr find no PTX JIT?  Then it is not tested, and says why. */
static bool path_no_jit(struct verify_path_result *pr)
{
	const struct verify_copy *c;
	int op;

	for (op = 0; op < VERIFY_NR_OPS; op++) {
		c = &pr->op[op].copy;
		if (pr->op[op].verdict == VERIFY_ERROR && c->no_jit) {
			snprintf(no_jit_why, sizeof(no_jit_why),
				 "the driver compiles no PTX (%s: %s): in a container, pass in the host's libnvidia-ptxjitcompiler.so.1 beside libcuda.so.1; unset CUDA_DISABLE_JIT",
				 c->cuda_call, c->cuda_error);
			return true;
		}
	}
	return false;
}

/* An operation not run: its GPU @g is wedged. */
static void op_skip(struct verify_result *r, struct verify_op_result *res,
		    const struct verify_gpu *g)
{
	memset(res, 0, sizeof(*res));
	res->verdict = VERIFY_NOT_TESTED;
	snprintf(res->child_error, sizeof(res->child_error),
		 "GPU%d (%s) wedged: %s", g->index, g->pci,
		 wedged_why[g->index]);
	if (!r->wedged) {
		r->wedged = g;
		snprintf(r->wedged_why, sizeof(r->wedged_why), "%s",
			 wedged_why[g->index]);
	}
}

/*
 * GPU @g alone, after an operation on it hung: "" when it answers, else
 * how it did not ("hung too", "was stuck in the driver too", "failed:
 * ...").
 */
static void probe(const struct verify_opts *o, const struct verify_gpu *g,
		  char *how, size_t len)
{
	unsigned int left = isolate_left_behind();
	struct verify_copy c;
	enum isolate_status st;
	char why[VERIFY_ERR_LEN];
	int gpu = g->index;

	st = isolate_run(probe_child, &gpu, &c, sizeof(c), o->timeout, why,
			 sizeof(why));
	how[0] = '\0';
	if (st == ISOLATE_TIMEOUT)
		snprintf(how, len, "%s", isolate_left_behind() > left ?
			 "was stuck in the driver too" : "hung too");
	else if (st != ISOLATE_OK)
		snprintf(how, len, "failed: %s", why);
	else if (c.cuda_call[0])
		snprintf(how, len, "failed: %s: %s", c.cuda_call, c.cuda_error);
	else if (!c.data_checked || !c.data_ok)
		snprintf(how, len, "read its memory back wrong");
}

/*
 * Operation @op of path @p of @r hung: is it one of its GPUs?  Each not
 * yet wedged is tried alone; one that does not answer is wedged, said at
 * once (stderr), and its remaining directions are not run.  The other
 * answered: the hang is the pair's, and the next operations run.
 */
static void after_hang(const struct verify_opts *o, struct verify_result *r,
		       enum verify_path p, enum verify_op op)
{
	const struct verify_gpu *g[2] = { r->from, r->to };
	const struct verify_op_result *res = &r->path[p].op[op];
	char how[2 * VERIFY_ERR_LEN];
	int i;

	for (i = 0; i < 2; i++) {
		if (wedged_why[g[i]->index][0])
			continue;
		probe(o, g[i], how, sizeof(how));
		if (!how[0])
			continue;
		snprintf(wedged_why[g[i]->index], VERIFY_ERR_LEN,
			 "%s in %s %s of GPU%d -> GPU%d",
			 res->stuck ? "stuck in the driver" : "hung",
			 verify_path_name(p), verify_op_name(op),
			 r->from->index, r->to->index);
		fprintf(stderr, "p2pmap verify: GPU%d (%s) wedged: %s, and alone it %s; its remaining directions are not tested\n",
			g[i]->index, g[i]->pci, wedged_why[g[i]->index], how);
	}
}

/* Run operation @op of path @p of @r, or skip it: a GPU of it wedged. */
static void run_or_skip(const struct verify_opts *o,
			struct verify_faults *faults, struct verify_result *r,
			enum verify_path p, enum verify_op op)
{
	const struct verify_gpu *g = wedged_gpu(r);

	if (g) {
		op_skip(r, &r->path[p].op[op], g);
		return;
	}
	run_op(o, faults, r, p, op);
	if (r->path[p].op[op].hung)
		after_hang(o, r, p, op);
}

/*
 * Every path asked for, in order; the direction's verdict is the worst,
 * explained by the first path that has it (the copy engine on a tie).
 * A path the driver cannot run (no PTX JIT) is not tested, not judged.
 */
static void run_direction(const struct verify_opts *o,
			  struct verify_faults *faults,
			  const struct verify_gpu *from,
			  const struct verify_gpu *to, struct verify_result *r)
{
	struct verify_path_result *pr;
	int op, p, asked = VERIFY_NR_PATHS;

	memset(r, 0, sizeof(*r));
	r->from = from;
	r->to = to;
	r->size = o->size;
	r->timeout = o->timeout;
	r->verdict = VERIFY_WORKS;
	r->decided_by = VERIFY_NR_PATHS;
	for (p = 0; p < VERIFY_NR_PATHS; p++) {
		if (!(o->paths & (1u << p)))
			continue;
		pr = &r->path[p];
		if (asked == VERIFY_NR_PATHS)
			asked = p;
		pr->verdict = VERIFY_WORKS;
		if (p != VERIFY_PATH_COPY && no_jit_why[0]) {
			pr->no_jit = true;
			continue;
		}
		for (op = 0; op < VERIFY_NR_OPS; op++) {
			run_or_skip(o, faults, r, p, op);
			if (pr->op[op].verdict > pr->verdict)
				pr->verdict = pr->op[op].verdict;
		}
		if (p != VERIFY_PATH_COPY && path_no_jit(pr)) {
			pr->no_jit = true;
			continue;
		}
		pr->ran = true;
		if (r->decided_by == VERIFY_NR_PATHS ||
		    pr->verdict > r->verdict) {
			r->verdict = pr->verdict;
			r->decided_by = p;
		}
	}
	if (no_jit_why[0])
		snprintf(r->not_tested, sizeof(r->not_tested), "%s",
			 no_jit_why);
	/* Nothing tested (--paths sm alone, no JIT): an error, said why. */
	if (r->decided_by == VERIFY_NR_PATHS) {
		r->verdict = VERIFY_ERROR;
		r->decided_by = asked;
		for (op = 0; op < VERIFY_NR_OPS; op++) {
			r->path[asked].op[op].verdict = VERIFY_ERROR;
			if (!r->path[asked].op[op].copy.cuda_call[0])
				snprintf(r->path[asked].op[op].child_error,
					 sizeof(r->path[asked].op[op].child_error),
					 "not tested: no PTX JIT");
		}
	}
	memcpy(r->op, r->path[r->decided_by].op, sizeof(r->op));
}

static bool ran_blind(const struct verify_result *r)
{
	int op, p;

	for (p = 0; p < VERIFY_NR_PATHS; p++)
		for (op = 0; op < VERIFY_NR_OPS; op++)
			if (r->path[p].ran &&
			    r->path[p].op[op].copy.data_checked &&
			    !(r->path[p].op[op].has_before &&
			      r->path[p].op[op].has_after))
				return true;
	return false;
}

/*
 * One framework's cache and its record (what it was verified for: @env,
 * read before the first direction ran): its path in @path, or NULL after
 * saying why.
 */
static const char *write_cache(enum verify_framework fw,
			       const char *order_problem,
			       const struct verify_result *r, size_t n,
			       const struct verify_gpu *sel, size_t ngpus,
			       int count, const struct cache_record_env *env,
			       char *path, size_t len)
{
	const char *order = getenv("CUDA_DEVICE_ORDER");
	const char *name = fw == VERIFY_VLLM ? "vLLM" : "SGLang";
	char why[512];

	if (!order_problem)
		order_problem = verify_cache_untested(fw, r, n);
	if (order_problem) {
		fprintf(stderr, "p2pmap verify: not writing the %s cache: %s\n",
			name, order_problem);
		return NULL;
	}
	if (verify_cache_path(fw, sel, ngpus, count,
			      getenv("CUDA_VISIBLE_DEVICES"), path, len, why,
			      sizeof(why))) {
		fprintf(stderr, "p2pmap verify: not writing the %s cache: %s\n",
			name, why);
		return NULL;
	}
	if (verify_cache_write(path, r, n, ngpus, fw))
		return NULL;
	if (cache_record_write(fw == VERIFY_VLLM ? "vllm" : "sglang", path,
			       sel, ngpus, order && !strcmp(order, "PCI_BUS_ID") ?
			       "PCI_BUS_ID" : "FASTEST_FIRST",
			       getenv("CUDA_VISIBLE_DEVICES"), env)) {
		fprintf(stderr, "p2pmap verify: the %s cache %s was written, but p2pmap check cannot tell when it goes stale\n",
			name, path);
		return NULL;
	}
	return path;
}

static int run(const struct verify_opts *o, const struct verify_gpu *all,
	       int count, const struct verify_gpu *sel, size_t ngpus)
{
	const char *order = getenv("CUDA_DEVICE_ORDER"), *problem;
	char vllm[PATH_MAX], sglang[PATH_MAX];
	struct verify_caches caches = { 0 };
	const char *env = getenv(VERIFY_FAULTS_ENV);
	struct cache_record_env *then = NULL;
	struct verify_faults faults;
	struct verify_result *r;
	bool warned = false;
	size_t a, b, n = 0;
	int ret = EXIT_OK;

	if (env && *env ? verify_faults_file_open(&faults, env) :
			  verify_faults_nl_open(&faults)) {
		snprintf(verify_error, sizeof(verify_error),
			 "p2pmap verify: the fault counters cannot be read");
		return o->json ? json_failure(EXIT_FAILED) : EXIT_FAILED;
	}
	r = calloc(ngpus * (ngpus - 1), sizeof(*r));
	if ((o->vllm || o->sglang) && r && (then = calloc(1, sizeof(*then))))
		cache_record_now("/", sel, ngpus, then);
	if (!r || ((o->vllm || o->sglang) && !then)) {
		free(r);
		verr("p2pmap: out of memory\n");
		verify_faults_close(&faults);
		return o->json ? json_failure(EXIT_FAILED) : EXIT_FAILED;
	}
	for (a = 0; a < ngpus; a++) {
		for (b = 0; b < ngpus; b++) {
			if (a == b)
				continue;
			run_direction(o, &faults, &sel[a], &sel[b], &r[n]);
			if (!warned && ran_blind(&r[n])) {
				fprintf(stderr, "p2pmap: verify: fault counters unknown (%s): verdicts from the data alone\n",
					faults.why ? faults.why : "?");
				warned = true;
			}
			if (!o->json) {
				verify_format_result(stdout, &r[n]);
				fflush(stdout);
			}
			if (r[n].verdict != VERIFY_WORKS)
				ret = EXIT_FAILED;
			n++;
		}
	}
	if (o->bandwidth && run_bandwidth(o, r, n))
		ret = EXIT_FAILED;
	caches.order = order && !strcmp(order, "PCI_BUS_ID") ? "PCI_BUS_ID" :
							       "FASTEST_FIRST";
	problem = verify_order_problem(order, getenv("CUDA_VISIBLE_DEVICES"),
				       all, count);
	if (o->vllm && !(caches.vllm = write_cache(VERIFY_VLLM, problem, r, n,
						   sel, ngpus, count, then,
						   vllm, sizeof(vllm))))
		ret = EXIT_FAILED;
	if (o->sglang && !(caches.sglang = write_cache(VERIFY_SGLANG, problem,
						       r, n, sel, ngpus, count,
						       then, sglang,
						       sizeof(sglang))))
		ret = EXIT_FAILED;
	if (isolate_left_behind())
		fprintf(stderr, "p2pmap verify: %u test process(es) stayed after SIGKILL (stuck in the driver, which no signal ends): left behind\n",
			isolate_left_behind());
	if (isolate_killed_after_result())
		fprintf(stderr, "p2pmap verify: %u test process(es) did not exit after reporting (libcuda's teardown hung): killed, their results stand\n",
			isolate_killed_after_result());
	if (o->json) {
		verify_json(stdout, r, n, &caches);
	} else {
		verify_format_summary(stdout, r, n);
		if (caches.vllm)
			printf("vllm cache: %s (read by vLLM only with VLLM_SKIP_P2P_CHECK=0)\n",
			       caches.vllm);
		if (caches.sglang)
			printf("sglang cache: %s (read by SGLang unless SGLANG_SKIP_P2P_CHECK=1)\n",
			       caches.sglang);
		if ((caches.vllm || caches.sglang) &&
		    !strcmp(caches.order, "PCI_BUS_ID"))
			printf("device order: PCI_BUS_ID (start the server with CUDA_DEVICE_ORDER=PCI_BUS_ID too)\n");
	}
	free(then);
	free(r);
	verify_faults_close(&faults);
	return ret;
}

/* --collective: the NCCL all-reduce per group instead of the directions. */
static int run_collective(const struct verify_opts *o,
			  const struct verify_gpu *sel, size_t ngpus)
{
	const char *env = getenv(VERIFY_FAULTS_ENV);
	bool named = o->nccl && *o->nccl;
	struct coll_opts co = {
		.nccl = named ? o->nccl : getenv(NCCL_LIB_ENV),
		.from = named ? "--nccl" : NCCL_LIB_ENV,
		.unit = o->unit,
		.timeout = o->timeout,
		.json = o->json,
	};
	struct verify_faults faults;
	int ret;

	if (co.nccl && !*co.nccl)
		co.nccl = NULL;
	if (!co.nccl)
		co.from = NULL;
	if (env && *env ? verify_faults_file_open(&faults, env) :
			  verify_faults_nl_open(&faults)) {
		verr("p2pmap verify: the fault counters cannot be read\n");
		return o->json ? json_failure(EXIT_FAILED) : EXIT_FAILED;
	}
	ret = coll_run(&co, sel, ngpus, &faults);
	verify_faults_close(&faults);
	return ret;
}

int cmd_verify(int argc, char **argv)
{
	struct verify_gpu all[VERIFY_MAX_GPUS], sel[VERIFY_MAX_GPUS];
	struct verify_opts o;
	int count = 0, n;
	bool json = false;

	/* Before parsing, which reorders argv: a usage error in JSON too. */
	for (n = 1; n < argc && strcmp(argv[n], "--"); n++) {
		json |= !strcmp(argv[n], "--json");
		collective_failure |= !strcmp(argv[n], "--collective");
	}
	if (parse_args(argc, argv, &o))
		return json ? json_failure(EXIT_USAGE) : EXIT_USAGE;
	n = select_gpus(&o, all, &count, sel);
	if (n < 0)
		return o.json ? json_failure(-n) : -n;
	if (o.collective)
		return run_collective(&o, sel, n);
	return run(&o, all, count, sel, n);
}
