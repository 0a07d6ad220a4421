// SPDX-License-Identifier: GPL-2.0
/* p2pmap info [--json]: module version, armed fault sources, generation. */
#include <stdio.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "format.h"
#include "format_json.h"
#include "info.h"

int cmd_info(int argc, char **argv)
{
	struct p2pmap_info info;
	struct p2pmap_nl nl;
	struct cmd_getopt g;
	bool json = false;
	int ret;

	cmd_getopt_init(&g, "info", NULL, argc, argv);
	while ((ret = cmd_getopt_next(&g)) > 0) {
		if (!cmd_opt_is(&g, "--json"))
			return cmd_getopt_refuse(&g);
		json = true;
	}
	if (ret < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	ret = EXIT_OK;
	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (info_get(&nl, &info)) {
		pnl_perror(&nl.error, "info");
		ret = cmd_exit_nl(&nl);
	} else if (json) {
		json_info(stdout, &info);
	} else {
		format_info(stdout, &info);
	}
	pnl_close(&nl);
	return ret;
}
