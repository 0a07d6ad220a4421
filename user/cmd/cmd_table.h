/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One table of the commands: each one's usage forms, subcommands and
 * options with their argument and a line of help.  "p2pmap help CMD",
 * the usage errors and "p2pmap help --table" (which tests/man/run.sh
 * holds the man page and the bash completion against) all print from it,
 * so that the usage text lives in one place.
 */
#ifndef P2PMAP_CMD_TABLE_H
#define P2PMAP_CMD_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct cmd_option {
	const char *name;		/* "--wait", "-d" */
	const char *arg;		/* "SECONDS", "[SECONDS]"; NULL: a flag */
	const char *help;		/* one line */
};

struct cmd_entry {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;		/* one line, for "p2pmap help" */
	const char *const *forms;	/* usage lines after "p2pmap ", NULL-ended */
	const char *const *subcommands;	/* the words after name, NULL-ended */
	const char *details;		/* more lines for "help CMD", or NULL */
	const struct cmd_option *options;	/* ended by a NULL name */
};

extern const struct cmd_entry cmd_table[];
extern const size_t cmd_table_len;
/*
 * The options before the command (main.c).  A short one followed by a
 * long one with the same help is one option ("-j, --json"); no help: not
 * shown (--no-check, for tests).
 */
extern const struct cmd_option cmd_global_options[];

/* The command called @name, or NULL. */
const struct cmd_entry *cmd_find(const char *name);

/*
 * "usage: p2pmap FORM | FORM ..." for a usage error: the forms of @name
 * whose subcommand is @sub, or all of them for a NULL @sub.  The string
 * lives until the next call.
 */
const char *cmd_usage(const char *name, const char *sub);

/* "p2pmap help": the commands, the exit table, the global options. */
void cmd_help_overview(FILE *f);
/* "p2pmap help CMD": its forms, details and options. */
void cmd_help_command(FILE *f, const struct cmd_entry *c);

#endif /* P2PMAP_CMD_TABLE_H */
