// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group: devices coming and going,
 * links changing state, new faults.  Sent under p2pmap_lock, in the order
 * things happen; nothing is built when nobody listens.
 */
#include "p2pmap.h"
#include "netlink.h"

bool p2pmap_events_on;	/* the family is registered (under p2pmap_lock) */

/*
 * An event that could not be built or sent: the listeners' sockets get
 * ENOBUFS (as for an overrun), so a monitor knows it missed something and
 * can read the state afresh; the log says it too.
 */
static void p2pmap_ntf_lost(u8 cmd)
{
	pr_warn_ratelimited("event %u lost: out of memory\n", cmd);
	genl_set_err(&p2pmap_family, &init_net, 0, P2PMAP_MCGRP_EVENTS_ID,
		     ENOBUFS);
}

static struct sk_buff *p2pmap_ntf_new(u8 cmd, void **hdr)
{
	struct sk_buff *skb;

#ifndef P2PMAP_MCGRP_PERM
	return NULL;	/* no safe events group on this kernel */
#endif
	if (!p2pmap_events_on ||
	    !genl_has_listeners(&p2pmap_family, &init_net,
				P2PMAP_MCGRP_EVENTS_ID))
		return NULL;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		p2pmap_ntf_lost(cmd);
		return NULL;
	}
	*hdr = genlmsg_put(skb, 0, 0, &p2pmap_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		p2pmap_ntf_lost(cmd);
		return NULL;
	}
	return skb;
}

static void p2pmap_ntf_send(struct sk_buff *skb, void *hdr, int err)
{
	u8 cmd = ((struct genlmsghdr *)hdr)->cmd;

	if (err) {
		nlmsg_free(skb);
		p2pmap_ntf_lost(cmd);
		return;
	}
	genlmsg_end(skb, hdr);
	err = genlmsg_multicast(&p2pmap_family, skb, 0, P2PMAP_MCGRP_EVENTS_ID,
				GFP_KERNEL);
	if (err && err != -ESRCH)	/* ESRCH: the listener just left */
		p2pmap_ntf_lost(cmd);
}

/* P2PMAP_CMD_DEV_ADD_NTF (all attributes) or P2PMAP_CMD_DEV_DEL_NTF. */
void p2pmap_ntf_dev(struct p2pmap_dev *dev, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	skb = p2pmap_ntf_new(cmd, &hdr);
	if (!skb)
		return;
	if (cmd == P2PMAP_CMD_DEV_ADD_NTF)
		err = p2pmap_dev_put_attrs(skb, dev, true);
	else
		err = nla_put_string(skb, P2PMAP_A_DEV_ADDR, dev->addr);
	p2pmap_ntf_send(skb, hdr, err);
}

/* P2PMAP_CMD_LINK_NTF (all attributes) or P2PMAP_CMD_LINK_DEL_NTF. */
void p2pmap_ntf_link(struct p2pmap_link *link, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	skb = p2pmap_ntf_new(cmd, &hdr);
	if (!skb)
		return;
	if (cmd == P2PMAP_CMD_LINK_NTF)
		err = p2pmap_link_put_attrs(skb, link, true);
	else
		err = nla_put_string(skb, P2PMAP_A_LINK_INITIATOR,
				     link->initiator) ||
		      nla_put_string(skb, P2PMAP_A_LINK_TARGET, link->target);
	p2pmap_ntf_send(skb, hdr, err);
}

/*
 * P2PMAP_CMD_FAULT_NTF for @f (faults of @init into @tgt, or "other" when
 * @tgt is NULL), if it moved since the last one.  The "notified" mark moves
 * even when nobody listens, so a new listener gets no stale burst.
 */
void p2pmap_ntf_fault(struct p2pmap_dev *init, struct p2pmap_dev *tgt,
		      struct p2pmap_fault_count *f)
{
	u64 count = atomic64_read(&f->count);
	u64 new = count - f->notified;
	struct sk_buff *skb;
	void *hdr;
	int err;

	if (count <= f->notified) {
		f->notified = count;	/* reset under our feet */
		return;
	}
	f->notified = count;
	skb = p2pmap_ntf_new(P2PMAP_CMD_FAULT_NTF, &hdr);
	if (!skb)
		return;
	err = nla_put_string(skb, P2PMAP_A_FAULT_INITIATOR, init->addr) ||
	      (tgt && nla_put_string(skb, P2PMAP_A_FAULT_TARGET, tgt->addr)) ||
	      nla_put_u64_64bit(skb, P2PMAP_A_FAULT_COUNT, count,
				P2PMAP_A_FAULT_PAD) ||
	      nla_put_u64_64bit(skb, P2PMAP_A_FAULT_NEW, new,
				P2PMAP_A_FAULT_PAD) ||
	      nla_put_u64_64bit(skb, P2PMAP_A_FAULT_LAST_ADDR,
				READ_ONCE(f->last_addr), P2PMAP_A_FAULT_PAD) ||
	      nla_put_u32(skb, P2PMAP_A_FAULT_LAST_FLAGS,
			  READ_ONCE(f->last_flags)) ||
	      nla_put_u32(skb, P2PMAP_A_FAULT_SOURCES,
			  atomic_read(&f->sources));
	p2pmap_ntf_send(skb, hdr, err);
}
