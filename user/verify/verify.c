// SPDX-License-Identifier: GPL-2.0
/* p2pmap verify: the transfers, the verdict rule and the output formats. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_errors.h"
#include "json.h"
#include "verify.h"
#include "isolate.h"
#include "verify_paths.h"
#include "bandwidth.h"
#include "bw_figures.h"


enum verify_verdict verify_decide(const struct verify_op_result *o)
{
	if (o->has_before && o->has_after && o->faults_after > o->faults_before)
		return VERIFY_FAULTED;
	if (o->hung)
		return VERIFY_HUNG;
	if (o->copy.refused)
		return VERIFY_REFUSED;
	if (o->copy.cuda_call[0] || o->child_error[0] || !o->copy.data_checked)
		return VERIFY_ERROR;
	if (!o->copy.data_ok)
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
	case VERIFY_HUNG:
		return "hung";
	case VERIFY_NOT_TESTED:
		return "not tested";
	case VERIFY_ERROR:
		break;
	}
	return "error";
}

const char *verify_op_name(enum verify_op op)
{
	return op == VERIFY_READ ? "read" : "write";
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
	if (!s || *s++ != ':' || dom > 0x7fffffff)
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

void verify_enumerate(const struct cuda_api *api, struct verify_enum *e)
{
	int i;

	e->init = api->Init(0);
	if (e->init == CUDA_SUCCESS_)
		e->init = api->DeviceGetCount(&e->count);
	if (e->init != CUDA_SUCCESS_) {
		cuda_describe(api, e->init, e->err, sizeof(e->err));
		e->count = 0;
		return;
	}
	if (e->count > VERIFY_MAX_GPUS)
		e->count = VERIFY_MAX_GPUS;
	for (i = 0; i < e->count; i++) {
		CUdevice dev;

		e->busid_res[i] = api->DeviceGet(&dev, i);
		if (e->busid_res[i] == CUDA_SUCCESS_)
			e->busid_res[i] = api->DeviceGetPCIBusId(e->busid[i],
					VERIFY_BUSID_LEN, dev);
		e->busid[i][VERIFY_BUSID_LEN - 1] = '\0';
		if (e->busid_res[i] == CUDA_SUCCESS_) {
			CUuuid u;

			if (api->DeviceGetUuid(&u, dev) == CUDA_SUCCESS_)
				verify_format_uuid(&u, e->uuid[i]);
		}
	}
}

void verify_enum_child(void *arg, void *out)
{
	struct verify_enum *e = out;
	struct cuda_api api;

	(void)arg;
	memset(e, 0, sizeof(*e));
	e->load = cuda_load(&api, NULL, e->err, sizeof(e->err));
	if (e->load == CUDA_LOAD_OK) {
		cuda_library_path(&api, e->lib, sizeof(e->lib));
		verify_enumerate(&api, e);
		isolate_result_ready();
		if (!isolate_skip_teardown())
			cuda_unload(&api);
	}
}

void verify_format_uuid(const CUuuid *u, char out[VERIFY_UUID_LEN])
{
	const unsigned char *b = (const unsigned char *)u->bytes;
	char *p = out;
	int i;

	p += sprintf(p, "GPU-");
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		p += sprintf(p, "%02x", b[i]);
	}
}

/* A pattern that differs per direction, operation and 8-byte word. */
void verify_fill_pattern(unsigned char *buf, uint64_t size, uint64_t seed)
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

/* Record the first failing call; true when @res failed. */
static bool failed(const struct cuda_api *api, struct verify_copy *c,
		   const char *call, CUresult res)
{
	const struct cuda_first_error fe = CUDA_FIRST_ERROR(c);

	return cuda_failed(api, &fe, call, res);
}

/*
 * Both buffers, the pattern where the copy reads, its complement where it
 * writes (a dropped write shows); synchronized, as a pageable
 * cuMemcpyHtoD may return before its data land (verify_paths.c).
 */
static bool stage(const struct cuda_api *api, struct verify_copy *c,
		  CUcontext ctx, CUdeviceptr *p, const unsigned char *buf,
		  uint64_t size)
{
	return failed(api, c, "cuCtxSetCurrent", api->CtxSetCurrent(ctx)) ||
	       failed(api, c, "cuMemAlloc", api->MemAlloc(p, size)) ||
	       failed(api, c, "cuMemcpyHtoD", api->MemcpyHtoD(*p, buf, size)) ||
	       failed(api, c, "cuCtxSynchronize", api->CtxSynchronize());
}

struct copy_state {
	CUdevice da, db;
	CUcontext ca, cb;		/* initiator's, peer's */
	CUstream stream;		/* on the initiator's context */
	CUdeviceptr mine, peer;		/* on the initiator, the peer */
	bool enabled;			/* peer access enabled by us */
};

/* Peer access from the initiator's context to the peer's, nothing else. */
static bool enable_peer(const struct cuda_api *api, struct verify_copy *c,
			struct copy_state *s)
{
	CUresult res;

	if (failed(api, c, "cuCtxSetCurrent", api->CtxSetCurrent(s->ca)))
		return false;
	res = api->CtxEnablePeerAccess(s->cb, 0);
	/* A fresh process enabled nothing: "already" is not ours to undo. */
	if (res == CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED)
		return true;
	c->refused = cuda_peer_map_refused("cuCtxEnablePeerAccess", res);
	if (failed(api, c, "cuCtxEnablePeerAccess", res))
		return false;
	s->enabled = true;
	return true;
}

static void copy_cleanup(const struct cuda_api *api, struct copy_state *s)
{
	/* Errors here are not the operation's: its verdict is made. */
	if (s->ca && !api->CtxSetCurrent(s->ca)) {
		if (s->stream)
			api->StreamDestroy(s->stream);
		if (s->enabled)
			api->CtxDisablePeerAccess(s->cb);
		if (s->mine)
			api->MemFree(s->mine);
	}
	if (s->peer && s->cb && !api->CtxSetCurrent(s->cb))
		api->MemFree(s->peer);
	if (s->ca)
		api->DevicePrimaryCtxRelease(s->da);
	if (s->cb)
		api->DevicePrimaryCtxRelease(s->db);
}

void verify_copy_run(const struct cuda_api *api, int from, int to,
		     enum verify_op op, uint64_t size, struct verify_copy *c)
{
	struct copy_state s = { 0 };
	unsigned char *want, *other;
	int can = 0;
	uint64_t i;

	memset(c, 0, sizeof(*c));
	want = malloc(size);
	other = malloc(size);
	if (!want || !other) {
		snprintf(c->cuda_call, sizeof(c->cuda_call), "malloc");
		snprintf(c->cuda_error, sizeof(c->cuda_error), "out of memory");
		c->cuda_code = -1;
		goto out;
	}
	verify_fill_pattern(want, size, (uint64_t)from << 17 | (uint64_t)to << 1 | op);
	for (i = 0; i < size; i++)
		other[i] = ~want[i];

	if (failed(api, c, "cuInit", api->Init(0)) ||
	    failed(api, c, "cuDeviceGet", api->DeviceGet(&s.da, from)) ||
	    failed(api, c, "cuDeviceGet", api->DeviceGet(&s.db, to)) ||
	    failed(api, c, "cuDeviceCanAccessPeer",
		   api->DeviceCanAccessPeer(&can, s.da, s.db)))
		goto out;
	c->can_access = can;
	if (!can) {
		c->refused = true;
		goto out;
	}
	if (failed(api, c, "cuDevicePrimaryCtxRetain",
		   api->DevicePrimaryCtxRetain(&s.ca, s.da)))
		goto out;
	if (failed(api, c, "cuDevicePrimaryCtxRetain",
		   api->DevicePrimaryCtxRetain(&s.cb, s.db))) {
		s.cb = NULL;
		goto out;
	}
	if (stage(api, c, s.cb, &s.peer, op == VERIFY_WRITE ? other : want,
		  size) ||
	    stage(api, c, s.ca, &s.mine, op == VERIFY_WRITE ? want : other,
		  size) ||
	    !enable_peer(api, c, &s) ||
	    failed(api, c, "cuStreamCreate",
		   api->StreamCreate(&s.stream, CU_STREAM_NON_BLOCKING)))
		goto out;
	/* On the initiator's stream: its copy engines do the DMA. */
	if (failed(api, c, "cuMemcpyPeerAsync", op == VERIFY_WRITE ?
		   api->MemcpyPeerAsync(s.peer, s.cb, s.mine, s.ca, size,
					s.stream) :
		   api->MemcpyPeerAsync(s.mine, s.ca, s.peer, s.cb, size,
					s.stream)) ||
	    failed(api, c, "cuStreamSynchronize",
		   api->StreamSynchronize(s.stream)))
		goto out;
	/* Read back where the copy wrote, through that GPU's own context. */
	if (failed(api, c, "cuCtxSetCurrent",
		   api->CtxSetCurrent(op == VERIFY_WRITE ? s.cb : s.ca)) ||
	    failed(api, c, "cuMemcpyDtoH",
		   api->MemcpyDtoH(other, op == VERIFY_WRITE ? s.peer : s.mine,
				   size)))
		goto out;
	c->data_checked = true;
	c->data_ok = true;
	for (i = 0; i < size; i++) {
		if (other[i] != want[i]) {
			c->data_ok = false;
			c->first_diff = i;
			break;
		}
	}
out:
	copy_cleanup(api, &s);
	free(want);
	free(other);
}

void verify_probe_run(const struct cuda_api *api, int gpu,
		      struct verify_copy *c)
{
	unsigned char buf[4096], back[sizeof(buf)];
	CUdeviceptr p = 0;
	CUcontext ctx = NULL;
	CUdevice dev;

	memset(c, 0, sizeof(*c));
	verify_fill_pattern(buf, sizeof(buf), (uint64_t)gpu);
	if (failed(api, c, "cuInit", api->Init(0)) ||
	    failed(api, c, "cuDeviceGet", api->DeviceGet(&dev, gpu)) ||
	    failed(api, c, "cuDevicePrimaryCtxRetain",
		   api->DevicePrimaryCtxRetain(&ctx, dev)))
		return;
	if (!failed(api, c, "cuCtxSetCurrent", api->CtxSetCurrent(ctx)) &&
	    !stage(api, c, ctx, &p, buf, sizeof(buf)) &&
	    !failed(api, c, "cuMemcpyDtoH",
		    api->MemcpyDtoH(back, p, sizeof(back)))) {
		c->data_checked = true;
		c->data_ok = !memcmp(buf, back, sizeof(buf));
	}
	if (p)
		api->MemFree(p);
	api->DevicePrimaryCtxRelease(dev);
}

/*
 * "; last fault at 0xADDR: 0000:41:00.0 BAR0+0x1000 (registers/mailbox)"
 * after @buf's text: which NVIDIA path used a raw peer address.
 */
static void hit_detail(const struct verify_fault_hit *h, char *buf,
		       size_t len)
{
	size_t at = strlen(buf);

	if (!h->known || at >= len)
		return;
	if (!h->in_bar)
		snprintf(buf + at, len - at,
			 "; last fault at 0x%llx, in no tracked BAR",
			 (unsigned long long)h->addr);
	else
		snprintf(buf + at, len - at,
			 "; last fault at 0x%llx: %s BAR%u+0x%llx%s%s%s",
			 (unsigned long long)h->addr, h->dev, h->bar,
			 (unsigned long long)h->offset, h->role[0] ? " (" : "",
			 h->role, h->role[0] ? ")" : "");
}

/* The detail of one operation's verdict, "" when there is none. */
static void op_detail(const struct verify_op_result *o, unsigned int timeout,
		      uint64_t size, char *buf, size_t len)
{
	const struct verify_copy *c = &o->copy;

	buf[0] = '\0';
	switch (o->verdict) {
	case VERIFY_WORKS:
		break;
	case VERIFY_WRONG_DATA:
		/* No size: read back from an older --json document. */
		if (!size)
			snprintf(buf, len, "data read back wrong");
		else
			snprintf(buf, len,
				 "first wrong byte at offset %llu of %llu",
				 (unsigned long long)c->first_diff,
				 (unsigned long long)size);
		break;
	case VERIFY_FAULTED:
		snprintf(buf, len, "p2pmap fault counter %llu -> %llu, data %s",
			 (unsigned long long)o->faults_before,
			 (unsigned long long)o->faults_after,
			 !c->data_checked ? "not read back" :
			 c->data_ok ? "correct" : "wrong");
		hit_detail(&o->hit, buf, len);
		break;
	case VERIFY_HUNG:
		if (!timeout)
			snprintf(buf, len, "not done in time: killed");
		else
			snprintf(buf, len, "not done after %u s: killed%s",
				 timeout, o->stuck ?
				 ", but stuck in the driver: left behind" : "");
		break;
	case VERIFY_NOT_TESTED:
		snprintf(buf, len, "%s", o->child_error);
		break;
	case VERIFY_REFUSED:
		if (c->cuda_call[0])
			snprintf(buf, len, "%s: %s", c->cuda_call,
				 c->cuda_error);
		else
			snprintf(buf, len, "cuDeviceCanAccessPeer: no");
		break;
	case VERIFY_ERROR:
		if (c->cuda_call[0])
			snprintf(buf, len, "%s: %s", c->cuda_call,
				 c->cuda_error);
		else
			snprintf(buf, len, "%s", o->child_error[0] ?
				 o->child_error : "no result");
		break;
	}
}

/* The frameworks in group @w: 0 works for, 1 does not, 2 not tested. */
static bool fw_in(const struct verify_result *r, int fw, int w)
{
	int k = verify_fw_works(r, fw);

	return w == 0 ? k == 1 : w == 1 ? k == 0 : k < 0;
}

/*
 * "  paths: copy works, sm works, ipc wrong data, cumem works" and
 * "  works for: NCCL; not for: vLLM, SGLang", when the paths disagree.
 */
static void format_paths(FILE *f, const struct verify_result *r)
{
	static const char * const head[3] = {
		"works for", "not for", "not tested for",
	};
	int p, fw, w, n, groups = 0;

	fputs("  paths:", f);
	for (p = 0, n = 0; p < VERIFY_NR_PATHS; p++)
		if (r->path[p].ran)
			fprintf(f, "%s %s %s", n++ ? "," : "",
				verify_path_name(p),
				verify_verdict_name(r->path[p].verdict));
	fputs("\n  ", f);
	for (w = 0; w < 3; w++) {
		for (fw = 0, n = 0; fw < VERIFY_NR_FW; fw++) {
			if (!fw_in(r, fw, w))
				continue;
			if (!n++)
				fprintf(f, "%s%s: ", groups++ ? "; " : "",
					head[w]);
			else
				fputs(", ", f);
			fputs(verify_fw_name(fw), f);
		}
	}
	fputc('\n', f);
}

void verify_format_detail(const struct verify_result *r, char *buf,
			  size_t len)
{
	const struct verify_op_result *w = &r->op[VERIFY_WRITE];
	const struct verify_op_result *rd = &r->op[VERIFY_READ];
	char dw[2 * VERIFY_ERR_LEN], dr[2 * VERIFY_ERR_LEN];
	char via[24] = "";

	op_detail(w, r->timeout, r->size, dw, sizeof(dw));
	op_detail(rd, r->timeout, r->size, dr, sizeof(dr));
	/* The copy engine explains it unless another path did worse. */
	if (r->decided_by != VERIFY_PATH_COPY)
		snprintf(via, sizeof(via), "via %s: ",
			 verify_path_name(r->decided_by));
	buf[0] = '\0';
	/* One verdict when both operations say the same. */
	if (w->verdict == rd->verdict && !strcmp(dw, dr)) {
		if (dw[0] || via[0])
			snprintf(buf, len, "(%s%s)", via, dw[0] ? dw :
				 verify_verdict_name(w->verdict));
	} else {
		snprintf(buf, len, "[%swrite: %s%s%s%s; read: %s%s%s%s]", via,
			 verify_verdict_name(w->verdict), dw[0] ? " (" : "",
			 dw, dw[0] ? ")" : "",
			 verify_verdict_name(rd->verdict), dr[0] ? " (" : "",
			 dr, dr[0] ? ")" : "");
	}
}

void verify_format_result(FILE *f, const struct verify_result *r)
{
	char detail[5 * VERIFY_ERR_LEN];

	verify_format_detail(r, detail, sizeof(detail));
	fprintf(f, "GPU%d (%s) -> GPU%d (%s): %s%s%s\n", r->from->index,
		r->from->pci, r->to->index, r->to->pci,
		verify_verdict_name(r->verdict), detail[0] ? " " : "", detail);
	/* Each path said when they disagree or some were left out. */
	if (verify_paths_differ(r) || !verify_paths_all(r))
		format_paths(f, r);
}

void verify_format_bandwidth(FILE *f, const struct verify_result *r)
{
	const struct verify_bw *bw = &r->bw;

	fprintf(f, "bandwidth GPU%d (%s) -> GPU%d (%s): ", r->from->index,
		r->from->pci, r->to->index, r->to->pci);
	if (!bw->measured) {
		fprintf(f, "not measured (%s%s%s)\n",
			bw->cuda_call[0] ? bw->cuda_call : "",
			bw->cuda_call[0] ? ": " : "",
			bw->cuda_call[0] ? bw->cuda_error : r->bw_error);
		return;
	}
	fprintf(f, "%.2f GB/s, latency %.1f us (host: %.1f us to issue a copy; without peer access %.2f GB/s, %.1f us)",
		bw->gbps, bw->latency_us, bw->issue_us, bw->staged_gbps,
		bw->staged_latency_us);
	if (bw->ungated)
		fprintf(f, "; NOT GATED: the host queued slower than the gate held, the GPU times include its calls");
	if (bw->has_bidir)
		fprintf(f, "; both ways at once %.2f GB/s", bw->bidir_gbps);
	bw_figures_format(f, r);
	fputc('\n', f);
}

static size_t count_working(const struct verify_result *r, size_t n)
{
	size_t i, w = 0;

	for (i = 0; i < n; i++)
		w += r[i].verdict == VERIFY_WORKS;
	return w;
}

/* The first direction's reason for the paths it could not test, or NULL. */
static const struct verify_result *first_not_tested(const struct verify_result *r,
						    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].not_tested[0])
			return &r[i];
	return NULL;
}

/*
 * "verify: sm, ipc, cumem not tested: the driver compiles no PTX (...)":
 * a driver without its PTX compiler says nothing about P2P, so those
 * paths are left out, not judged (frameworks "not tested for" them).
 */
static void not_tested_line(FILE *f, const struct verify_result *r, size_t n)
{
	const struct verify_result *t = first_not_tested(r, n);
	int p, k = 0;

	if (!t)
		return;
	fputs("verify: ", f);
	for (p = 0; p < VERIFY_NR_PATHS; p++)
		if (t->path[p].no_jit)
			fprintf(f, "%s%s", k++ ? ", " : "", verify_path_name(p));
	fprintf(f, " not tested: %s\n", t->not_tested);
}

static size_t count_skipped(const struct verify_result *r, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += r[i].wedged != NULL;
	return k;
}

/* Is @i the first direction that names its wedged GPU? */
static bool first_wedged(const struct verify_result *r, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (r[k].wedged == r[i].wedged)
			return false;
	return r[i].wedged != NULL;
}

/*
 * "verify: 6 directions not tested in full: GPU2 (..) wedged: hung in
 * copy write of GPU0 -> GPU2": a GPU that hung, and hung again alone,
 * would cost every later operation on it a timeout.
 */
static void wedged_line(FILE *f, const struct verify_result *r, size_t n)
{
	size_t i, k = 0, skipped = count_skipped(r, n);

	if (!skipped)
		return;
	fprintf(f, "verify: %zu direction%s not tested in full:", skipped,
		skipped == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		if (first_wedged(r, i))
			fprintf(f, "%s GPU%d (%s) wedged: %s", k++ ? ";" : "",
				r[i].wedged->index, r[i].wedged->pci,
				r[i].wedged_why);
	fputc('\n', f);
}

/*
 * "verify: 12 directions, 11 work on every path (copy, sm, ipc, cumem)":
 * the paths named, so that a reader (env, nccl-check) knows what a
 * direction without lines of its own was tested on.
 */
void verify_format_summary(FILE *f, const struct verify_result *r, size_t n)
{
	int p, k = 0;

	fprintf(f, "verify: %zu directions, %zu work on %s (", n,
		count_working(r, n),
		!n || verify_paths_all(r) ? "every path" : "the paths run");
	for (p = 0; n && p < VERIFY_NR_PATHS; p++)
		if (r[0].path[p].ran)
			fprintf(f, "%s%s", k++ ? ", " : "", verify_path_name(p));
	fputs(")\n", f);
	not_tested_line(f, r, n);
	wedged_line(f, r, n);
}

/* "last_fault": null | {"addr", "bar": null | {device, bar, offset, role}} */
static void json_hit(struct json *j, const struct verify_fault_hit *h)
{
	json_key(j, "last_fault");
	if (!h->known) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "addr");
	json_hex(j, h->addr);
	json_key(j, "bar");
	if (!h->in_bar) {
		json_null(j);
	} else {
		json_obj_begin(j);
		json_key(j, "device");
		json_str(j, h->dev);
		json_key(j, "bar");
		json_u64(j, h->bar);
		json_key(j, "offset");
		json_hex(j, h->offset);
		json_key(j, "role");
		json_str_or_null(j, h->role);
		json_obj_end(j);
	}
	json_obj_end(j);
}

/* The fields of one operation, in the object open in @j. */
static void json_op_fields(struct json *j, const struct verify_op_result *o)
{
	json_key_u64_or_null(j, "faults_before", o->has_before, o->faults_before);
	json_key_u64_or_null(j, "faults_after", o->has_after, o->faults_after);
	json_hit(j, &o->hit);
	json_key(j, "cuda_error");
	json_str_or_null(j, o->copy.cuda_call[0] ? o->copy.cuda_error :
			 o->child_error);
	json_key(j, "cuda_call");
	json_str_or_null(j, o->copy.cuda_call);
	json_key(j, "cuda_code");
	if (o->copy.cuda_call[0])
		json_s64(j, o->copy.cuda_code);
	else
		json_null(j);
	json_key(j, "data_ok");
	if (o->copy.data_checked)
		json_bool(j, o->copy.data_ok);
	else
		json_null(j);
	json_key_u64_or_null(j, "first_wrong_byte",
			     o->copy.data_checked && !o->copy.data_ok,
			     o->copy.first_diff);
}

/* "bandwidth": null without --bandwidth or for a broken direction. */
static void json_bw(struct json *j, const struct verify_result *r)
{
	const struct verify_bw *bw = &r->bw;

	json_key(j, "bandwidth");
	if (!r->has_bw) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "measured");
	json_bool(j, bw->measured);
	json_key(j, "gbps");
	json_double_or_null(j, bw->measured, bw->gbps);
	json_key(j, "staged_gbps");
	json_double_or_null(j, bw->measured, bw->staged_gbps);
	json_key(j, "latency_us");
	json_double_or_null(j, bw->measured, bw->latency_us);
	json_key(j, "bidir_gbps");
	json_double_or_null(j, bw->measured && bw->has_bidir, bw->bidir_gbps);
	json_key(j, "looks_staged");
	json_bool(j, verify_bw_staged(bw));
	json_key(j, "issue_us");
	json_double_or_null(j, bw->measured, bw->issue_us);
	json_key(j, "gated");
	json_bool(j, bw->measured && !bw->ungated);
	json_key(j, "peer_access");
	json_bool(j, bw->measured && !bw->no_peer);
	bw_figures_json(j, r);
	json_key(j, "error");
	json_str_or_null(j, bw->measured ? NULL :
			 bw->cuda_call[0] ? bw->cuda_error : r->bw_error);
	json_obj_end(j);
}

/* {"gpu", "pci", "why"}: a GPU found wedged. */
static void json_wedged_gpu(struct json *j, const struct verify_result *r)
{
	json_obj_begin(j);
	json_key(j, "gpu");
	json_u64(j, r->wedged->index);
	json_key(j, "pci");
	json_str(j, r->wedged->pci);
	json_key(j, "why");
	json_str(j, r->wedged_why);
	json_obj_end(j);
}

/* "wedged": the GPUs found wedged, each once. */
static void json_wedged(struct json *j, const struct verify_result *r,
			size_t n)
{
	size_t i;

	json_key(j, "wedged");
	json_arr_begin(j);
	for (i = 0; i < n; i++)
		if (first_wedged(r, i))
			json_wedged_gpu(j, &r[i]);
	json_arr_end(j);
}

/* The operation that decided the direction's verdict (write on a tie). */
static const struct verify_op_result *deciding(const struct verify_result *r)
{
	return r->op[VERIFY_WRITE].verdict == r->verdict ?
	       &r->op[VERIFY_WRITE] : &r->op[VERIFY_READ];
}

/* "write" and "read": each operation's verdict and fields. */
static void json_ops(struct json *j, const struct verify_op_result *ops)
{
	int op;

	for (op = 0; op < VERIFY_NR_OPS; op++) {
		json_key(j, verify_op_name(op));
		json_obj_begin(j);
		json_key(j, "verdict");
		json_enum(j, verify_verdict_name(ops[op].verdict));
		json_op_fields(j, &ops[op]);
		json_obj_end(j);
	}
}

/* "paths": each path's verdict and operations (null: not run), and
 * "frameworks": whether the paths each one uses worked. */
static void json_paths(struct json *j, const struct verify_result *r)
{
	int p, fw, k;

	json_key(j, "paths");
	json_obj_begin(j);
	for (p = 0; p < VERIFY_NR_PATHS; p++) {
		json_key(j, verify_path_name(p));
		if (!r->path[p].ran) {
			json_null(j);
			continue;
		}
		json_obj_begin(j);
		json_key(j, "verdict");
		json_enum(j, verify_verdict_name(r->path[p].verdict));
		json_ops(j, r->path[p].op);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_key(j, "frameworks");
	json_obj_begin(j);
	for (fw = 0; fw < VERIFY_NR_FW; fw++) {
		json_key(j, verify_fw_key(fw));
		k = verify_fw_works(r, fw);
		if (k < 0)
			json_null(j);
		else
			json_bool(j, k);
	}
	json_obj_end(j);
}

void verify_json(FILE *f, const struct verify_result *r, size_t n,
		 const struct verify_caches *caches)
{
	struct json j;
	size_t i;

	json_init(&j, f);
	json_doc_begin(&j);
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
		json_key(&j, "size");
		json_u64(&j, r[i].size);
		json_key(&j, "timeout_s");
		json_u64(&j, r[i].timeout);
		json_key(&j, "verdict");
		json_enum(&j, verify_verdict_name(r[i].verdict));
		/* Before write/read existed: the deciding operation's. */
		json_op_fields(&j, deciding(&r[i]));
		json_bw(&j, &r[i]);
		json_ops(&j, r[i].op);
		json_key(&j, "decided_by");
		json_str(&j, verify_path_name(r[i].decided_by));
		json_paths(&j, &r[i]);
		json_key(&j, "skipped");
		if (r[i].wedged)
			json_wedged_gpu(&j, &r[i]);
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
	json_key(&j, "not_tested");
	json_str(&j, first_not_tested(r, n) ?
		 first_not_tested(r, n)->not_tested : NULL);
	json_key(&j, "skipped");
	json_u64(&j, count_skipped(r, n));
	json_wedged(&j, r, n);
	json_obj_end(&j);
	json_key(&j, "device_order");
	json_str(&j, caches->order);
	json_key(&j, "vllm_cache");
	json_str(&j, caches->vllm);
	json_key(&j, "sglang_cache");
	json_str(&j, caches->sglang);
	json_obj_end(&j);
	fputc('\n', f);
}
