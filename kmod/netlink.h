/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by netlink.c (the family) and the per-object command handlers. */
#ifndef P2PMAP_NETLINK_H
#define P2PMAP_NETLINK_H

#include <net/genetlink.h>

struct p2pmap_dev;
struct p2pmap_link;

extern struct genl_family p2pmap_family;

/* Index of the "events" group in the family's multicast group table. */
#define P2PMAP_MCGRP_EVENTS_ID	0

/* netlink_dev.c: P2PMAP_CMD_DEV_GET */
int p2pmap_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);

int p2pmap_dev_put_attrs(struct sk_buff *skb, struct p2pmap_dev *dev,
			 bool addrs);

/* netlink_link.c: P2PMAP_CMD_LINK_* */
int p2pmap_nl_link_get(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_link_dump(struct sk_buff *skb, struct netlink_callback *cb);
int p2pmap_nl_link_add(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_link_del(struct sk_buff *skb, struct genl_info *info);
int p2pmap_link_put_attrs(struct sk_buff *skb, const struct p2pmap_link *link,
			  bool addrs);

/* netlink_policy.c: P2PMAP_CMD_POLICY_{GET,SET} */
int p2pmap_nl_policy_get(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_policy_set(struct sk_buff *skb, struct genl_info *info);

/* netlink_info.c: P2PMAP_CMD_INFO_GET */
int p2pmap_nl_info_get(struct sk_buff *skb, struct genl_info *info);

/* netlink_faults.c: P2PMAP_CMD_FAULTS_RESET, fault attributes */
int p2pmap_nl_faults_reset(struct sk_buff *skb, struct genl_info *info);
int p2pmap_put_fault_count(struct sk_buff *skb, int a_count, int a_addr,
			   int a_flags, int a_time, int a_sources, int a_pad,
			   struct p2pmap_fault_count *f, bool addrs);

/* Point the ext-ack at @msg, which must have static storage. */
static inline void p2pmap_nl_msg(struct netlink_ext_ack *extack,
				 const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	extack->_msg = msg;
	extack->bad_attr = attr;
}

/* netlink_access.c: the checks every command makes first */
extern bool p2pmap_netns_reads;
int p2pmap_nl_may_read(struct sk_buff *skb, struct netlink_ext_ack *extack);
int p2pmap_nl_may_change(struct sk_buff *skb, struct genl_info *info);
bool p2pmap_nl_sees_addrs(struct sk_buff *skb);

/* netlink_events.c: P2PMAP_CMD_EVENTS_LISTEN */
int p2pmap_nl_events_listen(struct sk_buff *skb, struct genl_info *info);

/* events_listeners.c: which other network namespaces listen to events */
int p2pmap_ntf_listen(struct net *net, u32 portid,
		      struct netlink_ext_ack *extack);
void p2pmap_ntf_for_each_net(void (*fn)(struct net *net, void *arg),
			     void *arg);
int p2pmap_ntf_listeners_init(void);
void p2pmap_ntf_listeners_exit(void);

/* events_send.c: the queue the events wait in, and their copies */
void p2pmap_ntf_queue(u8 cmd, struct sk_buff *skb);
void p2pmap_ntf_send_init(void);
void p2pmap_ntf_send_exit(void);

/* netlink.c */
int p2pmap_nl_done(struct genl_info *info, int err);

#endif /* P2PMAP_NETLINK_H */
