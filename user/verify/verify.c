// SPDX-License-Identifier: GPL-2.0
/* p2pmap verify: the transfers, the verdict rule and the output formats. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "verify.h"

enum verify_verdict verify_decide(bool refused, bool counters_known,
				  uint64_t before, uint64_t after,
				  CUresult err, bool data_ok)
{
	if (refused)
		return VERIFY_REFUSED;
	if (counters_known && after > before)
		return VERIFY_FAULTED;
	if (err != CUDA_SUCCESS)
		return VERIFY_ERROR;
	if (!data_ok)
		return VERIFY_WRONG_DATA;
	return VERIFY_WORKS;
}

const char *verify_verdict_name(enum verify_verdict v)
{
	switch (v) {
	case VERIFY_WORKS:
		return "works";
	case VERIFY_WRONG_DATA:
		return "wrong data";
	case VERIFY_FAULTED:
		return "faulted";
	case VERIFY_REFUSED:
		return "peer access refused";
	case VERIFY_ERROR:
		break;
	}
	return "error";
}

/* @n hex digits at most (at least one); value in *@v, end returned. */
static const char *hexfield(const char *s, unsigned int n, unsigned long *v)
{
	unsigned int i;

	*v = 0;
	for (i = 0; i < n && isxdigit((unsigned char)s[i]); i++)
		*v = *v * 16 + (isdigit((unsigned char)s[i]) ? s[i] - '0' :
				tolower((unsigned char)s[i]) - 'a' + 10);
	return i ? s + i : NULL;
}

int verify_norm_busid(const char *s, char out[P2PMAP_ADDR_LEN])
{
	unsigned long dom, bus, dev, fn;

	s = hexfield(s, 8, &dom);
	if (!s || *s++ != ':' || dom > 0xffff)
		return -1;
	s = hexfield(s, 2, &bus);
	if (!s || *s++ != ':')
		return -1;
	s = hexfield(s, 2, &dev);
	if (!s || *s++ != '.' || dev > 0x1f)
		return -1;
	s = hexfield(s, 1, &fn);
	if (!s || *s || fn > 7)
		return -1;
	snprintf(out, P2PMAP_ADDR_LEN, "%04lx:%02lx:%02lx.%lx", dom, bus, dev,
		 fn);
	return 0;
}

static int open_one(const struct cuda_api *api, int index,
		    struct verify_gpu *g, char *err, size_t errlen)
{
	char busid[32];
	CUresult res;

	memset(g, 0, sizeof(*g));
	g->index = index;
	res = api->DeviceGet(&g->dev, index);
	if (res == CUDA_SUCCESS)
		res = api->DeviceGetPCIBusId(busid, sizeof(busid), g->dev);
	if (res != CUDA_SUCCESS) {
		snprintf(err, errlen, "CUDA device %d: %s", index,
			 cuda_strerror(api, res));
		return -1;
	}
	busid[sizeof(busid) - 1] = '\0';
	if (verify_norm_busid(busid, g->pci)) {
		snprintf(err, errlen, "CUDA device %d: unexpected PCI bus id \"%s\"",
			 index, busid);
		return -1;
	}
	res = api->DevicePrimaryCtxRetain(&g->ctx, g->dev);
	if (res != CUDA_SUCCESS) {
		snprintf(err, errlen, "CUDA device %d (%s): cuDevicePrimaryCtxRetain: %s",
			 index, g->pci, cuda_strerror(api, res));
		g->ctx = NULL;
		return -1;
	}
	return 0;
}

int verify_open(const struct cuda_api *api, const int *indices, size_t n,
		struct verify_gpu *gpus, bool *no_cuda, char *err,
		size_t errlen)
{
	int count = 0, i;
	size_t k, want;
	CUresult res;

	*no_cuda = false;
	res = api->Init(0);
	if (res == CUDA_SUCCESS)
		res = api->DeviceGetCount(&count);
	if (res == CUDA_ERROR_NO_DEVICE || (res == CUDA_SUCCESS && !count)) {
		*no_cuda = true;
		snprintf(err, errlen, "no CUDA devices");
		return -1;
	}
	if (res != CUDA_SUCCESS) {
		snprintf(err, errlen, "cuInit: %s", cuda_strerror(api, res));
		return -1;
	}
	want = n ? n : (size_t)count;
	if (want > VERIFY_MAX_GPUS)
		want = VERIFY_MAX_GPUS;
	for (k = 0; k < want; k++) {
		i = n ? indices[k] : (int)k;
		if (i >= count) {
			snprintf(err, errlen, "no CUDA device %d (%d present)",
				 i, count);
			verify_close(api, gpus, k);
			return -1;
		}
		if (open_one(api, i, &gpus[k], err, errlen)) {
			verify_close(api, gpus, k);
			return -1;
		}
		gpus[k].pos = k;
	}
	return (int)want;
}

void verify_close(const struct cuda_api *api, struct verify_gpu *gpus,
		  size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (gpus[k].ctx)
			api->DevicePrimaryCtxRelease(gpus[k].dev);
}

/* A pattern that differs per direction and per 8-byte word. */
static void fill_pattern(unsigned char *buf, uint64_t size, uint64_t seed)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1, i;

	for (i = 0; i < size; i++) {
		if (!(i & 7)) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		buf[i] = (unsigned char)(x >> ((i & 7) * 8));
	}
}

/* Record the first failing call of a direction. */
static CUresult note(const struct cuda_api *api, struct verify_result *r,
		     const char *call, CUresult res)
{
	if (res != CUDA_SUCCESS && !r->cuda_call) {
		r->cuda_call = call;
		r->cuda_code = res;
		snprintf(r->cuda_error, sizeof(r->cuda_error), "%s",
			 cuda_strerror(api, res));
	}
	return res;
}

/*
 * The copy itself: @src on @from filled with the pattern, @dst on @to
 * with its complement (a dropped write shows), cuMemcpyPeer, read back.
 */
static void copy_and_check(const struct cuda_api *api,
			   const struct verify_gpu *from,
			   const struct verify_gpu *to, uint64_t size,
			   struct verify_faults *faults, struct verify_result *r)
{
	CUdeviceptr src = 0, dst = 0;
	unsigned char *want, *got;
	uint64_t i;
	CUresult res;

	want = malloc(size);
	got = malloc(size);
	if (!want || !got) {
		snprintf(r->cuda_error, sizeof(r->cuda_error), "out of memory");
		r->cuda_call = "malloc";
		r->cuda_code = -1;
		goto out;
	}
	fill_pattern(want, size, (uint64_t)from->index << 16 | to->index);
	for (i = 0; i < size; i++)
		got[i] = ~want[i];

	if (note(api, r, "cuCtxSetCurrent", api->CtxSetCurrent(from->ctx)) ||
	    note(api, r, "cuMemAlloc", api->MemAlloc(&src, size)) ||
	    note(api, r, "cuMemcpyHtoD", api->MemcpyHtoD(src, want, size)) ||
	    note(api, r, "cuCtxSetCurrent", api->CtxSetCurrent(to->ctx)) ||
	    note(api, r, "cuMemAlloc", api->MemAlloc(&dst, size)) ||
	    note(api, r, "cuMemcpyHtoD", api->MemcpyHtoD(dst, got, size)) ||
	    note(api, r, "cuCtxSynchronize", api->CtxSynchronize()))
		goto free;

	if (faults)
		r->has_before = faults->read(faults, from, to, false,
					     &r->faults_before);
	res = note(api, r, "cuCtxSetCurrent", api->CtxSetCurrent(from->ctx));
	if (!res)
		res = note(api, r, "cuMemcpyPeer",
			   api->MemcpyPeer(dst, to->ctx, src, from->ctx, size));
	if (!res)
		res = note(api, r, "cuCtxSynchronize", api->CtxSynchronize());
	if (!res)
		res = note(api, r, "cuCtxSetCurrent",
			   api->CtxSetCurrent(to->ctx));
	if (!res)
		res = note(api, r, "cuCtxSynchronize", api->CtxSynchronize());
	if (!res)
		res = note(api, r, "cuMemcpyDtoH",
			   api->MemcpyDtoH(got, dst, size));
	if (faults)
		r->has_after = faults->read(faults, from, to, true,
					    &r->faults_after);
	if (!res) {
		r->data_checked = true;
		r->data_ok = true;
		for (i = 0; i < size; i++) {
			if (got[i] != want[i]) {
				r->data_ok = false;
				r->first_diff = i;
				break;
			}
		}
	}
free:
	/* Errors here are not the direction's: the verdict is made. */
	if (src && !api->CtxSetCurrent(from->ctx))
		api->MemFree(src);
	if (dst && !api->CtxSetCurrent(to->ctx))
		api->MemFree(dst);
out:
	free(want);
	free(got);
}

void verify_direction(const struct cuda_api *api, const struct verify_gpu *from,
		      const struct verify_gpu *to, uint64_t size,
		      struct verify_faults *faults, struct verify_result *r)
{
	bool refused = false;
	int can = 0;
	CUresult res;

	memset(r, 0, sizeof(*r));
	r->from = from;
	r->to = to;
	r->size = size;

	res = note(api, r, "cuDeviceCanAccessPeer",
		   api->DeviceCanAccessPeer(&can, from->dev, to->dev));
	r->can_access = !res && can;
	if (!res && !can)
		refused = true;
	if (!res && can) {
		res = note(api, r, "cuCtxSetCurrent",
			   api->CtxSetCurrent(from->ctx));
		if (!res) {
			res = api->CtxEnablePeerAccess(to->ctx, 0);
			if (res == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
				res = CUDA_SUCCESS;
			note(api, r, "cuCtxEnablePeerAccess", res);
			refused = res == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
		}
		if (!res)
			copy_and_check(api, from, to, size, faults, r);
	}
	r->verdict = verify_decide(refused, r->has_before && r->has_after,
				   r->faults_before, r->faults_after,
				   r->cuda_call ? r->cuda_code : CUDA_SUCCESS,
				   r->data_ok);
}

void verify_format_result(FILE *f, const struct verify_result *r)
{
	fprintf(f, "GPU%d (%s) -> GPU%d (%s): %s", r->from->index,
		r->from->pci, r->to->index, r->to->pci,
		verify_verdict_name(r->verdict));
	switch (r->verdict) {
	case VERIFY_WORKS:
		break;
	case VERIFY_WRONG_DATA:
		fprintf(f, " (first wrong byte at offset %llu of %llu)",
			(unsigned long long)r->first_diff,
			(unsigned long long)r->size);
		break;
	case VERIFY_FAULTED:
		fprintf(f, " (p2pmap fault counter %llu -> %llu, data %s)",
			(unsigned long long)r->faults_before,
			(unsigned long long)r->faults_after,
			!r->data_checked ? "not read back" :
			r->data_ok ? "correct" : "wrong");
		break;
	case VERIFY_REFUSED:
		if (r->cuda_call)
			fprintf(f, " (%s: %s)", r->cuda_call, r->cuda_error);
		else
			fprintf(f, " (cuDeviceCanAccessPeer: no)");
		break;
	case VERIFY_ERROR:
		fprintf(f, " (%s: CUDA error %d: %s)", r->cuda_call,
			r->cuda_code, r->cuda_error);
		break;
	}
	fputc('\n', f);
}

static size_t count_working(const struct verify_result *r, size_t n)
{
	size_t i, w = 0;

	for (i = 0; i < n; i++)
		w += r[i].verdict == VERIFY_WORKS;
	return w;
}

void verify_format_summary(FILE *f, const struct verify_result *r, size_t n)
{
	fprintf(f, "verify: %zu directions, %zu work\n", n,
		count_working(r, n));
}

void verify_json(FILE *f, const struct verify_result *r, size_t n,
		 const char *vllm_cache)
{
	struct json j;
	size_t i;

	json_init(&j, f);
	json_obj_begin(&j);
	json_key(&j, "directions");
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		json_obj_begin(&j);
		json_key(&j, "from");
		json_u64(&j, r[i].from->index);
		json_key(&j, "to");
		json_u64(&j, r[i].to->index);
		json_key(&j, "from_pci");
		json_str(&j, r[i].from->pci);
		json_key(&j, "to_pci");
		json_str(&j, r[i].to->pci);
		json_key(&j, "verdict");
		json_str(&j, verify_verdict_name(r[i].verdict));
		json_key(&j, "faults_before");
		if (r[i].has_before)
			json_u64(&j, r[i].faults_before);
		else
			json_null(&j);
		json_key(&j, "faults_after");
		if (r[i].has_after)
			json_u64(&j, r[i].faults_after);
		else
			json_null(&j);
		json_key(&j, "cuda_error");
		json_str_or_null(&j, r[i].cuda_error);
		json_key(&j, "cuda_call");
		json_str(&j, r[i].cuda_call);
		json_key(&j, "data_ok");
		if (r[i].data_checked)
			json_bool(&j, r[i].data_ok);
		else
			json_null(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_key(&j, "summary");
	json_obj_begin(&j);
	json_key(&j, "directions");
	json_u64(&j, n);
	json_key(&j, "working");
	json_u64(&j, count_working(r, n));
	json_obj_end(&j);
	json_key(&j, "vllm_cache");
	json_str(&j, vllm_cache);
	json_obj_end(&j);
	fputc('\n', f);
}

static bool vllm_works(const struct verify_result *r, size_t n,
		       unsigned int a, unsigned int b)
{
	size_t i;

	if (a == b)
		return true;
	for (i = 0; i < n; i++)
		if (r[i].from->pos == a && r[i].to->pos == b)
			return r[i].verdict == VERIFY_WORKS;
	return false;
}

void verify_vllm_render(FILE *f, const struct verify_result *r, size_t n,
			size_t ngpus)
{
	unsigned int a, b;
	char key[32];
	struct json j;

	json_init(&j, f);
	json_obj_begin(&j);
	for (a = 0; a < ngpus; a++) {
		for (b = 0; b < ngpus; b++) {
			snprintf(key, sizeof(key), "%u->%u", a, b);
			json_key(&j, key);
			json_bool(&j, vllm_works(r, n, a, b));
		}
	}
	json_obj_end(&j);
	fputc('\n', f);
}

int verify_vllm_devs(char *buf, size_t len, const struct verify_gpu *gpus,
		     size_t n, const char *visible)
{
	char entry[64];
	size_t k, used = 0;
	const char *p;
	int i, w;

	buf[0] = '\0';
	for (k = 0; k < n; k++) {
		snprintf(entry, sizeof(entry), "%d", gpus[k].index);
		/* The index-th entry of CUDA_VISIBLE_DEVICES, if it has one. */
		for (p = visible, i = 0; p && *p && i < gpus[k].index; i++) {
			p = strchr(p, ',');
			p = p ? p + 1 : NULL;
		}
		if (p && *p && strcspn(p, ",") < sizeof(entry) &&
		    strcspn(p, ","))
			snprintf(entry, sizeof(entry), "%.*s",
				 (int)strcspn(p, ","), p);
		w = snprintf(buf + used, len - used, "%s%s", k ? "," : "",
			     entry);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += w;
	}
	return 0;
}
