// SPDX-License-Identifier: GPL-2.0
/* The records of verify's cache files (cache_record.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cache_record.h"
#include "caches.h"
#include "link_sysfs.h"

int cache_record_dir(char *buf, size_t len)
{
	const char *v = getenv(CACHE_RECORD_STATE_ENV);
	const char *xdg = getenv("XDG_STATE_HOME");
	char home[PATH_MAX];
	int w;

	if (v && *v)
		w = snprintf(buf, len, "%s", v);
	else if (!geteuid())
		w = snprintf(buf, len, "/var/lib/p2pmap");
	else if (xdg && xdg[0] == '/')
		w = snprintf(buf, len, "%s/p2pmap", xdg);
	else if (!py_expanduser("~", home, sizeof(home)) && home[0] == '/')
		w = snprintf(buf, len, "%s/.local/state/p2pmap", home);
	else
		return -1;
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* The version in /proc/driver/nvidia/version's first line: "580.95.05". */
static void nvidia_version(const char *root, char *buf, size_t len)
{
	char path[PATH_MAX], line[512], *tok, *save = NULL;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/version", root);
	if (sysfs_read_line(path, line, sizeof(line)))
		return;
	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (isdigit((unsigned char)tok[0]) && strchr(tok, '.') &&
		    strspn(tok, "0123456789.") == strlen(tok)) {
			snprintf(buf, len, "%s", tok);
			return;
		}
	}
}

/* "GPU UUID:" of /proc/driver/nvidia/gpus/PCI/information, lower case. */
static void gpu_uuid(const char *root, const char *pci, char *uuid)
{
	char path[PATH_MAX], line[256], *p;
	FILE *f;
	size_t i;

	uuid[0] = '\0';
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/%s/information",
		 root, pci);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "GPU UUID:", 9))
			continue;
		p = line + 9 + strspn(line + 9, " \t");
		p[strcspn(p, " \t\n")] = '\0';
		for (i = 0; p[i] && i < VERIFY_UUID_LEN - 1; i++)
			uuid[i] = i < 4 ? p[i] : (char)tolower((unsigned char)p[i]);
		uuid[i] = '\0';
		break;
	}
	fclose(f);
}

void cache_record_now(const char *root, const struct verify_gpu *gpus,
		      size_t ngpus, struct cache_record_env *env)
{
	char path[PATH_MAX];
	struct link_sysfs l;
	struct utsname u;
	size_t a, b;

	memset(env, 0, sizeof(*env));
	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap/version", root);
	if (link_sysfs_loaded(root) &&
	    (sysfs_read_line(path, env->module, sizeof(env->module)) ||
	     !env->module[0]))
		snprintf(env->module, sizeof(env->module), "unknown");
	nvidia_version(root, env->nvidia, sizeof(env->nvidia));
	if (!strcmp(root, "/") && !uname(&u))
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	for (a = 0; a < ngpus && a < VERIFY_MAX_GPUS; a++) {
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", root,
			 gpus[a].pci);
		env->present[a] = !access(path, F_OK);
		gpu_uuid(root, gpus[a].pci, env->uuid[a]);
	}
	for (a = 0; a < ngpus; a++) {
		for (b = 0; b < ngpus; b++) {
			if (a == b || env->nlinks == CACHE_RECORD_MAX_LINKS)
				continue;
			link_sysfs_read(root, gpus[a].pci, gpus[b].pci, &l);
			if (!l.exists)
				continue;
			snprintf(env->links[env->nlinks].from, P2PMAP_ADDR_LEN,
				 "%s", gpus[a].pci);
			snprintf(env->links[env->nlinks].to, P2PMAP_ADDR_LEN,
				 "%s", gpus[b].pci);
			snprintf(env->links[env->nlinks].state,
				 sizeof(env->links[0].state), "%s", l.state);
			env->nlinks++;
		}
	}
}

#define FNV_OFFSET	0xcbf29ce484222325ULL

/* FNV-1a 64 over @n more bytes. */
static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

void cache_record_dir_of(const struct cache_record *r, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", r->cache);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
}

const char *cache_record_root_var(const struct cache_record *r, char *val,
				  size_t len)
{
	static const char sglang_dir[] = "/.cache/sglang";
	size_t n, k = sizeof(sglang_dir) - 1;

	cache_record_dir_of(r, val, len);
	if (strcmp(r->framework, "sglang"))
		return "VLLM_CACHE_ROOT";
	n = strlen(val);
	if (n <= k || strcmp(val + n - k, sglang_dir))
		return NULL;
	val[n - k] = '\0';
	return "HOME";
}

int cache_record_hash(const char *path, char *hex)
{
	uint64_t h = FNV_OFFSET;
	unsigned char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		h = fnv1a(h, buf, n);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	snprintf(hex, 17, "%016" PRIx64, h);
	return 0;
}

/* "-" stands for an empty value, which a "KEY VALUE" line cannot hold. */
static const char *val(const char *s)
{
	return s[0] ? s : "-";
}

static void render(FILE *f, const struct cache_record *r)
{
	const struct cache_record_env *e = &r->env;
	size_t i;

	fprintf(f, "# p2pmap verify: what this cache file was valid for (p2pmap check compares)\n");
	fprintf(f, "record %d\n", CACHE_RECORD_VERSION);
	fprintf(f, "framework %s\ncache %s\ncontent %s\nwritten %s\n",
		r->framework, r->cache, r->content, r->written);
	fprintf(f, "module %s\nnvidia %s\nkernel %s\norder %s\nvisible %s\n",
		val(e->module), val(e->nvidia), val(e->kernel), r->order,
		val(r->visible));
	for (i = 0; i < r->ngpus; i++)
		fprintf(f, "gpu %d %s %s %s\n", r->gpus[i].index,
			r->gpus[i].pci, val(r->gpus[i].uuid),
			e->present[i] ? "present" : "absent");
	for (i = 0; i < e->nlinks; i++)
		fprintf(f, "link %s %s %s\n", e->links[i].from, e->links[i].to,
			e->links[i].state);
}

/* The record file's name: the framework and a hash of the cache's path. */
static int record_path(const char *fw, const char *cache, char *buf,
		       size_t len)
{
	uint64_t h = fnv1a(FNV_OFFSET, (const unsigned char *)cache,
			   strlen(cache));
	char dir[PATH_MAX];
	int w;

	if (cache_record_dir(dir, sizeof(dir)))
		return -1;
	w = snprintf(buf, len, "%s/caches/%s-%016" PRIx64 ".record", dir, fw,
		     h);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

int cache_record_write(const char *fw, const char *cache,
		       const struct verify_gpu *gpus, size_t ngpus,
		       const char *order, const char *visible,
		       const struct cache_record_env *env)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16], dir[PATH_MAX], *slash;
	struct cache_record *r = calloc(1, sizeof(*r));
	time_t t = time(NULL);
	struct tm tm;
	FILE *f = NULL;
	int fd = -1, ret = -1;

	if (!r || strchr(cache, '\n') || (visible && strchr(visible, '\n')) ||
	    record_path(fw, cache, path, sizeof(path))) {
		fprintf(stderr, "p2pmap: verify: no place to record what the %s cache was verified for (set %s or HOME)\n",
			fw, CACHE_RECORD_STATE_ENV);
		free(r);
		return -1;
	}
	snprintf(r->framework, sizeof(r->framework), "%s", fw);
	snprintf(r->cache, sizeof(r->cache), "%s", cache);
	snprintf(r->order, sizeof(r->order), "%s", order);
	snprintf(r->visible, sizeof(r->visible), "%s", visible ? visible : "");
	gmtime_r(&t, &tm);
	strftime(r->written, sizeof(r->written), "%Y-%m-%dT%H:%M:%SZ", &tm);
	r->ngpus = ngpus < VERIFY_MAX_GPUS ? ngpus : VERIFY_MAX_GPUS;
	memcpy(r->gpus, gpus, r->ngpus * sizeof(*gpus));
	r->env = *env;
	if (cache_record_hash(cache, r->content)) {
		fprintf(stderr, "p2pmap: verify: %s: %s\n", cache,
			strerror(errno));
		goto out;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (!verify_mkdirs(dir))
		fd = mkstemp(tmp);
	if (fd >= 0 && !fchmod(fd, 0644))
		f = fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "p2pmap: verify: recording the %s cache in %s: %s\n",
			fw, dir, strerror(errno));
		goto out;
	}
	fd = -1;
	render(f, r);
	if (fflush(f) || fsync(fileno(f)) || ferror(f) || rename(tmp, path)) {
		fprintf(stderr, "p2pmap: verify: %s: %s\n", path,
			strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (ret && (f || fd >= 0))
		unlink(tmp);
	free(r);
	return ret;
}

static void unval(char *dst, size_t len, const char *v)
{
	snprintf(dst, len, "%s", strcmp(v, "-") ? v : "");
}

/* One "KEY VALUE" line into @r: 0, or -1 (malformed). */
static int parse_line(struct cache_record *r, char *line, int *version)
{
	struct cache_record_env *e = &r->env;
	char *v = strchr(line, ' '), *tok[4], *save = NULL;
	int i, ntok;

	if (!v)
		return -1;
	*v++ = '\0';
	if (!strcmp(line, "record")) {
		*version = atoi(v);
	} else if (!strcmp(line, "framework")) {
		snprintf(r->framework, sizeof(r->framework), "%s", v);
	} else if (!strcmp(line, "cache")) {
		snprintf(r->cache, sizeof(r->cache), "%s", v);
	} else if (!strcmp(line, "content")) {
		snprintf(r->content, sizeof(r->content), "%s", v);
	} else if (!strcmp(line, "written")) {
		snprintf(r->written, sizeof(r->written), "%s", v);
	} else if (!strcmp(line, "module")) {
		unval(e->module, sizeof(e->module), v);
	} else if (!strcmp(line, "nvidia")) {
		unval(e->nvidia, sizeof(e->nvidia), v);
	} else if (!strcmp(line, "kernel")) {
		unval(e->kernel, sizeof(e->kernel), v);
	} else if (!strcmp(line, "order")) {
		snprintf(r->order, sizeof(r->order), "%s", v);
	} else if (!strcmp(line, "visible")) {
		unval(r->visible, sizeof(r->visible), v);
	} else if (!strcmp(line, "gpu") || !strcmp(line, "link")) {
		ntok = line[0] == 'g' ? 4 : 3;
		for (i = 0; i < ntok; i++) {
			tok[i] = strtok_r(i ? NULL : v, " ", &save);
			if (!tok[i])
				return -1;
		}
		if (line[0] == 'g') {
			struct verify_gpu *g = &r->gpus[r->ngpus];

			if (r->ngpus == VERIFY_MAX_GPUS)
				return -1;
			e->present[r->ngpus] = !strcmp(tok[3], "present");
			g->index = atoi(tok[0]);
			g->pos = r->ngpus++;
			snprintf(g->pci, sizeof(g->pci), "%s", tok[1]);
			unval(g->uuid, sizeof(g->uuid), tok[2]);
		} else {
			struct cache_record_link *l = &e->links[e->nlinks];

			if (e->nlinks == CACHE_RECORD_MAX_LINKS)
				return -1;
			e->nlinks++;
			snprintf(l->from, sizeof(l->from), "%s", tok[0]);
			snprintf(l->to, sizeof(l->to), "%s", tok[1]);
			snprintf(l->state, sizeof(l->state), "%s", tok[2]);
		}
	}
	/* Unknown keys: a newer verify's; the known ones still decide. */
	return 0;
}

int cache_record_read(const char *path, struct cache_record *r, char *why,
		      size_t whylen)
{
	char line[4200];
	int version = 0, no = 0;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		no++;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (parse_line(r, line, &version)) {
			snprintf(why, whylen, "line %d is malformed", no);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (version != CACHE_RECORD_VERSION || !r->cache[0] ||
	    !r->content[0] || !r->ngpus) {
		snprintf(why, whylen, "not a record p2pmap %s reads (record %d)",
			 "verify", version);
		return -1;
	}
	return 0;
}
