// SPDX-License-Identifier: GPL-2.0
/* The processes holding a GPU (in_use.h), from /proc/PID/fd and maps. */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "in_use.h"

/* "/sys/devices/pci0000:00/0000:00:11.0": what readlink shows of its files. */
static int device_dir(const char *root, const char *addr, char *buf,
		      size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	size_t n = strlen(root);

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", root, addr);
	if (!realpath(path, real) || strncmp(real, root, n))
		return -1;
	snprintf(buf, len, "%s", real + n);
	return 0;
}

/* "/dev/nvidia2" for a GPU of NVIDIA's driver, "" otherwise. */
static void nvidia_node(const char *root, const char *addr, char *buf,
			size_t len)
{
	char path[PATH_MAX], line[128];
	unsigned int minor;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/%s/information",
		 root, addr);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Device Minor: %u", &minor) == 1)
			snprintf(buf, len, "/dev/nvidia%u", minor);
	fclose(f);
}

static bool is_bar_file(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && !strncmp(path + n, "/resource", 9);
}

static void add(struct in_use *out, size_t max, size_t *n, int pid,
		const char *root, const char *what)
{
	char path[PATH_MAX];
	FILE *f;

	if (*n < max) {
		struct in_use *u = &out[*n];

		u->pid = pid;
		snprintf(u->what, sizeof(u->what), "%.*s",
			 (int)sizeof(u->what) - 1, what);
		snprintf(path, sizeof(path), "%s/proc/%d/comm", root, pid);
		u->comm[0] = '\0';
		f = fopen(path, "r");
		if (f) {
			if (!fgets(u->comm, sizeof(u->comm), f))
				u->comm[0] = '\0';
			u->comm[strcspn(u->comm, "\n")] = '\0';
			fclose(f);
		}
	}
	(*n)++;
}

/* The first file of @pid that holds the device, from its fds then maps. */
static bool holds(const char *root, int pid, const char *dir,
		  const char *node, char *what, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX], line[PATH_MAX + 128];
	struct dirent *e;
	bool found = false;
	ssize_t r;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/proc/%d/fd", root, pid);
	d = opendir(path);
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/proc/%d/fd/%s", root, pid,
			 e->d_name);
		r = readlink(path, target, sizeof(target) - 1);
		if (r <= 0)
			continue;
		target[r] = '\0';
		if ((dir[0] && is_bar_file(target, dir)) ||
		    (node[0] && !strcmp(target, node))) {
			snprintf(what, len, "%.*s", (int)len - 1, target);
			found = true;
		}
	}
	if (d)
		closedir(d);
	/* A BAR mapped and its file closed stays in maps. */
	snprintf(path, sizeof(path), "%s/proc/%d/maps", root, pid);
	f = found || !dir[0] ? NULL : fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (is_bar_file(p, dir)) {
			snprintf(what, len, "%.*s (mapped)", (int)len - 10, p);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

size_t in_use_scan(const char *root, const char *addr, struct in_use *out,
		   size_t max)
{
	char dir[PATH_MAX] = "", node[32], path[PATH_MAX], what[160];
	size_t n = 0, npids = 0, cap = 0, i;
	int *pids = NULL, *p;
	struct dirent *e;
	DIR *d;

	if (device_dir(root, addr, dir, sizeof(dir)))
		dir[0] = '\0';
	nvidia_node(root, addr, node, sizeof(node));
	if (!dir[0] && !node[0])
		return 0;
	/* In pid order, so that the same holders are named each time. */
	snprintf(path, sizeof(path), "%s/proc", root);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]) ||
		    atoi(e->d_name) == getpid())
			continue;
		if (npids == cap) {
			cap = cap ? 2 * cap : 256;
			p = realloc(pids, cap * sizeof(*pids));
			if (!p)
				break;
			pids = p;
		}
		pids[npids++] = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	if (npids)
		qsort(pids, npids, sizeof(*pids), cmp_pid);
	for (i = 0; i < npids; i++)
		if (holds(root, pids[i], dir, node, what, sizeof(what)))
			add(out, max, &n, pids[i], root, what);
	free(pids);
	return n;
}

size_t in_use_say(const char *a, const char *b, const char *op)
{
	const char *devs[2] = { a, b };
	struct in_use u[8];
	size_t n, total = 0, i;
	int k;

	for (k = 0; k < 2; k++) {
		n = in_use_scan("", devs[k], u, 8);
		for (i = 0; i < n && i < 8; i++)
			fprintf(stderr, "p2pmap: %s: %s is in use: pid %d (%s) holds %s\n",
				op, devs[k], u[i].pid, u[i].comm, u[i].what);
		if (n > 8)
			fprintf(stderr, "p2pmap: %s: ... and %zu more holders of %s\n",
				op, n - 8, devs[k]);
		total += n;
	}
	return total;
}
