// SPDX-License-Identifier: GPL-2.0
/* doctor: NVIDIA's driver, its version and its peer-mapping parameters. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"


void doctor_check_nvidia(struct host *h)
{
	char line[512], path[PATH_MAX];
	bool remap = false, seen = false;
	FILE *f;

	if (!doctor_read(h, line, sizeof(line), "/proc/driver/nvidia/version")) {
		doctor_add(h, "nvidia.driver", DOCTOR_SKIP, NULL,
			   "the NVIDIA driver is not loaded (/proc/driver/nvidia/version)");
		return;
	}
	doctor_add(h, "nvidia.driver", DOCTOR_OK, NULL, "%s", line);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/params", h->root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "DmaRemapPeerMmio: ", 18)) {
			seen = true;
			remap = atoi(line + 18) != 0;
		} else if (!strncmp(line, "RegistryDwords: ", 16) &&
			   (strstr(line, "RMForceP2PType") ||
			    strstr(line, "RMPcieP2PType") ||
			    strstr(line, "ForceP2P"))) {
			doctor_add(h, "nvidia.registry", DOCTOR_WARN, NULL,
				   "%s: the P2P type or P2P itself is forced", line);
		}
	}
	if (f)
		fclose(f);
	if (!seen)
		doctor_add(h, "nvidia.peer_mmio", DOCTOR_SKIP, NULL,
			   "no DmaRemapPeerMmio in /proc/driver/nvidia/params");
	else if (remap)
		doctor_add(h, "nvidia.peer_mmio", DOCTOR_OK, NULL,
			   "DmaRemapPeerMmio: 1: the driver maps some peer directions itself; p2pmap links cover the others");
	else
		doctor_add(h, "nvidia.peer_mmio", DOCTOR_WARN, NULL,
			   "DmaRemapPeerMmio: 0: the driver maps no peer BAR itself: every direction needs a p2pmap link");
}
