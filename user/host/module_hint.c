// SPDX-License-Identifier: GPL-2.0
/* Not loaded, or not installed?  modules.dep knows (module_hint.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "container.h"
#include "module_hint.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "VERSION"
#endif

/* A modules.dep line "PATH/p2pmap.ko[.xz|.zst|.gz]: DEPS". */
static bool listed(const char *dep)
{
	char line[4096], *colon, *name;
	bool found = false;
	FILE *f = fopen(dep, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		name = strrchr(line, '/');
		name = name ? name + 1 : line;
		found = !strncmp(name, "p2pmap.ko", 9) &&
			(!name[9] || name[9] == '.');
	}
	fclose(f);
	return found;
}

/* The host's module shows itself in sysfs, which LXC mounts read-only. */
static bool p2pmap_sysfs_visible(const char *root)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap", root ? root : "");
	return !access(path, F_OK);
}

bool module_hint(char *buf, size_t len)
{
	const char *dir = getenv(MODULE_HINT_DIR_ENV);
	char path[512], rel[256] = "?", what[64];
	const char *croot;
	struct utsname u;

	if (!uname(&u))
		snprintf(rel, sizeof(rel), "%s", u.release);
	croot = getenv(MODULE_HINT_CONTAINER_ROOT_ENV);
	if (in_container(croot ? croot : "", what, sizeof(what))) {
		/* The module, DKMS and the boot files are the host's. */
		if (p2pmap_sysfs_visible(croot)) {
			snprintf(buf, len, "loaded on the host (/sys/kernel/p2pmap is visible here, in %s), but it does not answer this network namespace: the host's p2pmap predates reads from containers; update p2pmap on the host",
				 what);
			return true;
		}
		snprintf(buf, len, "a module of the host's kernel %s, and this is %s: load it on the host (\"modprobe p2pmap\" there; DKMS builds it there, never in a container)",
			 rel, what);
		return false;
	}
	if (dir && *dir)
		snprintf(path, sizeof(path), "%s/modules.dep", dir);
	else
		snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", rel);
	if (listed(path))
		snprintf(buf, len, "installed for kernel %s: load it with \"modprobe p2pmap\" (at boot, the softdep that \"p2pmap config save\" writes loads it before the GPU driver)",
			 rel);
	else
		snprintf(buf, len, "not installed for kernel %s: install it through DKMS (\"make install\" in the source tree, or \"dkms install p2pmap/%s -k %s\"), then \"modprobe p2pmap\"",
			 rel, P2PMAP_VERSION, rel);
	return false;
}
