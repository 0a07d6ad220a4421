// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap status [--json]: the configured links and their identity ranges,
 * then the per-direction matrix, the faulting pairs and a verdict.
 */
#include <stdio.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "dev.h"
#include "format.h"
#include "format_json.h"
#include "info.h"
#include "link.h"
#include "snapshot.h"

int status_show(bool json)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_dev_list devs = { 0 };
	struct p2p_report report;
	struct p2pmap_info info;
	struct p2pmap_nl nl;
	const char *op;
	int ret = EXIT_OK;

	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);

	/* INFO after the snapshot: only its parameter problems are used. */
	if (snapshot_read(&nl, &links, &devs, &op) ||
	    (op = "info", info_get(&nl, &info))) {
		pnl_perror(&nl.error, op);
		ret = cmd_exit_nl(&nl);
	} else if (report_build(&report, &info, devs.devs, devs.n, links.links,
				links.n)) {
		fprintf(stderr, "p2pmap: out of memory\n");
		ret = EXIT_FAILED;
	} else {
		if (json) {
			json_status(stdout, links.links, links.n, &report);
		} else {
			format_status(stdout, links.links, links.n);
			if (report.ndevs)
				putchar('\n');
			format_report(stdout, &report);
		}
		report_free(&report);
	}

	dev_list_free(&devs);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}

int cmd_status(int argc, char **argv)
{
	bool json;

	return cmd_getopt_json_only("status", NULL, argc, argv, &json) ?:
	       status_show(json);
}
