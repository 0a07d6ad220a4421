// SPDX-License-Identifier: GPL-2.0
/*
 * Which network namespaces other than the initial one listen to events.
 *
 * The kernel does not tell a module which namespaces have a member of one
 * of its groups: genl_has_listeners() reads one bitmap per protocol for
 * all namespaces, and a family's bind callback, where there is one, is
 * given no namespace (genl_bind(), net/netlink/genetlink.c, 6.12, 7.3;
 * 6.1 has none).  Copying every event
 * into every namespace whenever anyone listens would make a host with
 * hundreds of containers pay for each one per event.  So a listener
 * outside the initial namespace registers with P2PMAP_CMD_EVENTS_LISTEN,
 * and the registration goes when its socket is released: NETLINK_URELEASE,
 * sent for every bound socket (netlink_release()), which is how nl80211
 * drops its per-socket registrations (nl80211_netlink_notify()).
 *
 * A registered socket holds a reference on its namespace until after that
 * notification, so a namespace found here under the lock is alive.
 */
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include "p2pmap.h"
#include "netlink.h"

/* Sockets per namespace: a monitor or two per container is the use. */
#define P2PMAP_NTF_SOCKS_MAX	32

struct p2pmap_ntf_net {
	struct list_head node;
	struct net *net;
	unsigned int n;
	u32 portids[P2PMAP_NTF_SOCKS_MAX];
};

static LIST_HEAD(p2pmap_ntf_nets);
static DEFINE_MUTEX(p2pmap_ntf_nets_lock);	/* the list, and sending */

static struct p2pmap_ntf_net *p2pmap_ntf_net_find(struct net *net)
{
	struct p2pmap_ntf_net *e;

	list_for_each_entry(e, &p2pmap_ntf_nets, node)
		if (net_eq(e->net, net))
			return e;
	return NULL;
}

static int p2pmap_ntf_portid_index(const struct p2pmap_ntf_net *e, u32 portid)
{
	unsigned int i;

	for (i = 0; i < e->n; i++)
		if (e->portids[i] == portid)
			return i;
	return -1;
}

/*
 * Register socket @portid of @net, not the initial namespace (which gets
 * every event), for events; registering twice is one registration.
 */
int p2pmap_ntf_listen(struct net *net, u32 portid,
		      struct netlink_ext_ack *extack)
{
	struct p2pmap_ntf_net *e;
	int err = 0;

	mutex_lock(&p2pmap_ntf_nets_lock);
	e = p2pmap_ntf_net_find(net);
	if (!e) {
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e) {
			err = -ENOMEM;
			goto out;
		}
		e->net = net;
		list_add_tail(&e->node, &p2pmap_ntf_nets);
	}
	if (p2pmap_ntf_portid_index(e, portid) >= 0)
		goto out;
	if (e->n == P2PMAP_NTF_SOCKS_MAX) {
		NL_SET_ERR_MSG(extack,
			       "too many event listeners in this network namespace (32)");
		err = -ENOSPC;
		goto out;
	}
	e->portids[e->n++] = portid;
out:
	mutex_unlock(&p2pmap_ntf_nets_lock);
	return err;
}

static void p2pmap_ntf_net_free(struct p2pmap_ntf_net *e)
{
	list_del(&e->node);
	kfree(e);
}

static int p2pmap_ntf_released(struct notifier_block *nb,
			       unsigned long state, void *data)
{
	struct netlink_notify *n = data;
	struct p2pmap_ntf_net *e;
	int i;

	if (state != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	mutex_lock(&p2pmap_ntf_nets_lock);
	e = p2pmap_ntf_net_find(n->net);
	i = e ? p2pmap_ntf_portid_index(e, n->portid) : -1;
	if (i >= 0) {
		e->portids[i] = e->portids[--e->n];
		if (!e->n)
			p2pmap_ntf_net_free(e);
	}
	mutex_unlock(&p2pmap_ntf_nets_lock);
	return NOTIFY_DONE;
}

static struct notifier_block p2pmap_ntf_release_nb = {
	.notifier_call = p2pmap_ntf_released,
};

/*
 * Call @fn for each namespace with a registration, the lock held: a
 * namespace cannot go while @fn runs.
 */
void p2pmap_ntf_for_each_net(void (*fn)(struct net *net, void *arg),
			     void *arg)
{
	struct p2pmap_ntf_net *e;

	mutex_lock(&p2pmap_ntf_nets_lock);
	list_for_each_entry(e, &p2pmap_ntf_nets, node)
		fn(e->net, arg);
	mutex_unlock(&p2pmap_ntf_nets_lock);
}

/* /sys/kernel/p2pmap/event_namespaces */
unsigned int p2pmap_ntf_nets_count(void)
{
	struct p2pmap_ntf_net *e;
	unsigned int n = 0;

	mutex_lock(&p2pmap_ntf_nets_lock);
	list_for_each_entry(e, &p2pmap_ntf_nets, node)
		n++;
	mutex_unlock(&p2pmap_ntf_nets_lock);
	return n;
}

/* Before the family: no registration can be made that is not dropped. */
int p2pmap_ntf_listeners_init(void)
{
	return netlink_register_notifier(&p2pmap_ntf_release_nb);
}

/* After the family: nothing registers any more. */
void p2pmap_ntf_listeners_exit(void)
{
	struct p2pmap_ntf_net *e, *tmp;

	netlink_unregister_notifier(&p2pmap_ntf_release_nb);
	mutex_lock(&p2pmap_ntf_nets_lock);
	list_for_each_entry_safe(e, tmp, &p2pmap_ntf_nets, node)
		p2pmap_ntf_net_free(e);
	mutex_unlock(&p2pmap_ntf_nets_lock);
}
