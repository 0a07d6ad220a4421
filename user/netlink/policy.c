// SPDX-License-Identifier: GPL-2.0
/*
 * P2PMAP_CMD_POLICY_GET/SET, and the policy lists checked before a SET by
 * the module's own rule (kmod/shared/param_grammar.c), with why an item is
 * refused.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "param_grammar.h"
#include "policy.h"

const char *policy_list_name(enum policy_list which)
{
	switch (which) {
	case POLICY_DRIVERS:
		return "drivers";
	case POLICY_VENDORS:
		return "vendors";
	case POLICY_CLASSES:
		return "classes";
	case POLICY_NUMA_NODES:
		return "numa nodes";
	}
	return "?";
}

static const enum p2pmap_policy_list shared_kind[] = {
	[POLICY_DRIVERS] = P2PMAP_POLICY_DRIVERS,
	[POLICY_VENDORS] = P2PMAP_POLICY_VENDORS,
	[POLICY_CLASSES] = P2PMAP_POLICY_CLASSES,
	[POLICY_NUMA_NODES] = P2PMAP_POLICY_NUMA,
};

/*
 * Why one item, @len bytes at @s (no comma in it), is refused: words for
 * what the shared rule decided.
 */
static const char *item_error(enum policy_list which, const char *s,
			      size_t len)
{
	size_t i;

	if (!len)
		return "empty item";
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		switch (which) {
		case POLICY_DRIVERS:
			if (!isalnum(c) && c != '_' && c != '-' && c != '.')
				return "a driver name is letters, digits, '_', '-' and '.'";
			break;
		case POLICY_VENDORS:
		case POLICY_CLASSES:
			if (!isxdigit(c))
				return "not a hex number";
			break;
		case POLICY_NUMA_NODES:
			if (!isdigit(c))
				return "not a decimal number";
			break;
		}
	}
	if (which == POLICY_VENDORS && len != 4)
		return "a vendor id is 4 hex digits";
	if (which == POLICY_CLASSES && len != 2 && len != 4 && len != 6)
		return "a class is 2, 4 or 6 hex digits";
	if (which == POLICY_NUMA_NODES && len > 4)
		return "NUMA node number too large";
	return "not what the module accepts";
}

int policy_list_check(enum policy_list which, const char *s, char *err,
		      size_t errlen)
{
	const char *item = s, *end, *why;
	size_t len;

	if (strlen(s) >= P2PMAP_POLICY_LEN) {
		snprintf(err, errlen, "longer than %d characters",
			 P2PMAP_POLICY_LEN - 1);
		return -1;
	}
	/* The module's rule decides; the items say why it refused. */
	if (!p2pmap_policy_list_valid(shared_kind[which], s))
		return 0;
	for (;;) {
		char one[P2PMAP_POLICY_LEN];

		end = strchr(item, ',');
		len = end ? (size_t)(end - item) : strlen(item);
		snprintf(one, sizeof(one), "%.*s", (int)len, item);
		if (!len || p2pmap_policy_list_valid(shared_kind[which], one)) {
			why = item_error(which, item, len);
			snprintf(err, errlen, "\"%.*s\": %s", (int)len, item,
				 why);
			return -1;
		}
		if (!end)
			break;
		item = end + 1;
	}
	snprintf(err, errlen, "not a list the module accepts");
	return -1;
}

int policy_parse_attrs(struct nlattr *head, int len, struct p2pmap_policy *p)
{
	struct nlattr *a;
	int rem;

	memset(p, 0, sizeof(*p));
	nla_for_each_attr(a, head, len, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_POLICY_DRIVERS:
			pnl_attr_str(a, p->drivers, sizeof(p->drivers));
			p->has_drivers = true;
			break;
		case P2PMAP_A_POLICY_VENDORS:
			pnl_attr_str(a, p->vendors, sizeof(p->vendors));
			p->has_vendors = true;
			break;
		case P2PMAP_A_POLICY_CLASSES:
			pnl_attr_str(a, p->classes, sizeof(p->classes));
			p->has_classes = true;
			break;
		case P2PMAP_A_POLICY_NUMA_NODES:
			pnl_attr_str(a, p->numa_nodes, sizeof(p->numa_nodes));
			p->has_numa_nodes = true;
			break;
		}
	}
	return 0;
}

static int policy_msg(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	policy_parse_attrs(genlmsg_attrdata(nlmsg_data(nlh), 0),
			   genlmsg_attrlen(nlmsg_data(nlh), 0), arg);
	return NL_OK;
}

int policy_get(struct p2pmap_nl *nl, struct p2pmap_policy *p)
{
	memset(p, 0, sizeof(*p));
	return pnl_do(nl, P2PMAP_CMD_POLICY_GET, NULL, NULL, policy_msg, p);
}

static int policy_fill(struct nl_msg *msg, const void *arg)
{
	const struct policy_req *req = arg;

	if (req->drivers &&
	    nla_put_string(msg, P2PMAP_A_POLICY_DRIVERS, req->drivers))
		return -EMSGSIZE;
	if (req->vendors &&
	    nla_put_string(msg, P2PMAP_A_POLICY_VENDORS, req->vendors))
		return -EMSGSIZE;
	if (req->classes &&
	    nla_put_string(msg, P2PMAP_A_POLICY_CLASSES, req->classes))
		return -EMSGSIZE;
	if (req->numa_nodes &&
	    nla_put_string(msg, P2PMAP_A_POLICY_NUMA_NODES, req->numa_nodes))
		return -EMSGSIZE;
	return 0;
}

int policy_set(struct p2pmap_nl *nl, const struct policy_req *req)
{
	return pnl_do(nl, P2PMAP_CMD_POLICY_SET, policy_fill, req, NULL, NULL);
}

static int policy_fill_dry_run(struct nl_msg *msg, const void *arg)
{
	if (policy_fill(msg, arg) || nla_put_flag(msg, P2PMAP_A_POLICY_DRY_RUN))
		return -EMSGSIZE;
	return 0;
}

static int denied_msg(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct policy_denied *d = arg;
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		void *more;

		if (nla_type(a) != P2PMAP_A_POLICY_DENIED)
			continue;
		more = realloc(d->addr, (d->n + 1) * sizeof(*d->addr));
		if (!more)
			return NL_STOP;
		d->addr = more;
		pnl_attr_str(a, d->addr[d->n], sizeof(d->addr[d->n]));
		d->n++;
	}
	return NL_OK;
}

int policy_set_dry_run(struct p2pmap_nl *nl, const struct policy_req *req,
		       struct policy_denied *out)
{
	memset(out, 0, sizeof(*out));
	return pnl_do(nl, P2PMAP_CMD_POLICY_SET, policy_fill_dry_run, req,
		      denied_msg, out);
}

bool policy_denied_has(const struct policy_denied *d, const char *addr)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->addr[i], addr))
			return true;
	return false;
}

void policy_denied_free(struct policy_denied *d)
{
	free(d->addr);
	memset(d, 0, sizeof(*d));
}
