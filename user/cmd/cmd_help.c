// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap help [COMMAND | --table]: the overview, one command's usage, or
 * the table itself for tests/man/run.sh, all printed from cmd_table.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"

void cmd_help_overview(FILE *f)
{
	const struct cmd_option *o;
	char word[32];
	int w = 0;
	size_t i;

	/* The summaries in one column, after the longest name. */
	for (i = 0; i < cmd_table_len; i++)
		if ((int)strlen(cmd_table[i].name) > w)
			w = strlen(cmd_table[i].name);
	fprintf(f, "Usage: p2pmap [-j|--json] <command> [<args>]\n\n");
	fprintf(f, "Commands:\n");
	for (i = 0; i < cmd_table_len; i++)
		fprintf(f, "  %-*s %s\n", w, cmd_table[i].name,
			cmd_table[i].summary);
	fprintf(f, "\nAddresses are PCI addresses [DDDD:]BB:DD.F; MASK selects BARs 0..5\n"
		   "(hex 0x.. or decimal, 1..0x3f, default 0x3: BAR0 and BAR1, what NVIDIA maps).\n"
		   "Policy LISTs are comma-separated: drivers by name, vendors as 4 hex digits,\n"
		   "classes as 2, 4 or 6 hex digits (a class code prefix), NUMA nodes in decimal.\n"
		   "Counts shown as >=N are lower bounds (VT-d rate-limits its fault log).\n"
		   "--json output is described in JSON.md.\n\n"
		   "Every option takes its value as --opt VALUE or --opt=VALUE; options are\n"
		   "written whole (no abbreviations), before or after the other arguments;\n"
		   "\"--\" ends them.\n\n"
		   EXIT_TABLE "\n"
		   "Options:\n");
	for (o = cmd_global_options; o->name; o++) {
		if (!o->help)
			continue;
		if (o->name[1] != '-' && o[1].name && o[1].help &&
		    !strcmp(o[1].help, o->help)) {
			snprintf(word, sizeof(word), "%s, %s", o->name,
				 o[1].name);
			o++;
		} else {
			snprintf(word, sizeof(word), "%s", o->name);
		}
		fprintf(f, "  %-10s  %s\n", word, o->help);
	}
}

void cmd_help_command(FILE *f, const struct cmd_entry *c)
{
	const struct cmd_option *o;
	const char *const *form;
	const char *lead = "Usage:";
	char word[48];

	for (form = c->forms; *form; form++) {
		fprintf(f, "%s p2pmap %s\n", lead, *form);
		lead = "      ";
	}
	fprintf(f, "\n%s.\n", c->summary);
	if (c->details)
		fprintf(f, "%s\n", c->details);
	if (c->options[0].name)
		fprintf(f, "\nOptions:\n");
	for (o = c->options; o->name; o++) {
		snprintf(word, sizeof(word), "%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		/* A long option and argument gets its help on a line of its own. */
		if (strlen(word) > 24)
			fprintf(f, "  %s\n  %-24s %s\n", word, "", o->help);
		else
			fprintf(f, "  %-24s %s\n", word, o->help);
	}
	/* Its man page: p2pmap-NAME(8); help is in p2pmap(8) itself. */
	if (strcmp(c->name, "help"))
		fprintf(f, "\nSee p2pmap-%s(8).\n", c->name);
	else
		fprintf(f, "\nSee p2pmap(8).\n");
}

/*
 * Tab-separated, one line per fact, for scripts that hold other files
 * against the table: "command NAME", "subcommand NAME SUB", "option NAME
 * OPT ARG" (ARG "-" for a flag).
 */
static void print_table(FILE *f)
{
	const struct cmd_option *o;
	const char *const *s;
	size_t i;

	for (i = 0; i < cmd_table_len; i++) {
		const struct cmd_entry *c = &cmd_table[i];

		fprintf(f, "command\t%s\n", c->name);
		for (s = c->subcommands; s && *s; s++)
			fprintf(f, "subcommand\t%s\t%s\n", c->name, *s);
		for (o = c->options; o->name; o++)
			fprintf(f, "option\t%s\t%s\t%s\n", c->name, o->name,
				o->arg ? o->arg : "-");
	}
}

int cmd_help(int argc, char **argv)
{
	const struct cmd_entry *c;
	struct cmd_getopt g;
	bool table = false;
	int r;

	cmd_getopt_init(&g, "help", NULL, argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (!cmd_opt_is(&g, "--table"))
			return cmd_getopt_refuse(&g);
		table = true;
	}
	if (r < 0)
		return EXIT_USAGE;
	if (table && !g.npos) {
		print_table(stdout);
		return EXIT_OK;
	}
	if (table)
		return cmd_getopt_extra(&g, g.pos[0]);
	if (!g.npos) {
		cmd_help_overview(stdout);
		return EXIT_OK;
	}
	c = cmd_find(g.pos[0]);
	if (g.npos > 1 || !c) {
		fprintf(stderr, "p2pmap: help: no command \"%s\" (try \"p2pmap help\")\n",
			g.pos[g.npos > 1 ? 1 : 0]);
		return EXIT_USAGE;
	}
	cmd_help_command(stdout, c);
	return EXIT_OK;
}
