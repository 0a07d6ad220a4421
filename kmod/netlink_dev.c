// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_DEV_GET: report tracked devices. */
#include <linux/iommu.h>
#include "p2pmap.h"
#include "netlink.h"

static int p2pmap_put_bar(struct sk_buff *skb, int i,
			  const struct p2pmap_bar *bar)
{
	struct nlattr *nest = nla_nest_start(skb, P2PMAP_A_DEV_BAR);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, P2PMAP_A_BAR_INDEX, i) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_BAR_START, bar->bus,
			      P2PMAP_A_BAR_PAD) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_BAR_SIZE, bar->size,
			      P2PMAP_A_BAR_PAD) ||
	    nla_put_u32(skb, P2PMAP_A_BAR_FLAGS, bar->flags)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static s32 p2pmap_group_id(struct pci_dev *pdev)
{
	struct iommu_group *group = iommu_group_get(&pdev->dev);
	s32 id;

	if (!group)
		return -1;
	id = iommu_group_id(group);
	iommu_group_put(group);
	return id;
}

static u32 p2pmap_dev_state(const struct p2pmap_dev *dev)
{
	if (!dev->bound)
		return P2PMAP_DEV_UNBOUND;
	return dev->dma_owned ? P2PMAP_DEV_OWNED : P2PMAP_DEV_BOUND;
}

static int p2pmap_put_peer(struct sk_buff *skb, struct p2pmap_peer_faults *p,
			   const char *target, bool addrs)
{
	struct nlattr *nest = nla_nest_start(skb, P2PMAP_A_DEV_PEER);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, P2PMAP_A_PEER_TARGET, target) ||
	    p2pmap_put_fault_count(skb, P2PMAP_A_PEER_FAULTS,
				   P2PMAP_A_PEER_FAULT_LAST_ADDR,
				   P2PMAP_A_PEER_FAULT_LAST_FLAGS,
				   P2PMAP_A_PEER_FAULT_LAST_TIME,
				   P2PMAP_A_PEER_FAULT_SOURCES,
				   P2PMAP_A_PEER_PAD, &p->f, addrs)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Targets this device faulted into, named by their current address. */
static int p2pmap_dev_put_peers(struct sk_buff *skb, struct p2pmap_dev *dev,
				bool addrs)
{
	struct p2pmap_dev *tgt;
	int i;

	for (i = 0; i < P2PMAP_PEER_SLOTS; i++) {
		struct p2pmap_peer_faults *p = &dev->peers[i];
		u32 id = READ_ONCE(p->target_id);

		if (!id || !atomic64_read(&p->f.count))
			continue;
		list_for_each_entry(tgt, &p2pmap_devs, node)
			if (tgt->id == id &&
			    p2pmap_put_peer(skb, p, tgt->addr, addrs))
				return -EMSGSIZE;
	}
	return 0;
}

int p2pmap_dev_put_attrs(struct sk_buff *skb, struct p2pmap_dev *dev,
			 bool addrs)
{
	struct pci_dev *pdev = dev->pdev;
	const char *why;
	int i;

	if (nla_put_string(skb, P2PMAP_A_DEV_ADDR, dev->addr) ||
	    nla_put_u16(skb, P2PMAP_A_DEV_VENDOR, pdev->vendor) ||
	    nla_put_u16(skb, P2PMAP_A_DEV_DEVICE, pdev->device) ||
	    nla_put_u32(skb, P2PMAP_A_DEV_CLASS, pdev->class) ||
	    nla_put_u32(skb, P2PMAP_A_DEV_STATE, p2pmap_dev_state(dev)) ||
	    nla_put_s32(skb, P2PMAP_A_DEV_NUMA_NODE, dev_to_node(&pdev->dev)) ||
	    nla_put_s32(skb, P2PMAP_A_DEV_IOMMU_GROUP, p2pmap_group_id(pdev)) ||
	    nla_put_u32(skb, P2PMAP_A_DEV_DOMAIN, dev->domain_type))
		return -EMSGSIZE;
	if (dev->bound &&
	    nla_put_string(skb, P2PMAP_A_DEV_DRIVER, dev->driver))
		return -EMSGSIZE;
	if (nla_put_u32(skb, P2PMAP_A_DEV_ADMITTED,
			p2pmap_policy_admits(dev, &why)) ||
	    (why && nla_put_string(skb, P2PMAP_A_DEV_ADMIT_REASON, why)))
		return -EMSGSIZE;
	for (i = 0; i < PCI_STD_NUM_BARS; i++)
		if (dev->bars[i].size && p2pmap_put_bar(skb, i, &dev->bars[i]))
			return -EMSGSIZE;
	if (p2pmap_put_fault_count(skb, P2PMAP_A_DEV_FAULTS,
				   P2PMAP_A_DEV_FAULT_LAST_ADDR,
				   P2PMAP_A_DEV_FAULT_LAST_FLAGS,
				   P2PMAP_A_DEV_FAULT_LAST_TIME,
				   P2PMAP_A_DEV_FAULT_SOURCES,
				   P2PMAP_A_DEV_PAD, &dev->faults, addrs) ||
	    nla_put_u64_64bit(skb, P2PMAP_A_DEV_FAULTS_OTHER,
			      atomic64_read(&dev->other.count),
			      P2PMAP_A_DEV_PAD))
		return -EMSGSIZE;
	return p2pmap_dev_put_peers(skb, dev, addrs);
}

static int p2pmap_dev_fill(struct sk_buff *skb, struct p2pmap_dev *dev,
			   u32 portid, u32 seq, int flags,
			   struct netlink_callback *cb, bool addrs)
{
	void *hdr = genlmsg_put(skb, portid, seq, &p2pmap_family, flags,
				P2PMAP_CMD_DEV_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (p2pmap_dev_put_attrs(skb, dev, addrs)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int p2pmap_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	bool addrs = p2pmap_nl_sees_addrs(cb->skb);
	long idx = 0, start = cb->args[0];
	struct p2pmap_dev *dev;
	int err = p2pmap_nl_may_read(cb->skb, cb->extack);

	if (err)
		return err;
	mutex_lock(&p2pmap_lock);
	cb->seq = p2pmap_generation;
	list_for_each_entry(dev, &p2pmap_devs, node) {
		if (idx < start) {
			idx++;
			continue;
		}
		if (p2pmap_dev_fill(skb, dev, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI, cb, addrs))
			break;
		idx++;
	}
	mutex_unlock(&p2pmap_lock);
	cb->args[0] = idx;
	return skb->len;
}

int p2pmap_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[P2PMAP_A_DEV_ADDR];
	struct p2pmap_dev *dev;
	struct sk_buff *msg;
	int err = p2pmap_nl_may_read(skb, info->extack);

	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, P2PMAP_A_DEV_ADDR))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return p2pmap_nl_done(info, -ENOMEM);
	mutex_lock(&p2pmap_lock);
	dev = p2pmap_dev_find(nla_data(attr));
	if (!dev) {
		p2pmap_nl_msg(info->extack, attr,
			      "device is not tracked by p2pmap");
		err = -ENODEV;
	} else {
		err = p2pmap_dev_fill(msg, dev, info->snd_portid,
				      info->snd_seq, 0, NULL,
				      p2pmap_nl_sees_addrs(skb));
	}
	mutex_unlock(&p2pmap_lock);
	if (err) {
		nlmsg_free(msg);
		return p2pmap_nl_done(info, err);
	}
	return genlmsg_reply(msg, info);
}
