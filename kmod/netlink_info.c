// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_INFO_GET: what this module is and can do. */
#include "p2pmap.h"
#include "netlink.h"

int p2pmap_nl_info_get(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int err = p2pmap_nl_may_read(skb, info->extack);

	if (err)
		return err;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return p2pmap_nl_done(info, -ENOMEM);
	hdr = genlmsg_put_reply(msg, info, &p2pmap_family, 0,
				P2PMAP_CMD_INFO_GET);
	if (!hdr)
		goto nomem;
	mutex_lock(&p2pmap_lock);
	if (nla_put_string(msg, P2PMAP_A_INFO_VERSION, P2PMAP_VERSION) ||
	    nla_put_u32(msg, P2PMAP_A_INFO_FAULT_SOURCES,
			p2pmap_fault_sources_armed()) ||
	    nla_put_u32(msg, P2PMAP_A_INFO_GENERATION, p2pmap_generation) ||
	    nla_put_u32(msg, P2PMAP_A_INFO_RANGES_RESERVED,
			p2pmap_ranges_reserved()) ||
	    nla_put_u32(msg, P2PMAP_A_INFO_UNMAP_SHORT, p2pmap_unmap_short) ||
	    nla_put_u64_64bit(msg, P2PMAP_A_INFO_WINDOWS_RESERVED,
			      p2pmap_windows_reserved_bytes(),
			      P2PMAP_A_INFO_PAD) ||
	    nla_put_u32(msg, P2PMAP_A_INFO_PARAM_ERRORS, p2pmap_param_errors) ||
	    (p2pmap_param_errors &&
	     nla_put_string(msg, P2PMAP_A_INFO_PARAM_ERROR,
			    p2pmap_param_error)) ||
	    nla_put_u64_64bit(msg, P2PMAP_A_INFO_FAULT_LOG_DROPPED,
			      p2pmap_fault_amdvi_rejected(),
			      P2PMAP_A_INFO_PAD) ||
	    nla_put_u32(msg, P2PMAP_A_INFO_SME, p2pmap_sme_state()) ||
	    (p2pmap_fault_log_off &&
	     nla_put_string(msg, P2PMAP_A_INFO_FAULT_LOG_OFF,
			    p2pmap_fault_log_off))) {
		mutex_unlock(&p2pmap_lock);
		goto nomem;
	}
	mutex_unlock(&p2pmap_lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nomem:
	nlmsg_free(msg);
	return p2pmap_nl_done(info, -EMSGSIZE);
}
