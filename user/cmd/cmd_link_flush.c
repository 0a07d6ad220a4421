// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap link flush [--dry-run] [--force]: remove every link.  Their
 * mappings are gone when it returns (as with link del); --dry-run lists
 * what would go.  Refused, changing nothing, while a process holds a GPU of
 * a mapped link (its P2P would fault at once), unless --force.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "format.h"
#include "in_use.h"
#include "link.h"

int link_flush(int argc, char **argv)
{
	struct p2pmap_link_list links = { 0 };
	unsigned int removed = 0, failed = 0;
	bool dry_run = false, force = false;
	struct cmd_getopt g;
	struct p2pmap_nl nl;
	int ret = EXIT_FAILED, del = EXIT_OK, i;
	size_t k, users = 0;

	cmd_getopt_init(&g, "link", "flush", argc, argv);
	while ((i = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--dry-run"))
			dry_run = true;
		else if (cmd_opt_is(&g, "--force"))
			force = true;
		else
			return cmd_getopt_refuse(&g);
	}
	if (i < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (link_dump(&nl, &links)) {
		pnl_perror(&nl.error, "link dump");
		ret = cmd_exit_nl(&nl);
		goto out;
	}
	for (k = 0; k < links.n; k++) {
		const struct p2pmap_link *l = &links.links[k];

		if (l->has_state && l->state == P2PMAP_LINK_MAPPED)
			users += in_use_say(l->initiator, l->target,
					    "link flush");
	}
	if (users && !force && !dry_run) {
		fprintf(stderr, "p2pmap: link flush: refused, nothing removed: GPUs of mapped links are in use and their P2P would fault at once; stop those processes first, or --force\n");
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
			if (pnl_sender_refused(&nl.error))
				break;	/* the next ones would be too */
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
