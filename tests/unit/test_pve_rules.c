// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/host/pve_devices.c: a container's device lines as
 * LXC 6.0 parses them (src/lxc/cgroups/cgfsng.c, device_cgroup_rule_parse
 * and device_cgroup_rule_parse_devpath) and which key it applies on which
 * cgroup layout; devN as pve-container allows it.
 */
#include <string.h>

#include "pve.h"
#include "tap.h"

/* One line into a fresh guest: 1 a rule, 0 a bad rule, -1 neither. */
static int one(enum pve_cgroup cg, const char *key, const char *val,
	       struct pve_guest *g)
{
	memset(g, 0, sizeof(*g));
	if (!pve_ct_rule(g, cg, key, val))
		return -1;
	return g->nrules ? 1 : 0;
}

int main(void)
{
	static const char *const good[] = {
		"a", "c 195:* rwm", "c 195:255 rw", "a *:* rwm", "c *:* m",
		"c 511:0 ", "c 195:1 rwm # comment",
	};
	static const char *const refused[] = {
		"c  195:* rwm", "c 195:*", "c195:* rwm", "c 195:* rwx",
		"x 195:* rwm", "c 195 rwm", "c 195:a rwm", "/dev/nvidia0",
		"/dev/nvidia0 ", "all",
	};
	const char *v2 = "lxc.cgroup2.devices.allow", *v1 = "lxc.cgroup.devices.allow";
	static struct pve_guest g;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		tap_ok(one(PVE_CG_UNIFIED, v2, good[i], &g) == 1,
		       "LXC accepts \"%s\"", good[i]);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		tap_ok(one(PVE_CG_UNIFIED, v2, refused[i], &g) == 0 &&
		       g.bad[0].refused, "LXC refuses \"%s\"", refused[i]);
	one(PVE_CG_UNIFIED, v2, "c 195:* rwm", &g);
	tap_ok(g.rule[0].type == 'c' && g.rule[0].major == 195 &&
	       g.rule[0].minor == -1 && g.rule[0].rw, "c 195:* rwm: char, 195, any minor, read-write");
	one(PVE_CG_UNIFIED, v2, "c 195:3 r", &g);
	tap_ok(g.rule[0].minor == 3 && !g.rule[0].rw, "c 195:3 r: read only (CUDA opens read-write)");
	one(PVE_CG_UNIFIED, v2, "/dev/nvidia-uvm  rwm", &g);
	tap_ok(!strcmp(g.rule[0].path, "/dev/nvidia-uvm") && g.rule[0].rw,
	       "the path form: the path kept for its stat(), the access after spaces");
	tap_ok(one(PVE_CG_UNIFIED, v1, "c 195:* rwm", &g) == 0 && !g.bad[0].refused,
	       "lxc.cgroup.devices.allow on a cgroup2 host: ignored, not refused");
	tap_ok(one(PVE_CG_LEGACY, v1, "c 195:* rwm", &g) == 1,
	       "lxc.cgroup.devices.allow on a legacy host: applied");
	tap_ok(one(PVE_CG_LEGACY, v2, "c 195:* rwm", &g) == 0,
	       "lxc.cgroup2.devices.allow on a legacy host: ignored");
	tap_ok(one(PVE_CG_UNIFIED, "lxc.mount.entry", "/dev/nvidia0 x", &g) == -1,
	       "another key: not a device rule");
	memset(&g, 0, sizeof(g));
	pve_ct_dev(&g, "dev0", "/dev/nvidia-uvm,deny-write=1");
	tap_ok(g.nnodes == 1 && g.nrules == 1 && !g.rule[0].rw &&
	       !strcmp(g.node[0].path, "/dev/nvidia-uvm"),
	       "devN: given, allowed as Proxmox writes it (read only with deny-write)");
	return tap_done();
}
