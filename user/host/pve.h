/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Proxmox VE node's guests, read-only from /etc/pve (pmxcfs): which PCI
 * devices each VM passes through (hostpciN, directly or through a PCI
 * mapping of /etc/pve/mapping/pci.cfg), whether it runs under SEV-SNP
 * (amd-sev), and which /dev/nvidiaN each container is given (devN,
 * lxc.mount.entry) and allowed (lxc.cgroup2.devices.allow).  Only the
 * current configuration counts: the lines before the first [section]
 * (snapshots and pending changes are not what runs).  The formats follow
 * Proxmox's parsers: qemu-server's parse_vm_config and parse_hostpci,
 * pve-container's parse_pct_config, pve-guest-common's PVE::Mapping::PCI
 * and pve-common's parse_property_string.
 */
#ifndef P2PMAP_PVE_H
#define P2PMAP_PVE_H

#include <stdbool.h>
#include <stddef.h>

#define PVE_MAX_GUESTS	128
#define PVE_MAX_PCI	32		/* devices per VM (16 hostpciN, lists) */
#define PVE_MAX_NV	32		/* /dev/nvidiaN per container */
#define PVE_NV_MINORS	248		/* NVIDIA's GPU minors: 0..247 */

/* A device a VM passes through: "DDDD:BB:DD.F", or "DDDD:BB:DD" (all its
 * functions), with where it was named ("hostpci0", "hostpci1 mapping gpus"). */
struct pve_pci {
	char id[24];
	char via[48];
};

/* A /dev/nvidiaN a container is given, and by which line ("dev0",
 * "lxc.mount.entry"). */
struct pve_nv {
	int minor;
	char via[24];
};

struct pve_guest {
	bool vm;			/* a VM, else a container */
	unsigned int id;
	char name[64];			/* name: / hostname:, or "VM 200" */
	char sev[8];			/* amd-sev type: std, es, snp; "" */
	size_t npci;
	struct pve_pci pci[PVE_MAX_PCI];
	size_t nnv;
	struct pve_nv nv[PVE_MAX_NV];
	bool nv_allow_all;		/* c 195:* (or a) allowed */
	bool nv_allow[PVE_NV_MINORS];	/* c 195:N allowed, or devN */
	size_t unresolved;		/* mappings not found for this node */
};

enum pve_state {
	PVE_ABSENT,			/* no /etc/pve: not a Proxmox node */
	PVE_UNMOUNTED,			/* /etc/pve without pmxcfs in it */
	PVE_READ,
};

struct pve_host {
	char node[64];
	size_t n;
	struct pve_guest g[PVE_MAX_GUESTS];
	size_t vms, cts;
};

/* Reads ROOT/etc/pve (@root "" for this machine). */
enum pve_state pve_read(const char *root, struct pve_host *p);

/* A hostpci id ("DDDD:BB:DD" for every function) names PCI address @addr. */
bool pve_pci_names(const char *id, const char *addr);

/*
 * Appends to @g each id of a ";"-list ("01:00;0000:02:00.0": the domain
 * 0000 when left out), normalised to lower case with its domain; @via says
 * where it was named.  An id Proxmox would refuse is skipped.
 */
void pve_add_pci(struct pve_guest *g, const char *list, const char *via);

/*
 * The paths of PCI mapping @name for node @node (ROOT/etc/pve/mapping/
 * pci.cfg) appended to @g's devices, named by @key ("hostpci1"): every
 * map line of the node counts (Proxmox takes the first free one when the
 * VM starts).  False when the node has none.
 */
bool pve_mapping_add(const char *root, const char *node, const char *name,
		     const char *key, struct pve_guest *g);

/*
 * pve-common's property string "a,k=v,...": the value of @key, or with
 * @is_default also a bare part (the default key's), into @out.  False when
 * absent.
 */
bool pve_prop(const char *s, const char *key, bool is_default, char *out,
	      size_t len);

#endif /* P2PMAP_PVE_H */
