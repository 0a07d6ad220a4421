// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/verify/verify.c: the verdict rule, the bus id
 * normalisation, verify_direction() over an in-process fake CUDA API with
 * an injected fault counter source (the 0 -> 1 counter grows), the text,
 * JSON and vLLM cache formats.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "tap.h"
#include "verify.h"

/* The fake driver: two devices, "device memory" is host memory. */
static struct CUctx_st { int dev; } ctxs[2] = { { 0 }, { 1 } };
static CUcontext cur;
static int can_peer = 1, enable_res, peer_res, drop_copy, live_allocs;

static CUresult f_init(unsigned int fl) { (void)fl; return 0; }
static CUresult f_count(int *n) { *n = 2; return 0; }
static CUresult f_get(CUdevice *d, int i) { *d = i; return 0; }
static CUresult f_busid(char *b, int len, CUdevice d)
{
	snprintf(b, len, d ? "00000000:C1:00.0" : "0000:01:00.0");
	return 0;
}
static CUresult f_retain(CUcontext *c, CUdevice d) { *c = &ctxs[d]; return 0; }
static CUresult f_release(CUdevice d) { (void)d; return 0; }
static CUresult f_setcur(CUcontext c) { cur = c; return 0; }
static CUresult f_can(int *c, CUdevice a, CUdevice b)
{
	(void)a; (void)b;
	*c = can_peer;
	return 0;
}
static CUresult f_enable(CUcontext p, unsigned int fl)
{
	(void)p; (void)fl;
	return enable_res;
}
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
		       CUcontext sc, size_t n)
{
	(void)dc; (void)sc;
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
	.MemAlloc = f_alloc, .MemFree = f_free, .MemcpyHtoD = f_htod,
	.MemcpyDtoH = f_dtoh, .MemcpyPeer = f_peer,
	.CtxSynchronize = f_sync, .GetErrorString = f_errstr,
};

/* Injected counters: 0 -> 1 grows by 2 over the copy, others stay at 9. */
static unsigned int reads;
static bool counters_known = true;

static bool fake_read(struct verify_faults *src, const struct verify_gpu *from,
		      const struct verify_gpu *to, bool after, uint64_t *count)
{
	reads++;
	if (!counters_known) {
		src->why = "test";
		return false;
	}
	*count = from->index == 0 && to->index == 1 ? (after ? 3 : 1) : 9;
	return true;
}

static char *render_result(const struct verify_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	verify_format_result(f, r);
	fclose(f);
	return buf;
}

static void test_decide(void)
{
	tap_ok(verify_decide(true, true, 0, 5, 0, true) == VERIFY_REFUSED,
	       "decide: refused first");
	tap_ok(verify_decide(false, true, 1, 2, 0, true) == VERIFY_FAULTED,
	       "decide: a grown counter is faulted, even with correct data");
	tap_ok(verify_decide(false, true, 1, 2, 700, false) == VERIFY_FAULTED,
	       "decide: a grown counter is faulted, even with a CUDA error");
	tap_ok(verify_decide(false, false, 1, 2, 0, true) == VERIFY_WORKS,
	       "decide: unknown counters are not looked at");
	tap_ok(verify_decide(false, true, 2, 2, 700, true) == VERIFY_ERROR,
	       "decide: a CUDA error");
	tap_ok(verify_decide(false, true, 2, 2, 0, false) == VERIFY_WRONG_DATA,
	       "decide: wrong data");
	tap_ok(verify_decide(false, true, 2, 2, 0, true) == VERIFY_WORKS,
	       "decide: works");
	tap_ok(!strcmp(verify_verdict_name(VERIFY_REFUSED), "peer access refused") &&
	       !strcmp(verify_verdict_name(VERIFY_WRONG_DATA), "wrong data"),
	       "verdict names");
}

static void test_busid(void)
{
	char out[P2PMAP_ADDR_LEN];

	tap_ok(!verify_norm_busid("0000:3B:00.0", out) &&
	       !strcmp(out, "0000:3b:00.0"), "bus id: lower case");
	tap_ok(!verify_norm_busid("00000001:C1:1f.7", out) &&
	       !strcmp(out, "0001:c1:1f.7"), "bus id: 8-digit domain");
	tap_ok(verify_norm_busid("0000:3b:00", out) &&
	       verify_norm_busid("0000:3b:20.0", out) &&
	       verify_norm_busid("10000:3b:00.0", out) &&
	       verify_norm_busid("0000:3b:00.0x", out),
	       "bus id: malformed ones refused");
}

int main(void)
{
	struct verify_faults faults = { .read = fake_read };
	struct verify_gpu gpus[2];
	struct verify_result r[2];
	char devs[64], *buf, out[256];
	size_t len;
	bool no_cuda;
	FILE *f;
	int n;

	test_decide();
	test_busid();

	n = verify_open(&api, NULL, 0, gpus, &no_cuda, out, sizeof(out));
	tap_ok(n == 2 && !strcmp(gpus[1].pci, "0000:c1:00.0") &&
	       gpus[1].pos == 1, "open: every device, normalised bus ids");

	verify_direction(&api, &gpus[0], &gpus[1], 4096, &faults, &r[0]);
	tap_ok(r[0].verdict == VERIFY_FAULTED && r[0].faults_before == 1 &&
	       r[0].faults_after == 3 && r[0].data_ok && reads == 2,
	       "0 -> 1: the injected counter grows: faulted, data correct");
	buf = render_result(&r[0]);
	tap_ok(!strcmp(buf, "GPU0 (0000:01:00.0) -> GPU1 (0000:c1:00.0): faulted (p2pmap fault counter 1 -> 3, data correct)\n"),
	       "faulted line");
	free(buf);

	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	tap_ok(r[1].verdict == VERIFY_WORKS && r[1].faults_before == 9 &&
	       r[1].faults_after == 9, "1 -> 0: counter steady, data correct: works");
	tap_ok(live_allocs == 0, "every allocation freed");

	drop_copy = 1;
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	tap_ok(r[1].verdict == VERIFY_WRONG_DATA && r[1].first_diff == 0,
	       "dropped writes: wrong data at byte 0 (the destination was pre-filled)");
	drop_copy = 2;
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	tap_ok(r[1].verdict == VERIFY_WRONG_DATA && r[1].first_diff == 0,
	       "a partial copy: wrong data");
	drop_copy = 0;

	peer_res = 700;
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	buf = render_result(&r[1]);
	tap_ok(r[1].verdict == VERIFY_ERROR &&
	       !strcmp(buf, "GPU1 (0000:c1:00.0) -> GPU0 (0000:01:00.0): error (cuMemcpyPeer: CUDA error 700: an illegal memory access was encountered)\n"),
	       "a CUDA error: error, with call and text");
	free(buf);
	peer_res = 0;

	enable_res = 704;
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	tap_ok(r[1].verdict == VERIFY_WORKS && !r[1].cuda_call,
	       "peer access already enabled (704) is fine");
	enable_res = 217;
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	tap_ok(r[1].verdict == VERIFY_REFUSED && r[1].cuda_code == 217,
	       "cuCtxEnablePeerAccess 217: peer access refused");
	enable_res = 0;
	can_peer = 0;
	reads = 0;
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	tap_ok(r[1].verdict == VERIFY_REFUSED && !r[1].cuda_call && !reads &&
	       !r[1].has_before, "cuDeviceCanAccessPeer 0: refused, no copy");
	can_peer = 1;

	counters_known = false;
	verify_direction(&api, &gpus[0], &gpus[1], 4096, &faults, &r[0]);
	tap_ok(r[0].verdict == VERIFY_WORKS && !r[0].has_before &&
	       !r[0].has_after, "unknown counters: verdict from the data");
	counters_known = true;

	/* r[0]: 0 -> 1 faulted; r[1]: 1 -> 0 works. */
	verify_direction(&api, &gpus[0], &gpus[1], 4096, &faults, &r[0]);
	verify_direction(&api, &gpus[1], &gpus[0], 4096, &faults, &r[1]);
	buf = NULL;
	f = open_memstream(&buf, &len);
	verify_vllm_render(f, r, 2, 2);
	fclose(f);
	tap_ok(!strcmp(buf, "{\"0->0\":true,\"0->1\":false,\"1->0\":true,\"1->1\":true}\n"),
	       "vLLM cache: true only for works, diagonal true");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	verify_format_summary(f, r, 2);
	verify_json(f, r, 2, "/tmp/x \"y\".json");
	fclose(f);
	tap_ok(!strncmp(buf, "verify: 2 directions, 1 work\n", 29),
	       "summary line");
	tap_ok(json_valid(strchr(buf, '\n') + 1), "--json is valid JSON");
	if (json_python(strchr(buf, '\n') + 1,
			"import json,sys; d = json.load(sys.stdin); x = d[\"directions\"][0]; "
			"print(x[\"verdict\"], x[\"faults_before\"], x[\"faults_after\"], "
			"x[\"from_pci\"], d[\"summary\"][\"working\"], d[\"vllm_cache\"])",
			out, sizeof(out)) >= 0)
		tap_ok(!strcmp(out, "faulted 1 3 0000:01:00.0 1 /tmp/x \"y\".json"),
		       "--json read by python3: %s", out);
	free(buf);

	tap_ok(!verify_vllm_devs(devs, sizeof(devs), gpus, 2, NULL) &&
	       !strcmp(devs, "0,1"), "vLLM devs: indices");
	gpus[0].index = 2;
	gpus[1].index = 0;
	tap_ok(!verify_vllm_devs(devs, sizeof(devs), gpus, 2, "4,5,GPU-ab") &&
	       !strcmp(devs, "GPU-ab,4"), "vLLM devs: CUDA_VISIBLE_DEVICES entries");
	gpus[0].index = 7;
	tap_ok(!verify_vllm_devs(devs, sizeof(devs), gpus, 2, "4,5") &&
	       !strcmp(devs, "7,4"), "vLLM devs: an index past CUDA_VISIBLE_DEVICES stays");
	return tap_done();
}
