// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the netlink parsers of user/netlink/dev.c and
 * user/netlink/link.c and the error/ext-ack reader of user/netlink/nl.c,
 * on messages built here with libnl.
 */
#include <errno.h>
#include <string.h>
#include <linux/netlink.h>

#include "dev.h"
#include "event.h"
#include "info.h"
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

/* The fault counters: device, PEER nests, link. */
static void test_faults(void)
{
	struct nl_msg *msg = genl_msg();
	struct p2pmap_dev d;
	struct p2pmap_link l;
	struct nlattr *nest, *head;
	int len, i;

	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	nla_put_u64(msg, P2PMAP_A_DEV_FAULTS, 7);
	nla_put_u64(msg, P2PMAP_A_DEV_FAULTS_OTHER, 2);
	nla_put_u64(msg, P2PMAP_A_DEV_FAULT_LAST_ADDR, 0xfe500000);
	nla_put_u32(msg, P2PMAP_A_DEV_FAULT_LAST_FLAGS, P2PMAP_FAULT_F_WRITE);
	nla_put_u64(msg, P2PMAP_A_DEV_FAULT_LAST_TIME, 1700000000123456789ULL);
	nla_put_u32(msg, P2PMAP_A_DEV_FAULT_SOURCES, P2PMAP_FAULT_SRC_DMAR);
	nest = nla_nest_start(msg, P2PMAP_A_DEV_PEER);
	nla_put_string(msg, P2PMAP_A_PEER_TARGET, "0000:00:11.0");
	nla_put_u64(msg, P2PMAP_A_PEER_FAULTS, 5);
	nla_put_u64(msg, P2PMAP_A_PEER_FAULT_LAST_ADDR, 0xfe600010);
	nla_put_u32(msg, P2PMAP_A_PEER_FAULT_LAST_FLAGS, 0);
	nla_put_u64(msg, P2PMAP_A_PEER_FAULT_LAST_TIME, 1700000000000000000ULL);
	nla_put_u32(msg, P2PMAP_A_PEER_FAULT_SOURCES,
		    P2PMAP_FAULT_SRC_TRACEPOINT | P2PMAP_FAULT_SRC_DMAR);
	nla_put_u32(msg, 77, 1);	/* unknown: ignored */
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, P2PMAP_A_DEV_PEER);	/* nameless: dropped */
	nla_put_u64(msg, P2PMAP_A_PEER_FAULTS, 9);
	nla_nest_end(msg, nest);
	nest = nla_nest_start(msg, P2PMAP_A_DEV_PEER);	/* count only */
	nla_put_string(msg, P2PMAP_A_PEER_TARGET, "0000:00:12.0");
	nla_put_u64(msg, P2PMAP_A_PEER_FAULTS, 1);
	nla_nest_end(msg, nest);
	nla_put_u32(msg, P2PMAP_A_DEV_FAULTS, 3);	/* wrong size: ignored */
	nla_put_u64(msg, 250, 1);			/* unknown: ignored */

	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0, "dev with faults parses");
	tap_ok(d.faults.has_count && d.faults.count == 7 &&
	       d.has_faults_other && d.faults_other == 2,
	       "dev fault counts (a wrong-size attribute is ignored)");
	tap_ok(d.faults.has_addr && d.faults.last_addr == 0xfe500000 &&
	       d.faults.has_flags &&
	       d.faults.last_flags == P2PMAP_FAULT_F_WRITE &&
	       d.faults.has_time &&
	       d.faults.last_time == 1700000000123456789ULL &&
	       d.faults.sources == P2PMAP_FAULT_SRC_DMAR, "dev last fault");
	tap_ok(d.npeers == 2 && !strcmp(d.peers[0].target, "0000:00:11.0") &&
	       d.peers[0].f.has_count && d.peers[0].f.count == 5 &&
	       d.peers[0].f.has_addr && d.peers[0].f.last_addr == 0xfe600010 &&
	       d.peers[0].f.has_flags && d.peers[0].f.last_flags == 0 &&
	       d.peers[0].f.has_time &&
	       d.peers[0].f.last_time == 1700000000000000000ULL &&
	       d.peers[0].f.sources == (P2PMAP_FAULT_SRC_TRACEPOINT |
					P2PMAP_FAULT_SRC_DMAR),
	       "dev PEER record");
	tap_ok(!strcmp(d.peers[1].target, "0000:00:12.0") &&
	       d.peers[1].f.has_count && d.peers[1].f.count == 1 &&
	       !d.peers[1].f.has_addr && !d.peers[1].f.has_time &&
	       !d.peers[1].f.sources,
	       "PEER with a count only; nameless PEER dropped");
	nlmsg_free(msg);

	/* More PEER records than kept: counted, the first ones kept. */
	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	for (i = 0; i < P2PMAP_MAX_PEERS + 3; i++) {
		nest = nla_nest_start(msg, P2PMAP_A_DEV_PEER);
		nla_put_string(msg, P2PMAP_A_PEER_TARGET, "0000:00:11.0");
		nla_put_u64(msg, P2PMAP_A_PEER_FAULTS, i + 1);
		nla_nest_end(msg, nest);
	}
	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0 &&
	       d.npeers == P2PMAP_MAX_PEERS + 3 &&
	       d.peers[P2PMAP_MAX_PEERS - 1].f.count == P2PMAP_MAX_PEERS,
	       "PEER records beyond %d counted, not kept", P2PMAP_MAX_PEERS);
	nlmsg_free(msg);

	/* A device without fault attributes (an older module). */
	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0 && !d.faults.has_count &&
	       !d.has_faults_other && !d.npeers && !d.faults.has_addr,
	       "dev without fault attributes");
	nlmsg_free(msg);

	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, "0000:00:10.0");
	nla_put_string(msg, P2PMAP_A_LINK_TARGET, "0000:00:11.0");
	nla_put_u32(msg, P2PMAP_A_LINK_STATE, P2PMAP_LINK_MAPPED);
	nla_put_u64(msg, P2PMAP_A_LINK_FAULTS, 4);
	nla_put_u64(msg, P2PMAP_A_LINK_FAULT_LAST_ADDR, 0xfe500040);
	nla_put_u32(msg, P2PMAP_A_LINK_FAULT_LAST_FLAGS, P2PMAP_FAULT_F_WRITE);
	nla_put_u64(msg, P2PMAP_A_LINK_FAULT_LAST_TIME, 42);
	nla_put_u32(msg, P2PMAP_A_LINK_FAULT_SOURCES, P2PMAP_FAULT_SRC_TRACEPOINT);
	head = attrs(msg, &len);
	tap_ok(link_parse_attrs(head, len, &l) == 0 && l.faults.has_count &&
	       l.faults.count == 4 && l.faults.has_addr &&
	       l.faults.last_addr == 0xfe500040 && l.faults.has_flags &&
	       l.faults.last_flags == P2PMAP_FAULT_F_WRITE &&
	       l.faults.has_time && l.faults.last_time == 42 &&
	       l.faults.sources == P2PMAP_FAULT_SRC_TRACEPOINT,
	       "link fault counter");
	nlmsg_free(msg);
}

static void test_info(void)
{
	struct nl_msg *msg = genl_msg();
	struct p2pmap_info info;
	struct nlattr *head;
	int len;

	nla_put_string(msg, P2PMAP_A_INFO_VERSION, "0.2.0");
	nla_put_u32(msg, P2PMAP_A_INFO_FAULT_SOURCES,
		    P2PMAP_FAULT_SRC_TRACEPOINT | P2PMAP_FAULT_SRC_DMAR);
	nla_put_u32(msg, P2PMAP_A_INFO_GENERATION, 17);
	nla_put_u32(msg, 90, 1);	/* unknown: ignored */
	head = attrs(msg, &len);
	tap_ok(info_parse_attrs(head, len, &info) == 0 &&
	       !strcmp(info.version, "0.2.0") && info.has_fault_sources &&
	       info.fault_sources == (P2PMAP_FAULT_SRC_TRACEPOINT |
				      P2PMAP_FAULT_SRC_DMAR) &&
	       info.has_generation && info.generation == 17, "info reply");
	nlmsg_free(msg);

	msg = genl_msg();
	head = attrs(msg, &len);
	tap_ok(info_parse_attrs(head, len, &info) == 0 && !info.version[0] &&
	       !info.has_fault_sources && !info.has_generation,
	       "empty info reply");
	nlmsg_free(msg);
}

/* An event message as the "events" group delivers it. */
static struct nl_msg *ntf_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 0, 42, 0, 0, cmd, 1);
	return msg;
}

static void test_events(void)
{
	struct p2pmap_event ev;
	struct nl_msg *msg;

	msg = ntf_msg(P2PMAP_CMD_DEV_ADD_NTF);
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	nla_put_string(msg, P2PMAP_A_DEV_DRIVER, "p2ptest");
	nla_put_u32(msg, 300, 1);	/* unknown: ignored */
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 0 &&
	       ev.cmd == P2PMAP_CMD_DEV_ADD_NTF &&
	       !strcmp(ev.dev.addr, "0000:00:10.0") &&
	       !strcmp(ev.dev.driver, "p2ptest"), "DEV_ADD_NTF");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_DEV_DEL_NTF);
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 0 &&
	       ev.cmd == P2PMAP_CMD_DEV_DEL_NTF &&
	       !strcmp(ev.dev.addr, "0000:00:10.0") && !ev.dev.driver[0],
	       "DEV_DEL_NTF");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_LINK_NTF);
	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, "0000:00:10.0");
	nla_put_string(msg, P2PMAP_A_LINK_TARGET, "0000:00:11.0");
	nla_put_u32(msg, P2PMAP_A_LINK_STATE, P2PMAP_LINK_PENDING);
	nla_put_string(msg, P2PMAP_A_LINK_REASON, "target unbound");
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 0 &&
	       ev.cmd == P2PMAP_CMD_LINK_NTF &&
	       !strcmp(ev.link.initiator, "0000:00:10.0") &&
	       !strcmp(ev.link.target, "0000:00:11.0") &&
	       ev.link.has_state && ev.link.state == P2PMAP_LINK_PENDING &&
	       !strcmp(ev.link.reason, "target unbound"), "LINK_NTF");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_LINK_DEL_NTF);
	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, "0000:00:10.0");
	nla_put_string(msg, P2PMAP_A_LINK_TARGET, "0000:00:11.0");
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 0 &&
	       ev.cmd == P2PMAP_CMD_LINK_DEL_NTF &&
	       !strcmp(ev.link.target, "0000:00:11.0"), "LINK_DEL_NTF");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_FAULT_NTF);
	nla_put_string(msg, P2PMAP_A_FAULT_INITIATOR, "0000:00:10.0");
	nla_put_string(msg, P2PMAP_A_FAULT_TARGET, "0000:00:11.0");
	nla_put_u64(msg, P2PMAP_A_FAULT_COUNT, 5);
	nla_put_u64(msg, P2PMAP_A_FAULT_NEW, 3);
	nla_put_u64(msg, P2PMAP_A_FAULT_LAST_ADDR, 0xfe500000);
	nla_put_u32(msg, P2PMAP_A_FAULT_LAST_FLAGS, P2PMAP_FAULT_F_WRITE);
	nla_put_u32(msg, P2PMAP_A_FAULT_SOURCES, P2PMAP_FAULT_SRC_DMAR);
	nla_put_u64(msg, 99, 1);	/* unknown: ignored */
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 0 &&
	       ev.cmd == P2PMAP_CMD_FAULT_NTF &&
	       !strcmp(ev.fault.initiator, "0000:00:10.0") &&
	       !strcmp(ev.fault.target, "0000:00:11.0") &&
	       ev.fault.f.has_count && ev.fault.f.count == 5 &&
	       ev.fault.has_new && ev.fault.new_faults == 3 &&
	       ev.fault.f.has_addr && ev.fault.f.last_addr == 0xfe500000 &&
	       ev.fault.f.has_flags &&
	       ev.fault.f.last_flags == P2PMAP_FAULT_F_WRITE &&
	       ev.fault.f.sources == P2PMAP_FAULT_SRC_DMAR, "FAULT_NTF");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_FAULT_NTF);
	nla_put_string(msg, P2PMAP_A_FAULT_INITIATOR, "0000:00:10.0");
	nla_put_u64(msg, P2PMAP_A_FAULT_COUNT, 1);
	nla_put_u64(msg, P2PMAP_A_FAULT_NEW, 1);
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 0 && !ev.fault.target[0] &&
	       !ev.fault.f.has_addr, "FAULT_NTF without target (other)");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_FAULT_NTF);
	nla_put_u64(msg, P2PMAP_A_FAULT_COUNT, 1);
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == -EINVAL,
	       "FAULT_NTF without initiator refused");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_LINK_NTF);
	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, "0000:00:10.0");
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == -EINVAL,
	       "LINK_NTF without target refused");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_MAX + 1);
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 1, "unknown event ignored");
	nlmsg_free(msg);

	msg = ntf_msg(P2PMAP_CMD_LINK_GET);
	tap_ok(event_parse(nlmsg_hdr(msg), &ev) == 1,
	       "a reply command is not an event");
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
	test_faults();
	test_info();
	test_events();
	test_error();
	return tap_done();
}
