// SPDX-License-Identifier: GPL-2.0
/* A modprobe.d file judged as the module will judge it (modprobe_check.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modprobe_check.h"
#include "pciaddr.h"

#define POLICY_LEN	256		/* P2PMAP_POLICY_LEN */
#define BAR_MASK_ALL	0x3f		/* P2PMAP_BAR_MASK_ALL */
#define BAR_MASK_DEFAULT 0x3		/* P2PMAP_BAR_MASK_DEFAULT */
#define MAX_ENTRIES	1024

enum list_kind { DRIVERS, VENDORS, CLASSES, NUMA, NR_LISTS };

static const char * const list_names[NR_LISTS] = {
	"drivers", "vendors", "classes", "numa_nodes",
};

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

/* The kernel's strim(): leading and trailing white space off. */
static char *trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* kstrtou32(s, 0): "0x" hex, leading 0 octal, else decimal; one '\n'. */
static int parse_u32(const char *s, uint32_t *v)
{
	unsigned int base = 10, d, n = 0;
	uint64_t x = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		base = 8;
		if (tolower((unsigned char)s[1]) == 'x' &&
		    isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		}
	}
	for (; *s; s++, n++) {
		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (isalpha((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		x = x * base + d;
		if (x > UINT32_MAX)
			return -ERANGE;
	}
	if (!n)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* One links= entry, "A>B[/MASK]": NULL when used, else why it is not. */
static const char *link_entry(char *entry, struct modprobe_link *l)
{
	char *target = strchr(entry, '>'), *mask_s;
	uint32_t mask = BAR_MASK_DEFAULT;

	if (!target)
		return "expected INITIATOR>TARGET[/BARMASK]";
	*target++ = '\0';
	mask_s = strchr(target, '/');
	if (mask_s) {
		*mask_s++ = '\0';
		if (parse_u32(mask_s, &mask) || !mask || mask & ~BAR_MASK_ALL)
			return "the BAR mask is not a non-zero mask of BARs 0-5";
	}
	if (pciaddr_parse(trim(entry), l->initiator, NULL, 0))
		return "the initiator is not a PCI address [DDDD:]BB:DD.F";
	if (pciaddr_parse(trim(target), l->target, NULL, 0))
		return "the target is not a PCI address [DDDD:]BB:DD.F";
	if (!strcmp(l->initiator, l->target))
		return "initiator and target are the same device";
	l->has_mask = mask_s != NULL;
	l->mask = mask;
	return NULL;
}

static void check_links(struct state *st)
{
	struct modprobe_link *seen = calloc(st->nlinks + 1, sizeof(*seen));
	unsigned int i, k, used = 0;
	char given[65], *e;
	const char *why;

	for (i = 0; i < st->nlinks; i++) {
		e = trim(st->links[i].text);
		snprintf(given, sizeof(given), "%s", e);
		why = seen ? link_entry(e, &seen[used]) : "out of memory";
		if (why) {
			problem(st, st->links[i].line, false,
				"links: \"%s\" skipped: %s", given, why);
			continue;
		}
		seen[used].line = st->links[i].line;
		for (k = 0; k < used; k++)
			if (!strcmp(seen[k].initiator, seen[used].initiator) &&
			    !strcmp(seen[k].target, seen[used].target))
				break;
		if (k < used)
			problem(st, st->links[i].line, true,
				"links: %s>%s given twice, ignored",
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

/* One list item of @kind, as p2pmap_item_valid() in kmod/policy.c. */
static bool item_valid(enum list_kind kind, const char *s, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (kind == DRIVERS ? !isalnum(c) && c != '_' && c != '-' &&
				      c != '.' :
		    kind == NUMA ? !isdigit(c) || len > 4 : !isxdigit(c))
			return false;
	}
	if (kind == VENDORS)
		return len == 4;
	if (kind == CLASSES)
		return len == 2 || len == 4 || len == 6;
	return true;
}

static bool list_valid(enum list_kind kind, const char *s)
{
	const char *comma;

	if (strlen(s) >= POLICY_LEN)
		return false;
	while (*s) {
		comma = strchr(s, ',');
		if (!comma)
			comma = s + strlen(s);
		if (!item_valid(kind, s, comma - s))
			return false;
		s = *comma ? comma + 1 : comma;
		if (*comma && !*s)
			return false;		/* a trailing comma */
	}
	return true;
}

/* param_set_bool() through kstrtobool(): NULL (no value) is true. */
static int parse_bool(const char *v, bool *b)
{
	if (!v) {
		*b = true;
		return 0;
	}
	switch (v[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*b = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*b = false;
		return 0;
	case 'o': case 'O':
		if (v[1] == 'n' || v[1] == 'N') {
			*b = true;
			return 0;
		}
		if (v[1] == 'f' || v[1] == 'F') {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}

static void set_bool(struct state *st, unsigned int line, const char *name,
		     const char *val, bool *b)
{
	if (parse_bool(val, b))
		problem(st, line, false, "%s=\"%.32s\" is not a boolean: kept %s",
			name, val, *b ? "Y" : "N");
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
	for (cur = copy; cur && (e = strsep(&cur, ",")); ) {
		if (!*trim(e))
			continue;
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
		if (!strcmp(name, list_names[k])) {
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
	int k;

	check_links(st);
	for (k = 0; k < NR_LISTS; k++)
		if (st->lists[k] && !list_valid(k, st->lists[k])) {
			problem(st, st->list_line[k], false,
				"%s=\"%.64s\" is malformed: admitting no device until a policy is set",
				list_names[k], st->lists[k]);
			st->res->policy_bad = true;
		}
	for (k = 0; k < NR_LISTS && !st->res->policy_bad; k++)
		if (st->lists[k])
			st->res->policy[k] = dup_val(st->lists[k]);
	if (st->reserve && strcmp(st->reserve, "none") &&
	    strcmp(st->reserve, "windows"))
		problem(st, st->reserve_line, false,
			"reserve=\"%.32s\" is neither windows nor none: using windows",
			st->reserve);
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
