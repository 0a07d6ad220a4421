// SPDX-License-Identifier: GPL-2.0
/*
 * A modprobe.d file judged as the module will judge it (modprobe_check.h):
 * the file is read here, each parameter by the module's own grammar,
 * kmod/shared/param_grammar.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modprobe_check.h"
#include "param_grammar.h"

#define MAX_ENTRIES	1024
#define NR_LISTS	P2PMAP_POLICY_LISTS

struct entry {
	char *text;
	unsigned int line;
};

struct state {
	const char *path;
	FILE *out;
	struct modprobe_check *res;
	struct entry links[MAX_ENTRIES];
	unsigned int nlinks;
	char *lists[NR_LISTS];
	unsigned int list_line[NR_LISTS];
	char *reserve;
	unsigned int reserve_line;
	bool dmar_log, amdvi_log, skip_guard, unmap_short, no_tracepoint;
};

static void problem(struct state *st, unsigned int line, bool warning,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void problem(struct state *st, unsigned int line, bool warning,
		    const char *fmt, ...)
{
	va_list ap;

	if (warning)
		st->res->warnings++;
	else
		st->res->problems++;
	fprintf(st->out, "%s:%u: %s", st->path, line, warning ? "note: " : "");
	va_start(ap, fmt);
	vfprintf(st->out, fmt, ap);
	va_end(ap);
	fputc('\n', st->out);
}

static void check_links(struct state *st)
{
	struct modprobe_link *seen = calloc(st->nlinks + 1, sizeof(*seen));
	char why[P2PMAP_PARAM_PROBLEM_LEN];
	struct p2pmap_link_param l;
	unsigned int i, k, used = 0;

	for (i = 0; i < st->nlinks; i++) {
		if (p2pmap_parse_link_param(st->links[i].text, &l, why,
					    sizeof(why))) {
			problem(st, st->links[i].line, false, "%s", why);
			continue;
		}
		if (!seen) {
			problem(st, st->links[i].line, false,
				P2PMAP_LINK_PARAM_SKIPPED, l.given,
				"out of memory");
			continue;
		}
		memcpy(seen[used].initiator, l.initiator, sizeof(l.initiator));
		memcpy(seen[used].target, l.target, sizeof(l.target));
		seen[used].has_mask = l.has_mask;
		seen[used].mask = l.mask;
		seen[used].line = st->links[i].line;
		for (k = 0; k < used; k++)
			if (!strcmp(seen[k].initiator, seen[used].initiator) &&
			    !strcmp(seen[k].target, seen[used].target))
				break;
		if (k < used)
			problem(st, st->links[i].line, true,
				P2PMAP_LINK_PARAM_TWICE,
				seen[used].initiator, seen[used].target);
		else
			used++;
	}
	st->res->links = used;
	st->res->link = seen;
}

void modprobe_check_free(struct modprobe_check *res)
{
	int k;

	free(res->link);
	res->link = NULL;
	for (k = 0; k < NR_LISTS; k++) {
		free(res->policy[k]);
		res->policy[k] = NULL;
	}
}

static void set_bool(struct state *st, unsigned int line, const char *name,
		     const char *val, bool *b)
{
	char why[P2PMAP_PARAM_PROBLEM_LEN];

	if (p2pmap_parse_bool_param(name, val, b, why, sizeof(why)))
		problem(st, line, false, "%s", why);
}

/* A string parameter: no value is "". */
static char *dup_val(const char *val)
{
	return strdup(val ? val : "");
}

static void add_links(struct state *st, unsigned int line, const char *val)
{
	char *copy, *cur, *e;
	unsigned int i;

	if (!val || !*val) {
		/* The module replaces, not appends, an empty value. */
		if (st->nlinks)
			problem(st, line, true,
				"links given again without a value: the %u entries before are dropped",
				st->nlinks);
		for (i = 0; i < st->nlinks; i++)
			free(st->links[i].text);
		st->nlinks = 0;
		return;
	}
	copy = strdup(val);
	for (cur = copy; cur && (e = p2pmap_param_list_next(&cur)); ) {
		if (st->nlinks == MAX_ENTRIES) {
			problem(st, line, true, "more than %u links: not checked further",
				MAX_ENTRIES);
			break;
		}
		st->links[st->nlinks].text = strdup(e);
		st->links[st->nlinks++].line = line;
	}
	free(copy);
}

static void param(struct state *st, unsigned int line, char *name,
		  const char *val)
{
	char *p;
	int k;

	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
	if (!strcmp(name, "links")) {
		add_links(st, line, val);
		return;
	}
	for (k = 0; k < NR_LISTS; k++) {
		if (!strcmp(name, p2pmap_policy_params[k])) {
			free(st->lists[k]);
			st->lists[k] = dup_val(val);
			st->list_line[k] = line;
			return;
		}
	}
	if (!strcmp(name, "reserve")) {
		free(st->reserve);
		st->reserve = dup_val(val);
		st->reserve_line = line;
	} else if (!strcmp(name, "dmar_log")) {
		set_bool(st, line, name, val, &st->dmar_log);
	} else if (!strcmp(name, "amdvi_log")) {
		set_bool(st, line, name, val, &st->amdvi_log);
	} else if (!strcmp(name, "debug_skip_iova_guard") ||
		   !strcmp(name, "debug_unmap_short") ||
		   !strcmp(name, "debug_no_tracepoint")) {
		problem(st, line, true,
			"%s exists only in debug builds of the module (for tests): others ignore it",
			name);
		set_bool(st, line, name, val,
			 !strcmp(name, "debug_skip_iova_guard") ?
			 &st->skip_guard :
			 !strcmp(name, "debug_unmap_short") ?
			 &st->unmap_short : &st->no_tracepoint);
	} else {
		problem(st, line, false,
			"unknown parameter \"%s\": the module ignores it", name);
	}
}

/*
 * The next "param[=value]" of @args, as the kernel's parse_args() splits
 * a module's arguments: white space ends it outside double quotes; quotes
 * around the value, or around the whole, are dropped.
 */
static char *next_param(char *args, char **name, char **val)
{
	bool quoted = false, inq = false;
	char *eq = NULL, *end;
	size_t n;

	if (*args == '"') {
		quoted = inq = true;
		args++;
	}
	for (end = args; *end && (inq || !isspace((unsigned char)*end)); end++) {
		if (*end == '=' && !eq)
			eq = end;
		if (*end == '"')
			inq = !inq;
	}
	n = end - args;
	*name = args;
	*val = NULL;
	if (eq) {
		*eq = '\0';
		*val = eq + 1;
		if (**val == '"') {
			(*val)++;
			if (n && args[n - 1] == '"')
				args[--n] = '\0';
		}
	}
	if (quoted && n && args[n - 1] == '"')
		args[n - 1] = '\0';
	if (*end)
		*end++ = '\0';
	while (isspace((unsigned char)*end))
		end++;
	return end;
}

/* "options p2pmap ...": the module's name with '-' and '_' alike. */
static char *p2pmap_options(char *line)
{
	char *w = line, *mod;
	size_t n;

	w += strspn(w, " \t");
	if (strncmp(w, "options", 7) || !isspace((unsigned char)w[7]))
		return NULL;
	mod = w + 7 + strspn(w + 7, " \t");
	n = strcspn(mod, " \t");
	if (n != 6 || strncmp(mod, "p2pmap", 6))
		return NULL;
	return mod + n + strspn(mod + n, " \t");
}

static void final_checks(struct state *st)
{
	char why[P2PMAP_PARAM_PROBLEM_LEN];
	bool on;
	int k;

	check_links(st);
	for (k = 0; k < NR_LISTS; k++)
		if (st->lists[k] &&
		    p2pmap_parse_policy_param(k, st->lists[k], why,
					      sizeof(why))) {
			problem(st, st->list_line[k], false, "%s", why);
			st->res->policy_bad = true;
		}
	for (k = 0; k < NR_LISTS && !st->res->policy_bad; k++)
		if (st->lists[k])
			st->res->policy[k] = dup_val(st->lists[k]);
	if (st->reserve &&
	    p2pmap_parse_reserve_param(st->reserve, &on, why, sizeof(why)))
		problem(st, st->reserve_line, false, "%s", why);
}

static void free_state(struct state *st)
{
	unsigned int i;

	for (i = 0; i < st->nlinks; i++)
		free(st->links[i].text);
	for (i = 0; i < NR_LISTS; i++)
		free(st->lists[i]);
	free(st->reserve);
}

int modprobe_check(FILE *in, const char *path, FILE *out,
		   struct modprobe_check *res)
{
	struct state *st = calloc(1, sizeof(*st));
	char *buf = NULL, *logical = NULL, *args, *name, *val;
	size_t cap = 0, len = 0;
	unsigned int lineno = 0, first = 0;
	ssize_t n;

	memset(res, 0, sizeof(*res));
	if (!st)
		return -1;
	st->path = path;
	st->out = out;
	st->res = res;
	st->dmar_log = true;
	st->amdvi_log = true;
	while ((n = getline(&buf, &cap, in)) >= 0) {
		lineno++;
		if (n && buf[n - 1] == '\n')
			buf[--n] = '\0';
		if (!logical) {
			first = lineno;
			len = 0;
		}
		logical = realloc(logical, len + n + 2);
		memcpy(logical + len, buf, n + 1);
		len += n;
		/* A trailing backslash continues the line, as in modprobe. */
		if (len && logical[len - 1] == '\\') {
			logical[--len] = ' ';
			logical[++len] = '\0';
			continue;
		}
		args = logical + strspn(logical, " \t");
		if (*args != '#' && (args = p2pmap_options(args))) {
			res->options_lines++;
			while (*args) {
				args = next_param(args, &name, &val);
				if (*name)
					param(st, first, name, val);
			}
		}
		free(logical);
		logical = NULL;
	}
	free(logical);
	free(buf);
	final_checks(st);
	free_state(st);
	free(st);
	return ferror(in) ? -1 : 0;
}
