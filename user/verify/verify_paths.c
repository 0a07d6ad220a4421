// SPDX-License-Identifier: GPL-2.0
/* verify's paths beyond the copy engine: sm, ipc, cumem (verify_paths.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuda_errors.h"
#include "isolate.h"
#include "verify_paths.h"

/*
 * dst[i] = src[i] for i < n, 32-bit words, a grid-stride loop: the SMs of
 * the launching GPU load from src and store to dst, one of them memory of
 * the peer.  PTX ISA 7.0 (CUDA 11.0 drivers and later), target sm_52: the
 * driver compiles it for any GPU since; ptxas of CUDA 13.0 accepts it for
 * sm_75, sm_90 and sm_120 (tests/cuda-check).
 */
static const char ptx_copy[] =
	".version 7.0\n"
	".target sm_52\n"
	".address_size 64\n"
	"\n"
	".visible .entry p2pmap_copy_u32(\n"
	"\t.param .u64 p_dst,\n"
	"\t.param .u64 p_src,\n"
	"\t.param .u64 p_n\n"
	")\n"
	"{\n"
	"\t.reg .pred %p;\n"
	"\t.reg .b32 %r<6>;\n"
	"\t.reg .b64 %rd<11>;\n"
	"\n"
	"\tld.param.u64 %rd1, [p_dst];\n"
	"\tld.param.u64 %rd2, [p_src];\n"
	"\tld.param.u64 %rd3, [p_n];\n"
	"\tcvta.to.global.u64 %rd4, %rd1;\n"
	"\tcvta.to.global.u64 %rd5, %rd2;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %ntid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tmad.lo.s32 %r4, %r1, %r2, %r3;\n"
	"\tmov.u32 %r5, %nctaid.x;\n"
	"\tmul.lo.s32 %r5, %r5, %r2;\n"
	"\tcvt.u64.u32 %rd6, %r4;\n"
	"\tcvt.u64.u32 %rd7, %r5;\n"
	"$L_loop:\n"
	"\tsetp.ge.u64 %p, %rd6, %rd3;\n"
	"\t@%p bra $L_done;\n"
	"\tshl.b64 %rd8, %rd6, 2;\n"
	"\tadd.s64 %rd9, %rd5, %rd8;\n"
	"\tld.global.u32 %r1, [%rd9];\n"
	"\tadd.s64 %rd10, %rd4, %rd8;\n"
	"\tst.global.u32 [%rd10], %r1;\n"
	"\tadd.s64 %rd6, %rd6, %rd7;\n"
	"\tbra $L_loop;\n"
	"$L_done:\n"
	"\tret;\n"
	"}\n";

#define KERNEL_NAME	"p2pmap_copy_u32"
#define THREADS		256
#define MAX_BLOCKS	1024

static const char * const path_names[VERIFY_NR_PATHS] = {
	[VERIFY_PATH_COPY] = "copy", [VERIFY_PATH_SM] = "sm",
	[VERIFY_PATH_IPC] = "ipc", [VERIFY_PATH_CUMEM] = "cumem",
};

const char *verify_path_name(enum verify_path p)
{
	return p < VERIFY_NR_PATHS ? path_names[p] : "?";
}

int verify_path_parse(const char *name)
{
	int p;

	for (p = 0; p < VERIFY_NR_PATHS; p++)
		if (!strcmp(name, path_names[p]))
			return p;
	return -1;
}

static const char * const fw_names[VERIFY_NR_FW] = {
	[VERIFY_FW_NCCL] = "NCCL", [VERIFY_FW_VLLM] = "vLLM",
	[VERIFY_FW_SGLANG] = "SGLang",
};

static const char * const fw_keys[VERIFY_NR_FW] = {
	[VERIFY_FW_NCCL] = "nccl", [VERIFY_FW_VLLM] = "vllm",
	[VERIFY_FW_SGLANG] = "sglang",
};

const char *verify_fw_name(enum verify_fw fw)
{
	return fw_names[fw];
}

const char *verify_fw_key(enum verify_fw fw)
{
	return fw_keys[fw];
}

#define PATH_BIT(p)	(1u << (p))

/*
 * What each framework reaches a peer with, from their sources:
 * - NCCL (NVIDIA/nccl 5067397c2676): its P2P transport hands the kernels
 *   the peer's memory (src/transport/p2p.cc:546-568); the copy engine only
 *   with NCCL_P2P_USE_CUDA_MEMCPY, default 0 (p2p.cc:123).  The memory is
 *   a cuMem allocation shared as a POSIX file descriptor when
 *   NCCL_CUMEM_ENABLE is on (src/misc/cudawrap.cc:16,19, "-2": on where
 *   supported, since 2.19.1; p2p.cc:220-234, imported at 288-290), else a
 *   cudaIpcGetMemHandle handle opened with lazy peer access (p2p.cc:246-
 *   248, 318).  So: sm, and cumem or ipc.
 * - vLLM (vllm-project/vllm 00d618aab604): its P2P check opens a peer
 *   buffer with cudaIpcOpenMemHandle in another process and cudaMemsets
 *   it (vllm/distributed/device_communicators/all_reduce_utils.py:137-
 *   209); its custom all-reduce loads through IPC-opened peer pointers
 *   (csrc/custom_all_reduce.cuh:43,205-208, at 036bb685581d), and is off
 *   above two PCIe-only GPUs (custom_all_reduce.py:152-158), where NCCL
 *   carries TP.  So: sm and ipc.
 * - SGLang (sgl-project/sglang 0cd72ba41d48): the same check, copied
 *   (.../custom_all_reduce_utils.py:69-135), the same all-reduce gate
 *   (custom_all_reduce.py:142-147 at 004e6561cb8a); its opt-in PCIe
 *   all-reduce (SGLANG_ENABLE_PCIE_IPC_ALLREDUCE, PR #34528, open when
 *   read: pcie_ipc_ar.py:77-105 at 08a72bac245b) shares FlashInfer's
 *   workspace over CUDA IPC.  So: sm and ipc.
 */
unsigned int verify_fw_paths(enum verify_fw fw)
{
	if (fw == VERIFY_FW_NCCL)
		return PATH_BIT(VERIFY_PATH_SM) | PATH_BIT(VERIFY_PATH_CUMEM) |
		       PATH_BIT(VERIFY_PATH_IPC);
	return PATH_BIT(VERIFY_PATH_SM) | PATH_BIT(VERIFY_PATH_IPC);
}

/* 1 works, 0 not, -1 not run (or not all of it: a GPU wedged). */
static int path_works(const struct verify_result *r, enum verify_path p)
{
	if (!r->path[p].ran || r->path[p].verdict == VERIFY_NOT_TESTED)
		return -1;
	return r->path[p].verdict == VERIFY_WORKS;
}

static int all_of(int a, int b)
{
	return !a || !b ? 0 : a < 0 || b < 0 ? -1 : 1;
}

static int any_of(int a, int b)
{
	return a == 1 || b == 1 ? 1 : a < 0 || b < 0 ? -1 : 0;
}

int verify_fw_works(const struct verify_result *r, enum verify_fw fw)
{
	int sm = path_works(r, VERIFY_PATH_SM);
	int ipc = path_works(r, VERIFY_PATH_IPC);

	/* NCCL_CUMEM_ENABLE=0 falls back to IPC: either will do. */
	if (fw == VERIFY_FW_NCCL)
		return all_of(sm, any_of(path_works(r, VERIFY_PATH_CUMEM),
					 ipc));
	return all_of(sm, ipc);
}

bool verify_paths_all(const struct verify_result *r)
{
	int p;

	for (p = 0; p < VERIFY_NR_PATHS; p++)
		if (!r->path[p].ran)
			return false;
	return true;
}

bool verify_paths_differ(const struct verify_result *r)
{
	int p, first = -1;

	for (p = 0; p < VERIFY_NR_PATHS; p++) {
		if (!r->path[p].ran)
			continue;
		if (first < 0)
			first = r->path[p].verdict;
		else if ((int)r->path[p].verdict != first)
			return true;
	}
	return false;
}

static bool failed(const struct cuda_api *api, struct verify_copy *c,
		   const char *call, CUresult res)
{
	const struct cuda_first_error fe = CUDA_FIRST_ERROR(c);

	return cuda_failed(api, &fe, call, res);
}

/* The seed both processes derive a direction's pattern from. */
static uint64_t seed(int from, int to, enum verify_op op,
		     enum verify_path path)
{
	return (uint64_t)from << 17 | (uint64_t)to << 1 | op |
	       (uint64_t)path << 40;
}

static void compare(struct verify_copy *c, const unsigned char *got,
		    const unsigned char *want, uint64_t size)
{
	uint64_t i;

	c->data_checked = true;
	c->data_ok = true;
	for (i = 0; i < size; i++) {
		if (got[i] != want[i]) {
			c->data_ok = false;
			c->first_diff = i;
			return;
		}
	}
}

/* The kernel, launched on @stream: dst[i] = src[i], @size bytes. */
struct kernel {
	CUmodule mod;
	CUfunction fn;
};

/*
 * A driver that cannot compile PTX says nothing about P2P: 221 (no
 * libnvidia-ptxjitcompiler, as in a container that mounts only
 * libcuda.so*), 222 (PTX newer than the driver's compiler), 223 (JIT
 * disabled: CUDA_DISABLE_JIT=1, cuda.h).  The path is then not tested.
 */
static bool jit_missing(CUresult res)
{
	return res == 221 || res == 222 || res == 223;
}

static bool kernel_load(const struct cuda_api *api, struct verify_copy *c,
			struct kernel *k)
{
	CUresult res = api->ModuleLoadData(&k->mod, ptx_copy);

	if (failed(api, c, "cuModuleLoadData", res)) {
		c->no_jit = jit_missing(res);
		return false;
	}
	return !failed(api, c, "cuModuleGetFunction",
		       api->ModuleGetFunction(&k->fn, k->mod, KERNEL_NAME));
}

static bool kernel_copy(const struct cuda_api *api, struct verify_copy *c,
			const struct kernel *k, CUstream stream,
			CUdeviceptr dst, CUdeviceptr src, uint64_t size)
{
	unsigned long long n = size / 4;
	unsigned int blocks = n / THREADS + 1;
	void *params[] = { &dst, &src, &n };

	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	return !failed(api, c, "cuLaunchKernel",
		       api->LaunchKernel(k->fn, blocks, 1, 1, THREADS, 1, 1,
					 0, stream, params, NULL)) &&
	       !failed(api, c, "cuStreamSynchronize",
		       api->StreamSynchronize(stream));
}

/* Device @ordinal's primary context, current. */
static bool ctx_open(const struct cuda_api *api, struct verify_copy *c,
		     int ordinal, CUdevice *dev, CUcontext *ctx)
{
	if (failed(api, c, "cuDeviceGet", api->DeviceGet(dev, ordinal)) ||
	    failed(api, c, "cuDevicePrimaryCtxRetain",
		   api->DevicePrimaryCtxRetain(ctx, *dev))) {
		*ctx = NULL;
		return false;
	}
	return !failed(api, c, "cuCtxSetCurrent", api->CtxSetCurrent(*ctx));
}

/*
 * A pageable cuMemcpyHtoD may return before its data land, and nothing
 * verify later runs (non-blocking streams, another process) waits for
 * them: the context synchronized before anything reads them.
 */
static bool fill_synced(const struct cuda_api *api, struct verify_copy *c,
			CUdeviceptr p, const unsigned char *buf, uint64_t size)
{
	return !failed(api, c, "cuMemcpyHtoD", api->MemcpyHtoD(p, buf, size)) &&
	       !failed(api, c, "cuCtxSynchronize", api->CtxSynchronize());
}

static bool alloc_fill(const struct cuda_api *api, struct verify_copy *c,
		       CUdeviceptr *p, const unsigned char *buf, uint64_t size)
{
	return !failed(api, c, "cuMemAlloc", api->MemAlloc(p, size)) &&
	       fill_synced(api, c, *p, buf, size);
}

/*
 * The initiator's side of every path: its context, the kernel, a buffer
 * and a stream.
 */
struct side {
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr mine;
	CUstream stream;
	struct kernel k;
};

static bool side_open(const struct cuda_api *api, struct verify_copy *c,
		      int ordinal, const unsigned char *buf, uint64_t size,
		      struct side *s)
{
	return ctx_open(api, c, ordinal, &s->dev, &s->ctx) &&
	       alloc_fill(api, c, &s->mine, buf, size) &&
	       kernel_load(api, c, &s->k) &&
	       !failed(api, c, "cuStreamCreate",
		       api->StreamCreate(&s->stream, CU_STREAM_NON_BLOCKING));
}

/* Errors here are not the operation's: its verdict is made. */
static void side_close(const struct cuda_api *api, struct side *s)
{
	if (!s->ctx || api->CtxSetCurrent(s->ctx))
		return;
	if (s->stream)
		api->StreamDestroy(s->stream);
	if (s->k.mod)
		api->ModuleUnload(s->k.mod);
	if (s->mine)
		api->MemFree(s->mine);
	api->DevicePrimaryCtxRelease(s->dev);
}

/* Can @from reach @to at all (cuDeviceCanAccessPeer)?  As verify's copy. */
static bool peer_possible(const struct cuda_api *api, struct verify_copy *c,
			  int from, int to)
{
	CUdevice a, b;
	int can = 0;

	if (failed(api, c, "cuInit", api->Init(0)) ||
	    failed(api, c, "cuDeviceGet", api->DeviceGet(&a, from)) ||
	    failed(api, c, "cuDeviceGet", api->DeviceGet(&b, to)) ||
	    failed(api, c, "cuDeviceCanAccessPeer",
		   api->DeviceCanAccessPeer(&can, a, b)))
		return false;
	c->can_access = can;
	c->refused = !can;
	return can;
}

/* sm: one process, peer access from @from to @to, the kernel. */
static void run_sm(const struct cuda_api *api, int from, int to,
		   enum verify_op op, uint64_t size, const unsigned char *want,
		   unsigned char *other, struct verify_copy *c)
{
	struct side s = { 0 };
	CUdevice pdev = 0;
	CUcontext pctx = NULL;
	CUdeviceptr peer = 0;
	bool enabled = false;
	CUresult res;

	if (!peer_possible(api, c, from, to) ||
	    !ctx_open(api, c, to, &pdev, &pctx) ||
	    !alloc_fill(api, c, &peer, op == VERIFY_WRITE ? other : want,
			size) ||
	    !side_open(api, c, from, op == VERIFY_WRITE ? want : other, size,
		       &s))
		goto out;
	res = api->CtxEnablePeerAccess(pctx, 0);
	c->refused = cuda_peer_map_refused("cuCtxEnablePeerAccess", res);
	if (res != CUDA_ERR_PEER_ACCESS_ALREADY_ENABLED &&
	    failed(api, c, "cuCtxEnablePeerAccess", res))
		goto out;
	enabled = res == CUDA_SUCCESS_;
	if (!kernel_copy(api, c, &s.k, s.stream,
			 op == VERIFY_WRITE ? peer : s.mine,
			 op == VERIFY_WRITE ? s.mine : peer, size))
		goto out;
	/* Read back where the kernel wrote, through that GPU's context. */
	if (failed(api, c, "cuCtxSetCurrent",
		   api->CtxSetCurrent(op == VERIFY_WRITE ? pctx : s.ctx)) ||
	    failed(api, c, "cuMemcpyDtoH",
		   api->MemcpyDtoH(other, op == VERIFY_WRITE ? peer : s.mine,
				   size)))
		goto out;
	compare(c, other, want, size);
out:
	if (enabled && !api->CtxSetCurrent(s.ctx))
		api->CtxDisablePeerAccess(pctx);
	side_close(api, &s);
	if (pctx && !api->CtxSetCurrent(pctx)) {
		if (peer)
			api->MemFree(peer);
		api->DevicePrimaryCtxRelease(pdev);
	}
}

/*
 * Between the owner and the initiator: the owner's handle (or why it has
 * none), then "done" from the initiator, then the owner's reading of its
 * memory.  A cuMem handle's file descriptor travels with SCM_RIGHTS.
 */
struct owner_msg {
	struct verify_copy c;		/* the owner's errors, its check */
	CUipcMemHandle ipc;
	uint64_t size;			/* what the owner allocated */
};

static int send_msg(int sock, const void *m, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static int recv_msg(int sock, void *m, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	if (fd)
		*fd = -1;
	n = recvmsg(sock, &mh, MSG_WAITALL | MSG_CMSG_CLOEXEC);
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			if (fd)
				memcpy(fd, CMSG_DATA(cm), sizeof(int));
			else
				close(*(int *)CMSG_DATA(cm));
		}
	return n == (ssize_t)len ? 0 : -1;
}

/* The owner's cuMem allocation: created, mapped and usable by itself. */
struct cumem {
	CUmemGenericAllocationHandle h;
	CUdeviceptr va;
	uint64_t size;
	bool mapped;
};

static bool cumem_map(const struct cuda_api *api, struct verify_copy *c,
		      struct cumem *m, CUdevice dev)
{
	CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE_, dev },
				CU_MEM_ACCESS_FLAGS_PROT_READWRITE_ };

	if (failed(api, c, "cuMemAddressReserve",
		   api->MemAddressReserve(&m->va, m->size, 0, 0, 0)))
		return false;
	if (failed(api, c, "cuMemMap",
		   api->MemMap(m->va, m->size, 0, m->h, 0)))
		return false;
	m->mapped = true;
	return !failed(api, c, "cuMemSetAccess",
		       api->MemSetAccess(m->va, m->size, &acc, 1));
}

static void cumem_free(const struct cuda_api *api, struct cumem *m)
{
	if (m->mapped)
		api->MemUnmap(m->va, m->size);
	if (m->va)
		api->MemAddressFree(m->va, m->size);
	if (m->h)
		api->MemRelease(m->h);
}

/*
 * The owner: @to's memory, filled, shared, then read back after the
 * initiator is done.  Runs in its own process; reports on @sock.
 */
static void owner(const struct cuda_api *api, int sock, enum verify_path path,
		  int to, uint64_t size, const unsigned char *fill,
		  const unsigned char *want, bool check)
{
	CUmemAllocationProp prop = { 0 };
	struct owner_msg m = { 0 };
	struct cumem cm = { 0 };
	unsigned char *got = malloc(size);
	CUdeviceptr p = 0;
	CUcontext ctx = NULL;
	CUdevice dev;
	size_t gran = 0;
	int fd = -1;
	char done;

	m.size = size;
	if (!got) {
		snprintf(m.c.cuda_call, sizeof(m.c.cuda_call), "malloc");
		m.c.cuda_code = -1;
		goto report;
	}
	if (failed(api, &m.c, "cuInit", api->Init(0)) ||
	    !ctx_open(api, &m.c, to, &dev, &ctx))
		goto report;
	if (path == VERIFY_PATH_IPC) {
		if (!alloc_fill(api, &m.c, &p, fill, size) ||
		    failed(api, &m.c, "cuIpcGetMemHandle",
			   api->IpcGetMemHandle(&m.ipc, p)))
			goto report;
	} else {
		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED_;
		prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FD_;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE_;
		prop.location.id = dev;
		if (failed(api, &m.c, "cuMemGetAllocationGranularity",
			   api->MemGetAllocationGranularity(&gran, &prop,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM_)))
			goto report;
		cm.size = gran ? (size + gran - 1) / gran * gran : size;
		m.size = cm.size;
		if (failed(api, &m.c, "cuMemCreate",
			   api->MemCreate(&cm.h, cm.size, &prop, 0)) ||
		    !cumem_map(api, &m.c, &cm, dev) ||
		    !fill_synced(api, &m.c, cm.va, fill, size) ||
		    failed(api, &m.c, "cuMemExportToShareableHandle",
			   api->MemExportToShareableHandle(&fd, cm.h,
				CU_MEM_HANDLE_TYPE_POSIX_FD_, 0)))
			goto report;
		p = cm.va;
	}
report:
	if (send_msg(sock, &m, sizeof(m), fd) || m.c.cuda_call[0] ||
	    recv(sock, &done, 1, MSG_WAITALL) != 1)
		goto out;
	/* The initiator is done: a write must be in this GPU's memory. */
	memset(&m, 0, sizeof(m));
	if (check && !failed(api, &m.c, "cuMemcpyDtoH",
			     api->MemcpyDtoH(got, p, size)))
		compare(&m.c, got, want, size);
	send_msg(sock, &m, sizeof(m), -1);
out:
	if (fd >= 0)
		close(fd);
	if (ctx && !api->CtxSetCurrent(ctx)) {
		if (path == VERIFY_PATH_IPC && p)
			api->MemFree(p);
		cumem_free(api, &cm);
		api->DevicePrimaryCtxRelease(dev);
	}
	free(got);
}

/* The owner's failure is the operation's (its call names it). */
static void take_owner_error(struct verify_copy *c, const struct verify_copy *o)
{
	memcpy(c->cuda_call, o->cuda_call, sizeof(c->cuda_call));
	c->cuda_code = o->cuda_code;
	memcpy(c->cuda_error, o->cuda_error, sizeof(c->cuda_error));
}

/* The initiator's import of the owner's memory: its address in @peer. */
static bool import(const struct cuda_api *api, struct verify_copy *c,
		   enum verify_path path, const struct owner_msg *m, int fd,
		   CUdevice dev, struct cumem *cm, CUdeviceptr *peer)
{
	CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE_, dev },
				CU_MEM_ACCESS_FLAGS_PROT_READWRITE_ };
	CUresult res;

	if (path == VERIFY_PATH_IPC) {
		res = api->IpcOpenMemHandle(peer, m->ipc,
					    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS_);
		c->refused = cuda_peer_map_refused("cuIpcOpenMemHandle", res);
		return !failed(api, c, "cuIpcOpenMemHandle", res);
	}
	cm->size = m->size;
	if (failed(api, c, "cuMemImportFromShareableHandle",
		   api->MemImportFromShareableHandle(&cm->h,
				(void *)(intptr_t)fd,
				CU_MEM_HANDLE_TYPE_POSIX_FD_)) ||
	    failed(api, c, "cuMemAddressReserve",
		   api->MemAddressReserve(&cm->va, cm->size, 0, 0, 0)) ||
	    failed(api, c, "cuMemMap",
		   api->MemMap(cm->va, cm->size, 0, cm->h, 0)))
		return false;
	cm->mapped = true;
	res = api->MemSetAccess(cm->va, cm->size, &acc, 1);
	c->refused = cuda_peer_map_refused("cuMemSetAccess", res);
	if (failed(api, c, "cuMemSetAccess", res))
		return false;
	*peer = cm->va;
	return true;
}

/* ipc, cumem: the owner forked first (before CUDA), then the initiator. */
static void run_shared(const struct cuda_api *api, enum verify_path path,
		       int from, int to, enum verify_op op, uint64_t size,
		       const unsigned char *want, unsigned char *other,
		       struct verify_copy *c)
{
	struct owner_msg m;
	struct cumem cm = { 0 };
	struct cuda_api own;
	struct side s = { 0 };
	CUdeviceptr peer = 0;
	int sv[2], fd = -1, status;
	pid_t pid;
	char done = 1;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		snprintf(c->cuda_call, sizeof(c->cuda_call), "socketpair");
		snprintf(c->cuda_error, sizeof(c->cuda_error), "%s",
			 strerror(errno));
		c->cuda_code = -1;
		return;
	}
	pid = fork();
	if (pid == 0) {
		/* Dies with the initiator (the watchdog kills that one). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(sv[0]);
		owner(api, sv[1], path, to, size,
		      op == VERIFY_WRITE ? other : want, want,
		      op == VERIFY_WRITE);
		/* Its own copy of the library: unloaded as the parent's is. */
		own = *api;
		if (!isolate_skip_teardown())
			cuda_unload(&own);
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0) {
		snprintf(c->cuda_call, sizeof(c->cuda_call), "fork");
		snprintf(c->cuda_error, sizeof(c->cuda_error), "%s",
			 strerror(errno));
		c->cuda_code = -1;
		close(sv[0]);
		return;
	}
	if (!peer_possible(api, c, from, to))
		goto out;
	if (recv_msg(sv[0], &m, sizeof(m), &fd)) {
		snprintf(c->cuda_call, sizeof(c->cuda_call), "owner");
		snprintf(c->cuda_error, sizeof(c->cuda_error),
			 "GPU %d's process sent no handle", to);
		c->cuda_code = -1;
		goto out;
	}
	if (m.c.cuda_call[0]) {
		take_owner_error(c, &m.c);
		goto out;
	}
	if (!side_open(api, c, from, op == VERIFY_WRITE ? want : other, size,
		       &s) ||
	    !import(api, c, path, &m, fd, s.dev, &cm, &peer) ||
	    !kernel_copy(api, c, &s.k, s.stream,
			 op == VERIFY_WRITE ? peer : s.mine,
			 op == VERIFY_WRITE ? s.mine : peer, size))
		goto out;
	if (op == VERIFY_READ) {
		if (!failed(api, c, "cuMemcpyDtoH",
			    api->MemcpyDtoH(other, s.mine, size)))
			compare(c, other, want, size);
		goto out;
	}
	/* A write: the owner reads its own memory. */
	if (send(sv[0], &done, 1, MSG_NOSIGNAL) != 1 ||
	    recv_msg(sv[0], &m, sizeof(m), NULL)) {
		snprintf(c->cuda_call, sizeof(c->cuda_call), "owner");
		snprintf(c->cuda_error, sizeof(c->cuda_error),
			 "GPU %d's process did not read its memory back", to);
		c->cuda_code = -1;
		goto out;
	}
	if (m.c.cuda_call[0]) {
		take_owner_error(c, &m.c);
		goto out;
	}
	c->data_checked = m.c.data_checked;
	c->data_ok = m.c.data_ok;
	c->first_diff = m.c.first_diff;
out:
	if (s.ctx && !api->CtxSetCurrent(s.ctx)) {
		if (path == VERIFY_PATH_IPC && peer)
			api->IpcCloseMemHandle(peer);
		cumem_free(api, &cm);
	}
	side_close(api, &s);
	if (fd >= 0)
		close(fd);
	close(sv[0]);		/* the owner sees EOF if still waiting */
	/*
	 * The result is complete: sent before the owner's teardown (and
	 * this process's) can delay it.  The owner then gets its bounded
	 * wait; left behind, it dies with this process (PDEATHSIG).
	 */
	isolate_result_ready();
	isolate_reap(pid, ISOLATE_EXIT_WAIT_S, &status);
}

void verify_path_run(const struct cuda_api *api, enum verify_path path,
		     int from, int to, enum verify_op op, uint64_t size,
		     struct verify_copy *c)
{
	/* Whole 32-bit words: the kernel moves words. */
	uint64_t words = (size + 3) & ~3ULL, i;
	unsigned char *want = malloc(words), *other = malloc(words);

	memset(c, 0, sizeof(*c));
	if (!want || !other) {
		snprintf(c->cuda_call, sizeof(c->cuda_call), "malloc");
		snprintf(c->cuda_error, sizeof(c->cuda_error), "out of memory");
		c->cuda_code = -1;
		goto out;
	}
	verify_fill_pattern(want, words, seed(from, to, op, path));
	for (i = 0; i < words; i++)
		other[i] = ~want[i];
	if (path == VERIFY_PATH_SM)
		run_sm(api, from, to, op, words, want, other, c);
	else
		run_shared(api, path, from, to, op, words, want, other, c);
out:
	free(want);
	free(other);
}
