// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap proxmox-hook VMID PHASE [--wait SECONDS] [--root DIR]: a Proxmox
 * VE guest hookscript's body (proxmox/p2pmap-hookscript execs it).
 * Proxmox runs a guest's hookscript as "SCRIPT VMID PHASE", PHASE one of
 * pre-start, post-start, pre-stop, post-stop, and only a non-zero exit in
 * pre-start stops anything: the start (pve-guest-common
 * src/PVE/GuestHelpers.pm exec_hookscript(), called with stop_on_error for
 * pre-start only by qemu-server src/PVE/QemuServer.pm and pve-container
 * src/PVE/LXC.pm; pve-docs examples/guest-example-hookscript.pl).
 *
 * A VM's pre-start is refused while a link touches its devices
 * (proxmox_hook_vm.c).  A container's pre-start, before LXC starts it
 * (pve-container's vm_start(): the hook, then "systemctl start
 * pve-container@VMID"), waits as "check --wait" does and reports, and
 * never refuses: check fails on a fault counted long ago or a stale
 * verify cache as well, and the server in the container decides (its own
 * p2pmap check, env).  Every other phase, and a guest without GPUs, exits
 * 0 at once: the hook runs at every start.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "pve.h"

#define HOOK_WAIT	"120"		/* as p2pmap-check.service */

/*
 * The nodes of /dev/nvidia* the container is given that the host lacks:
 * LXC skips an "optional" bind whose source is missing, and CUDA there
 * then cannot start.  (A devN node missing stops the start before the
 * hook: pve-container's update_lxc_config() stats it.)
 */
static void ct_nodes(const char *root, const struct pve_guest *g)
{
	char path[PATH_MAX];
	struct stat st;
	size_t k;

	for (k = 0; k < g->nnodes; k++) {
		if (strncmp(g->node[k].path, "/dev/nvidia", 11))
			continue;
		snprintf(path, sizeof(path), "%s%s", root, g->node[k].path);
		if (!stat(path, &st))
			continue;
		printf("p2pmap: warning: CT %u \"%s\": %s (%s) is not on the host: the container starts without it, and CUDA there needs it; create it on the host before the container starts\n",
		       g->id, g->name, g->node[k].path, g->node[k].via);
	}
}

static int ct_pre_start(const char *root, const struct pve_guest *g,
			char *wait)
{
	char *argv[4];
	int r;

	argv[0] = "check";
	argv[1] = "--wait";
	argv[2] = wait;
	argv[3] = NULL;
	ct_nodes(root, g);
	printf("p2pmap: CT %u \"%s\" has /dev/nvidia%d%s: p2pmap check --wait %s\n",
	       g->id, g->name, g->nv[0].minor, g->nnv > 1 ? " and more" : "",
	       wait);
	fflush(stdout);
	r = cmd_check(3, argv);
	fflush(stdout);
	if (r != EXIT_OK)
		printf("p2pmap: CT %u starts anyway: check exited %d (%s); the server in it decides (p2pmap check, p2pmap env)\n",
		       g->id, r, r == EXIT_NO_MODULE ? "p2pmap not loaded" :
		       "see above");
	return EXIT_OK;
}

static int pre_start(const char *root, unsigned int id, char *wait)
{
	static struct pve_host p;
	static struct pve_guest g;
	int r = EXIT_OK;

	switch (pve_read_guest(root, id, &p, &g)) {
	case PVE_ABSENT:
		fprintf(stderr, "p2pmap: proxmox-hook: no %s/etc/pve: not a Proxmox VE node\n",
			root);
		return EXIT_USAGE;
	case PVE_UNMOUNTED:
		fprintf(stderr, "p2pmap: proxmox-hook: %s/etc/pve is not served by pmxcfs (no /etc/pve/local): guest %u not read\n",
			root, id);
		return EXIT_FAILED;
	case PVE_READ:
		break;
	}
	if (g.unreadable == ENOENT) {
		fprintf(stderr, "p2pmap: proxmox-hook: node %s has no guest %u (no qemu-server/%u.conf, no lxc/%u.conf)\n",
			p.node, id, id, id);
		r = EXIT_USAGE;
	} else if (g.unreadable) {
		fprintf(stderr, "p2pmap: proxmox-hook: %s %u's configuration cannot be read: %s\n",
			g.vm ? "VM" : "CT", id, strerror(g.unreadable));
		r = EXIT_FAILED;
	} else if (g.vm) {
		r = proxmox_hook_vm(root, &p, &g);
	} else if (g.nnv) {
		r = ct_pre_start(root, &g, wait);
	}
	pve_free(&p);
	return r;
}

int cmd_proxmox_hook(int argc, char **argv)
{
	static const char *const quiet[] = {
		"post-start", "pre-stop", "post-stop", NULL
	};
	char *wait = HOOK_WAIT, *end;
	const char *root = "";
	struct cmd_getopt g;
	unsigned long id;
	size_t i;
	double w;
	int r;

	cmd_getopt_init(&g, "proxmox-hook", NULL, argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--root")) {
			root = g.arg;
		} else if (cmd_opt_is(&g, "--wait")) {
			w = strtod(g.arg, &end);
			if (*end || end == g.arg || !(w >= 0) || w > 86400) {
				fprintf(stderr, "p2pmap: proxmox-hook: --wait takes seconds (0 to 86400), not \"%s\"\n",
					g.arg);
				return EXIT_USAGE;
			}
			wait = (char *)g.arg;
		} else {
			return cmd_getopt_refuse(&g);
		}
	}
	if (r < 0)
		return EXIT_USAGE;
	if (g.npos != 2) {
		fprintf(stderr, "p2pmap: proxmox-hook takes VMID and PHASE, as Proxmox passes them; %s\n",
			cmd_usage("proxmox-hook", NULL));
		return EXIT_USAGE;
	}
	errno = 0;
	id = strtoul(g.pos[0], &end, 10);
	/* The format pve-vmid: 100 to 999999999 (pve-docs api-viewer). */
	if (errno || *end || g.pos[0][0] < '1' || g.pos[0][0] > '9' ||
	    id < 100 || id > 999999999) {
		fprintf(stderr, "p2pmap: proxmox-hook: \"%s\" is not a VMID (100 to 999999999)\n",
			g.pos[0]);
		return EXIT_USAGE;
	}
	if (!strcmp(g.pos[1], "pre-start"))
		return pre_start(root, id, wait);
	for (i = 0; quiet[i]; i++)
		if (!strcmp(g.pos[1], quiet[i]))
			return EXIT_OK;
	/* A phase a later Proxmox may add: not ours to stop. */
	fprintf(stderr, "p2pmap: proxmox-hook: phase \"%s\" is not one p2pmap knows: nothing done\n",
		g.pos[1]);
	return EXIT_OK;
}
