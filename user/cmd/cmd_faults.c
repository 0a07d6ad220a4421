// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap faults [--watch [SECONDS]] [--gpus] [--driver NAME]
 *               [-d VENDOR[:DEVICE]] [--json]: the fault counters of every
 * tracked device (those the filters keep) and of the pairs it faulted
 * into, as their initiator.
 * p2pmap faults reset [ADDR]: zero them (FAULTS_RESET).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "dev.h"
#include "dev_filter.h"
#include "format.h"
#include "format_json.h"
#include "info.h"
#include "pciaddr.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Until SIGINT or SIGTERM sets stop; poll() is interrupted by them. */
void cmd_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool cmd_stopped(void)
{
	return stop;
}

/* faults reset [ADDR]: argv[0] is "reset". */
static int faults_reset_cmd(int argc, char **argv)
{
	char addr[P2PMAP_ADDR_LEN], err[64];
	const char *target = NULL;
	struct cmd_getopt g;
	struct p2pmap_nl nl;
	int ret = EXIT_OK;

	cmd_getopt_init(&g, "faults", "reset", argc, argv);
	ret = cmd_getopt_next(&g);
	if (ret > 0)
		return cmd_getopt_refuse(&g);	/* reset takes none */
	if (ret < 0)
		return EXIT_USAGE;
	if (g.npos > 1)
		return cmd_getopt_extra(&g, g.pos[1]);
	if (g.npos) {
		target = g.pos[0];
		if (!opt_no_check) {
			if (pciaddr_parse(target, addr, err, sizeof(err))) {
				fprintf(stderr, "p2pmap: invalid PCI address \"%s\": %s\n",
					target, err);
				return EXIT_USAGE;
			}
			target = addr;
		}
	}
	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (faults_reset(&nl, target)) {
		pnl_perror(&nl.error, "faults reset");
		ret = cmd_exit_nl(&nl);
	} else {
		printf("faults reset: %s\n", target ? target : "all devices");
	}
	pnl_close(&nl);
	return ret;
}

static int parse_interval(const char *s, double *secs)
{
	char *end;

	errno = 0;
	*secs = strtod(s, &end);
	return errno || end == s || *end || !(*secs > 0) || *secs > 86400 ?
		-1 : 0;
}

/* Keep the devices @f matches (a pair goes with its initiator). */
static void faults_filter(struct p2pmap_dev_list *devs,
			  const struct dev_filter *f)
{
	size_t i, n = 0;

	for (i = 0; i < devs->n; i++) {
		const struct p2pmap_dev *d = &devs->devs[i];

		if (dev_filter_match(f, d->vendor, d->device, d->class >> 8,
				     d->driver))
			devs->devs[n++] = *d;
	}
	devs->n = n;
}

static int faults_show(struct p2pmap_nl *nl, const struct dev_filter *f,
		       bool json, bool watch, double interval)
{
	struct p2pmap_dev_list devs = { 0 };
	char now[FORMAT_TIME_LEN];
	struct timespec ts;
	int ret = EXIT_OK;

	if (dev_dump(nl, &devs)) {
		pnl_perror(&nl->error, "dev dump");
		ret = cmd_exit_nl(nl);
		goto out;
	}
	faults_filter(&devs, f);
	if (watch && !json) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (isatty(STDOUT_FILENO))
			fputs("\033[H\033[2J", stdout);
		printf("every %gs: p2pmap faults  %s\n", interval,
		       format_time(now, sizeof(now),
				   (uint64_t)ts.tv_sec * 1000000000ULL +
				   ts.tv_nsec));
	}
	if (json)
		json_faults(stdout, devs.devs, devs.n);
	else
		format_faults(stdout, devs.devs, devs.n);
	if (watch && !json && !isatty(STDOUT_FILENO))
		putchar('\n');
	fflush(stdout);
out:
	dev_list_free(&devs);
	return ret;
}

int cmd_faults(int argc, char **argv)
{
	struct dev_filter filter = { 0 };
	bool json = false, watch = false;
	double interval = 1;
	struct cmd_getopt g;
	struct p2pmap_nl nl;
	int ret, f;

	if (argc > 1 && !strcmp(argv[1], "reset"))
		return faults_reset_cmd(argc - 1, argv + 1);

	cmd_getopt_init(&g, "faults", NULL, argc, argv);
	while ((f = cmd_getopt_next(&g)) > 0) {
		f = dev_filter_opt(&filter, g.opt->name, g.arg, "faults");
		if (f < 0)
			return EXIT_USAGE;
		if (f)
			continue;
		if (cmd_opt_is(&g, "--json")) {
			json = true;
		} else if (cmd_opt_is(&g, "--watch")) {
			watch = true;
			if (g.arg && parse_interval(g.arg, &interval)) {
				fprintf(stderr, "p2pmap: invalid interval \"%s\" (seconds, > 0)\n",
					g.arg);
				return EXIT_USAGE;
			}
		} else {
			return cmd_getopt_refuse(&g);
		}
	}
	if (f < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);

	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (watch)
		cmd_catch_signals();
	do {
		ret = faults_show(&nl, &filter, json, watch, interval);
		if (ret || !watch)
			break;
		poll(NULL, 0, (int)(interval * 1000));
	} while (!cmd_stopped());
	pnl_close(&nl);
	return ret;
}
