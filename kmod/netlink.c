// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "p2pmap": policies and the command table.  The
 * protocol is specified in include/uapi/linux/p2pmap.h.  Commands are handled
 * in netlink_dev.c, netlink_link.c, netlink_policy.c, netlink_info.c,
 * netlink_faults.c and netlink_events.c; who may send them is decided in
 * netlink_access.c.
 */
#include "p2pmap.h"
#include "netlink.h"

#define P2PMAP_ADDR_POLICY { .type = NLA_NUL_STRING, .len = P2PMAP_ADDR_LEN - 1 }

static const struct nla_policy p2pmap_dev_policy[P2PMAP_A_DEV_MAX + 1] = {
	[P2PMAP_A_DEV_ADDR] = P2PMAP_ADDR_POLICY,
};

static const struct nla_policy p2pmap_info_policy[P2PMAP_A_INFO_MAX + 1] = {
};

#define P2PMAP_POLICY_STR { .type = NLA_NUL_STRING, .len = P2PMAP_POLICY_LEN - 1 }

static const struct nla_policy p2pmap_policy_policy[P2PMAP_A_POLICY_MAX + 1] = {
	[P2PMAP_A_POLICY_DRIVERS] = P2PMAP_POLICY_STR,
	[P2PMAP_A_POLICY_VENDORS] = P2PMAP_POLICY_STR,
	[P2PMAP_A_POLICY_CLASSES] = P2PMAP_POLICY_STR,
	[P2PMAP_A_POLICY_NUMA_NODES] = P2PMAP_POLICY_STR,
	[P2PMAP_A_POLICY_DRY_RUN] = { .type = NLA_FLAG },
	[P2PMAP_A_POLICY_DENIED] = { .type = NLA_REJECT },
};

static const struct nla_policy p2pmap_link_policy[P2PMAP_A_LINK_MAX + 1] = {
	[P2PMAP_A_LINK_INITIATOR] = P2PMAP_ADDR_POLICY,
	[P2PMAP_A_LINK_TARGET] = P2PMAP_ADDR_POLICY,
	[P2PMAP_A_LINK_BAR_MASK] = NLA_POLICY_RANGE(NLA_U32, 1,
						    P2PMAP_BAR_MASK_ALL),
};

/*
 * Every refusal says why: the handlers name the attribute or the state at
 * fault (GENL_REQ_ATTR_CHECK the missing attribute); the resource errors
 * get their word here.
 */
int p2pmap_nl_done(struct genl_info *info, int err)
{
	if (!err || !info->extack || info->extack->_msg)
		return err;
	if (err == -ENOMEM)
		NL_SET_ERR_MSG(info->extack, "out of memory");
	else if (err == -EMSGSIZE)
		NL_SET_ERR_MSG(info->extack, "the reply does not fit in one message");
	return err;
}

/*
 * State changes: p2pmap_nl_may_change() first in the doit, reads:
 * p2pmap_nl_may_read() (netlink_access.c).
 */
static const struct genl_ops p2pmap_ops[] = {
	{
		.cmd = P2PMAP_CMD_DEV_GET,
		.doit = p2pmap_nl_dev_get,
		.dumpit = p2pmap_nl_dev_dump,
		.policy = p2pmap_dev_policy,
		.maxattr = P2PMAP_A_DEV_MAX,
	},
	{
		.cmd = P2PMAP_CMD_LINK_GET,
		.doit = p2pmap_nl_link_get,
		.dumpit = p2pmap_nl_link_dump,
		.policy = p2pmap_link_policy,
		.maxattr = P2PMAP_A_LINK_MAX,
	},
	{
		.cmd = P2PMAP_CMD_LINK_ADD,
		.doit = p2pmap_nl_link_add,
		.policy = p2pmap_link_policy,
		.maxattr = P2PMAP_A_LINK_MAX,
	},
	{
		.cmd = P2PMAP_CMD_LINK_DEL,
		.doit = p2pmap_nl_link_del,
		.policy = p2pmap_link_policy,
		.maxattr = P2PMAP_A_LINK_MAX,
	},
	{
		.cmd = P2PMAP_CMD_INFO_GET,
		.doit = p2pmap_nl_info_get,
		.policy = p2pmap_info_policy,
		.maxattr = P2PMAP_A_INFO_MAX,
	},
	{
		.cmd = P2PMAP_CMD_FAULTS_RESET,
		.doit = p2pmap_nl_faults_reset,
		.policy = p2pmap_dev_policy,
		.maxattr = P2PMAP_A_DEV_MAX,
	},
	{
		.cmd = P2PMAP_CMD_POLICY_GET,
		.doit = p2pmap_nl_policy_get,
		.policy = p2pmap_policy_policy,
		.maxattr = P2PMAP_A_POLICY_MAX,
	},
	{
		.cmd = P2PMAP_CMD_POLICY_SET,
		.doit = p2pmap_nl_policy_set,
		.policy = p2pmap_policy_policy,
		.maxattr = P2PMAP_A_POLICY_MAX,
	},
	{
		.cmd = P2PMAP_CMD_EVENTS_LISTEN,
		.doit = p2pmap_nl_events_listen,
		.policy = p2pmap_info_policy,
		.maxattr = P2PMAP_A_INFO_MAX,
	},
};

#ifdef P2PMAP_MCGRP_PERM
static const struct genl_multicast_group p2pmap_mcgrps[] = {
	[P2PMAP_MCGRP_EVENTS_ID] = {
		.name = P2PMAP_MCGRP_EVENTS,
		P2PMAP_MCGRP_PERM,
	},
};
#endif

struct genl_family p2pmap_family __ro_after_init = {
	.name = P2PMAP_GENL_NAME,
	.version = P2PMAP_GENL_VERSION,
	.module = THIS_MODULE,
	.ops = p2pmap_ops,
	.n_ops = ARRAY_SIZE(p2pmap_ops),
#ifdef P2PMAP_MCGRP_PERM
	.mcgrps = p2pmap_mcgrps,
	.n_mcgrps = ARRAY_SIZE(p2pmap_mcgrps),
#endif
	.netnsok = true,	/* reads from containers: netlink_access.c */
};

/*
 * The listener registry and the send queue exist before the family, and
 * outlive it: no registration is made that is not dropped, and no event
 * waits once the family is gone.
 */
int __init p2pmap_genl_register(void)
{
	int err;

	p2pmap_ntf_send_init();
	err = p2pmap_ntf_listeners_init();
	if (err)
		return err;
	err = genl_register_family(&p2pmap_family);
	if (err) {
		p2pmap_ntf_listeners_exit();
		return err;
	}
	mutex_lock(&p2pmap_lock);
	p2pmap_events_on = true;
	mutex_unlock(&p2pmap_lock);
	return 0;
}

void p2pmap_genl_unregister(void)
{
	mutex_lock(&p2pmap_lock);
	p2pmap_events_on = false;
	mutex_unlock(&p2pmap_lock);
	p2pmap_ntf_send_exit();
	genl_unregister_family(&p2pmap_family);
	p2pmap_ntf_listeners_exit();
}
