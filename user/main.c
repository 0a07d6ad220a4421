// SPDX-License-Identifier: GPL-2.0
/* p2pmap: identity IOMMU mappings of peer PCI BARs - command line tool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "module_hint.h"
#include "nl.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "unknown"
#endif

bool opt_no_check;

/* Does @c take option @name? */
static bool has_option(const struct cmd_entry *c, const char *name)
{
	const struct cmd_option *o;

	for (o = c->options; o->name; o++)
		if (!strcmp(o->name, name))
			return true;
	return false;
}

/*
 * -j/--json before the command is its own --json, put right after the
 * command and its subcommand (the word the command looks for first):
 * before any "--", after which it would be an argument.  Returns a new
 * argv (argc in *@argc), or NULL when out of memory.
 */
static char **add_json(const struct cmd_entry *c, int *argc, char **argv)
{
	char **out = calloc((size_t)*argc + 2, sizeof(*out));
	const char *const *s;
	int i, at = 1;

	if (!out)
		return NULL;
	for (s = c->subcommands; s && *s && *argc > 1; s++)
		if (!strcmp(*s, argv[1]))
			at = 2;
	for (i = 0; i < at; i++)
		out[i] = argv[i];
	out[at] = "--json";
	for (i = at; i < *argc; i++)
		out[i + 1] = argv[i];
	(*argc)++;
	return out;
}

int main(int argc, char **argv)
{
	const struct cmd_entry *c;
	struct cmd_getopt g;
	bool json = false;
	char **args;
	int j;

	pnl_not_loaded_hint = module_hint;
	cmd_getopt_init_global(&g, cmd_global_options, argc, argv);
	while ((j = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--version"))
			return cmd_version(P2PMAP_VERSION);
		if (cmd_opt_is(&g, "-h") || cmd_opt_is(&g, "--help")) {
			cmd_help_overview(stdout);
			return EXIT_OK;
		}
		if (cmd_opt_is(&g, "--no-check"))
			opt_no_check = true;
		else
			json = true;	/* -j, --json */
	}
	if (j < 0)
		return EXIT_USAGE;
	argc = g.npos;
	argv = g.pos;
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
	/* -h/--help among the command's options: its usage. */
	for (j = 1; j < argc && strcmp(argv[j], "--"); j++) {
		if (!strcmp(argv[j], "-h") || !strcmp(argv[j], "--help")) {
			cmd_help_command(stdout, c);
			return EXIT_OK;
		}
	}
	if (!json)
		return c->fn(argc, argv);
	if (!has_option(c, "--json")) {
		fprintf(stderr, "p2pmap: %s has no JSON output (-j); %s\n",
			c->name, cmd_usage(c->name, NULL));
		return EXIT_USAGE;
	}
	args = add_json(c, &argc, argv);
	if (!args) {
		fprintf(stderr, "p2pmap: out of memory\n");
		return EXIT_FAILED;
	}
	j = c->fn(argc, args);
	free(args);
	return j;
}
