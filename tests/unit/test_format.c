// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/output/format.c */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tap.h"

static void size(uint64_t bytes, const char *want)
{
	char buf[FORMAT_SIZE_LEN];

	format_size(buf, sizeof(buf), bytes);
	if (!tap_ok(!strcmp(buf, want), "size %llu is \"%s\"",
		    (unsigned long long)bytes, want))
		printf("# got \"%s\"\n", buf);
}

static void state(uint32_t s, const char *want)
{
	const char *got = format_link_state(s);

	if (!tap_ok(!strcmp(got, want), "state %u is \"%s\"", s, want))
		printf("# got \"%s\"\n", got);
}

/* Run @call with FILE *f on a memstream; compare what it wrote with @want. */
#define RENDER_CHECK(want, desc, call) do {				\
	char *buf_ = NULL;						\
	size_t len_ = 0;						\
	FILE *f = open_memstream(&buf_, &len_);				\
									\
	call;								\
	fclose(f);							\
	if (!tap_ok(!strcmp(buf_, (want)), "%s", (desc)))		\
		printf("# got:\n%s# want:\n%s", buf_, (want));		\
	free(buf_);							\
} while (0)

static void test_status(void)
{
	struct p2pmap_link links[2] = {
		{
			.initiator = "0000:00:03.0",
			.target = "0000:00:04.0",
			.state = P2PMAP_LINK_MAPPED,
			.has_state = true,
			.has_mapped_bytes = true,
			.mapped_bytes = 1 << 20,
			.nranges = 1,
			.ranges = {
				{ .bar = 0, .iova = 0xfe800000,
				  .size = 1 << 20, .pages = 1 },
			},
		},
		{
			.initiator = "0000:00:04.0",
			.target = "0000:00:03.0",
			.state = P2PMAP_LINK_PENDING,
			.has_state = true,
			.reason = "target unbound",
			.has_mapped_bytes = true,
			.mapped_bytes = 0,
		},
	};
	const char *want =
		"INITIATOR       TARGET        STATE    MAPPED     RANGES REASON\n"
		"0000:00:03.0 -> 0000:00:04.0  mapped   1.0 MiB    1      -\n"
		"    BAR0 iova 0x00000000fe800000 size 1.0 MiB pages 1\n"
		"0000:00:04.0 -> 0000:00:03.0  pending  0 B        0      target unbound\n";

	RENDER_CHECK(want, "status table", format_status(f, links, 2));
	RENDER_CHECK("no links configured\n", "status without links",
		     format_status(f, NULL, 0));
}

static void test_link_result(void)
{
	struct p2pmap_link l = {
		.initiator = "0000:00:03.0",
		.target = "0000:00:04.0",
		.state = P2PMAP_LINK_MAPPED,
		.has_state = true,
	};

	RENDER_CHECK("link 0000:00:03.0 -> 0000:00:04.0: mapped\n",
		     "link result without reason",
		     format_link_result(f, &l));
	l.state = P2PMAP_LINK_BLOCKED;
	strcpy(l.reason, "initiator owned by vfio-pci");
	RENDER_CHECK("link 0000:00:03.0 -> 0000:00:04.0: blocked (initiator owned by vfio-pci)\n",
		     "link result with reason",
		     format_link_result(f, &l));
}

static void test_list(void)
{
	struct list_entry e = {
		.addr = "0000:00:03.0",
		.vendor = 0x1234,
		.device = 0x11e8,
		.numa_node = -1,
		.iommu_group = 3,
		.group_type = "DMA-FQ",
		.driver = "p2ptest",
		.tracked = LIST_TRACKED_YES,
		.name = "QEMU Device",
		.nbars = 2,
		.bars = {
			{ .index = 0, .start = 0xfe800000, .size = 1 << 20,
			  .flags = P2PMAP_BAR_F_64BIT | P2PMAP_BAR_F_PREFETCH },
			{ .index = 2, .start = 0xfebf1000, .size = 4096 },
		},
	};
	const char *want =
		"ADDRESS       ID         NUMA GROUP  TYPE    DRIVER       TRACKED NAME\n"
		"0000:00:03.0  1234:11e8  -1   3      DMA-FQ  p2ptest      yes     QEMU Device\n"
		"    BAR0 0x00000000fe800000 1.0 MiB 64bit prefetch\n"
		"    BAR2 0x00000000febf1000 4.0 KiB\n"
		"0000:00:03.0  1234:11e8  -1   -      -       -            -       QEMU Device\n";

	RENDER_CHECK(want, "list table", ({
		format_list_header(f);
		format_list_entry(f, &e);
		e.iommu_group = -1;
		e.group_type[0] = '\0';
		e.driver[0] = '\0';
		e.tracked = LIST_TRACKED_UNKNOWN;
		e.nbars = 0;
		format_list_entry(f, &e);
	}));

	/* A tracked device: the policy's word after its BARs. */
	e.tracked = LIST_TRACKED_YES;
	e.has_admitted = true;
	e.admitted = false;
	snprintf(e.admit_reason, sizeof(e.admit_reason),
		 "driver p2ptest not in the allowlist");
	RENDER_CHECK("0000:00:03.0  1234:11e8  -1   -      -       -            yes     QEMU Device\n"
		     "    not admitted: driver p2ptest not in the allowlist\n"
		     "0000:00:03.0  1234:11e8  -1   -      -       -            yes     QEMU Device\n"
		     "    admitted\n",
		     "list: admission of a tracked device", ({
		format_list_entry(f, &e);
		e.admitted = true;
		e.admit_reason[0] = '\0';
		format_list_entry(f, &e);
	}));
}

int main(void)
{
	size(0, "0 B");
	size(512, "512 B");
	size(1023, "1023 B");
	size(1024, "1.0 KiB");
	size(4096, "4.0 KiB");
	size(1536, "1.5 KiB");
	size(1ULL << 20, "1.0 MiB");
	size((1ULL << 20) - 1, "1.0 MiB");
	size(256ULL << 20, "256.0 MiB");
	size(64ULL << 30, "64.0 GiB");
	size(1ULL << 40, "1.0 TiB");
	size(UINT64_MAX, "16.0 EiB");

	state(P2PMAP_LINK_PENDING, "pending");
	state(P2PMAP_LINK_MAPPED, "mapped");
	state(P2PMAP_LINK_NATIVE, "native");
	state(P2PMAP_LINK_BLOCKED, "blocked");
	state(P2PMAP_LINK_ERROR, "error");
	state(P2PMAP_LINK_ERROR + 1, "unknown");

	test_status();
	test_link_result();
	test_list();

	return tap_done();
}
