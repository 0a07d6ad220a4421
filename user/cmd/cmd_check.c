// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap check: exit 0 when every configured link is mapped or native and
 * no pair faults and the module took all its parameters; otherwise 1, with
 * a line per problem (report.c); 4 when the module is not loaded.
 */
#include <stdio.h>

#include "cmd.h"
#include "dev.h"
#include "info.h"
#include "link.h"
#include "report.h"
#include "snapshot.h"

int cmd_check(int argc, char **argv)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_dev_list devs = { 0 };
	struct p2pmap_info info;
	struct p2pmap_nl nl;
	int ret = EXIT_FAILED;
	const char *op;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "p2pmap: usage: p2pmap check\n");
		return EXIT_USAGE;
	}
	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);

	if (snapshot_read(&nl, &links, &devs, &op) ||
	    (op = "info", info_get(&nl, &info))) {
		pnl_perror(&nl.error, op);
		ret = cmd_exit_nl(&nl);
	} else if (check_run(stdout, &info, devs.devs, devs.n, links.links,
			   links.n) == 0)
		ret = EXIT_OK;

	dev_list_free(&devs);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}
