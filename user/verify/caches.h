/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The P2P cache files of vLLM and SGLang, written from verify's verdicts
 * exactly as the frameworks' own check would write them, where they will
 * look for them.
 *
 * Both come from vLLM's custom_all_reduce_utils.py (SGLang's is a copy,
 * python/sglang/srt/distributed/device_communicators/
 * custom_all_reduce_utils.py): gpu_p2p_access_check() names the file
 * gpu_p2p_access_cache_for_<CUDA_VISIBLE_DEVICES, verbatim, or
 * "0,1,...,n-1" when unset>.json and writes json.dump(cache, f, indent=4)
 * of {"i->j": bool} for every ordered pair of local ordinals in
 * itertools.product order, the diagonal included.  Key "i->j" is the
 * result of can_actually_p2p(): the process on GPU j opens GPU i's buffer
 * over CUDA IPC and writes it; rank r then reads "r->i" for every other i
 * (_can_p2p / can_p2p).  A file with "0->1" true and "1->0" false makes
 * one rank start custom all-reduce and the other not, and the first
 * collective waits forever: a pair is true only when both directions
 * work (p2pmap's "A -> B" means A initiates).
 *
 * Directories: vLLM's envs.py, VLLM_CACHE_ROOT = os.path.expanduser(
 * $VLLM_CACHE_ROOT, else os.path.join($XDG_CACHE_HOME, else
 * os.path.join(os.path.expanduser("~"), ".cache"), "vllm")); SGLang:
 * os.path.expanduser("~/.cache/sglang").  Python's os.getenv() returns a
 * variable that is set but empty as "", and that is followed here too.
 *
 * vLLM reads the file only with VLLM_SKIP_P2P_CHECK=0 (its default
 * trusts cuDeviceCanAccessPeer); SGLang reads it unless
 * SGLANG_SKIP_P2P_CHECK=1.
 */
#ifndef P2PMAP_VERIFY_CACHES_H
#define P2PMAP_VERIFY_CACHES_H

#include <stddef.h>
#include <stdio.h>

#include "verify.h"

enum verify_framework {
	VERIFY_VLLM,
	VERIFY_SGLANG,
};

/* Python's os.path.expanduser(@path) (posixpath): 0, or -1 (too long). */
int py_expanduser(const char *path, char *out, size_t len);

/* The directory @fw looks in, from this process's environment: 0 or -1. */
int verify_cache_dir(enum verify_framework fw, char *dir, size_t len);

/*
 * The cache file @fw will read for this selection of @ngpus devices out
 * of @count visible: its name from CUDA_VISIBLE_DEVICES (@visible, may be
 * NULL) as the framework will see it when started with exactly the
 * selected devices visible.  Returns 0, or -1 with @why set (the path
 * would be relative or too long).
 */
int verify_cache_path(enum verify_framework fw, const struct verify_gpu *gpus,
		      size_t ngpus, int count, const char *visible, char *path,
		      size_t len, char *why, size_t whylen);

/*
 * NULL when the CUDA ordinals verify used mean the same GPUs to a
 * framework: CUDA_DEVICE_ORDER=PCI_BUS_ID (@order), or CUDA's default
 * order already equal to PCI order (every visible device, @all, @count,
 * and no CUDA_VISIBLE_DEVICES to reinterpret).  Else why not.
 */
const char *verify_order_problem(const char *order, const char *visible,
				 const struct verify_gpu *all, int count);

/*
 * The file's bytes, as json.dump(cache, f, indent=4) writes them.  A
 * direction is true when the paths @fw uses worked (verify_fw_works():
 * IPC and the SMs' loads and stores, what its check and its custom
 * all-reduce do), the copy engine alone is not enough.
 */
void verify_cache_render(FILE *f, const struct verify_result *r, size_t n,
			 size_t ngpus, enum verify_framework fw);

/* Why @fw's cache cannot be written from @r (a path not run), or NULL. */
const char *verify_cache_untested(enum verify_framework fw,
				  const struct verify_result *r, size_t n);

/* mkdir -p @dir, mode 0755: 0, or -1 with errno set. */
int verify_mkdirs(const char *dir);

/* Render into @path atomically (a temporary file renamed), mode 0644,
 * creating the directories.  Returns 0, or -1 after printing why. */
int verify_cache_write(const char *path, const struct verify_result *r,
		       size_t n, size_t ngpus, enum verify_framework fw);

#endif /* P2PMAP_VERIFY_CACHES_H */
