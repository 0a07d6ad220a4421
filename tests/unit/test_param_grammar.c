// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for kmod/shared/param_grammar.c, the grammar of the module's
 * parameters, compiled here over libc as the CLI compiles it: every case
 * of tests/guest/param-cases.tsv (the table the guests load the module
 * with, and tests/config/run.sh feeds "config check") run through the
 * grammar directly, then the values it reads and the integer rules of the
 * libc build (kstrtou32 as the kernel's).
 */
#include <stdlib.h>
#include <string.h>

#include "param_grammar.h"
#include "tap.h"

/*
 * The problem the module reports for one "name[=value]" of its command
 * line, "" for none, as the module applies it: a string parameter given
 * without a value is "", a boolean true; links= reports its first bad
 * entry first.
 */
static int judge(char *arg, char *problem, size_t len)
{
	char *val = strchr(arg, '='), *cur, *entry;
	struct p2pmap_link_param l;
	bool b = true, on;
	int k;

	if (val)
		*val++ = '\0';
	*problem = '\0';
	if (!strcmp(arg, "links")) {
		for (cur = val; cur && (entry = p2pmap_param_list_next(&cur)); )
			if (p2pmap_parse_link_param(entry, &l, problem, len))
				return 0;
		return 0;
	}
	for (k = 0; k < P2PMAP_POLICY_LISTS; k++)
		if (!strcmp(arg, p2pmap_policy_params[k])) {
			p2pmap_parse_policy_param(k, val ? val : "", problem,
						  len);
			return 0;
		}
	if (!strcmp(arg, "reserve")) {
		p2pmap_parse_reserve_param(val ? val : "", &on, problem, len);
		return 0;
	}
	if (!strcmp(arg, "dmar_log") || !strcmp(arg, "amdvi_log")) {
		p2pmap_parse_bool_param(arg, val, &b, problem, len);
		return 0;
	}
	return -1;
}

static void table(const char *path)
{
	char line[1024], problem[P2PMAP_PARAM_PROBLEM_LEN], *args, *want;
	unsigned int n = 0, bad = 0;
	FILE *f = fopen(path, "r");

	if (!tap_ok(f != NULL, "%s opens", path))
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line || *line == '#')
			continue;
		want = strchr(line, '\t');
		if (!want) {
			printf("# no tab: %s\n", line);
			bad++;
			continue;
		}
		*want++ = '\0';
		args = strdup(line);
		n++;
		if (judge(args, problem, sizeof(problem))) {
			printf("# %s: not a parameter this test knows\n", line);
			bad++;
		} else if (strcmp(*problem ? problem : "ok", want)) {
			printf("# %s\n#   want: %s\n#   got:  %s\n", line, want,
			       *problem ? problem : "ok");
			bad++;
		}
		free(args);
	}
	fclose(f);
	tap_ok(n >= 40 && !bad,
	       "the %u cases of param-cases.tsv, through the grammar itself (%u differ)",
	       n, bad);
}

static void link_values(void)
{
	char e1[] = "0:1:0.0 > 0000:0A:1f.7/0x21", e2[] = "01:00.0>02:00.0";
	char problem[P2PMAP_PARAM_PROBLEM_LEN] = "";
	struct p2pmap_link_param l;
	int ret;

	ret = p2pmap_parse_link_param(e1, &l, problem, sizeof(problem));
	tap_ok(!ret && !strcmp(l.initiator, "0000:01:00.0") &&
	       !strcmp(l.target, "0000:0a:1f.7") && l.has_mask &&
	       l.mask == 0x21 && !strcmp(l.given, "0:1:0.0 > 0000:0A:1f.7/0x21"),
	       "a links= entry: canonical addresses, its mask, the entry as given");
	ret = p2pmap_parse_link_param(e2, &l, problem, sizeof(problem));
	tap_ok(!ret && !l.has_mask && l.mask == P2PMAP_BAR_MASK_DEFAULT,
	       "no mask: P2PMAP_BAR_MASK_DEFAULT");
}

static void list_entries(void)
{
	char list[] = " a ,, b,\t,c ", *cur = list, got[16] = "", *e;

	while ((e = p2pmap_param_list_next(&cur)))
		strcat(got, e);
	tap_ok(!strcmp(got, "abc"), "list entries: trimmed, empty ones passed over");
}

/* A BAR mask is read by kstrtou32(s, 0): libc_compat.h's must be the kernel's. */
static void mask(const char *m, bool ok)
{
	const char *shown = !strcmp(m, "3\n") ? "3\\n" :
			    !strcmp(m, "3\n\n") ? "3\\n\\n" : m;
	char entry[64], problem[P2PMAP_PARAM_PROBLEM_LEN];
	struct p2pmap_link_param l;

	snprintf(entry, sizeof(entry), "01:00.0>02:00.0/%s", m);
	tap_ok(!p2pmap_parse_link_param(entry, &l, problem, sizeof(problem)) == ok,
	       "mask \"%s\": %s", shown, ok ? "taken" : "refused");
}

static void addr_problem(const char *s, enum p2pmap_addr_why why,
			 const char *field)
{
	struct p2pmap_addr_problem p = { 0 };
	char out[P2PMAP_ADDR_LEN];

	tap_ok(p2pmap_addr_parse_any(s, out, &p) &&
	       p.why == why && !strcmp(p2pmap_addr_fields[p.field].name, field),
	       "\"%s\": refused at the %s", s, field);
}

int main(int argc, char **argv)
{
	table(argc > 1 ? argv[1] : PARAM_CASES);
	link_values();
	list_entries();
	mask("0x3", true);
	mask("+3", true);
	mask("3\n", true);
	mask("077", true);
	mask("0X3f", true);
	mask("0x0x1", false);
	mask("0b1", false);
	mask("0x", false);
	mask(" 3", false);
	mask("-1", false);
	mask("++1", false);
	mask("3\n\n", false);
	mask("0x100000001", false);
	mask("99999999999999999999999", false);
	addr_problem("0000:01:20.0", P2PMAP_ADDR_RANGE, "device");
	addr_problem("0000:001:00.0", P2PMAP_ADDR_DIGITS, "bus");
	addr_problem("01:00", P2PMAP_ADDR_SEP, "device");
	addr_problem("g1:00.0", P2PMAP_ADDR_NOT_HEX, "bus");
	return tap_done();
}
