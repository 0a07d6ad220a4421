// SPDX-License-Identifier: GPL-2.0
/*
 * doctor in a container (an LXC container on a Proxmox host, say): the
 * module, its DKMS build, the saved links and the boot files are the
 * host's, so the container's own /etc proves nothing about them.  Those
 * checks are skipped with the reason, and the report ends with what to run
 * on the host.  What the container does see is checked as on a host: the
 * GPUs and their BARs (the host's sysfs), the NVIDIA driver
 * (/proc/driver/nvidia), p2pmap's state (netlink, /sys/kernel/p2pmap), the
 * server's environment and the kernel log where it is readable.
 */
#include "doctor_int.h"

void doctor_host_only(struct host *h)
{
	static const struct {
		const char *name, *what;
	} checks[] = {
		{ "p2pmap.dkms", "DKMS builds the module for the host's kernel" },
		{ "p2pmap.saved", "the saved links are the host's /etc/modprobe.d/p2pmap.conf" },
		{ "p2pmap.softdep", "the softdep that loads p2pmap before the GPU driver is the host's" },
		{ "p2pmap.initramfs", "the initramfs is the host's" },
	};
	size_t i;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		doctor_add(h, checks[i].name, DOCTOR_SKIP, NULL,
			   "run on the host: this is a container (%s); %s",
			   h->container, checks[i].what);
}

void doctor_check_container(struct host *h)
{
	doctor_add(h, "container", DOCTOR_OK, NULL,
		   "this is a container (%s): the module, DKMS, the saved links and the boot files are the host's; on the host run \"p2pmap doctor\", \"p2pmap status\" and, after link add or link auto, \"p2pmap config save\"",
		   h->container);
}
