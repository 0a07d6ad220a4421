// SPDX-License-Identifier: GPL-2.0
/*
 * Who may ask what, and from where.  Reads (device, link and fault dumps,
 * info, policy show, the events group) answer in every network namespace:
 * on a Proxmox host the inference server, CUDA and "p2pmap verify" live in
 * an LXC container, which has its own network namespace.  netns_reads=N
 * keeps them to the initial one.  State changes come only from the initial
 * network namespace, from a sender with CAP_NET_ADMIN, CAP_SYS_ADMIN and
 * CAP_SYS_RAWIO in the initial user namespace.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/moduleparam.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include "p2pmap.h"
#include "netlink.h"

bool p2pmap_netns_reads = true;
module_param_cb(netns_reads, &p2pmap_param_ops_bool, &p2pmap_netns_reads,
		0644);
MODULE_PARM_DESC(netns_reads,
		 "answer reads and send events to other network namespaces (containers), fault addresses withheld (default Y)");

static bool p2pmap_nl_from_host(struct sk_buff *skb)
{
	return net_eq(sock_net(skb->sk), &init_net);
}

/* Reads: from the host always, from a container unless netns_reads=N. */
int p2pmap_nl_may_read(struct sk_buff *skb, struct netlink_ext_ack *extack)
{
	if (p2pmap_nl_from_host(skb) || READ_ONCE(p2pmap_netns_reads))
		return 0;
	NL_SET_ERR_MSG(extack,
		       "this host refuses reads from other network namespaces (p2pmap.netns_reads=N): run the command on the host");
	return -EPERM;
}

/*
 * Opening device-to-device DMA through the IOMMU changes isolation as
 * much as changing a group's domain type, for which the kernel asks
 * CAP_SYS_ADMIN and CAP_SYS_RAWIO: every state change asks both, and
 * CAP_NET_ADMIN (what GENL_ADMIN_PERM would ask, checked here so that the
 * refusal says why), all in the initial user namespace and held both by
 * the socket's opener and by the sender (netlink_capable()).  A container
 * holds none of them there, whatever its root may do inside.
 */
int p2pmap_nl_may_change(struct sk_buff *skb, struct genl_info *info)
{
	static const struct {
		int cap;
		const char *msg;
	} caps[] = {
		{ CAP_NET_ADMIN,
		  "needs CAP_NET_ADMIN in the initial user namespace (it changes IOMMU isolation)"
		},
		{ CAP_SYS_ADMIN,
		  "needs CAP_SYS_ADMIN in the initial user namespace (it changes IOMMU isolation)"
		},
		{ CAP_SYS_RAWIO,
		  "needs CAP_SYS_RAWIO in the initial user namespace (it changes IOMMU isolation)"
		},
	};
	int i;

	if (!p2pmap_nl_from_host(skb)) {
		NL_SET_ERR_MSG(info->extack,
			       "state changes are accepted only from the host's network namespace: run the command on the host");
		return -EPERM;
	}
	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		if (!netlink_capable(skb, caps[i].cap)) {
			p2pmap_nl_msg(info->extack, NULL, caps[i].msg);
			return -EPERM;
		}
	}
	return 0;
}

/*
 * Fault addresses go only to readers with CAP_SYS_ADMIN in the initial user
 * namespace, held by the socket's opener and by the reader, as
 * netlink_capable() asks it: an address outside every BAR is an IOVA of
 * the device's DMA API space, which the kernel itself prints only to its
 * log (dmesg_restrict on Debian).  Counts, times and BARs (world-readable
 * in /sys/bus/pci/devices/X/resource already) go to every reader.  Events
 * never carry addresses (events.c): a multicast cannot ask each listener.
 *
 * Without an audit record: asking says nothing about an attack, and an
 * unprivileged exporter polling every few seconds would fill the audit
 * log with denials under AppArmor or SELinux.  The opener's credentials
 * are read as cap_capable() reads them for the initial user namespace.
 */
static bool p2pmap_opener_has(const struct cred *cred, int cap)
{
	return cred->user_ns == &init_user_ns &&
	       cap_raised(cred->cap_effective, cap);
}

bool p2pmap_nl_sees_addrs(struct sk_buff *skb)
{
	struct sock *sk = NETLINK_CB(skb).sk;
	struct file *file = sk && sk->sk_socket ? sk->sk_socket->file : NULL;

	return file && p2pmap_opener_has(file->f_cred, CAP_SYS_ADMIN) &&
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
}
