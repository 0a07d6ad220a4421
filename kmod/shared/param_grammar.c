// SPDX-License-Identifier: GPL-2.0
/*
 * The grammar of the module's parameters (param_grammar.h): compiled into
 * p2pmap.ko and into the CLI.
 */
#ifdef __KERNEL__
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#endif
#include "param_grammar.h"

static __printf(3, 4) int p2pmap_problem(char *buf, size_t len,
					 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

char *p2pmap_param_list_next(char **cur)
{
	char *entry;

	while ((entry = strsep(cur, ",")) != NULL) {
		entry = strim(entry);
		if (*entry)
			return entry;
	}
	return NULL;
}

const struct p2pmap_addr_field p2pmap_addr_fields[P2PMAP_ADDR_FIELDS] = {
	{ "domain", 0x7fffffff, 8, ':' },	/* VMD: above 0xffff */
	{ "bus", 0xff, 2, ':' },
	{ "device", 0x1f, 2, '.' },
	{ "function", 0x7, 2, '\0' },
};

static int p2pmap_hexval(unsigned char c)
{
	c = tolower(c);
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One field of @f's digits at *@s, any case, no "0x"; moves *@s past it. */
static enum p2pmap_addr_why p2pmap_addr_field(const char **s,
					      const struct p2pmap_addr_field *f,
					      unsigned long *val)
{
	unsigned int n = 0;
	int v;

	*val = 0;
	while ((v = p2pmap_hexval((*s)[n])) >= 0) {
		if (++n > f->digits)
			return P2PMAP_ADDR_DIGITS;
		*val = *val << 4 | v;
	}
	if (!n)
		return P2PMAP_ADDR_NOT_HEX;
	if (*val > f->max)
		return P2PMAP_ADDR_RANGE;
	*s += n;
	if (**s != f->sep)
		return P2PMAP_ADDR_SEP;
	if (f->sep)
		(*s)++;
	return 0;
}

int p2pmap_addr_parse_any(const char *s, char out[P2PMAP_ADDR_LEN],
			  struct p2pmap_addr_problem *problem)
{
	unsigned long v[P2PMAP_ADDR_FIELDS] = { 0 };
	unsigned int i, colons = 0;
	enum p2pmap_addr_why why;

	for (i = 0; s[i]; i++)
		colons += s[i] == ':';
	/* Without a domain, the first field is the bus. */
	for (i = colons == 1; i < P2PMAP_ADDR_FIELDS; i++) {
		why = p2pmap_addr_field(&s, &p2pmap_addr_fields[i], &v[i]);
		if (why) {
			if (problem) {
				problem->why = why;
				problem->field = i;
			}
			return -EINVAL;
		}
	}
	snprintf(out, P2PMAP_ADDR_LEN, "%04lx:%02lx:%02lx.%lx", v[0], v[1],
		 v[2], v[3]);
	return 0;
}

/* Why an entry is skipped, after "links: \"ENTRY\" skipped: " */
static const char *p2pmap_link_param_why(char *entry,
					 struct p2pmap_link_param *l)
{
	char *target = strchr(entry, '>');
	char *mask_s;

	if (!target)
		return "expected INITIATOR>TARGET[/BARMASK]";
	*target++ = '\0';
	mask_s = strchr(target, '/');
	l->has_mask = !!mask_s;
	if (mask_s) {
		*mask_s++ = '\0';
		if (kstrtou32(mask_s, 0, &l->mask) || !l->mask ||
		    l->mask & ~P2PMAP_BAR_MASK_ALL)
			return "the BAR mask is not a non-zero mask of BARs 0-5";
	}
	if (p2pmap_addr_parse_any(strim(entry), l->initiator, NULL))
		return "the initiator is not a PCI address [DDDD:]BB:DD.F";
	if (p2pmap_addr_parse_any(strim(target), l->target, NULL))
		return "the target is not a PCI address [DDDD:]BB:DD.F";
	if (!strcmp(l->initiator, l->target))
		return "initiator and target are the same device";
	return NULL;
}

int p2pmap_parse_link_param(char *entry, struct p2pmap_link_param *l,
			    char *problem, size_t len)
{
	const char *why;

	memset(l, 0, sizeof(*l));
	snprintf(l->given, sizeof(l->given), "%s", entry);
	l->mask = P2PMAP_BAR_MASK_DEFAULT;
	why = p2pmap_link_param_why(entry, l);
	if (why)
		return p2pmap_problem(problem, len, P2PMAP_LINK_PARAM_SKIPPED,
				      l->given, why);
	return 0;
}

const char * const p2pmap_policy_params[P2PMAP_POLICY_LISTS] = {
	[P2PMAP_POLICY_DRIVERS] = "drivers",
	[P2PMAP_POLICY_VENDORS] = "vendors",
	[P2PMAP_POLICY_CLASSES] = "classes",
	[P2PMAP_POLICY_NUMA] = "numa_nodes",
};

/* One list item: does @item (length @len) fit the grammar of @kind? */
static bool p2pmap_policy_item_valid(enum p2pmap_policy_list kind,
				     const char *item, size_t len)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		unsigned char c = item[i];

		switch (kind) {
		case P2PMAP_POLICY_DRIVERS:
			if (!isalnum(c) && c != '_' && c != '-' && c != '.')
				return false;
			break;
		case P2PMAP_POLICY_NUMA:
			if (!isdigit(c) || len > 4)
				return false;
			break;
		default:
			if (!isxdigit(c))
				return false;
		}
	}
	if (kind == P2PMAP_POLICY_VENDORS)
		return len == 4;
	if (kind == P2PMAP_POLICY_CLASSES)
		return len == 2 || len == 4 || len == 6;
	return true;
}

int p2pmap_policy_list_valid(enum p2pmap_policy_list kind, const char *s)
{
	size_t n;

	if (strlen(s) >= P2PMAP_POLICY_LEN)
		return -EINVAL;
	while (*s) {
		n = strcspn(s, ",");
		if (!p2pmap_policy_item_valid(kind, s, n))
			return -EINVAL;
		s += n;
		if (*s && !*++s)
			return -EINVAL;		/* a trailing comma */
	}
	return 0;
}

int p2pmap_parse_policy_param(enum p2pmap_policy_list kind, const char *val,
			      char *problem, size_t len)
{
	if (!p2pmap_policy_list_valid(kind, val))
		return 0;
	return p2pmap_problem(problem, len,
			      "%s=\"%.64s\" is malformed: admitting no device until a policy is set",
			      p2pmap_policy_params[kind], val);
}

int p2pmap_parse_reserve_param(const char *val, bool *on, char *problem,
			       size_t len)
{
	*on = strcmp(val, "none");
	if (!*on || !strcmp(val, "windows"))
		return 0;
	return p2pmap_problem(problem, len,
			      "reserve=\"%.32s\" is neither windows nor none: using windows",
			      val);
}

/* kstrtobool(): 0 or 1, or -1 when @s is not a boolean. */
static int p2pmap_bool_value(const char *s)
{
	switch (tolower((unsigned char)s[0])) {
	case 'y': case 't': case 'e': case '1':
		return 1;
	case 'n': case 'f': case 'd': case '0':
		return 0;
	case 'o':
		if (tolower((unsigned char)s[1]) == 'n')
			return 1;
		if (tolower((unsigned char)s[1]) == 'f')
			return 0;
	}
	return -1;
}

int p2pmap_parse_bool_param(const char *name, const char *val, bool *b,
			    char *problem, size_t len)
{
	int v = val ? p2pmap_bool_value(val) : 1;

	if (v >= 0) {
		*b = v;
		return 0;
	}
	return p2pmap_problem(problem, len,
			      "%s=\"%.32s\" is not a boolean: kept %s", name,
			      val, *b ? "Y" : "N");
}
