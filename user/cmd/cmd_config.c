// SPDX-License-Identifier: GPL-2.0
/* p2pmap config save|show|check [--file PATH]: the modprobe.d file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "config.h"
#include "format.h"
#include "link.h"
#include "modprobe_check.h"
#include "policy.h"

#define CONFIG_USAGE "usage: p2pmap config {save|show} [--file PATH] | config check [--file PATH | PATH]"

static int cmp_link(const void *a, const void *b)
{
	const struct p2pmap_link *x = a, *y = b;
	int c = strcmp(x->initiator, y->initiator);

	return c ? c : strcmp(x->target, y->target);
}

/* The rendered file, read as config check reads one; 0 when clean. */
static int check_text(const char *path, char *text, size_t len)
{
	struct modprobe_check res;
	FILE *f = fmemopen(text, len, "r");
	int rc;

	if (!f)
		return 0;
	rc = modprobe_check(f, path, stderr, &res);
	fclose(f);
	if (rc || res.problems) {
		fprintf(stderr, "p2pmap: config save: the file would not load as saved: not written\n");
		return -1;
	}
	return 0;
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
	/* What the module will make of it: the same reader as config check. */
	if (check_text(path, text, len))
		goto out;
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

/*
 * The file as modprobe and the module will read it at the next boot: exit
 * 0 when the module would use every part of it, 1 when it would skip one
 * (each named with its line) or the file cannot be read.
 */
static int config_check(const char *path)
{
	struct modprobe_check res;
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		fprintf(stderr, "p2pmap: config check: %s: %s\n", path,
			strerror(errno));
		return EXIT_RUNTIME;
	}
	rc = modprobe_check(f, path, stdout, &res);
	fclose(f);
	if (rc) {
		fprintf(stderr, "p2pmap: config check: %s: cannot be read\n",
			path);
		return EXIT_RUNTIME;
	}
	if (!res.options_lines)
		printf("config check: %s: no \"options p2pmap\" line: the module loads with its defaults\n",
		       path);
	else if (res.problems)
		printf("config check: %s: %u problem%s: the module would skip %s\n",
		       path, res.problems, res.problems == 1 ? "" : "s",
		       res.problems == 1 ? "it" : "them");
	else
		printf("config check: %s: ok (%u link%s)\n", path, res.links,
		       res.links == 1 ? "" : "s");
	return res.problems ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_config(int argc, char **argv)
{
	const char *path = CONFIG_DEFAULT_PATH;
	bool check;
	int i;

	if (argc < 2 || (strcmp(argv[1], "save") && strcmp(argv[1], "show") &&
			 strcmp(argv[1], "check"))) {
		fprintf(stderr, "p2pmap: %s\n", CONFIG_USAGE);
		return EXIT_USAGE;
	}
	check = !strcmp(argv[1], "check");
	/* "config check FILE": the file as an argument, too. */
	if (check && argc == 3 && argv[2][0] != '-')
		return config_check(argv[2]);
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
	if (check)
		return config_check(path);
	return !strcmp(argv[1], "save") ? config_save(path) : config_show(path);
}
