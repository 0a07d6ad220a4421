// SPDX-License-Identifier: GPL-2.0
/* CUresult names, and what a failed cuInit() means (cuda_errors.h). */
#include <stdio.h>
#include <string.h>

#include "cuda_errors.h"

const char *cuda_error_name(CUresult res)
{
	switch (res) {
#define CUDA_ERROR_CASE(name, value)					\
	case value:							\
		return #name;
	CUDA_ERRORS(CUDA_ERROR_CASE)
#undef CUDA_ERROR_CASE
	}
	return NULL;
}

bool cuda_peer_map_refused(const char *call, CUresult res)
{
	switch (res) {
	case 205:	/* CUDA_ERROR_MAP_FAILED */
	case 217:	/* CUDA_ERROR_PEER_ACCESS_UNSUPPORTED */
	case 711:	/* CUDA_ERROR_TOO_MANY_PEERS */
		return true;
	case 801:	/* CUDA_ERROR_NOT_SUPPORTED */
		return !strcmp(call, "cuMemSetAccess");
	}
	return false;
}

/* "580.95.05" from ".../libcuda.so.580.95.05"; "" when it has none. */
static void lib_version(const char *lib, char *buf, size_t len)
{
	const char *p = strstr(lib, "libcuda.so.");

	snprintf(buf, len, "%s", p && strchr(p + 11, '.') ? p + 11 : "");
}

/* "580.95.05" from NVRM's version line; "" when there is none. */
static void kernel_version(const char *line, char *buf, size_t len)
{
	const char *p;
	unsigned int a, b;

	buf[0] = '\0';
	for (p = line; *p; p++) {
		if ((p == line || p[-1] == ' ') &&
		    sscanf(p, "%u.%u", &a, &b) == 2) {
			snprintf(buf, len, "%.*s", (int)strcspn(p, " \t\n"), p);
			return;
		}
	}
}

void cuda_init_advice(CUresult res, const char *lib, const char *kernel,
		      char *buf, size_t len)
{
	char uv[64], kv[64], kernel_says[96];

	lib_version(lib, uv, sizeof(uv));
	kernel_version(kernel, kv, sizeof(kv));
	snprintf(kernel_says, sizeof(kernel_says), kv[0] ?
		 "the kernel module is %s" :
		 "the kernel module's version cannot be read here (/proc/driver/nvidia/version)",
		 kv);
	switch (res) {
	case 34:	/* CUDA_ERROR_STUB_LIBRARY */
		snprintf(buf, len,
			 "%s is NVIDIA's stub libcuda (the CUDA toolkit's lib64/stubs, for linking only), found before the driver's: take that directory off LD_LIBRARY_PATH and /etc/ld.so.conf.d; in a container the driver's libcuda.so.VERSION comes from the host (the NVIDIA container toolkit, or the host's files bind-mounted; %s)",
			 lib, kernel_says);
		break;
	case 803:	/* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
		snprintf(buf, len,
			 "the userspace driver %s%s%s%s is not the kernel module's version (%s): install the userspace driver of the kernel module's version (in a container: the host's, e.g. NVIDIA's installer with --no-kernel-module, or the same packages)",
			 lib, uv[0] ? " (" : "", uv, uv[0] ? ")" : "",
			 kernel_says);
		break;
	case 804:	/* CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE */
		snprintf(buf, len,
			 "%s is a forward-compatibility libcuda (cuda-compat) that this GPU does not support: take the compat directory off the library path",
			 lib);
		break;
	case 100:	/* CUDA_ERROR_NO_DEVICE */
		snprintf(buf, len,
			 "the driver (%s) sees no GPU: the device nodes are missing or not allowed (in a container: /dev/nvidiaN, /dev/nvidiactl and /dev/nvidia-uvm passed in, and allowed by its cgroup), or CUDA_VISIBLE_DEVICES hides every GPU",
			 lib);
		break;
	case 3:		/* CUDA_ERROR_NOT_INITIALIZED */
	case 304:	/* CUDA_ERROR_OPERATING_SYSTEM */
	case 800:	/* CUDA_ERROR_NOT_PERMITTED */
	case 999:	/* CUDA_ERROR_UNKNOWN */
		snprintf(buf, len,
			 "the driver (%s) could not open the GPU: /dev/nvidiactl, /dev/nvidia-uvm or /dev/nvidiaN missing, not allowed (a container's cgroup) or not readable by this user; the kernel log's NVRM lines say more (%s)",
			 lib, kernel_says);
		break;
	case 802:	/* CUDA_ERROR_SYSTEM_NOT_READY */
		snprintf(buf, len,
			 "the system is not ready for CUDA: on an NVSwitch system, start nvidia-fabricmanager (its version must be the driver's)");
		break;
	default:
		snprintf(buf, len,
			 "the CUDA driver (%s) did not initialise (%s)", lib,
			 kernel_says);
	}
}

const char *nvidia_kernel_version(char *buf, size_t len)
{
	FILE *f = fopen("/proc/driver/nvidia/version", "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}
