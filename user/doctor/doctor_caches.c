// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: the vLLM and SGLang caches p2pmap verify wrote, each against
 * what it was verified for (cache_stale.h).  A framework trusts its cache
 * without testing again, so a stale "true" sends it down a path that may
 * fault.  No line at all where verify recorded none.  Another host's
 * files (--root): the records under ROOT/var/lib/p2pmap, root's own.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cache_stale.h"
#include "doctor_int.h"

static void judged(void *arg, const char *path, const struct cache_record *r,
		   const struct cache_verdict *v)
{
	struct host *h = arg;
	char more[64] = "";

	if (v->changes > 1)
		snprintf(more, sizeof(more), " (and %u more change%s)",
			 v->changes - 1, v->changes == 2 ? "" : "s");
	switch (v->state) {
	case CACHE_VALID:
		doctor_add(h, "caches", DOCTOR_OK, NULL,
			   "%s cache %s matches what p2pmap verify verified (%s)",
			   cache_stale_fw_name(r), r->cache, r->written);
		break;
	case CACHE_GONE:
		doctor_add(h, "caches", DOCTOR_SKIP, NULL,
			   "%s cache %s was removed: the framework checks P2P itself",
			   cache_stale_fw_name(r), r->cache);
		break;
	case CACHE_STALE:
		doctor_add(h, "caches", DOCTOR_FAIL, v->refresh,
			   "%s cache %s is stale: %s%s; the framework would trust verdicts of %s",
			   cache_stale_fw_name(r), r->cache, v->why, more,
			   r->written);
		break;
	case CACHE_EDITED:
		doctor_add(h, "caches", DOCTOR_WARN, v->refresh,
			   "%s cache %s: %s, so p2pmap cannot vouch for it",
			   cache_stale_fw_name(r), r->cache, v->why);
		break;
	case CACHE_BAD_RECORD:
		doctor_add(h, "caches", DOCTOR_WARN,
			   "run p2pmap verify again with --vllm-cache or --sglang-cache",
			   "the record %s cannot be read: %s", path, v->why);
		break;
	}
}

void doctor_check_caches(struct host *h)
{
	char dir[PATH_MAX];
	bool other = h->root[0] && strcmp(h->root, "/");

	if (other)
		snprintf(dir, sizeof(dir), "%s/var/lib/p2pmap", h->root);
	if (cache_stale_scan(other ? dir : NULL, other ? h->root : "/",
			     judged, h) < 0)
		doctor_add(h, "caches", DOCTOR_SKIP, NULL,
			   "the records of p2pmap verify's caches cannot be listed");
}
