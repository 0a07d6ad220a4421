// SPDX-License-Identifier: GPL-2.0
/*
 * Every --json document the formatters write (list, status, faults, info,
 * policy, each monitor event, verify) starts with "schema":
 * P2PMAP_JSON_SCHEMA, and passes json_lint.py against Documentation/JSON.md: every
 * string field listed there, every enum value one of those listed, in
 * snake_case without spaces.  The commands that print their own document
 * (verify's failure, verify --collective, nccl-check, env, doctor) are
 * linted by their scripts in tests/ (tests/unit/json_lint.py there too).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format_json.h"
#include "json.h"
#include "json_check.h"
#include "render.h"
#include "report.h"
#include "tap.h"
#include "verify.h"

#ifndef JSON_LINT
#define JSON_LINT "../tests/unit/json_lint.py"
#endif

#define A "0000:00:10.0"
#define B "0000:00:11.0"
#define C "0000:00:12.0"
#define T0 1700000000000000000ULL

/* Each line of @docs starts with {"schema":N, and is valid JSON. */
static void schema_first(const char *docs, const char *desc)
{
	char want[32], *copy = strdup(docs), *line, *save = NULL;
	unsigned int n = 0, bad = 0;

	snprintf(want, sizeof(want), "{\"schema\":%d,", P2PMAP_JSON_SCHEMA);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		n++;
		if (strncmp(line, want, strlen(want)) || !json_valid(line)) {
			bad++;
			printf("# %s\n", line);
		}
	}
	free(copy);
	tap_ok(n && !bad && docs[strlen(docs) - 1] == '\n',
	       "%s: each of %u document(s) starts with %s", desc, n, want);
}

/* json_lint.py DOC on @docs: the fields and enum values of JSON.md. */
static void lint(const char *doc, const char *docs, const char *desc)
{
	char tmpl[] = "/tmp/p2pmap-lint-XXXXXX", cmd[512], line[512];
	FILE *f, *p;
	int fd, rc;

	if (system("python3 -c '' >/dev/null 2>&1")) {
		tap_ok(true, "# SKIP python3 not found: %s", desc);
		return;
	}
	fd = mkstemp(tmpl);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		tap_ok(false, "%s: a temporary file", desc);
		return;
	}
	fputs(docs, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s %s %s 2>&1", JSON_LINT, doc,
		 tmpl);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p))
		fputs(line, stdout);		/* "# json_lint: ..." */
	rc = p ? pclose(p) : -1;
	unlink(tmpl);
	tap_ok(rc == 0, "%s: json_lint.py %s: as JSON.md lists", desc, doc);
}

static void check(const char *doc, const char *docs, const char *desc)
{
	schema_first(docs, desc);
	lint(doc, docs, desc);
}

static struct p2pmap_link mklink(const char *i, const char *t, uint32_t state)
{
	struct p2pmap_link l;

	memset(&l, 0, sizeof(l));
	snprintf(l.initiator, sizeof(l.initiator), "%s", i);
	snprintf(l.target, sizeof(l.target), "%s", t);
	l.state = state;
	l.has_state = true;
	l.bar_mask = P2PMAP_BAR_MASK_ALL;
	return l;
}

static void fault_at(struct p2pmap_fault *f, uint64_t count)
{
	f->has_count = true;
	f->count = count;
	f->sources = P2PMAP_FAULT_SRC_DMAR;
	f->has_addr = f->has_flags = f->has_time = true;
	f->last_addr = 0xfe500000;
	f->last_flags = P2PMAP_FAULT_F_WRITE;
	f->last_time = T0;
}

static void test_list(void)
{
	struct list_entry e[2] = {
		{ .addr = A, .vendor = 0x10de, .device = 0x2330,
		  .name = "GH100 [H100 SXM5 80GB]", .numa_node = 0,
		  .iommu_group = 3, .group_type = "DMA-FQ", .driver = "nvidia",
		  .tracked = LIST_TRACKED_YES, .has_admitted = true,
		  .admitted = false, .admit_reason = "bound to vfio-pci",
		  .nbars = 1,
		  .bars = { { .index = 0, .start = 0xfe800000, .size = 1 << 20,
			      .flags = P2PMAP_BAR_F_64BIT |
				       P2PMAP_BAR_F_PREFETCH } } },
		{ .addr = B, .numa_node = -1, .iommu_group = -1,
		  .tracked = LIST_TRACKED_UNKNOWN },
	};
	char *out = NULL;

	RENDER(out, json_list(f, e, 2));
	check("list", out, "list --json");
	free(out);
}

static void test_status(void)
{
	static const uint32_t states[] = {
		P2PMAP_LINK_MAPPED, P2PMAP_LINK_NATIVE, P2PMAP_LINK_PENDING,
		P2PMAP_LINK_BLOCKED, P2PMAP_LINK_ERROR, 99,
	};
	static const char * const addr[] = {
		A, B, C, "0000:00:13.0", "0000:00:14.0", "0000:00:15.0",
		"0000:00:16.0",
	};
	struct p2pmap_link links[8];
	struct p2pmap_dev devs[7];
	struct p2p_report r;
	char *out = NULL, *all = NULL;
	size_t i, n = 0, len = 0;
	FILE *acc = open_memstream(&all, &len);

	memset(devs, 0, sizeof(devs));
	for (i = 0; i < 7; i++)
		snprintf(devs[i].addr, sizeof(devs[i].addr), "%s", addr[i]);
	/* A -> each other in every state and one it does not know. */
	for (i = 0; i < 6; i++)
		links[n++] = mklink(A, addr[i + 1], states[i]);
	links[n] = mklink(B, C, P2PMAP_LINK_MAPPED);
	links[n++].has_state = false;		/* the kernel sent none */
	links[n++] = mklink(B, A, P2PMAP_LINK_MAPPED);
	snprintf(links[2].reason, sizeof(links[2].reason), "target unbound");
	links[0].has_mapped_bytes = true;
	links[0].mapped_bytes = 1 << 20;
	links[0].nranges = 1;
	links[0].ranges[0].iova = 0xfe800000;
	links[0].ranges[0].size = 1 << 20;
	links[0].ranges[0].pages = 1;
	fault_at(&links[n - 1].faults, 3);
	/* C -> B faults without a link. */
	fault_at(&devs[2].faults, 2);
	devs[2].npeers = 1;
	snprintf(devs[2].peers[0].target, sizeof(devs[2].peers[0].target),
		 "%s", B);
	fault_at(&devs[2].peers[0].f, 2);

	report_build(&r, NULL, devs, 7, links, n);
	json_status(acc, links, n, &r);
	report_free(&r);
	report_build(&r, NULL, devs, 0, links, 0);
	json_status(acc, links, 0, &r);
	report_free(&r);
	fclose(acc);
	check("status", all, "status --json (every link state and cell)");
	if (!tap_ok(strstr(all, "\"state\":null") &&
		    strstr(all, "\"state\":\"unknown\"") &&
		    strstr(all, ":\"self\"") && strstr(all, ":\"none\"") &&
		    strstr(all, ":\"faulted\"") &&
		    strstr(all, ":\"blocked\","),
		    "status --json: the fixture has every kind of cell"))
		printf("# %s", all);

	RENDER(out, json_faults(f, devs, 7));
	check("faults", out, "faults --json");
	free(out);
	free(all);
}

static void test_info_policy(void)
{
	struct p2pmap_info info = {
		.version = "0.2.0", .has_fault_sources = true,
		.fault_sources = P2PMAP_FAULT_SRC_TRACEPOINT |
				 P2PMAP_FAULT_SRC_DMAR,
		.has_generation = true, .generation = 12,
		.has_param_errors = true, .param_errors = 1,
		.param_error = "links: \"x\" skipped: not a PCI address",
	};
	struct p2pmap_info none = { .version = "" };
	struct p2pmap_policy pol = {
		.drivers = "nvidia,nouveau", .vendors = "10de",
		.classes = "03,0302", .numa_nodes = "0,x",
	};
	char *out = NULL, *all = NULL;
	size_t len = 0;
	FILE *acc = open_memstream(&all, &len);

	json_info(acc, &info);
	json_info(acc, &none);
	fclose(acc);
	check("info", all, "info --json");
	free(all);
	RENDER(out, json_policy(f, &pol));
	check("policy", out, "policy --json");
	free(out);
}

static void test_monitor(void)
{
	static const uint32_t cmds[] = {
		P2PMAP_CMD_DEV_ADD_NTF, P2PMAP_CMD_DEV_DEL_NTF,
		P2PMAP_CMD_LINK_NTF, P2PMAP_CMD_LINK_NTF,
		P2PMAP_CMD_LINK_DEL_NTF, P2PMAP_CMD_FAULT_NTF,
	};
	struct p2pmap_event ev;
	char *all = NULL;
	size_t len = 0, i;
	FILE *acc = open_memstream(&all, &len);

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.cmd = cmds[i];
		ev.time_ns = i ? T0 : 0;
		snprintf(ev.dev.addr, sizeof(ev.dev.addr), "%s", A);
		snprintf(ev.dev.driver, sizeof(ev.dev.driver), "p2ptest");
		ev.link = mklink(A, B, P2PMAP_LINK_PENDING);
		ev.link.has_state = i != 3;	/* the second: unknown */
		snprintf(ev.link.reason, sizeof(ev.link.reason),
			 "target unbound");
		snprintf(ev.fault.initiator, sizeof(ev.fault.initiator), "%s",
			 A);
		ev.fault.new_faults = 1;
		fault_at(&ev.fault.f, 5);
		json_event(acc, &ev);
	}
	fclose(acc);
	check("monitor", all, "monitor --json (every event)");
	tap_ok(strstr(all, "\"event\":\"dev_add\"") &&
	       strstr(all, "\"event\":\"link_del\"") &&
	       strstr(all, "\"state\":\"unknown\""),
	       "monitor --json: the events are snake_case");
	free(all);
}

static void test_verify(void)
{
	static const struct verify_gpu gpus[2] = {
		{ .index = 0, .pci = "0000:01:00.0" },
		{ .index = 1, .pos = 1, .pci = "0000:41:00.0" },
	};
	struct verify_caches c = {
		.order = "PCI_BUS_ID",
		.vllm = "/root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json",
	};
	struct verify_result r[VERIFY_FAULTED + 1];
	char *out = NULL;
	int v, op;

	memset(r, 0, sizeof(r));
	for (v = VERIFY_WORKS; v <= VERIFY_FAULTED; v++) {
		r[v].from = &gpus[v & 1];
		r[v].to = &gpus[!(v & 1)];
		r[v].verdict = v;
		for (op = 0; op < VERIFY_NR_OPS; op++)
			r[v].op[op].verdict = op ? v : VERIFY_WORKS;
	}
	snprintf(r[VERIFY_ERROR].op[VERIFY_READ].copy.cuda_call,
		 sizeof(r[0].op[0].copy.cuda_call), "cuMemcpyPeerAsync");
	snprintf(r[VERIFY_ERROR].op[VERIFY_READ].copy.cuda_error,
		 sizeof(r[0].op[0].copy.cuda_error),
		 "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access");
	r[VERIFY_WORKS].has_bw = true;
	snprintf(r[VERIFY_WORKS].bw_error, sizeof(r[0].bw_error),
		 "the timing child died: signal 9");
	RENDER(out, verify_json(f, r, VERIFY_FAULTED + 1, &c));
	check("verify", out, "verify --json (every verdict)");
	tap_ok(strstr(out, "\"verdict\":\"peer_access_refused\"") &&
	       strstr(out, "\"verdict\":\"wrong_data\""),
	       "verify --json: the verdicts are snake_case");
	free(out);
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	test_list();
	test_status();
	test_info_policy();
	test_monitor();
	test_verify();
	return tap_done();
}
