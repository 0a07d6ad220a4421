// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/output/metrics.c: its output is parsed by a checker
 * of the Prometheus text exposition format (0.0.4): metric and label name
 * syntax, label value escapes, sample values, HELP/TYPE once per family and
 * before its samples, a family's samples together, no duplicate series.
 * The checker is tested on bad documents too.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "tap.h"

#define MAX_NAMES	64
#define MAX_SERIES	1024

struct checker {
	char names[MAX_NAMES][128];	/* families seen, in order */
	bool has_help[MAX_NAMES], has_type[MAX_NAMES], sampled[MAX_NAMES];
	size_t nnames;
	int last_sampled;		/* family of the previous sample */
	char *series[MAX_SERIES];	/* "name{sorted labels}" */
	size_t nseries;
	char err[256];
};

static int family_of(struct checker *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], name))
			return i;
	if (c->nnames == MAX_NAMES || strlen(name) >= sizeof(c->names[0]))
		return -1;
	strcpy(c->names[c->nnames], name);
	return c->nnames++;
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* (metric) or [a-zA-Z_][a-zA-Z0-9_]* (label) */
static size_t name_len(const char *s, bool colon)
{
	size_t i = 0;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_' ||
	      (colon && s[0] == ':')))
		return 0;
	for (i = 1; isalnum((unsigned char)s[i]) || s[i] == '_' ||
		    (colon && s[i] == ':'); i++)
		;
	return i;
}

static bool valid_value(const char *s)
{
	char *end;

	if (!strcmp(s, "NaN") || !strcmp(s, "+Inf") || !strcmp(s, "-Inf"))
		return true;
	if (!*s || isspace((unsigned char)*s))
		return false;
	strtod(s, &end);
	return !*end && !strpbrk(s, "xXpP");	/* no hex floats */
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define FAIL(...) do {							\
	snprintf(c->err, sizeof(c->err), __VA_ARGS__);			\
	return false;							\
} while (0)

static bool check_comment(struct checker *c, const char *line, unsigned int ln)
{
	const char *p;
	size_t len;
	int fam;

	if (strncmp(line, "# HELP ", 7) && strncmp(line, "# TYPE ", 7))
		return true;			/* a plain comment */
	p = line + 7;
	len = name_len(p, true);
	if (!len || (p[len] != ' ' && p[len] != '\0'))
		FAIL("line %u: bad metric name in \"%s\"", ln, line);
	{
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		fam = family_of(c, name);
	}
	if (fam < 0)
		FAIL("line %u: too many families", ln);
	if (c->sampled[fam])
		FAIL("line %u: HELP/TYPE after samples of %s", ln,
		     c->names[fam]);
	p += len;
	if (line[2] == 'H') {
		if (c->has_help[fam])
			FAIL("line %u: second HELP for %s", ln, c->names[fam]);
		c->has_help[fam] = true;
		for (; *p; p++)
			if (*p == '\\' && p[1] != '\\' && p[1] != 'n')
				FAIL("line %u: bad escape in HELP", ln);
			else if (*p == '\\')
				p++;
		return true;
	}
	if (c->has_type[fam])
		FAIL("line %u: second TYPE for %s", ln, c->names[fam]);
	c->has_type[fam] = true;
	if (strcmp(p, " counter") && strcmp(p, " gauge") &&
	    strcmp(p, " untyped") && strcmp(p, " summary") &&
	    strcmp(p, " histogram"))
		FAIL("line %u: bad type \"%s\"", ln, p);
	return true;
}

static bool check_sample(struct checker *c, const char *line, unsigned int ln)
{
	char name[128], *labels[32], key[1024], value[64];
	size_t len, nl = 0, i, klen;
	const char *p = line, *start;
	int fam;

	len = name_len(p, true);
	if (!len || len >= sizeof(name))
		FAIL("line %u: bad metric name: %s", ln, line);
	snprintf(name, sizeof(name), "%.*s", (int)len, p);
	p += len;
	if (*p == '{') {
		p++;
		while (*p != '}') {
			len = name_len(p, false);
			if (!len || p[len] != '=' || p[len + 1] != '"')
				FAIL("line %u: bad label: %s", ln, line);
			if (!strncmp(p, "__", 2))
				FAIL("line %u: reserved label name", ln);
			start = p;
			p += len + 2;
			for (; *p != '"'; p++) {
				if (!*p)
					FAIL("line %u: unterminated label value", ln);
				if (*p == '\\') {
					p++;
					if (*p != '\\' && *p != '"' && *p != 'n')
						FAIL("line %u: bad escape in label value", ln);
				}
			}
			p++;
			if (nl == 32)
				FAIL("line %u: too many labels", ln);
			labels[nl] = strndup(start, p - start);
			for (i = 0; i < nl; i++)
				if (!strncmp(labels[i], start, len + 1))
					FAIL("line %u: label repeated", ln);
			nl++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				FAIL("line %u: expected , or }", ln);
		}
		p++;
	}
	if (*p++ != ' ')
		FAIL("line %u: expected a space before the value", ln);
	len = strcspn(p, " ");
	if (len >= sizeof(value))
		FAIL("line %u: value too long", ln);
	snprintf(value, sizeof(value), "%.*s", (int)len, p);
	if (!valid_value(value))
		FAIL("line %u: bad value \"%s\"", ln, value);
	p += len;
	if (*p == ' ') {			/* timestamp */
		p++;
		if (*p == '-')
			p++;
		if (!*p || strspn(p, "0123456789") != strlen(p))
			FAIL("line %u: bad timestamp", ln);
	}

	fam = family_of(c, name);
	if (fam < 0)
		FAIL("line %u: too many families", ln);
	if (!c->has_help[fam] || !c->has_type[fam])
		FAIL("line %u: sample of %s before its HELP and TYPE", ln, name);
	if (c->sampled[fam] && c->last_sampled != fam)
		FAIL("line %u: samples of %s not together", ln, name);
	c->sampled[fam] = true;
	c->last_sampled = fam;

	qsort(labels, nl, sizeof(labels[0]), cmp_str);
	klen = snprintf(key, sizeof(key), "%s{", name);
	for (i = 0; i < nl; i++) {
		klen += snprintf(key + klen, sizeof(key) - klen, "%s,",
				 labels[i]);
		free(labels[i]);
		if (klen >= sizeof(key))
			FAIL("line %u: series too long", ln);
	}
	for (i = 0; i < c->nseries; i++)
		if (!strcmp(c->series[i], key))
			FAIL("line %u: duplicate series %.200s}", ln, key);
	if (c->nseries == MAX_SERIES)
		FAIL("too many series");
	c->series[c->nseries++] = strdup(key);
	return true;
}

/* true when @doc is valid; otherwise @c->err says why. */
static bool check_exposition(struct checker *c, const char *doc)
{
	char *copy, *line, *save = NULL;
	unsigned int ln = 0;
	bool ok = true;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->last_sampled = -1;
	if (!*doc || doc[strlen(doc) - 1] != '\n') {
		snprintf(c->err, sizeof(c->err), "does not end in a newline");
		return false;
	}
	copy = strdup(doc);
	for (line = copy; ok && line && *line; line = save) {
		save = strchr(line, '\n');
		*save++ = '\0';
		ln++;
		if (!*line)
			continue;
		ok = line[0] == '#' ? check_comment(c, line, ln) :
				      check_sample(c, line, ln);
	}
	for (i = 0; i < c->nseries; i++)
		free(c->series[i]);
	free(copy);
	return ok;
}

static char *render(const struct metrics_input *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	metrics_render(f, in);
	fclose(f);
	return buf;
}

static bool has_line(const char *doc, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = doc; (p = strstr(p, line)); p++)
		if ((p == doc || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define A "0000:01:00.0"
#define B "0000:41:00.0"
#define C "0000:81:00.0"

static struct p2pmap_link mklink(const char *i, const char *t, uint32_t state,
				 uint64_t bytes, uint64_t faults)
{
	struct p2pmap_link l;

	memset(&l, 0, sizeof(l));
	snprintf(l.initiator, sizeof(l.initiator), "%s", i);
	snprintf(l.target, sizeof(l.target), "%s", t);
	l.state = state;
	l.has_state = true;
	l.has_mapped_bytes = true;
	l.mapped_bytes = bytes;
	l.faults.has_count = true;
	l.faults.count = faults;
	return l;
}

static void bad_docs(void)
{
	static const struct {
		const char *doc, *why;
	} bad[] = {
		{ "m 1\n", "a sample without HELP/TYPE" },
		{ "# HELP m x\n# TYPE m gauge\nm 1\nm 2\n", "a duplicate series" },
		{ "# HELP m x\n# TYPE m gauge\nm{a=\"1\",b=\"2\"} 1\nm{b=\"2\",a=\"1\"} 1\n",
		  "a duplicate series, labels reordered" },
		{ "# HELP m x\n# TYPE m gauge\nm{a=\"\\t\"} 1\n", "a bad label escape" },
		{ "# HELP m x\n# TYPE m gauge\nm{a=\"x\"y\"} 1\n", "an unescaped quote" },
		{ "# HELP 1m x\n# TYPE 1m gauge\n1m 1\n", "a bad metric name" },
		{ "# HELP m x\n# TYPE m gauge\nm{a-b=\"1\"} 1\n", "a bad label name" },
		{ "# HELP m x\n# TYPE m gauge\nm one\n", "a bad value" },
		{ "# HELP m x\n# TYPE m gauge\n# HELP n x\n# TYPE n gauge\nm{a=\"1\"} 1\nn 1\nm{a=\"2\"} 1\n",
		  "a family's samples apart" },
		{ "# HELP m x\n# TYPE m gauge\nm 1\n# TYPE m gauge\n", "TYPE after samples" },
		{ "# HELP m x\n# TYPE m gauges\nm 1\n", "an unknown type" },
		{ "# HELP m x\n# TYPE m gauge\nm 1", "no final newline" },
	};
	struct checker c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(!check_exposition(&c, bad[i].doc),
		       "checker rejects %s", bad[i].why);
	tap_ok(check_exposition(&c, "# HELP m a \\\\ b \\n c\n# TYPE m counter\n"
				"m{a=\"q\\\"\\\\\\n\",} 1.5e3 1700000000000\nm -Inf\n"),
	       "checker accepts escapes, a trailing comma, a timestamp, -Inf");
}

int main(void)
{
	struct p2pmap_info info = { .version = "0.1.0 \"dev\"\\x\ny",
				    .has_fault_sources = true,
				    .fault_sources = P2PMAP_FAULT_SRC_TRACEPOINT,
				    .has_param_errors = true,
				    .param_errors = 2 };
	struct p2pmap_dev devs[3];
	struct p2pmap_link links[5];
	struct metrics_input in = { 0 };
	struct checker c;
	char *doc;

	bad_docs();

	/* Not loaded: one family. */
	doc = render(&in);
	if (!tap_ok(check_exposition(&c, doc), "module not loaded: output parses"))
		printf("# %s\n", c.err);
	tap_ok(!strcmp(doc, "# HELP p2pmap_module_loaded 1 if the p2pmap kernel module answered, 0 if it is not loaded (then only the CLI's own metrics follow).\n"
			    "# TYPE p2pmap_module_loaded gauge\np2pmap_module_loaded 0\n"),
	       "module not loaded: p2pmap_module_loaded 0 only");
	free(doc);

	/* The CLI's own metrics: also without the module, where the
	 * alerts need them (a module missing where links are saved). */
	in.cli_version = "0.2.0";
	in.has_config_links = true;
	in.config_links = 12;
	in.timestamp = 1796000000;
	doc = render(&in);
	if (!tap_ok(check_exposition(&c, doc), "module not loaded, the CLI's metrics: output parses"))
		printf("# %s\n", c.err);
	tap_ok(has_line(doc, "p2pmap_module_loaded 0") &&
	       has_line(doc, "p2pmap_cli_info{version=\"0.2.0\"} 1") &&
	       has_line(doc, "p2pmap_config_links 12") &&
	       has_line(doc, "p2pmap_metrics_timestamp_seconds 1796000000") &&
	       !strstr(doc, "p2pmap_param_errors") && !strstr(doc, "\np2pmap_info{"),
	       "module not loaded: the CLI's version, the saved links and the time, nothing of the module");
	free(doc);
	in.cli_version = NULL;
	in.has_config_links = false;
	in.timestamp = 0;

	memset(devs, 0, sizeof(devs));
	strcpy(devs[0].addr, A);
	devs[0].faults.has_count = true;
	devs[0].faults.count = 7;
	devs[0].has_faults_other = true;
	devs[0].faults_other = 2;
	devs[0].npeers = 1;
	strcpy(devs[0].peers[0].target, B);
	devs[0].peers[0].f = (struct p2pmap_fault){ .has_count = true,
						    .count = 5 };
	strcpy(devs[1].addr, B);
	devs[1].faults.has_count = true;
	devs[1].faults.count = 3;
	devs[1].has_faults_other = true;
	devs[1].npeers = 1;
	strcpy(devs[1].peers[0].target, C);
	devs[1].peers[0].f = (struct p2pmap_fault){
		.has_count = true, .count = 3,
		.sources = P2PMAP_FAULT_SRC_DMAR };
	devs[2] = devs[1];		/* a duplicate record: shown once */

	links[0] = mklink(A, B, P2PMAP_LINK_MAPPED, 1 << 20, 4);
	links[1] = mklink(B, A, P2PMAP_LINK_BLOCKED, 0, 0);
	links[2] = mklink(A, C, P2PMAP_LINK_ERROR, 0, 0);
	links[3] = mklink(C, A, 99, 0, 0);	/* a state this CLI does not know */
	links[4] = links[0];			/* a duplicate */

	in.loaded = true;
	in.info = &info;
	in.devs = devs;
	in.ndevs = 3;
	in.links = links;
	in.nlinks = 5;
	doc = render(&in);
	if (!tap_ok(check_exposition(&c, doc), "output parses as exposition format"))
		printf("# %s; output:\n%s", c.err, doc);
	tap_ok(has_line(doc, "p2pmap_param_errors 2"),
	       "p2pmap_param_errors: the parts of the parameters the module skipped");
	tap_ok(has_line(doc, "p2pmap_info{version=\"0.1.0 \\\"dev\\\"\\\\x\\ny\"} 1"),
	       "p2pmap_info with the version, quote, backslash and newline escaped");
	tap_ok(has_line(doc, "p2pmap_fault_sources{source=\"tracepoint\"} 1") &&
	       has_line(doc, "p2pmap_fault_sources{source=\"dmar\"} 0"),
	       "p2pmap_fault_sources: armed 1, the other 0");
	tap_ok(has_line(doc, "p2pmap_device_faults_total{device=\"" A "\"} 7") &&
	       has_line(doc, "p2pmap_device_faults_other_total{device=\"" A "\"} 2") &&
	       has_line(doc, "p2pmap_device_faults_other_total{device=\"" B "\"} 0"),
	       "device counters");
	tap_ok(has_line(doc, "# TYPE p2pmap_device_faults_total counter") &&
	       has_line(doc, "# TYPE p2pmap_pair_faults_total counter") &&
	       has_line(doc, "# TYPE p2pmap_link_state gauge"),
	       "counter and gauge types");
	tap_ok(has_line(doc, "p2pmap_pair_faults_total{initiator=\"" A "\",target=\"" B "\",lower_bound=\"false\"} 5"),
	       "pair counter: PEER and LINK merged, the larger wins");
	tap_ok(has_line(doc, "p2pmap_pair_faults_total{initiator=\"" B "\",target=\"" C "\",lower_bound=\"true\"} 3"),
	       "pair counter from the DMAR fault log: lower_bound=\"true\"");
	tap_ok(has_line(doc, "p2pmap_pair_faults_total{initiator=\"" B "\",target=\"" A "\",lower_bound=\"false\"} 0"),
	       "a link's pair with no faults is exported as 0");
	tap_ok(has_line(doc, "p2pmap_links 4"), "p2pmap_links counts each link once");
	tap_ok(has_line(doc, "p2pmap_link_state{initiator=\"" A "\",target=\"" B "\",state=\"mapped\"} 1") &&
	       has_line(doc, "p2pmap_link_state{initiator=\"" A "\",target=\"" B "\",state=\"pending\"} 0") &&
	       has_line(doc, "p2pmap_link_state{initiator=\"" B "\",target=\"" A "\",state=\"blocked\"} 1") &&
	       has_line(doc, "p2pmap_link_state{initiator=\"" B "\",target=\"" A "\",state=\"mapped\"} 0") &&
	       has_line(doc, "p2pmap_link_state{initiator=\"" A "\",target=\"" C "\",state=\"error\"} 1"),
	       "p2pmap_link_state: 1 for the current state, 0 for the others");
	tap_ok(has_line(doc, "p2pmap_link_state{initiator=\"" C "\",target=\"" A "\",state=\"mapped\"} 0") &&
	       !has_line(doc, "p2pmap_link_state{initiator=\"" C "\",target=\"" A "\",state=\"unknown\"} 1"),
	       "an unknown link state: every state 0");
	tap_ok(has_line(doc, "p2pmap_link_mapped_bytes{initiator=\"" A "\",target=\"" B "\"} 1048576"),
	       "p2pmap_link_mapped_bytes");
	free(doc);

	/* No devices, no links: families without samples still parse. */
	in.ndevs = 0;
	in.nlinks = 0;
	doc = render(&in);
	if (!tap_ok(check_exposition(&c, doc) && has_line(doc, "p2pmap_links 0"),
		    "no devices and no links: parses, p2pmap_links 0"))
		printf("# %s\n", c.err);
	free(doc);
	return tap_done();
}
