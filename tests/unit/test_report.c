// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/output/report.c (matrix cells, verdict),
 * user/cmd/check_run.c (check decisions) and the new text and JSON
 * formats of user/output/format.c and user/output/format_json.c.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bar_hit.h"
#include "format.h"
#include "format_json.h"
#include "json_check.h"
#include "report.h"
#include "check_run.h"
#include "render.h"
#include "tap.h"

#define A "0000:00:10.0"
#define B "0000:00:11.0"
#define C "0000:00:12.0"
#define D "0000:00:13.0"
#define T0 1700000000000000000ULL	/* 2023-11-14T22:13:20Z */

static struct p2pmap_link mklink(const char *i, const char *t, uint32_t state)
{
	struct p2pmap_link l;

	memset(&l, 0, sizeof(l));
	snprintf(l.initiator, sizeof(l.initiator), "%s", i);
	snprintf(l.target, sizeof(l.target), "%s", t);
	l.state = state;
	l.has_state = true;
	l.bar_mask = P2PMAP_BAR_MASK_ALL;
	l.has_mapped_bytes = true;
	return l;
}

static struct p2pmap_fault mkfault(uint64_t count, uint32_t sources)
{
	struct p2pmap_fault f = {
		.has_count = true, .count = count, .sources = sources,
	};

	return f;
}

static void mkdev(struct p2pmap_dev *d, const char *addr)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	d->faults = mkfault(0, 0);
	d->has_faults_other = true;
}

static void add_peer(struct p2pmap_dev *d, const char *target,
		     struct p2pmap_fault f)
{
	struct p2pmap_peer *p = &d->peers[d->npeers++];

	snprintf(p->target, sizeof(p->target), "%s", target);
	p->f = f;
}

/*
 * The fixture: A->B mapped; B->A mapped, but the pair faults (3 by the
 * link, 2 by B's PEER record: the larger wins; VT-d: a lower bound);
 * A->C pending; C->A error; C->B has no link and faults (PEER, exact);
 * D is tracked, in no link, without faults: not in the matrix.
 */
static struct p2pmap_link links[4];
static struct p2pmap_dev devs[4];

static void fixture(void)
{
	links[0] = mklink(A, B, P2PMAP_LINK_MAPPED);
	links[0].mapped_bytes = 1 << 20;
	links[0].faults = mkfault(0, 0);
	links[1] = mklink(B, A, P2PMAP_LINK_MAPPED);
	links[1].faults = mkfault(3, P2PMAP_FAULT_SRC_DMAR);
	links[1].faults.has_addr = true;
	links[1].faults.last_addr = 0xfe500000;
	links[1].faults.has_flags = true;
	links[1].faults.has_time = true;
	links[1].faults.last_time = T0;
	links[2] = mklink(A, C, P2PMAP_LINK_PENDING);
	snprintf(links[2].reason, sizeof(links[2].reason), "target unbound");
	links[3] = mklink(C, A, P2PMAP_LINK_ERROR);
	snprintf(links[3].reason, sizeof(links[3].reason),
		 "target BAR0 overlaps an IOVA");

	mkdev(&devs[0], A);
	mkdev(&devs[1], B);
	devs[1].faults = mkfault(2, P2PMAP_FAULT_SRC_DMAR);
	add_peer(&devs[1], A, mkfault(2, P2PMAP_FAULT_SRC_DMAR));
	mkdev(&devs[2], C);
	devs[2].faults = mkfault(5, P2PMAP_FAULT_SRC_TRACEPOINT);
	devs[2].faults.has_addr = true;
	devs[2].faults.last_addr = 0xfe600008;
	devs[2].faults.has_flags = true;
	devs[2].faults.last_flags = P2PMAP_FAULT_F_WRITE;
	devs[2].faults.has_time = true;
	devs[2].faults.last_time = T0 + 1000000000ULL;
	devs[2].faults_other = 1;
	add_peer(&devs[2], B, devs[2].faults);
	devs[2].peers[0].f.count = 4;
	mkdev(&devs[3], D);
}

static void test_cell_rule(void)
{
	struct p2pmap_link l = mklink(A, B, P2PMAP_LINK_MAPPED);
	static const struct {
		uint32_t state;
		const char *code;
	} states[] = {
		{ P2PMAP_LINK_MAPPED, "OK" },
		{ P2PMAP_LINK_NATIVE, "NAT" },
		{ P2PMAP_LINK_PENDING, "PND" },
		{ P2PMAP_LINK_BLOCKED, "BLK" },
		{ P2PMAP_LINK_ERROR, "ERR" },
		{ 99, "?" },
	};
	size_t i;

	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		l.state = states[i].state;
		tap_ok(!strcmp(p2p_cell_code(p2p_cell_rule(false, &l, 0)),
			       states[i].code),
		       "cell: link state %u is %s", states[i].state,
		       states[i].code);
		tap_ok(p2p_cell_rule(false, &l, 1) == P2P_CELL_FAULT,
		       "cell: faults override %s", states[i].code);
	}
	l.state = P2PMAP_LINK_MAPPED;
	tap_ok(p2p_cell_rule(true, &l, 7) == P2P_CELL_SELF &&
	       !strcmp(p2p_cell_code(P2P_CELL_SELF), "X"), "cell: self is X");
	tap_ok(p2p_cell_rule(false, NULL, 0) == P2P_CELL_NONE &&
	       !strcmp(p2p_cell_code(P2P_CELL_NONE), "--"),
	       "cell: no link is --");
	tap_ok(p2p_cell_rule(false, NULL, 2) == P2P_CELL_FAULT &&
	       !strcmp(p2p_cell_code(P2P_CELL_FAULT), "FLT"),
	       "cell: faults without a link are FLT");
	l.has_state = false;
	tap_ok(p2p_cell_rule(false, &l, 0) == P2P_CELL_UNKNOWN,
	       "cell: a link without state is ?");
}

static void test_report(void)
{
	static const enum p2p_cell want[3][3] = {
		{ P2P_CELL_SELF, P2P_CELL_OK, P2P_CELL_PENDING },
		{ P2P_CELL_FAULT, P2P_CELL_SELF, P2P_CELL_NONE },
		{ P2P_CELL_ERROR, P2P_CELL_FAULT, P2P_CELL_SELF },
	};
	const struct pair_fault *pf;
	struct p2p_report r;
	bool cells = true;
	size_t i, k;

	fixture();
	tap_ok(report_build(&r, NULL, devs, 4, links, 4) == 0, "report builds");
	tap_ok(r.ndevs == 3 && !strcmp(r.devs[0], A) &&
	       !strcmp(r.devs[1], B) && !strcmp(r.devs[2], C),
	       "matrix: devices of links and faulting pairs, sorted");
	for (i = 0; i < 3; i++)
		for (k = 0; k < 3; k++)
			if (report_cell(&r, i, k) != want[i][k]) {
				printf("# cell %zu,%zu is %s\n", i, k,
				       p2p_cell_code(report_cell(&r, i, k)));
				cells = false;
			}
	tap_ok(cells, "matrix cells (FLT over OK, -- without link, X self)");
	pf = report_pair(&r, B, A);
	tap_ok(r.npairs == 2 && pf && pf->f.count == 3 && pf->configured &&
	       fault_lower_bound(&pf->f) && pf->f.has_addr,
	       "pair B->A: the larger of link and PEER counts, lower bound");
	pf = report_pair(&r, C, B);
	tap_ok(pf && pf->f.count == 4 && !pf->configured &&
	       !fault_lower_bound(&pf->f), "pair C->B: PEER only, exact");
	tap_ok(!report_pair(&r, A, B), "pair A->B: no faults, no record");
	tap_ok(r.lower_bound, "report knows a count is a lower bound");
	tap_ok(!r.ok && !strcmp(r.verdict,
		"PROBLEM, faulting: " B " -> " A ", " C " -> " B
		"; error: " C " -> " A "; pending: " A " -> " C),
	       "verdict names faulting, error and pending directions");
	report_free(&r);
}

static void test_verdict(void)
{
	struct p2pmap_link l[3] = {
		mklink(A, B, P2PMAP_LINK_MAPPED),
		mklink(B, A, P2PMAP_LINK_MAPPED),
		mklink(A, C, P2PMAP_LINK_NATIVE),
	};
	struct p2pmap_dev d[3];
	struct p2p_report r;

	mkdev(&d[0], A);
	mkdev(&d[1], B);
	mkdev(&d[2], C);
	report_build(&r, NULL, d, 3, l, 2);
	tap_ok(r.ok && !strcmp(r.verdict,
	       "OK, all 2 configured directions mapped, no faults"),
	       "verdict OK");
	report_free(&r);
	report_build(&r, NULL, d, 3, l, 1);
	tap_ok(r.ok && !strcmp(r.verdict,
	       "OK, all 1 configured direction mapped, no faults"),
	       "verdict OK, one direction");
	report_free(&r);
	report_build(&r, NULL, d, 3, l, 3);
	tap_ok(r.ok && !strcmp(r.verdict,
	       "OK, all 3 configured directions mapped (1 native), no faults"),
	       "verdict OK with a native direction");
	report_free(&r);

	/* Faults on a pair without a link still make a problem. */
	add_peer(&d[2], B, mkfault(1, P2PMAP_FAULT_SRC_TRACEPOINT));
	report_build(&r, NULL, d, 3, l, 2);
	tap_ok(!r.ok && r.ndevs == 3 &&
	       !strcmp(r.verdict, "PROBLEM, faulting: " C " -> " B),
	       "verdict PROBLEM for faults outside the links");
	report_free(&r);

	l[1].state = P2PMAP_LINK_BLOCKED;
	report_build(&r, NULL, d, 2, l, 2);
	tap_ok(!r.ok && !strcmp(r.verdict, "PROBLEM, blocked: " B " -> " A),
	       "verdict PROBLEM for a blocked link");
	report_free(&r);

	/* No links, no faults: no matrix. */
	report_build(&r, NULL, d, 2, l, 0);
	tap_ok(!r.ndevs && !r.ok, "no links, no faults: no matrix");
	RENDER_CHECK("", "no matrix printed", format_report(f, &r));
	report_free(&r);

	/* No links, but faults: a matrix of the faulting devices. */
	report_build(&r, NULL, d, 3, l, 0);
	tap_ok(r.ndevs == 2 && !r.ok && !strcmp(r.verdict,
	       "PROBLEM, no links configured; faulting: " C " -> " B),
	       "no links, but faults: matrix and PROBLEM");
	report_free(&r);
}

static void test_format_report(void)
{
	struct p2p_report r;
	const char *want =
		"P2P matrix (rows: initiator, columns: target)\n"
		"         00:10.0  00:11.0  00:12.0\n"
		"00:10.0  X        OK       PND\n"
		"00:11.0  FLT      X        --\n"
		"00:12.0  ERR      FLT      X\n"
		"00:10.0 = " A "\n"
		"00:11.0 = " B "\n"
		"00:12.0 = " C "\n"
		"legend: X self, OK mapped by p2pmap, NAT native (initiator untranslated), "
		"PND pending, BLK blocked, ERR error, FLT faulting, -- no link\n"
		"legend: >=N lower bound: VT-d rate-limits its fault log\n"
		"faults: " B " -> " A "  >=3  (last 0xfe500000 read, 2023-11-14T22:13:20+00:00)\n"
		"faults: " C " -> " B "  4  (last 0xfe600008 write, 2023-11-14T22:13:21+00:00)\n"
		"verdict: PROBLEM, faulting: " B " -> " A ", " C " -> " B
		"; error: " C " -> " A "; pending: " A " -> " C "\n";

	fixture();
	report_build(&r, NULL, devs, 4, links, 4);
	RENDER_CHECK(want, "status: matrix, legend, faults, verdict",
		     format_report(f, &r));
	report_free(&r);

	/*
	 * Every device of the matrix on nvidia: nvidia-smi's indexes, which
	 * count all of the driver's GPUs in PCI order (01:00.0, in no link,
	 * is GPU0); one device on another driver: short addresses.
	 */
	{
		struct p2pmap_dev g[3];
		struct p2pmap_link gl = mklink("0000:41:00.0", "0000:81:00.0",
					       P2PMAP_LINK_MAPPED);
		const char *tail =
			"legend: X self, OK mapped by p2pmap, NAT native (initiator untranslated), "
			"PND pending, BLK blocked, ERR error, FLT faulting, -- no link\n"
			"verdict: OK, all 1 configured direction mapped, no faults\n";
		char want2[1024];

		mkdev(&g[0], "0000:01:00.0");
		mkdev(&g[1], "0000:41:00.0");
		mkdev(&g[2], "0000:81:00.0");
		for (size_t i = 0; i < 3; i++)
			snprintf(g[i].driver, sizeof(g[i].driver), "nvidia");
		gl.faults = mkfault(0, 0);
		report_build(&r, NULL, g, 3, &gl, 1);
		snprintf(want2, sizeof(want2),
			 "P2P matrix (rows: initiator, columns: target)\n"
			 "      GPU1  GPU2\n"
			 "GPU1  X     OK\n"
			 "GPU2  --    X\n"
			 "GPU1 = 0000:41:00.0\n"
			 "GPU2 = 0000:81:00.0\n%s", tail);
		RENDER_CHECK(want2, "status: nvidia GPUs labelled as nvidia-smi numbers them",
			     format_report(f, &r));
		report_free(&r);

		snprintf(g[2].driver, sizeof(g[2].driver), "vfio-pci");
		report_build(&r, NULL, g, 3, &gl, 1);
		snprintf(want2, sizeof(want2),
			 "P2P matrix (rows: initiator, columns: target)\n"
			 "         41:00.0  81:00.0\n"
			 "41:00.0  X        OK\n"
			 "81:00.0  --       X\n"
			 "41:00.0 = 0000:41:00.0\n"
			 "81:00.0 = 0000:81:00.0\n%s", tail);
		RENDER_CHECK(want2, "status: a device not on nvidia: short PCI addresses",
			     format_report(f, &r));
		report_free(&r);
	}
}

static void test_check(void)
{
	struct p2pmap_link l[2] = {
		mklink(A, B, P2PMAP_LINK_MAPPED),
		mklink(B, A, P2PMAP_LINK_NATIVE),
	};
	struct p2pmap_dev d[2];
	char *out = NULL;
	int n;

	mkdev(&d[0], A);
	mkdev(&d[1], B);
	RENDER(out, n = check_run(f, NULL, d, 2, l, 2, 0));
	tap_ok(n == 0 && !strcmp(out, "check: OK\n"),
	       "check: mapped and native links pass");
	free(out);

	d[0].faults_other = 2;
	d[0].faults.sources = P2PMAP_FAULT_SRC_DMAR;
	RENDER(out, n = check_run(f, NULL, d, 2, l, 2, 0));
	tap_ok(n == 0 && !strcmp(out,
	       "warning: " A " has >=2 faults outside tracked BARs\n"
	       "check: OK\n"), "check: other faults warn but pass");
	free(out);

	add_peer(&d[1], A, mkfault(1, P2PMAP_FAULT_SRC_TRACEPOINT));
	RENDER(out, n = check_run(f, NULL, d, 2, l, 2, 0));
	if (!tap_ok(n == 1 && !strcmp(out,
		    "faults: " B " -> " A "  1\n"
		    "warning: " A " has >=2 faults outside tracked BARs\n"
		    "check: FAILED (1 problem)\n"),
		    "check: faults on a configured link fail"))
		printf("# got:\n%s", out);
	free(out);

	fixture();
	RENDER(out, n = check_run(f, NULL, devs, 4, links, 4, 0));
	if (!tap_ok(n == 4 && !strcmp(out,
		    "link " A " -> " C ": pending (target unbound)\n"
		    "link " C " -> " A ": error (target BAR0 overlaps an IOVA)\n"
		    "faults: " B " -> " A "  >=3  (last 0xfe500000 read, 2023-11-14T22:13:20+00:00)\n"
		    "faults: " C " -> " B "  4  (last 0xfe600008 write, 2023-11-14T22:13:21+00:00)\n"
		    "warning: " C " has 1 fault outside tracked BARs\n"
		    "check: FAILED (4 problems)\n"),
		    "check: a line per problem, faults on unconfigured pairs too"))
		printf("# got:\n%s", out);
	free(out);

	RENDER(out, n = check_run(f, NULL, devs, 4, links, 0, 0));
	tap_ok(n < 0 && !strcmp(out, "check: FAILED (no links configured)\n"),
	       "check: no links fail");
	free(out);
}

/* Module parameters skipped at load: a problem for status and check. */
static void test_param_errors(void)
{
	struct p2pmap_link l[1] = { mklink(A, B, P2PMAP_LINK_MAPPED) };
	struct p2pmap_info info = { .has_param_errors = true, .param_errors = 2 };
	struct p2pmap_dev d[2];
	struct p2p_report r;
	char *out = NULL;
	int n;

	strcpy(info.param_error, "links: \"0000:00:0g.0>x\" skipped: bad");
	mkdev(&d[0], A);
	mkdev(&d[1], B);
	report_build(&r, &info, d, 2, l, 1);
	if (!tap_ok(!r.ok && !strcmp(r.verdict,
		    "PROBLEM, module parameters: 2 parts skipped at load (first: links: \"0000:00:0g.0>x\" skipped: bad)"),
		    "verdict: parameters skipped at load are a PROBLEM"))
		printf("# got: %s\n", r.verdict);
	report_free(&r);
	RENDER(out, n = check_run(f, &info, d, 2, l, 1, 0));
	if (!tap_ok(n == 1 && !strcmp(out,
		    "module parameters: 2 parts skipped at load, see dmesg (first: links: \"0000:00:0g.0>x\" skipped: bad)\n"
		    "check: FAILED (1 problem)\n"),
		    "check: parameters skipped at load fail the check"))
		printf("# got:\n%s", out);
	free(out);
	report_build(&r, &info, d, 0, l, 0);
	RENDER(out, format_report(f, &r));
	tap_ok(!strncmp(out, "verdict: PROBLEM, module parameters: 2 parts", 44),
	       "status: no link, but a parameter problem: the verdict is shown");
	free(out);
	report_free(&r);
	info.param_errors = 0;
	RENDER(out, n = check_run(f, &info, d, 2, l, 1, 0));
	tap_ok(n == 0 && !strcmp(out, "check: OK\n"),
	       "check: no parameter problem, no failure");
	free(out);
}

static void test_lower_bound(void)
{
	char buf[FORMAT_COUNT_LEN], src[64];
	struct p2pmap_event ev;

	tap_ok(!strcmp(format_count(buf, sizeof(buf), 5,
				    P2PMAP_FAULT_SRC_DMAR), ">=5"),
	       "count from dmar is >=5");
	tap_ok(!strcmp(format_count(buf, sizeof(buf), 5,
				    P2PMAP_FAULT_SRC_TRACEPOINT), "5"),
	       "count from the tracepoint is exact");
	tap_ok(!strcmp(format_count(buf, sizeof(buf), 5,
				    P2PMAP_FAULT_SRC_TRACEPOINT |
				    P2PMAP_FAULT_SRC_DMAR), ">=5"),
	       "count from both sources is a lower bound");
	tap_ok(!strcmp(format_count(buf, sizeof(buf), 0, 0), "0"),
	       "count without sources");
	tap_ok(!strcmp(format_count(buf, sizeof(buf), 5,
				    P2PMAP_FAULT_SRC_AMDVI_LOG), ">=5"),
	       "count from the AMD-Vi log alone is a lower bound");
	tap_ok(!strcmp(format_count(buf, sizeof(buf), 5,
				    P2PMAP_FAULT_SRC_TRACEPOINT |
				    P2PMAP_FAULT_SRC_AMDVI_LOG), "5"),
	       "count from the tracepoint and the AMD-Vi log is exact");
	tap_ok(!strcmp(format_fault_sources(src, sizeof(src),
					    P2PMAP_FAULT_SRC_AMDVI_LOG),
		       "amdvi-log (lower bound)") &&
	       !strcmp(format_fault_sources(src, sizeof(src),
					    P2PMAP_FAULT_SRC_TRACEPOINT |
					    P2PMAP_FAULT_SRC_AMDVI_LOG),
		       "tracepoint, amdvi-log"),
	       "sources: amdvi-log, a lower bound only without the tracepoint");

	memset(&ev, 0, sizeof(ev));
	ev.cmd = P2PMAP_CMD_FAULT_NTF;
	strcpy(ev.fault.initiator, A);
	ev.fault.new_faults = 3;
	ev.fault.has_new = true;
	ev.fault.f = mkfault(5, P2PMAP_FAULT_SRC_DMAR);
	RENDER_CHECK("fault " A " -> other new=3 total=>=5\n",
		     "event: lower-bound total", format_event(f, &ev));
}

static void test_faults_table(void)
{
	struct bar_hit hit;
	const char *want =
		"DEVICE        FAULTS   OTHER    LAST ADDRESS       ACCESS LAST TIME                 HIT\n"
		A "  0        0        -                  -      -\n"
		B "  >=2      >=0      -                  -      -\n"
		C "  5        1        0xfe600008         write  2023-11-14T22:13:21+00:00\n"
		D "  0        0        -                  -      -\n"
		"\n"
		"PAIR                          FAULTS   LAST ADDRESS       ACCESS LAST TIME                 HIT\n"
		B " -> " A " >=2      -                  -      -\n"
		C " -> " B " 4        0xfe600008         write  2023-11-14T22:13:21+00:00\n";

	fixture();
	RENDER_CHECK(want, "faults table: devices, then pairs",
		     format_faults(f, devs, 4));
	RENDER_CHECK("no devices tracked\n", "faults without devices",
		     format_faults(f, devs, 0));

	/* The address in B's BAR0, an NVIDIA GPU's: what it hit, named. */
	devs[1].vendor = 0x10de;
	devs[1].nbars = 2;
	devs[1].bars[0] = (struct p2pmap_bar){ .index = 0,
					       .start = 0xfe600000,
					       .size = 0x1000000 };
	devs[1].bars[1] = (struct p2pmap_bar){ .index = 1,
					       .start = 0x6000000000,
					       .size = 0x800000000 };
	RENDER_CHECK("DEVICE        FAULTS   OTHER    LAST ADDRESS       ACCESS LAST TIME                 HIT\n"
		     A "  0        0        -                  -      -\n"
		     B "  >=2      >=0      -                  -      -\n"
		     C "  5        1        0xfe600008         write  2023-11-14T22:13:21+00:00 " B " BAR0+0x8 (registers/mailbox)\n"
		     D "  0        0        -                  -      -\n"
		     "\n"
		     "PAIR                          FAULTS   LAST ADDRESS       ACCESS LAST TIME                 HIT\n"
		     B " -> " A " >=2      -                  -      -\n"
		     C " -> " B " 4        0xfe600008         write  2023-11-14T22:13:21+00:00 " B " BAR0+0x8 (registers/mailbox)\n",
		     "faults table: an address in an NVIDIA GPU's BAR0: the device, BAR, offset and role",
		     format_faults(f, devs, 4));
	devs[1].vendor = 0;
	tap_ok(bar_hit_find(devs, 4, 0x6000001000ULL, &hit) &&
	       hit.dev == &devs[1] && hit.bar == 1 && hit.offset == 0x1000 &&
	       !bar_hit_role(&hit) &&
	       !bar_hit_find(devs, 4, 0x6800000000ULL, &hit) &&
	       !bar_hit_find(devs, 4, 0xfe5fffffULL, &hit),
	       "bar_hit: inside BAR1, no role for another vendor; one past the end and one before the start hit nothing");
	devs[1].nbars = 0;
	devs[0].faults.has_count = false;
	devs[0].has_faults_other = false;
	RENDER_CHECK("DEVICE        FAULTS   OTHER    LAST ADDRESS       ACCESS LAST TIME                 HIT\n"
		     A "  -        -        -                  -      -\n",
		     "faults of an older module: -, no pair section",
		     format_faults(f, devs, 1));
}

static void test_events(void)
{
	struct p2pmap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.cmd = P2PMAP_CMD_DEV_ADD_NTF;
	strcpy(ev.dev.addr, A);
	strcpy(ev.dev.driver, "p2ptest");
	RENDER_CHECK("dev-add " A " driver=p2ptest\n", "event dev-add",
		     format_event(f, &ev));
	ev.dev.driver[0] = '\0';
	RENDER_CHECK("dev-add " A "\n", "event dev-add, unbound",
		     format_event(f, &ev));
	ev.cmd = P2PMAP_CMD_DEV_DEL_NTF;
	RENDER_CHECK("dev-del " A "\n", "event dev-del", format_event(f, &ev));

	ev.cmd = P2PMAP_CMD_LINK_NTF;
	ev.link = mklink(A, B, P2PMAP_LINK_MAPPED);
	RENDER_CHECK("link " A " -> " B " mapped\n", "event link",
		     format_event(f, &ev));
	ev.link.state = P2PMAP_LINK_PENDING;
	strcpy(ev.link.reason, "target unbound");
	RENDER_CHECK("link " A " -> " B " pending (target unbound)\n",
		     "event link with reason", format_event(f, &ev));
	ev.cmd = P2PMAP_CMD_LINK_DEL_NTF;
	RENDER_CHECK("link-del " A " -> " B "\n", "event link-del",
		     format_event(f, &ev));

	ev.cmd = P2PMAP_CMD_FAULT_NTF;
	strcpy(ev.fault.initiator, A);
	strcpy(ev.fault.target, B);
	ev.fault.new_faults = 3;
	ev.fault.f = mkfault(5, P2PMAP_FAULT_SRC_TRACEPOINT);
	ev.fault.f.has_flags = true;
	RENDER_CHECK("fault " A " -> " B " new=3 total=5 read\n",
		     "event fault: its access, no address (events carry none)",
		     format_event(f, &ev));
	ev.fault.f.has_addr = true;
	ev.fault.f.last_addr = 0xfe500000;
	RENDER_CHECK("fault " A " -> " B " new=3 total=5 addr=0xfe500000 read\n",
		     "event fault", format_event(f, &ev));
	ev.fault.f.last_flags = P2PMAP_FAULT_F_WRITE;
	RENDER_CHECK("fault " A " -> " B " new=3 total=5 addr=0xfe500000 write\n",
		     "event fault, write", format_event(f, &ev));

	ev.cmd = 200;
	RENDER_CHECK("", "unknown event not printed",
		     tap_ok(!format_event(f, &ev), "format_event: unknown"));
}

static void test_info(void)
{
	struct p2pmap_info info = {
		.version = "0.2.0",
		.has_fault_sources = true,
		.fault_sources = P2PMAP_FAULT_SRC_TRACEPOINT |
				 P2PMAP_FAULT_SRC_DMAR,
		.has_generation = true,
		.generation = 12,
	};

	RENDER_CHECK("version: 0.2.0\n"
		     "fault sources: tracepoint, dmar (lower bound)\n"
		     "generation: 12\n", "info", format_info(f, &info));
	info.fault_sources = 0;
	info.has_generation = false;
	RENDER_CHECK("version: 0.2.0\nfault sources: none\ngeneration: -\n",
		     "info without sources", format_info(f, &info));
}

/* Valid JSON, by our validator and python's. */
static void json_ok(const char *doc, const char *desc)
{
	int py = json_python_parses(doc);

	if (!tap_ok(json_valid(doc), "%s: valid JSON", desc))
		printf("# %s", doc);
	if (py < 0)
		tap_ok(true, "# SKIP python3 not found: %s", desc);
	else
		tap_ok(py, "%s: python json.load parses it", desc);
}

/* Python prints a fact of @doc; compare it with @want. */
static void json_fact(const char *doc, const char *expr, const char *want,
		      const char *desc)
{
	char script[1024], got[1024];
	int rc;

	snprintf(script, sizeof(script),
		 "import json,sys; d=json.load(sys.stdin); print(%s)", expr);
	rc = json_python(doc, script, got, sizeof(got));
	if (rc < 0) {
		tap_ok(true, "# SKIP python3 not found: %s", desc);
		return;
	}
	if (!tap_ok(rc == 0 && !strcmp(got, want), "%s", desc))
		printf("# got %s\n# want %s\n", got, want);
}

static void test_json(void)
{
	struct list_entry e = {
		.addr = A, .vendor = 0x1234, .device = 0x11e8,
		.numa_node = -1, .iommu_group = 3, .group_type = "DMA-FQ",
		.driver = "p2p\"test\\", .tracked = LIST_TRACKED_YES,
		.name = "QEMU \x01 Device", .nbars = 1,
		.bars = { { .index = 0, .start = 0xfe800000, .size = 1 << 20,
			    .flags = P2PMAP_BAR_F_64BIT | P2PMAP_BAR_F_PREFETCH } },
	};
	struct p2pmap_info info = {
		.version = "0.2.0", .has_fault_sources = true,
		.fault_sources = P2PMAP_FAULT_SRC_DMAR,
	};
	struct p2pmap_event ev;
	struct p2p_report r;
	char *out = NULL, cells[1024];
	size_t n = 0, i, k;

	RENDER(out, json_list(f, &e, 1));
	json_ok(out, "list --json");
	json_fact(out, "[(x[\"address\"], x[\"vendor\"], x[\"device\"], x[\"driver\"], x[\"name\"], x[\"numa_node\"], x[\"iommu_group\"], x[\"tracked\"], x[\"bars\"]) for x in d[\"devices\"]]",
		  "[('0000:00:10.0', '1234', '11e8', 'p2p\"test\\\\', 'QEMU \\x01 Device', None, 3, True, [{'index': 0, 'start': '0xfe800000', 'size': 1048576, 'flags': ['64bit', 'prefetch']}])]",
		  "list --json: the facts of the text");
	free(out);

	fixture();
	report_build(&r, NULL, devs, 4, links, 4);
	RENDER(out, json_status(f, links, 4, &r));
	json_ok(out, "status --json");
	/* The cells of the text matrix, in the same order, by name. */
	for (i = 0; i < r.ndevs; i++)
		for (k = 0; k < r.ndevs; k++)
			n += snprintf(cells + n, sizeof(cells) - n, "%s%s->%s=%s",
				      n ? " " : "", r.devs[i], r.devs[k],
				      p2p_cell_name(report_cell(&r, i, k)));
	json_fact(out, "\" \".join(a + \"=\" + b for a, b in d[\"matrix\"][\"cells\"].items())",
		  cells, "status --json: the matrix cells of the text");
	tap_ok(strstr(out, "\"cells\":{\"" A "->" A "\":\"self\",\"" A "->" B "\":\"mapped\",") != NULL,
	       "status --json: cells by name (X is self, OK mapped)");
	json_fact(out, "[(l[\"initiator\"][-4:], l[\"target\"][-4:], l[\"state\"], l[\"reason\"], l[\"faults\"], l[\"faults_lower_bound\"]) for l in d[\"links\"]]",
		  "[('10.0', '11.0', 'mapped', None, 0, False), ('11.0', '10.0', 'mapped', None, 3, True), "
		  "('10.0', '12.0', 'pending', 'target unbound', 0, False), ('12.0', '10.0', 'error', 'target BAR0 overlaps an IOVA', 0, False)]",
		  "status --json: links with state, reason, pair faults");
	json_fact(out, "[(p[\"initiator\"][-4:], p[\"target\"][-4:], p[\"faults\"], p[\"lower_bound\"], p[\"configured\"], p[\"last_addr\"], p[\"last_write\"], p[\"last_time\"]) for p in d[\"pair_faults\"]]",
		  "[('11.0', '10.0', 3, True, True, '0xfe500000', False, '2023-11-14T22:13:20+00:00'), "
		  "('12.0', '11.0', 4, False, False, '0xfe600008', True, '2023-11-14T22:13:21+00:00')]",
		  "status --json: the fault lines of the text");
	json_fact(out, "(d[\"verdict\"][\"ok\"], \"verdict: \" + d[\"verdict\"][\"text\"], d[\"matrix\"][\"faults_lower_bound\"], d[\"links\"][0][\"mapped_bytes\"], d[\"links\"][0][\"bar_mask\"])",
		  "(False, 'verdict: PROBLEM, faulting: 0000:00:11.0 -> 0000:00:10.0, 0000:00:12.0 -> 0000:00:11.0; error: 0000:00:12.0 -> 0000:00:10.0; pending: 0000:00:10.0 -> 0000:00:12.0', True, 1048576, 63)",
		  "status --json: the verdict of the text");
	free(out);
	report_free(&r);

	report_build(&r, NULL, devs, 0, links, 0);
	RENDER(out, json_status(f, links, 0, &r));
	tap_ok(!strcmp(out, "{\"schema\":1,\"links\":[],\"pair_faults\":[],\"matrix\":null,\"verdict\":null}\n"),
	       "status --json without links");
	free(out);
	report_free(&r);

	RENDER(out, json_faults(f, devs, 4));
	json_ok(out, "faults --json");
	json_fact(out, "[(x[\"address\"][-4:], x[\"faults\"], x[\"other\"], x[\"lower_bound\"], x[\"last_addr\"], x[\"last_write\"], x[\"last_time\"], x[\"last_time_ns\"], [(p[\"target\"][-4:], p[\"faults\"], p[\"lower_bound\"]) for p in x[\"peers\"]]) for x in d[\"devices\"]]",
		  "[('10.0', 0, 0, False, None, None, None, None, []), "
		  "('11.0', 2, 0, True, None, None, None, None, [('10.0', 2, True)]), "
		  "('12.0', 5, 1, False, '0xfe600008', True, '2023-11-14T22:13:21+00:00', 1700000001000000000, [('11.0', 4, False)]), "
		  "('13.0', 0, 0, False, None, None, None, None, [])]",
		  "faults --json: the facts of the table");
	free(out);

	RENDER(out, json_info(f, &info));
	json_ok(out, "info --json");
	tap_ok(!strcmp(out, "{\"schema\":1,\"version\":\"0.2.0\",\"fault_sources\":[\"dmar\"],\"faults_lower_bound\":true,\"generation\":null,\"ranges_reserved\":null,\"unmap_short\":null,\"windows_reserved_bytes\":null,\"param_errors\":null,\"param_error\":null,\"fault_log_dropped\":null,\"fault_log_off\":null,\"sme\":null}\n"),
	       "info --json");
	info.has_sme = true;
	info.sme = P2PMAP_SME_REFUSED;
	strcpy(info.fault_log_off, "printk calls trace_console_rcuidle()");
	free(out);
	RENDER(out, json_info(f, &info));
	json_fact(out, "(d[\"sme\"], d[\"fault_log_off\"])",
		  "('refused', 'printk calls trace_console_rcuidle()')",
		  "info --json: sme and fault_log_off");
	free(out);

	memset(&ev, 0, sizeof(ev));
	ev.cmd = P2PMAP_CMD_FAULT_NTF;
	strcpy(ev.fault.initiator, A);
	ev.fault.new_faults = 3;
	ev.fault.f = mkfault(5, P2PMAP_FAULT_SRC_DMAR);
	ev.fault.f.has_addr = true;
	ev.fault.f.last_addr = 0xfe500000;
	RENDER(out, json_event(f, &ev));
	json_ok(out, "monitor --json: fault");
	tap_ok(!strcmp(out, "{\"schema\":1,\"event\":\"fault\",\"initiator\":\"" A "\",\"target\":null,"
		       "\"new\":3,\"total\":5,\"lower_bound\":true,"
		       "\"last_addr\":\"0xfe500000\",\"last_write\":false,"
		       "\"time\":null,\"time_ns\":null}\n"),
	       "monitor --json: fault event, one line");
	free(out);
	ev.cmd = P2PMAP_CMD_LINK_NTF;
	ev.link = mklink(A, B, P2PMAP_LINK_ERROR);
	strcpy(ev.link.reason, "a \"quoted\" reason");
	RENDER(out, json_event(f, &ev));
	tap_ok(!strcmp(out, "{\"schema\":1,\"event\":\"link\",\"initiator\":\"" A "\",\"target\":\"" B "\","
		       "\"state\":\"error\",\"reason\":\"a \\\"quoted\\\" reason\","
		       "\"time\":null,\"time_ns\":null}\n"),
	       "monitor --json: link event");
	free(out);
	ev.cmd = P2PMAP_CMD_DEV_ADD_NTF;
	strcpy(ev.dev.addr, A);
	RENDER(out, json_event(f, &ev));
	tap_ok(!strcmp(out, "{\"schema\":1,\"event\":\"dev_add\",\"address\":\"" A "\",\"driver\":null,"
		       "\"time\":null,\"time_ns\":null}\n"),
	       "monitor --json: dev_add event");
	free(out);
	ev.cmd = P2PMAP_CMD_DEV_DEL_NTF;
	RENDER(out, json_event(f, &ev));
	tap_ok(!strcmp(out, "{\"schema\":1,\"event\":\"dev_del\",\"address\":\"" A "\","
		       "\"time\":null,\"time_ns\":null}\n"),
	       "monitor --json: dev_del event");
	free(out);
	ev.cmd = P2PMAP_CMD_LINK_DEL_NTF;
	RENDER(out, json_event(f, &ev));
	tap_ok(!strcmp(out, "{\"schema\":1,\"event\":\"link_del\",\"initiator\":\"" A "\",\"target\":\"" B "\","
		       "\"time\":null,\"time_ns\":null}\n"),
	       "monitor --json: link_del event");
	free(out);

	/* monitor stamps each event when it arrives: text prefix, JSON keys. */
	ev.time_ns = 1700000000123456789ULL;
	RENDER(out, json_event(f, &ev));
	json_ok(out, "monitor --json: a timed event");
	tap_ok(strstr(out, ",\"time\":\"2023-11-14T22:13:20.123+00:00\",\"time_ns\":1700000000123456789}\n") != NULL,
	       "monitor --json: time and time_ns of receipt");
	free(out);
	RENDER_CHECK("[2023-11-14T22:13:20.123+00:00] link-del " A " -> " B "\n",
		     "monitor text: [time of receipt] prefix", format_event(f, &ev));
	ev.time_ns = 1700000000000000000ULL;
	RENDER_CHECK("[2023-11-14T22:13:20.000+00:00] link-del " A " -> " B "\n",
		     "monitor text: milliseconds kept at .000", format_event(f, &ev));
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	test_cell_rule();
	test_report();
	test_verdict();
	test_format_report();
	test_check();
	test_param_errors();
	test_lower_bound();
	test_faults_table();
	test_events();
	test_info();
	test_json();
	return tap_done();
}
