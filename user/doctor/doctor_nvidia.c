// SPDX-License-Identifier: GPL-2.0
/* doctor: NVIDIA's driver, its version and its peer-mapping parameters. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

bool doctor_nvidia_param(const struct host *h, const char *name, char *buf,
			 size_t len)
{
	char line[512], path[PATH_MAX];
	size_t n = strlen(name);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/params", h->root);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strncmp(line, name, n) && !strncmp(line + n, ": ", 2);
		if (found)
			snprintf(buf, len, "%s", line + n + 2);
	}
	if (f)
		fclose(f);
	return found;
}

void doctor_check_nvidia(struct host *h)
{
	char line[512], val[512];
	bool seen;

	if (!doctor_read(h, line, sizeof(line), "/proc/driver/nvidia/version")) {
		doctor_add(h, "nvidia.driver", DOCTOR_SKIP, NULL,
			   "the NVIDIA driver is not loaded (/proc/driver/nvidia/version)");
		return;
	}
	doctor_add(h, "nvidia.driver", DOCTOR_OK, NULL, "%s", line);
	if (doctor_nvidia_param(h, "RegistryDwords", val, sizeof(val)) &&
	    (strstr(val, "RMForceP2PType") || strstr(val, "RMPcieP2PType") ||
	     strstr(val, "ForceP2P")))
		doctor_add(h, "nvidia.registry", DOCTOR_WARN, NULL,
			   "RegistryDwords: %s: the P2P type or P2P itself is forced",
			   val);
	seen = doctor_nvidia_param(h, "DmaRemapPeerMmio", val, sizeof(val));
	if (!seen)
		doctor_add(h, "nvidia.peer_mmio", DOCTOR_SKIP, NULL,
			   "no DmaRemapPeerMmio in /proc/driver/nvidia/params");
	else if (atoi(val))
		doctor_add(h, "nvidia.peer_mmio", DOCTOR_OK, NULL,
			   "DmaRemapPeerMmio: 1: the driver maps some peer directions itself; p2pmap links cover the others");
	else
		doctor_add(h, "nvidia.peer_mmio", DOCTOR_WARN, NULL,
			   "DmaRemapPeerMmio: 0: the driver maps no peer BAR itself: every direction needs a p2pmap link");
}
