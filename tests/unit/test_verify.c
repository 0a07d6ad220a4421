// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/verify/: the verdict rule, the bus id
 * normalisation, verify_copy_run() over an in-process fake CUDA API
 * (peer access only from the initiator, disabled after; the copy on the
 * initiator's stream), the text and JSON formats, the frameworks' cache
 * files (caches.c: contents, Python's path rules, the device order rule),
 * the child process watchdog (isolate.c) and which of the module's fault
 * records names what a direction's last fault hit (fault_hit.c).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caches.h"
#include "fault_hit.h"
#include "isolate.h"
#include "json_check.h"
#include "tap.h"
#include "verify.h"
#include "verify_paths.h"

/* The fake driver: two devices, "device memory" is host memory. */
static struct CUctx_st { int dev; } ctxs[2] = { { 0 }, { 1 } };
static struct CUstream_st { CUcontext ctx; } stream;
static CUcontext cur, enabled_from, enabled_to, copy_engine;
static int can_peer = 1, enable_res, peer_res, drop_copy, live_allocs;
static int live_ctxs, live_streams;

static CUresult f_init(unsigned int fl) { (void)fl; return 0; }
static CUresult f_count(int *n) { *n = 2; return 0; }
static CUresult f_get(CUdevice *d, int i) { *d = i; return 0; }
static CUresult f_busid(char *b, int len, CUdevice d)
{
	snprintf(b, len, d ? "00000000:C1:00.0" : "0000:01:00.0");
	return 0;
}
static CUresult f_retain(CUcontext *c, CUdevice d)
{
	*c = &ctxs[d];
	live_ctxs++;
	return 0;
}
static CUresult f_release(CUdevice d) { (void)d; live_ctxs--; return 0; }
static CUresult f_setcur(CUcontext c) { cur = c; return 0; }
static CUresult f_can(int *c, CUdevice a, CUdevice b)
{
	(void)a; (void)b;
	*c = can_peer;
	return 0;
}
static CUresult f_enable(CUcontext p, unsigned int fl)
{
	(void)fl;
	if (!enable_res) {
		enabled_from = cur;
		enabled_to = p;
	}
	return enable_res;
}
static CUresult f_disable(CUcontext p)
{
	if (cur != enabled_from || p != enabled_to)
		return 705;
	enabled_from = enabled_to = NULL;
	return 0;
}
static CUresult f_screate(CUstream *s, unsigned int fl)
{
	(void)fl;
	stream.ctx = cur;
	*s = &stream;
	live_streams++;
	return 0;
}
static CUresult f_sdestroy(CUstream s) { (void)s; live_streams--; return 0; }
static CUresult f_ssync(CUstream s) { (void)s; return 0; }
static CUresult f_alloc(CUdeviceptr *p, size_t n)
{
	*p = (uintptr_t)malloc(n);
	live_allocs++;
	return 0;
}
static CUresult f_free(CUdeviceptr p) { free((void *)(uintptr_t)p); live_allocs--; return 0; }
static CUresult f_htod(CUdeviceptr d, const void *s, size_t n)
{
	memcpy((void *)(uintptr_t)d, s, n);
	return 0;
}
static CUresult f_dtoh(void *d, CUdeviceptr s, size_t n)
{
	memcpy(d, (void *)(uintptr_t)s, n);
	return 0;
}
static CUresult f_peer(CUdeviceptr d, CUcontext dc, CUdeviceptr s,
		       CUcontext sc, size_t n, CUstream st)
{
	(void)dc; (void)sc;
	copy_engine = st->ctx;
	if (peer_res)
		return peer_res;
	if (drop_copy == 1)
		return 0;			/* writes vanish */
	if (drop_copy == 2)
		memcpy((void *)(uintptr_t)(d + n / 2), (void *)(uintptr_t)s, 1);
	else
		memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
	return 0;
}
static CUresult f_sync(void) { return 0; }
static CUresult f_errname(CUresult e, const char **s)
{
	*s = e == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : NULL;
	return *s ? 0 : 1;
}
static CUresult f_errstr(CUresult e, const char **s)
{
	*s = e == 700 ? "an illegal memory access was encountered" :
	     e == 217 ? "peer access is not supported between these two devices" :
	     "other";
	return 0;
}

static const struct cuda_api api = {
	.Init = f_init, .DeviceGetCount = f_count, .DeviceGet = f_get,
	.DeviceGetPCIBusId = f_busid, .DevicePrimaryCtxRetain = f_retain,
	.DevicePrimaryCtxRelease = f_release, .CtxSetCurrent = f_setcur,
	.DeviceCanAccessPeer = f_can, .CtxEnablePeerAccess = f_enable,
	.CtxDisablePeerAccess = f_disable, .StreamCreate = f_screate,
	.StreamDestroy = f_sdestroy, .StreamSynchronize = f_ssync,
	.MemAlloc = f_alloc, .MemFree = f_free, .MemcpyHtoD = f_htod,
	.MemcpyDtoH = f_dtoh, .MemcpyPeerAsync = f_peer,
	.CtxSynchronize = f_sync, .GetErrorName = f_errname,
	.GetErrorString = f_errstr,
};

static struct verify_gpu gpus[2] = {
	{ .index = 0, .pos = 0, .pci = "0000:01:00.0" },
	{ .index = 1, .pos = 1, .pci = "0000:c1:00.0" },
};

static char *render(const struct verify_result *r, size_t n, bool json,
		    const struct verify_caches *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		verify_json(f, r, n, c);
	else
		verify_format_result(f, r);
	fclose(f);
	return buf;
}

/* A direction whose two operations ran as @w and @rd. */
static void direction(struct verify_result *r, int from, int to,
		      enum verify_verdict w, enum verify_verdict rd)
{
	int op, p;

	memset(r, 0, sizeof(*r));
	r->from = &gpus[from];
	r->to = &gpus[to];
	r->size = 4096;
	r->timeout = 60;
	r->op[VERIFY_WRITE].verdict = w;
	r->op[VERIFY_READ].verdict = rd;
	for (op = 0; op < VERIFY_NR_OPS; op++) {
		r->op[op].copy.data_checked = true;
		r->op[op].copy.data_ok = r->op[op].verdict == VERIFY_WORKS;
	}
	r->verdict = w > rd ? w : rd;
	/* Every path ran and said the same: the copy engine decides. */
	r->decided_by = VERIFY_PATH_COPY;
	for (p = 0; p < VERIFY_NR_PATHS; p++) {
		r->path[p].ran = true;
		r->path[p].verdict = r->verdict;
		memcpy(r->path[p].op, r->op, sizeof(r->op));
	}
}

/* Path @p of @r says @v on both operations, the rest as they were. */
static void path_says(struct verify_result *r, enum verify_path p,
		      enum verify_verdict v)
{
	int op;

	r->path[p].verdict = v;
	for (op = 0; op < VERIFY_NR_OPS; op++) {
		r->path[p].op[op].verdict = v;
		r->path[p].op[op].copy.data_ok = v == VERIFY_WORKS;
	}
	if (v > r->verdict) {
		r->verdict = v;
		r->decided_by = p;
		memcpy(r->op, r->path[p].op, sizeof(r->op));
	}
}

static void test_decide(void)
{
	struct verify_op_result o = { 0 };

	o.copy.data_checked = o.copy.data_ok = true;
	tap_ok(verify_decide(&o) == VERIFY_WORKS, "decide: works");
	o.has_before = o.has_after = true;
	o.faults_before = 1;
	o.faults_after = 2;
	o.copy.refused = true;
	o.hung = true;
	tap_ok(verify_decide(&o) == VERIFY_FAULTED,
	       "decide: a grown counter is faulted, before anything else");
	o.faults_after = 1;
	tap_ok(verify_decide(&o) == VERIFY_HUNG, "decide: then hung");
	o.hung = false;
	tap_ok(verify_decide(&o) == VERIFY_REFUSED, "decide: then refused");
	o.copy.refused = false;
	snprintf(o.child_error, sizeof(o.child_error), "signal 11");
	tap_ok(verify_decide(&o) == VERIFY_ERROR, "decide: a dead child is an error");
	o.child_error[0] = '\0';
	o.copy.data_checked = false;
	tap_ok(verify_decide(&o) == VERIFY_ERROR,
	       "decide: no data read back is never works");
	o.copy.data_checked = true;
	o.copy.data_ok = false;
	tap_ok(verify_decide(&o) == VERIFY_WRONG_DATA, "decide: wrong data");
	o.has_after = false;
	o.faults_after = 9;
	o.copy.data_ok = true;
	tap_ok(verify_decide(&o) == VERIFY_WORKS,
	       "decide: unknown counters are not looked at");
	tap_ok(!strcmp(verify_verdict_name(VERIFY_REFUSED), "peer access refused") &&
	       !strcmp(verify_verdict_name(VERIFY_HUNG), "hung") &&
	       !strcmp(verify_op_name(VERIFY_READ), "read"), "names");
}

static void test_busid(void)
{
	char out[P2PMAP_ADDR_LEN];

	tap_ok(!verify_norm_busid("0000:3B:00.0", out) &&
	       !strcmp(out, "0000:3b:00.0"), "bus id: lower case");
	tap_ok(!verify_norm_busid("00000001:C1:1f.7", out) &&
	       !strcmp(out, "0001:c1:1f.7"), "bus id: 8-digit domain");
	tap_ok(!verify_norm_busid("00010000:3B:00.0", out) &&
	       !strcmp(out, "10000:3b:00.0"), "bus id: a domain above 0xffff (VMD)");
	tap_ok(verify_norm_busid("0000:3b:00", out) &&
	       verify_norm_busid("0000:3b:20.0", out) &&
	       verify_norm_busid("80000000:3b:00.0", out) &&
	       verify_norm_busid("0000:3b:00.0x", out),
	       "bus id: malformed ones refused");
}

static void test_copy(void)
{
	struct verify_copy c;

	verify_copy_run(&api, 0, 1, VERIFY_WRITE, 4096, &c);
	tap_ok(c.data_checked && c.data_ok && !c.cuda_call[0] &&
	       copy_engine == &ctxs[0], "write 0 -> 1: on GPU0's stream, data correct");
	tap_ok(!enabled_from && !live_allocs && !live_ctxs && !live_streams,
	       "peer access disabled, memory freed, stream and contexts released");
	verify_copy_run(&api, 1, 0, VERIFY_READ, 4096, &c);
	tap_ok(c.data_ok && copy_engine == &ctxs[1],
	       "read 1 <- 0: on GPU1's stream (GPU1 initiates)");
	drop_copy = 1;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(c.data_checked && !c.data_ok && c.first_diff == 0,
	       "dropped writes: wrong data at byte 0 (the destination was pre-filled)");
	drop_copy = 2;
	verify_copy_run(&api, 1, 0, VERIFY_READ, 4096, &c);
	tap_ok(!c.data_ok && c.first_diff == 0, "a partial copy: wrong data");
	drop_copy = 0;
	peer_res = 700;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(!strcmp(c.cuda_call, "cuMemcpyPeerAsync") && c.cuda_code == 700 &&
	       !strcmp(c.cuda_error, "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered") &&
	       !c.data_checked, "a CUDA error: the call, name, number and text");
	peer_res = 0;
	enable_res = 704;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(c.data_ok && !c.cuda_call[0],
	       "peer access already enabled (704): copied, not disabled");
	enable_res = 217;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(c.refused && c.cuda_code == 217 && !c.data_checked &&
	       /* named from verify's table: this driver's cuGetErrorName does not */
	       !strcmp(c.cuda_error, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217): peer access is not supported between these two devices"),
	       "cuCtxEnablePeerAccess 217: refused, no copy (never staged)");
	enable_res = 711;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(c.refused && c.cuda_code == 711 && !c.data_checked,
	       "cuCtxEnablePeerAccess 711 (TOO_MANY_PEERS): refused, no copy");
	enable_res = 205;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(c.refused && c.cuda_code == 205 && !c.data_checked,
	       "cuCtxEnablePeerAccess 205 (MAP_FAILED, IOMMU or BAR trouble): refused, no copy");
	enable_res = 201;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(!c.refused && c.cuda_code == 201 && !c.data_checked,
	       "another cuCtxEnablePeerAccess error (201): an error, no copy");
	enable_res = 0;
	can_peer = 0;
	verify_copy_run(&api, 1, 0, VERIFY_WRITE, 4096, &c);
	tap_ok(c.refused && !c.cuda_call[0] && !c.can_access,
	       "cuDeviceCanAccessPeer 0: refused, no copy");
	can_peer = 1;
	tap_ok(!live_allocs && !live_ctxs && !live_streams,
	       "nothing left after the error paths");
}

/* A direction not run, GPU1 wedged: @r[1] as test_format() left it. */
static void test_format_wedged(struct verify_result *r)
{
	static const char why[] = "hung in copy write of GPU1 -> GPU0";
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int p, op;

	direction(&r[0], 0, 1, VERIFY_NOT_TESTED, VERIFY_NOT_TESTED);
	for (p = 0; p < VERIFY_NR_PATHS; p++)
		for (op = 0; op < VERIFY_NR_OPS; op++)
			snprintf(r[0].path[p].op[op].child_error, VERIFY_ERR_LEN,
				 "GPU1 (0000:c1:00.0) wedged: %s", why);
	memcpy(r[0].op, r[0].path[VERIFY_PATH_COPY].op, sizeof(r[0].op));
	r[0].wedged = &gpus[1];
	snprintf(r[0].wedged_why, sizeof(r[0].wedged_why), "%s", why);
	buf = render(r, 1, false, NULL);
	tap_ok(!strcmp(buf, "GPU0 (0000:01:00.0) -> GPU1 (0000:c1:00.0): not tested (GPU1 (0000:c1:00.0) wedged: hung in copy write of GPU1 -> GPU0)\n"),
	       "not tested line: %s", buf);
	free(buf);
	tap_ok(verify_fw_works(&r[0], VERIFY_FW_NCCL) < 0 &&
	       verify_fw_works(&r[0], VERIFY_FW_VLLM) < 0,
	       "not tested: no framework judged (null, not false)");
	f = open_memstream(&buf, &len);
	verify_format_summary(f, r, 2);
	fclose(f);
	tap_ok(strstr(buf, "\nverify: 1 direction not tested in full: GPU1 (0000:c1:00.0) wedged: hung in copy write of GPU1 -> GPU0\n") != NULL,
	       "summary: how many not tested, the wedged GPU");
	free(buf);
}

static void test_format(void)
{
	struct verify_caches c = { .order = "PCI_BUS_ID", .vllm = "/x \"y\".json" };
	struct verify_result r[2];
	char *buf, out[256];

	direction(&r[0], 0, 1, VERIFY_WORKS, VERIFY_WORKS);
	buf = render(r, 1, false, NULL);
	tap_ok(!strcmp(buf, "GPU0 (0000:01:00.0) -> GPU1 (0000:c1:00.0): works\n"),
	       "works line");
	free(buf);
	direction(&r[1], 1, 0, VERIFY_WORKS, VERIFY_FAULTED);
	r[1].op[VERIFY_READ].faults_before = 1;
	r[1].op[VERIFY_READ].faults_after = 3;
	r[1].op[VERIFY_READ].has_before = r[1].op[VERIFY_READ].has_after = true;
	buf = render(&r[1], 1, false, NULL);
	tap_ok(!strcmp(buf, "GPU1 (0000:c1:00.0) -> GPU0 (0000:01:00.0): faulted [write: works; read: faulted (p2pmap fault counter 1 -> 3, data wrong)]\n"),
	       "split line: %s", buf);
	free(buf);
	buf = render(r, 2, true, &c);
	tap_ok(json_valid(buf), "--json is valid JSON");
	if (json_python(buf,
			"import json,sys; d = json.load(sys.stdin); x = d[\"directions\"][1]; "
			"print(x[\"verdict\"], x[\"faults_before\"], x[\"faults_after\"], "
			"x[\"write\"][\"verdict\"], x[\"read\"][\"faults_after\"], "
			"d[\"summary\"][\"working\"], d[\"device_order\"], d[\"vllm_cache\"], d[\"sglang_cache\"])",
			out, sizeof(out)) >= 0)
		tap_ok(!strcmp(out, "faulted 1 3 works 3 1 PCI_BUS_ID /x \"y\".json None"),
		       "--json read by python3: %s", out);
	free(buf);
	test_format_wedged(r);
}

static void test_caches(void)
{
	struct verify_result r[2];
	char *buf = NULL, path[512], why[512];
	struct verify_gpu sel[2];
	size_t len;
	FILE *f;

	direction(&r[0], 0, 1, VERIFY_WORKS, VERIFY_WORKS);
	direction(&r[1], 1, 0, VERIFY_WORKS, VERIFY_WRONG_DATA);
	f = open_memstream(&buf, &len);
	verify_cache_render(f, r, 2, 2, VERIFY_VLLM);
	fclose(f);
	tap_ok(!strcmp(buf, "{\n    \"0->0\": true,\n    \"0->1\": false,\n    \"1->0\": false,\n    \"1->1\": true\n}"),
	       "cache: json.dump(indent=4) bytes, a pair true only both ways");
	free(buf);
	buf = NULL;
	direction(&r[1], 1, 0, VERIFY_WORKS, VERIFY_WORKS);
	f = open_memstream(&buf, &len);
	verify_cache_render(f, r, 2, 2, VERIFY_VLLM);
	fclose(f);
	tap_ok(strstr(buf, "\"0->1\": true") && strstr(buf, "\"1->0\": true"),
	       "cache: both directions work: true both ways");
	free(buf);
	/* The copy engine works both ways; IPC does not one way. */
	buf = NULL;
	path_says(&r[1], VERIFY_PATH_IPC, VERIFY_WRONG_DATA);
	f = open_memstream(&buf, &len);
	verify_cache_render(f, r, 2, 2, VERIFY_SGLANG);
	fclose(f);
	tap_ok(strstr(buf, "\"0->1\": false") && strstr(buf, "\"1->0\": false"),
	       "cache: the copy engine works both ways, IPC not one way: false (the framework's check uses IPC)");
	free(buf);
	tap_ok(verify_fw_works(&r[1], VERIFY_FW_NCCL) == 1 &&
	       verify_fw_works(&r[1], VERIFY_FW_VLLM) == 0 &&
	       verify_fw_works(&r[1], VERIFY_FW_SGLANG) == 0,
	       "frameworks: IPC broken: NCCL works (cuMem), vLLM and SGLang do not");
	path_says(&r[1], VERIFY_PATH_CUMEM, VERIFY_FAULTED);
	tap_ok(verify_fw_works(&r[1], VERIFY_FW_NCCL) == 0,
	       "frameworks: cuMem and IPC broken: NCCL does not work either");
	r[1].path[VERIFY_PATH_IPC].ran = false;
	r[1].path[VERIFY_PATH_CUMEM].ran = false;
	tap_ok(verify_fw_works(&r[1], VERIFY_FW_NCCL) == -1 &&
	       verify_cache_untested(VERIFY_VLLM, r, 2),
	       "frameworks: a path not run: not known, no cache written");

	setenv("HOME", "/home/u/", 1);
	tap_ok(!py_expanduser("~", path, sizeof(path)) && !strcmp(path, "/home/u") &&
	       !py_expanduser("~/a", path, sizeof(path)) && !strcmp(path, "/home/u/a") &&
	       !py_expanduser("a~/b", path, sizeof(path)) && !strcmp(path, "a~/b") &&
	       !py_expanduser("~nosuchuser-p2pmap/x", path, sizeof(path)) &&
	       !strcmp(path, "~nosuchuser-p2pmap/x") &&
	       !py_expanduser("~root/x", path, sizeof(path)) &&
	       !strcmp(path, "/root/x"), "expanduser: Python's rules");
	setenv("HOME", "", 1);
	tap_ok(!py_expanduser("~", path, sizeof(path)) && !strcmp(path, "/"),
	       "expanduser: empty HOME gives /");
	setenv("HOME", "/home/u", 1);
	unsetenv("VLLM_CACHE_ROOT");
	unsetenv("XDG_CACHE_HOME");
	sel[0] = gpus[0];
	sel[1] = gpus[1];
	tap_ok(!verify_cache_path(VERIFY_VLLM, sel, 2, 2, NULL, path, sizeof(path),
				  why, sizeof(why)) &&
	       !strcmp(path, "/home/u/.cache/vllm/gpu_p2p_access_cache_for_0,1.json"),
	       "vLLM path: ~/.cache/vllm, devices 0..n-1");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	tap_ok(!verify_cache_path(VERIFY_VLLM, sel, 2, 2, "GPU-a, 1", path,
				  sizeof(path), why, sizeof(why)) &&
	       !strcmp(path, "/xdg/vllm/gpu_p2p_access_cache_for_GPU-a, 1.json"),
	       "vLLM path: XDG_CACHE_HOME, CUDA_VISIBLE_DEVICES verbatim");
	tap_ok(!verify_cache_path(VERIFY_SGLANG, sel, 2, 2, NULL, path,
				  sizeof(path), why, sizeof(why)) &&
	       !strcmp(path, "/home/u/.cache/sglang/gpu_p2p_access_cache_for_0,1.json"),
	       "SGLang path: ~/.cache/sglang whatever XDG_CACHE_HOME says");
	setenv("VLLM_CACHE_ROOT", "~/v/", 1);
	sel[0].index = 3;
	tap_ok(!verify_cache_path(VERIFY_VLLM, sel, 2, 4, "4,5,6,7", path,
				  sizeof(path), why, sizeof(why)) &&
	       !strcmp(path, "/home/u/v/gpu_p2p_access_cache_for_7,5.json"),
	       "vLLM path: VLLM_CACHE_ROOT with ~, a subset named by its entries");
	setenv("VLLM_CACHE_ROOT", "", 1);
	tap_ok(verify_cache_path(VERIFY_VLLM, sel, 2, 4, NULL, path,
				 sizeof(path), why, sizeof(why)) &&
	       strstr(why, "relative"), "vLLM path: empty VLLM_CACHE_ROOT refused");
	unsetenv("VLLM_CACHE_ROOT");

	tap_ok(!verify_order_problem("PCI_BUS_ID", "1,0", gpus, 2) &&
	       !verify_order_problem(NULL, NULL, gpus, 2) &&
	       verify_order_problem(NULL, "1,0", gpus, 2) &&
	       verify_order_problem("FASTEST_FIRST", "0,1", gpus, 2),
	       "order: PCI_BUS_ID, or the default order already PCI order");
	sel[0] = gpus[1];
	sel[1] = gpus[0];
	tap_ok(verify_order_problem(NULL, NULL, sel, 2) != NULL,
	       "order: the default order not PCI order: a problem");
}

static void child_ok(void *arg, void *out)
{
	(void)arg;
	memcpy(out, "result", 7);
}

static void child_hang(void *arg, void *out)
{
	(void)arg;
	(void)out;
	for (;;)
		pause();
}

static void child_crash(void *arg, void *out)
{
	(void)arg;
	(void)out;
	abort();
}

static void test_isolate(void)
{
	char out[7], why[160];

	tap_ok(isolate_run(child_ok, NULL, out, sizeof(out), 5, why, sizeof(why)) ==
	       ISOLATE_OK && !strcmp(out, "result"), "isolate: the child's result");
	tap_ok(isolate_run(child_hang, NULL, out, sizeof(out), 1, why, sizeof(why)) ==
	       ISOLATE_TIMEOUT && strstr(why, "killed"), "isolate: the watchdog kills");
	tap_ok(isolate_run(child_crash, NULL, out, sizeof(out), 5, why, sizeof(why)) ==
	       ISOLATE_DIED && strstr(why, "signal 6"), "isolate: a crash is said: %s",
	       why);
}

/* A's record of faults at @target: @addr at @time (0: no time). */
static void peer(struct p2pmap_dev *d, const char *target, uint64_t addr,
		 uint64_t time)
{
	struct p2pmap_peer *p = &d->peers[d->npeers++];

	snprintf(p->target, sizeof(p->target), "%s", target);
	p->f.has_count = true;
	p->f.count = 1;
	p->f.has_addr = addr != 0;
	p->f.last_addr = addr;
	p->f.has_time = time != 0;
	p->f.last_time = time;
}

static void test_fault_hit(void)
{
	static const char a[] = "0000:01:00.0", b[] = "0000:41:00.0";
	struct p2pmap_dev devs[3];
	struct verify_fault_hit h;

	memset(devs, 0, sizeof(devs));
	snprintf(devs[0].addr, sizeof(devs[0].addr), "%s", a);
	snprintf(devs[1].addr, sizeof(devs[1].addr), "%s", b);
	snprintf(devs[2].addr, sizeof(devs[2].addr), "0000:61:00.0");
	devs[1].vendor = 0x10de;
	devs[1].nbars = 2;
	devs[1].bars[0] = (struct p2pmap_bar){ 0, 0xe0000000, 0x1000000, 0 };
	devs[1].bars[1] = (struct p2pmap_bar){ 1, 0xc000000000ULL,
					       0x800000000ULL, 0 };
	devs[0].bars[0] = (struct p2pmap_bar){ 1, 0xa000000000ULL,
					       0x800000000ULL, 0 };
	devs[0].nbars = 1;
	devs[0].vendor = 0x10de;

	tap_ok(!fault_hit_of_pair(devs, 3, a, b, &h),
	       "no record of the pair: no hit");
	/* A third GPU's faults are not the pair's. */
	peer(&devs[0], "0000:61:00.0", 0xc000001000ULL, 50);
	tap_ok(!fault_hit_of_pair(devs, 3, a, b, &h),
	       "another pair's record: no hit");
	peer(&devs[0], b, 0xe0002000, 100);
	tap_ok(fault_hit_of_pair(devs, 3, a, b, &h) && h.known && h.in_bar &&
	       h.addr == 0xe0002000 && !strcmp(h.dev, b) && h.bar == 0 &&
	       h.offset == 0x2000 && !strcmp(h.role, "registers/mailbox"),
	       "A's record of faults at B: B's BAR0 + 0x2000 (registers/mailbox)");
	/* B's engine reading A: B's record at A, later. */
	peer(&devs[1], a, 0xa000010000ULL, 200);
	tap_ok(fault_hit_of_pair(devs, 3, a, b, &h) &&
	       h.addr == 0xa000010000ULL && !strcmp(h.dev, a) && h.bar == 1 &&
	       h.offset == 0x10000 && !strcmp(h.role, "VRAM aperture"),
	       "the later of the pair's two records: B's at A, A's BAR1 + 0x10000");
	devs[1].peers[0].f.last_time = 99;
	tap_ok(fault_hit_of_pair(devs, 3, a, b, &h) && h.addr == 0xe0002000,
	       "... and A's when it is the later");
	devs[1].peers[0].f.has_addr = false;
	devs[0].peers[1].f.has_addr = false;
	tap_ok(!fault_hit_of_pair(devs, 3, a, b, &h),
	       "records without an address: no hit");
	devs[0].peers[1].f.has_addr = true;
	devs[0].peers[1].f.last_addr = 0x1000;
	tap_ok(fault_hit_of_pair(devs, 3, a, b, &h) && h.known && !h.in_bar &&
	       h.addr == 0x1000,
	       "an address in no tracked BAR: known, in none");
}

int main(void)
{
	test_decide();
	test_busid();
	test_copy();
	test_format();
	test_caches();
	test_isolate();
	test_fault_hit();
	return tap_done();
}
