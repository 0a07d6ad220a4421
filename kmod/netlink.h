/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by netlink.c (the family) and the per-object command handlers. */
#ifndef P2PMAP_NETLINK_H
#define P2PMAP_NETLINK_H

#include <net/genetlink.h>

extern struct genl_family p2pmap_family;

/* netlink_dev.c: P2PMAP_CMD_DEV_GET */
int p2pmap_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* netlink_link.c: P2PMAP_CMD_LINK_* */
int p2pmap_nl_link_get(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_link_dump(struct sk_buff *skb, struct netlink_callback *cb);
int p2pmap_nl_link_add(struct sk_buff *skb, struct genl_info *info);
int p2pmap_nl_link_del(struct sk_buff *skb, struct genl_info *info);

/* Point the ext-ack at @msg, which must have static storage. */
static inline void p2pmap_nl_msg(struct netlink_ext_ack *extack,
				 const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	extack->_msg = msg;
	extack->bad_attr = attr;
}

#endif /* P2PMAP_NETLINK_H */
