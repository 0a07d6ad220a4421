/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The commands' option parser: glibc's getopt_long over the options that
 * cmd_table.c gives the command, so the table alone says which options
 * exist and which take an argument, and every command takes them the same
 * way: --opt VALUE and --opt=VALUE, options before or after the other
 * arguments, "--" ends the options.
 *
 *	cmd_getopt_init(&g, "link", "add", argc - 1, argv + 1);
 *	while ((r = cmd_getopt_next(&g)) > 0) {
 *		if (cmd_opt_is(&g, "--both"))
 *			both = true;
 *		else
 *			return cmd_getopt_refuse(&g);
 *	}
 *	if (r < 0)
 *		return EXIT_USAGE;
 *	... g.pos[0 .. g.npos - 1]
 */
#ifndef P2PMAP_CMD_GETOPT_H
#define P2PMAP_CMD_GETOPT_H

#include <getopt.h>
#include <stdbool.h>

#include "cmd_table.h"

#define CMD_GETOPT_MAX	16	/* options of one command */

struct cmd_getopt {
	const char *cmd;		/* "link"; NULL: the global options */
	const char *sub;		/* "add": named in messages, or NULL */
	const struct cmd_option *opt;	/* the option found (the table's) */
	const char *arg;		/* its argument, NULL for none */
	char **pos;			/* the other arguments, in order... */
	int npos;			/* ... once cmd_getopt_next() returned 0 */
	char error[1024];		/* the usage error said, no newline */
	/* private */
	const struct cmd_option *table;
	int argc;
	char **argv;
	bool stop_at_pos;
	bool too_many;
	struct option longopts[CMD_GETOPT_MAX + 1];
	char shortopts[3 * CMD_GETOPT_MAX + 3];
};

/*
 * Parse @argv (argv[0] the command or subcommand word) against the
 * options of command @cmd; @sub names the subcommand in messages.
 */
void cmd_getopt_init(struct cmd_getopt *g, const char *cmd, const char *sub,
		     int argc, char **argv);
/*
 * The global options (before the command): @table, and stop at the first
 * other argument (the command), which starts g->pos.
 */
void cmd_getopt_init_global(struct cmd_getopt *g,
			    const struct cmd_option *table,
			    int argc, char **argv);
/*
 * 1: the next option is g->opt, its argument g->arg.  0: no more; the
 * other arguments are g->pos (moved to the front of argv).  -1: a usage
 * error, said on stderr with the usage line (exit EXIT_USAGE).
 */
int cmd_getopt_next(struct cmd_getopt *g);
/* Is the option found @name ("--json", "-d")? */
bool cmd_opt_is(const struct cmd_getopt *g, const char *name);
/*
 * The option found is the command's but not for this subcommand (the
 * table's "link auto: ..."): said, with the usage line.  EXIT_USAGE.
 */
int cmd_getopt_refuse(struct cmd_getopt *g);
/*
 * A command whose one option is --json and which takes no argument
 * (status, link show, info): 0 with *@json set, or EXIT_USAGE, said.
 */
int cmd_getopt_json_only(const char *cmd, const char *sub, int argc,
			 char **argv, bool *json);
/* An argument the command does not take: said, EXIT_USAGE. */
int cmd_getopt_extra(struct cmd_getopt *g, const char *arg);

#endif /* P2PMAP_CMD_GETOPT_H */
