// SPDX-License-Identifier: GPL-2.0
/* Parse messages of the "events" multicast group into struct p2pmap_event. */
#include <errno.h>
#include <string.h>

#include "dev.h"
#include "event.h"
#include "link.h"

int fault_ntf_parse_attrs(struct nlattr *head, int len,
			  struct p2pmap_fault_ntf *ntf)
{
	struct p2pmap_fault *f = &ntf->f;
	struct nlattr *a;
	int rem;

	memset(ntf, 0, sizeof(*ntf));
	nla_for_each_attr(a, head, len, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_FAULT_INITIATOR:
			pnl_attr_str(a, ntf->initiator, sizeof(ntf->initiator));
			break;
		case P2PMAP_A_FAULT_TARGET:
			pnl_attr_str(a, ntf->target, sizeof(ntf->target));
			break;
		case P2PMAP_A_FAULT_COUNT:
			f->has_count |= pnl_attr_u64(a, &f->count);
			break;
		case P2PMAP_A_FAULT_NEW:
			ntf->has_new |= pnl_attr_u64(a, &ntf->new_faults);
			break;
		case P2PMAP_A_FAULT_LAST_ADDR:
			f->has_addr |= pnl_attr_u64(a, &f->last_addr);
			break;
		case P2PMAP_A_FAULT_LAST_FLAGS:
			f->has_flags |= pnl_attr_u32(a, &f->last_flags);
			break;
		case P2PMAP_A_FAULT_SOURCES:
			pnl_attr_u32(a, &f->sources);
			break;
		}
	}
	return ntf->initiator[0] ? 0 : -EINVAL;
}

int event_parse(const struct nlmsghdr *nlh, struct p2pmap_event *ev)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *head;
	int len;

	memset(ev, 0, sizeof(*ev));
	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0))
		return -EINVAL;
	head = genlmsg_attrdata(g, 0);
	len = genlmsg_attrlen(g, 0);
	ev->cmd = g->cmd;
	switch (g->cmd) {
	case P2PMAP_CMD_DEV_ADD_NTF:
	case P2PMAP_CMD_DEV_DEL_NTF:
		return dev_parse_attrs(head, len, &ev->dev);
	case P2PMAP_CMD_LINK_NTF:
	case P2PMAP_CMD_LINK_DEL_NTF:
		return link_parse_attrs(head, len, &ev->link);
	case P2PMAP_CMD_FAULT_NTF:
		return fault_ntf_parse_attrs(head, len, &ev->fault);
	}
	return 1;
}
