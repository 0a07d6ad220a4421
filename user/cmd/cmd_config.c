// SPDX-License-Identifier: GPL-2.0
/* p2pmap config save|show [--file PATH]: the modprobe.d file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "format.h"
#include "link.h"
#include "policy.h"

#define CONFIG_USAGE "usage: p2pmap config {save|show} [--file PATH]"

static int cmp_link(const void *a, const void *b)
{
	const struct p2pmap_link *x = a, *y = b;
	int c = strcmp(x->initiator, y->initiator);

	return c ? c : strcmp(x->target, y->target);
}

static int config_save(const char *path)
{
	struct p2pmap_link_list links = { 0 };
	char when[FORMAT_TIME_LEN], *text = NULL;
	struct p2pmap_policy p;
	struct p2pmap_nl nl;
	struct timespec now;
	size_t len = 0;
	int ret = EXIT_RUNTIME, err;
	FILE *f;

	if (pnl_open_required(&nl))
		return EXIT_RUNTIME;
	if (policy_get(&nl, &p)) {
		pnl_perror(&nl.error, "policy get");
		goto out;
	}
	if (link_dump(&nl, &links)) {
		pnl_perror(&nl.error, "link dump");
		goto out;
	}
	/* Sorted, so that saving an unchanged state writes the same links. */
	qsort(links.links, links.n, sizeof(*links.links), cmp_link);
	clock_gettime(CLOCK_REALTIME, &now);
	format_time(when, sizeof(when),
		    (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec);

	f = open_memstream(&text, &len);
	if (!f) {
		fprintf(stderr, "p2pmap: config save: %s\n", strerror(errno));
		goto out;
	}
	config_render(f, &p, links.links, links.n, when);
	if (fclose(f)) {
		fprintf(stderr, "p2pmap: config save: %s\n", strerror(errno));
		goto out;
	}
	err = config_write(path, text, len);
	if (err) {
		fprintf(stderr, "p2pmap: config save: %s: %s\n", path,
			strerror(-err));
		goto out;
	}
	printf("config save: wrote %s (%zu link%s)\n", path, links.n,
	       links.n == 1 ? "" : "s");
	ret = EXIT_OK;
out:
	free(text);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}

static int config_show(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "p2pmap: config show: %s: %s\n", path,
			strerror(errno));
		return EXIT_RUNTIME;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	if (ferror(f)) {
		fprintf(stderr, "p2pmap: config show: %s: %s\n", path,
			strerror(errno));
		fclose(f);
		return EXIT_RUNTIME;
	}
	fclose(f);
	return EXIT_OK;
}

int cmd_config(int argc, char **argv)
{
	const char *path = CONFIG_DEFAULT_PATH;
	bool save;
	int i;

	if (argc < 2 || (strcmp(argv[1], "save") && strcmp(argv[1], "show"))) {
		fprintf(stderr, "p2pmap: %s\n", CONFIG_USAGE);
		return EXIT_USAGE;
	}
	save = !strcmp(argv[1], "save");
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "--file=", 7) && argv[i][7]) {
			path = argv[i] + 7;
		} else if (!strcmp(argv[i], "--file")) {
			if (i + 1 == argc || !argv[i + 1][0]) {
				fprintf(stderr, "p2pmap: --file needs a path; %s\n",
					CONFIG_USAGE);
				return EXIT_USAGE;
			}
			path = argv[++i];
		} else {
			fprintf(stderr, "p2pmap: unknown argument \"%s\"; %s\n",
				argv[i], CONFIG_USAGE);
			return EXIT_USAGE;
		}
	}
	return save ? config_save(path) : config_show(path);
}
