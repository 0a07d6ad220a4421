// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap env --verify FILE [--devices LIST] [--format shell|systemd|nfd]
 *            [--output FILE] [--root DIR] [--json]
 * The environment that p2pmap verify's matrix (FILE: its --json document,
 * or the text an older setup saved: verify_output.h) allows for NCCL,
 * vLLM and SGLang.  P2P is recommended only when every direction among
 * the GPUs worked in FILE (and, if --bandwidth timed it, was not staged
 * through host memory: a slow direct one is kept), its p2pmap link (where
 * it has one) is mapped now, and that link counted no fault: NCCL has no
 * per-pair switch, so one bad direction keeps P2P off for all, and each
 * direction left out is named with the reason.  Where verify said each path's
 * verdict (verify_paths.h), "works" is NCCL's paths' verdict, and
 * NCCL_CUMEM_ENABLE and SGLANG_ENABLE_PCIE_IPC_ALLREDUCE follow the cuMem
 * and IPC paths.  Links and the PCI tree are read
 * under DIR/sys (default /).
 * --format nfd: Kubernetes node labels for Node Feature Discovery
 * (nfd.h) on stdout, or --output FILE (NFD_DEFAULT_PATH, in the units)
 * written when P2P is on and removed when it is not.
 * Exit 0: P2P for every direction; 1: some direction left out, or FILE
 * unreadable; 2: usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "format.h"
#include "json.h"
#include "link_sysfs.h"
#include "nfd.h"
#include "pciaddr.h"
#include "verify_output.h"
#include "verify_paths.h"

#define ENV_USAGE	cmd_usage("env", NULL)
#define ENV_MAX_GPUS 64

struct env_gpu {
	int label;			/* verify's GPUn */
	char addr[P2PMAP_ADDR_LEN];
	char root_bus[32];		/* "pci0000:40", or "" unknown */
};

struct env_dir {
	const struct env_gpu *from, *to;
	struct link_sysfs link;
	bool usable;			/* for NCCL */
	char why[600];			/* why it is left out */
	bool paths_known;		/* verify said each path's verdict */
	bool cumem_works, sglang_ok;	/* its cuMem path; SGLang's paths,
					 * with the link mapped, no fault */
};

struct env_plan {
	const char *verify_path;
	size_t ngpus, ndirs, usable;
	struct env_gpu gpus[ENV_MAX_GPUS];
	struct env_dir dirs[ENV_MAX_GPUS * (ENV_MAX_GPUS - 1)];
	bool loaded, p2p, cross, cross_unknown;
	const char *nccl_level;		/* NCCL_P2P_LEVEL to set, or NULL */
	bool paths_known;		/* every direction's paths known */
	const char *cumem;		/* NCCL_CUMEM_ENABLE to set, or NULL */
	bool sglang_ipc;		/* SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1 */
	const struct env_dir *no_cumem, *no_sglang;	/* the first why not */
};

static struct env_gpu *gpu_find(struct env_plan *pl, const char *addr)
{
	size_t i;

	for (i = 0; i < pl->ngpus; i++)
		if (!strcmp(pl->gpus[i].addr, addr))
			return &pl->gpus[i];
	return NULL;
}

static int gpu_add(struct env_plan *pl, int label, const char *addr)
{
	struct env_gpu *g;

	if (gpu_find(pl, addr))
		return 0;
	if (pl->ngpus == ENV_MAX_GPUS)
		return -E2BIG;
	g = &pl->gpus[pl->ngpus++];
	g->label = label;
	snprintf(g->addr, sizeof(g->addr), "%s", addr);
	return 0;
}

static int by_label(const void *a, const void *b)
{
	const struct env_gpu *x = a, *y = b;

	return x->label - y->label;
}

/* The GPUs of verify's output, in its order. */
static int gpus_from_verify(struct env_plan *pl,
			    const struct verify_output *vr)
{
	size_t i;

	for (i = 0; i < vr->n; i++)
		if (gpu_add(pl, vr->v[i].from_gpu, vr->v[i].from) ||
		    gpu_add(pl, vr->v[i].to_gpu, vr->v[i].to))
			return -E2BIG;
	qsort(pl->gpus, pl->ngpus, sizeof(pl->gpus[0]), by_label);
	return 0;
}

/* --devices: verify's GPUs named by PCI address or GPUn, in that order. */
static int gpus_select(struct env_plan *pl, const char *list)
{
	struct env_gpu picked[ENV_MAX_GPUS];
	char *copy = strdup(list), *tok, *save = NULL;
	char addr[P2PMAP_ADDR_LEN], err[96];
	size_t n = 0, i;
	int label, ret = 0;
	char *end;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct env_gpu *g = NULL;

		if (!strncmp(tok, "GPU", 3)) {
			label = (int)strtol(tok + 3, &end, 10);
			for (i = 0; !*end && end != tok + 3 && i < pl->ngpus; i++)
				if (pl->gpus[i].label == label)
					g = &pl->gpus[i];
		} else if (!pciaddr_parse(tok, addr, err, sizeof(err))) {
			g = gpu_find(pl, addr);
		}
		for (i = 0; g && i < n; i++)
			if (!strcmp(picked[i].addr, g->addr))
				g = NULL;
		if (!g) {
			fprintf(stderr, "p2pmap: env: --devices: \"%s\" is not a GPU of %s (once each, as a PCI address or GPUn)\n",
				tok, pl->verify_path);
			ret = -EINVAL;
		} else {
			picked[n++] = *g;
		}
	}
	free(copy);
	if (ret)
		return ret;
	memcpy(pl->gpus, picked, n * sizeof(picked[0]));
	pl->ngpus = n;
	return 0;
}

/* One direction: usable, or why not. */
static void judge(struct env_plan *pl, const struct verify_output *vr,
		  const char *root, struct env_dir *d)
{
	const struct verify_line *v;
	struct link_sysfs *l = &d->link;
	char why[sizeof(d->why)] = "";

	const char *cm;
	int nccl;

	v = verify_output_find(vr, d->from->addr, d->to->addr);
	link_sysfs_read(root, d->from->addr, d->to->addr, l);
	/* NCCL's paths when verify said them, else its one verdict. */
	nccl = v ? verify_line_fw(v, VERIFY_FW_NCCL) : 0;
	if (v && nccl < 0)
		nccl = !strcmp(v->what, "works");
	if (v && v->has_paths) {
		d->paths_known = verify_line_fw(v, VERIFY_FW_NCCL) >= 0;
		cm = verify_line_path(v, VERIFY_PATH_CUMEM);
		d->cumem_works = cm && !strcmp(cm, "works");
		d->sglang_ok = verify_line_fw(v, VERIFY_FW_SGLANG) == 1;
	}
	if (!v)
		snprintf(why, sizeof(why), "not in %s", pl->verify_path);
	else if (!nccl)
		snprintf(why, sizeof(why), "verify found it %s%s%s", v->what,
			 v->detail[0] ? " " : "", v->detail);
	else if (v->looks_staged)
		snprintf(why, sizeof(why),
			 "verify --bandwidth found its copies staged through host memory (a staged copy's latency with peer access, or none possible): not P2P");
	else if (!pl->loaded)
		snprintf(why, sizeof(why),
			 "p2pmap is not loaded: the links verify ran with are not mapped now");
	else if (l->exists && strcmp(l->state, "mapped"))
		snprintf(why, sizeof(why), "its p2pmap link is %s%s%s",
			 l->state, l->reason[0] ? ": " : "", l->reason);
	else if (l->exists && l->has_faults && l->faults)
		snprintf(why, sizeof(why),
			 "its p2pmap link counted %" PRIu64 " IOMMU fault(s) since p2pmap loaded (p2pmap faults)",
			 l->faults);
	d->usable = !why[0];
	/*
	 * SGLang's IPC all-reduce: its paths (a subset of NCCL's), and the
	 * same link checks.
	 */
	d->sglang_ok = d->sglang_ok && d->usable;
	memcpy(d->why, why, sizeof(why));
}

static void plan(struct env_plan *pl, const struct verify_output *vr,
		 const char *root)
{
	struct env_dir *d;
	size_t i, j;

	pl->loaded = link_sysfs_loaded(root);
	for (i = 0; i < pl->ngpus; i++)
		if (link_sysfs_root_bus(root, pl->gpus[i].addr,
					pl->gpus[i].root_bus,
					sizeof(pl->gpus[i].root_bus)))
			pl->gpus[i].root_bus[0] = '\0';
	for (i = 0; i < pl->ngpus; i++) {
		for (j = 0; j < pl->ngpus; j++) {
			if (i == j)
				continue;
			d = &pl->dirs[pl->ndirs++];
			memset(d, 0, sizeof(*d));
			d->from = &pl->gpus[i];
			d->to = &pl->gpus[j];
			judge(pl, vr, root, d);
			pl->usable += d->usable;
			if (!d->from->root_bus[0] || !d->to->root_bus[0])
				pl->cross_unknown = true;
			else if (strcmp(d->from->root_bus, d->to->root_bus))
				pl->cross = true;
		}
	}
	pl->p2p = pl->ndirs && pl->usable == pl->ndirs;
	/*
	 * With each path's verdict: NCCL_CUMEM_ENABLE as the cuMem path
	 * says (0: NCCL falls back to IPC handles, which then worked, else
	 * the direction would not be usable), and SGLang's PCIe IPC
	 * all-reduce only where IPC works in every direction.
	 */
	pl->paths_known = pl->ndirs > 0;
	pl->sglang_ipc = pl->ndirs > 0;
	for (i = 0; i < pl->ndirs; i++) {
		d = &pl->dirs[i];
		pl->paths_known = pl->paths_known && d->paths_known;
		if (!d->cumem_works && !pl->no_cumem)
			pl->no_cumem = d;
		if (!d->sglang_ok && !pl->no_sglang)
			pl->no_sglang = d;
	}
	pl->sglang_ipc = pl->paths_known && !pl->no_sglang;
	if (pl->p2p && pl->paths_known)
		pl->cumem = pl->no_cumem ? "0" : "1";
	/*
	 * NCCL 2.23+ keeps P2P within one host bridge (PXB) on AMD hosts
	 * with more than two GPUs; SYS lets it cross, which is safe here
	 * because every direction among these GPUs was verified.
	 */
	if (pl->p2p && (pl->cross || pl->cross_unknown))
		pl->nccl_level = "SYS";
}

enum env_format { ENV_SHELL, ENV_SYSTEMD, ENV_NFD };

static void put_var(enum env_format fmt, const char *name, const char *value)
{
	if (fmt == ENV_SYSTEMD && value)
		printf("Environment=%s=%s\n", name, value);
	else if (fmt == ENV_SYSTEMD)
		printf("UnsetEnvironment=%s\n", name);
	else if (value)
		printf("export %s=%s\n", name, value);
	else
		printf("unset %s\n", name);
}

static void print_text(const struct env_plan *pl, enum env_format fmt)
{
	const struct env_dir *d;
	size_t i;

	printf("# p2pmap env: %zu GPUs from %s (", pl->ngpus, pl->verify_path);
	for (i = 0; i < pl->ngpus; i++)
		printf("%sGPU%d %s", i ? ", " : "", pl->gpus[i].label,
		       pl->gpus[i].addr);
	printf("): %zu of %zu directions usable\n", pl->usable, pl->ndirs);
	if (!pl->loaded)
		printf("# left out: every direction verify found working: p2pmap is not loaded, so the links verify ran with are not mapped now\n");
	for (i = 0; i < pl->ndirs; i++) {
		d = &pl->dirs[i];
		if (!d->usable && (pl->loaded || strncmp(d->why, "p2pmap is", 9)))
			printf("# left out: GPU%d (%s) -> GPU%d (%s): %s\n",
			       d->from->label, d->from->addr, d->to->label,
			       d->to->addr, d->why);
	}
	if (fmt == ENV_SYSTEMD)
		printf("# a drop-in for the inference server's unit, e.g.\n"
		       "# /etc/systemd/system/UNIT.service.d/p2pmap.conf\n"
		       "[Service]\n");
	if (pl->p2p) {
		printf("# P2P on: every direction worked in verify, its link is mapped and counted no fault\n");
		put_var(fmt, "NCCL_P2P_DISABLE", NULL);
	} else {
		printf("# P2P stays off: NCCL has no per-pair switch, and the directions above are not usable\n");
		put_var(fmt, "NCCL_P2P_DISABLE", "1");
	}
	if (pl->nccl_level) {
		if (pl->cross)
			printf("# the GPUs sit under different PCI root complexes: NCCL 2.23+ would keep P2P within one (PXB)\n");
		else
			printf("# the GPUs' PCI root complexes could not be read: NCCL 2.23+ may keep P2P within one (PXB)\n");
		put_var(fmt, "NCCL_P2P_LEVEL", pl->nccl_level);
	}
	if (pl->cumem && pl->no_cumem) {
		printf("# NCCL's cuMem path (NCCL_CUMEM_ENABLE, on by default) did not work GPU%d -> GPU%d; its IPC handles did in every direction\n",
		       pl->no_cumem->from->label, pl->no_cumem->to->label);
		put_var(fmt, "NCCL_CUMEM_ENABLE", pl->cumem);
	} else if (pl->cumem) {
		printf("# NCCL's cuMem path (its default) worked in every direction\n");
		put_var(fmt, "NCCL_CUMEM_ENABLE", pl->cumem);
	}
	printf("# vLLM reads the cache p2pmap verify wrote (--vllm-cache) only with this; its default trusts cuDeviceCanAccessPeer, which ignores the IOMMU\n");
	put_var(fmt, "VLLM_SKIP_P2P_CHECK", "0");
	printf("# SGLang runs its own P2P test by default (SGLANG_SKIP_P2P_CHECK unset): nothing to set\n");
	if (pl->sglang_ipc) {
		printf("# SGLang's opt-in PCIe all-reduce (FlashInfer over CUDA IPC; TP of 2, 4 or 8): IPC and the SMs' loads and stores worked in every direction\n");
		put_var(fmt, "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE", "1");
	} else if (pl->paths_known && pl->no_sglang) {
		printf("# SGLANG_ENABLE_PCIE_IPC_ALLREDUCE not set: its IPC path is not usable GPU%d -> GPU%d\n",
		       pl->no_sglang->from->label, pl->no_sglang->to->label);
	}
}

/* The GPUs' NUMA nodes, "0" or "0_1" (a label value); "" if one is unknown. */
static void numa_nodes(const struct env_plan *pl, const char *root, char *buf,
		       size_t len)
{
	bool seen[64] = { false };
	char path[256], line[32];
	size_t i, used = 0;
	int node;
	FILE *f;

	buf[0] = '\0';
	for (i = 0; i < pl->ngpus; i++) {
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/numa_node",
			 root, pl->gpus[i].addr);
		f = fopen(path, "r");
		node = -1;
		if (f) {
			if (fgets(line, sizeof(line), f))
				node = atoi(line);
			fclose(f);
		}
		if (node < 0 || node >= 64)
			return;
		seen[node] = true;
	}
	for (node = 0; node < 64 && used < len; node++)
		if (seen[node])
			used += snprintf(buf + used, len - used, "%s%d",
					 used ? "_" : "", node);
}

/* --format nfd: the labels when P2P is on; with --output, the file. */
static int print_nfd(const struct env_plan *pl, const char *root,
		     const char *output)
{
	struct nfd_labels l = { .gpus = pl->ngpus, .source = pl->verify_path };

	numa_nodes(pl, root, l.numa, sizeof(l.numa));
	if (output)
		return nfd_write(output, pl->p2p, &l);
	if (pl->p2p)
		nfd_render(stdout, &l);
	else
		printf("# p2pmap: P2P not verified (%zu of %zu directions usable): no labels (p2pmap env --verify %s says why)\n",
		       pl->usable, pl->ndirs, pl->verify_path);
	return 0;
}

/* A link state from /sys as status --json names it: "unknown" if new. */
static const char *state_name(const char *sysfs)
{
	uint32_t s;

	for (s = P2PMAP_LINK_PENDING; s <= P2PMAP_LINK_ERROR; s++)
		if (!strcmp(sysfs, format_link_state(s)))
			return sysfs;
	return "unknown";
}

static void print_json(const struct env_plan *pl)
{
	const struct env_dir *d;
	struct json j;
	size_t i;

	json_init(&j, stdout);
	json_doc_begin(&j);
	json_key(&j, "verify");
	json_str(&j, pl->verify_path);
	json_key(&j, "module_loaded");
	json_bool(&j, pl->loaded);
	json_key(&j, "devices");
	json_arr_begin(&j);
	for (i = 0; i < pl->ngpus; i++) {
		json_obj_begin(&j);
		json_key(&j, "gpu");
		json_s64(&j, pl->gpus[i].label);
		json_key(&j, "pci");
		json_str(&j, pl->gpus[i].addr);
		json_key(&j, "root_bus");
		json_str_or_null(&j, pl->gpus[i].root_bus);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "directions");
	json_u64(&j, pl->ndirs);
	json_key(&j, "usable");
	json_u64(&j, pl->usable);
	json_key(&j, "p2p");
	json_bool(&j, pl->p2p);
	json_key(&j, "pairs");
	json_arr_begin(&j);
	for (i = 0; i < pl->ndirs; i++) {
		d = &pl->dirs[i];
		json_obj_begin(&j);
		json_key(&j, "from");
		json_str(&j, d->from->addr);
		json_key(&j, "to");
		json_str(&j, d->to->addr);
		json_key(&j, "usable");
		json_bool(&j, d->usable);
		json_key(&j, "link_state");
		json_enum(&j, d->link.exists ? state_name(d->link.state) :
			  NULL);
		json_key_u64_or_null(&j, "faults",
				     d->link.exists && d->link.has_faults,
				     d->link.faults);
		json_key(&j, "why");
		json_str_or_null(&j, d->why);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "set");
	json_obj_begin(&j);
	if (!pl->p2p) {
		json_key(&j, "NCCL_P2P_DISABLE");
		json_str(&j, "1");
	}
	if (pl->nccl_level) {
		json_key(&j, "NCCL_P2P_LEVEL");
		json_str(&j, pl->nccl_level);
	}
	if (pl->cumem) {
		json_key(&j, "NCCL_CUMEM_ENABLE");
		json_str(&j, pl->cumem);
	}
	json_key(&j, "VLLM_SKIP_P2P_CHECK");
	json_str(&j, "0");
	if (pl->sglang_ipc) {
		json_key(&j, "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE");
		json_str(&j, "1");
	}
	json_obj_end(&j);
	json_key(&j, "unset");
	json_arr_begin(&j);
	if (pl->p2p)
		json_str(&j, "NCCL_P2P_DISABLE");
	json_arr_end(&j);
	json_obj_end(&j);
	putchar('\n');
}

int cmd_env(int argc, char **argv)
{
	const char *devices = NULL, *root = "", *output = NULL;
	struct verify_output *vr = calloc(1, sizeof(*vr));
	struct env_plan *pl = calloc(1, sizeof(*pl));
	enum env_format fmt = ENV_SHELL;
	int ret = EXIT_FAILED, i, err;
	struct cmd_getopt g;
	char why[512];
	bool json = false;

	if (!vr || !pl) {
		fprintf(stderr, "p2pmap: out of memory\n");
		goto out;
	}
	cmd_getopt_init(&g, "env", NULL, argc, argv);
	while ((i = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--json")) {
			json = true;
		} else if (cmd_opt_is(&g, "--verify")) {
			pl->verify_path = g.arg;
		} else if (cmd_opt_is(&g, "--devices")) {
			devices = g.arg;
		} else if (cmd_opt_is(&g, "--root")) {
			root = g.arg;
		} else if (cmd_opt_is(&g, "--output")) {
			output = g.arg;
		} else if (cmd_opt_is(&g, "--format") &&
			   (!strcmp(g.arg, "shell") || !strcmp(g.arg, "systemd") ||
			    !strcmp(g.arg, "nfd"))) {
			fmt = !strcmp(g.arg, "shell") ? ENV_SHELL :
			      !strcmp(g.arg, "nfd") ? ENV_NFD : ENV_SYSTEMD;
		} else if (cmd_opt_is(&g, "--format")) {
			fprintf(stderr, "p2pmap: env: --format takes shell, systemd or nfd, not \"%s\"; %s\n",
				g.arg, ENV_USAGE);
			ret = EXIT_USAGE;
			goto out;
		} else {
			ret = cmd_getopt_refuse(&g);
			goto out;
		}
	}
	if (i < 0 || g.npos) {
		ret = i < 0 ? EXIT_USAGE : cmd_getopt_extra(&g, g.pos[0]);
		goto out;
	}
	if (output && fmt != ENV_NFD) {
		fprintf(stderr, "p2pmap: env: --output is for --format nfd; %s\n",
			ENV_USAGE);
		ret = EXIT_USAGE;
		goto out;
	}
	if (!pl->verify_path) {
		fprintf(stderr, "p2pmap: env needs p2pmap verify's output (p2pmap verify --json > FILE); %s\n",
			ENV_USAGE);
		ret = EXIT_USAGE;
		goto out;
	}
	if (!strcmp(root, "/"))
		root = "";
	err = verify_output_read(pl->verify_path, vr, why, sizeof(why));
	if (err) {
		fprintf(stderr, "p2pmap: env: %s: %s\n", pl->verify_path, why);
		goto unverified;
	}
	if (gpus_from_verify(pl, vr)) {
		fprintf(stderr, "p2pmap: env: %s names more than %d GPUs\n",
			pl->verify_path, ENV_MAX_GPUS);
		goto out;
	}
	if (devices && gpus_select(pl, devices)) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (pl->ngpus < 2) {
		fprintf(stderr, "p2pmap: env: %s has fewer than two GPUs to judge (is it p2pmap verify's output?)\n",
			pl->verify_path);
		goto unverified;
	}
	plan(pl, vr, root);
	if (fmt == ENV_NFD) {
		if (print_nfd(pl, root, output)) {
			ret = EXIT_FAILED;
			goto out;
		}
	} else if (json) {
		print_json(pl);
	} else {
		print_text(pl, fmt);
	}
	ret = pl->p2p ? EXIT_OK : EXIT_FAILED;
	goto out;
unverified:
	/* No verdict to label with: labels of an earlier one must go. */
	if (fmt == ENV_NFD && output)
		nfd_write(output, false, NULL);
out:
	free(vr);
	free(pl);
	return ret;
}
