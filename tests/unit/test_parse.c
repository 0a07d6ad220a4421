// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the netlink parsers of user/dev.c, user/link.c and the
 * error/ext-ack reader of user/nl.c, on messages built here with libnl.
 */
#include <errno.h>
#include <string.h>
#include <linux/netlink.h>

#include "dev.h"
#include "link.h"
#include "tap.h"

/* An empty generic netlink message to put attributes in. */
static struct nl_msg *genl_msg(void)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 0, 42, 0, 0, P2PMAP_CMD_LINK_GET, 1);
	return msg;
}

static struct nlattr *attrs(struct nl_msg *msg, int *len)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	*len = genlmsg_attrlen(g, 0);
	return genlmsg_attrdata(g, 0);
}

static void test_link(void)
{
	struct nl_msg *msg = genl_msg();
	struct p2pmap_link l;
	struct nlattr *nest, *head;
	int len;

	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, "0000:00:03.0");
	nla_put_string(msg, P2PMAP_A_LINK_TARGET, "0000:00:04.0");
	nla_put_u32(msg, P2PMAP_A_LINK_BAR_MASK, 0x3);
	nla_put_u32(msg, P2PMAP_A_LINK_STATE, P2PMAP_LINK_MAPPED);
	nla_put_string(msg, P2PMAP_A_LINK_REASON, "ok");
	nla_put(msg, P2PMAP_A_LINK_PAD, 0, NULL);	/* as nla_put_u64_64bit() */
	nla_put_u64(msg, P2PMAP_A_LINK_MAPPED_BYTES, 3 << 20);
	nla_put_u32(msg, 200, 7);	/* unknown: ignored */
	nest = nla_nest_start(msg, P2PMAP_A_LINK_RANGE);
	nla_put_u32(msg, P2PMAP_A_RANGE_BAR, 0);
	nla_put_u64(msg, P2PMAP_A_RANGE_IOVA, 0xfe800000);
	nla_put_u64(msg, P2PMAP_A_RANGE_SIZE, 1 << 20);
	nla_put_u64(msg, P2PMAP_A_RANGE_PAGES, 1);
	nla_put_u32(msg, 99, 1);	/* unknown: ignored */
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, P2PMAP_A_LINK_RANGE);
	nla_put_u32(msg, P2PMAP_A_RANGE_BAR, 2);
	nla_put_u64(msg, P2PMAP_A_RANGE_IOVA, 0x4000000000ULL);
	nla_put_u64(msg, P2PMAP_A_RANGE_SIZE, 2 << 20);
	nla_put_u64(msg, P2PMAP_A_RANGE_PAGES, 512);
	nla_nest_end(msg, nest);

	head = attrs(msg, &len);
	tap_ok(link_parse_attrs(head, len, &l) == 0, "link parses");
	tap_ok(!strcmp(l.initiator, "0000:00:03.0") &&
	       !strcmp(l.target, "0000:00:04.0"), "link addresses");
	tap_ok(l.bar_mask == 0x3 && l.has_state &&
	       l.state == P2PMAP_LINK_MAPPED && !strcmp(l.reason, "ok"),
	       "link mask, state, reason");
	tap_ok(l.has_mapped_bytes && l.mapped_bytes == 3 << 20,
	       "link mapped bytes");
	tap_ok(l.nranges == 2 &&
	       l.ranges[0].bar == 0 && l.ranges[0].iova == 0xfe800000 &&
	       l.ranges[0].size == 1 << 20 && l.ranges[0].pages == 1 &&
	       l.ranges[1].bar == 2 && l.ranges[1].iova == 0x4000000000ULL &&
	       l.ranges[1].size == 2 << 20 && l.ranges[1].pages == 512,
	       "link ranges");
	nlmsg_free(msg);

	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, "0000:00:03.0");
	head = attrs(msg, &len);
	tap_ok(link_parse_attrs(head, len, &l) == -EINVAL,
	       "link without target refused");
	nlmsg_free(msg);
}

static void test_dev(void)
{
	struct nl_msg *msg = genl_msg();
	struct p2pmap_dev d;
	struct nlattr *nest, *head;
	int len;

	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:03.0");
	nla_put_u16(msg, P2PMAP_A_DEV_VENDOR, 0x1234);
	nla_put_u16(msg, P2PMAP_A_DEV_DEVICE, 0x11e8);
	nla_put_u32(msg, P2PMAP_A_DEV_CLASS, 0x030000);
	nla_put_string(msg, P2PMAP_A_DEV_DRIVER, "p2ptest");
	nla_put_u32(msg, P2PMAP_A_DEV_STATE, P2PMAP_DEV_BOUND);
	nla_put_s32(msg, P2PMAP_A_DEV_NUMA_NODE, -1);
	nla_put_s32(msg, P2PMAP_A_DEV_IOMMU_GROUP, 3);
	nla_put_u32(msg, P2PMAP_A_DEV_DOMAIN, P2PMAP_DOMAIN_DMA_FQ);
	nest = nla_nest_start(msg, P2PMAP_A_DEV_BAR);
	nla_put_u32(msg, P2PMAP_A_BAR_INDEX, 1);
	nla_put_u64(msg, P2PMAP_A_BAR_START, 0xfe800000);
	nla_put_u64(msg, P2PMAP_A_BAR_SIZE, 1 << 20);
	nla_put_u32(msg, P2PMAP_A_BAR_FLAGS, P2PMAP_BAR_F_PREFETCH);
	nla_nest_end(msg, nest);

	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0, "dev parses");
	tap_ok(!strcmp(d.addr, "0000:00:03.0") && d.vendor == 0x1234 &&
	       d.device == 0x11e8 && d.class == 0x030000 &&
	       !strcmp(d.driver, "p2ptest") && d.state == P2PMAP_DEV_BOUND,
	       "dev identity");
	tap_ok(d.numa_node == -1 && d.iommu_group == 3 &&
	       d.domain == P2PMAP_DOMAIN_DMA_FQ, "dev numa, group, domain");
	tap_ok(d.nbars == 1 && d.bars[0].index == 1 &&
	       d.bars[0].start == 0xfe800000 && d.bars[0].size == 1 << 20 &&
	       d.bars[0].flags == P2PMAP_BAR_F_PREFETCH, "dev BAR");
	nlmsg_free(msg);
}

/*
 * An NLMSG_ERROR as the kernel sends it: error, the echoed request header
 * (plus @echo payload bytes unless capped), then the ext-ack TLVs.
 */
static struct nl_msg *error_msg(int err, int flags, int echo, const char *text)
{
	struct nl_msg *msg = nlmsg_alloc();
	int capped = flags & NLM_F_CAPPED;
	struct nlmsgerr *e;

	nlmsg_put(msg, 0, 0, NLMSG_ERROR,
		  sizeof(*e) + (capped ? 0 : echo), flags);
	e = nlmsg_data(nlmsg_hdr(msg));
	e->error = err;
	e->msg.nlmsg_len = sizeof(struct nlmsghdr) + echo;
	e->msg.nlmsg_type = 42;
	if (text)
		nla_put_string(msg, NLMSGERR_ATTR_MSG, text);
	return msg;
}

static void check_error(struct nl_msg *msg, int want, const char *text,
			const char *desc)
{
	struct pnl_error e;
	int ret = pnl_read_error(nlmsg_hdr(msg), &e);

	if (!tap_ok(ret == want && e.err == want && !strcmp(e.msg, text),
		    "%s", desc))
		printf("# got %d \"%s\"\n", e.err, e.msg);
	nlmsg_free(msg);
}

static void test_error(void)
{
	struct nl_msg *msg;
	uint32_t type = P2PMAP_A_LINK_TARGET;

	check_error(error_msg(-ENODEV, NLM_F_ACK_TLVS | NLM_F_CAPPED, 32,
			      "initiator not tracked"),
		    -ENODEV, "initiator not tracked", "ext-ack, capped");
	check_error(error_msg(-EEXIST, NLM_F_ACK_TLVS, 36, "link exists"),
		    -EEXIST, "link exists", "ext-ack after echoed request");
	check_error(error_msg(-EPERM, 0, 36, NULL), -EPERM, "",
		    "error without ext-ack");
	check_error(error_msg(0, 0, 36, NULL), 0, "", "plain ACK");

	msg = error_msg(-EINVAL, NLM_F_ACK_TLVS | NLM_F_CAPPED, 32, NULL);
	nla_put(msg, NLMSGERR_ATTR_MISS_TYPE, sizeof(type), &type);
	check_error(msg, -EINVAL, "missing attribute 3",
		    "missing-attribute ext-ack");

	/* A dump that failed part way ends in NLMSG_DONE with the error. */
	msg = nlmsg_alloc();
	nlmsg_put(msg, 0, 0, NLMSG_DONE, sizeof(int), NLM_F_ACK_TLVS);
	*(int *)nlmsg_data(nlmsg_hdr(msg)) = -ENOBUFS;
	nla_put_string(msg, NLMSGERR_ATTR_MSG, "dump failed");
	check_error(msg, -ENOBUFS, "dump failed", "failed dump's DONE");

	msg = nlmsg_alloc();
	nlmsg_put(msg, 0, 0, NLMSG_DONE, sizeof(int), 0);
	*(int *)nlmsg_data(nlmsg_hdr(msg)) = 0;
	check_error(msg, 0, "", "dump's DONE");
}

int main(void)
{
	test_link();
	test_dev();
	test_error();
	return tap_done();
}
