// SPDX-License-Identifier: GPL-2.0
/* verify --bandwidth: copies timed with CUDA events (bandwidth.h). */
#include <stdio.h>
#include <string.h>

#include "bandwidth.h"

struct bw_side {
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	CUdeviceptr buf;
	CUevent start, end;
	bool enabled;			/* peer access to the other side */
};

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
			  api->EventCreate(&s->end, 0));
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
		if (s->stream)
			api->StreamDestroy(s->stream);
		if (s->enabled)
			api->CtxDisablePeerAccess(peer->ctx);
		if (s->buf)
			api->MemFree(s->buf);
	}
}

static bool enable(const struct cuda_api *api, struct verify_bw *bw,
		   struct bw_side *s, const struct bw_side *peer)
{
	CUresult res;

	if (bw_failed(api, bw, "cuCtxSetCurrent", api->CtxSetCurrent(s->ctx)))
		return false;
	res = api->CtxEnablePeerAccess(peer->ctx, 0);
	if (res == CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED)
		return true;
	if (bw_failed(api, bw, "cuCtxEnablePeerAccess", res))
		return false;
	s->enabled = true;
	return true;
}

/* @n copies of @size from @s's buffer into @d's, on @s's stream. */
static bool issue(const struct cuda_api *api, struct verify_bw *bw,
		  struct bw_side *s, struct bw_side *d, uint64_t size,
		  unsigned int n)
{
	unsigned int i;

	if (bw_failed(api, bw, "cuEventRecord",
		      api->EventRecord(s->start, s->stream)))
		return false;
	for (i = 0; i < n; i++)
		if (bw_failed(api, bw, "cuMemcpyPeerAsync",
			      api->MemcpyPeerAsync(d->buf, d->ctx, s->buf,
						   s->ctx, size, s->stream)))
			return false;
	return !bw_failed(api, bw, "cuEventRecord",
			  api->EventRecord(s->end, s->stream));
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
	double ms;

	if (!issue(api, bw, s, d, VERIFY_BW_SIZE, VERIFY_BW_REPS))
		return -1;
	if (pci) {
		pcie_link_read(pci[0], &bw->link[0]);
		pcie_link_read(pci[1], &bw->link[1]);
	}
	ms = elapsed_ms(api, bw, s);
	return ms < 0 ? -1 : gbps(VERIFY_BW_SIZE * VERIFY_BW_REPS, ms);
}

/* A hundred 4-byte copies: the latency of one, in us; < 0 on an error. */
static double latency(const struct cuda_api *api, struct verify_bw *bw,
		      struct bw_side *a, struct bw_side *b)
{
	double ms;

	if (!issue(api, bw, a, b, 4, VERIFY_LAT_REPS))
		return -1;
	ms = elapsed_ms(api, bw, a);
	return ms < 0 ? -1 : ms * 1000.0 / VERIFY_LAT_REPS;
}

/* Both engines at once; the slower side sets the time. */
static bool both_ways(const struct cuda_api *api, struct verify_bw *bw,
		      struct bw_side *a, struct bw_side *b)
{
	double ms_a, ms_b;

	if (!enable(api, bw, b, a) ||
	    !issue(api, bw, a, b, VERIFY_BW_SIZE, VERIFY_BW_REPS) ||
	    !issue(api, bw, b, a, VERIFY_BW_SIZE, VERIFY_BW_REPS))
		return false;
	ms_a = elapsed_ms(api, bw, a);
	ms_b = elapsed_ms(api, bw, b);
	if (ms_a < 0 || ms_b < 0)
		return false;
	bw->has_bidir = true;
	bw->bidir_gbps = gbps(2 * VERIFY_BW_SIZE * VERIFY_BW_REPS,
			      ms_a > ms_b ? ms_a : ms_b);
	return true;
}

void verify_bw_run(const struct cuda_api *api, int from, int to,
		   const char *const pci[2], bool bidir, struct verify_bw *bw)
{
	struct bw_side a = { 0 }, b = { 0 };

	memset(bw, 0, sizeof(*bw));
	if (bw_failed(api, bw, "cuInit", api->Init(0)) ||
	    !side_open(api, bw, &a, from) || !side_open(api, bw, &b, to))
		goto out;
	/* Without peer access first: CUDA stages these through the host. */
	bw->staged_gbps = timed(api, bw, &a, &b, NULL);
	if (bw->staged_gbps < 0)
		goto out;
	bw->staged_latency_us = latency(api, bw, &a, &b);
	if (bw->staged_latency_us < 0 || !enable(api, bw, &a, &b))
		goto out;
	bw->gbps = timed(api, bw, &a, &b, pci);
	if (bw->gbps < 0)
		goto out;
	bw->latency_us = latency(api, bw, &a, &b);
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

bool verify_bw_looks_staged(const struct verify_bw *bw)
{
	return bw->measured &&
	       bw->gbps < VERIFY_BW_STAGED_GAIN * bw->staged_gbps;
}
