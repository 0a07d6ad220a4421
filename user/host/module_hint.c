// SPDX-License-Identifier: GPL-2.0
/* Not loaded, or not installed?  modules.dep knows (module_hint.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

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

void module_hint(char *buf, size_t len)
{
	const char *dir = getenv(MODULE_HINT_DIR_ENV);
	char path[512], rel[256] = "?";
	struct utsname u;

	if (!uname(&u))
		snprintf(rel, sizeof(rel), "%s", u.release);
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
}
