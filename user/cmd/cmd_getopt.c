// SPDX-License-Identifier: GPL-2.0
/* The commands' option parser over getopt_long (cmd_getopt.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"

/* getopt_long's value for the table's option i (above any char). */
#define LONG_VAL	0x100

static void build(struct cmd_getopt *g)
{
	const struct cmd_option *o;
	char *s = g->shortopts;
	int n = 0, k = 0, has;

	/*
	 * '-': the other arguments come back in order, as code 1, whatever
	 * POSIXLY_CORRECT says and without permuting argv; ':': a missing
	 * argument comes back as ':', told apart from an unknown option.
	 */
	*s++ = '-';
	*s++ = ':';
	for (o = g->table; o && o->name; o++, k++) {
		if (k == CMD_GETOPT_MAX) {
			g->too_many = true;
			break;
		}
		has = !o->arg ? no_argument :
		      o->arg[0] == '[' ? optional_argument : required_argument;
		if (o->name[1] != '-') {
			*s++ = o->name[1];
			if (has != no_argument)
				*s++ = ':';
			if (has == optional_argument)
				*s++ = ':';
			continue;
		}
		g->longopts[n++] = (struct option){
			.name = o->name + 2,
			.has_arg = has,
			.val = LONG_VAL + k,
		};
	}
	*s = '\0';
	/* glibc starts over (and reads its environment again) at optind 0. */
	optind = 0;
	opterr = 0;
}

void cmd_getopt_init(struct cmd_getopt *g, const char *cmd, const char *sub,
		     int argc, char **argv)
{
	const struct cmd_entry *c = cmd_find(cmd);

	memset(g, 0, sizeof(*g));
	g->cmd = cmd;
	g->sub = sub;
	g->table = c ? c->options : NULL;
	g->argc = argc;
	g->argv = argv;
	g->pos = argv + 1;
	build(g);
}

void cmd_getopt_init_global(struct cmd_getopt *g,
			    const struct cmd_option *table,
			    int argc, char **argv)
{
	memset(g, 0, sizeof(*g));
	g->table = table;
	g->argc = argc;
	g->argv = argv;
	g->pos = argv + 1;
	g->stop_at_pos = true;
	build(g);
}

/*
 * "p2pmap: link add: WHAT; usage: p2pmap link add ...", or for the
 * global options "p2pmap: WHAT (try "p2pmap help")".  Returns -1.
 */
static int __attribute__((format(printf, 2, 3)))
say(struct cmd_getopt *g, const char *fmt, ...)
{
	size_t off, len = sizeof(g->error);
	va_list ap;

	off = snprintf(g->error, len, "p2pmap: ");
	if (g->cmd)
		off += snprintf(g->error + off, len - off, "%s%s%s: ", g->cmd,
				g->sub ? " " : "", g->sub ? g->sub : "");
	va_start(ap, fmt);
	if (off < len)
		off += vsnprintf(g->error + off, len - off, fmt, ap);
	va_end(ap);
	if (off < len)
		snprintf(g->error + off, len - off, g->cmd ? "; %s" : "%s",
			 g->cmd ? cmd_usage(g->cmd, g->sub) :
				  " (try \"p2pmap help\")");
	fprintf(stderr, "%s\n", g->error);
	return -1;
}

static const struct cmd_option *short_opt(const struct cmd_getopt *g, int c)
{
	const struct cmd_option *o;

	for (o = g->table; o && o->name; o++)
		if (o->name[1] == c && !o->name[2])
			return o;
	return NULL;
}

static const struct cmd_option *found(const struct cmd_getopt *g, int c)
{
	return c >= LONG_VAL ? &g->table[c - LONG_VAL] : short_opt(g, c);
}

/* The word of the unknown option that getopt_long just passed. */
static int say_unknown(struct cmd_getopt *g)
{
	const char *w = g->argv[optind - 1];

	if (optopt && optopt < LONG_VAL)
		return say(g, "unknown option \"-%c\"", optopt);
	return say(g, "unknown option \"%.*s\"", (int)strcspn(w, "="), w);
}

/*
 * The long option @o came as a prefix of its name ("--dry" for
 * "--dry-run"), which getopt_long takes.  Refused: scripts call this
 * tool to change kernel state, and a prefix that is unique today may
 * stop being so, or name another option, when one is added.
 */
static bool abbreviated(const struct cmd_option *o, const char *w)
{
	size_t len = strcspn(w, "=");

	return o->name[1] == '-' && (strncmp(w, o->name, len) || o->name[len]);
}

static int take_option(struct cmd_getopt *g, int c)
{
	const struct cmd_option *o = found(g, c);
	const char *w;

	if (!o)
		return say_unknown(g);
	/* The option's word: before its argument when that came apart. */
	w = optarg && optarg == g->argv[optind - 1] ? g->argv[optind - 2] :
						       g->argv[optind - 1];
	if (abbreviated(o, w))
		return say(g, "unknown option \"%.*s\" (options are not abbreviated: %s)",
			   (int)strcspn(w, "="), w, o->name);
	g->opt = o;
	g->arg = optarg;
	/*
	 * An optional argument ("--watch [SECONDS]") that getopt_long takes
	 * only as --watch=5: the next word too when it is no option, as
	 * before getopt (the command checks it).  The commands with such an
	 * option take no other argument that this could swallow.
	 */
	if (o->arg && o->arg[0] == '[' && !optarg && optind < g->argc &&
	    g->argv[optind][0] != '-')
		g->arg = g->argv[optind++];
	return 1;
}

int cmd_getopt_next(struct cmd_getopt *g)
{
	const struct cmd_option *o;
	int c;

	if (g->too_many)
		return say(g, "internal error: more than %d options in the table",
			   CMD_GETOPT_MAX);
	g->opt = NULL;
	g->arg = NULL;
	for (;;) {
		c = getopt_long(g->argc, g->argv, g->shortopts, g->longopts,
				NULL);
		if (c == 1 && g->stop_at_pos) {
			g->pos = g->argv + optind - 1;
			g->npos = g->argc - optind + 1;
			return 0;
		}
		if (c == 1) {
			/* Already passed: argv up to optind is free to reuse. */
			g->argv[1 + g->npos++] = optarg;
			continue;
		}
		if (c == -1)
			break;
		if (c == ':') {
			o = found(g, optopt);
			return say(g, "%s needs %s", o ? o->name : "an option",
				   o ? o->arg : "a value");
		}
		if (c == '?' && optopt >= LONG_VAL) {
			/* "--json=1": a value to a flag. */
			o = found(g, optopt);
			if (abbreviated(o, g->argv[optind - 1]))
				return say_unknown(g);
			return say(g, "%s takes no value", o->name);
		}
		if (c == '?')
			return say_unknown(g);
		return take_option(g, c);
	}
	/* After "--": the rest, in order. */
	if (g->stop_at_pos) {
		g->pos = g->argv + optind;
		g->npos = g->argc - optind;
		return 0;
	}
	while (optind < g->argc)
		g->argv[1 + g->npos++] = g->argv[optind++];
	return 0;
}

bool cmd_opt_is(const struct cmd_getopt *g, const char *name)
{
	return g->opt && !strcmp(g->opt->name, name);
}

int cmd_getopt_refuse(struct cmd_getopt *g)
{
	if (g->sub)
		say(g, "%s is another subcommand's option", g->opt->name);
	else	/* tests/cli/options.sh tries every option of the table */
		say(g, "%s is in the table but not parsed (a bug)",
		    g->opt->name);
	return EXIT_USAGE;
}

int cmd_getopt_json_only(const char *cmd, const char *sub, int argc,
			 char **argv, bool *json)
{
	struct cmd_getopt g;
	int r;

	*json = false;
	cmd_getopt_init(&g, cmd, sub, argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (!cmd_opt_is(&g, "--json"))
			return cmd_getopt_refuse(&g);
		*json = true;
	}
	if (r < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	return 0;
}

int cmd_getopt_extra(struct cmd_getopt *g, const char *arg)
{
	say(g, "unexpected argument \"%s\"", arg);
	return EXIT_USAGE;
}
