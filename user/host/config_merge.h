/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap config save" into a file that has other lines: keep every line
 * it does not own.  It owns its two comment lines, "softdep DRIVER pre:
 * p2pmap" lines, and in "options p2pmap" lines the parameters it writes
 * (drivers, vendors, classes, numa_nodes, links); other parameters there
 * (dmar_log, reserve, ...) stay on an options line of their own.
 */
#ifndef P2PMAP_CONFIG_MERGE_H
#include <stdio.h>
#define P2PMAP_CONFIG_MERGE_H

/*
 * @old (the file as it is, may be NULL or "") with @block (what
 * config_render() wrote) where the first owned line was, or at the end.
 * Returns a malloc'd text, or NULL when out of memory.
 */
char *config_merge(const char *old, const char *block);

/* Print, to @f, the lines of @new not in @old as "+ ...", and of @old not
 * in @new as "- ..." (a --dry-run).  Returns the number printed. */
unsigned int config_diff(FILE *f, const char *old, const char *new);

#endif /* P2PMAP_CONFIG_MERGE_H */
