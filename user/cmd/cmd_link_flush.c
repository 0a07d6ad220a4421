// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap link flush [--dry-run]: remove every link.  Their mappings are
 * gone when it returns (as with link del); --dry-run lists what would go.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "format.h"
#include "link.h"

int link_flush(int argc, char **argv)
{
	struct p2pmap_link_list links = { 0 };
	unsigned int removed = 0, failed = 0;
	bool dry_run = false;
	struct p2pmap_nl nl;
	int ret = EXIT_FAILED, del = EXIT_OK, i;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dry-run")) {
			fprintf(stderr, "p2pmap: usage: p2pmap link flush [--dry-run]\n");
			return EXIT_USAGE;
		}
		dry_run = true;
	}
	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (link_dump(&nl, &links)) {
		pnl_perror(&nl.error, "link dump");
		ret = cmd_exit_nl(&nl);
		goto out;
	}
	for (k = 0; k < links.n; k++) {
		const struct p2pmap_link *l = &links.links[k];

		if (dry_run) {
			printf("would remove %s -> %s (%s)\n", l->initiator,
			       l->target, format_link_state(l->state));
		} else if (link_del(&nl, l->initiator, l->target)) {
			pnl_perror(&nl.error, "link del");
			del = cmd_exit_nl(&nl);
			failed++;
			continue;
		}
		removed++;
	}
	printf("link flush: %u link%s %s%s\n", removed, removed == 1 ? "" : "s",
	       dry_run ? "would be removed (--dry-run)" : "removed",
	       failed ? ", some failed (above)" : "");
	ret = failed ? del : EXIT_OK;
out:
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}
