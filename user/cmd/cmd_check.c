// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap check [--wait SECONDS]: exit 0 when every configured link is
 * mapped or native and no pair faults and the module took all its
 * parameters; otherwise 1, with a line per problem (report.c); 4 when the
 * module is not loaded.  --wait first waits, up to SECONDS, while the
 * module is not loaded yet or a link is pending (its GPUs still probing at
 * boot: p2pmap-check.service), then checks.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "dev.h"
#include "info.h"
#include "link.h"
#include "report.h"
#include "snapshot.h"

#define CHECK_USAGE "usage: p2pmap check [--wait SECONDS]"
#define CHECK_POLL_MS	250

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Is there a reason to wait: the module not loaded yet, or a link still
 * pending?  A blocked or failed link will not change by itself: no.
 */
static bool worth_waiting(void)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_nl nl;
	bool pending = false;
	const char *op;
	size_t i;

	if (pnl_open(&nl))
		return nl.no_family;
	if (!snapshot_read(&nl, &links, NULL, &op))
		for (i = 0; i < links.n; i++)
			pending |= links.links[i].has_state &&
				   links.links[i].state == P2PMAP_LINK_PENDING;
	link_list_free(&links);
	pnl_close(&nl);
	return pending;
}

static int check_once(void)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_dev_list devs = { 0 };
	struct p2pmap_info info;
	struct p2pmap_nl nl;
	int ret = EXIT_FAILED;
	const char *op;

	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (snapshot_read(&nl, &links, &devs, &op) ||
	    (op = "info", info_get(&nl, &info))) {
		pnl_perror(&nl.error, op);
		ret = cmd_exit_nl(&nl);
	} else if (check_run(stdout, &info, devs.devs, devs.n, links.links,
			     links.n) == 0) {
		ret = EXIT_OK;
	}
	dev_list_free(&devs);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}

int cmd_check(int argc, char **argv)
{
	double wait = 0, end;
	char *e;

	if (argc == 3 && !strcmp(argv[1], "--wait")) {
		wait = strtod(argv[2], &e);
		if (*e || e == argv[2] || !(wait >= 0) || wait > 86400) {
			fprintf(stderr, "p2pmap: check: --wait takes seconds (0 to 86400), not \"%s\"\n",
				argv[2]);
			return EXIT_USAGE;
		}
	} else if (argc > 1) {
		fprintf(stderr, "p2pmap: %s\n", CHECK_USAGE);
		return EXIT_USAGE;
	}
	end = now_s() + wait;
	while (wait && now_s() < end && worth_waiting())
		poll(NULL, 0, CHECK_POLL_MS);
	return check_once();
}
