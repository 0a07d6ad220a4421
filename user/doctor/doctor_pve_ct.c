// SPDX-License-Identifier: GPL-2.0
/*
 * doctor on a Proxmox VE node: a container's device nodes as LXC applies
 * its rules (host/pve_devices.c).  Besides its /dev/nvidiaN, CUDA opens
 * /dev/nvidiactl (195:255), /dev/nvidia-uvm and /dev/nvidia-uvm-tools
 * (nvidia-uvm's major, dynamic: minors 0 and 1) and, where MIG
 * capabilities exist, the nodes in /dev/nvidia-caps (nvidia-caps's major, dynamic).
 * Each must be in the container (devN or an lxc.mount.entry) and allowed
 * read-write by its device cgroup, or cuInit fails there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "doctor_pve.h"

/*
 * NVIDIA's numbers (open-gpu-kernel-modules): the fixed major
 * (nv-chardev-numbers.h: NV_MAJOR_DEVICE_NUMBER), the control device
 * (nv-linux.h: NV_CONTROL_DEVICE_MINOR), nvidia-uvm's two minors on its
 * dynamic major (nvidia-uvm/uvm_common.h: NVIDIA_UVM_PRIMARY_MINOR_NUMBER,
 * NVIDIA_UVM_TOOLS_MINOR_NUMBER).
 */
#define NV_MAJOR		195
#define NV_CTL_MINOR		255	/* /dev/nvidiactl */
#define NV_MODESET_MINOR	254	/* /dev/nvidia-modeset */
#define UVM_MINOR		0	/* /dev/nvidia-uvm */
#define UVM_TOOLS_MINOR		1	/* /dev/nvidia-uvm-tools */

/* The "Character devices:" part of /proc/devices: "MAJOR NAME" lines. */
void doctor_nv_majors_read(const struct host *h, struct nv_majors *m)
{
	char path[4096], line[128], name[64];
	FILE *f;
	int major;

	m->gpu = NV_MAJOR;
	m->uvm = m->caps = -1;
	snprintf(path, sizeof(path), "%s/proc/devices", h->root);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && strncmp(line, "Block", 5)) {
		if (sscanf(line, "%d %63s", &major, name) != 2)
			continue;
		if (!strcmp(name, "nvidia-frontend") || !strcmp(name, "nvidia"))
			m->gpu = major;
		else if (!strcmp(name, "nvidia-uvm"))
			m->uvm = major;
		else if (!strcmp(name, "nvidia-caps"))
			m->caps = major;
	}
	fclose(f);
}

/*
 * The device number of host node @path, as LXC and pve-container learn it
 * (stat()); a copy of another host's files (--root) has no device nodes,
 * so there NVIDIA's own numbering stands in.
 */
static bool node_devt(const struct host *h, const struct nv_majors *m,
		      const char *path, int *major, int *minor)
{
	char full[4096], *end;
	struct stat st;
	long n;

	snprintf(full, sizeof(full), "%s%s", h->root, path);
	if (!stat(full, &st) && S_ISCHR(st.st_mode)) {
		*major = (int)major(st.st_rdev);
		*minor = (int)minor(st.st_rdev);
		return true;
	}
	*major = m->gpu;
	if (!strcmp(path, "/dev/nvidiactl")) {
		*minor = NV_CTL_MINOR;
	} else if (!strcmp(path, "/dev/nvidia-modeset")) {
		*minor = NV_MODESET_MINOR;
	} else if (!strncmp(path, "/dev/nvidia", 11) &&
		   path[11] >= '0' && path[11] <= '9') {
		n = strtol(path + 11, &end, 10);
		if (*end || n >= PVE_NV_MINORS)
			return false;
		*minor = (int)n;
	} else if (m->uvm >= 0 && !strcmp(path, "/dev/nvidia-uvm")) {
		*major = m->uvm;
		*minor = UVM_MINOR;
	} else if (m->uvm >= 0 && !strcmp(path, "/dev/nvidia-uvm-tools")) {
		*major = m->uvm;
		*minor = UVM_TOOLS_MINOR;
	} else {
		return false;
	}
	return true;
}

/* One rule against char device MAJOR:MINOR (@minor -1: every minor). */
static bool rule_allows(const struct host *h, const struct nv_majors *m,
			const struct pve_rule *r, int major, int minor)
{
	int rmaj = r->major, rmin = r->minor;

	if (!r->rw || (r->type != 'a' && r->type != 'c'))
		return false;
	if (r->path[0] && !node_devt(h, m, r->path, &rmaj, &rmin))
		return false;
	if (rmaj != -1 && rmaj != major)
		return false;
	return rmin == -1 || (minor >= 0 && rmin == minor);
}

bool doctor_ct_allows(const struct host *h, const struct nv_majors *m,
		      const struct pve_guest *g, int major, int minor)
{
	size_t i;

	for (i = 0; i < g->nrules; i++)
		if (rule_allows(h, m, &g->rule[i], major, minor))
			return true;
	return false;
}

const char *doctor_ct_allow_key(const struct pve_host *p)
{
	return p->cgroup == PVE_CG_LEGACY ? "lxc.cgroup.devices.allow" :
					    "lxc.cgroup2.devices.allow";
}

/* @path (or, for a directory, a node under it) is given to @g. */
static bool ct_given(const struct pve_guest *g, const char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < g->nnodes; i++)
		if (!strncmp(g->node[i].path, path, n) &&
		    (!g->node[i].path[n] || g->node[i].path[n] == '/'))
			return true;
	return false;
}

/* A node CUDA opens in a container, besides the GPUs' own. */
struct ct_need {
	const char *path;
	int major, minor;		/* minor -1: a directory, every minor */
};

static size_t ct_needs(const struct host *h, const struct nv_majors *m,
		       struct ct_need *n)
{
	size_t k = 0;

	n[k++] = (struct ct_need){ "/dev/nvidiactl", m->gpu, NV_CTL_MINOR };
	if (m->uvm >= 0) {
		n[k++] = (struct ct_need){ "/dev/nvidia-uvm", m->uvm, UVM_MINOR };
		n[k++] = (struct ct_need){ "/dev/nvidia-uvm-tools", m->uvm,
					   UVM_TOOLS_MINOR };
	}
	if (m->caps >= 0 && doctor_exists(h, "/dev/nvidia-caps"))
		n[k++] = (struct ct_need){ "/dev/nvidia-caps", m->caps, -1 };
	return k;
}

/* "c 195:* rwm" once per major in @fix, if not there yet. */
static void fix_allow(char *fix, size_t len, const char *key, int major)
{
	char line[96];

	snprintf(line, sizeof(line), "%s: c %d:* rwm", key, major);
	if (!strstr(fix, line))
		snprintf(fix + strlen(fix), len - strlen(fix), "%s%s",
			 fix[0] ? "; " : "", line);
}

static void fix_mount(char *fix, size_t len, const struct ct_need *n)
{
	snprintf(fix + strlen(fix), len - strlen(fix),
		 "%slxc.mount.entry: %s %s none bind,optional,create=%s",
		 fix[0] ? "; " : "", n->path, n->path + 1,
		 n->minor < 0 ? "dir" : "file");
}

/* Each device line of @g that LXC does not apply: a warning, why, the fix. */
static void ct_bad_rules(struct host *h, const struct pve_host *p,
			 const struct pve_guest *g)
{
	const struct pve_bad_rule *b;
	char name[48], fix[256];
	size_t i;

	snprintf(name, sizeof(name), "pve.ct.%u.rule", g->id);
	for (i = 0; i < g->nbad; i++) {
		b = &g->bad[i];
		if (!b->refused)
			snprintf(fix, sizeof(fix), "%s: %s in /etc/pve/lxc/%u.conf instead",
				 doctor_ct_allow_key(p), b->val, g->id);
		else if (b->val[0] == '/')
			snprintf(fix, sizeof(fix), "%s: %.*s rwm in /etc/pve/lxc/%u.conf",
				 b->key, (int)strcspn(b->val, " "), b->val, g->id);
		else
			snprintf(fix, sizeof(fix), "write it as LXC reads it: %s: c MAJOR:MINOR rwm (MINOR or MAJOR may be *)",
				 b->key);
		doctor_add(h, name, DOCTOR_WARN, fix,
			   "CT %u \"%s\": \"%s: %s\" is not applied: %s%s", g->id,
			   g->name, b->key, b->val, b->why,
			   b->refused || p->cgroup_known ? "" :
			   " (cgroup2 assumed: neither /sys/fs/cgroup/cgroup.controllers nor /sys/fs/cgroup/devices seen)");
	}
}

void doctor_check_ct_nodes(struct host *h, const struct pve_host *p,
			   const struct nv_majors *m, const struct pve_guest *g)
{
	char name[48], list[384] = "", bad[384] = "", fix[448] = "", minor[16];
	char fix_text[512];
	struct ct_need need[4];
	size_t i, n;
	bool given, allowed;

	ct_bad_rules(h, p, g);
	snprintf(name, sizeof(name), "pve.ct.%u.nodes", g->id);
	n = ct_needs(h, m, need);
	for (i = 0; i < n; i++) {
		given = ct_given(g, need[i].path);
		allowed = doctor_ct_allows(h, m, g, need[i].major, need[i].minor);
		if (need[i].minor < 0)
			snprintf(minor, sizeof(minor), "*");
		else
			snprintf(minor, sizeof(minor), "%d", need[i].minor);
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s %d:%s", i ? ", " : "", need[i].path,
			 need[i].major, minor);
		if (given && allowed)
			continue;
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			 "%s%s %s", bad[0] ? ", " : "", need[i].path,
			 !given && !allowed ? "neither given nor allowed" :
			 !given ? "not given" : "not allowed");
		if (!allowed)
			fix_allow(fix, sizeof(fix), doctor_ct_allow_key(p), need[i].major);
		if (!given)
			fix_mount(fix, sizeof(fix), &need[i]);
	}
	snprintf(fix_text, sizeof(fix_text), "add to /etc/pve/lxc/%u.conf: %s",
		 g->id, fix);
	if (m->uvm < 0)
		doctor_add(h, name, DOCTOR_WARN,
			   "on the host: modprobe nvidia-uvm, and at every boot (nvidia-uvm in /etc/modules-load.d/nvidia-uvm.conf); then allow its major (grep nvidia-uvm /proc/devices)",
			   "CT %u \"%s\": nvidia-uvm is not loaded on the host (no nvidia-uvm in /proc/devices): CUDA there needs /dev/nvidia-uvm, and a container cannot load it",
			   g->id, g->name);
	else if (bad[0])
		doctor_add(h, name, DOCTOR_WARN, fix_text,
			   "CT %u \"%s\": CUDA there cannot start: %s (it opens %s)",
			   g->id, g->name, bad, list);
	else
		doctor_add(h, name, DOCTOR_OK, NULL,
			   "CT %u \"%s\": the nodes CUDA opens besides its GPUs are given and allowed (%s): %s",
			   g->id, g->name, doctor_ct_allow_key(p), list);
}
