// SPDX-License-Identifier: GPL-2.0
/* verify --bandwidth: copies timed with CUDA events (bandwidth.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bandwidth.h"
#include "gate_ptx.h"

#define LINK_READS		200
#define LINK_READ_EVERY_US	250.0

struct bw_side {
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUdeviceptr buf;
	CUevent start, end;
	CUmodule mod;
	CUfunction gate;		/* p2pmap_spin */
	bool enabled;			/* peer access to the other side */
};

/* The host's clock, in us. */
static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The host waits until @t (us, now_us()'s clock). */
static void sleep_until(double t)
{
	double left = t - now_us();
	struct timespec ts;

	if (left <= 0)
		return;
	ts.tv_sec = (time_t)(left / 1e6);
	ts.tv_nsec = (long)((left - ts.tv_sec * 1e6) * 1e3);
	nanosleep(&ts, NULL);
}

static bool bw_failed(const struct cuda_api *api, struct verify_bw *bw,
		      const char *call, CUresult res)
{
	const struct cuda_first_error fe = CUDA_FIRST_ERROR(bw);

	return cuda_failed(api, &fe, call, res);
}

static bool side_open(const struct cuda_api *api, struct verify_bw *bw,
		      struct bw_side *s, int ordinal)
{
	if (bw_failed(api, bw, "cuDeviceGet", api->DeviceGet(&s->dev, ordinal)) ||
	    bw_failed(api, bw, "cuDevicePrimaryCtxRetain",
		      api->DevicePrimaryCtxRetain(&s->ctx, s->dev)))
		return false;
	return !bw_failed(api, bw, "cuCtxSetCurrent",
			  api->CtxSetCurrent(s->ctx)) &&
	       !bw_failed(api, bw, "cuMemAlloc",
			  api->MemAlloc(&s->buf, VERIFY_BW_SIZE)) &&
	       !bw_failed(api, bw, "cuStreamCreate",
			  api->StreamCreate(&s->stream,
					    CU_STREAM_NON_BLOCKING)) &&
	       !bw_failed(api, bw, "cuEventCreate",
			  api->EventCreate(&s->start, 0)) &&
	       !bw_failed(api, bw, "cuEventCreate",
			  api->EventCreate(&s->end, 0)) &&
	       !bw_failed(api, bw, "cuModuleLoadData",
			  api->ModuleLoadData(&s->mod, verify_gate_ptx)) &&
	       !bw_failed(api, bw, "cuModuleGetFunction",
			  api->ModuleGetFunction(&s->gate, s->mod,
						 "p2pmap_spin"));
}

/* Everything but the context: both sides' go before either context. */
static void side_close(const struct cuda_api *api, struct bw_side *s,
		       const struct bw_side *peer)
{
	if (!s->ctx)
		return;
	if (!api->CtxSetCurrent(s->ctx)) {
		if (s->start)
			api->EventDestroy(s->start);
		if (s->end)
			api->EventDestroy(s->end);
		if (s->mod)
			api->ModuleUnload(s->mod);
		if (s->stream)
			api->StreamDestroy(s->stream);
		if (s->enabled)
			api->CtxDisablePeerAccess(peer->ctx);
		if (s->buf)
			api->MemFree(s->buf);
	}
}

/*
 * Peer access from @s to @peer: 1 enabled, 0 not possible (CUDA then
 * stages every copy through the host), -1 another error.
 */
static int enable(const struct cuda_api *api, struct verify_bw *bw,
		  struct bw_side *s, const struct bw_side *peer)
{
	CUresult res;
	int can = 0;

	if (bw_failed(api, bw, "cuDeviceCanAccessPeer",
		      api->DeviceCanAccessPeer(&can, s->dev, peer->dev)) ||
	    bw_failed(api, bw, "cuCtxSetCurrent", api->CtxSetCurrent(s->ctx)))
		return -1;
	if (!can)
		return 0;
	res = api->CtxEnablePeerAccess(peer->ctx, 0);
	if (res == CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED)
		return 1;
	if (res == CUDA_ERR_PEER_ACCESS_UNSUPPORTED)
		return 0;
	if (bw_failed(api, bw, "cuCtxEnablePeerAccess", res))
		return -1;
	s->enabled = true;
	return 1;
}

/*
 * Hold @s's stream for @ns from when the GPU reaches the gate (its
 * context current: the kernel is its module's).
 */
static bool gate_close(const struct cuda_api *api, struct verify_bw *bw,
		       struct bw_side *s, unsigned long long ns)
{
	void *params[] = { &ns };

	return !bw_failed(api, bw, "cuCtxSetCurrent",
			  api->CtxSetCurrent(s->ctx)) &&
	       !bw_failed(api, bw, "cuLaunchKernel",
			  api->LaunchKernel(s->gate, 1, 1, 1, 1, 1, 1, 0,
					    s->stream, params, NULL));
}

/* @n copies of @size from @s's buffer into @d's, on @s's stream. */
static bool enqueue(const struct cuda_api *api, struct verify_bw *bw,
		    struct bw_side *s, struct bw_side *d, uint64_t size,
		    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (bw_failed(api, bw, "cuMemcpyPeerAsync",
			      api->MemcpyPeerAsync(d->buf, d->ctx, s->buf,
						   s->ctx, size, s->stream)))
			return false;
	return true;
}

/*
 * One copy from @s to @d, untimed, waited for: the first copy of a
 * process or of a new kind (staged, direct) carries the driver's set-up
 * (staging buffers, peer mappings), as nvbandwidth's warm-up copies do
 * before it times any (github.com/NVIDIA/nvbandwidth, WARMUP_COUNT).
 */
static bool warm_up(const struct cuda_api *api, struct verify_bw *bw,
		    struct bw_side *s, struct bw_side *d)
{
	return !bw_failed(api, bw, "cuCtxSetCurrent",
			  api->CtxSetCurrent(s->ctx)) &&
	       enqueue(api, bw, s, d, VERIFY_BW_SIZE, 1) &&
	       !bw_failed(api, bw, "cuStreamSynchronize",
			  api->StreamSynchronize(s->stream));
}

/* The time between @s's two events, in ms; < 0 on an error. */
static double elapsed_ms(const struct cuda_api *api, struct verify_bw *bw,
			 struct bw_side *s)
{
	float ms = 0;

	if (bw_failed(api, bw, "cuEventSynchronize",
		      api->EventSynchronize(s->end)) ||
	    bw_failed(api, bw, "cuEventElapsedTime",
		      api->EventElapsedTime(&ms, s->start, s->end)))
		return -1;
	return ms;
}

/* One timed run: up to two streams at once (both ways). */
struct bw_run {
	int n;				/* streams */
	struct bw_side *s[2], *d[2];	/* each stream's side, its peer */
	uint64_t size;
	unsigned int reps;
	const char *const *pci;		/* read the links as copies run */
	double ms[2];			/* GPU time of each stream */
	double issue_us;		/* host time queueing the copies */
};

/* Gate each stream, then queue its copies between its two events. */
static bool queue(const struct cuda_api *api, struct verify_bw *bw,
		  struct bw_run *run, unsigned long long ns)
{
	double t;
	int i;

	for (i = 0; i < run->n; i++)
		if (!gate_close(api, bw, run->s[i], ns) ||
		    bw_failed(api, bw, "cuEventRecord",
			      api->EventRecord(run->s[i]->start,
					       run->s[i]->stream)))
			return false;
	run->issue_us = 0;
	for (i = 0; i < run->n; i++) {
		t = now_us();
		if (!enqueue(api, bw, run->s[i], run->d[i], run->size,
			     run->reps))
			return false;
		run->issue_us += now_us() - t;
		if (bw_failed(api, bw, "cuEventRecord",
			      api->EventRecord(run->s[i]->end,
					       run->s[i]->stream)))
			return false;
	}
	return true;
}

/*
 * Both GPUs' links, read from when the gate opens until the copies are
 * done (twice at least, LINK_READS at most): the highest seen, as a link
 * an idle GPU had slowed trains up again only once the copies run.
 */
static void links_while(const struct cuda_api *api, struct verify_bw *bw,
			const struct bw_run *run)
{
	struct pcie_link l;
	int i, j;

	for (i = 0; i < LINK_READS; i++) {
		for (j = 0; j < 2; j++) {
			pcie_link_read(run->pci[j], &l);
			pcie_link_keep_best(&bw->link[j], &l);
		}
		/* 600 NOT_READY while they run; an error shows later. */
		if (i && api->EventQuery(run->s[0]->end) != CUDA_ERR_NOT_READY)
			return;
		sleep_until(now_us() + LINK_READ_EVERY_US);
	}
}

/*
 * @run, its copies queued behind a gate so that the GPU times them back
 * to back, not the host's calls.  The gate must outlast the queueing
 * (else the GPU waited on the host): if not, again with a longer gate;
 * still not, bw->ungated.
 */
static bool gated(const struct cuda_api *api, struct verify_bw *bw,
		  struct bw_run *run)
{
	unsigned long long ns = VERIFY_GATE_NS;
	double t0;
	bool held;
	int tries, i;

	for (tries = 0; tries < VERIFY_GATE_TRIES; tries++, ns *= 4) {
		t0 = now_us();
		if (!queue(api, bw, run, ns))
			return false;
		held = now_us() - t0 < ns / 1e3;
		if (run->pci) {
			/* The gate open, the copies run: links at work. */
			sleep_until(t0 + ns / 1e3);
			links_while(api, bw, run);
		}
		for (i = 0; i < run->n; i++) {
			run->ms[i] = elapsed_ms(api, bw, run->s[i]);
			if (run->ms[i] < 0)
				return false;
		}
		if (held)
			return true;
	}
	bw->ungated = true;
	return true;
}

static double gbps(uint64_t bytes, double ms)
{
	return ms > 0 ? bytes / (ms * 1e6) : 0;
}

/*
 * One direction's copies, timed: GB/s, or < 0 on an error.  @pci: read
 * both links while the copies run (an idle GPU's link slows down).
 */
static double timed(const struct cuda_api *api, struct verify_bw *bw,
		    struct bw_side *s, struct bw_side *d,
		    const char *const pci[2])
{
	struct bw_run run = {
		.n = 1, .s = { s }, .d = { d }, .size = VERIFY_BW_SIZE,
		.reps = VERIFY_BW_REPS, .pci = pci,
	};

	if (!warm_up(api, bw, s, d) || !gated(api, bw, &run))
		return -1;
	return gbps(VERIFY_BW_SIZE * VERIFY_BW_REPS, run.ms[0]);
}

/*
 * A hundred 4-byte copies: the GPU's latency of one, in us (< 0 on an
 * error); @issue_us: the host's time to queue one.
 */
static double latency(const struct cuda_api *api, struct verify_bw *bw,
		      struct bw_side *a, struct bw_side *b, double *issue_us)
{
	struct bw_run run = {
		.n = 1, .s = { a }, .d = { b }, .size = 4,
		.reps = VERIFY_LAT_REPS,
	};

	if (!gated(api, bw, &run))
		return -1;
	*issue_us = run.issue_us / VERIFY_LAT_REPS;
	return run.ms[0] * 1000.0 / VERIFY_LAT_REPS;
}

/* Both engines at once; the slower side sets the time. */
static bool both_ways(const struct cuda_api *api, struct verify_bw *bw,
		      struct bw_side *a, struct bw_side *b)
{
	struct bw_run run = {
		.n = 2, .s = { a, b }, .d = { b, a }, .size = VERIFY_BW_SIZE,
		.reps = VERIFY_BW_REPS,
	};

	if (enable(api, bw, b, a) != 1 || !warm_up(api, bw, b, a) ||
	    !gated(api, bw, &run))
		return false;
	bw->has_bidir = true;
	bw->bidir_gbps = gbps(2 * VERIFY_BW_SIZE * VERIFY_BW_REPS,
			      run.ms[0] > run.ms[1] ? run.ms[0] : run.ms[1]);
	return true;
}

/* No peer access: the direction's copies are the staged ones. */
static void no_peer(struct verify_bw *bw)
{
	bw->no_peer = true;
	bw->gbps = bw->staged_gbps;
	bw->latency_us = bw->staged_latency_us;
	bw->issue_us = bw->staged_issue_us;
	bw->measured = true;
}

void verify_bw_run(const struct cuda_api *api, int from, int to,
		   const char *const pci[2], bool bidir, struct verify_bw *bw)
{
	struct bw_side a = { 0 }, b = { 0 };
	int peer;

	memset(bw, 0, sizeof(*bw));
	if (bw_failed(api, bw, "cuInit", api->Init(0)) ||
	    !side_open(api, bw, &a, from) || !side_open(api, bw, &b, to))
		goto out;
	/* Without peer access first: CUDA stages these through the host. */
	bw->staged_gbps = timed(api, bw, &a, &b, NULL);
	if (bw->staged_gbps < 0)
		goto out;
	bw->staged_latency_us = latency(api, bw, &a, &b,
					&bw->staged_issue_us);
	if (bw->staged_latency_us < 0)
		goto out;
	peer = enable(api, bw, &a, &b);
	if (peer <= 0) {
		if (!peer)
			no_peer(bw);
		goto out;
	}
	bw->gbps = timed(api, bw, &a, &b, pci);
	if (bw->gbps < 0)
		goto out;
	bw->latency_us = latency(api, bw, &a, &b, &bw->issue_us);
	if (bw->latency_us < 0 || (bidir && !both_ways(api, bw, &a, &b)))
		goto out;
	bw->measured = true;
out:
	/* Peer access to a released context could not be disabled. */
	side_close(api, &a, &b);
	side_close(api, &b, &a);
	if (a.ctx)
		api->DevicePrimaryCtxRelease(a.dev);
	if (b.ctx)
		api->DevicePrimaryCtxRelease(b.dev);
}

bool verify_bw_staged(const struct verify_bw *bw)
{
	/* Ungated, the latency is the host's: only no peer access counts. */
	return bw->measured &&
	       (bw->no_peer || (!bw->ungated &&
				bw->latency_us >= VERIFY_BW_STAGED_LAT_US));
}
