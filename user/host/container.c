// SPDX-License-Identifier: GPL-2.0
/* Is this a container?  (container.h) */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "container.h"

static FILE *open_under(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return fopen(path, "r");
}

static bool exists_under(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	return !access(path, F_OK);
}

/* The first line of ROOT/run/systemd/container (systemd writes it). */
static bool systemd_marker(const char *root, char *what, size_t len)
{
	FILE *f = open_under(root, "/run/systemd/container");
	char line[64] = "";

	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	snprintf(what, len, "%s", line[0] ? line : "container");
	return true;
}

/* container=NAME in PID 1's environment (lxc, podman, systemd-nspawn). */
static bool pid1_environ(const char *root, char *what, size_t len)
{
	FILE *f = open_under(root, "/proc/1/environ");
	char buf[8192];
	size_t n, i;
	bool found = false;

	if (!f)
		return false;	/* not root, or no procfs: not known */
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (i = 0; i < n && !found; i += strlen(buf + i) + 1) {
		if (!strncmp(buf + i, "container=", 10) && buf[i + 10]) {
			snprintf(what, len, "%s", buf + i + 10);
			found = true;
		}
	}
	return found;
}

/* A user namespace maps fewer IDs than the initial one (0 0 4294967295). */
static bool user_namespace(const char *root)
{
	FILE *f = open_under(root, "/proc/self/uid_map");
	unsigned long inside, outside, count;
	bool partial = false;

	if (!f)
		return false;
	if (fscanf(f, "%lu %lu %lu", &inside, &outside, &count) == 3)
		partial = !(inside == 0 && outside == 0 &&
			    count == 4294967295UL);
	fclose(f);
	return partial;
}

bool in_container(const char *root, char *what, size_t len)
{
	if (systemd_marker(root, what, len) || pid1_environ(root, what, len))
		return true;
	if (exists_under(root, "/.dockerenv")) {
		snprintf(what, len, "docker");
		return true;
	}
	if (exists_under(root, "/run/.containerenv")) {
		snprintf(what, len, "podman");
		return true;
	}
	if (user_namespace(root)) {
		snprintf(what, len, "a user namespace");
		return true;
	}
	return false;
}
