// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap metrics [--output FILE]: the module's state and counters in the
 * Prometheus text format, on stdout or written atomically to FILE (for
 * node_exporter's textfile collector: FILE ending in .prom).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_stale.h"
#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "config.h"
#include "dev.h"
#include "info.h"
#include "link.h"
#include "metrics.h"
#include "modprobe_check.h"
#include "snapshot.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "unknown"
#endif

/* The links the saved configuration gives the next boot, as the module
 * would use them (config check's reading). */
static void saved_links(const char *path, struct metrics_input *in)
{
	struct modprobe_check res = { 0 };
	FILE *f = fopen(path, "r"), *null;

	in->has_config_links = true;
	in->config_links = 0;
	if (!f)
		return;		/* no saved configuration: no links */
	null = fopen("/dev/null", "w");
	if (null && !modprobe_check(f, path, null, &res))
		in->config_links = res.links;
	if (null) {
		modprobe_check_free(&res);
		fclose(null);
	}
	fclose(f);
}

static void count_cache(void *arg, const char *path,
			const struct cache_record *r,
			const struct cache_verdict *v)
{
	struct metrics_input *in = arg;

	(void)path;
	(void)r;
	in->caches_valid += v->state == CACHE_VALID;
	in->caches_stale += v->state == CACHE_STALE;
	in->caches_edited += v->state == CACHE_EDITED;
}

static int render_to(const char *path, const struct metrics_input *in)
{
	char *tmp;
	FILE *f;
	int fd, ret = -1;

	if (!path)
		return metrics_render(stdout, in) || fflush(stdout) ? -1 : 0;
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "p2pmap: %s: %s\n", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return -1;
	}
	if (metrics_render(f, in) || fflush(f) || fsync(fd) || ferror(f))
		fprintf(stderr, "p2pmap: %s: write failed\n", tmp);
	else if (rename(tmp, path))
		fprintf(stderr, "p2pmap: %s: %s\n", path, strerror(errno));
	else
		ret = 0;
	fclose(f);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int cmd_metrics(int argc, char **argv)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_dev_list devs = { 0 };
	struct metrics_input in = { 0 };
	struct p2pmap_info info;
	const char *output = NULL, *config = CONFIG_DEFAULT_PATH;
	struct cmd_getopt g;
	struct p2pmap_nl nl;
	int ret = EXIT_OK, i, err;
	const char *op;

	cmd_getopt_init(&g, "metrics", NULL, argc, argv);
	while ((i = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--output"))
			output = g.arg;
		else if (cmd_opt_is(&g, "--config"))
			config = g.arg;
		else
			return cmd_getopt_refuse(&g);
	}
	if (i < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);

	in.cli_version = P2PMAP_VERSION;
	in.timestamp = (unsigned long long)time(NULL);
	saved_links(config, &in);
	in.has_caches = cache_stale_scan(NULL, "/", count_cache, &in) >= 0;

	/* Not loaded is a state to export (p2pmap_loaded 0), not a failure. */
	err = pnl_open(&nl);
	if (err == -ENOENT)
		return render_to(output, &in) ? EXIT_FAILED : EXIT_OK;
	if (err)
		return cmd_exit_nl(&nl);

	if (info_get(&nl, &info)) {
		pnl_perror(&nl.error, "info");
		ret = cmd_exit_nl(&nl);
	} else if (snapshot_read(&nl, &links, &devs, &op)) {
		pnl_perror(&nl.error, op);
		ret = cmd_exit_nl(&nl);
	} else {
		in.loaded = true;
		in.info = &info;
		in.devs = devs.devs;
		in.ndevs = devs.n;
		in.links = links.links;
		in.nlinks = links.n;
		if (render_to(output, &in))
			ret = EXIT_FAILED;
	}
	dev_list_free(&devs);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}
