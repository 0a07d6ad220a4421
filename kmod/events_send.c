// SPDX-License-Identifier: GPL-2.0
/*
 * Where events go.  A message built under p2pmap_lock (events.c) waits in
 * a queue; a work item sends the queue in order, without p2pmap_lock: one
 * copy to the initial network namespace, and one to each other namespace
 * where a listener registered (events_listeners.c), unless netns_reads=N.
 * A namespace without a registered listener costs an event nothing.
 */
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include "p2pmap.h"
#include "netlink.h"

/* Past this many waiting messages, new ones are dropped and said lost. */
#define P2PMAP_NTF_QUEUE_MAX	4096

static struct sk_buff_head p2pmap_ntf_waiting;
static atomic_t p2pmap_ntf_dropped = ATOMIC_INIT(0);

/*
 * A lost event: the listeners' sockets in @net get ENOBUFS (as for an
 * overrun), so a monitor knows it missed something and can read the state
 * afresh.
 */
static void p2pmap_ntf_lost(struct net *net, void *arg)
{
	genl_set_err(&p2pmap_family, net, 0, P2PMAP_MCGRP_EVENTS_ID, ENOBUFS);
}

struct p2pmap_ntf_copy {
	struct sk_buff *skb;
	u8 cmd;
};

static void p2pmap_ntf_copy_to(struct net *net, void *arg)
{
	struct p2pmap_ntf_copy *c = arg;
	struct sk_buff *copy = skb_clone(c->skb, GFP_KERNEL);
	int err = -ENOMEM;

	if (copy)
		err = genlmsg_multicast_netns(&p2pmap_family, net, copy, 0,
					      P2PMAP_MCGRP_EVENTS_ID,
					      GFP_KERNEL);
	if (err && err != -ESRCH) {	/* ESRCH: nobody there listens */
		pr_warn_ratelimited("event %u lost: out of memory\n", c->cmd);
		p2pmap_ntf_lost(net, NULL);
	}
}

/* @fn for the initial namespace and every other one events go to. */
static void p2pmap_ntf_to_listeners(void (*fn)(struct net *net, void *arg),
				    void *arg)
{
	fn(&init_net, arg);
	if (READ_ONCE(p2pmap_netns_reads))
		p2pmap_ntf_for_each_net(fn, arg);
}

/* One event to every namespace that listens; consumes @skb. */
static void p2pmap_ntf_send(struct sk_buff *skb)
{
	struct genlmsghdr *hdr = nlmsg_data(nlmsg_hdr(skb));
	struct p2pmap_ntf_copy c = { .skb = skb, .cmd = hdr->cmd };

	p2pmap_ntf_to_listeners(p2pmap_ntf_copy_to, &c);
	nlmsg_free(skb);
}

static void p2pmap_ntf_work_fn(struct work_struct *work)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&p2pmap_ntf_waiting)))
		p2pmap_ntf_send(skb);
	if (atomic_xchg(&p2pmap_ntf_dropped, 0))
		p2pmap_ntf_to_listeners(p2pmap_ntf_lost, NULL);
}

static DECLARE_WORK(p2pmap_ntf_work, p2pmap_ntf_work_fn);

/*
 * Send @skb, event @cmd, after what is already waiting; NULL: the event
 * could not be built (out of memory), tell the listeners they lost one.
 */
void p2pmap_ntf_queue(u8 cmd, struct sk_buff *skb)
{
	if (skb && skb_queue_len(&p2pmap_ntf_waiting) < P2PMAP_NTF_QUEUE_MAX) {
		skb_queue_tail(&p2pmap_ntf_waiting, skb);
	} else {
		pr_warn_ratelimited("event %u lost: %s\n", cmd,
				    skb ? "too many waiting" : "out of memory");
		nlmsg_free(skb);
		atomic_set(&p2pmap_ntf_dropped, 1);
	}
	queue_work(system_wq, &p2pmap_ntf_work);
}

void p2pmap_ntf_send_init(void)
{
	skb_queue_head_init(&p2pmap_ntf_waiting);
}

/* After the last p2pmap_ntf_queue(): what waits is sent, then nothing. */
void p2pmap_ntf_send_exit(void)
{
	flush_work(&p2pmap_ntf_work);
	skb_queue_purge(&p2pmap_ntf_waiting);
}
