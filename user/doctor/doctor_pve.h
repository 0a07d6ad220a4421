/* SPDX-License-Identifier: GPL-2.0 */
/*
 * doctor_proxmox.c and doctor_pve_ct.c: a Proxmox VE node's guests
 * (host/pve.h) judged.  doctor's own, like doctor_int.h.
 */
#ifndef P2PMAP_DOCTOR_PVE_H
#define P2PMAP_DOCTOR_PVE_H

#include "doctor_int.h"
#include "pve.h"

/* The majors of NVIDIA's character devices, from ROOT/proc/devices. */
struct nv_majors {
	int gpu;			/* "nvidia-frontend" or "nvidia": 195 */
	int uvm;			/* "nvidia-uvm": dynamic; -1 not loaded */
	int caps;			/* "nvidia-caps": dynamic; -1 not loaded */
};

void doctor_nv_majors_read(const struct host *h, struct nv_majors *m);

/* Container @g's cgroup lets CUDA open (read-write) char device
 * MAJOR:MINOR; @minor -1 asks for every minor of @major. */
bool doctor_ct_allows(const struct host *h, const struct nv_majors *m,
		      const struct pve_guest *g, int major, int minor);

/* The key that allows a device on this host ("lxc.cgroup2.devices.allow"). */
const char *doctor_ct_allow_key(const struct pve_host *p);

/* A container with GPUs: the other nodes CUDA opens, and its device
 * lines LXC does not apply. */
void doctor_check_ct_nodes(struct host *h, const struct pve_host *p,
			   const struct nv_majors *m, const struct pve_guest *g);

#endif
