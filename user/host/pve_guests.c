// SPDX-License-Identifier: GPL-2.0
/*
 * The guests of this Proxmox VE node (pve.h): ROOT/etc/pve/nodes/NODE/
 * qemu-server/ID.conf and lxc/ID.conf, "key: value" lines (raw lxc.* keys
 * also "key = value"), their current configuration: what precedes the
 * first [section] (a snapshot, [PENDING], [pve:pending]); and a VM's
 * hostpciN in [PENDING] (qemu-server's parse_vm_config: "[PENDING]", any
 * case), which it takes when it next starts.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <strings.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pve.h"

/* The node pmxcfs serves: /etc/pve/local -> "nodes/NAME" exists only
 * while it is mounted (pve-cluster's check_cfs_is_mounted). */
static bool node_name(const char *root, char *buf, size_t len)
{
	char path[PATH_MAX], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/etc/pve/local", root);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	if (strncmp(target, "nodes/", 6) || !target[6] ||
	    strchr(target + 6, '/'))
		return false;
	snprintf(buf, len, "%.63s", target + 6);
	return true;
}

/*
 * One line of the current configuration: "key: value" (or "lxc.x = v"),
 * trimmed, into @key and @val.  -1 at the first section header.
 */
static int conf_line(char *line, char **key, char **val)
{
	char *p, *e;

	line[strcspn(line, "\r\n")] = '\0';
	if (line[0] == '[')
		return -1;
	if (!islower((unsigned char)line[0]))	/* '#' description, blank */
		return 0;
	p = line + strcspn(line, ":= \t");
	e = p + strspn(p, " \t");
	if (*e != ':' && !(*e == '=' && !strncmp(line, "lxc.", 4)))
		return 0;
	*p = '\0';
	p = e + 1 + strspn(e + 1, " \t");
	for (e = p + strlen(p); e > p && isspace((unsigned char)e[-1]); e--)
		;
	*e = '\0';
	*key = line;
	*val = p;
	return 1;
}

/* "hostpci7" -> 7 when @key is @prefix and a number below @max; else -1. */
static int key_index(const char *key, const char *prefix, int max)
{
	size_t n = strlen(prefix);
	char *end;
	long i;

	if (strncmp(key, prefix, n) || !isdigit((unsigned char)key[n]))
		return -1;
	i = strtol(key + n, &end, 10);
	return *end || i >= max ? -1 : (int)i;
}

static void read_vm(const char *root, const char *node, char *key,
		    char *val, struct pve_guest *g)
{
	char v[512];

	if (!strcmp(key, "name")) {
		snprintf(g->name, sizeof(g->name), "%.63s", val);
	} else if (!strcmp(key, "amd-sev")) {
		if (pve_prop(val, "type", true, v, sizeof(v)))
			snprintf(g->sev, sizeof(g->sev), "%.7s", v);
	} else if (key_index(key, "hostpci", 16) >= 0) {
		if (pve_prop(val, "host", true, v, sizeof(v)))
			pve_add_pci(g, v, key);
		else if (pve_prop(val, "mapping", false, v, sizeof(v)) &&
			 !pve_mapping_add(root, node, v, key, g))
			g->unresolved++;
	}
}

/* "/dev/nvidia3" -> 3; -1 for anything else (nvidiactl, nvidia-uvm). */
static int nv_minor(const char *path)
{
	char *end;
	long m;

	if (strncmp(path, "/dev/nvidia", 11) ||
	    !isdigit((unsigned char)path[11]))
		return -1;
	m = strtol(path + 11, &end, 10);
	return *end || m >= PVE_NV_MINORS ? -1 : (int)m;
}

static void add_nv(struct pve_guest *g, int minor, const char *via)
{
	if (minor < 0 || g->nnv >= PVE_MAX_NV)
		return;
	g->nv[g->nnv].minor = minor;
	snprintf(g->nv[g->nnv].via, sizeof(g->nv[0].via), "%.23s", via);
	g->nnv++;
}

static void read_ct(char *key, char *val, enum pve_cgroup cg,
		    struct pve_guest *g)
{
	char v[512];

	if (!strcmp(key, "hostname")) {
		snprintf(g->name, sizeof(g->name), "%.63s", val);
	} else if (key_index(key, "dev", 256) >= 0) {
		/* Proxmox allows a devN itself (pve_devices.c). */
		if (pve_prop(val, "path", true, v, sizeof(v)))
			add_nv(g, nv_minor(v), key);
		pve_ct_dev(g, key, val);
	} else if (!strcmp(key, "lxc.mount.entry")) {
		/* "SRC DST TYPE OPTIONS": SRC is the host's */
		if (sscanf(val, "%511s", v) == 1) {
			add_nv(g, nv_minor(v), key);
			pve_ct_node(g, v, key);
		}
	} else {
		pve_ct_rule(g, cg, key, val);
	}
}

/* A VM's pending hostpciN: its devices, apart from those it runs with. */
static void read_pending(const char *root, const char *node, char *key,
			 char *val, struct pve_guest *g)
{
	static struct pve_guest tmp;
	size_t k;

	if (key_index(key, "hostpci", 16) < 0)
		return;
	memset(&tmp, 0, sizeof(tmp));
	tmp.vm = true;
	read_vm(root, node, key, val, &tmp);
	for (k = 0; k < tmp.npci && g->npending < PVE_MAX_PCI; k++)
		g->pending[g->npending++] = tmp.pci[k];
}

/* 0, or the errno that kept @path from being read. */
static int read_guest(const char *root, const struct pve_host *p,
		      const char *path, struct pve_guest *g)
{
	char line[2048], *key, *val;
	FILE *f = fopen(path, "r");
	bool pending = false;
	int r;

	if (!f)
		return errno ? errno : EIO;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '[') {
			pending = g->vm && !strncasecmp(line, "[PENDING]", 9);
			if (!pending)
				break;
			continue;
		}
		r = conf_line(line, &key, &val);
		if (r <= 0)
			continue;
		if (pending)
			read_pending(root, p->node, key, val, g);
		else if (g->vm)
			read_vm(root, p->node, key, val, g);
		else
			read_ct(key, val, p->cgroup, g);
	}
	fclose(f);
	return 0;
}

/* A slot for one more guest: as many as there are files. */
static struct pve_guest *guest_new(struct pve_host *p)
{
	struct pve_guest *g;
	size_t cap;

	if (p->n == p->cap) {
		cap = p->cap ? 2 * p->cap : 16;
		g = realloc(p->g, cap * sizeof(*g));
		if (!g)
			return NULL;
		p->g = g;
		p->cap = cap;
	}
	g = &p->g[p->n++];
	memset(g, 0, sizeof(*g));
	return g;
}

static int by_id(const void *a, const void *b)
{
	const struct pve_guest *x = a, *y = b;

	if (x->vm != y->vm)
		return x->vm ? 1 : -1;		/* containers first */
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every ID.conf of ROOT/etc/pve/nodes/NODE/DIR. */
static void read_dir(const char *root, const char *node, const char *dir,
		     bool vm, struct pve_host *p)
{
	char path[PATH_MAX], *end;
	struct dirent *e;
	struct pve_guest *g;
	unsigned long id;
	DIR *d;

	snprintf(path, sizeof(path), "%s/etc/pve/nodes/%s/%s", root, node, dir);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		id = strtoul(e->d_name, &end, 10);
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    strcmp(end, ".conf"))
			continue;
		g = guest_new(p);
		if (!g)
			break;
		g->vm = vm;
		g->id = id;
		snprintf(g->name, sizeof(g->name), "%s %lu", vm ? "VM" : "CT",
			 id);
		snprintf(path, sizeof(path), "%s/etc/pve/nodes/%s/%s/%s", root,
			 node, dir, e->d_name);
		g->unreadable = read_guest(root, p, path, g);
		if (g->unreadable && !p->unreadable++)
			p->unreadable_errno = g->unreadable;
		if (vm)
			p->vms++;
		else
			p->cts++;
	}
	closedir(d);
}

void pve_free(struct pve_host *p)
{
	free(p->g);
	memset(p, 0, sizeof(*p));
}

/* @p emptied, then the node's name and cgroup layout: PVE_READ if so. */
static enum pve_state pve_open(const char *root, struct pve_host *p)
{
	char path[PATH_MAX];

	pve_free(p);
	snprintf(path, sizeof(path), "%s/etc/pve", root);
	if (access(path, F_OK))
		return PVE_ABSENT;
	if (!node_name(root, p->node, sizeof(p->node)))
		return PVE_UNMOUNTED;
	p->cgroup = pve_cgroup_layout(root, &p->cgroup_known);
	return PVE_READ;
}

enum pve_state pve_read_guest(const char *root, unsigned int id,
			      struct pve_host *p, struct pve_guest *g)
{
	static const char *const dirs[] = { "qemu-server", "lxc" };
	char path[PATH_MAX];
	size_t i;

	enum pve_state st = pve_open(root, p);

	memset(g, 0, sizeof(*g));
	g->id = id;
	g->unreadable = ENOENT;
	if (st != PVE_READ)
		return st;
	/* VMIDs are unique in the cluster: one of the two at most. */
	for (i = 0; i < 2 && g->unreadable == ENOENT; i++) {
		g->vm = !i;
		snprintf(g->name, sizeof(g->name), "%s %u", i ? "CT" : "VM", id);
		snprintf(path, sizeof(path), "%s/etc/pve/nodes/%s/%s/%u.conf",
			 root, p->node, dirs[i], id);
		g->unreadable = read_guest(root, p, path, g);
	}
	return PVE_READ;
}

enum pve_state pve_read(const char *root, struct pve_host *p)
{
	enum pve_state st = pve_open(root, p);

	if (st != PVE_READ)
		return st;
	read_dir(root, p->node, "lxc", false, p);
	read_dir(root, p->node, "qemu-server", true, p);
	if (p->n)
		qsort(p->g, p->n, sizeof(p->g[0]), by_id);
	return PVE_READ;
}
