// SPDX-License-Identifier: GPL-2.0
/*
 * P2PMAP_CMD_EVENTS_LISTEN: a listener outside the initial network
 * namespace asks for events there (events_listeners.c says why it must).
 * It is a read (refused there while netns_reads=N) and asks what joining
 * the events group asks, CAP_NET_ADMIN over its own namespace.  In the
 * initial namespace, which gets every event, it changes nothing and is
 * accepted from anyone, as the other reads are.
 */
#include <net/sock.h>
#include "p2pmap.h"
#include "netlink.h"

int p2pmap_nl_events_listen(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = sock_net(skb->sk);
	int err = p2pmap_nl_may_read(skb, info->extack);

	if (err || net_eq(net, &init_net))
		return err;
	if (!netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(info->extack,
			       "needs CAP_NET_ADMIN in this network namespace (what joining the events group needs)");
		return -EPERM;
	}
	return p2pmap_nl_done(info,
			      p2pmap_ntf_listen(net, info->snd_portid,
						info->extack));
}
