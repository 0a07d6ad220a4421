// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_FAULTS_RESET, and how a fault counter goes on the wire. */
#include "p2pmap.h"
#include "netlink.h"

/*
 * The counter, and its "last" attributes once it has counted something;
 * the fault's address only for @addrs (p2pmap_nl_sees_addrs()).
 */
int p2pmap_put_fault_count(struct sk_buff *skb, int a_count, int a_addr,
			   int a_flags, int a_time, int a_sources, int a_pad,
			   struct p2pmap_fault_count *f, bool addrs)
{
	u64 count = atomic64_read(&f->count);

	if (nla_put_u64_64bit(skb, a_count, count, a_pad))
		return -EMSGSIZE;
	if (!count)
		return 0;
	if ((addrs &&
	     nla_put_u64_64bit(skb, a_addr, READ_ONCE(f->last_addr), a_pad)) ||
	    nla_put_u32(skb, a_flags, READ_ONCE(f->last_flags)) ||
	    nla_put_u64_64bit(skb, a_time, READ_ONCE(f->last_time), a_pad) ||
	    nla_put_u32(skb, a_sources, atomic_read(&f->sources)))
		return -EMSGSIZE;
	return 0;
}

static int p2pmap_faults_reset_req(struct genl_info *info)
{
	struct nlattr *attr = info->attrs[P2PMAP_A_DEV_ADDR];
	struct p2pmap_dev *dev;
	int err = 0;

	mutex_lock(&p2pmap_lock);
	if (attr) {
		dev = p2pmap_dev_find(nla_data(attr));
		if (dev) {
			p2pmap_faults_reset(dev);
		} else {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "device is not tracked by p2pmap");
			err = -ENODEV;
		}
	} else {
		list_for_each_entry(dev, &p2pmap_devs, node)
			p2pmap_faults_reset(dev);
	}
	if (!err)
		p2pmap_generation++;
	mutex_unlock(&p2pmap_lock);
	return err;
}

int p2pmap_nl_faults_reset(struct sk_buff *skb, struct genl_info *info)
{
	int err = p2pmap_nl_may_change(skb, info);

	if (!err)
		err = p2pmap_faults_reset_req(info);
	return p2pmap_nl_done(info, err);
}
