// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/host/in_use.c on a fake /proc, /sys and NVIDIA
 * procfs: who holds a GPU (an open or mapped BAR file, /dev/nvidiaN), and
 * who does not (another device, /dev/nvidiactl, config space).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "in_use.h"
#include "tap.h"

static char root[64];

static void mkdirs(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *rel, const char *target)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path)) {
		perror(path);
		exit(1);
	}
}

static void proc(int pid, const char *comm)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "proc/%d/fd", pid);
	mkdirs(rel);
	snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
	put(rel, comm);
}

int main(void)
{
	struct in_use u[8];
	size_t n;

	snprintf(root, sizeof(root), "/tmp/p2pmap-in-use.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	mkdirs("sys/devices/pci0000:00/0000:00:11.0");
	mkdirs("sys/devices/pci0000:00/0000:00:12.0");
	mkdirs("sys/bus/pci/devices");
	link_to("sys/bus/pci/devices/0000:00:11.0",
		"../../../devices/pci0000:00/0000:00:11.0");
	link_to("sys/bus/pci/devices/0000:00:12.0",
		"../../../devices/pci0000:00/0000:00:12.0");
	mkdirs("proc/driver/nvidia/gpus/0000:00:11.0");
	put("proc/driver/nvidia/gpus/0000:00:11.0/information",
	    "Model: \t\t Stand-in\nBus Location: \t 0000:00:11.0\nDevice Minor: \t 2\n");

	n = in_use_scan(root, "0000:00:11.0", u, 8);
	tap_ok(n == 0, "nobody holds the GPU: 0 holders (got %zu)", n);

	proc(100, "python3\n");
	link_to("proc/100/fd/3", "/sys/devices/pci0000:00/0000:00:11.0/resource0");
	proc(101, "vllm\n");
	link_to("proc/101/fd/0", "/dev/null");
	link_to("proc/101/fd/4", "/dev/nvidia2");
	proc(102, "dpdk\n");
	put("proc/102/maps",
	    "7f0000000000-7f0000100000 rw-s 00000000 00:13 123    /sys/devices/pci0000:00/0000:00:11.0/resource2\n");
	proc(103, "other\n");
	link_to("proc/103/fd/5", "/sys/devices/pci0000:00/0000:00:12.0/resource0");
	link_to("proc/103/fd/6", "/dev/nvidiactl");
	link_to("proc/103/fd/7", "/sys/devices/pci0000:00/0000:00:11.0/config");
	link_to("proc/103/fd/8", "/dev/nvidia21");

	n = in_use_scan(root, "0000:00:11.0", u, 8);
	tap_ok(n == 3, "three holders of 00:11.0 (got %zu)", n);
	tap_ok(n >= 1 && u[0].pid == 100 && !strcmp(u[0].comm, "python3") &&
	       !strcmp(u[0].what, "/sys/devices/pci0000:00/0000:00:11.0/resource0"),
	       "an open BAR file, with the process's name (%d %s %s)",
	       u[0].pid, u[0].comm, u[0].what);
	tap_ok(n >= 2 && u[1].pid == 101 && !strcmp(u[1].what, "/dev/nvidia2"),
	       "NVIDIA's device node of that GPU (minor from procfs)");
	tap_ok(n >= 3 && u[2].pid == 102 && strstr(u[2].what, "resource2 (mapped)"),
	       "a BAR mapped with its file closed (maps)");
	n = in_use_scan(root, "0000:00:12.0", u, 8);
	tap_ok(n == 1 && u[0].pid == 103,
	       "00:12.0: its one holder; /dev/nvidiactl, config space and another GPU's node are not holding (got %zu)", n);
	n = in_use_scan(root, "0000:00:11.0", u, 1);
	tap_ok(n == 3 && u[0].pid == 100, "more holders than room: all counted");
	n = in_use_scan(root, "0000:00:13.0", u, 8);
	tap_ok(n == 0, "a device that is not there: no holder");

	if (fork() == 0)
		execlp("rm", "rm", "-rf", root, (char *)NULL);
	return tap_done();
}
