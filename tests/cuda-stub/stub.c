// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libcuda.so.1 for the tests of "p2pmap verify": the driver API
 * entry points p2pmap looks up, over simulated devices whose "memory" is
 * host memory, as hard on its caller as the real driver where the real
 * driver can hurt.  Configured by the environment:
 *
 * P2PMAP_CUDA_STUB="BUSID,BUSID,...[;RULE=A->B[:w|:r][,A->B...]]..."
 *	BUSID is what cuDeviceGetPCIBusId returns, verbatim (so the tests can
 *	check p2pmap's normalisation), in CUDA's default (FASTEST_FIRST)
 *	order.  A and B are positions in that list (physical GPUs, whatever
 *	CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER make their ordinals).
 *	Rules, for copies that GPU A's engines carry (a stream of A's
 *	context) to or from B's memory, writes (:w), reads (:r) or both:
 *	  refuse   cuDeviceCanAccessPeer(A, B) says 0, cuCtxEnablePeerAccess
 *	           from A to B returns 217 (PEER_ACCESS_UNSUPPORTED)
 *	  noenable cuDeviceCanAccessPeer says 1, but cuCtxEnablePeerAccess
 *	           returns 217 (a copy then is staged through the host), and
 *	           the others fail with the codes cuda.h documents for them:
 *	           cuIpcOpenMemHandle's lazy peer access 205 (MAP_FAILED),
 *	           cuMemSetAccess for A on B's memory 801 (NOT_SUPPORTED)
 *	  mapfail  as noenable, but cuCtxEnablePeerAccess returns 205
 *	           (MAP_FAILED), as seen in the field with IOMMU or BAR
 *	           trouble
 *	  wrong    the copy "succeeds" but the destination reads back zeros
 *	  error    the copy fails with 700 (ILLEGAL_ADDRESS), sticky
 *	  fault    the copy "succeeds" and the data never arrive, as when the
 *	           DMA faults (p2pmap's fault counters come from elsewhere)
 *	  hang     the copy never completes: cuStreamSynchronize blocks
 *	  slow     the copy is direct but runs at the speed of a copy staged
 *	           through the host (a driver that stages it silently)
 *	  narrow   the copy is direct at a quarter of the direct rate (a
 *	           link trained at half its speed and half its width)
 *	  gen4     the copy is direct at a Gen4 x16 pair's published rate
 *	           and latency (GEN4_BPUS, GEN4_US: RTX 6000 Ada)
 *	  init=N   cuInit returns N (100: NO_DEVICE)
 *	  jit=N    cuModuleLoadData returns N for PTX: 221 JIT_COMPILER_NOT_FOUND
 *	           (no libnvidia-ptxjitcompiler.so.1, as in a container that
 *	           mounts only libcuda.so*), 222 UNSUPPORTED_PTX_VERSION; and
 *	           CUDA_DISABLE_JIT=1 in the environment gives 223
 *	           JIT_COMPILATION_DISABLED (cuda.h: "To disable JIT entirely,
 *	           set the environment variable CUDA_DISABLE_JIT=1")
 *	  unload=crash|hang  unloading the library (dlclose, or exit())
 *	           crashes (SIGSEGV) or never returns, after its log line: a
 *	           driver whose teardown goes wrong once the work is done
 *	  hostcall=US  every driver call costs the host US microseconds, not
 *	           HOST_CALL_US (a loaded or slow host)
 *	  numa=N,N,...  each GPU's NUMA node, in list order (default all 0):
 *	           direct copies between nodes run at the cross-socket rate
 *	  wedge=N[,N...]  GPU N wedges at its first hang (rule hang; else
 *	           its first peer copy or kernel hangs), and every process
 *	           after that hangs opening a context on it (state in
 *	           P2PMAP_CUDA_STUB_STATE: "Rule wedge", below)
 *	A rule may name a path after the operation, "A->B[:w|:r]@PATH":
 *	ce (cuMemcpyPeerAsync), sm (a kernel through a pointer into memory
 *	of B that cuMemAlloc gave), ipc (memory opened with
 *	cuIpcOpenMemHandle), cumem (a cuMem allocation imported from a file
 *	descriptor); without one it holds for every path.
 *	No devices, or the variable unset: cuInit returns 100.
 * CUDA_DEVICE_ORDER=PCI_BUS_ID orders the ordinals by bus id, and
 * CUDA_VISIBLE_DEVICES (ordinals, up to the first invalid one) picks and
 * orders them, as the real driver does.
 * P2PMAP_CUDA_STUB_LOG=FILE
 *	When the library is unloaded, append "allocations=N contexts=M
 *	peers=E streams=S events=V peer_copies=P staged=T": what is still
 *	allocated, retained, enabled and created, the peer copies made, and
 *	those of them staged through the host; then "modules=L ipc_open=I
 *	mappings=M handles=H kernels=K": modules loaded, IPC memory open,
 *	cuMem mappings and handles still held, kernels that reached a peer.
 *
 * The other paths, as the real driver has them: device memory is shared
 * memory (memfd), so that another process can open it; a CUDA IPC handle
 * opens only in another process (201 in its own), and with
 * CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS the peer access that rule refuse,
 * noenable or mapfail forbid fails with 205 (MAP_FAILED: cuda.h's codes
 * for cuIpcOpenMemHandle have no 217), as cuMemSetAccess does with 801
 * (NOT_SUPPORTED, likewise); cuMemCreate takes only multiples of the
 * granularity (2 MiB), exports a file descriptor only when the handle type
 * was asked for at creation, and a mapping is usable by a device only
 * after cuMemSetAccess for it; cuModuleLoadData takes PTX text (218
 * INVALID_PTX otherwise) and cuLaunchKernel runs the two kernels it knows,
 * p2pmap_spin(ns) (Time, below) and p2pmap_copy_u32(dst, src, n): a kernel that touches memory its device
 * may not reach (no peer access, no cuMemSetAccess, no mapping) fails
 * with 700, sticky, as an illegal address does.
 *
 * As the real driver: after a 700 every call of the process fails with
 * 700 (a sticky error: the context is lost); a context has at most eight
 * peers (cuCtxEnablePeerAccess then returns 711 TOO_MANY_PEERS); a peer
 * copy whose engine's context has no peer access to the other GPU still
 * succeeds, staged through the host, with correct data (counted in
 * "staged"), so only the caller's own bookkeeping can tell.
 *
 * Time, as p2pBandwidthLatencyTest sees it on real hosts (each figure's
 * source beside its constant below): the host clock is this process's
 * CLOCK_MONOTONIC, and every driver call costs HOST_CALL_US of it (the
 * stub spins that long).  Each stream has a clock too: an operation on it
 * starts when the stream is free and not before it was issued, so a GPU
 * left idle waits on the host between calls, as a real one does.  A
 * direct peer copy takes DIRECT_US + SIZE at DIRECT_BPUS (XNODE_BPUS
 * between GPUs of different NUMA nodes, rule numa=N,N,...: each GPU's
 * node, in list order), a staged one STAGED_US + SIZE at STAGED_BPUS.
 * The kernel p2pmap_spin(ns) holds its stream for ns nanoseconds (a gate,
 * as the sample's delay() kernel).  cuEventRecord takes the stream's
 * clock and cuEventElapsedTime the difference, in ms, as the driver
 * reports it; a synchronize waits, in real time, until its stream's clock
 * is reached (the host brought up to date).  Two streams run at once: a
 * pair of opposite copies on two GPUs' streams takes the time of one.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

#define MAX_DEVS	16
#define MAX_ALLOCS	256
#define MAX_RULES	64
#define MAX_STREAMS	64
#define MAX_PEERS	8		/* without NVSwitch */
#define MAX_EVENTS	64

/*
 * The published figures the stub runs at.  A driver call: 1.8 us of host
 * time, p2pBandwidthLatencyTest's CPU latency matrix with P2P enabled
 * (1.76-2.16 us a cudaMemcpyPeerAsync, github.com/NVIDIA/cuda-samples
 * issue 230).  A direct copy: 55 GB/s within a NUMA node, 39 GB/s across
 * sockets (dual EPYC 9374F, RTX PRO 6000, Gen5 x16: ~54 and ~39 GB/s,
 * github.com/voipmonitor/rtx6kpro hardware/pcie-bandwidth.md), 0.4 us a
 * small copy (0.36-0.45 us there).  A staged copy (no peer access):
 * 38 GB/s (P2P=Disabled 36.3-38.1 GB/s on a Gen5 HGX H100 host,
 * github.com/NVIDIA/nccl issue 1264) and 14 us a small copy (about 14 us
 * on the rtx6kpro page; P2P=Disabled GPU latency 11-20 us in cuda-samples
 * issue 230 and nccl issue 1127).  Bytes per us.
 */
#define HOST_CALL_US	1.8
#define DIRECT_BPUS	55000.0
#define XNODE_BPUS	39000.0
#define DIRECT_US	0.4
#define STAGED_BPUS	38000.0
#define STAGED_US	14.0
/*
 * Rule gen4: two RTX 6000 Ada GPUs over PCIe Gen4 x16, within a socket
 * or across (p2pBandwidthLatencyTest 26.31-27.02 GB/s one way, 1.12-1.44
 * us, on three hosts: github.com/luigifcruz/stelline
 * docs/quickstart/validated-hardware/server/asus-esc8000a-e12.md and
 * puget-threadripper-pro-wrx90.md, github.com/dbkinghorn/Notes
 * 2023/NV-4090-P2P/2x4090-notes.md).
 */
#define GEN4_BPUS	26500.0
#define GEN4_US		1.2
/*
 * A context's first staged copy sets up its staging buffers (pinned host
 * memory): the stub's figure, no published one; nvbandwidth times nothing
 * before its warm-up copies (WARMUP_COUNT, github.com/NVIDIA/nvbandwidth
 * memcpy.cpp), nor should verify.
 */
#define FIRST_STAGED_US	2000.0

struct CUctx_st {
	int dev;			/* physical */
	int retained;
	int peer[MAX_DEVS];		/* peer access enabled to it */
	double legacy_us;		/* its legacy stream's clock */
	int staged_once;		/* its staging buffers are set up */
};
typedef struct CUctx_st *CUcontext;

struct CUstream_st {
	CUcontext ctx;			/* NULL: free slot */
	int hung;			/* a copy on it never completes */
	int blocking;			/* flags 0: waits on the legacy stream */
	double clock_us;		/* when its last copy ends */
};
typedef struct CUstream_st *CUstream;

struct CUevent_st {
	int used, recorded;
	CUstream stream;		/* where it was recorded */
	double at_us;
};
typedef struct CUevent_st *CUevent;

enum { R_REFUSE, R_NOENABLE, R_WRONG, R_ERROR, R_FAULT, R_HANG, R_SLOW,
       R_NARROW, R_MAPFAIL, R_GEN4, R_NR };
enum { OP_WRITE = 1, OP_READ = 2 };
enum { P_CE = 1, P_SM = 2, P_IPC = 4, P_CUMEM = 8, P_ALL = 15 };

struct rule {
	int a, b, ops, paths;
};

/* How a process holds a range of device memory. */
enum { K_ALLOC, K_IPC, K_CUMEM };

struct alloc {
	unsigned char *p;
	size_t size;
	int dev;			/* physical */
	int kind;			/* K_* */
	int fd;				/* the memfd behind it (K_ALLOC) */
	unsigned int access;		/* K_CUMEM: bit per physical device */
};

#define MAX_HANDLES	64
#define MAX_MODULES	16
#define GRANULARITY	(2UL << 20)
#define IPC_MAGIC	0x70327069u	/* "p2pi" */
#define KERNEL_NAME	"p2pmap_copy_u32"
#define SPIN_NAME	"p2pmap_spin"

/* A cuMem allocation handle: its memory, a memfd. */
struct mem_handle {
	int used, fd, dev;
	size_t size;
	unsigned int types;		/* requestedHandleTypes */
};

struct CUmod_st {
	int used;
	int has_kernel;			/* an .entry p2pmap_copy_u32 */
	int has_spin;			/* an .entry p2pmap_spin */
};
typedef struct CUmod_st *CUmodule;

struct CUfunc_st {
	CUmodule mod;
	int spin;			/* p2pmap_spin, else the copy */
};
typedef struct CUfunc_st *CUfunction;

/* What cuIpcGetMemHandle writes: enough to reopen the memfd. */
struct ipc_handle {
	unsigned int magic;
	int pid, fd, dev;
	unsigned long long size;
	char pad[40];
};

typedef struct CUipcMemHandle_st {
	char reserved[64];
} CUipcMemHandle;
_Static_assert(sizeof(struct ipc_handle) == 64, "an IPC handle is 64 bytes");

typedef unsigned long long CUmemGenericAllocationHandle;
typedef struct {
	unsigned int type;
	int id;
} CUmemLocation;
typedef struct {
	unsigned int type, requestedHandleTypes;
	CUmemLocation location;
	void *win32HandleMetaData;
	unsigned char flags[8];
} CUmemAllocationProp;
typedef struct {
	CUmemLocation location;
	unsigned int flags;
} CUmemAccessDesc;

/*
 * What a GPU does to memory, done when its stream gets there: a copy or a
 * kernel is queued with the time it starts, and done by the process's
 * first driver call at or after that time (a synchronize waits for it).
 * So memory read before the GPU got there holds the old data, and issuing
 * a copy costs the host HOST_CALL_US whatever its size.  Harder than the
 * driver in one way, on purpose: a process that issues work and then
 * tells another process, without synchronizing, that it is done has its
 * work not done at all until it next calls the driver.
 */
#define MAX_WORK	1024

struct work {
	double at_us;			/* when it starts */
	unsigned long seq;		/* issue order: ties */
	unsigned char *dst;
	const unsigned char *src;	/* NULL: zeros (rule wrong) */
	size_t size;
	unsigned char *own;		/* a pageable source, staged */
};

static struct {
	pthread_mutex_t lock;
	int parsed, ndevs, initialized, init_result, jit_result, sticky;
	int unload;			/* rule unload=: 1 crash, 2 hang */
	pid_t init_pid;			/* the process cuInit succeeded in */
	double host_call_us;		/* rule hostcall=, else HOST_CALL_US */
	char busid[MAX_DEVS][32];
	int nvis, vis[MAX_DEVS];	/* ordinal -> physical */
	int node[MAX_DEVS];		/* NUMA node, rule numa= */
	int nrules[R_NR];
	struct rule rules[R_NR][MAX_RULES];
	struct CUctx_st ctx[MAX_DEVS];
	struct CUstream_st streams[MAX_STREAMS];
	struct CUevent_st events[MAX_EVENTS];
	struct alloc allocs[MAX_ALLOCS];
	struct mem_handle handles[MAX_HANDLES];
	struct CUmod_st modules[MAX_MODULES];
	struct CUfunc_st funcs[2 * MAX_MODULES];	/* copy, spin */
	unsigned long peer_copies, staged, kernels;
	struct work work[MAX_WORK];
	int nwork;
	unsigned long work_seq;
	unsigned char *spare;		/* own_get() */
	size_t spare_size;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread CUcontext current;

/*
 * Rule wedge=N[,N...]: GPU N (a position in the list) wedges at its first
 * hang (rule hang naming it), or without one at its first peer copy or
 * kernel, which never completes, as a GPU the driver lost; from then on
 * every process that opens a context on it hangs there.  The
 * state outlives the process (verify runs one per operation): a file
 * wedged-N in the directory P2PMAP_CUDA_STUB_STATE (without it, the wedge
 * ends with the process).  Each hang, this rule's or rule hang's,
 * appends "hang gpu=N pid=P at=copy|kernel|context" to the file "hangs"
 * there, for the tests to count (N: the wedged GPU, or the engine's).
 */
static unsigned int wedge_gpus;		/* bit per physical device */

static void wedge_parse(const char *val)
{
	int a;

	while (*val) {
		a = atoi(val);
		if (a >= 0 && a < MAX_DEVS)
			wedge_gpus |= 1u << a;
		val += strcspn(val, ",");
		val += *val == ',';
	}
}

/* The state file of @gpu, or "hangs" for -1; -1 without a directory. */
static int wedge_file(char *buf, size_t len, int gpu)
{
	const char *dir = getenv("P2PMAP_CUDA_STUB_STATE");

	if (!dir || !*dir)
		return -1;
	if (gpu < 0)
		snprintf(buf, len, "%s/hangs", dir);
	else
		snprintf(buf, len, "%s/wedged-%d", dir, gpu);
	return 0;
}

static int wedged(int gpu)
{
	char path[512];

	return (wedge_gpus >> gpu & 1) &&
	       !wedge_file(path, sizeof(path), gpu) && !access(path, F_OK);
}

/* A hang, any rule's, counted in "hangs" for the tests (not a wedge). */
static void hang_count(int gpu, const char *at)
{
	char path[512];
	FILE *f;

	if (!wedge_file(path, sizeof(path), -1) && (f = fopen(path, "a"))) {
		fprintf(f, "hang gpu=%d pid=%d at=%s\n", gpu, (int)getpid(),
			at);
		fclose(f);
	}
}

/* @gpu wedged for every process after this one; the hang counted. */
static void wedge_mark(int gpu, const char *at)
{
	char path[512];
	int fd;

	if (!wedge_file(path, sizeof(path), gpu)) {
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd >= 0)
			close(fd);
	}
	hang_count(gpu, at);
}

/* Opening a context on a wedged GPU: never returns. */
static void wedge_context(int gpu)
{
	if (!wedged(gpu))
		return;
	wedge_mark(gpu, "context");
	for (;;)
		pause();
}

/* Does a hang rule name @gpu?  Then its first hang wedges it. */
static int wedge_by_rule(int gpu)
{
	int i;

	for (i = 0; i < st.nrules[R_HANG]; i++)
		if (st.rules[R_HANG][i].a == gpu || st.rules[R_HANG][i].b == gpu)
			return 1;
	return 0;
}

/*
 * A peer copy or kernel between @a and @b, which rule hang makes @hang:
 * does it hang (and wedge)?
 */
static int wedge_peer(int a, int b, int hang, const char *at)
{
	int g = wedge_gpus >> a & 1 ? a : wedge_gpus >> b & 1 ? b : -1;

	if (g < 0 || (!hang && wedge_by_rule(g))) {
		if (hang)
			hang_count(a, at);
		return hang;
	}
	wedge_mark(g, at);
	return 1;
}

static void parse_rule(const char *key, size_t klen, const char *val)
{
	static const char * const names[R_NR] = {
		[R_REFUSE] = "refuse", [R_NOENABLE] = "noenable",
		[R_WRONG] = "wrong", [R_ERROR] = "error", [R_FAULT] = "fault",
		[R_HANG] = "hang", [R_SLOW] = "slow", [R_NARROW] = "narrow",
		[R_MAPFAIL] = "mapfail", [R_GEN4] = "gen4",
	};
	struct rule *ru;
	int r, a, b, n;

	if (klen == 4 && !strncmp(key, "init", 4)) {
		st.init_result = atoi(val);
		return;
	}
	if (klen == 3 && !strncmp(key, "jit", 3)) {
		st.jit_result = atoi(val);
		return;
	}
	if (klen == 6 && !strncmp(key, "unload", 6)) {
		st.unload = !strcmp(val, "crash") ? 1 : !strcmp(val, "hang") ? 2 : 0;
		return;
	}
	if (klen == 8 && !strncmp(key, "hostcall", 8)) {
		st.host_call_us = atof(val);
		return;
	}
	if (klen == 5 && !strncmp(key, "wedge", 5)) {
		wedge_parse(val);
		return;
	}
	if (klen == 4 && !strncmp(key, "numa", 4)) {
		for (a = 0; a < MAX_DEVS && *val; a++) {
			st.node[a] = atoi(val);
			val += strcspn(val, ",");
			val += *val == ',';
		}
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
		ru = &st.rules[r][st.nrules[r]++];
		ru->a = a;
		ru->b = b;
		ru->ops = OP_WRITE | OP_READ;
		ru->paths = P_ALL;
		val += n;
		if (!strncmp(val, ":w", 2) || !strncmp(val, ":r", 2)) {
			ru->ops = val[1] == 'w' ? OP_WRITE : OP_READ;
			val += 2;
		}
		if (*val == '@') {
			static const char * const pn[] = { "ce", "sm", "ipc",
							   "cumem" };
			size_t k, l = strcspn(val + 1, ",");

			for (k = 0; k < 4; k++)
				if (strlen(pn[k]) == l &&
				    !strncmp(val + 1, pn[k], l))
					ru->paths = 1 << k;
			val += 1 + l;
		}
		if (*val != ',')
			break;
		val++;
	}
}

/* The bus id as a sortable key: domain, bus, device, function. */
static unsigned long long busid_key(const char *s)
{
	unsigned int dom = 0, bus = 0, dev = 0, fn = 0;

	sscanf(s, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
	return (unsigned long long)dom << 24 | bus << 16 | dev << 8 | fn;
}

static unsigned long long key(int phys)
{
	return busid_key(st.busid[phys]);
}

/* CUDA_DEVICE_ORDER, then CUDA_VISIBLE_DEVICES: ordinal -> physical. */
static void visible_devices(void)
{
	const char *order = getenv("CUDA_DEVICE_ORDER");
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	int sorted[MAX_DEVS], i, j, t, seen[MAX_DEVS] = { 0 };
	char *end;
	long v;

	for (i = 0; i < st.ndevs; i++)
		sorted[i] = i;
	if (order && !strcmp(order, "PCI_BUS_ID")) {
		for (i = 1; i < st.ndevs; i++)
			for (j = i; j > 0 && key(sorted[j - 1]) > key(sorted[j]);
			     j--) {
				t = sorted[j];
				sorted[j] = sorted[j - 1];
				sorted[j - 1] = t;
			}
	}
	if (!vis) {
		memcpy(st.vis, sorted, sizeof(sorted));
		st.nvis = st.ndevs;
		return;
	}
	/* Up to the first entry that names no device, as the driver does. */
	for (st.nvis = 0; *vis && st.nvis < st.ndevs; vis = end + 1) {
		v = strtol(vis, &end, 10);
		if (end == vis || (*end && *end != ',') || v < 0 ||
		    v >= st.ndevs || seen[v])
			break;
		seen[v] = 1;
		st.vis[st.nvis++] = sorted[v];
		if (!*end)
			break;
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
	visible_devices();
}

/* Rule @r for the copy engine's path; path_rule() for the others. */
static int path_rule(int r, int a, int b, int op, int path)
{
	int i;

	for (i = 0; i < st.nrules[r]; i++)
		if (st.rules[r][i].a == a && st.rules[r][i].b == b &&
		    (st.rules[r][i].ops & op) && (st.rules[r][i].paths & path))
			return 1;
	return 0;
}

static int rule(int r, int a, int b, int op)
{
	return path_rule(r, a, b, op, P_CE);
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

/* The host clock, in us. */
static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/*
 * The host until @t: a synchronize, or the cost of a call.  A long wait
 * sleeps (a machine running tests has other work), the last of it spins.
 */
static void host_until(double t)
{
	double left = t - now_us();
	struct timespec ts;

	if (left > 100) {
		left -= 50;
		ts.tv_sec = (time_t)(left / 1e6);
		ts.tv_nsec = (long)((left - ts.tv_sec * 1e6) * 1e3);
		nanosleep(&ts, NULL);
	}
	while (now_us() < t)
		;
}

/*
 * A stream operation issued now: when it starts.  A blocking stream
 * (flags 0) waits for its context's legacy stream too.
 */
static double stream_start(struct CUstream_st *s)
{
	double now = now_us();

	if (s->clock_us < now)
		s->clock_us = now;
	if (s->blocking && s->clock_us < s->ctx->legacy_us)
		s->clock_us = s->ctx->legacy_us;
	return s->clock_us;
}

/*
 * An operation on @ctx's legacy stream (cuMemcpyHtoD, cuMemcpyDtoH)
 * issued now: when it starts, after the work of its blocking streams,
 * not after a non-blocking stream's.
 */
static double legacy_start(struct CUctx_st *ctx)
{
	double t = now_us();
	int i;

	if (t < ctx->legacy_us)
		t = ctx->legacy_us;
	for (i = 0; i < MAX_STREAMS; i++)
		if (st.streams[i].ctx == ctx && st.streams[i].blocking &&
		    !st.streams[i].hung && t < st.streams[i].clock_us)
			t = st.streams[i].clock_us;
	return ctx->legacy_us = t;
}

#define WORK_ALL	1e300

/*
 * A staging buffer for a pageable copy's data, the last one kept: a fresh
 * 4 MiB malloc for every copy is page faults the tests would wait on.
 */
static unsigned char *own_get(size_t size)
{
	unsigned char *p = st.spare;

	if (p && st.spare_size >= size) {
		st.spare = NULL;
		return p;
	}
	return malloc(size ? size : 1);
}

static void own_put(unsigned char *p)
{
	if (!p)
		return;
	if (st.spare)
		free(st.spare);
	st.spare = p;
	st.spare_size = malloc_usable_size(p);
}

/* The work that started by @t (WORK_ALL: all), in the order it started. */
static void work_done(double t)
{
	struct work *w, *next;
	int i;

	for (;;) {
		next = NULL;
		for (i = 0; i < st.nwork; i++) {
			w = &st.work[i];
			if (w->at_us <= t &&
			    (!next || w->at_us < next->at_us ||
			     (w->at_us == next->at_us && w->seq < next->seq)))
				next = w;
		}
		if (!next)
			return;
		if (next->src)
			memmove(next->dst, next->src, next->size);
		else
			memset(next->dst, 0, next->size);
		own_put(next->own);
		*next = st.work[--st.nwork];
	}
}

/* @size bytes from @src (NULL: zeros) into @dst, at @at. */
static void work_add(double at, CUdeviceptr dst, const void *src, size_t size,
		     unsigned char *own)
{
	if (st.nwork == MAX_WORK)	/* more than verify ever queues */
		work_done(WORK_ALL);
	st.work[st.nwork++] = (struct work){
		.at_us = at, .seq = st.work_seq++,
		.dst = (unsigned char *)(uintptr_t)dst, .src = src,
		.size = size, .own = own,
	};
}

/* The host brought up to date: the work started by now is done. */
static CUresult synced(void)
{
	work_done(now_us());
	return 0;
}

/* What a call costs the host: HOST_CALL_US, or rule hostcall=US. */
static double host_call_us(void)
{
	pthread_mutex_lock(&st.lock);
	parse();
	pthread_mutex_unlock(&st.lock);
	return st.host_call_us > 0 ? st.host_call_us : HOST_CALL_US;
}

/*
 * Every entry point: a call's host time, under the lock, and failing
 * after a sticky error, or in a child forked after cuInit (forked()).
 */
#define LOCKED(expr) do {						\
	CUresult r_;							\
									\
	host_until(now_us() + host_call_us());				\
	pthread_mutex_lock(&st.lock);					\
	if (forked()) {							\
		r_ = 3;							\
	} else {							\
		work_done(now_us());					\
		r_ = st.sticky ? st.sticky : (expr);			\
	}								\
	pthread_mutex_unlock(&st.lock);					\
	return r_;							\
} while (0)

/* An ordinal's physical device, or -1. */
static int phys(int ordinal)
{
	return ordinal >= 0 && ordinal < st.nvis ? st.vis[ordinal] : -1;
}

static CUresult init(unsigned int flags)
{
	if (flags)
		return 1;
	parse();
	if (st.init_result)
		return st.init_result;
	if (!st.nvis)
		return 100;
	st.initialized = 1;
	st.init_pid = getpid();
	return 0;
}

/*
 * A child forked from a process that initialised CUDA: NVIDIA's CUDA
 * programming guide does not support CUDA there (its contexts, mappings
 * and device state belong to the parent); the driver answers
 * CUDA_ERROR_NOT_INITIALIZED (3), cuInit included, and so does the stub.
 */
static int forked(void)
{
	return st.initialized && st.init_pid != getpid();
}

EXPORT CUresult cuInit(unsigned int flags)
{
	LOCKED(init(flags));
}

static CUresult get_count(int *count)
{
	if (!st.initialized)
		return 3;
	*count = st.nvis;
	return 0;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
	LOCKED(get_count(count));
}

/* A CUdevice is the ordinal, as with the real driver. */
static CUresult device_get(CUdevice *dev, int ordinal)
{
	if (!st.initialized)
		return 3;
	if (phys(ordinal) < 0)
		return 101;
	*dev = ordinal;
	return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
	LOCKED(device_get(dev, ordinal));
}

static CUresult get_busid(char *buf, int len, CUdevice dev)
{
	if (!st.initialized)
		return 3;
	if (phys(dev) < 0)
		return 101;
	if (!buf || len <= (int)strlen(st.busid[phys(dev)]))
		return 1;
	strcpy(buf, st.busid[phys(dev)]);
	return 0;
}

EXPORT CUresult cuDeviceGetPCIBusId(char *buf, int len, CUdevice dev)
{
	LOCKED(get_busid(buf, len, dev));
}

typedef struct CUuuid_st {
	char bytes[16];
} CUuuid;

/* A UUID made from the bus id: stable, and distinct per device. */
static CUresult get_uuid(CUuuid *u, CUdevice dev)
{
	unsigned long long k;
	int i;

	if (!st.initialized)
		return 3;
	if (phys(dev) < 0)
		return 101;
	if (!u)
		return 1;
	k = key(phys(dev));
	for (i = 0; i < 16; i++)
		u->bytes[i] = (char)(i < 8 ? 0xa0u + i : k >> ((15 - i) * 8));
	return 0;
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice dev)
{
	LOCKED(get_uuid(u, dev));
}

static CUresult retain(CUcontext *ctx, CUdevice dev)
{
	int p = phys(dev);

	if (!st.initialized)
		return 3;
	if (p < 0)
		return 101;
	wedge_context(p);
	st.ctx[p].dev = p;
	st.ctx[p].retained++;
	*ctx = &st.ctx[p];
	return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
	LOCKED(retain(ctx, dev));
}

static CUresult release(CUdevice dev)
{
	int p = phys(dev);

	if (p < 0)
		return 101;
	if (st.ctx[p].retained <= 0)
		return 201;
	st.ctx[p].retained--;
	return 0;
}

#ifdef STUB_LEGACY_RELEASE	/* an old driver: no _v2 */
EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
#else
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
#endif
{
	LOCKED(release(dev));
}

static int valid_ctx(CUcontext ctx)
{
	return ctx >= st.ctx && ctx < st.ctx + MAX_DEVS && ctx->retained;
}

static CUresult set_current(CUcontext ctx)
{
	if (ctx && !valid_ctx(ctx))
		return 201;
	current = ctx;
	return 0;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	LOCKED(set_current(ctx));
}

static CUresult can_access(int *can, CUdevice dev, CUdevice peer)
{
	if (!st.initialized)
		return 3;
	if (phys(dev) < 0 || phys(peer) < 0)
		return 101;
	*can = dev != peer && !path_rule(R_REFUSE, phys(dev), phys(peer),
					 OP_WRITE | OP_READ, P_ALL);
	return 0;
}

EXPORT CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
	LOCKED(can_access(can, dev, peer));
}

static CUresult enable_peer(CUcontext peer, unsigned int flags)
{
	int i, n = 0;

	if (!current || !peer || !valid_ctx(peer))
		return 201;
	if (flags || peer == current)
		return 1;
	if (path_rule(R_REFUSE, current->dev, peer->dev, OP_WRITE | OP_READ,
		      P_ALL) ||
	    path_rule(R_NOENABLE, current->dev, peer->dev, OP_WRITE | OP_READ,
		      P_CE | P_SM))
		return 217;
	if (path_rule(R_MAPFAIL, current->dev, peer->dev, OP_WRITE | OP_READ,
		      P_CE | P_SM))
		return 205;
	if (current->peer[peer->dev])
		return 704;
	for (i = 0; i < MAX_DEVS; i++)
		n += current->peer[i];
	if (n >= MAX_PEERS)
		return 711;
	current->peer[peer->dev] = 1;
	return 0;
}

EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
	LOCKED(enable_peer(peer, flags));
}

static CUresult disable_peer(CUcontext peer)
{
	if (!current || !peer || !valid_ctx(peer))
		return 201;
	if (!current->peer[peer->dev])
		return 705;
	current->peer[peer->dev] = 0;
	return 0;
}

EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peer)
{
	LOCKED(disable_peer(peer));
}

static CUresult stream_create(CUstream *s, unsigned int flags)
{
	int i;

	if (!current)
		return 201;
	if (flags > 1)
		return 1;
	for (i = 0; i < MAX_STREAMS && st.streams[i].ctx; i++)
		;
	if (i == MAX_STREAMS)
		return 2;
	st.streams[i].ctx = current;
	st.streams[i].hung = 0;
	st.streams[i].blocking = !(flags & 1);	/* CU_STREAM_NON_BLOCKING */
	st.streams[i].clock_us = 0;
	*s = &st.streams[i];
	return 0;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags)
{
	LOCKED(stream_create(s, flags));
}

static int valid_stream(CUstream s)
{
	return s >= st.streams && s < st.streams + MAX_STREAMS && s->ctx;
}

static CUresult stream_destroy(CUstream s)
{
	if (!valid_stream(s))
		return 400;
	s->ctx = NULL;
	return 0;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
	LOCKED(stream_destroy(s));
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
	double until = 0;
	int hung;

	pthread_mutex_lock(&st.lock);
	hung = valid_stream(s) && s->hung;
	if (valid_stream(s))
		until = s->clock_us;
	pthread_mutex_unlock(&st.lock);
	/* A copy that never completes: nothing returns. */
	while (hung)
		pause();
	host_until(until);
	LOCKED(valid_stream(s) ? synced() : 400);
}

/* A memfd named after its device, so that an importer knows the GPU. */
static int memfd_new(int dev, size_t size, int *fd)
{
	char name[32];

	snprintf(name, sizeof(name), "p2pmap-stub-dev%d", dev);
	*fd = memfd_create(name, MFD_CLOEXEC);
	if (*fd < 0)
		return -1;
	if (ftruncate(*fd, size)) {
		close(*fd);
		return -1;
	}
	return 0;
}

/* Map @fd's first @size bytes at @at (NULL: anywhere). */
static int map_fd(int fd, size_t size, void *at, unsigned char **p)
{
	void *m = mmap(at, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);

	if (m == MAP_FAILED)
		return -1;
	*p = m;
	return 0;
}

/* The device a memfd's name gives: "/memfd:p2pmap-stub-devN". */
static int memfd_dev(int fd)
{
	char link[64], target[128];
	ssize_t n;
	const char *p;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	p = strstr(target, "p2pmap-stub-dev");
	return p ? atoi(p + 15) : -1;
}

static struct alloc *alloc_slot(void)
{
	int i;

	for (i = 0; i < MAX_ALLOCS; i++)
		if (!st.allocs[i].p)
			return &st.allocs[i];
	return NULL;
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
	/* Shared memory: another process may open it (CUDA IPC). */
	if (memfd_new(current->dev, size, &st.allocs[i].fd) ||
	    map_fd(st.allocs[i].fd, size, NULL, &st.allocs[i].p))
		return 2;
	st.allocs[i].size = size;
	st.allocs[i].dev = current->dev;
	st.allocs[i].kind = K_ALLOC;
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
	if (!a || (uintptr_t)a->p != dptr || a->kind != K_ALLOC)
		return 1;
	work_done(WORK_ALL);		/* cuMemFree waits for the device */
	munmap(a->p, a->size);
	close(a->fd);
	memset(a, 0, sizeof(*a));
	return 0;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	LOCKED(mem_free(dptr));
}

/* May a device touch this memory: a cuMem mapping only after SetAccess. */
static int reachable(const struct alloc *a, int dev)
{
	return a->kind != K_CUMEM || (a->access & (1u << dev));
}

/*
 * From pageable memory, as the driver documents it (CUDA Driver API,
 * "API synchronization behavior"): the call returns once the data are in
 * staging memory, and "the DMA to final destination may not have
 * completed".  They land a staged copy's latency later, on the legacy
 * stream: a non-blocking stream's work issued meanwhile reads the old data.
 */
static CUresult htod(CUdeviceptr dst, const void *src, size_t size)
{
	struct alloc *a = find(dst, size);
	unsigned char *own;
	double t;

	if (!current)
		return 201;
	if (!a || a->dev != current->dev || !reachable(a, current->dev))
		return 1;
	own = own_get(size);
	if (!own)
		return 2;
	memcpy(own, src, size);
	t = legacy_start(current) + size / STAGED_BPUS;
	host_until(t);			/* the host fills the staging memory */
	current->legacy_us = t + STAGED_US;
	work_add(current->legacy_us, dst, own, size, own);
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
	if (!a || a->dev != current->dev || !reachable(a, current->dev))
		return 1;
	/* Returns once done: after the legacy stream's work, not others'. */
	host_until(legacy_start(current));
	work_done(now_us());
	memcpy(dst, (void *)(uintptr_t)src, size);
	current->legacy_us = now_us() + size / STAGED_BPUS;
	host_until(current->legacy_us);
	return 0;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t size)
{
	LOCKED(dtoh(dst, src, size));
}

/* A direct copy's rate: across NUMA nodes, slower. */
static double direct_bpus(int a, int b)
{
	return st.node[a] == st.node[b] ? DIRECT_BPUS : XNODE_BPUS;
}

/*
 * The engine of @s's context carries the copy.  Direct only with peer
 * access from that context to the other GPU; else staged through the
 * host: correct data, and no P2P at all.
 */
static CUresult peer_copy(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
			  CUcontext sctx, size_t size, CUstream s)
{
	struct alloc *d = find(dst, size), *sr = find(src, size);
	int eng, other, op;
	double start;

	if (!valid_ctx(dctx) || !valid_ctx(sctx))
		return 201;
	if (!valid_stream(s))
		return 400;
	if (!d || !sr || d->dev != dctx->dev || sr->dev != sctx->dev ||
	    d->kind != K_ALLOC || sr->kind != K_ALLOC)
		return 1;
	st.peer_copies++;
	if (s->hung)			/* behind a copy that never ends */
		return 0;
	eng = s->ctx->dev;
	op = eng == sctx->dev ? OP_WRITE : OP_READ;
	other = op == OP_WRITE ? dctx->dev : sctx->dev;
	start = stream_start(s);
	if (sctx == dctx || (other != eng && !s->ctx->peer[other])) {
		st.staged += sctx != dctx;
		if (sctx != dctx && !s->ctx->staged_once++)
			s->clock_us += FIRST_STAGED_US;
		s->clock_us += STAGED_US + size / STAGED_BPUS;
		work_add(start, dst, (void *)(uintptr_t)src, size, NULL);
		return 0;
	}
	if (rule(R_SLOW, eng, other, op))
		s->clock_us += STAGED_US + size / STAGED_BPUS;
	else if (rule(R_NARROW, eng, other, op))
		s->clock_us += DIRECT_US + size / (direct_bpus(eng, other) / 4);
	else if (rule(R_GEN4, eng, other, op))
		s->clock_us += GEN4_US + size / GEN4_BPUS;
	else
		s->clock_us += DIRECT_US + size / direct_bpus(eng, other);
	if (rule(R_ERROR, eng, other, op)) {
		st.sticky = 700;
		return 700;
	}
	if (wedge_peer(eng, other, rule(R_HANG, eng, other, op), "copy")) {
		s->hung = 1;
		return 0;
	}
	if (rule(R_FAULT, eng, other, op))
		return 0;			/* the writes vanish */
	work_add(start, dst, rule(R_WRONG, eng, other, op) ? NULL :
			     (void *)(uintptr_t)src, size, NULL);
	return 0;
}

EXPORT CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx,
				  CUdeviceptr src, CUcontext sctx, size_t size,
				  CUstream s)
{
	LOCKED(peer_copy(dst, dctx, src, sctx, size, s));
}

/* The synchronous copy, which the driver has too: the source's engine. */
static CUresult peer_copy_sync(CUdeviceptr dst, CUcontext dctx,
			       CUdeviceptr src, CUcontext sctx, size_t size)
{
	struct CUstream_st s = { .ctx = sctx, .blocking = 1 };
	int i;

	for (i = 0; i < MAX_STREAMS && st.streams[i].ctx; i++)
		;
	if (i == MAX_STREAMS || !valid_ctx(sctx))
		return 201;
	st.streams[i] = s;
	s.hung = peer_copy(dst, dctx, src, sctx, size, &st.streams[i]);
	/* A copy that never completes: a synchronous one never returns. */
	while (st.streams[i].hung)
		pause();
	host_until(st.streams[i].clock_us);
	work_done(now_us());
	st.streams[i].ctx = NULL;
	return s.hung;
}

EXPORT CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
			     CUcontext sctx, size_t size)
{
	LOCKED(peer_copy_sync(dst, dctx, src, sctx, size));
}

/* Every stream of the current context done: the host brought up to date. */
static CUresult ctx_sync(void)
{
	int i;

	if (!current)
		return 201;
	for (i = 0; i < MAX_STREAMS; i++)
		if (st.streams[i].ctx == current)
			host_until(st.streams[i].clock_us);
	host_until(current->legacy_us);
	return synced();
}

EXPORT CUresult cuCtxSynchronize(void)
{
	LOCKED(ctx_sync());
}

static int valid_event(CUevent ev)
{
	return ev >= st.events && ev < st.events + MAX_EVENTS && ev->used;
}

static CUresult event_create(CUevent *ev, unsigned int flags)
{
	int i;

	if (!current)
		return 201;
	if (flags & ~3u)		/* BLOCKING_SYNC, DISABLE_TIMING */
		return 1;
	for (i = 0; i < MAX_EVENTS && st.events[i].used; i++)
		;
	if (i == MAX_EVENTS)
		return 2;
	memset(&st.events[i], 0, sizeof(st.events[i]));
	st.events[i].used = 1;
	*ev = &st.events[i];
	return 0;
}

EXPORT CUresult cuEventCreate(CUevent *ev, unsigned int flags)
{
	LOCKED(event_create(ev, flags));
}

static CUresult event_record(CUevent ev, CUstream s)
{
	if (!valid_event(ev))
		return 400;
	if (!valid_stream(s))
		return 400;
	ev->recorded = 1;
	ev->stream = s;
	ev->at_us = stream_start(s);
	return 0;
}

EXPORT CUresult cuEventRecord(CUevent ev, CUstream s)
{
	LOCKED(event_record(ev, s));
}

EXPORT CUresult cuEventSynchronize(CUevent ev)
{
	double until = 0;
	int hung;

	pthread_mutex_lock(&st.lock);
	hung = valid_event(ev) && ev->recorded && valid_stream(ev->stream) &&
	       ev->stream->hung;
	if (valid_event(ev) && ev->recorded)
		until = ev->at_us;
	pthread_mutex_unlock(&st.lock);
	while (hung)
		pause();
	host_until(until);
	LOCKED(valid_event(ev) ? synced() : 400);
}

/* Done, or 600 NOT_READY while the work it captured is not. */
static CUresult event_query(CUevent ev)
{
	if (!valid_event(ev))
		return 400;
	if (!ev->recorded)
		return 0;		/* nothing captured */
	if ((valid_stream(ev->stream) && ev->stream->hung) ||
	    ev->at_us > now_us())
		return 600;
	return synced();
}

EXPORT CUresult cuEventQuery(CUevent ev)
{
	LOCKED(event_query(ev));
}

/* 600 NOT_READY for an event never recorded, as the driver says. */
static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
	if (!ms || !valid_event(a) || !valid_event(b))
		return 400;
	if (!a->recorded || !b->recorded)
		return 600;
	*ms = (float)((b->at_us - a->at_us) / 1000.0);
	return 0;
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	LOCKED(elapsed(ms, a, b));
}

static CUresult event_destroy(CUevent ev)
{
	if (!valid_event(ev))
		return 400;
	ev->used = 0;
	return 0;
}

EXPORT CUresult cuEventDestroy_v2(CUevent ev)
{
	LOCKED(event_destroy(ev));
}

/* CUDA IPC: a handle names the owner's memfd, reopened through /proc. */
static CUresult ipc_get(CUipcMemHandle *h, CUdeviceptr dptr)
{
	struct alloc *a = find(dptr, 0);
	struct ipc_handle ih = { .magic = IPC_MAGIC };

	if (!current)
		return 201;
	if (!h || !a || (uintptr_t)a->p != dptr || a->kind != K_ALLOC)
		return 1;
	ih.pid = getpid();
	ih.fd = a->fd;
	ih.dev = a->dev;
	ih.size = a->size;
	memcpy(h, &ih, sizeof(ih));
	return 0;
}

EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr dptr)
{
	LOCKED(ipc_get(h, dptr));
}

static CUresult ipc_open(CUdeviceptr *dptr, CUipcMemHandle h,
			 unsigned int flags)
{
	struct ipc_handle ih;
	struct alloc *a = alloc_slot();
	char path[64];
	int fd;

	memcpy(&ih, &h, sizeof(ih));
	if (!current)
		return 201;
	if (ih.magic != IPC_MAGIC || !dptr || flags > 1 || ih.dev < 0 ||
	    ih.dev >= st.ndevs)
		return 1;
	/* The driver opens a handle only in another process. */
	if (ih.pid == getpid())
		return 201;
	if (ih.dev != current->dev && (flags & 1) &&
	    (path_rule(R_REFUSE, current->dev, ih.dev, OP_WRITE | OP_READ,
		       P_ALL) ||
	     path_rule(R_NOENABLE, current->dev, ih.dev, OP_WRITE | OP_READ,
		       P_IPC) ||
	     path_rule(R_MAPFAIL, current->dev, ih.dev, OP_WRITE | OP_READ,
		       P_IPC)))
		return 205;
	if (!a)
		return 2;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", ih.pid, ih.fd);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 400;
	if (map_fd(fd, ih.size, NULL, &a->p)) {
		close(fd);
		return 2;
	}
	close(fd);
	a->size = ih.size;
	a->dev = ih.dev;
	a->kind = K_IPC;
	/* Without the lazy flag no peer access: a kernel faults (700). */
	a->access = (flags & 1) || ih.dev == current->dev ?
		    1u << current->dev : 0;
	*dptr = (uintptr_t)a->p;
	return 0;
}

EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *dptr, CUipcMemHandle h,
				      unsigned int flags)
{
	LOCKED(ipc_open(dptr, h, flags));
}

static CUresult ipc_close(CUdeviceptr dptr)
{
	struct alloc *a = find(dptr, 0);

	if (!current)
		return 201;
	if (!a || (uintptr_t)a->p != dptr || a->kind != K_IPC)
		return 1;
	work_done(WORK_ALL);
	munmap(a->p, a->size);
	memset(a, 0, sizeof(*a));
	return 0;
}

EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
	LOCKED(ipc_close(dptr));
}

/* cuMem: pinned device memory, location a device ordinal. */
static int prop_dev(const CUmemAllocationProp *prop)
{
	if (!prop || prop->type != 1 || prop->location.type != 1)
		return -1;
	return phys(prop->location.id);
}

static CUresult granularity(size_t *g, const CUmemAllocationProp *prop,
			    unsigned int option)
{
	if (!st.initialized)
		return 3;
	if (!g || option > 1 || prop_dev(prop) < 0)
		return 1;
	*g = GRANULARITY;
	return 0;
}

EXPORT CUresult cuMemGetAllocationGranularity(size_t *g,
					      const CUmemAllocationProp *prop,
					      unsigned int option)
{
	LOCKED(granularity(g, prop, option));
}

static struct mem_handle *handle_of(CUmemGenericAllocationHandle h)
{
	return h >= 1 && h <= MAX_HANDLES && st.handles[h - 1].used ?
	       &st.handles[h - 1] : NULL;
}

static CUresult handle_new(CUmemGenericAllocationHandle *h, int fd, int dev,
			   size_t size, unsigned int types)
{
	int i;

	for (i = 0; i < MAX_HANDLES && st.handles[i].used; i++)
		;
	if (i == MAX_HANDLES)
		return 2;
	st.handles[i] = (struct mem_handle){ 1, fd, dev, size, types };
	*h = i + 1;
	return 0;
}

static CUresult mem_create(CUmemGenericAllocationHandle *h, size_t size,
			   const CUmemAllocationProp *prop,
			   unsigned long long flags)
{
	int dev = prop_dev(prop), fd;

	if (!st.initialized)
		return 3;
	if (!h || dev < 0 || flags || !size || size % GRANULARITY ||
	    prop->requestedHandleTypes > 1)
		return 1;
	if (memfd_new(dev, size, &fd))
		return 2;
	if (handle_new(h, fd, dev, size, prop->requestedHandleTypes)) {
		close(fd);
		return 2;
	}
	return 0;
}

EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size,
			    const CUmemAllocationProp *prop,
			    unsigned long long flags)
{
	LOCKED(mem_create(h, size, prop, flags));
}

static CUresult mem_release(CUmemGenericAllocationHandle h)
{
	struct mem_handle *m = handle_of(h);

	if (!m)
		return 1;
	close(m->fd);
	memset(m, 0, sizeof(*m));
	return 0;
}

EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
	LOCKED(mem_release(h));
}

static CUresult mem_export(void *shareable, CUmemGenericAllocationHandle h,
			   unsigned int type, unsigned long long flags)
{
	struct mem_handle *m = handle_of(h);
	int fd;

	if (!m || !shareable || flags || type != 1)
		return 1;
	/* Only the handle types asked for at creation. */
	if (!(m->types & type))
		return 801;
	fd = dup(m->fd);
	if (fd < 0)
		return 2;
	*(int *)shareable = fd;
	return 0;
}

EXPORT CUresult cuMemExportToShareableHandle(void *shareable,
					     CUmemGenericAllocationHandle h,
					     unsigned int type,
					     unsigned long long flags)
{
	LOCKED(mem_export(shareable, h, type, flags));
}

static CUresult mem_import(CUmemGenericAllocationHandle *h, void *shareable,
			   unsigned int type)
{
	int fd = (int)(intptr_t)shareable, dup_fd, dev;
	struct stat sb;
	CUresult r;

	if (!st.initialized)
		return 3;
	if (!h || type != 1 || fstat(fd, &sb) || (dev = memfd_dev(fd)) < 0)
		return 1;
	dup_fd = dup(fd);
	if (dup_fd < 0)
		return 2;
	r = handle_new(h, dup_fd, dev, sb.st_size, 1);
	if (r)
		close(dup_fd);
	return r;
}

EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h,
					       void *shareable,
					       unsigned int type)
{
	LOCKED(mem_import(h, shareable, type));
}

static CUresult addr_reserve(CUdeviceptr *ptr, size_t size, size_t align,
			     CUdeviceptr addr, unsigned long long flags)
{
	void *m;

	if (!st.initialized)
		return 3;
	if (!ptr || !size || size % GRANULARITY || addr || flags ||
	    (align && align % GRANULARITY))
		return 1;
	m = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 2;
	*ptr = (uintptr_t)m;
	return 0;
}

EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size,
				    size_t align, CUdeviceptr addr,
				    unsigned long long flags)
{
	LOCKED(addr_reserve(ptr, size, align, addr, flags));
}

EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	LOCKED(!ptr || !size || munmap((void *)(uintptr_t)ptr, size) ? 1 : 0);
}

static CUresult mem_map(CUdeviceptr ptr, size_t size, size_t offset,
			CUmemGenericAllocationHandle h,
			unsigned long long flags)
{
	struct mem_handle *m = handle_of(h);
	struct alloc *a = alloc_slot();

	if (!m || !ptr || flags || offset || size != m->size)
		return 1;
	if (find(ptr, 0))
		return 1;		/* already mapped */
	if (!a)
		return 2;
	if (map_fd(m->fd, size, (void *)(uintptr_t)ptr, &a->p))
		return 2;
	a->size = size;
	a->dev = m->dev;
	a->kind = K_CUMEM;
	a->access = 0;		/* nobody, until cuMemSetAccess */
	return 0;
}

EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			 CUmemGenericAllocationHandle h,
			 unsigned long long flags)
{
	LOCKED(mem_map(ptr, size, offset, h, flags));
}

static CUresult mem_unmap(CUdeviceptr ptr, size_t size)
{
	struct alloc *a = find(ptr, 0);
	void *m;

	if (!a || a->kind != K_CUMEM || (uintptr_t)a->p != ptr ||
	    a->size != size)
		return 1;
	work_done(WORK_ALL);
	/* Back to a reservation. */
	m = mmap(a->p, size, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	memset(a, 0, sizeof(*a));
	return m == MAP_FAILED ? 2 : 0;
}

EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	LOCKED(mem_unmap(ptr, size));
}

static CUresult set_access(CUdeviceptr ptr, size_t size,
			   const CUmemAccessDesc *desc, size_t count)
{
	struct alloc *a = find(ptr, size);
	size_t i;
	int p;

	if (!a || a->kind != K_CUMEM || !desc || !count)
		return 1;
	for (i = 0; i < count; i++) {
		p = desc[i].location.type == 1 ? phys(desc[i].location.id) : -1;
		if (p < 0 || (desc[i].flags != 3 && desc[i].flags != 1))
			return 1;
		/* Another GPU's memory: only where peer access is possible. */
		if (p != a->dev &&
		    (path_rule(R_REFUSE, p, a->dev, OP_WRITE | OP_READ,
			       P_ALL) ||
		     path_rule(R_NOENABLE, p, a->dev, OP_WRITE | OP_READ,
			       P_CUMEM) ||
		     path_rule(R_MAPFAIL, p, a->dev, OP_WRITE | OP_READ,
			       P_CUMEM)))
			return 801;
		a->access |= 1u << p;
	}
	return 0;
}

EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size,
			       const CUmemAccessDesc *desc, size_t count)
{
	LOCKED(set_access(ptr, size, desc, count));
}

/* Modules: PTX text only, the entries it declares. */
static CUresult module_load(CUmodule *mod, const void *image)
{
	const char *t = image, *jit_off;
	int i;

	if (!current)
		return 201;
	if (!mod || !t)
		return 1;
	jit_off = getenv("CUDA_DISABLE_JIT");
	if (jit_off && !strcmp(jit_off, "1"))
		return 223;
	if (st.jit_result)
		return st.jit_result;
	if (!strstr(t, ".version ") || !strstr(t, ".target sm_") ||
	    !strstr(t, ".address_size 64") || !strstr(t, ".entry "))
		return 218;
	for (i = 0; i < MAX_MODULES && st.modules[i].used; i++)
		;
	if (i == MAX_MODULES)
		return 2;
	st.modules[i].used = 1;
	st.modules[i].has_kernel = !!strstr(t, ".entry " KERNEL_NAME "(");
	st.modules[i].has_spin = !!strstr(t, ".entry " SPIN_NAME "(");
	*mod = &st.modules[i];
	return 0;
}

EXPORT CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
	LOCKED(module_load(mod, image));
}

static int valid_module(CUmodule m)
{
	return m >= st.modules && m < st.modules + MAX_MODULES && m->used;
}

static CUresult module_fn(CUfunction *f, CUmodule m, const char *name)
{
	int spin, i;

	if (!valid_module(m) || !f || !name)
		return 400;
	spin = m->has_spin && !strcmp(name, SPIN_NAME);
	if (!spin && (!m->has_kernel || strcmp(name, KERNEL_NAME)))
		return 500;
	i = 2 * (m - st.modules) + spin;
	st.funcs[i].mod = m;
	st.funcs[i].spin = spin;
	*f = &st.funcs[i];
	return 0;
}

EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m,
				    const char *name)
{
	LOCKED(module_fn(f, m, name));
}

static CUresult module_unload(CUmodule m)
{
	if (!valid_module(m))
		return 400;
	m->used = 0;
	return 0;
}

EXPORT CUresult cuModuleUnload(CUmodule m)
{
	LOCKED(module_unload(m));
}

/* p2pmap_spin(ns): @s held for ns nanoseconds from when it starts. */
static CUresult spin(CUstream s, void **params)
{
	unsigned long long ns;

	memcpy(&ns, params[0], sizeof(ns));
	s->clock_us = stream_start(s) + ns / 1000.0;
	return 0;
}

/*
 * p2pmap_copy_u32(dst, src, n) on @s's device: an illegal address (700,
 * sticky) where it may not reach; the rules of the path the far side's
 * memory came by (sm, ipc, cumem).
 */
static CUresult launch(CUfunction f, unsigned int gx, unsigned int bx,
		       CUstream s, void **params)
{
	CUdeviceptr dst, src;
	unsigned long long n;
	struct alloc *d, *sr, *far;
	int eng, op, path, i;
	double start;

	if (!f || f < st.funcs || f >= st.funcs + 2 * MAX_MODULES ||
	    !valid_module(f->mod))
		return 400;
	if (!valid_stream(s) || s->ctx != current)
		return 400;
	if (!params || !gx || !bx || bx > 1024)
		return 1;
	if (f->spin)
		return spin(s, params);
	memcpy(&dst, params[0], sizeof(dst));
	memcpy(&src, params[1], sizeof(src));
	memcpy(&n, params[2], sizeof(n));
	d = find(dst, n * 4);
	sr = find(src, n * 4);
	eng = s->ctx->dev;
	for (i = 0; i < 2; i++) {
		struct alloc *a = i ? sr : d;

		if (!a || (a->kind == K_ALLOC && a->dev != eng &&
			   !s->ctx->peer[a->dev]) ||
		    (a->kind != K_ALLOC && !(a->access & (1u << eng)))) {
			st.sticky = 700;
			return 700;
		}
	}
	far = d->dev != eng ? d : sr;
	if (s->hung)
		return 0;
	start = stream_start(s);
	s->clock_us += DIRECT_US + n * 4 / DIRECT_BPUS;
	if (far->dev == eng) {
		work_add(start, dst, (void *)(uintptr_t)src, n * 4, NULL);
		return 0;
	}
	st.kernels++;
	op = far == d ? OP_WRITE : OP_READ;
	path = far->kind == K_IPC ? P_IPC : far->kind == K_CUMEM ? P_CUMEM :
								   P_SM;
	if (path_rule(R_ERROR, eng, far->dev, op, path)) {
		st.sticky = 700;
		return 700;
	}
	if (wedge_peer(eng, far->dev,
		       path_rule(R_HANG, eng, far->dev, op, path), "kernel")) {
		s->hung = 1;
		return 0;
	}
	if (path_rule(R_FAULT, eng, far->dev, op, path))
		return 0;
	work_add(start, dst, path_rule(R_WRONG, eng, far->dev, op, path) ?
			     NULL : (void *)(uintptr_t)src, n * 4, NULL);
	return 0;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
			       unsigned int gz, unsigned int bx,
			       unsigned int by, unsigned int bz,
			       unsigned int shared, CUstream s, void **params,
			       void **extra)
{
	if (gy != 1 || gz != 1 || by != 1 || bz != 1 || shared || extra)
		return 1;
	LOCKED(launch(f, gx, bx, s, params));
}

static const struct {
	CUresult err;
	const char *name, *str;
} errors[] = {
	{ 0, "CUDA_SUCCESS", "no error" },
	{ 1, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
	{ 100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
	{ 201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context" },
	{ 205, "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed" },
	{ 217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
	  "peer access is not supported between these two devices" },
	{ 218, "CUDA_ERROR_INVALID_PTX",
	  "a PTX JIT compilation failed" },
	{ 400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle" },
	{ 500, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
	{ 600, "CUDA_ERROR_NOT_READY",
	  "device not ready" },
	{ 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
	  "an illegal memory access was encountered" },
	{ 704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
	  "peer access is already enabled" },
	{ 705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
	  "peer access has not been enabled" },
	{ 711, "CUDA_ERROR_TOO_MANY_PEERS",
	  "peer mapping resources exhausted" },
	{ 801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported" },
};

/* Error strings work after a sticky error too, as with the driver. */
static CUresult error_text(CUresult err, const char **str, int name)
{
	size_t i;

	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		if (errors[i].err == err) {
			*str = name ? errors[i].name : errors[i].str;
			return 0;
		}
	}
	*str = NULL;
	return 1;
}

EXPORT CUresult cuGetErrorString(CUresult err, const char **str)
{
	return error_text(err, str, 0);
}

EXPORT CUresult cuGetErrorName(CUresult err, const char **str)
{
	return error_text(err, str, 1);
}

__attribute__((destructor)) static void stub_report(void)
{
	const char *log = getenv("P2PMAP_CUDA_STUB_LOG");
	int i, j, allocs = 0, ctxs = 0, peers = 0, streams = 0, events = 0;
	int modules = 0, ipc = 0, maps = 0, handles = 0;
	FILE *f;

	parse();
	if (!log || !(f = fopen(log, "a")))
		goto teardown;
	for (i = 0; i < MAX_ALLOCS; i++) {
		allocs += st.allocs[i].p && st.allocs[i].kind == K_ALLOC;
		ipc += st.allocs[i].p && st.allocs[i].kind == K_IPC;
		maps += st.allocs[i].p && st.allocs[i].kind == K_CUMEM;
	}
	for (i = 0; i < MAX_MODULES; i++)
		modules += st.modules[i].used;
	for (i = 0; i < MAX_HANDLES; i++)
		handles += st.handles[i].used;
	for (i = 0; i < MAX_DEVS; i++) {
		ctxs += st.ctx[i].retained;
		for (j = 0; j < MAX_DEVS; j++)
			peers += st.ctx[i].peer[j];
	}
	for (i = 0; i < MAX_STREAMS; i++)
		streams += !!st.streams[i].ctx;
	for (i = 0; i < MAX_EVENTS; i++)
		events += st.events[i].used;
	fprintf(f, "allocations=%d contexts=%d peers=%d streams=%d events=%d peer_copies=%lu staged=%lu modules=%d ipc_open=%d mappings=%d handles=%d kernels=%lu\n",
		allocs, ctxs, peers, streams, events, st.peer_copies,
		st.staged, modules, ipc, maps, handles, st.kernels);
	fclose(f);
teardown:
	if (st.unload == 1)
		raise(SIGSEGV);
	while (st.unload == 2)
		pause();
}
