// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_LINK_{GET,ADD,DEL}: configure and report links. */
#include "p2pmap.h"
#include "netlink.h"

static int p2pmap_put_range(struct sk_buff *skb, const struct p2pmap_range *r,
			    u32 bar)
{
	struct nlattr *nest = nla_nest_start(skb, P2PMAP_A_LINK_RANGE);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, P2PMAP_A_RANGE_BAR, bar) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_RANGE_IOVA, r->iova,
			      P2PMAP_A_RANGE_PAD) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_RANGE_SIZE, r->size,
			      P2PMAP_A_RANGE_PAD) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_RANGE_PAGES, r->pages,
			      P2PMAP_A_RANGE_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The counter of the link's (initiator, target) pair, zero if none yet. */
static int p2pmap_link_put_faults(struct sk_buff *skb,
				  const struct p2pmap_link *link, bool addrs)
{
	struct p2pmap_dev *init = p2pmap_dev_find(link->initiator);
	struct p2pmap_dev *tgt = p2pmap_dev_find(link->target);
	struct p2pmap_peer_faults *p = NULL;

	if (init && tgt)
		p = p2pmap_peer_find(init, tgt->id);
	if (!p)
		return nla_put_u64_64bit(skb, P2PMAP_A_LINK_FAULTS, 0,
					 P2PMAP_A_LINK_PAD);
	return p2pmap_put_fault_count(skb, P2PMAP_A_LINK_FAULTS,
				      P2PMAP_A_LINK_FAULT_LAST_ADDR,
				      P2PMAP_A_LINK_FAULT_LAST_FLAGS,
				      P2PMAP_A_LINK_FAULT_LAST_TIME,
				      P2PMAP_A_LINK_FAULT_SOURCES,
				      P2PMAP_A_LINK_PAD, &p->f, addrs);
}

int p2pmap_link_put_attrs(struct sk_buff *skb, const struct p2pmap_link *link,
			  bool addrs)
{
	int i;

	if (nla_put_string(skb, P2PMAP_A_LINK_INITIATOR, link->initiator) ||
	    nla_put_string(skb, P2PMAP_A_LINK_TARGET, link->target) ||
	    nla_put_u32(skb, P2PMAP_A_LINK_BAR_MASK, link->bar_mask) ||
	    nla_put_u32(skb, P2PMAP_A_LINK_STATE, link->state) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_LINK_MAPPED_BYTES,
			      p2pmap_link_mapped_bytes(link),
			      P2PMAP_A_LINK_PAD))
		return -EMSGSIZE;
	if (link->reason &&
	    nla_put_string(skb, P2PMAP_A_LINK_REASON, link->reason))
		return -EMSGSIZE;
	for (i = 0; i < PCI_STD_NUM_BARS; i++)
		if (link->ranges[i] &&
		    p2pmap_put_range(skb, link->ranges[i], link->range_bar[i]))
			return -EMSGSIZE;
	return p2pmap_link_put_faults(skb, link, addrs);
}

static int p2pmap_link_fill(struct sk_buff *skb, const struct p2pmap_link *link,
			    u32 portid, u32 seq, int flags,
			    struct netlink_callback *cb, bool addrs)
{
	void *hdr = genlmsg_put(skb, portid, seq, &p2pmap_family, flags,
				P2PMAP_CMD_LINK_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (p2pmap_link_put_attrs(skb, link, addrs)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int p2pmap_nl_link_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	bool addrs = p2pmap_nl_sees_addrs(cb->skb);
	long idx = 0, start = cb->args[0];
	struct p2pmap_link *link;
	int err = p2pmap_nl_may_read(cb->skb, cb->extack);

	if (err)
		return err;
	mutex_lock(&p2pmap_lock);
	cb->seq = p2pmap_generation;
	list_for_each_entry(link, &p2pmap_links, node) {
		if (idx < start) {
			idx++;
			continue;
		}
		if (p2pmap_link_fill(skb, link, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, cb, addrs))
			break;
		idx++;
	}
	mutex_unlock(&p2pmap_lock);
	cb->args[0] = idx;
	return skb->len;
}

/*
 * Check the initiator and target attributes of a request: present, well
 * formed, and not the same device.  Points *init and *tgt at the strings.
 */
static int p2pmap_nl_link_addrs(struct genl_info *info, const char **init,
				const char **tgt)
{
	struct nlattr *a_init = info->attrs[P2PMAP_A_LINK_INITIATOR];
	struct nlattr *a_tgt = info->attrs[P2PMAP_A_LINK_TARGET];
	unsigned int bus, devfn;
	int domain;

	if (GENL_REQ_ATTR_CHECK(info, P2PMAP_A_LINK_INITIATOR) ||
	    GENL_REQ_ATTR_CHECK(info, P2PMAP_A_LINK_TARGET))
		return -EINVAL;
	*init = nla_data(a_init);
	*tgt = nla_data(a_tgt);
	if (p2pmap_addr_parse(*init, &domain, &bus, &devfn)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_init,
				    "malformed initiator PCI address: expected DDDD:BB:DD.F in lower-case hex");
		return -EINVAL;
	}
	if (p2pmap_addr_parse(*tgt, &domain, &bus, &devfn)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_tgt,
				    "malformed target PCI address: expected DDDD:BB:DD.F in lower-case hex");
		return -EINVAL;
	}
	if (!strcmp(*init, *tgt)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_tgt,
				    "initiator and target are the same device");
		return -EINVAL;
	}
	return 0;
}

static int p2pmap_nl_link_reply(struct sk_buff *skb, struct genl_info *info,
				const struct p2pmap_link *link)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!msg)
		return p2pmap_nl_done(info, -ENOMEM);
	if (p2pmap_link_fill(msg, link, info->snd_portid, info->snd_seq, 0,
			     NULL, p2pmap_nl_sees_addrs(skb))) {
		nlmsg_free(msg);
		return p2pmap_nl_done(info, -EMSGSIZE);
	}
	return genlmsg_reply(msg, info);
}

int p2pmap_nl_link_get(struct sk_buff *skb, struct genl_info *info)
{
	struct p2pmap_link *link;
	const char *init, *tgt;
	int err = p2pmap_nl_may_read(skb, info->extack);

	if (err)
		return err;
	err = p2pmap_nl_link_addrs(info, &init, &tgt);
	if (err)
		return err;
	mutex_lock(&p2pmap_lock);
	link = p2pmap_link_find(init, tgt);
	if (link)
		err = p2pmap_nl_link_reply(skb, info, link);
	mutex_unlock(&p2pmap_lock);
	if (!link) {
		NL_SET_ERR_MSG(info->extack, "no such link");
		return -ENOENT;
	}
	return err;
}

static int p2pmap_link_add(struct genl_info *info)
{
	u32 mask = P2PMAP_BAR_MASK_DEFAULT;
	struct p2pmap_link *link;
	const char *init, *tgt;
	int err;

	err = p2pmap_nl_link_addrs(info, &init, &tgt);
	if (err)
		return err;
	if (info->attrs[P2PMAP_A_LINK_BAR_MASK])
		mask = nla_get_u32(info->attrs[P2PMAP_A_LINK_BAR_MASK]);

	mutex_lock(&p2pmap_lock);
	if (!p2pmap_dev_find(init)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[P2PMAP_A_LINK_INITIATOR],
				    "initiator is not a PCI device tracked by p2pmap");
		err = -ENODEV;
		goto unlock;
	}
	if (!p2pmap_dev_find(tgt)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[P2PMAP_A_LINK_TARGET],
				    "target is not a PCI device tracked by p2pmap");
		err = -ENODEV;
		goto unlock;
	}
	if (p2pmap_link_find(init, tgt)) {
		NL_SET_ERR_MSG(info->extack, "link already configured");
		err = -EEXIST;
		goto unlock;
	}
	link = p2pmap_link_create(init, tgt, mask);
	if (!link) {
		NL_SET_ERR_MSG(info->extack,
			       "out of memory for the link or its sysfs entry: nothing configured");
		err = -ENOMEM;
		goto unlock;
	}
	err = p2pmap_link_sync(link);
	if (err) {
		/* Refused for safety or failed: keep nothing. */
		p2pmap_nl_msg(info->extack, NULL, link->reason);
		p2pmap_link_destroy(link);
	}
unlock:
	mutex_unlock(&p2pmap_lock);
	return err;
}

int p2pmap_nl_link_add(struct sk_buff *skb, struct genl_info *info)
{
	int err = p2pmap_nl_may_change(skb, info);

	if (!err)
		err = p2pmap_link_add(info);
	return p2pmap_nl_done(info, err);
}

static int p2pmap_link_del(struct genl_info *info)
{
	const char *init, *tgt, *why = NULL;
	struct p2pmap_link *link;
	int err;

	err = p2pmap_nl_link_addrs(info, &init, &tgt);
	if (err)
		return err;
	mutex_lock(&p2pmap_lock);
	link = p2pmap_link_find(init, tgt);
	if (link)
		err = p2pmap_link_delete(link, &why);
	mutex_unlock(&p2pmap_lock);
	if (!link) {
		NL_SET_ERR_MSG(info->extack, "no such link");
		return -ENOENT;
	}
	if (err)
		p2pmap_nl_msg(info->extack, NULL, why);
	return err;
}

int p2pmap_nl_link_del(struct sk_buff *skb, struct genl_info *info)
{
	int err = p2pmap_nl_may_change(skb, info);

	if (!err)
		err = p2pmap_link_del(info);
	return p2pmap_nl_done(info, err);
}
