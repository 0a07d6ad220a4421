// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: the inference server's environment (a systemd unit with its
 * drop-ins, a process's environ, or a file).
 */
#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"


struct env {
	char disable[16], level[16], vllm[16], cvd[64], order[32];
	bool read;
	char from[160];
};

static void env_set(struct env *e, const char *kv)
{
	static const struct {
		const char *key;
		size_t off, len;
	} keys[] = {
		{ "NCCL_P2P_DISABLE=", offsetof(struct env, disable), 16 },
		{ "NCCL_P2P_LEVEL=", offsetof(struct env, level), 16 },
		{ "VLLM_SKIP_P2P_CHECK=", offsetof(struct env, vllm), 16 },
		{ "CUDA_VISIBLE_DEVICES=", offsetof(struct env, cvd), 64 },
		{ "CUDA_DEVICE_ORDER=", offsetof(struct env, order), 32 },
	};
	size_t i, n;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		n = strlen(keys[i].key);
		if (!strncmp(kv, keys[i].key, n))
			snprintf((char *)e + keys[i].off, keys[i].len, "%.*s",
				 (int)strcspn(kv + n, "\"' \n"), kv + n);
	}
}

/* UnsetEnvironment=A B: those are not passed, whatever set them. */
static void env_unset(struct env *e, char *names)
{
	char *tok, *save = NULL, kv[64];

	for (tok = strtok_r(names, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		snprintf(kv, sizeof(kv), "%.62s=", tok);
		env_set(e, kv);
	}
}

/* KEY=VALUE words of one line ("Environment=A=1 B=2" for units). */
static void env_line(struct env *e, char *line)
{
	char *tok, *save = NULL;

	if (!strncmp(line, "UnsetEnvironment=", 17)) {
		env_unset(e, line + 17);
		return;
	}
	if (!strncmp(line, "Environment=", 12))
		line += 12;
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (*tok == '"' || *tok == '\'')
			tok++;
		if (!strncmp(tok, "export", 6) && !tok[6])
			continue;
		env_set(e, tok);
	}
}

static bool env_file(struct env *e, const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#')
			env_line(e, line);
	fclose(f);
	return true;
}

static void read_env(struct host *h, const struct doctor_env_source *src,
		     struct env *e)
{
	char path[PATH_MAX], buf[65536];
	struct dirent **names;
	size_t len, off;
	int n, i;
	FILE *f;

	memset(e, 0, sizeof(*e));
	if (src->file) {
		e->read = env_file(e, src->file);
		snprintf(e->from, sizeof(e->from), "%s", src->file);
	} else if (src->unit) {
		snprintf(path, sizeof(path), "%s/etc/systemd/system/%s",
			 h->root, src->unit);
		e->read = env_file(e, path);
		/* Drop-ins after the unit, in name order, as systemd does. */
		snprintf(path, sizeof(path), "%s/etc/systemd/system/%s.d",
			 h->root, src->unit);
		n = scandir(path, &names, NULL, alphasort);
		for (i = 0; i < n; i++) {
			char dropin[PATH_MAX + 256];

			snprintf(dropin, sizeof(dropin), "%s/%s", path,
				 names[i]->d_name);
			if (strstr(names[i]->d_name, ".conf"))
				env_file(e, dropin);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		snprintf(e->from, sizeof(e->from), "unit %s", src->unit);
	} else if (src->pid) {
		snprintf(path, sizeof(path), "%s/proc/%s/environ", h->root,
			 src->pid);
		f = fopen(path, "r");
		if (f) {
			len = fread(buf, 1, sizeof(buf) - 1, f);
			buf[len] = '\0';
			fclose(f);
			for (off = 0; off < len; off += strlen(buf + off) + 1)
				env_set(e, buf + off);
			e->read = true;
		}
		snprintf(e->from, sizeof(e->from), "process %s", src->pid);
	}
}

static bool cross_root(const struct host *h)
{
	size_t i, j;

	/* The server's GPUs: those bound to its driver, translated or not. */
	for (i = 0; i < h->ngpus; i++)
		for (j = i + 1; j < h->ngpus; j++)
			if (!strcmp(h->gpus[i].driver, h->want->driver) &&
			    !strcmp(h->gpus[j].driver, h->want->driver) &&
			    strcmp(h->gpus[i].root_bus, h->gpus[j].root_bus))
				return true;
	return false;
}

void doctor_check_env(struct host *h, const struct doctor_env_source *src)
{
	struct doctor_check *c;
	struct env e;

	if (!src->file && !src->unit && !src->pid) {
		doctor_add(h, "env", DOCTOR_SKIP, NULL,
			   "the server's environment was not read (--unit NAME, --pid PID or --env-file FILE)");
		return;
	}
	read_env(h, src, &e);
	if (!e.read) {
		doctor_add(h, "env", DOCTOR_SKIP, NULL, "%s cannot be read", e.from);
		return;
	}
	if (e.disable[0] && strcmp(e.disable, "0")) {
		c = doctor_add(h, "env.nccl_p2p_disable", DOCTOR_FAIL,
			       "drop NCCL_P2P_DISABLE once p2pmap verify passes (p2pmap env prints what to set)",
			       "NCCL_P2P_DISABLE=%s in %s: NCCL uses SHM through host memory, whatever p2pmap maps",
			       e.disable, e.from);
		doctor_blocking(c);
	} else {
		doctor_add(h, "env.nccl_p2p_disable", DOCTOR_OK, NULL,
			   "NCCL_P2P_DISABLE is not set in %s", e.from);
	}
	if (cross_root(h) && strcmp(e.level, "SYS"))
		doctor_add(h, "env.nccl_p2p_level", DOCTOR_WARN,
			   "NCCL_P2P_LEVEL=SYS (only once every direction is verified)",
			   "the GPUs sit under different PCI root complexes and NCCL_P2P_LEVEL is %s in %s: NCCL 2.23+ keeps P2P within one host bridge on AMD hosts with more than two GPUs",
			   e.level[0] ? e.level : "unset", e.from);
	else if (e.level[0])
		doctor_add(h, "env.nccl_p2p_level", DOCTOR_OK, NULL,
			   "NCCL_P2P_LEVEL=%s in %s", e.level, e.from);
	else
		doctor_add(h, "env.nccl_p2p_level", DOCTOR_OK, NULL,
			   "NCCL_P2P_LEVEL is unset in %s; the %s GPUs share one root complex",
			   e.from, h->want->driver);
	if (strcmp(e.vllm, "0"))
		doctor_add(h, "env.vllm_skip_p2p_check", DOCTOR_WARN,
			   "p2pmap verify --vllm-cache, then VLLM_SKIP_P2P_CHECK=0",
			   "VLLM_SKIP_P2P_CHECK is %s in %s: vLLM trusts cuDeviceCanAccessPeer, which ignores the IOMMU",
			   e.vllm[0] ? e.vllm : "unset (vLLM's default 1)", e.from);
	else
		doctor_add(h, "env.vllm_skip_p2p_check", DOCTOR_OK, NULL,
			   "VLLM_SKIP_P2P_CHECK=0 in %s: vLLM reads p2pmap verify's cache",
			   e.from);
	if (e.cvd[0] && strcmp(e.order, "PCI_BUS_ID"))
		doctor_add(h, "env.cuda_device_order", DOCTOR_WARN,
			   "CUDA_DEVICE_ORDER=PCI_BUS_ID",
			   "CUDA_VISIBLE_DEVICES=%s without CUDA_DEVICE_ORDER=PCI_BUS_ID in %s: the ordinals may not name the GPUs in PCI order",
			   e.cvd, e.from);
	else if (e.cvd[0])
		doctor_add(h, "env.cuda_device_order", DOCTOR_OK, NULL,
			   "CUDA_VISIBLE_DEVICES=%s with CUDA_DEVICE_ORDER=PCI_BUS_ID in %s",
			   e.cvd, e.from);
	else
		doctor_add(h, "env.cuda_device_order", DOCTOR_OK, NULL,
			   "CUDA_VISIBLE_DEVICES is unset in %s: every GPU, in CUDA's order%s",
			   e.from, strcmp(e.order, "PCI_BUS_ID") ? "" : " (PCI_BUS_ID)");
}
