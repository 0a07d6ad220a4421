/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Proxmox VE node's guests, read-only from /etc/pve (pmxcfs): which PCI
 * devices each VM passes through (hostpciN, directly or through a PCI
 * mapping of /etc/pve/mapping/pci.cfg), whether it runs under SEV-SNP
 * (amd-sev), and which /dev/nvidiaN and other nodes each container is
 * given (devN, lxc.mount.entry) and the device rules LXC applies for it
 * (pve_devices.c).  The current configuration is what runs: the lines
 * before the first [section]; of a VM's pending changes ([PENDING],
 * applied when it next starts) its hostpciN are kept apart, snapshots are
 * not read.  The formats follow
 * Proxmox's parsers: qemu-server's parse_vm_config and parse_hostpci,
 * pve-container's parse_pct_config, pve-guest-common's PVE::Mapping::PCI
 * and pve-common's parse_property_string.
 */
#ifndef P2PMAP_PVE_H
#define P2PMAP_PVE_H

#include <stdbool.h>
#include <stddef.h>

#define PVE_MAX_PCI	32		/* devices per VM (16 hostpciN, lists) */
#define PVE_MAX_NV	32		/* /dev/nvidiaN per container */
#define PVE_NV_MINORS	248		/* NVIDIA's GPU minors: 0..247 */
#define PVE_MAX_RULES	32		/* device rules per container */
#define PVE_MAX_NODES	32		/* device nodes given per container */
#define PVE_MAX_BAD	8		/* rules LXC does not apply */

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

/*
 * A device rule a container's cgroup applies, as LXC 6.0 parses it
 * (pve_devices.c): "a", "TYPE MAJOR:MINOR ACCESS", or the path form
 * "/dev/X ACCESS", which LXC turns into the node's type, major and minor
 * by stat() when the container starts; a devN line is one too (Proxmox
 * writes its rule).  A path is resolved by whoever matches the rule.
 */
struct pve_rule {
	char type;			/* 'a' every device, 'b', 'c' */
	int major, minor;		/* -1: any ('*') */
	bool rw;			/* r and w: what CUDA's open() needs */
	char path[48];			/* the path form, else "" */
	char via[32];			/* "dev0", "lxc.cgroup2.devices.allow" */
};

/* A device line LXC does not apply, and why. */
struct pve_bad_rule {
	char key[32];			/* "lxc.cgroup.devices.allow" */
	char val[80];			/* "c 195:* rwm" */
	const char *why;
	bool refused;			/* LXC refuses it: the container does not start */
};

/* A host device node given to a container (devN, lxc.mount.entry's source). */
struct pve_node {
	char path[48];
	char via[24];
};

/* Which cgroup keys LXC applies: lxc.cgroup2.* on a pure cgroup2 host,
 * lxc.cgroup.* on a legacy or hybrid one (pve_devices.c). */
enum pve_cgroup {
	PVE_CG_UNIFIED,
	PVE_CG_LEGACY,
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
	size_t nrules;
	struct pve_rule rule[PVE_MAX_RULES];
	size_t nnodes;
	struct pve_node node[PVE_MAX_NODES];
	size_t nbad;
	struct pve_bad_rule bad[PVE_MAX_BAD];
	size_t unresolved;		/* mappings not found for this node */
	size_t npending;		/* hostpciN of [PENDING] (a VM) */
	struct pve_pci pending[PVE_MAX_PCI];
	int unreadable;			/* its file could not be read: errno */
};

enum pve_state {
	PVE_ABSENT,			/* no /etc/pve: not a Proxmox node */
	PVE_UNMOUNTED,			/* /etc/pve without pmxcfs in it */
	PVE_READ,
};

struct pve_host {
	char node[64];
	enum pve_cgroup cgroup;
	bool cgroup_known;		/* else cgroup2 assumed (Proxmox VE 7+) */
	size_t n, cap;
	struct pve_guest *g;		/* as many as there are files */
	size_t vms, cts;
	size_t unreadable;		/* guest files not read */
	int unreadable_errno;		/* the first one's errno */
};

/*
 * Reads ROOT/etc/pve (@root "" for this machine) into @p, zeroed or read
 * before (what it held is freed).
 */
enum pve_state pve_read(const char *root, struct pve_host *p);

/*
 * Guest @id of this node alone (what a hookscript is called for): its
 * qemu-server/ID.conf, else lxc/ID.conf, read as pve_read() reads it into
 * @g; @p gets the node's name and cgroup layout only.  PVE_READ with
 * @g->unreadable ENOENT when the node has neither file.
 */
enum pve_state pve_read_guest(const char *root, unsigned int id,
			      struct pve_host *p, struct pve_guest *g);

/* What pve_read() allocated. */
void pve_free(struct pve_host *p);

/* The host's cgroup layout under @root; @known false when neither is seen. */
enum pve_cgroup pve_cgroup_layout(const char *root, bool *known);

/*
 * A container's lxc.cgroup2.devices.allow or lxc.cgroup.devices.allow
 * line: a rule of @g when LXC applies it on a @cg host, else a bad rule
 * saying why.  False when @key is neither.
 */
bool pve_ct_rule(struct pve_guest *g, enum pve_cgroup cg, const char *key,
		 const char *val);

/* A devN line's node: given to @g and allowed (read-only with deny-write). */
void pve_ct_dev(struct pve_guest *g, const char *key, const char *val);

/* A host node given to @g (an lxc.mount.entry's source). */
void pve_ct_node(struct pve_guest *g, const char *path, const char *via);

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
