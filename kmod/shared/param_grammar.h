/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grammar of p2pmap's module parameters, in one place for its two
 * readers: the module (link_param.c, policy.c, reserve.c, param.c), which
 * applies what it reads, and "p2pmap config check" (user/host/
 * modprobe_check.c), which compiles this directory too and says what the
 * module will do with a modprobe.d file.  So the CLI cannot drift from the
 * module: a rule or a message changed here changes both.
 *
 * Pure: a string in; out, the values read or the problem, word for word as
 * the module logs it and INFO_GET reports it.  No allocation, no lock, no
 * printk.  The kernel names it uses (kstrtou32, strim, ...) are the
 * kernel's in the module, libc_compat.h's in the CLI.
 * tests/unit/test_param_grammar.c holds it to tests/guest/param-cases.tsv.
 */
#ifndef P2PMAP_PARAM_GRAMMAR_H
#define P2PMAP_PARAM_GRAMMAR_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "libc_compat.h"
#endif
/* P2PMAP_ADDR_LEN, P2PMAP_BAR_MASK_ALL and _DEFAULT, P2PMAP_POLICY_LEN */
#include <linux/p2pmap.h>

/* One problem, as logged; INFO_GET reports the first (the CLI reads 256). */
#define P2PMAP_PARAM_PROBLEM_LEN 200

/* The words of the two links= messages the module writes outside this file */
#define P2PMAP_LINK_PARAM_SKIPPED "links: \"%s\" skipped: %s"
#define P2PMAP_LINK_PARAM_TWICE "links: %s>%s given twice, ignored"

/*
 * The next entry of a comma-separated list at *@cur, white space around it
 * cut, empty entries passed over; NULL at the end.  Cuts the list as
 * strsep() does.
 */
char *p2pmap_param_list_next(char **cur);

/* A links= entry, "INITIATOR>TARGET[/BARMASK]" */
struct p2pmap_link_param {
	char given[65];		/* the entry as given, for the messages */
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];
	u32 mask;		/* P2PMAP_BAR_MASK_DEFAULT unless given */
	bool has_mask;
};

/*
 * Read @entry (cut in the reading) into @l.  Returns 0, or -EINVAL with
 * the problem in @problem.  A duplicate is the caller's to find.
 */
int p2pmap_parse_link_param(char *entry, struct p2pmap_link_param *l,
			    char *problem, size_t len);

/* The fields of a PCI address "[DDDD:]BB:DD.F", in order */
struct p2pmap_addr_field {
	const char *name;
	unsigned long max;
	unsigned int digits;	/* at most, at least one */
	char sep;		/* what follows it */
};

#define P2PMAP_ADDR_FIELDS 4
extern const struct p2pmap_addr_field p2pmap_addr_fields[P2PMAP_ADDR_FIELDS];

enum p2pmap_addr_why {
	P2PMAP_ADDR_NOT_HEX = 1,	/* no hex digit where the field starts */
	P2PMAP_ADDR_DIGITS,		/* more digits than the field has */
	P2PMAP_ADDR_RANGE,		/* above the field's max */
	P2PMAP_ADDR_SEP,		/* not followed by its separator */
};

/* Where and why an address was refused */
struct p2pmap_addr_problem {
	enum p2pmap_addr_why why;
	unsigned int field;		/* index in p2pmap_addr_fields */
};

/*
 * The forms an administrator copies from lspci or nvidia-smi:
 * "[DDDD:]BB:DD.F" in any case, no domain meaning 0000, fields of fewer
 * digits allowed.  Writes the canonical form, "%04x:%02x:%02x.%x", to @out.
 * Returns 0, or -EINVAL and, where @problem is not NULL, why.
 */
int p2pmap_addr_parse_any(const char *s, char out[P2PMAP_ADDR_LEN],
			  struct p2pmap_addr_problem *problem);

/* The policy lists, and the names of their module parameters */
enum p2pmap_policy_list {
	P2PMAP_POLICY_DRIVERS,
	P2PMAP_POLICY_VENDORS,
	P2PMAP_POLICY_CLASSES,
	P2PMAP_POLICY_NUMA,
	P2PMAP_POLICY_LISTS
};

extern const char * const p2pmap_policy_params[P2PMAP_POLICY_LISTS];

/* A comma-separated list of valid items, or "" (any): 0, else -EINVAL. */
int p2pmap_policy_list_valid(enum p2pmap_policy_list kind, const char *s);

/* As p2pmap_policy_list_valid(), the problem in @problem. */
int p2pmap_parse_policy_param(enum p2pmap_policy_list kind, const char *val,
			      char *problem, size_t len);

/*
 * reserve=: *@on unless "none" (anything else reserves, the safe side);
 * -EINVAL, with the problem, unless "windows" or "none".  @problem may
 * be NULL with @len 0.
 */
int p2pmap_parse_reserve_param(const char *val, bool *on, char *problem,
			       size_t len);

/*
 * A boolean parameter @name: y/n, t/f, 1/0, on/off, enable/disable (the
 * first letters decide, any case, as the kernel's kstrtobool() of 6.2 and
 * later: on every kernel, so the CLI's answer is the module's); given
 * without a value, true.  Else -EINVAL, *@b kept, with the problem.
 */
int p2pmap_parse_bool_param(const char *name, const char *val, bool *b,
			    char *problem, size_t len);

#endif /* P2PMAP_PARAM_GRAMMAR_H */
