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
	bool json;
	int ret;

	ret = cmd_getopt_json_only("info", NULL, argc, argv, &json);
	if (ret)
		return ret;
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
