// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libcuda.so.1 for the tests of "p2pmap verify": exactly the
 * driver API entry points p2pmap looks up, over simulated devices whose
 * "memory" is host memory.  Configured by the environment:
 *
 * P2PMAP_CUDA_STUB="BUSID,BUSID,...[;RULE=A->B[,A->B...]]..."
 *	BUSID is what cuDeviceGetPCIBusId returns, verbatim (so the tests can
 *	check p2pmap's normalisation).  A and B are CUDA ordinals.  Rules, for
 *	the direction A -> B (cuMemcpyPeer from memory on A to memory on B):
 *	  refuse  cuDeviceCanAccessPeer(A, B) says 0, cuCtxEnablePeerAccess
 *	          from A to B returns 217 (PEER_ACCESS_UNSUPPORTED)
 *	  noenable cuDeviceCanAccessPeer says 1, but cuCtxEnablePeerAccess
 *	          returns 217
 *	  wrong   the copy "succeeds" but B's buffer reads back zeros
 *	  error   cuMemcpyPeer returns 700 (ILLEGAL_ADDRESS)
 *	  fault   the copy "succeeds" and the data never arrives, as when the
 *	          DMA faults (p2pmap's fault counters come from elsewhere: the
 *	          stub cannot change the kernel's)
 *	  init=N  cuInit returns N (100: NO_DEVICE)
 *	No devices, or the variable unset: cuInit returns 100.
 * P2PMAP_CUDA_STUB_LOG=FILE
 *	At unload, append "allocations=N contexts=M peer_copies=P" (what is
 *	still allocated and retained, and the cuMemcpyPeer calls), so the
 *	tests can check that p2pmap frees what it takes.
 *
 * Stricter than the driver: cuMemcpyPeer between contexts without peer
 * access enabled from the source's context to the destination's returns
 * 705 (PEER_ACCESS_NOT_ENABLED) instead of staging the copy through the
 * host, so a verify that forgets to enable peer access fails its tests.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

#define MAX_DEVS	16
#define MAX_ALLOCS	256
#define MAX_RULES	64

struct CUctx_st {
	int dev;
	int retained;
	int peer[MAX_DEVS];		/* peer access enabled to that device */
};
typedef struct CUctx_st *CUcontext;

enum { R_REFUSE, R_NOENABLE, R_WRONG, R_ERROR, R_FAULT, R_NR };

struct alloc {
	unsigned char *p;
	size_t size;
	int dev;
};

static struct {
	pthread_mutex_t lock;
	int parsed, ndevs, initialized, init_result;
	char busid[MAX_DEVS][32];
	int nrules[R_NR];
	int rules[R_NR][MAX_RULES][2];
	struct CUctx_st ctx[MAX_DEVS];
	struct alloc allocs[MAX_ALLOCS];
	unsigned long peer_copies;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread CUcontext current;

static void parse_rule(const char *key, size_t klen, const char *val)
{
	static const char * const names[R_NR] = {
		[R_REFUSE] = "refuse", [R_NOENABLE] = "noenable",
		[R_WRONG] = "wrong",
		[R_ERROR] = "error", [R_FAULT] = "fault",
	};
	int r, a, b, n;

	if (klen == 4 && !strncmp(key, "init", 4)) {
		st.init_result = atoi(val);
		return;
	}
	for (r = 0; r < R_NR; r++)
		if (strlen(names[r]) == klen && !strncmp(key, names[r], klen))
			break;
	if (r == R_NR) {
		fprintf(stderr, "cuda-stub: unknown rule \"%.*s\"\n", (int)klen,
			key);
		return;
	}
	while (sscanf(val, "%d->%d%n", &a, &b, &n) == 2 &&
	       st.nrules[r] < MAX_RULES) {
		st.rules[r][st.nrules[r]][0] = a;
		st.rules[r][st.nrules[r]][1] = b;
		st.nrules[r]++;
		val += n;
		if (*val != ',')
			break;
		val++;
	}
}

static void parse(void)
{
	const char *env = getenv("P2PMAP_CUDA_STUB"), *p, *end, *eq;
	size_t len;

	if (st.parsed)
		return;
	st.parsed = 1;
	if (!env)
		return;
	/* Devices up to the first ';'. */
	for (p = env; *p && *p != ';' && st.ndevs < MAX_DEVS; p = end) {
		len = strcspn(p, ",;");
		if (len && len < sizeof(st.busid[0]))
			snprintf(st.busid[st.ndevs++], sizeof(st.busid[0]),
				 "%.*s", (int)len, p);
		end = p + len;
		if (*end == ',')
			end++;
	}
	while (*p == ';') {
		p++;
		len = strcspn(p, ";");
		eq = memchr(p, '=', len);
		if (eq) {
			char val[512];

			snprintf(val, sizeof(val), "%.*s",
				 (int)(len - (eq + 1 - p)), eq + 1);
			parse_rule(p, eq - p, val);
		}
		p += len;
	}
}

static int rule(int r, int a, int b)
{
	int i;

	for (i = 0; i < st.nrules[r]; i++)
		if (st.rules[r][i][0] == a && st.rules[r][i][1] == b)
			return 1;
	return 0;
}

static struct alloc *find(CUdeviceptr p, size_t size)
{
	unsigned char *q = (unsigned char *)(uintptr_t)p;
	int i;

	for (i = 0; i < MAX_ALLOCS; i++)
		if (st.allocs[i].p && q >= st.allocs[i].p &&
		    q + size <= st.allocs[i].p + st.allocs[i].size)
			return &st.allocs[i];
	return NULL;
}

#define LOCKED(expr) do {						\
	CUresult r_;							\
									\
	pthread_mutex_lock(&st.lock);					\
	r_ = (expr);							\
	pthread_mutex_unlock(&st.lock);					\
	return r_;							\
} while (0)

static CUresult init(unsigned int flags)
{
	if (flags)
		return 1;
	parse();
	if (st.init_result)
		return st.init_result;
	if (!st.ndevs)
		return 100;
	st.initialized = 1;
	return 0;
}

EXPORT CUresult cuInit(unsigned int flags)
{
	LOCKED(init(flags));
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
	if (!st.initialized)
		return 3;
	*count = st.ndevs;
	return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	if (!st.initialized)
		return 3;
	if (ordinal < 0 || ordinal >= st.ndevs)
		return 101;
	*dev = ordinal;
	return 0;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice dev)
{
	if (!st.initialized)
		return 3;
	if (dev < 0 || dev >= st.ndevs)
		return 101;
	if (!buf || len <= (int)strlen(st.busid[dev]))
		return 1;
	strcpy(buf, st.busid[dev]);
	return 0;
}

static CUresult retain(CUcontext *ctx, CUdevice dev)
{
	if (!st.initialized)
		return 3;
	if (dev < 0 || dev >= st.ndevs)
		return 101;
	st.ctx[dev].dev = dev;
	st.ctx[dev].retained++;
	*ctx = &st.ctx[dev];
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	LOCKED(retain(ctx, dev));
}

static CUresult release(CUdevice dev)
{
	if (dev < 0 || dev >= st.ndevs)
		return 101;
	if (st.ctx[dev].retained <= 0)
		return 201;
	st.ctx[dev].retained--;
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	LOCKED(release(dev));
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	if (ctx && (ctx < st.ctx || ctx >= st.ctx + st.ndevs ||
		    !ctx->retained))
		return 201;
	current = ctx;
	return 0;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
	if (!st.initialized)
		return 3;
	if (dev < 0 || dev >= st.ndevs || peer < 0 || peer >= st.ndevs)
		return 101;
	*can = dev != peer && !rule(R_REFUSE, dev, peer);
	return 0;
}

static CUresult enable_peer(CUcontext peer, unsigned int flags)
{
	if (!current || !peer || !peer->retained)
		return 201;
	if (flags || peer == current)
		return 1;
	if (rule(R_REFUSE, current->dev, peer->dev) ||
	    rule(R_NOENABLE, current->dev, peer->dev))
		return 217;
	if (current->peer[peer->dev])
		return 704;
	current->peer[peer->dev] = 1;
	return 0;
}

EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
	LOCKED(enable_peer(peer, flags));
}

static CUresult mem_alloc(CUdeviceptr *dptr, size_t size)
{
	int i;

	if (!current)
		return 201;
	if (!size)
		return 1;
	for (i = 0; i < MAX_ALLOCS && st.allocs[i].p; i++)
		;
	if (i == MAX_ALLOCS)
		return 2;
	st.allocs[i].p = malloc(size);
	if (!st.allocs[i].p)
		return 2;
	st.allocs[i].size = size;
	st.allocs[i].dev = current->dev;
	*dptr = (uintptr_t)st.allocs[i].p;
	return 0;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t size)
{
	LOCKED(mem_alloc(dptr, size));
}

static CUresult mem_free(CUdeviceptr dptr)
{
	struct alloc *a = find(dptr, 0);

	if (!current)
		return 201;
	if (!a || (uintptr_t)a->p != dptr)
		return 1;
	free(a->p);
	memset(a, 0, sizeof(*a));
	return 0;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	LOCKED(mem_free(dptr));
}

static CUresult htod(CUdeviceptr dst, const void *src, size_t size)
{
	struct alloc *a = find(dst, size);

	if (!current)
		return 201;
	if (!a)
		return 1;
	memcpy((void *)(uintptr_t)dst, src, size);
	return 0;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t size)
{
	LOCKED(htod(dst, src, size));
}

static CUresult dtoh(void *dst, CUdeviceptr src, size_t size)
{
	struct alloc *a = find(src, size);

	if (!current)
		return 201;
	if (!a)
		return 1;
	memcpy(dst, (void *)(uintptr_t)src, size);
	return 0;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t size)
{
	LOCKED(dtoh(dst, src, size));
}

static CUresult peer_copy(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
			  CUcontext sctx, size_t size)
{
	struct alloc *d = find(dst, size), *s = find(src, size);

	if (!dctx || !sctx || !dctx->retained || !sctx->retained)
		return 201;
	if (!d || !s || d->dev != dctx->dev || s->dev != sctx->dev)
		return 1;
	st.peer_copies++;
	if (sctx != dctx && !sctx->peer[dctx->dev])
		return 705;
	if (rule(R_ERROR, sctx->dev, dctx->dev))
		return 700;
	if (rule(R_FAULT, sctx->dev, dctx->dev))
		return 0;			/* the writes vanish */
	if (rule(R_WRONG, sctx->dev, dctx->dev))
		memset((void *)(uintptr_t)dst, 0, size);
	else
		memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, size);
	return 0;
}

EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
			     CUcontext sctx, size_t size)
{
	LOCKED(peer_copy(dst, dctx, src, sctx, size));
}

EXPORT CUresult cuCtxSynchronize(void)
{
	return current ? 0 : 201;
}

EXPORT CUresult cuGetErrorString(CUresult err, const char **str)
{
	static const struct {
		CUresult err;
		const char *str;
	} table[] = {
		{ 0, "no error" },
		{ 1, "invalid argument" },
		{ 2, "out of memory" },
		{ 3, "initialization error" },
		{ 100, "no CUDA-capable device is detected" },
		{ 101, "invalid device ordinal" },
		{ 201, "invalid device context" },
		{ 217, "peer access is not supported between these two devices" },
		{ 700, "an illegal memory access was encountered" },
		{ 704, "peer access is already enabled" },
		{ 705, "peer access has not been enabled" },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (table[i].err == err) {
			*str = table[i].str;
			return 0;
		}
	}
	*str = NULL;
	return 1;
}

__attribute__((destructor)) static void stub_report(void)
{
	const char *log = getenv("P2PMAP_CUDA_STUB_LOG");
	int i, allocs = 0, ctxs = 0;
	FILE *f;

	if (!log || !(f = fopen(log, "a")))
		return;
	for (i = 0; i < MAX_ALLOCS; i++)
		allocs += !!st.allocs[i].p;
	for (i = 0; i < MAX_DEVS; i++)
		ctxs += st.ctx[i].retained;
	fprintf(f, "allocations=%d contexts=%d peer_copies=%lu\n", allocs,
		ctxs, st.peer_copies);
	fclose(f);
}
