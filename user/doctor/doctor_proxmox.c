// SPDX-License-Identifier: GPL-2.0
/*
 * doctor on a Proxmox VE node: whose each GPU is (a VM's hostpciN, a
 * container's /dev/nvidiaN, the host's), read from /etc/pve (host/pve.h),
 * and what that asks of p2pmap: a VM's GPU on vfio-pci and in no link, a
 * container's GPUs linked both ways among themselves.  A container's
 * other device nodes and rules: doctor_pve_ct.c.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_pve.h"
#include "link_sysfs.h"

/* /dev/nvidiaN -> PCI address, from NVIDIA's procfs (minors follow probe
 * order, not bus order). */
struct nv_minors {
	bool read;			/* /proc/driver/nvidia/gpus was there */
	char addr[PVE_NV_MINORS][16];
};

static void nv_minors_read(const struct host *h, struct nv_minors *m)
{
	char path[PATH_MAX], line[256], bus[32];
	struct dirent *e;
	unsigned int minor;
	FILE *f;
	DIR *d;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus", h->root);
	d = opendir(path);
	if (!d)
		return;
	m->read = true;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "%s/proc/driver/nvidia/gpus/%.32s/information",
			 h->root, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		bus[0] = '\0';
		minor = PVE_NV_MINORS;
		while (fgets(line, sizeof(line), f)) {
			sscanf(line, "Bus Location: %31s", bus);
			sscanf(line, "Device Minor: %u", &minor);
		}
		fclose(f);
		if (bus[0] && minor < PVE_NV_MINORS)
			snprintf(m->addr[minor], sizeof(m->addr[0]), "%.15s",
				 bus);
	}
	closedir(d);
}

/* "VM 200 "snp" (SEV-SNP; hostpci0)" */
static void who(const struct pve_guest *g, const char *via, char *buf,
		size_t len)
{
	snprintf(buf, len, "%s %u \"%s\" (%s%s)", g->vm ? "VM" : "CT", g->id,
		 g->name, !strcmp(g->sev, "snp") ? "SEV-SNP; " :
		 !strcmp(g->sev, "es") ? "SEV-ES; " :
		 g->sev[0] ? "SEV; " : "", via);
}

static void owner(struct host *h, const char *addr, const char *kind,
		  const struct pve_guest *g, const char *via)
{
	struct doctor_owner *o;

	if (h->r->nowners == sizeof(h->r->owners) / sizeof(h->r->owners[0]))
		return;
	o = &h->r->owners[h->r->nowners++];
	memset(o, 0, sizeof(*o));
	snprintf(o->addr, sizeof(o->addr), "%s", addr);
	snprintf(o->kind, sizeof(o->kind), "%s", kind);
	if (g) {
		o->id = g->id;
		snprintf(o->name, sizeof(o->name), "%s", g->name);
		snprintf(o->sev, sizeof(o->sev), "%s", g->sev);
		snprintf(o->via, sizeof(o->via), "%s", via);
	}
}

/* The VM that passes @addr through, or NULL; its device's line in @via. */
static const struct pve_guest *vm_of(const struct pve_host *p,
				     const char *addr, const char **via)
{
	size_t i, k;

	for (i = 0; i < p->n; i++)
		for (k = 0; p->g[i].vm && k < p->g[i].npci; k++)
			if (pve_pci_names(p->g[i].pci[k].id, addr)) {
				*via = p->g[i].pci[k].via;
				return &p->g[i];
			}
	return NULL;
}

/* The container given @addr's /dev/nvidiaN, or NULL; that minor in @minor. */
static const struct pve_guest *ct_of(const struct pve_host *p,
				     const struct nv_minors *m,
				     const char *addr, int *minor)
{
	size_t i, k;

	for (i = 0; i < p->n; i++)
		for (k = 0; !p->g[i].vm && k < p->g[i].nnv; k++)
			if (!strcmp(m->addr[p->g[i].nv[k].minor], addr)) {
				*minor = p->g[i].nv[k].minor;
				return &p->g[i];
			}
	return NULL;
}

/*
 * The fix for VM @vm's GPU left on the host's driver: this device only.
 * qemu-server binds each hostpci device to vfio-pci when the VM starts
 * (pve-common src/PVE/SysFSTools.pm, pci_dev_bind_to_vfio(): unbind from
 * its driver, bind to vfio-pci), so a stopped VM's GPU sits on nvidia
 * after boot.  vfio-pci ids= would take every GPU of that vendor:device,
 * a container's as well; driver_override names one.
 */
static void vm_gpu_fix(const struct gpu *gpu, const struct pve_guest *vm,
		       const char *via, char *fix, size_t len)
{
	snprintf(fix, len,
		 "with nothing on the host using it: echo vfio-pci > /sys/bus/pci/devices/%s/driver_override; echo %s > /sys/bus/pci/devices/%s/driver/unbind; echo %s > /sys/bus/pci/drivers_probe (this device only, as qemu-server does when VM %u starts; never vfio-pci ids=, which takes every GPU of its ID); or remove %s from VM %u",
		 gpu->addr, gpu->addr, gpu->addr, gpu->addr, vm->id, via,
		 vm->id);
}

/* The GPU's owners, judged: one check per GPU. */
static void gpu_owner(struct host *h, const struct pve_host *p,
		      const struct nv_minors *m, const struct nv_majors *maj,
		      const struct gpu *gpu)
{
	char name[48], text[160], all[320] = "", via[48], fix[512];
	const struct pve_guest *vm = NULL, *ct = NULL;
	const char *vmvia = NULL;
	int owners = 0, ctminor = -1;
	size_t i, k;

	snprintf(name, sizeof(name), "gpu.%s.owner", gpu->addr);
	vm = vm_of(p, gpu->addr, &vmvia);
	if (vm) {
		who(vm, vmvia, text, sizeof(text));
		snprintf(all, sizeof(all), "%s", text);
		owner(h, gpu->addr, "vm", vm, vmvia);
		owners++;
	}
	for (i = 0; i < p->n; i++) {
		const struct pve_guest *g = &p->g[i];

		for (k = 0; !g->vm && k < g->nnv; k++) {
			if (strcmp(m->addr[g->nv[k].minor], gpu->addr))
				continue;
			snprintf(via, sizeof(via), "/dev/nvidia%d %s",
				 g->nv[k].minor, g->nv[k].via);
			who(g, via, text, sizeof(text));
			snprintf(all + strlen(all), sizeof(all) - strlen(all),
				 "%s%s", owners ? " and " : "", text);
			owner(h, gpu->addr, "ct", g, via);
			owners++;
			ct = g;
			ctminor = g->nv[k].minor;
			break;
		}
	}
	if (!owners && p->unreadable) {
		doctor_add(h, name, DOCTOR_SKIP, NULL,
			   "%s: whose it is is not known (%zu guest configuration(s) not read: pve.guests)",
			   gpu->addr, p->unreadable);
	} else if (!owners) {
		owner(h, gpu->addr, "host", NULL, NULL);
		doctor_add(h, name, DOCTOR_OK, NULL,
			   "%s is the host's: no VM or container of node %s passes it through",
			   gpu->addr, p->node);
	} else if (owners > 1 && vm && ct) {
		/* The container runs with it: the VM's line is the one to go. */
		snprintf(fix, sizeof(fix),
			 "qm set %u --delete %s if CT %u keeps it (its links stay as they are), or take /dev/nvidia%d out of CT %u; delete no p2pmap link before that",
			 vm->id, vmvia, ct->id, ctminor, ct->id);
		doctor_add(h, name, DOCTOR_WARN, fix,
			   "%s is named by %s: one device, two guests (the VM takes it from the container when it starts)",
			   gpu->addr, all);
	} else if (owners > 1) {
		doctor_add(h, name, DOCTOR_WARN, "keep it in one guest",
			   "%s is named by %s: one device, two guests", gpu->addr,
			   all);
	} else if (vm && strcmp(gpu->driver, "vfio-pci")) {
		vm_gpu_fix(gpu, vm, vmvia, fix, sizeof(fix));
		doctor_add(h, name, DOCTOR_WARN, fix,
			   "%s belongs to %s but is bound to %s, not vfio-pci: the host uses a GPU its VM takes when it starts",
			   gpu->addr, all, gpu->driver[0] ? gpu->driver : "no driver");
	} else if (ct && !doctor_ct_allows(h, maj, ct, maj->gpu, ctminor)) {
		/* c 195:* and not c 195:N: nvidiactl (195:255) too. */
		snprintf(fix, sizeof(fix),
			 "%s: c %d:* rwm in /etc/pve/lxc/%u.conf (its GPUs and /dev/nvidiactl, %d:255; or pass it as devN: /dev/nvidia%d)",
			 doctor_ct_allow_key(p), maj->gpu, ct->id, maj->gpu, ctminor);
		doctor_add(h, name, DOCTOR_WARN, fix,
			   "%s is passed to %s, but the container's cgroup does not allow c %d:%d: CUDA there cannot open it",
			   gpu->addr, all, maj->gpu, ctminor);
	} else {
		doctor_add(h, name, DOCTOR_OK, NULL, "%s belongs to %s%s", gpu->addr,
			   all, vm ? ", bound to vfio-pci" : "");
	}
}

/*
 * Every live link with a VM's GPU at either end: a failure each.  A GPU a
 * container has too is the container's until the VM's line goes: the fix
 * is then that line (gpu.ADDR.owner), not the container's links.
 */
static void vm_links(struct host *h, const struct pve_host *p,
		     const struct nv_minors *m)
{
	char path[PATH_MAX], from[32], name[48], fix[256], text[160];
	const struct pve_guest *vm, *ct;
	int minor;
	struct dirent **names;
	const char *via, *gpu;
	char *to;
	int n, k;

	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap/links", h->root);
	n = scandir(path, &names, NULL, alphasort);
	for (k = 0; k < n; k++) {
		snprintf(from, sizeof(from), "%.31s", names[k]->d_name);
		free(names[k]);
		to = strchr(from, '-');
		if (from[0] == '.' || !to)
			continue;
		*to++ = '\0';
		gpu = from;
		vm = vm_of(p, from, &via);
		if (!vm) {
			gpu = to;
			vm = vm_of(p, to, &via);
		}
		if (!vm)
			continue;
		who(vm, via, text, sizeof(text));
		snprintf(name, sizeof(name), "pve.vm.%u.link", vm->id);
		ct = ct_of(p, m, gpu, &minor);
		if (ct)
			snprintf(fix, sizeof(fix),
				 "qm set %u --delete %s: CT %u has %s too (/dev/nvidia%d); only if the VM keeps it: p2pmap link del %s %s; p2pmap config save",
				 vm->id, via, ct->id, gpu, minor, from, to);
		else
			snprintf(fix, sizeof(fix),
				 "p2pmap link del %s %s; p2pmap config save",
				 from, to);
		doctor_blocking(doctor_add(h, name, DOCTOR_FAIL, fix,
					   "link %s -> %s touches %s of %s: a VM's GPU is never a peer of the host's GPUs",
					   from, to, gpu, text));
	}
	if (n >= 0)
		free(names);
}

static int by_addr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A container's GPUs (distinct, known, in bus order), in @out; how many. */
static size_t ct_gpus(const struct pve_guest *g, const struct nv_minors *m,
		      const char *out[], size_t max)
{
	size_t k, j, n = 0;
	const char *a;

	for (k = 0; k < g->nnv && n < max; k++) {
		a = m->addr[g->nv[k].minor];
		for (j = 0; a[0] && j < n && strcmp(out[j], a); j++)
			;
		if (a[0] && j == n)
			out[n++] = a;
	}
	qsort(out, n, sizeof(out[0]), by_addr);
	return n;
}

/* Each container's GPUs linked both ways among themselves. */
static void ct_links(struct host *h, const struct pve_host *p,
		     const struct nv_minors *m)
{
	char name[48], fix[512], missing[512];
	const char *gpus[PVE_MAX_NV];
	struct link_sysfs l, r;
	size_t i, a, b, n, miss;

	for (i = 0; i < p->n; i++) {
		const struct pve_guest *g = &p->g[i];

		n = g->vm ? 0 : ct_gpus(g, m, gpus, PVE_MAX_NV);
		if (n < 2)
			continue;
		snprintf(name, sizeof(name), "pve.ct.%u.links", g->id);
		miss = 0;
		fix[0] = missing[0] = '\0';
		for (a = 0; a < n; a++) {
			for (b = a + 1; b < n; b++) {
				link_sysfs_read(h->root, gpus[a], gpus[b], &l);
				link_sysfs_read(h->root, gpus[b], gpus[a], &r);
				if (l.exists && r.exists)
					continue;
				miss += !l.exists + !r.exists;
				snprintf(fix + strlen(fix), sizeof(fix) - strlen(fix),
					 "%sp2pmap link add %s %s%s", fix[0] ? "; " : "",
					 l.exists ? gpus[b] : gpus[a],
					 l.exists ? gpus[a] : gpus[b],
					 !l.exists && !r.exists ? " --both" : "");
				snprintf(missing + strlen(missing),
					 sizeof(missing) - strlen(missing),
					 "%s%s", missing[0] ? ", " : "",
					 l.exists ? gpus[b] : gpus[a]);
				snprintf(missing + strlen(missing),
					 sizeof(missing) - strlen(missing),
					 !l.exists && !r.exists ? " <-> %s" : " -> %s",
					 l.exists ? gpus[a] : gpus[b]);
			}
		}
		if (!miss)
			doctor_add(h, name, DOCTOR_OK, NULL,
				   "CT %u \"%s\": its %zu GPUs are linked both ways (%zu directions)",
				   g->id, g->name, n, n * (n - 1));
		else
			doctor_add(h, name, DOCTOR_WARN, fix,
				   "CT %u \"%s\": %zu of the %zu directions among its %zu GPUs have no link (%s): its P2P there works only where the driver maps it",
				   g->id, g->name, miss, n * (n - 1), n, missing);
	}
}

/* A live link ("A-B" in ROOT/sys/kernel/p2pmap/links) at @addr. */
static bool linked(const struct host *h, const char *addr)
{
	char path[PATH_MAX];
	struct dirent *e;
	size_t n = strlen(addr);
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap/links", h->root);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		found = (!strncmp(e->d_name, addr, n) && e->d_name[n] == '-') ||
			(len > n + 1 && !strcmp(e->d_name + len - n, addr) &&
			 e->d_name[len - n - 1] == '-');
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * A VM's pending hostpciN (taken when it next starts: qemu-server binds
 * the device to vfio-pci then) naming a GPU that is in use now: a
 * container's, or at either end of a live link.
 */
static void vm_pending(struct host *h, const struct pve_host *p,
		       const struct nv_minors *m)
{
	char name[48], fix[160], use[160];
	const struct pve_guest *g, *ct;
	const struct pve_pci *pp;
	size_t i, k, j;
	int minor;

	for (i = 0; i < p->n; i++) {
		g = &p->g[i];
		for (k = 0; g->vm && k < g->npending; k++) {
			pp = &g->pending[k];
			for (j = 0; j < h->ngpus; j++) {
				const char *a = h->gpus[j].addr;

				if (!pve_pci_names(pp->id, a))
					continue;
				ct = ct_of(p, m, a, &minor);
				if (ct)
					snprintf(use, sizeof(use),
						 "CT %u \"%s\" has (/dev/nvidia%d)",
						 ct->id, ct->name, minor);
				else if (linked(h, a))
					snprintf(use, sizeof(use),
						 "p2pmap links");
				else
					continue;
				snprintf(name, sizeof(name),
					 "pve.vm.%u.pending", g->id);
				snprintf(fix, sizeof(fix),
					 "qm set %u --revert %s (unless the GPU is to move to the VM)",
					 g->id, pp->via);
				doctor_add(h, name, DOCTOR_WARN, fix,
					   "VM %u \"%s\": its pending %s (applied when it next starts) names %s, which %s: qemu-server then binds it to vfio-pci, away from the host",
					   g->id, g->name, pp->via, a, use);
			}
		}
	}
}

/*
 * Marks each GPU a VM of this node passes through (gpu->vm), before any
 * check proposes links: a VM's GPU is never a peer, even while the VM is
 * stopped and its GPU sits on nvidia.
 */
void doctor_find_vm_gpus(struct host *h)
{
	static struct pve_host p;
	const char *via;
	const struct pve_guest *vm;
	size_t i;

	if (pve_read(h->root, &p) != PVE_READ)
		return;
	for (i = 0; i < h->ngpus; i++) {
		vm = vm_of(&p, h->gpus[i].addr, &via);
		h->gpus[i].vm = vm ? vm->id : 0;
	}
	pve_free(&p);
}

void doctor_check_proxmox(struct host *h)
{
	static struct pve_host p;
	static struct nv_minors m;
	struct nv_majors maj;
	size_t i;

	switch (pve_read(h->root, &p)) {
	case PVE_ABSENT:
		return;
	case PVE_UNMOUNTED:
		doctor_add(h, "proxmox", DOCTOR_SKIP, "systemctl status pve-cluster",
			   "/etc/pve exists but pmxcfs does not serve it (no /etc/pve/local): the guests' configuration was not read");
		return;
	case PVE_READ:
		break;
	}
	nv_minors_read(h, &m);
	doctor_nv_majors_read(h, &maj);
	doctor_add(h, "proxmox", DOCTOR_OK, NULL,
		   "Proxmox VE node %s: %zu VM(s) and %zu container(s) in /etc/pve (their current configuration; a VM's pending hostpciN apart; not snapshots)",
		   p.node, p.vms, p.cts);
	if (p.unreadable)
		doctor_add(h, "pve.guests", DOCTOR_WARN,
			   "run p2pmap doctor as root",
			   "%zu of %zu guest configuration(s) in /etc/pve could not be read (%s; pmxcfs gives them to root:www-data, 0640): which GPUs those guests have is not known, and no GPU is called the host's",
			   p.unreadable, p.n, strerror(p.unreadable_errno));
	for (i = 0; i < p.n; i++) {
		char name[48];

		if (p.g[i].vm && p.g[i].unresolved) {
			snprintf(name, sizeof(name), "pve.vm.%u.mapping", p.g[i].id);
			doctor_add(h, name, DOCTOR_WARN, "/etc/pve/mapping/pci.cfg",
				   "VM %u \"%s\": %zu PCI mapping(s) of its hostpciN have no map line for node %s: which GPU it takes is not known",
				   p.g[i].id, p.g[i].name, p.g[i].unresolved, p.node);
		}
		if (!p.g[i].vm && p.g[i].nnv && !m.read) {
			snprintf(name, sizeof(name), "pve.ct.%u.gpus", p.g[i].id);
			doctor_add(h, name, DOCTOR_SKIP, NULL,
				   "CT %u \"%s\" is given /dev/nvidia%d and more, but /proc/driver/nvidia/gpus cannot be read (nvidia not loaded): which GPUs it has is not known",
				   p.g[i].id, p.g[i].name, p.g[i].nv[0].minor);
		}
	}
	for (i = 0; i < h->ngpus; i++)
		gpu_owner(h, &p, &m, &maj, &h->gpus[i]);
	vm_pending(h, &p, &m);
	for (i = 0; i < p.n; i++)
		if (!p.g[i].vm && p.g[i].nnv)
			doctor_check_ct_nodes(h, &p, &maj, &p.g[i]);
	if (h->loaded) {
		vm_links(h, &p, &m);
		ct_links(h, &p, &m);
	}
	pve_free(&p);
}
