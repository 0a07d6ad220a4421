// SPDX-License-Identifier: GPL-2.0
/*
 * A Proxmox VE container's device lines as LXC applies them (pve.h).
 *
 * pve-container copies each raw lxc.* key of /etc/pve/lxc/ID.conf into
 * LXC's configuration, and writes "lxc.cgroup2.devices.allow = c MAJ:MIN
 * rw" (r with deny-write) for each devN after stat()ing its path
 * (pve-container src/PVE/LXC.pm, update_lxc_config).  LXC 6.0 then
 * applies them in src/lxc/cgroups/cgfsng.c:
 *  - cgfsng_setup_limits() applies lxc.cgroup2.* only on a pure cgroup2
 *    host ("Ignoring cgroup2 limits on legacy cgroup system"), and
 *    cgfsng_setup_limits_legacy() lxc.cgroup.* only on a legacy or
 *    hybrid one ("Ignoring legacy cgroup limits on pure cgroup2 system");
 *  - bpf_device_cgroup_prepare() (cgroup2) and cg_legacy_set_data()
 *    (cgroup v1, through convert_devpath()) read a devices.allow value
 *    that starts with '/' with device_cgroup_rule_parse_devpath(): a
 *    path, spaces, then an access that must be there; the path is
 *    stat()ed and becomes its type, major and minor;
 *  - any other value with device_cgroup_rule_parse(): "a", or
 *    TYPE(a|b|c), one space, MAJOR(*|digits), ':', MINOR(*|digits), one
 *    space, then up to three of r, w, m (device_cgroup_parse_access());
 *  - a value either parser refuses fails the container's start
 *    ("Failed to parse device rule").
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pve.h"

/*
 * A pure cgroup2 host mounts cgroup2 at /sys/fs/cgroup, whose root has
 * cgroup.controllers; a legacy or hybrid one has the v1 devices
 * controller at /sys/fs/cgroup/devices.  Proxmox VE 7 and later boot
 * pure cgroup2 by default (9 has no v1), so that is assumed when neither
 * is seen.
 */
enum pve_cgroup pve_cgroup_layout(const char *root, bool *known)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/cgroup.controllers", root);
	*known = true;
	if (!access(path, F_OK))
		return PVE_CG_UNIFIED;
	snprintf(path, sizeof(path), "%s/sys/fs/cgroup/devices", root);
	if (!access(path, F_OK))
		return PVE_CG_LEGACY;
	*known = false;
	return PVE_CG_UNIFIED;
}

/* device_cgroup_parse_access(): up to three of r, w, m; the rest ignored. */
static bool parse_access(const char *s, struct pve_rule *r)
{
	bool rd = false, wr = false;
	int i;

	for (i = 0; i < 3 && s[i] && s[i] != '\n'; i++) {
		if (s[i] == 'r')
			rd = true;
		else if (s[i] == 'w')
			wr = true;
		else if (s[i] != 'm')
			return false;
	}
	r->rw = rd && wr;
	return true;
}

/* A MAJOR or MINOR of device_cgroup_rule_parse(): '*' (-1) or digits. */
static const char *parse_number(const char *s, int *n)
{
	char *end;
	long v;

	if (*s == '*') {
		*n = -1;
		return s + 1;
	}
	if (!isdigit((unsigned char)*s))
		return NULL;
	v = strtol(s, &end, 10);
	if (v > INT_MAX)
		return NULL;
	*n = (int)v;
	return end;
}

/* device_cgroup_rule_parse(): "a", or "TYPE MAJOR:MINOR ACCESS". */
static bool parse_rule(const char *s, struct pve_rule *r)
{
	if (!strcmp(s, "a")) {
		r->type = 'a';
		r->major = r->minor = -1;
		r->rw = true;
		return true;
	}
	if (*s != 'a' && *s != 'b' && *s != 'c')
		return false;
	r->type = *s++;
	if (!isspace((unsigned char)*s++))
		return false;
	s = parse_number(s, &r->major);
	if (!s || *s++ != ':')
		return false;
	s = parse_number(s, &r->minor);
	if (!s || !isspace((unsigned char)*s))
		return false;
	return parse_access(s + 1, r);
}

/*
 * device_cgroup_rule_parse_devpath(): "PATH ACCESS [anything]"; the
 * access is required.  The path is kept for its stat() at match time.
 */
static bool parse_devpath(const char *s, struct pve_rule *r)
{
	size_t n = strcspn(s, " ");
	const char *mode = s + n;

	if (!*mode)
		return false;
	mode += strspn(mode, " ");
	if (!*mode)
		return false;
	snprintf(r->path, sizeof(r->path), "%.*s", (int)n, s);
	r->type = 'c';
	r->major = r->minor = -1;
	return parse_access(mode, r);
}

static void add_bad(struct pve_guest *g, const char *key, const char *val,
		    const char *why, bool refused)
{
	struct pve_bad_rule *b;

	if (g->nbad >= PVE_MAX_BAD)
		return;
	b = &g->bad[g->nbad++];
	snprintf(b->key, sizeof(b->key), "%.31s", key);
	snprintf(b->val, sizeof(b->val), "%.79s", val);
	b->why = why;
	b->refused = refused;
}

static void add_rule(struct pve_guest *g, const struct pve_rule *r,
		     const char *via)
{
	if (g->nrules >= PVE_MAX_RULES)
		return;
	g->rule[g->nrules] = *r;
	snprintf(g->rule[g->nrules].via, sizeof(r->via), "%.31s", via);
	g->nrules++;
}

bool pve_ct_rule(struct pve_guest *g, enum pve_cgroup cg, const char *key,
		 const char *val)
{
	bool v2 = !strcmp(key, "lxc.cgroup2.devices.allow");
	struct pve_rule r = { 0 };
	bool ok;

	if (!v2 && strcmp(key, "lxc.cgroup.devices.allow"))
		return false;
	if (v2 != (cg == PVE_CG_UNIFIED)) {
		add_bad(g, key, val, v2 ?
			"LXC applies lxc.cgroup2.* only on a pure cgroup2 host, and this one has cgroup v1 controllers (cgfsng_setup_limits: \"Ignoring cgroup2 limits on legacy cgroup system\")" :
			"the cgroup v1 key: LXC ignores it on a cgroup2 host, the default since Proxmox VE 7 (cgfsng_setup_limits_legacy: \"Ignoring legacy cgroup limits on pure cgroup2 system\")",
			false);
		return true;
	}
	ok = val[0] == '/' ? parse_devpath(val, &r) : parse_rule(val, &r);
	if (!ok)
		add_bad(g, key, val, val[0] == '/' ?
			"LXC refuses it: a path needs its access after it (\"/dev/nvidia0 rwm\"; device_cgroup_rule_parse_devpath), so the container does not start" :
			"LXC refuses it: not \"a\" or \"TYPE MAJOR:MINOR ACCESS\" with single spaces (device_cgroup_rule_parse), so the container does not start",
			true);
	else
		add_rule(g, &r, key);
	return true;
}

void pve_ct_node(struct pve_guest *g, const char *path, const char *via)
{
	if (g->nnodes >= PVE_MAX_NODES || strncmp(path, "/dev/", 5))
		return;
	snprintf(g->node[g->nnodes].path, sizeof(g->node[0].path), "%.47s",
		 path);
	snprintf(g->node[g->nnodes].via, sizeof(g->node[0].via), "%.23s", via);
	g->nnodes++;
}

void pve_ct_dev(struct pve_guest *g, const char *key, const char *val)
{
	struct pve_rule r = { .type = 'c', .major = -1, .minor = -1 };
	char path[512], dw[16];

	if (!pve_prop(val, "path", true, path, sizeof(path)))
		return;
	pve_ct_node(g, path, key);
	snprintf(r.path, sizeof(r.path), "%.47s", path);
	r.rw = !(pve_prop(val, "deny-write", false, dw, sizeof(dw)) &&
		 !strcmp(dw, "1"));
	add_rule(g, &r, key);
}
