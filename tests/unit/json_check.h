/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A strict JSON validator for the unit tests (RFC 8259 grammar, UTF-8 not
 * checked), and a check through Python's json module when python3 exists.
 */
#ifndef P2PMAP_JSON_CHECK_H
#define P2PMAP_JSON_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *jc_value(const char *s, int depth);

static const char *jc_ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

static const char *jc_string(const char *s)
{
	int i;

	if (*s++ != '"')
		return NULL;
	while (*s != '"') {
		if ((unsigned char)*s < 0x20)
			return NULL;	/* also the terminating NUL */
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF",
						    s[i]) || !s[i])
						return NULL;
				s += 4;
			} else if (!*s || !strchr("\"\\/bfnrt", *s)) {
				return NULL;
			}
		}
		s++;
	}
	return s + 1;
}

static const char *jc_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return NULL;
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return NULL;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return NULL;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return s;
}

static const char *jc_seq(const char *s, int depth, char close, bool obj)
{
	s = jc_ws(s + 1);
	if (*s == close)
		return s + 1;
	for (;;) {
		if (obj) {
			s = jc_string(jc_ws(s));
			if (!s)
				return NULL;
			s = jc_ws(s);
			if (*s++ != ':')
				return NULL;
		}
		s = jc_value(s, depth + 1);
		if (!s)
			return NULL;
		s = jc_ws(s);
		if (*s == close)
			return s + 1;
		if (*s++ != ',')
			return NULL;
	}
}

static const char *jc_value(const char *s, int depth)
{
	if (depth > 64)
		return NULL;
	s = jc_ws(s);
	switch (*s) {
	case '{':
		return jc_seq(s, depth, '}', true);
	case '[':
		return jc_seq(s, depth, ']', false);
	case '"':
		return jc_string(s);
	case 't':
		return strncmp(s, "true", 4) ? NULL : s + 4;
	case 'f':
		return strncmp(s, "false", 5) ? NULL : s + 5;
	case 'n':
		return strncmp(s, "null", 4) ? NULL : s + 4;
	default:
		return jc_number(s);
	}
}

/* One JSON document, nothing else but white space. */
static inline bool json_valid(const char *s)
{
	s = jc_value(s, 0);
	return s && !*jc_ws(s);
}

/*
 * Run python3 with @script on @doc as stdin; returns its first output line
 * in @out (without the newline).  -1 when python3 is missing.
 */
static inline int json_python(const char *doc, const char *script, char *out,
			      size_t len)
{
	char tmpl[] = "/tmp/p2pmap-json-XXXXXX", cmd[4096];
	FILE *f, *p;
	int fd, rc;

	out[0] = '\0';
	if (system("python3 -c '' >/dev/null 2>&1"))
		return -1;
	fd = mkstemp(tmpl);
	if (fd < 0)
		return -1;
	f = fdopen(fd, "w");
	fputs(doc, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 -c '%s' <%s 2>&1", script, tmpl);
	p = popen(cmd, "r");
	if (p && fgets(out, len, p))
		out[strcspn(out, "\n")] = '\0';
	rc = p ? pclose(p) : -1;
	unlink(tmpl);
	return rc;
}

/* python3's json module parses @doc (-1: no python3, skip). */
static inline int json_python_parses(const char *doc)
{
	char out[256];
	int rc = json_python(doc, "import json,sys; json.load(sys.stdin); print(\"ok\")",
			     out, sizeof(out));

	if (rc < 0)
		return -1;
	return rc == 0 && !strcmp(out, "ok");
}

#endif /* P2PMAP_JSON_CHECK_H */
