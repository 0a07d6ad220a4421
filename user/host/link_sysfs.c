// SPDX-License-Identifier: GPL-2.0
/* p2pmap's links and the PCI tree as /sys shows them (link_sysfs.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "link_sysfs.h"

int sysfs_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

bool link_sysfs_loaded(const char *root)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap", root);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

void link_sysfs_read(const char *root, const char *from, const char *to,
		     struct link_sysfs *l)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], buf[32];
	struct stat st;
	char *end;

	memset(l, 0, sizeof(*l));
	snprintf(dir, sizeof(dir), "%s/sys/kernel/p2pmap/links/%s-%s", root,
		 from, to);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	l->exists = true;
	snprintf(path, sizeof(path), "%s/state", dir);
	if (sysfs_read_line(path, l->state, sizeof(l->state)) || !l->state[0])
		snprintf(l->state, sizeof(l->state), "unknown");
	snprintf(path, sizeof(path), "%s/reason", dir);
	sysfs_read_line(path, l->reason, sizeof(l->reason));
	snprintf(path, sizeof(path), "%s/faults", dir);
	if (!sysfs_read_line(path, buf, sizeof(buf)) && buf[0]) {
		errno = 0;
		l->faults = strtoull(buf, &end, 10);
		l->has_faults = !errno && !*end;
	}
}

int link_sysfs_root_bus(const char *root, const char *addr, char *buf,
			size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", root, addr);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	/* ../../../devices/pci0000:40/0000:40:01.0/0000:41:00.0 */
	p = strstr(target, "/pci");
	if (!p)
		return -1;
	p++;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "/"), p);
	return 0;
}
