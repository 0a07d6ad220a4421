// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/host/autolink.c: which tracked devices "p2pmap link auto"
 * links, the reason it gives for each one it skips, and the mesh.
 */
#include <stdlib.h>
#include <string.h>

#include "autolink.h"
#include "tap.h"

/* An admitted GPU in a DMA domain, with one memory BAR. */
static struct p2pmap_dev gpu(const char *addr, int node)
{
	struct p2pmap_dev d;

	memset(&d, 0, sizeof(d));
	snprintf(d.addr, sizeof(d.addr), "%s", addr);
	snprintf(d.driver, sizeof(d.driver), "nvidia");
	d.vendor = 0x10de;
	d.class = 0x030200;
	d.state = P2PMAP_DEV_BOUND;
	d.numa_node = node;
	d.iommu_group = 7;
	d.domain = P2PMAP_DOMAIN_DMA_FQ;
	d.nbars = 1;
	d.bars[0].size = 1 << 24;
	d.has_admitted = true;
	d.admitted = true;
	return d;
}

/* The plan as text: "skip ADDR: WHY" lines, then "A -> B add|exists". */
static char *plan_text(const struct autolink_plan *p)
{
	static char buf[8192];
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < p->nskips; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "skip %s: %s\n",
			      p->skips[i].addr, p->skips[i].why);
	for (i = 0; i < p->npairs; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s -> %s %s\n",
			      p->pairs[i].initiator, p->pairs[i].target,
			      p->pairs[i].exists ? "exists" : "add");
	return buf;
}

static void expect(const struct autolink_plan *p, size_t ncands, size_t nadd,
		   const char *want, const char *desc)
{
	const char *got = plan_text(p);

	if (!tap_ok(p->ncands == ncands && p->nadd == nadd &&
		    !strcmp(got, want), "%s", desc))
		printf("# %zu candidates, %zu to add; got:\n%s# want:\n%s",
		       p->ncands, p->nadd, got, want);
}

static void test_skips(void)
{
	struct p2pmap_dev d[9];
	struct autolink_filter none = { 0 };
	struct autolink_plan plan;

	d[0] = gpu("0000:41:00.0", 1);
	d[1] = gpu("0000:01:00.0", 0);
	d[2] = gpu("0000:02:00.0", 0);
	d[2].admitted = false;
	snprintf(d[2].admit_reason, sizeof(d[2].admit_reason),
		 "vendor 1af4 not in the vendor list");
	d[3] = gpu("0000:03:00.0", 0);
	d[3].iommu_group = -1;
	d[4] = gpu("0000:04:00.0", 0);
	d[4].domain = P2PMAP_DOMAIN_IDENTITY;
	d[5] = gpu("0000:05:00.0", 0);
	d[5].state = P2PMAP_DEV_OWNED;
	d[5].admitted = false;
	snprintf(d[5].driver, sizeof(d[5].driver), "vfio-pci");
	snprintf(d[5].admit_reason, sizeof(d[5].admit_reason),
		 "driver vfio-pci manages DMA itself");
	d[6] = gpu("0000:00:1f.2", 0);	/* no memory BAR: not mentioned */
	d[6].nbars = 0;
	d[6].admitted = false;
	d[7] = gpu("0000:06:00.0", 0);	/* an older module */
	d[7].has_admitted = false;
	d[7].admitted = false;
	d[8] = gpu("0000:07:00.0", 0);
	snprintf(d[8].driver, sizeof(d[8].driver), "nouveau");

	tap_ok(autolink_plan(d, 9, NULL, 0, &none, &plan) == 0,
	       "plan without filters");
	expect(&plan, 3, 6,
	       "skip 0000:02:00.0: not admitted: vendor 1af4 not in the vendor list\n"
	       "skip 0000:03:00.0: no IOMMU group\n"
	       "skip 0000:04:00.0: identity domain: peer DMA needs no mapping\n"
	       "skip 0000:05:00.0: owned by vfio-pci (manages DMA itself)\n"
	       "skip 0000:06:00.0: not admitted: the module reports no admission (too old?)\n"
	       "0000:01:00.0 -> 0000:07:00.0 add\n"
	       "0000:07:00.0 -> 0000:01:00.0 add\n"
	       "0000:01:00.0 -> 0000:41:00.0 add\n"
	       "0000:41:00.0 -> 0000:01:00.0 add\n"
	       "0000:07:00.0 -> 0000:41:00.0 add\n"
	       "0000:41:00.0 -> 0000:07:00.0 add\n",
	       "skips with reasons (sorted), BAR-less devices silent, full mesh");
	autolink_plan_free(&plan);
}

static void test_filters(void)
{
	struct p2pmap_dev d[4];
	struct p2pmap_link links[2];
	struct autolink_filter numa0 = { .has_numa = true, .numa = 0 };
	struct autolink_filter drv = { .driver = "nvidia" };
	struct autolink_filter both = { .has_numa = true, .numa = 1,
					.driver = "nvidia" };
	struct autolink_plan plan;

	d[0] = gpu("0000:01:00.0", 0);
	d[1] = gpu("0000:02:00.0", 0);
	d[2] = gpu("0000:41:00.0", 1);
	d[3] = gpu("0000:42:00.0", 1);
	snprintf(d[3].driver, sizeof(d[3].driver), "nouveau");
	memset(links, 0, sizeof(links));
	snprintf(links[0].initiator, sizeof(links[0].initiator), "0000:02:00.0");
	snprintf(links[0].target, sizeof(links[0].target), "0000:01:00.0");
	snprintf(links[1].initiator, sizeof(links[1].initiator), "0000:41:00.0");
	snprintf(links[1].target, sizeof(links[1].target), "0000:42:00.0");

	autolink_plan(d, 4, links, 2, &numa0, &plan);
	expect(&plan, 2, 1,
	       "skip 0000:41:00.0: on NUMA node 1, not 0\n"
	       "skip 0000:42:00.0: on NUMA node 1, not 0\n"
	       "0000:01:00.0 -> 0000:02:00.0 add\n"
	       "0000:02:00.0 -> 0000:01:00.0 exists\n",
	       "--numa 0: other nodes skipped, a configured link exists");
	autolink_plan_free(&plan);

	autolink_plan(d, 4, links, 2, &drv, &plan);
	expect(&plan, 3, 5,
	       "skip 0000:42:00.0: driver nouveau, not nvidia\n"
	       "0000:01:00.0 -> 0000:02:00.0 add\n"
	       "0000:02:00.0 -> 0000:01:00.0 exists\n"
	       "0000:01:00.0 -> 0000:41:00.0 add\n"
	       "0000:41:00.0 -> 0000:01:00.0 add\n"
	       "0000:02:00.0 -> 0000:41:00.0 add\n"
	       "0000:41:00.0 -> 0000:02:00.0 add\n",
	       "--driver nvidia: another driver skipped");
	autolink_plan_free(&plan);

	autolink_plan(d, 4, links, 2, &both, &plan);
	expect(&plan, 1, 0,
	       "skip 0000:01:00.0: on NUMA node 0, not 1\n"
	       "skip 0000:02:00.0: on NUMA node 0, not 1\n"
	       "skip 0000:42:00.0: driver nouveau, not nvidia\n",
	       "--numa 1 --driver nvidia: one candidate, no pairs");
	autolink_plan_free(&plan);

	autolink_plan(d, 0, NULL, 0, &drv, &plan);
	expect(&plan, 0, 0, "", "no devices: an empty plan");
	autolink_plan_free(&plan);
}

int main(void)
{
	test_skips();
	test_filters();
	return tap_done();
}
