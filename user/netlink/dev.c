// SPDX-License-Identifier: GPL-2.0
/* P2PMAP_CMD_DEV_GET: parse tracked devices into struct p2pmap_dev. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"

/* Level 2: one P2PMAP_A_DEV_BAR nest. */
static void parse_bar(const struct nlattr *nest, struct p2pmap_bar *bar)
{
	struct nlattr *a;
	int rem;

	memset(bar, 0, sizeof(*bar));
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_BAR_INDEX:
			pnl_attr_u32(a, &bar->index);
			break;
		case P2PMAP_A_BAR_START:
			pnl_attr_u64(a, &bar->start);
			break;
		case P2PMAP_A_BAR_SIZE:
			pnl_attr_u64(a, &bar->size);
			break;
		case P2PMAP_A_BAR_FLAGS:
			pnl_attr_u32(a, &bar->flags);
			break;
		}
	}
}

/* Level 2: one P2PMAP_A_DEV_PEER nest. */
static void parse_peer(const struct nlattr *nest, struct p2pmap_peer *peer)
{
	struct p2pmap_fault *f = &peer->f;
	struct nlattr *a;
	int rem;

	memset(peer, 0, sizeof(*peer));
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_PEER_TARGET:
			pnl_attr_str(a, peer->target, sizeof(peer->target));
			break;
		case P2PMAP_A_PEER_FAULTS:
			f->has_count |= pnl_attr_u64(a, &f->count);
			break;
		case P2PMAP_A_PEER_FAULT_LAST_ADDR:
			f->has_addr |= pnl_attr_u64(a, &f->last_addr);
			break;
		case P2PMAP_A_PEER_FAULT_LAST_FLAGS:
			f->has_flags |= pnl_attr_u32(a, &f->last_flags);
			break;
		case P2PMAP_A_PEER_FAULT_LAST_TIME:
			f->has_time |= pnl_attr_u64(a, &f->last_time);
			break;
		case P2PMAP_A_PEER_FAULT_SOURCES:
			pnl_attr_u32(a, &f->sources);
			break;
		}
	}
}

/* Level 1: the device message. */
int dev_parse_attrs(struct nlattr *head, int len, struct p2pmap_dev *dev)
{
	struct nlattr *a;
	int rem;

	memset(dev, 0, sizeof(*dev));
	dev->numa_node = -1;
	dev->iommu_group = -1;
	nla_for_each_attr(a, head, len, rem) {
		switch (nla_type(a)) {
		case P2PMAP_A_DEV_ADDR:
			pnl_attr_str(a, dev->addr, sizeof(dev->addr));
			break;
		case P2PMAP_A_DEV_VENDOR:
			if (nla_len(a) == sizeof(uint16_t))
				dev->vendor = nla_get_u16(a);
			break;
		case P2PMAP_A_DEV_DEVICE:
			if (nla_len(a) == sizeof(uint16_t))
				dev->device = nla_get_u16(a);
			break;
		case P2PMAP_A_DEV_CLASS:
			pnl_attr_u32(a, &dev->class);
			break;
		case P2PMAP_A_DEV_DRIVER:
			pnl_attr_str(a, dev->driver, sizeof(dev->driver));
			break;
		case P2PMAP_A_DEV_STATE:
			pnl_attr_u32(a, &dev->state);
			break;
		case P2PMAP_A_DEV_NUMA_NODE:
			pnl_attr_s32(a, &dev->numa_node);
			break;
		case P2PMAP_A_DEV_IOMMU_GROUP:
			pnl_attr_s32(a, &dev->iommu_group);
			break;
		case P2PMAP_A_DEV_DOMAIN:
			pnl_attr_u32(a, &dev->domain);
			break;
		case P2PMAP_A_DEV_BAR:
			if (dev->nbars < P2PMAP_NR_BARS)
				parse_bar(a, &dev->bars[dev->nbars++]);
			break;
		case P2PMAP_A_DEV_FAULTS:
			dev->faults.has_count |=
				pnl_attr_u64(a, &dev->faults.count);
			break;
		case P2PMAP_A_DEV_FAULTS_OTHER:
			dev->has_faults_other |=
				pnl_attr_u64(a, &dev->faults_other);
			break;
		case P2PMAP_A_DEV_FAULT_LAST_ADDR:
			dev->faults.has_addr |=
				pnl_attr_u64(a, &dev->faults.last_addr);
			break;
		case P2PMAP_A_DEV_FAULT_LAST_FLAGS:
			dev->faults.has_flags |=
				pnl_attr_u32(a, &dev->faults.last_flags);
			break;
		case P2PMAP_A_DEV_FAULT_LAST_TIME:
			dev->faults.has_time |=
				pnl_attr_u64(a, &dev->faults.last_time);
			break;
		case P2PMAP_A_DEV_FAULT_SOURCES:
			pnl_attr_u32(a, &dev->faults.sources);
			break;
		case P2PMAP_A_DEV_PEER:
			/* A nameless record cannot be shown: dropped. */
			if (dev->npeers < P2PMAP_MAX_PEERS) {
				parse_peer(a, &dev->peers[dev->npeers]);
				if (!dev->peers[dev->npeers].target[0])
					break;
			}
			dev->npeers++;
			break;
		case P2PMAP_A_DEV_ADMITTED: {
			uint32_t v;

			if (pnl_attr_u32(a, &v)) {
				dev->has_admitted = true;
				dev->admitted = v == 1;
			}
			break;
		}
		case P2PMAP_A_DEV_ADMIT_REASON:
			pnl_attr_str(a, dev->admit_reason,
				     sizeof(dev->admit_reason));
			break;
		}
	}
	return dev->addr[0] ? 0 : -EINVAL;
}

static int dev_parse_msg(struct nl_msg *msg, void *arg)
{
	struct p2pmap_dev_list *list = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct p2pmap_dev dev, *devs;

	if (dev_parse_attrs(genlmsg_attrdata(nlmsg_data(nlh), 0),
			    genlmsg_attrlen(nlmsg_data(nlh), 0), &dev))
		return NL_SKIP;		/* nameless: nothing to show */
	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 16;

		devs = realloc(list->devs, cap * sizeof(*devs));
		if (!devs)
			return NL_STOP;
		list->devs = devs;
		list->cap = cap;
	}
	list->devs[list->n++] = dev;
	return NL_OK;
}

static void dev_list_reset(void *arg)
{
	struct p2pmap_dev_list *list = arg;

	list->n = 0;
}

int dev_dump(struct p2pmap_nl *nl, struct p2pmap_dev_list *list)
{
	dev_list_reset(list);
	return pnl_dump(nl, P2PMAP_CMD_DEV_GET, NULL, NULL, dev_parse_msg,
		       dev_list_reset, list);
}

const struct p2pmap_dev *dev_list_find(const struct p2pmap_dev_list *list,
				       const char *addr)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (!strcmp(list->devs[i].addr, addr))
			return &list->devs[i];
	return NULL;
}

void dev_list_free(struct p2pmap_dev_list *list)
{
	free(list->devs);
	memset(list, 0, sizeof(*list));
}
