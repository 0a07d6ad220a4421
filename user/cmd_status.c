// SPDX-License-Identifier: GPL-2.0
/* p2pmap status: the configured links and their identity ranges. */
#include <stdio.h>

#include "cmd.h"
#include "format.h"
#include "link.h"

int cmd_status(int argc, char **argv)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_nl nl;
	int ret = EXIT_OK;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "p2pmap: usage: p2pmap status\n");
		return EXIT_USAGE;
	}
	if (pnl_open_required(&nl))
		return EXIT_RUNTIME;

	if (link_dump(&nl, &links)) {
		pnl_perror(&nl.error, "link dump");
		ret = EXIT_RUNTIME;
	} else {
		format_status(stdout, links.links, links.n);
	}

	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}
