// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_LINK_*: build requests, parse links into struct p2pmap_link. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"

struct link_req {
	const char *initiator;
	const char *target;
	bool has_mask;
	uint32_t bar_mask;
};

/* Level 2: one P2PMAP_A_LINK_RANGE nest. */
static void parse_range(const struct nlattr *nest, struct p2pmap_range *r)
{
	struct nlattr *a;
	int rem;

	memset(r, 0, sizeof(*r));
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_RANGE_BAR:
			pnl_attr_u32(a, &r->bar);
			break;
		case P2PMAP_A_RANGE_IOVA:
			pnl_attr_u64(a, &r->iova);
			break;
		case P2PMAP_A_RANGE_SIZE:
			pnl_attr_u64(a, &r->size);
			break;
		case P2PMAP_A_RANGE_PAGES:
			pnl_attr_u64(a, &r->pages);
			break;
		}
	}
}

/* Level 1: the link message. */
int link_parse_attrs(struct nlattr *head, int len, struct p2pmap_link *link)
{
	struct nlattr *a;
	int rem;

	memset(link, 0, sizeof(*link));
	nla_for_each_attr(a, head, len, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_LINK_INITIATOR:
			pnl_attr_str(a, link->initiator, sizeof(link->initiator));
			break;
		case P2PMAP_A_LINK_TARGET:
			pnl_attr_str(a, link->target, sizeof(link->target));
			break;
		case P2PMAP_A_LINK_BAR_MASK:
			pnl_attr_u32(a, &link->bar_mask);
			break;
		case P2PMAP_A_LINK_STATE:
			link->has_state = pnl_attr_u32(a, &link->state);
			break;
		case P2PMAP_A_LINK_REASON:
			pnl_attr_str(a, link->reason, sizeof(link->reason));
			break;
		case P2PMAP_A_LINK_MAPPED_BYTES:
			link->has_mapped_bytes =
				pnl_attr_u64(a, &link->mapped_bytes);
			break;
		case P2PMAP_A_LINK_RANGE:
			if (link->nranges < P2PMAP_NR_BARS)
				parse_range(a, &link->ranges[link->nranges]);
			link->nranges++;
			break;
		case P2PMAP_A_LINK_FAULTS:
			link->faults.has_count |=
				pnl_attr_u64(a, &link->faults.count);
			break;
		case P2PMAP_A_LINK_FAULT_LAST_ADDR:
			link->faults.has_addr |=
				pnl_attr_u64(a, &link->faults.last_addr);
			break;
		case P2PMAP_A_LINK_FAULT_LAST_FLAGS:
			link->faults.has_flags |=
				pnl_attr_u32(a, &link->faults.last_flags);
			break;
		case P2PMAP_A_LINK_FAULT_LAST_TIME:
			link->faults.has_time |=
				pnl_attr_u64(a, &link->faults.last_time);
			break;
		case P2PMAP_A_LINK_FAULT_SOURCES:
			pnl_attr_u32(a, &link->faults.sources);
			break;
		}
	}
	return link->initiator[0] && link->target[0] ? 0 : -EINVAL;
}

static int parse_msg(struct nl_msg *msg, struct p2pmap_link *link)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	return link_parse_attrs(genlmsg_attrdata(nlmsg_data(nlh), 0),
				genlmsg_attrlen(nlmsg_data(nlh), 0), link);
}

static int link_get_msg(struct nl_msg *msg, void *arg)
{
	parse_msg(msg, arg);
	return NL_OK;
}

static int link_dump_msg(struct nl_msg *msg, void *arg)
{
	struct p2pmap_link_list *list = arg;
	struct p2pmap_link link, *links;

	if (parse_msg(msg, &link))
		return NL_SKIP;		/* nameless: nothing to show */
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 16;

		links = realloc(list->links, cap * sizeof(*links));
		if (!links)
			return NL_STOP;
		list->links = links;
		list->cap = cap;
	}
	list->links[list->n++] = link;
	return NL_OK;
}

static void link_list_reset(void *arg)
{
	struct p2pmap_link_list *list = arg;

	list->n = 0;
}

int link_dump(struct p2pmap_nl *nl, struct p2pmap_link_list *list)
{
	link_list_reset(list);
	return pnl_dump(nl, P2PMAP_CMD_LINK_GET, NULL, NULL, link_dump_msg,
		       link_list_reset, list);
}

void link_list_free(struct p2pmap_link_list *list)
{
	free(list->links);
	memset(list, 0, sizeof(*list));
}

static int link_fill(struct nl_msg *msg, const void *arg)
{
	const struct link_req *req = arg;

	/* An address "-" is left out: tests use it for the missing case. */
	if (strcmp(req->initiator, "-") &&
	    nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, req->initiator))
		return -EMSGSIZE;
	if (strcmp(req->target, "-") &&
	    nla_put_string(msg, P2PMAP_A_LINK_TARGET, req->target))
		return -EMSGSIZE;
	if (req->has_mask &&
	    nla_put_u32(msg, P2PMAP_A_LINK_BAR_MASK, req->bar_mask))
		return -EMSGSIZE;
	return 0;
}

int link_get(struct p2pmap_nl *nl, const char *initiator, const char *target,
	     struct p2pmap_link *link)
{
	struct link_req req = { .initiator = initiator, .target = target };

	memset(link, 0, sizeof(*link));
	return pnl_do(nl, P2PMAP_CMD_LINK_GET, link_fill, &req, link_get_msg,
		     link);
}

int link_add(struct p2pmap_nl *nl, const char *initiator, const char *target,
	     bool has_mask, uint32_t bar_mask)
{
	struct link_req req = {
		.initiator = initiator,
		.target = target,
		.has_mask = has_mask,
		.bar_mask = bar_mask,
	};

	return pnl_do(nl, P2PMAP_CMD_LINK_ADD, link_fill, &req, NULL, NULL);
}

int link_del(struct p2pmap_nl *nl, const char *initiator, const char *target)
{
	struct link_req req = { .initiator = initiator, .target = target };

	return pnl_do(nl, P2PMAP_CMD_LINK_DEL, link_fill, &req, NULL, NULL);
}
