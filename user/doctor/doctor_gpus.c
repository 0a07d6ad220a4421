// SPDX-License-Identifier: GPL-2.0
/* doctor: the server's GPUs, each one's driver, NUMA node and IOMMU group. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_int.h"
#include "link_sysfs.h"

/* The memory BARs from sysfs's resource file ("start end flags" lines). */
static void read_bars(const struct host *h, struct gpu *g)
{
	char path[PATH_MAX];
	unsigned long long st, en, fl;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/resource",
		 h->root, g->addr);
	f = fopen(path, "r");
	for (i = 0; f && i < GPU_BARS &&
	     fscanf(f, "%llx %llx %llx", &st, &en, &fl) == 3; i++) {
		if (st && en > st && (fl & 0x200)) {	/* IORESOURCE_MEM */
			g->bar_start[i] = st;
			g->bar_end[i] = en;
			g->bar_flags[i] = fl;
		}
	}
	if (f)
		fclose(f);
}

/* "pci0000:40/0000:40:01.1/0000:41:00.0": the device's place in the tree. */
static void device_path(const struct host *h, struct gpu *g)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *p;
	ssize_t n;

	g->path[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", h->root,
		 g->addr);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	p = strstr(target, "/pci");
	if (p)
		snprintf(g->path, sizeof(g->path), "%.*s",
			 (int)sizeof(g->path) - 1, p + 1);
}

/* The wanted vendor[:device], and a display or 3D controller class. */
static bool is_gpu(const struct host *h, const char *a)
{
	char v[32];

	if (!doctor_read(h, v, sizeof(v), "/sys/bus/pci/devices/%s/vendor", a) ||
	    strtoul(v, NULL, 16) != h->want->vendor)
		return false;
	if (h->want->device &&
	    (!doctor_read(h, v, sizeof(v), "/sys/bus/pci/devices/%s/device", a) ||
	     strtoul(v, NULL, 16) != h->want->device))
		return false;
	if (h->want->any_class)
		return true;
	return doctor_read(h, v, sizeof(v), "/sys/bus/pci/devices/%s/class", a) &&
	       (!strncmp(v, "0x0300", 6) || !strncmp(v, "0x0302", 6));
}

/* NVIDIA display and 3D controllers (class 0x0300xx, 0x0302xx). */
void doctor_find_gpus(struct host *h)
{
	char path[PATH_MAX], v[32], rel[PATH_MAX];
	struct dirent **names;
	struct gpu *g;
	int n, i;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", h->root);
	n = scandir(path, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *a = names[i]->d_name;

		if (a[0] != '.' && h->ngpus < DOCTOR_MAX_GPUS &&
		    strlen(a) < sizeof(h->gpus[0].addr) && is_gpu(h, a)) {
			g = &h->gpus[h->ngpus++];
			memset(g, 0, sizeof(*g));
			snprintf(g->addr, sizeof(g->addr), "%.*s",
				 (int)sizeof(g->addr) - 1, a);
			snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/driver", a);
			doctor_link_name(h, rel, g->driver, sizeof(g->driver));
			snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/iommu_group", a);
			doctor_link_name(h, rel, v, sizeof(v));
			g->group = v[0] ? atoi(v) : -1;
			if (g->group >= 0)
				doctor_read(h, g->group_type, sizeof(g->group_type),
					    "/sys/kernel/iommu_groups/%d/type", g->group);
			g->numa = doctor_read(h, v, sizeof(v),
					      "/sys/bus/pci/devices/%s/numa_node", a) ?
				  atoi(v) : -1;
			if (link_sysfs_root_bus(h->root, a, g->root_bus,
						sizeof(g->root_bus)))
				g->root_bus[0] = '\0';
			read_bars(h, g);
			device_path(h, g);
			if (doctor_read(h, v, sizeof(v), "/sys/bus/pci/devices/%s/vendor",
					a))
				g->vendor = strtoul(v, NULL, 16);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}


void doctor_check_gpus(struct host *h)
{
	char name[48], path[PATH_MAX], others[128];
	struct dirent *e;
	size_t i, len;
	DIR *d;

	if (!h->ngpus && !h->want->any_class) {
		doctor_add(h, "gpus", DOCTOR_WARN, NULL,
			   "no NVIDIA GPU in /sys/bus/pci/devices");
		return;
	}
	if (!h->ngpus) {
		doctor_add(h, "gpus", DOCTOR_WARN, NULL,
			   "no device %04x%s%.0x in /sys/bus/pci/devices",
			   h->want->vendor, h->want->device ? ":" : "",
			   h->want->device);
		return;
	}
	for (i = 0; i < h->ngpus; i++) {
		struct gpu *g = &h->gpus[i];

		snprintf(name, sizeof(name), "gpu.%s.driver", g->addr);
		if (!strcmp(g->driver, h->want->driver))
			doctor_add(h, name, DOCTOR_OK, NULL,
				   "%s (NUMA node %d) is bound to %s", g->addr,
				   g->numa, g->driver);
		else if (!strcmp(g->driver, "vfio-pci"))
			doctor_add(h, name, DOCTOR_OK, NULL,
				   "%s (NUMA node %d) is bound to vfio-pci (a VM's or another VFIO user's): p2pmap never maps into or out of it",
				   g->addr, g->numa);
		else
			doctor_add(h, name, DOCTOR_WARN, NULL,
				   "%s (NUMA node %d) is bound to %s", g->addr, g->numa,
				   g->driver[0] ? g->driver : "no driver");

		snprintf(name, sizeof(name), "gpu.%s.group", g->addr);
		others[0] = '\0';
		snprintf(path, sizeof(path), "%s/sys/kernel/iommu_groups/%d/devices",
			 h->root, g->group);
		d = g->group >= 0 ? opendir(path) : NULL;
		while (d && (e = readdir(d))) {
			len = strlen(others);
			if (e->d_name[0] != '.' && strcmp(e->d_name, g->addr) &&
			    len + strlen(e->d_name) + 2 < sizeof(others))
				snprintf(others + len, sizeof(others) - len,
					 "%s%s", len ? " " : "", e->d_name);
		}
		if (d)
			closedir(d);
		if (g->group < 0)
			doctor_add(h, name, DOCTOR_WARN, NULL,
				   "%s is in no IOMMU group", g->addr);
		else if (doctor_translated(g) && !strcmp(g->driver, h->want->driver))
			doctor_add(h, name, others[0] ? DOCTOR_WARN : DOCTOR_OK, NULL,
				   "IOMMU group %d, %s: translated, so a peer's BAR needs a mapping in this GPU's domain%s%s",
				   g->group, g->group_type,
				   others[0] ? "; shares the group with " : "", others);
		else if (doctor_translated(g))
			doctor_add(h, name, others[0] ? DOCTOR_WARN : DOCTOR_OK, NULL,
				   "IOMMU group %d, default domain %s%s%s", g->group,
				   g->group_type,
				   others[0] ? "; shares the group with " : "", others);
		else
			doctor_add(h, name, DOCTOR_WARN, NULL,
				   "IOMMU group %d, %s: P2P needs no mapping, but the group is not isolated%s%s",
				   g->group, g->group_type[0] ? g->group_type : "type unknown",
				   others[0] ? "; shares the group with " : "", others);
	}
}
