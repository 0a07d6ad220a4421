// SPDX-License-Identifier: GPL-2.0
/* p2pmap: identity IOMMU mappings of peer PCI BARs - command line tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_table.h"
#include "module_hint.h"
#include "nl.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "unknown"
#endif

bool opt_no_check;

/*
 * One grammar for every command: "--opt=value" is "--opt" "value", a
 * leading -j/--json goes to the command, and -h/--help anywhere in its
 * arguments prints its usage.  Returns a new argv (argc in *@argc), or
 * NULL when out of memory.
 */
static char **normalise(int *argc, char **argv, bool json)
{
	char **out = calloc(2 * (size_t)*argc + 2, sizeof(*out));
	int i, n = 0;
	char *eq;

	if (!out)
		return NULL;
	for (i = 0; i < *argc; i++) {
		eq = i && !strncmp(argv[i], "--", 2) ? strchr(argv[i], '=') : NULL;
		if (eq) {
			*eq = '\0';
			out[n++] = argv[i];
			out[n++] = eq + 1;
		} else {
			out[n++] = argv[i];
		}
	}
	if (json)
		out[n++] = "--json";
	out[n] = NULL;
	*argc = n;
	return out;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;
	bool json = false;
	char **args;
	int j;

	pnl_not_loaded_hint = module_hint;
	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
			json = true;
		} else if (!strcmp(argv[0], "--no-check")) {
			opt_no_check = true;
		} else if (!strcmp(argv[0], "--version")) {
			return cmd_version(P2PMAP_VERSION);
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			cmd_help_overview(stdout);
			return EXIT_OK;
		} else {
			fprintf(stderr, "p2pmap: unknown option \"%s\" (try \"p2pmap help\")\n",
				argv[0]);
			return EXIT_USAGE;
		}
		argc--;
		argv++;
	}
	if (!argc) {
		cmd_help_overview(stdout);
		return EXIT_OK;
	}

	c = cmd_find(argv[0]);
	if (!c) {
		fprintf(stderr, "p2pmap: unknown command \"%s\" (try \"p2pmap help\")\n",
			argv[0]);
		return EXIT_USAGE;
	}
	for (j = 1; j < argc; j++) {
		if (!strcmp(argv[j], "-h") || !strcmp(argv[j], "--help")) {
			cmd_help_command(stdout, c);
			return EXIT_OK;
		}
	}
	args = normalise(&argc, argv, json);
	if (!args) {
		fprintf(stderr, "p2pmap: out of memory\n");
		return EXIT_FAILED;
	}
	j = c->fn(argc, args);
	free(args);
	return j;
}
