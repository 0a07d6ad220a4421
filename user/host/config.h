/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap config": the live policy and links as a modprobe.d file, so that
 * the next boot starts with them.
 */
#ifndef P2PMAP_CONFIG_H
#define P2PMAP_CONFIG_H

#include <stdio.h>

#include "objects.h"

#define CONFIG_DEFAULT_PATH	"/etc/modprobe.d/p2pmap.conf"

/*
 * Write the file (pure): two comment lines naming @when (ISO-8601) and an
 * "options p2pmap" line with drivers= (always: "" differs from the
 * module's default), then vendors=, classes=, numa_nodes= and links= when
 * not empty.  Links are "A>B", or "A>B/0x3" for a mask other than
 * P2PMAP_BAR_MASK_DEFAULT, in the order given.
 */
void config_render(FILE *f, const struct p2pmap_policy *p,
		   const struct p2pmap_link *links, size_t n,
		   const char *when);

/*
 * The softdep file (SOFTDEP_FILE, beside the options file): kmod uses
 * only the first "softdep DRIVER" line it reads, and reads this file
 * before the usual names (modprobe_softdep.h), so for each driver of
 * @drivers (comma-separated) it holds one "softdep DRIVER pre: p2pmap
 * ..." line that keeps the pre: and post: modules of every other line
 * kmod sees for the driver (softdep_scan(@root, @kver); lines of @own,
 * the file itself, skipped), a comment naming where each came from.
 * Returns 0, or -1 when out of memory.
 */
int config_render_softdep(FILE *f, const char *drivers, const char *root,
			  const char *kver, const char *own, const char *when);

/*
 * Replace @path with @len bytes of @text atomically: write @path.tmp,
 * fsync, rename.  Returns 0 or a negative errno (@path is unchanged then).
 */
int config_write(const char *path, const char *text, size_t len);

#endif /* P2PMAP_CONFIG_H */
