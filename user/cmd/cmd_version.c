// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap --version: the CLI's version, then the loaded module's (they
 * come from one VERSION file, but a module loaded before an upgrade can
 * be older than the CLI).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "info.h"

int cmd_version(const char *cli)
{
	struct p2pmap_info info;
	struct p2pmap_nl nl;

	printf("p2pmap %s\n", cli);
	/* Exit 0 either way: the state is the answer. */
	if (pnl_open(&nl)) {
		printf("module: %s\n", nl.no_family ? "not loaded" :
		       "unknown (generic netlink cannot be used)");
		return EXIT_OK;
	}
	if (info_get(&nl, &info) || !info.version[0])
		printf("module: loaded, version unknown\n");
	else if (strcmp(info.version, cli))
		printf("module %s (loaded; not the CLI's %s: reload it)\n",
		       info.version, cli);
	else
		printf("module %s (loaded)\n", info.version);
	pnl_close(&nl);
	return EXIT_OK;
}
