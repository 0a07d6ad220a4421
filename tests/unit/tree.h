/* SPDX-License-Identifier: GPL-2.0 */
/* Host trees for the unit tests: files written under a root directory. */
#ifndef P2PMAP_TEST_TREE_H
#define P2PMAP_TEST_TREE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ROOT/REL := TEXT, directories made; TEXT "/" makes REL a directory. */
static inline void put(const char *root, const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	for (s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	if (!strcmp(text, "/")) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#endif /* P2PMAP_TEST_TREE_H */
