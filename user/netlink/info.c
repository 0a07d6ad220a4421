// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_INFO_GET and P2PMAP_CMD_FAULTS_RESET. */
#include <errno.h>
#include <string.h>

#include "info.h"

int info_parse_attrs(struct nlattr *head, int len, struct p2pmap_info *info)
{
	struct nlattr *a;
	int rem;

	memset(info, 0, sizeof(*info));
	nla_for_each_attr(a, head, len, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_INFO_VERSION:
			pnl_attr_str(a, info->version, sizeof(info->version));
			break;
		case P2PMAP_A_INFO_FAULT_SOURCES:
			info->has_fault_sources |=
				pnl_attr_u32(a, &info->fault_sources);
			break;
		case P2PMAP_A_INFO_GENERATION:
			info->has_generation |=
				pnl_attr_u32(a, &info->generation);
			break;
		case P2PMAP_A_INFO_RANGES_RESERVED:
			info->has_ranges_reserved |=
				pnl_attr_u32(a, &info->ranges_reserved);
			break;
		case P2PMAP_A_INFO_UNMAP_SHORT:
			info->has_unmap_short |=
				pnl_attr_u32(a, &info->unmap_short);
			break;
		case P2PMAP_A_INFO_WINDOWS_RESERVED:
			info->has_windows_reserved |=
				pnl_attr_u64(a, &info->windows_reserved);
			break;
		case P2PMAP_A_INFO_PARAM_ERRORS:
			info->has_param_errors |=
				pnl_attr_u32(a, &info->param_errors);
			break;
		case P2PMAP_A_INFO_FAULT_LOG_DROPPED:
			info->has_fault_log_dropped |=
				pnl_attr_u64(a, &info->fault_log_dropped);
			break;
		case P2PMAP_A_INFO_PARAM_ERROR:
			pnl_attr_str(a, info->param_error,
				     sizeof(info->param_error));
			break;
		case P2PMAP_A_INFO_SME:
			info->has_sme |= pnl_attr_u32(a, &info->sme);
			break;
		case P2PMAP_A_INFO_FAULT_LOG_OFF:
			pnl_attr_str(a, info->fault_log_off,
				     sizeof(info->fault_log_off));
			break;
		}
	}
	return 0;
}

static int info_msg(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	info_parse_attrs(genlmsg_attrdata(nlmsg_data(nlh), 0),
			 genlmsg_attrlen(nlmsg_data(nlh), 0), arg);
	return NL_OK;
}

int info_get(struct p2pmap_nl *nl, struct p2pmap_info *info)
{
	memset(info, 0, sizeof(*info));
	return pnl_do(nl, P2PMAP_CMD_INFO_GET, NULL, NULL, info_msg, info);
}

static int reset_fill(struct nl_msg *msg, const void *arg)
{
	const char *addr = arg;

	if (addr && nla_put_string(msg, P2PMAP_A_DEV_ADDR, addr))
		return -EMSGSIZE;
	return 0;
}

int faults_reset(struct p2pmap_nl *nl, const char *addr)
{
	return pnl_do(nl, P2PMAP_CMD_FAULTS_RESET, reset_fill, addr, NULL,
		      NULL);
}
