// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_POLICY_GET and P2PMAP_CMD_POLICY_SET: the admission policy. */
#include "p2pmap.h"
#include "netlink.h"

int p2pmap_nl_policy_get(struct sk_buff *skb, struct genl_info *info)
{
	const struct p2pmap_policy *p = &p2pmap_policy;
	struct sk_buff *msg;
	void *hdr;
	int err = p2pmap_nl_may_read(skb, info->extack);

	if (err)
		return err;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &p2pmap_family, 0,
				P2PMAP_CMD_POLICY_GET);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	mutex_lock(&p2pmap_lock);
	err = nla_put_string(msg, P2PMAP_A_POLICY_DRIVERS, p->drivers) ||
	      nla_put_string(msg, P2PMAP_A_POLICY_VENDORS, p->vendors) ||
	      nla_put_string(msg, P2PMAP_A_POLICY_CLASSES, p->classes) ||
	      nla_put_string(msg, P2PMAP_A_POLICY_NUMA_NODES, p->numa_nodes);
	mutex_unlock(&p2pmap_lock);
	if (err) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct {
	int attr;
	enum p2pmap_policy_list kind;
	size_t offset;
	const char *bad;
} p2pmap_policy_fields[] = {
	{ P2PMAP_A_POLICY_DRIVERS, P2PMAP_POLICY_DRIVERS,
	  offsetof(struct p2pmap_policy, drivers),
	  "malformed driver list: names separated by commas" },
	{ P2PMAP_A_POLICY_VENDORS, P2PMAP_POLICY_VENDORS,
	  offsetof(struct p2pmap_policy, vendors),
	  "malformed vendor list: 4 hex digits each, separated by commas" },
	{ P2PMAP_A_POLICY_CLASSES, P2PMAP_POLICY_CLASSES,
	  offsetof(struct p2pmap_policy, classes),
	  "malformed class list: 2, 4 or 6 hex digits each, separated by commas" },
	{ P2PMAP_A_POLICY_NUMA_NODES, P2PMAP_POLICY_NUMA,
	  offsetof(struct p2pmap_policy, numa_nodes),
	  "malformed NUMA node list: decimal numbers separated by commas" },
};

/* @p with the lists the request gives replaced.  Call under p2pmap_lock. */
static void p2pmap_policy_apply(struct p2pmap_policy *p, struct genl_info *info)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(p2pmap_policy_fields); i++) {
		struct nlattr *a = info->attrs[p2pmap_policy_fields[i].attr];

		if (a)
			strscpy((char *)p + p2pmap_policy_fields[i].offset,
				nla_data(a), P2PMAP_POLICY_LEN);
	}
}

/*
 * A dry run: the devices admitted now that the requested policy would not
 * admit (their links would be unmapped), one P2PMAP_A_POLICY_DENIED each.
 * Nothing changes.
 */
static int p2pmap_policy_dry_run(struct genl_info *info)
{
	struct p2pmap_policy *next;
	struct p2pmap_dev *dev;
	struct sk_buff *msg;
	const char *why;
	void *hdr;
	int err = 0;

	next = kmalloc(sizeof(*next), GFP_KERNEL);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!next || !msg) {
		err = -ENOMEM;
		goto free;
	}
	hdr = genlmsg_put_reply(msg, info, &p2pmap_family, 0,
				P2PMAP_CMD_POLICY_SET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto free;
	}
	mutex_lock(&p2pmap_lock);
	*next = p2pmap_policy;
	p2pmap_policy_apply(next, info);
	list_for_each_entry(dev, &p2pmap_devs, node) {
		if (!p2pmap_policy_admits(dev, &why) ||
		    p2pmap_policy_admits_under(next, dev, &why))
			continue;
		err = nla_put_string(msg, P2PMAP_A_POLICY_DENIED,
				     pci_name(dev->pdev));
		if (err)
			break;
	}
	mutex_unlock(&p2pmap_lock);
	if (err) {
		NL_SET_ERR_MSG(info->extack,
			       "dry run: too many devices would lose admission to list them");
		goto free;
	}
	genlmsg_end(msg, hdr);
	kfree(next);
	return genlmsg_reply(msg, info);
free:
	nlmsg_free(msg);
	kfree(next);
	return err;
}

/* All given lists are checked first: a bad one changes nothing. */
static int p2pmap_policy_set(struct genl_info *info)
{
	struct p2pmap_link *link;
	struct p2pmap_dev *dev;
	const char *why;
	int i;

	for (i = 0; i < ARRAY_SIZE(p2pmap_policy_fields); i++) {
		struct nlattr *a = info->attrs[p2pmap_policy_fields[i].attr];

		if (a && p2pmap_policy_list_valid(p2pmap_policy_fields[i].kind,
						  nla_data(a))) {
			p2pmap_nl_msg(info->extack, a,
				      p2pmap_policy_fields[i].bad);
			return -EINVAL;
		}
	}
	if (nla_get_flag(info->attrs[P2PMAP_A_POLICY_DRY_RUN]))
		return p2pmap_policy_dry_run(info);
	mutex_lock(&p2pmap_lock);
	p2pmap_policy_apply(&p2pmap_policy, info);
	p2pmap_generation++;
	pr_info("policy: drivers=\"%s\" vendors=\"%s\" classes=\"%s\" numa_nodes=\"%s\"\n",
		p2pmap_policy.drivers, p2pmap_policy.vendors,
		p2pmap_policy.classes, p2pmap_policy.numa_nodes);
	list_for_each_entry(dev, &p2pmap_devs, node) {
		if (!dev->bound || !p2pmap_policy_may_admit(dev, &why))
			continue;
		p2pmap_iova_flush_caches(dev->domain);
		p2pmap_reserve_windows(dev);
	}
	list_for_each_entry(link, &p2pmap_links, node)
		p2pmap_link_sync(link);
	mutex_unlock(&p2pmap_lock);
	return 0;
}

int p2pmap_nl_policy_set(struct sk_buff *skb, struct genl_info *info)
{
	int err = p2pmap_nl_may_change(skb, info);

	if (!err)
		err = p2pmap_policy_set(info);
	return p2pmap_nl_done(info, err);
}
