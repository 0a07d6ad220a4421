// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the admission policy: the list grammar of
 * user/netlink/policy.c, the POLICY_GET and device ADMITTED parsers,
 * "p2pmap policy" text and JSON, and the admitted keys of "list --json".
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "format.h"
#include "format_json.h"
#include "json_check.h"
#include "policy.h"
#include "render.h"
#include "tap.h"

static void check_list(enum policy_list which, const char *s, bool valid,
		       const char *want_err)
{
	char err[P2PMAP_POLICY_LEN + 64] = "";
	int rc = policy_list_check(which, s, err, sizeof(err));

	if (!tap_ok((rc == 0) == valid &&
		    (!want_err || !strcmp(err, want_err)),
		    "%s \"%.40s\" is %s", policy_list_name(which), s,
		    valid ? "valid" : "refused"))
		printf("# rc %d, err \"%s\"\n", rc, err);
}

static void test_grammar(void)
{
	char longlist[P2PMAP_POLICY_LEN + 8];

	check_list(POLICY_DRIVERS, "nvidia", true, NULL);
	check_list(POLICY_DRIVERS, "nvidia,nouveau,p2p_test-2", true, NULL);
	check_list(POLICY_DRIVERS, "", true, NULL);
	check_list(POLICY_DRIVERS, "nvidia,", false, "\"\": empty item");
	check_list(POLICY_DRIVERS, ",nvidia", false, "\"\": empty item");
	check_list(POLICY_DRIVERS, "nvi dia", false,
		   "\"nvi dia\": a driver name is letters, digits, '_', '-' and '.'");
	/* What the module accepts (kmod/shared/param_grammar.c): a dot. */
	check_list(POLICY_DRIVERS, "nvidia.drm,vfio-pci", true, NULL);
	check_list(POLICY_DRIVERS, "nvidia;rm -rf", false, NULL);
	check_list(POLICY_VENDORS, "10de", true, NULL);
	check_list(POLICY_VENDORS, "10de,1002,8086,ABCD", true, NULL);
	check_list(POLICY_VENDORS, "10d", false,
		   "\"10d\": a vendor id is 4 hex digits");
	check_list(POLICY_VENDORS, "010de", false, NULL);
	check_list(POLICY_VENDORS, "0x10", false, "\"0x10\": not a hex number");
	check_list(POLICY_VENDORS, "10de,,1002", false, NULL);
	check_list(POLICY_CLASSES, "03", true, NULL);
	check_list(POLICY_CLASSES, "03,0302,030200", true, NULL);
	check_list(POLICY_CLASSES, "030", false,
		   "\"030\": a class is 2, 4 or 6 hex digits");
	check_list(POLICY_CLASSES, "03020000", false, NULL);
	check_list(POLICY_CLASSES, "0g", false, NULL);
	check_list(POLICY_NUMA_NODES, "0", true, NULL);
	check_list(POLICY_NUMA_NODES, "0,1,15", true, NULL);
	check_list(POLICY_NUMA_NODES, "", true, NULL);
	check_list(POLICY_NUMA_NODES, "-1", false,
		   "\"-1\": not a decimal number");
	check_list(POLICY_NUMA_NODES, "0x1", false, NULL);
	check_list(POLICY_NUMA_NODES, "1 ,2", false, NULL);
	memset(longlist, '0', sizeof(longlist) - 1);
	longlist[sizeof(longlist) - 1] = '\0';
	check_list(POLICY_NUMA_NODES, longlist, false,
		   "longer than 255 characters");
}

static struct nl_msg *genl_msg(void)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 0, 42, 0, 0, P2PMAP_CMD_POLICY_GET, 1);
	return msg;
}

static struct nlattr *attrs(struct nl_msg *msg, int *len)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	*len = genlmsg_attrlen(g, 0);
	return genlmsg_attrdata(g, 0);
}

static void test_parse(void)
{
	struct nl_msg *msg = genl_msg();
	struct p2pmap_policy p;
	struct p2pmap_dev d;
	struct nlattr *head;
	int len;

	nla_put_string(msg, P2PMAP_A_POLICY_DRIVERS, "nvidia,nouveau");
	nla_put_string(msg, P2PMAP_A_POLICY_VENDORS, "");
	nla_put_string(msg, P2PMAP_A_POLICY_NUMA_NODES, "0,1");
	nla_put_u32(msg, 77, 1);	/* unknown: ignored */
	head = attrs(msg, &len);
	tap_ok(policy_parse_attrs(head, len, &p) == 0 &&
	       p.has_drivers && !strcmp(p.drivers, "nvidia,nouveau") &&
	       p.has_vendors && !p.vendors[0] && !p.has_classes &&
	       p.has_numa_nodes && !strcmp(p.numa_nodes, "0,1"),
	       "policy reply parses; an absent list is not has_*");
	nlmsg_free(msg);

	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	nla_put_u32(msg, P2PMAP_A_DEV_ADMITTED, 0);
	nla_put_string(msg, P2PMAP_A_DEV_ADMIT_REASON,
		       "driver p2ptest not in the allowlist");
	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0 && d.has_admitted &&
	       !d.admitted &&
	       !strcmp(d.admit_reason, "driver p2ptest not in the allowlist"),
	       "dev: not admitted, with the reason");
	nlmsg_free(msg);

	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	nla_put_u32(msg, P2PMAP_A_DEV_ADMITTED, 1);
	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0 && d.has_admitted &&
	       d.admitted && !d.admit_reason[0], "dev: admitted");
	nlmsg_free(msg);

	msg = genl_msg();
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, "0000:00:10.0");
	head = attrs(msg, &len);
	tap_ok(dev_parse_attrs(head, len, &d) == 0 && !d.has_admitted &&
	       !d.admitted, "dev: an older module sends no ADMITTED");
	nlmsg_free(msg);
}

static void test_format(void)
{
	struct p2pmap_policy def = {
		.has_drivers = true, .drivers = "nvidia",
		.has_vendors = true, .has_classes = true,
		.has_numa_nodes = true,
	};
	struct p2pmap_policy set = {
		.drivers = "nvidia,nouveau", .vendors = "10de,1002",
		.classes = "03,0302", .numa_nodes = "0,1",
	};
	struct p2pmap_policy none = { .has_drivers = true };
	char *out = NULL;

	RENDER_CHECK("drivers: nvidia\nvendors: any\nclasses: any\nnuma nodes: any\n",
		     "policy text: the default", format_policy(f, &def));
	RENDER_CHECK("drivers: nvidia,nouveau\nvendors: 10de,1002\nclasses: 03,0302\nnuma nodes: 0,1\n",
		     "policy text: every filter set", format_policy(f, &set));
	RENDER_CHECK("drivers: none\nvendors: any\nclasses: any\nnuma nodes: any\n",
		     "policy text: an empty driver allowlist",
		     format_policy(f, &none));

	RENDER_CHECK("{\"schema\":1,\"drivers\":[\"nvidia\"],\"vendors\":[],\"classes\":[],\"numa_nodes\":[]}\n",
		     "policy --json: the default (empty list = any)",
		     json_policy(f, &def));
	RENDER_CHECK("{\"schema\":1,\"drivers\":[\"nvidia\",\"nouveau\"],\"vendors\":[\"10de\",\"1002\"],\"classes\":[\"03\",\"0302\"],\"numa_nodes\":[0,1]}\n",
		     "policy --json: lists as arrays, nodes as numbers",
		     json_policy(f, &set));
	RENDER(out, json_policy(f, &set));
	tap_ok(json_valid(out), "policy --json: valid JSON");
	free(out);
}

static void test_list_json(void)
{
	struct list_entry e[3] = {
		{ .addr = "0000:00:10.0", .tracked = LIST_TRACKED_YES,
		  .numa_node = -1, .iommu_group = -1,
		  .has_admitted = true, .admitted = true },
		{ .addr = "0000:00:11.0", .tracked = LIST_TRACKED_YES,
		  .numa_node = -1, .iommu_group = -1,
		  .has_admitted = true, .admitted = false,
		  .admit_reason = "bound to vfio-pci" },
		{ .addr = "0000:00:12.0", .tracked = LIST_TRACKED_NO,
		  .numa_node = -1, .iommu_group = -1 },
	};
	char *out = NULL;

	RENDER(out, json_list(f, e, 3));
	tap_ok(json_valid(out), "list --json with admission: valid JSON");
	tap_ok(strstr(out, "\"address\":\"0000:00:10.0\"") &&
	       strstr(out, "\"tracked\":true,\"admitted\":true,\"admit_reason\":null") &&
	       strstr(out, "\"admitted\":false,\"admit_reason\":\"bound to vfio-pci\"") &&
	       strstr(out, "\"tracked\":false,\"admitted\":null,\"admit_reason\":null"),
	       "list --json: admitted true|false|null, admit_reason");
	free(out);
}

int main(void)
{
	test_grammar();
	test_parse();
	test_format();
	test_list_json();
	return tap_done();
}
