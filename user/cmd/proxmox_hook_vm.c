// SPDX-License-Identifier: GPL-2.0
/*
 * proxmox-hook's VM pre-start: refused while a p2pmap link has either end
 * at a device the VM passes through.  qemu-server runs the hook before it
 * binds each hostpci device to vfio-pci (qemu-server src/PVE/QemuServer.pm
 * vm_start_nolock(): exec_hookscript 'pre-start' with stop_on_error, then
 * prepare_pci_device()), after it applied the pending changes: the
 * current configuration is what the VM starts with.  The links are read
 * where doctor reads them, /sys/kernel/p2pmap/links (the module's
 * read-only view of the state netlink reports).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "link_sysfs.h"
#include "pve.h"

#define HOOK_MAX_LINKS	256

struct hook_link {
	char from[16], to[16];
	const struct pve_pci *dev;	/* the VM's device it touches, */
	bool at_to;			/* at its target (else its initiator) */
	bool said;			/* named in the fix already */
};

/* The VM's device that names @addr, or NULL. */
static const struct pve_pci *vm_dev(const struct pve_guest *g,
				    const char *addr)
{
	size_t k;

	for (k = 0; k < g->npci; k++)
		if (pve_pci_names(g->pci[k].id, addr))
			return &g->pci[k];
	return NULL;
}

/*
 * The links touching @g's devices into @out; how many, or -errno when
 * the module is loaded and its links cannot be read.
 */
static int touching(const char *root, const struct pve_guest *g,
		    struct hook_link *out, size_t max)
{
	char path[PATH_MAX], name[40], *to;
	struct dirent **names;
	const struct pve_pci *dev;
	int n, k, found = 0;

	if (!link_sysfs_loaded(root))
		return 0;			/* no module, no links */
	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap/links", root);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "%.39s", names[k]->d_name);
		free(names[k]);
		to = strchr(name, '-');
		if (name[0] == '.' || !to || (size_t)found == max)
			continue;
		*to++ = '\0';
		dev = vm_dev(g, name);
		out[found].at_to = !dev;
		if (!dev)
			dev = vm_dev(g, to);
		if (!dev)
			continue;
		snprintf(out[found].from, sizeof(out[0].from), "%.15s", name);
		snprintf(out[found].to, sizeof(out[0].to), "%.15s", to);
		out[found].dev = dev;
		out[found].said = false;
		found++;
	}
	free(names);
	return found;
}

/* "p2pmap link del A B [--both]" for each link, one line per pair. */
static void print_fix(struct hook_link *l, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		bool both = false;

		if (l[i].said)
			continue;
		for (j = i + 1; j < n && !both; j++) {
			both = !strcmp(l[j].from, l[i].to) &&
			       !strcmp(l[j].to, l[i].from);
			if (both)
				l[j].said = true;
		}
		fprintf(stderr, "%s p2pmap link del %s %s%s", i ? ";" : "fix:",
			l[i].from, l[i].to, both ? " --both" : "");
	}
	fprintf(stderr, "; p2pmap config save\n");
}

int proxmox_hook_vm(const char *root, const struct pve_host *p,
		    const struct pve_guest *g)
{
	static struct hook_link l[HOOK_MAX_LINKS];
	struct link_sysfs st;
	char key[24], keys[192] = ",";
	int n, i;

	if (g->unresolved)
		printf("p2pmap: VM %u \"%s\": %zu PCI mapping(s) of its hostpciN have no map line for node %s: not checked (qemu-server refuses to start it without one)\n",
		       g->id, g->name, g->unresolved, p->node);
	if (!g->npci)
		return EXIT_OK;
	n = touching(root, g, l, HOOK_MAX_LINKS);
	if (n < 0) {
		fprintf(stderr, "p2pmap: VM %u \"%s\" not started: p2pmap's links cannot be read (%s/sys/kernel/p2pmap/links: %s), so whether one touches its devices is not known\n",
			g->id, g->name, root, strerror(-n));
		return EXIT_FAILED;
	}
	if (!n) {
		printf("p2pmap: VM %u \"%s\": no p2pmap link touches its %zu PCI device(s)\n",
		       g->id, g->name, g->npci);
		return EXIT_OK;
	}
	fprintf(stderr, "p2pmap: VM %u \"%s\" not started: %d p2pmap link(s) touch its devices, which qemu-server would take from the host's driver for it (a VM's GPU is never a peer of the host's GPUs):\n",
		g->id, g->name, n);
	for (i = 0; i < n; i++) {
		link_sysfs_read(root, l[i].from, l[i].to, &st);
		fprintf(stderr, "  link %s -> %s (%s): %s is its %s\n",
			l[i].from, l[i].to, st.exists ? st.state : "gone",
			l[i].at_to ? l[i].to : l[i].from, l[i].dev->via);
	}
	print_fix(l, n);
	/* "hostpci1 mapping gpus": qm set takes the key, each once. */
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), ",%.*s,",
			 (int)strcspn(l[i].dev->via, " "), l[i].dev->via);
		if (!strstr(keys, key))
			snprintf(keys + strlen(keys) - 1,
				 sizeof(keys) - strlen(keys) + 1, "%s", key);
	}
	keys[strlen(keys) - 1] = '\0';
	fprintf(stderr, "     or, if a container has that GPU and the VM is not to take it: qm set %u --delete %s\n",
		g->id, keys + 1);
	return EXIT_FAILED;
}
