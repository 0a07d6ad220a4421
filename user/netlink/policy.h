/* SPDX-License-Identifier: GPL-2.0 */
/*
 * P2PMAP_CMD_POLICY_GET/SET: the admission policy, and the grammar of its
 * lists (policy_list_check(), pure, for the unit tests).
 */
#ifndef P2PMAP_POLICY_H
#define P2PMAP_POLICY_H

#include "nl.h"
#include "objects.h"

/* Which list: the grammar of its items. */
enum policy_list {
	POLICY_DRIVERS,		/* driver names, [A-Za-z0-9_-]+ */
	POLICY_VENDORS,		/* 4 hex digits */
	POLICY_CLASSES,		/* 2, 4 or 6 hex digits */
	POLICY_NUMA_NODES,	/* decimal numbers */
};

/* "drivers", "vendors", "classes", "numa nodes" */
const char *policy_list_name(enum policy_list which);

/*
 * Check a comma-separated list against the header's grammar.  "" (no
 * filter) is valid.  Returns 0, or -1 with what is wrong in @err.
 */
int policy_list_check(enum policy_list which, const char *s, char *err,
		      size_t errlen);

/* Parse a POLICY_GET reply's attributes; unknown ones are ignored. */
int policy_parse_attrs(struct nlattr *head, int len, struct p2pmap_policy *p);

/* POLICY_GET (do). */
int policy_get(struct p2pmap_nl *nl, struct p2pmap_policy *p);

/* A POLICY_SET request: the lists to replace, NULL for those to keep. */
struct policy_req {
	const char *drivers;
	const char *vendors;
	const char *classes;
	const char *numa_nodes;
};

/* POLICY_SET (do): sends the lists @req gives, as given. */
int policy_set(struct p2pmap_nl *nl, const struct policy_req *req);

/* The devices a policy would stop admitting (a dry run's answer). */
struct policy_denied {
	size_t n;
	char (*addr)[P2PMAP_ADDR_LEN];
};

/*
 * POLICY_SET with P2PMAP_A_POLICY_DRY_RUN: nothing changes; @out gets the
 * devices admitted now that @req would not admit (free with
 * policy_denied_free()).
 */
int policy_set_dry_run(struct p2pmap_nl *nl, const struct policy_req *req,
		       struct policy_denied *out);
bool policy_denied_has(const struct policy_denied *d, const char *addr);
void policy_denied_free(struct policy_denied *d);

#endif /* P2PMAP_POLICY_H */
