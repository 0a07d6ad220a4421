// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group: devices coming and going,
 * links changing state, new faults.  Built under p2pmap_lock, in the order
 * things happen, and handed to events_send.c, which sends them in that
 * order without the lock; nothing is built when nobody listens.  They
 * never carry fault addresses: joining the group asks only CAP_NET_ADMIN
 * over the listener's own network namespace, and a multicast cannot ask
 * each listener for CAP_SYS_ADMIN, which dumps and sysfs ask before they
 * give an address (netlink_access.c).
 */
#include "p2pmap.h"
#include "netlink.h"

bool p2pmap_events_on;	/* the family is registered (under p2pmap_lock) */

/* Fills an event's attributes; @addrs: with fault addresses. */
typedef int (*p2pmap_ntf_fill_t)(struct sk_buff *skb, void *obj, bool addrs);

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

static void p2pmap_ntf(u8 cmd, p2pmap_ntf_fill_t fill, void *obj)
{
#ifndef P2PMAP_MCGRP_PERM
	return;	/* no safe events group on this kernel */
#endif
	lockdep_assert_held(&p2pmap_lock);
	if (!p2pmap_events_on)
		return;
	/* One bitmap for all namespaces: does anyone, anywhere, listen? */
	if (!genl_has_listeners(&p2pmap_family, &init_net,
				P2PMAP_MCGRP_EVENTS_ID))
		return;
	/* The same message everywhere: no addresses (see above). */
	p2pmap_ntf_queue(cmd, p2pmap_ntf_build(cmd, fill, obj, false));
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
