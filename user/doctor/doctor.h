/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor: the host's P2P chain, read under a root directory (DIR/sys,
 * DIR/proc, DIR/etc; "/" on the host, a fixture tree in the tests) and
 * judged link by link: IOMMU mode, confidential computing, each GPU's
 * driver, IOMMU group and BARs (Resizable BAR, BAR1 against the VRAM), the
 * PCIe paths, NVIDIA's peer-mapping parameters, p2pmap and its links, its
 * version, DKMS, the saved links, softdep and initramfs, the kernel log and
 * the inference server's environment.  Reads only; never needs root or the
 * module (what it cannot read is said).  The checks: user/doctor/.
 */
#ifndef P2PMAP_DOCTOR_H
#define P2PMAP_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#define DOCTOR_MAX_CHECKS	256
#define DOCTOR_MAX_GPUS		32

enum doctor_level {
	DOCTOR_OK,
	DOCTOR_WARN,
	DOCTOR_FAIL,
	DOCTOR_SKIP,			/* could not be checked */
};

struct doctor_check {
	char name[48];			/* "iommu.cmdline", "gpu.0000:01:00.0.group" */
	enum doctor_level level;
	bool blocking;			/* a failure that stops P2P by itself */
	char evidence[512];
	char fix[512];			/* "" when nothing to do */
};

/* Where the server's environment comes from: at most one of them. */
struct doctor_env_source {
	const char *unit;		/* systemd unit name */
	const char *pid;		/* a running process */
	const char *file;		/* KEY=VALUE lines */
	const char *dmesg;		/* the kernel log, as dmesg prints it */
};

/* Which devices are the server's GPUs; defaults: NVIDIA, nvidia. */
struct doctor_gpus {
	unsigned int vendor, device;	/* device 0: any */
	bool any_class;			/* not only display/3D controllers */
	const char *driver;		/* the inference driver */
};

/* Whose a GPU is on a Proxmox VE node: the host's, a VM's, a container's. */
struct doctor_owner {
	char addr[16];
	char kind[8];			/* "host", "vm", "ct" */
	unsigned int id;		/* VMID or CTID */
	char name[64];
	char sev[8];			/* a VM's amd-sev type, "" */
	char via[48];			/* "hostpci0", "/dev/nvidia0 dev0" */
};

struct doctor_report {
	size_t n;
	struct doctor_check c[DOCTOR_MAX_CHECKS];
	size_t nowners;			/* on a Proxmox VE node only */
	struct doctor_owner owners[DOCTOR_MAX_GPUS * 2];
};

/* Runs every check; @root "" for the host itself. */
void doctor_run(const char *root, const struct doctor_env_source *env,
		const struct doctor_gpus *gpus, struct doctor_report *r);

const char *doctor_level_name(enum doctor_level l);

/* The first blocking failure, in the order of the chain, or NULL. */
const struct doctor_check *doctor_first_blocking(const struct doctor_report *r);

#endif
