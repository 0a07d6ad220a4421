// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group: devices coming and going,
 * links changing state, new faults.  Sent under p2pmap_lock, in the order
 * things happen; nothing is built when nobody listens.  The initial network
 * namespace gets them, and other namespaces (containers) unless
 * netns_reads=N.  They never carry fault addresses: joining the group asks
 * only CAP_NET_ADMIN over the listener's own network namespace, and a
 * multicast cannot ask each listener for CAP_SYS_ADMIN, which dumps and
 * sysfs ask before they give an address (netlink_access.c).
 */
#include <net/net_namespace.h>
#include "p2pmap.h"
#include "netlink.h"

bool p2pmap_events_on;	/* the family is registered (under p2pmap_lock) */

/* Fills an event's attributes; @addrs: with fault addresses. */
typedef int (*p2pmap_ntf_fill_t)(struct sk_buff *skb, void *obj, bool addrs);

/*
 * An event that could not be built or sent: the listeners' sockets in @net
 * get ENOBUFS (as for an overrun), so a monitor knows it missed something
 * and can read the state afresh; the log says it too.
 */
static void p2pmap_ntf_lost(struct net *net, u8 cmd)
{
	pr_warn_ratelimited("event %u lost: out of memory\n", cmd);
	genl_set_err(&p2pmap_family, net, 0, P2PMAP_MCGRP_EVENTS_ID, ENOBUFS);
}

static bool p2pmap_ntf_listened(struct net *net)
{
	return genl_has_listeners(&p2pmap_family, net, P2PMAP_MCGRP_EVENTS_ID);
}

static struct sk_buff *p2pmap_ntf_build(u8 cmd, p2pmap_ntf_fill_t fill,
					void *obj, bool addrs)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	void *hdr;

	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, 0, 0, &p2pmap_family, 0, cmd);
	if (!hdr || fill(skb, obj, addrs)) {
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

static bool p2pmap_ntf_listened_elsewhere(void)
{
	struct net *net;
	bool any = false;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (!net_eq(net, &init_net) && p2pmap_ntf_listened(net)) {
			any = true;
			break;
		}
	}
	rcu_read_unlock();
	return any;
}

/*
 * A copy of @skb to every other network namespace with a listener (each
 * told of the loss when @skb is NULL or a copy fails); consumes @skb.
 */
static void p2pmap_ntf_send_elsewhere(struct sk_buff *skb, u8 cmd)
{
	struct sk_buff *copy;
	struct net *net;
	int err;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (net_eq(net, &init_net) || !p2pmap_ntf_listened(net))
			continue;
		copy = skb ? skb_clone(skb, GFP_ATOMIC) : NULL;
		if (!copy) {
			p2pmap_ntf_lost(net, cmd);
			continue;
		}
		err = genlmsg_multicast_netns(&p2pmap_family, net, copy, 0,
					      P2PMAP_MCGRP_EVENTS_ID,
					      GFP_ATOMIC);
		if (err && err != -ESRCH)	/* ESRCH: the listener left */
			p2pmap_ntf_lost(net, cmd);
	}
	rcu_read_unlock();
	nlmsg_free(skb);
}

static void p2pmap_ntf(u8 cmd, p2pmap_ntf_fill_t fill, void *obj)
{
	bool here, elsewhere;
	struct sk_buff *skb;
	int err;

#ifndef P2PMAP_MCGRP_PERM
	return;	/* no safe events group on this kernel */
#endif
	if (!p2pmap_events_on)
		return;
	here = p2pmap_ntf_listened(&init_net);
	elsewhere = READ_ONCE(p2pmap_netns_reads) &&
		    p2pmap_ntf_listened_elsewhere();
	if (!here && !elsewhere)
		return;
	/* The same message everywhere: no addresses (see above). */
	skb = p2pmap_ntf_build(cmd, fill, obj, false);
	if (here) {
		struct sk_buff *copy = skb && elsewhere ?
				       skb_clone(skb, GFP_KERNEL) : skb;

		err = copy ? genlmsg_multicast(&p2pmap_family, copy, 0,
					       P2PMAP_MCGRP_EVENTS_ID,
					       GFP_KERNEL) : -ENOMEM;
		if (err && err != -ESRCH)
			p2pmap_ntf_lost(&init_net, cmd);
		if (!elsewhere)
			return;
	}
	p2pmap_ntf_send_elsewhere(skb, cmd);
}

static int p2pmap_ntf_fill_dev(struct sk_buff *skb, void *obj, bool addrs)
{
	return p2pmap_dev_put_attrs(skb, obj, addrs);
}

static int p2pmap_ntf_fill_dev_del(struct sk_buff *skb, void *obj,
				   bool addrs)
{
	struct p2pmap_dev *dev = obj;

	return nla_put_string(skb, P2PMAP_A_DEV_ADDR, dev->addr);
}

/* P2PMAP_CMD_DEV_ADD_NTF (all attributes) or P2PMAP_CMD_DEV_DEL_NTF. */
void p2pmap_ntf_dev(struct p2pmap_dev *dev, u8 cmd)
{
	p2pmap_ntf(cmd, cmd == P2PMAP_CMD_DEV_ADD_NTF ? p2pmap_ntf_fill_dev :
		   p2pmap_ntf_fill_dev_del, dev);
}

static int p2pmap_ntf_fill_link(struct sk_buff *skb, void *obj, bool addrs)
{
	return p2pmap_link_put_attrs(skb, obj, addrs);
}

static int p2pmap_ntf_fill_link_del(struct sk_buff *skb, void *obj,
				    bool addrs)
{
	struct p2pmap_link *link = obj;

	return nla_put_string(skb, P2PMAP_A_LINK_INITIATOR, link->initiator) ||
	       nla_put_string(skb, P2PMAP_A_LINK_TARGET, link->target);
}

/* P2PMAP_CMD_LINK_NTF (all attributes) or P2PMAP_CMD_LINK_DEL_NTF. */
void p2pmap_ntf_link(struct p2pmap_link *link, u8 cmd)
{
	p2pmap_ntf(cmd, cmd == P2PMAP_CMD_LINK_NTF ? p2pmap_ntf_fill_link :
		   p2pmap_ntf_fill_link_del, link);
}

struct p2pmap_ntf_fault {
	struct p2pmap_dev *init, *tgt;
	struct p2pmap_fault_count *f;
	u64 count, new;
};

static int p2pmap_ntf_fill_fault(struct sk_buff *skb, void *obj, bool addrs)
{
	struct p2pmap_ntf_fault *n = obj;

	return nla_put_string(skb, P2PMAP_A_FAULT_INITIATOR, n->init->addr) ||
	       (n->tgt &&
		nla_put_string(skb, P2PMAP_A_FAULT_TARGET, n->tgt->addr)) ||
	       nla_put_u64_64bit(skb, P2PMAP_A_FAULT_COUNT, n->count,
				 P2PMAP_A_FAULT_PAD) ||
	       nla_put_u64_64bit(skb, P2PMAP_A_FAULT_NEW, n->new,
				 P2PMAP_A_FAULT_PAD) ||
	       (addrs &&
		nla_put_u64_64bit(skb, P2PMAP_A_FAULT_LAST_ADDR,
				  READ_ONCE(n->f->last_addr),
				  P2PMAP_A_FAULT_PAD)) ||
	       nla_put_u32(skb, P2PMAP_A_FAULT_LAST_FLAGS,
			   READ_ONCE(n->f->last_flags)) ||
	       nla_put_u32(skb, P2PMAP_A_FAULT_SOURCES,
			   atomic_read(&n->f->sources));
}

/*
 * P2PMAP_CMD_FAULT_NTF for @f (faults of @init into @tgt, or "other" when
 * @tgt is NULL), if it moved since the last one.  The "notified" mark moves
 * even when nobody listens, so a new listener gets no stale burst.
 */
void p2pmap_ntf_fault(struct p2pmap_dev *init, struct p2pmap_dev *tgt,
		      struct p2pmap_fault_count *f)
{
	struct p2pmap_ntf_fault n = {
		.init = init, .tgt = tgt, .f = f,
		.count = atomic64_read(&f->count),
	};

	if (n.count <= f->notified) {
		f->notified = n.count;	/* reset under our feet */
		return;
	}
	n.new = n.count - f->notified;
	f->notified = n.count;
	p2pmap_ntf(P2PMAP_CMD_FAULT_NTF, p2pmap_ntf_fill_fault, &n);
}
