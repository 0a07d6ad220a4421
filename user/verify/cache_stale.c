// SPDX-License-Identifier: GPL-2.0
/* Is a cache verify wrote still valid (cache_stale.h)? */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_stale.h"
#include "caches.h"

const char *cache_stale_fw_name(const struct cache_record *r)
{
	return strcmp(r->framework, "sglang") ? "vLLM" : "SGLang";
}

/* Count a change; the first one is the one explained. */
static void __attribute__((format(printf, 2, 3)))
change(struct cache_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (!v->changes++) {
		va_start(ap, fmt);
		vsnprintf(v->why, sizeof(v->why), fmt, ap);
		va_end(ap);
	}
}

static const char *or_none(const char *s, const char *none)
{
	return s[0] ? s : none;
}

/* The state of link @from -> @to in @e, or "not configured". */
static const char *link_state(const struct cache_record_env *e,
			      const char *from, const char *to)
{
	size_t i;

	for (i = 0; i < e->nlinks; i++)
		if (!strcmp(e->links[i].from, from) &&
		    !strcmp(e->links[i].to, to))
			return e->links[i].state;
	return "not configured";
}

static void judge_gpus(const struct cache_record *r,
		       const struct cache_record_env *now,
		       struct cache_verdict *v)
{
	const struct verify_gpu *g;
	size_t i;

	for (i = 0; i < r->ngpus; i++) {
		g = &r->gpus[i];
		if (r->env.present[i] && !now->present[i])
			change(v, "CUDA device %d (%s) is no longer on the PCI bus",
			       g->index, g->pci);
		else if (g->uuid[0] && now->uuid[i][0] &&
			 strcmp(g->uuid, now->uuid[i]))
			change(v, "%s is another GPU now (%s, verified %s)",
			       g->pci, now->uuid[i], g->uuid);
	}
}

static void judge_links(const struct cache_record *r,
			const struct cache_record_env *now,
			struct cache_verdict *v)
{
	const char *then_s, *now_s;
	size_t a, b;

	for (a = 0; a < r->ngpus; a++) {
		for (b = 0; b < r->ngpus; b++) {
			if (a == b)
				continue;
			then_s = link_state(&r->env, r->gpus[a].pci,
					    r->gpus[b].pci);
			now_s = link_state(now, r->gpus[a].pci,
					   r->gpus[b].pci);
			if (strcmp(then_s, now_s))
				change(v, "p2pmap's link %s -> %s was %s, is %s now",
				       r->gpus[a].pci, r->gpus[b].pci, then_s,
				       now_s);
		}
	}
}

static void judge_versions(const struct cache_record *r,
			   const struct cache_record_env *now,
			   struct cache_verdict *v)
{
	const struct cache_record_env *e = &r->env;

	if (strcmp(e->module, now->module))
		change(v, "p2pmap module %s then, %s now",
		       or_none(e->module, "not loaded"),
		       or_none(now->module, "not loaded"));
	if (strcmp(e->nvidia, now->nvidia))
		change(v, "NVIDIA driver %s then, %s now",
		       or_none(e->nvidia, "not loaded"),
		       or_none(now->nvidia, "not loaded"));
	/* Another root's running kernel is not known: "" now. */
	if (now->kernel[0] && strcmp(e->kernel, now->kernel))
		change(v, "kernel %s then, %s now", or_none(e->kernel, "?"),
		       now->kernel);
}

/* Append to @buf what sets @name to @val for the command, shell-quoted. */
static void env_word(char *buf, size_t len, const char *name,
		     const char *val)
{
	size_t used = strlen(buf);
	const char *p;

	used += snprintf(buf + used, used < len ? len - used : 0, "%s='",
			 name);
	for (p = val; *p && used + 5 < len; p++) {
		if (*p == '\'')
			used += snprintf(buf + used, len - used, "'\\''");
		else
			buf[used++] = *p;
	}
	if (used + 2 < len)
		snprintf(buf + used, len - used, "' ");
}

/*
 * The verify that writes the same file again: the recorded ordinals and
 * device order, and the directory where it differs from the one this
 * user's environment gives.
 */
static void refresh_cmd(const struct cache_record *r, char *buf, size_t len)
{
	bool sglang = !strcmp(r->framework, "sglang");
	char dir[PATH_MAX], want[PATH_MAX];
	const char *var;
	size_t i, used;

	buf[0] = '\0';
	if (!strcmp(r->order, "PCI_BUS_ID"))
		env_word(buf, len, "CUDA_DEVICE_ORDER", r->order);
	if (r->visible[0])
		env_word(buf, len, "CUDA_VISIBLE_DEVICES", r->visible);
	cache_record_dir_of(r, dir, sizeof(dir));
	if (verify_cache_dir(sglang ? VERIFY_SGLANG : VERIFY_VLLM, want,
			     sizeof(want)) || strcmp(want, dir)) {
		var = cache_record_root_var(r, dir, sizeof(dir));
		if (var)
			env_word(buf, len, var, dir);
	}
	used = strlen(buf);
	used += snprintf(buf + used, used < len ? len - used : 0,
			 "p2pmap verify --devices ");
	for (i = 0; i < r->ngpus && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%d", i ? "," : "",
				 r->gpus[i].index);
	if (used < len)
		snprintf(buf + used, len - used, " --%s-cache", r->framework);
}

void cache_stale_judge(const char *root, const struct cache_record *r,
		       struct cache_verdict *v)
{
	struct cache_record_env *now = calloc(1, sizeof(*now));
	char hash[17], file[2 * PATH_MAX];
	int err;

	memset(v, 0, sizeof(*v));
	refresh_cmd(r, v->refresh, sizeof(v->refresh));
	/* Another root's cache is that root's file. */
	snprintf(file, sizeof(file), "%s%s", strcmp(root, "/") ? root : "",
		 r->cache);
	err = cache_record_hash(file, hash);
	if (err == -ENOENT) {
		v->state = CACHE_GONE;
		snprintf(v->why, sizeof(v->why), "the cache file was removed");
		goto out;
	}
	if (err || strcmp(hash, r->content)) {
		v->state = CACHE_EDITED;
		snprintf(v->why, sizeof(v->why), err ?
			 "the cache file cannot be read" :
			 "its content is not what p2pmap verify wrote");
		goto out;
	}
	if (!now) {
		v->state = CACHE_BAD_RECORD;
		snprintf(v->why, sizeof(v->why), "out of memory");
		goto out;
	}
	cache_record_now(root, r->gpus, r->ngpus, now);
	judge_gpus(r, now, v);
	judge_links(r, now, v);
	judge_versions(r, now, v);
	v->state = v->changes ? CACHE_STALE : CACHE_VALID;
out:
	free(now);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_record(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 7 &&
	       !strcmp(d->d_name + n - 7, ".record");
}

int cache_stale_scan(const char *dir, const char *root,
		     void (*fn)(void *arg, const char *path,
				const struct cache_record *r,
				const struct cache_verdict *v),
		     void *arg)
{
	char base[PATH_MAX], sub[PATH_MAX + 8], path[2 * PATH_MAX];
	struct cache_record *r = calloc(1, sizeof(*r));
	struct cache_verdict v;
	struct dirent **names;
	int i, n;

	if (!r)
		return -1;
	if (dir)
		snprintf(base, sizeof(base), "%s", dir);
	else if (cache_record_dir(base, sizeof(base)))
		base[0] = '\0';
	snprintf(sub, sizeof(sub), "%s/caches", base);
	n = base[0] ? scandir(sub, &names, is_record, by_name) : 0;
	if (n < 0) {
		free(r);
		return errno == ENOENT ? 0 : -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", sub, names[i]->d_name);
		if (cache_record_read(path, r, v.why, sizeof(v.why))) {
			v.state = CACHE_BAD_RECORD;
			v.changes = 0;
			v.refresh[0] = '\0';
			fn(arg, path, NULL, &v);
		} else {
			cache_stale_judge(root, r, &v);
			fn(arg, path, r, &v);
		}
		free(names[i]);
	}
	free(names);
	free(r);
	return n;
}

void cache_stale_print(FILE *f, const char *path,
		       const struct cache_record *r,
		       const struct cache_verdict *v)
{
	switch (v->state) {
	case CACHE_VALID:
	case CACHE_GONE:
		break;
	case CACHE_BAD_RECORD:
		fprintf(f, "warning: cache record %s: %s\n", path, v->why);
		break;
	case CACHE_EDITED:
		fprintf(f, "warning: cache %s (%s): %s; p2pmap cannot vouch for it: %s\n",
			r->cache, cache_stale_fw_name(r), v->why, v->refresh);
		break;
	case CACHE_STALE:
		fprintf(f, "cache stale: %s (%s, verified %s): %s",
			r->cache, cache_stale_fw_name(r), r->written, v->why);
		if (v->changes > 1)
			fprintf(f, " (and %u more change%s)", v->changes - 1,
				v->changes == 2 ? "" : "s");
		fprintf(f, "; refresh: %s\n", v->refresh);
		break;
	}
}
