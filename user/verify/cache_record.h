/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record verify keeps of each vLLM/SGLang cache file it writes: what
 * the file was valid for (p2pmap's links among its GPUs, the module,
 * NVIDIA driver and kernel versions, the GPUs' addresses, UUIDs and
 * order, the file's own content), so that check and doctor can tell when
 * it no longer matches (cache_stale.h).  The frameworks never re-verify a
 * cache they find: a stale "true" makes them use a path that faults.
 *
 * One text file per cache, "KEY VALUE" lines, in DIR/caches/ where DIR is
 * $P2PMAP_STATE_DIR, else /var/lib/p2pmap for root, else
 * $XDG_STATE_HOME/p2pmap or ~/.local/state/p2pmap: each user's caches
 * live in their own home, and so do the records of them.
 */
#ifndef P2PMAP_VERIFY_CACHE_RECORD_H
#define P2PMAP_VERIFY_CACHE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verify.h"

#define CACHE_RECORD_STATE_ENV	"P2PMAP_STATE_DIR"
#define CACHE_RECORD_VERSION	1
#define CACHE_RECORD_MAX_LINKS	512

struct cache_record_link {
	char from[P2PMAP_ADDR_LEN], to[P2PMAP_ADDR_LEN];
	char state[32];
};

/* What a cache depended on, then (a record) or now (cache_record_now). */
struct cache_record_env {
	char module[64];		/* p2pmap's version, "" not loaded */
	char nvidia[64];		/* NVIDIA kernel module's, "" none */
	char kernel[128];		/* uname -r */
	bool present[VERIFY_MAX_GPUS];	/* each GPU's PCI device in sysfs */
	char uuid[VERIFY_MAX_GPUS][VERIFY_UUID_LEN]; /* NVIDIA's procfs, "" */
	size_t nlinks;			/* configured among the GPUs */
	struct cache_record_link links[CACHE_RECORD_MAX_LINKS];
};

struct cache_record {
	char path[4096];		/* the record file itself */
	char framework[16];		/* "vllm" or "sglang" */
	char cache[4096];		/* the cache file */
	char content[17];		/* FNV-1a 64 of its bytes, hex */
	char written[32];		/* UTC, ISO 8601 */
	char order[32];			/* CUDA_DEVICE_ORDER */
	char visible[512];		/* CUDA_VISIBLE_DEVICES, "" unset */
	size_t ngpus;
	struct verify_gpu gpus[VERIFY_MAX_GPUS];
	struct cache_record_env env;
};

/* The record directory (see above) in @buf: 0, or -1 (none). */
int cache_record_dir(char *buf, size_t len);

/*
 * What the caches of @gpus depend on now, read under @root ("/" on the
 * host): sysfs, /proc/driver/nvidia/version, and uname -r when @root is
 * "/" (another root's kernel is not known: "").
 */
void cache_record_now(const char *root, const struct verify_gpu *gpus,
		      size_t ngpus, struct cache_record_env *env);

/* FNV-1a 64 of @path's bytes in @hex (17 bytes): 0, or -errno. */
int cache_record_hash(const char *path, char *hex);

/*
 * Write the record of cache @cache (@fw "vllm"/"sglang") for @gpus, with
 * @env as it is now, atomically.  0, or -1 after printing why.
 */
int cache_record_write(const char *fw, const char *cache,
		       const struct verify_gpu *gpus, size_t ngpus,
		       const char *order, const char *visible,
		       const struct cache_record_env *env);

/* The directory @r's cache file is in, in @dir. */
void cache_record_dir_of(const struct cache_record *r, char *dir, size_t len);

/*
 * The variable that sends the framework's cache to @r's directory:
 * "VLLM_CACHE_ROOT" (the directory), or "HOME" for SGLang (its cache is
 * HOME/.cache/sglang); its value in @val.  NULL when none can.
 */
const char *cache_record_root_var(const struct cache_record *r, char *val,
				  size_t len);

/* Parse record file @path into @r: 0, or -1 with @why set. */
int cache_record_read(const char *path, struct cache_record *r, char *why,
		      size_t whylen);

#endif /* P2PMAP_VERIFY_CACHE_RECORD_H */
