/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ways the inference stack reaches a peer GPU's memory, each tested
 * on its own (a direction can copy fine and still fault on the path a
 * server uses: NVIDIA's driver maps each path differently).
 *
 *   copy   the copy engine: cuMemcpyPeerAsync on the initiator's stream,
 *          peer access enabled (verify.h's verify_copy_run)
 *   sm     the initiator's SMs load and store through a pointer into the
 *          peer's cuMemAlloc memory, peer access enabled: a kernel loaded
 *          from PTX text with cuModuleLoadData (the driver compiles it;
 *          no toolkit at run time)
 *   ipc    the peer's memory opened in another process through CUDA IPC
 *          (cuIpcGetMemHandle in the owner, cuIpcOpenMemHandle with lazy
 *          peer access in the initiator), then the same kernel: vLLM's
 *          and SGLang's P2P check and custom all-reduce, NCCL without
 *          cuMem
 *   cumem  a cuMem allocation (cuMemCreate) of the owner exported as a
 *          POSIX file descriptor, passed over a socket, imported, mapped
 *          (cuMemMap) and made accessible (cuMemSetAccess) in the
 *          initiator, then the kernel: NCCL with NCCL_CUMEM_ENABLE (its
 *          default)
 *
 * For ipc and cumem the owner is a second process, forked before CUDA is
 * touched: a handle is valid only in another process.  A write is
 * checked by the owner reading its own memory back, a read by the
 * initiator.  Which framework uses which path: verify_frameworks().
 */
#ifndef P2PMAP_VERIFY_PATHS_H
#define P2PMAP_VERIFY_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "verify.h"

/* "copy", "sm", "ipc", "cumem" */
const char *verify_path_name(enum verify_path p);
/* The path named @name, or -1. */
int verify_path_parse(const char *name);

/* The frameworks whose paths verify_fw_works() knows. */
enum verify_fw {
	VERIFY_FW_NCCL,
	VERIFY_FW_VLLM,
	VERIFY_FW_SGLANG,
	VERIFY_NR_FW,
};

/* "NCCL", "vLLM", "SGLang"; verify_fw_key(): "nccl", "vllm", "sglang" */
const char *verify_fw_name(enum verify_fw fw);
const char *verify_fw_key(enum verify_fw fw);

/*
 * Does direction @r work for @fw: 1 when every path it uses worked, 0
 * when one did not, -1 when one it needs was not run (--paths).
 */
int verify_fw_works(const struct verify_result *r, enum verify_fw fw);

/* Mask of the paths @fw needs, for saying which were left out. */
unsigned int verify_fw_paths(enum verify_fw fw);

/* Do the paths run on @r disagree (then verify says each)? */
bool verify_paths_differ(const struct verify_result *r);
/* Did every path run on @r (no --paths)? */
bool verify_paths_all(const struct verify_result *r);

/*
 * One operation of one direction over @path (not VERIFY_PATH_COPY), in
 * the calling process (a child of verify): fills @c as verify_copy_run()
 * does.
 */
void verify_path_run(const struct cuda_api *api, enum verify_path path,
		     int from, int to, enum verify_op op, uint64_t size,
		     struct verify_copy *c);

#endif /* P2PMAP_VERIFY_PATHS_H */
