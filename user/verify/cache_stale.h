/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a cache file verify wrote still valid?  Its record (cache_record.h)
 * against the machine now: every GPU still at its address with its UUID
 * (where the NVIDIA driver says), p2pmap's links among them in the same
 * states, the same p2pmap, NVIDIA driver and kernel.  The links are
 * compared themselves, not the module's generation counter: that moves
 * on any change (a fault, a device event elsewhere) and restarts at every
 * load, so it would call a valid cache stale and could call a stale one
 * valid.
 */
#ifndef P2PMAP_VERIFY_CACHE_STALE_H
#define P2PMAP_VERIFY_CACHE_STALE_H

#include <stdio.h>

#include "cache_record.h"

enum cache_state {
	CACHE_VALID,
	CACHE_STALE,		/* something it was verified for changed */
	CACHE_EDITED,		/* its bytes are not what verify wrote */
	CACHE_GONE,		/* the cache file was removed */
	CACHE_BAD_RECORD,	/* the record cannot be read */
};

struct cache_verdict {
	enum cache_state state;
	char why[600];		/* the first change, in words */
	unsigned int changes;	/* how many were found */
	char refresh[1400];	/* the command that rewrites it */
};

/* Judge record @r against the machine under @root. */
void cache_stale_judge(const char *root, const struct cache_record *r,
		       struct cache_verdict *v);

/*
 * Every record in @dir/caches (NULL: cache_record_dir()), judged under
 * @root; @fn called for each with the record (NULL for an unreadable
 * one, its path in @path) and the verdict.  Returns the number of
 * records, or -1 when @dir/caches cannot be listed (none: 0).
 */
int cache_stale_scan(const char *dir, const char *root,
		     void (*fn)(void *arg, const char *path,
				const struct cache_record *r,
				const struct cache_verdict *v),
		     void *arg);

/* "cache stale: PATH (vLLM, verified WHEN): WHY; refresh: CMD" lines. */
void cache_stale_print(FILE *f, const char *path,
		       const struct cache_record *r,
		       const struct cache_verdict *v);

/* "vLLM" or "SGLang" for a record's framework. */
const char *cache_stale_fw_name(const struct cache_record *r);

#endif /* P2PMAP_VERIFY_CACHE_STALE_H */
