/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The body of "p2pmap check" over one snapshot of the module's devices and
 * links: cmd_check.c reads them, report.h judges the matrix, format.h
 * prints the problem lines.  Here, not in output/, so that output/ stays
 * a layer the commands call into and never calls back.
 */
#ifndef P2PMAP_CHECK_RUN_H
#define P2PMAP_CHECK_RUN_H

#include <stdio.h>

#include "objects.h"

/*
 * "p2pmap check": one line per problem on @f, a warning line per device
 * with "other" faults, then "check: OK" or "check: FAILED (N problems)".
 * A problem is a link neither mapped nor native, or a pair with faults
 * (configured or not); no links at all fails as "check: FAILED (no links
 * configured)".  Module parameters skipped at load (@info, may be NULL)
 * are a problem too, and so are the @earlier problems the caller already
 * printed (stale caches).  Returns the number of problems, -1 for no
 * links.
 */
int check_run(FILE *f, const struct p2pmap_info *info,
	      const struct p2pmap_dev *devs, size_t ndevs,
	      const struct p2pmap_link *links, size_t nlinks, int earlier);

#endif /* P2PMAP_CHECK_RUN_H */
