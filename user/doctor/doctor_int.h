/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor's own: the host as read (its GPUs, the answers of the PCI config
 * space), the helpers every check uses, and the checks in chain order.
 * Not for the rest of the CLI (doctor.h is).
 */
#ifndef P2PMAP_DOCTOR_INT_H
#define P2PMAP_DOCTOR_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "doctor.h"

#define GPU_BARS	6
#define CONFIG_FILE	"/etc/modprobe.d/p2pmap.conf"
#define DOCTOR_DKMS_DIR	"/var/lib/dkms/p2pmap"
#define REBAR_BARS	6		/* entries of a ReBAR capability */

/* One resizable BAR: its current size and the sizes it supports. */
struct rebar {
	int bar;			/* BAR index */
	unsigned long long cur;		/* bytes */
	unsigned long long sizes;	/* bit n: 1 MiB << n supported */
};

struct gpu {
	char addr[16];
	unsigned long long bar_start[GPU_BARS], bar_end[GPU_BARS];
	char driver[32];		/* "" unbound */
	int group;			/* -1 unknown */
	char group_type[16];
	int numa;
	char root_bus[32];
	char path[256];			/* /sys/devices/pci.../ADDR */
	unsigned long long bar_flags[GPU_BARS];
	unsigned int vendor;
	int rebar_state;		/* REBAR_* */
	size_t nrebar;
	struct rebar rebar[REBAR_BARS];
	unsigned int vm;		/* the Proxmox VM passing it through, 0 */
};

enum {
	REBAR_UNKNOWN,			/* not found in libpci's scan */
	REBAR_UNREADABLE,		/* no extended config space to read */
	REBAR_NONE,			/* no Resizable BAR capability */
	REBAR_CAP,
};

/* One libpci scan's answers, per switch port (doctor reads a few). */
#define ACS_CACHE	64

struct acs_seen {
	char addr[16];
	int redirects;			/* acs_redirects()'s answer */
};

struct host {
	const char *root;
	struct acs_seen acs[ACS_CACHE];
	size_t nacs;
	const struct doctor_gpus *want;
	struct gpu gpus[DOCTOR_MAX_GPUS];
	size_t ngpus;
	bool pt, snp, tdx, loaded;
	char container[64];		/* "lxc": in a container (container.h) */
	struct doctor_report *r;
};

/* ROOT/PATH's first line into @buf; false when it cannot be read. */
bool doctor_read(const struct host *h, char *buf, size_t len,
		 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool doctor_exists(const struct host *h, const char *rel);
/* Up to @len bytes of ROOT/REL (a binary file); how many, 0 unreadable. */
size_t doctor_read_bytes(const struct host *h, const char *rel, void *buf,
			 size_t len);
/*
 * The value of "NAME: value" in /proc/driver/nvidia/params (NVIDIA's
 * module parameters), into @buf; false when absent.
 */
bool doctor_nvidia_param(const struct host *h, const char *name, char *buf,
			 size_t len);
/* The last component of the link ROOT/REL points to, or "". */
void doctor_link_name(const struct host *h, const char *rel, char *buf,
		      size_t len);
/* A check at the end of the report (NULL when it is full). */
struct doctor_check *doctor_add(struct host *h, const char *name,
				enum doctor_level level, const char *fix,
				const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void doctor_blocking(struct doctor_check *c);
/* "16 MiB", "32 GiB" */
void doctor_size_text(unsigned long long bytes, char *buf, size_t len);
/* The GPU's default domain translates (DMA, DMA-FQ). */
bool doctor_translated(const struct gpu *g);
/* Translated, bound to the server's driver and no VM's: its P2P needs
 * p2pmap. */
bool doctor_needs_links(const struct host *h, const struct gpu *g);
size_t doctor_need_count(const struct host *h);

/* The checks, in the order of the chain (doctor_run()). */
void doctor_check_iommu(struct host *h);
void doctor_check_cc(struct host *h);
void doctor_find_gpus(struct host *h);
void doctor_check_gpus(struct host *h);
void doctor_check_bars(struct host *h);

/* One GPU's memory as nvidia-smi -q -d MEMORY reports it, in MiB. */
struct vram {
	char addr[16];
	unsigned long long fb, bar1;	/* 0 unknown */
};

#define VRAM_ENV	"P2PMAP_NVIDIA_SMI"

/*
 * Runs $P2PMAP_NVIDIA_SMI (on the host itself: nvidia-smi from PATH when
 * unset) with -q -d MEMORY and reads each GPU's FB and BAR1 totals into
 * @v.  Returns how many, or -1 with @why saying why nothing was read.
 */
int doctor_vram_read(const struct host *h, struct vram *v, size_t max,
		     char *why, size_t len);
void doctor_check_paths(struct host *h);
void doctor_check_nvidia(struct host *h);
/* libcuda.so.1 and cuInit, in a child: on this machine only (no --root). */
void doctor_check_cuda(struct host *h);
void doctor_check_p2pmap(struct host *h);
void doctor_check_version(struct host *h);
void doctor_check_dkms(struct host *h);
/* doctor_boot.c: has DKMS built p2pmap @ver for kernel @kver? */
bool doctor_dkms_built(const struct host *h, const char *ver,
		       const char *kver);
/* "apt install HEADERS-PACKAGE (...)" for kernel @rel */
void doctor_headers_package(const char *rel, char *buf, size_t len);
/* doctor_kernels.c: the next boot's kernel and every installed one */
void doctor_check_kernels(struct host *h);
/* doctor_secureboot.c: Secure Boot, lockdown, DKMS's key enrolled */
void doctor_check_secureboot(struct host *h);
void doctor_check_saved(struct host *h);
void doctor_check_softdep(struct host *h);
void doctor_check_initramfs(struct host *h);
void doctor_check_log(struct host *h, const char *path);
void doctor_check_env(struct host *h, const struct doctor_env_source *src);
/* doctor_caches.c: the caches verify wrote, still valid or stale */
void doctor_check_caches(struct host *h);
/* doctor_proxmox.c: each GPU's guest on a Proxmox VE node, their links */
void doctor_check_proxmox(struct host *h);
/* doctor_proxmox.c: each GPU a Proxmox VM passes through (gpu->vm) */
void doctor_find_vm_gpus(struct host *h);
/* doctor_container.c: in a container, instead of the host-only checks */
void doctor_host_only(struct host *h);
void doctor_check_container(struct host *h);

#endif
