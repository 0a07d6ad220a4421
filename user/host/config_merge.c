// SPDX-License-Identifier: GPL-2.0
/* config save into a file with other lines (config_merge.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_merge.h"

static const char * const owned_params[] = {
	"drivers", "vendors", "classes", "numa_nodes", "links",
};

/* The next logical line of *@p (continued lines joined), its raw text in
 * [*start, return). */
static const char *logical_end(const char *s)
{
	const char *nl;

	for (;;) {
		nl = strchr(s, '\n');
		if (!nl)
			return s + strlen(s);
		if (nl == s || nl[-1] != '\\')
			return nl + 1;
		s = nl + 1;
	}
}

/* The words of a logical line: continuations and white space split. */
static int words(const char *raw, size_t len, char **w, int max)
{
	char *copy = strndup(raw, len), *p, *save = NULL;
	int n = 0;

	if (!copy)
		return -1;
	for (p = copy; *p; p++)
		if (*p == '\\' && p[1] == '\n')
			*p = ' ';
	for (p = strtok_r(copy, " \t\n", &save); p && n < max;
	     p = strtok_r(NULL, " \t\n", &save))
		w[n++] = strdup(p);
	free(copy);
	return n;
}

static bool owned_param(const char *word)
{
	size_t n = strcspn(word, "="), i, k;
	char name[32];

	if (n >= sizeof(name))
		return false;
	for (i = 0; i < n; i++)
		name[i] = word[i] == '-' ? '_' : word[i];
	name[n] = '\0';
	for (k = 0; k < sizeof(owned_params) / sizeof(owned_params[0]); k++)
		if (!strcmp(name, owned_params[k]))
			return true;
	return false;
}

/*
 * Is this logical line ours?  Returns 0 (not ours: keep it as it is), 1
 * (ours: drop it), 2 (an options line of ours with other parameters: keep
 * those, in @rest).
 */
static int classify(const char *raw, size_t len, char *rest, size_t restlen)
{
	char *w[256];
	int n = words(raw, len, w, 256), i, ret = 0;
	size_t used = 0;

	rest[0] = '\0';
	if (n <= 0)
		return 0;
	if (w[0][0] == '#') {
		ret = !strncmp(raw, "# Written by \"p2pmap config save\"", 33) ||
		      !strncmp(raw, "# p2pmap loads before the GPU driver", 36);
	} else if (n == 4 && !strcmp(w[0], "softdep") &&
		   !strcmp(w[2], "pre:") && !strcmp(w[3], "p2pmap")) {
		ret = 1;
	} else if (n >= 2 && !strcmp(w[0], "options") &&
		   !strcmp(w[1], "p2pmap")) {
		ret = 1;
		for (i = 2; i < n; i++) {
			if (owned_param(w[i]))
				continue;
			used += snprintf(rest + used, used < restlen ?
					 restlen - used : 0, " %s", w[i]);
			ret = 2;
		}
	}
	for (i = 0; i < n; i++)
		free(w[i]);
	return ret;
}

char *config_merge(const char *old, const char *block)
{
	char *out = NULL, rest[4096];
	bool placed = false;
	const char *s, *e;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int c;

	if (!f)
		return NULL;
	for (s = old ? old : ""; *s; s = e) {
		e = logical_end(s);
		c = classify(s, e - s, rest, sizeof(rest));
		if (c && !placed) {
			fputs(block, f);
			placed = true;
		}
		if (!c)
			fwrite(s, 1, e - s, f);
		else if (c == 2)
			fprintf(f, "options p2pmap%s\n", rest);
		if (!c && e > s && e[-1] != '\n')
			fputc('\n', f);
	}
	if (!placed)
		fputs(block, f);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

/* Is the line [s, e) one of the lines of @text? */
static bool has_line(const char *text, const char *s, size_t n)
{
	const char *t, *nl;

	for (t = text; *t; t = nl ? nl + 1 : t + strlen(t)) {
		nl = strchr(t, '\n');
		if ((size_t)((nl ? nl : t + strlen(t)) - t) == n &&
		    !strncmp(t, s, n))
			return true;
		if (!nl)
			break;
	}
	return false;
}

static unsigned int diff_side(FILE *f, const char *from, const char *other,
			      char sign)
{
	const char *s, *nl;
	unsigned int n = 0;
	size_t l;

	for (s = from; *s; s = nl ? nl + 1 : s + l) {
		nl = strchr(s, '\n');
		l = nl ? (size_t)(nl - s) : strlen(s);
		if (!has_line(other, s, l)) {
			fprintf(f, "%c %.*s\n", sign, (int)l, s);
			n++;
		}
		if (!nl)
			break;
	}
	return n;
}

unsigned int config_diff(FILE *f, const char *old, const char *new)
{
	return diff_side(f, old ? old : "", new, '-') +
	       diff_side(f, new, old ? old : "", '+');
}
