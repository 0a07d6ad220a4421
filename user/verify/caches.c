// SPDX-License-Identifier: GPL-2.0
/* vLLM's and SGLang's P2P cache files (see caches.h for the sources). */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caches.h"
#include "verify_paths.h"

#define CACHE_PREFIX	"gpu_p2p_access_cache_for_"

int py_expanduser(const char *path, char *out, size_t len)
{
	const char *home = NULL, *rest;
	char name[256];
	struct passwd *pw;
	size_t i, hl;
	int w;

	if (path[0] != '~')
		goto verbatim;
	rest = strchr(path + 1, '/');
	i = rest ? (size_t)(rest - path) : strlen(path);
	if (i == 1) {
		home = getenv("HOME");
		if (!home) {
			pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
	} else if (i - 1 < sizeof(name)) {
		snprintf(name, sizeof(name), "%.*s", (int)(i - 1), path + 1);
		pw = getpwnam(name);
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		goto verbatim;
	for (hl = strlen(home); hl && home[hl - 1] == '/'; hl--)
		;
	w = snprintf(out, len, "%.*s%s", (int)hl, home, path + i);
	if (w < 0 || (size_t)w >= len)
		return -1;
	if (!out[0])
		snprintf(out, len, "/");
	return 0;
verbatim:
	w = snprintf(out, len, "%s", path);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* os.path.join(@a, @b) for a relative @b. */
static int py_join(const char *a, const char *b, char *out, size_t len)
{
	size_t al = strlen(a);
	int w;

	w = snprintf(out, len, "%s%s%s", a, al && a[al - 1] != '/' ? "/" : "",
		     b);
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

int verify_cache_dir(enum verify_framework fw, char *dir, size_t len)
{
	char home[PATH_MAX], base[PATH_MAX], root[PATH_MAX];
	const char *v;

	if (fw == VERIFY_SGLANG)
		return py_expanduser("~/.cache/sglang", dir, len);
	v = getenv("VLLM_CACHE_ROOT");
	if (!v) {
		v = getenv("XDG_CACHE_HOME");
		if (!v) {
			if (py_expanduser("~", home, sizeof(home)) ||
			    py_join(home, ".cache", base, sizeof(base)))
				return -1;
			v = base;
		}
		if (py_join(v, "vllm", root, sizeof(root)))
			return -1;
		v = root;
	}
	return py_expanduser(v, dir, len);
}

/* The CUDA_VISIBLE_DEVICES value the framework will see. */
static int cache_devs(const struct verify_gpu *gpus, size_t ngpus, int count,
		      const char *visible, char *buf, size_t len)
{
	size_t k, used = 0, span;
	bool all = (int)ngpus == count;
	char entry[64];
	const char *p;
	int i, w;

	for (k = 0; k < ngpus; k++)
		all = all && gpus[k].index == (int)k;
	/* Everything visible, in order: the variable itself, verbatim. */
	if (all && visible) {
		w = snprintf(buf, len, "%s", visible);
		return w < 0 || (size_t)w >= len ? -1 : 0;
	}
	buf[0] = '\0';
	for (k = 0; k < ngpus; k++) {
		snprintf(entry, sizeof(entry), "%d", gpus[k].index);
		/* The index-th entry of CUDA_VISIBLE_DEVICES, if it has one. */
		for (p = visible, i = 0; p && *p && i < gpus[k].index; i++) {
			p = strchr(p, ',');
			p = p ? p + 1 : NULL;
		}
		span = p ? strcspn(p, ",") : 0;
		if (span && span < sizeof(entry))
			snprintf(entry, sizeof(entry), "%.*s", (int)span, p);
		w = snprintf(buf + used, len - used, "%s%s", k ? "," : "",
			     entry);
		if (w < 0 || (size_t)w >= len - used)
			return -1;
		used += w;
	}
	return 0;
}

int verify_cache_path(enum verify_framework fw, const struct verify_gpu *gpus,
		      size_t ngpus, int count, const char *visible, char *path,
		      size_t len, char *why, size_t whylen)
{
	char dir[PATH_MAX], devs[512], name[600];

	if (verify_cache_dir(fw, dir, sizeof(dir)) ||
	    cache_devs(gpus, ngpus, count, visible, devs, sizeof(devs)) ||
	    snprintf(name, sizeof(name), CACHE_PREFIX "%s.json", devs) >=
	    (int)sizeof(name) || py_join(dir, name, path, len)) {
		snprintf(why, whylen, "the cache file's name is too long");
		return -1;
	}
	if (path[0] != '/') {
		snprintf(why, whylen, "the framework would look for %s relative to its working directory (%s)",
			 path, fw == VERIFY_VLLM ?
			 "VLLM_CACHE_ROOT or XDG_CACHE_HOME is relative or empty" :
			 "HOME is relative or empty");
		return -1;
	}
	return 0;
}

const char *verify_order_problem(const char *order, const char *visible,
				 const struct verify_gpu *all, int count)
{
	int i;

	if (order && !strcmp(order, "PCI_BUS_ID"))
		return NULL;
	if (visible)
		return "CUDA_VISIBLE_DEVICES is read in CUDA's default device order (FASTEST_FIRST), which a framework started with CUDA_DEVICE_ORDER=PCI_BUS_ID reads differently: run verify and the server with CUDA_DEVICE_ORDER=PCI_BUS_ID";
	for (i = 1; i < count; i++)
		if (strcmp(all[i - 1].pci, all[i].pci) > 0)
			return "CUDA's default device order (FASTEST_FIRST) is not PCI order on this host, so ordinals depend on CUDA_DEVICE_ORDER: run verify and the server with CUDA_DEVICE_ORDER=PCI_BUS_ID";
	return NULL;
}

/* The framework's own paths (its check opens a peer buffer over IPC). */
static enum verify_fw fw_of(enum verify_framework fw)
{
	return fw == VERIFY_VLLM ? VERIFY_FW_VLLM : VERIFY_FW_SGLANG;
}

static bool works(const struct verify_result *r, size_t n, unsigned int a,
		  unsigned int b, enum verify_framework fw)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].from->pos == a && r[i].to->pos == b)
			return verify_fw_works(&r[i], fw_of(fw)) == 1;
	return false;
}

const char *verify_cache_untested(enum verify_framework fw,
				  const struct verify_result *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (verify_fw_works(&r[i], fw_of(fw)) < 0)
			return "--paths leaves out a path it uses (sm and ipc): its cache would not say what it will do";
	return NULL;
}

void verify_cache_render(FILE *f, const struct verify_result *r, size_t n,
			 size_t ngpus, enum verify_framework fw)
{
	unsigned int a, b;
	bool v;

	fputc('{', f);
	for (a = 0; a < ngpus; a++) {
		for (b = 0; b < ngpus; b++) {
			/* Symmetric: the two ranks of a pair must agree. */
			v = a == b || (works(r, n, a, b, fw) &&
				       works(r, n, b, a, fw));
			fprintf(f, "%s\n    \"%u->%u\": %s", a || b ? "," : "",
				a, b, v ? "true" : "false");
		}
	}
	fputs(ngpus ? "\n}" : "}", f);
}

int verify_mkdirs(const char *dir)
{
	char path[PATH_MAX], *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -1;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

int verify_cache_write(const char *path, const struct verify_result *r,
		       size_t n, size_t ngpus, enum verify_framework fw)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 16], *slash;
	FILE *f;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (verify_mkdirs(dir)) {
		fprintf(stderr, "p2pmap: verify: %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "p2pmap: verify: %s: %s\n", tmp,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -1;
	}
	verify_cache_render(f, r, n, ngpus, fw);
	if (fflush(f) || fsync(fileno(f)) || ferror(f)) {
		fprintf(stderr, "p2pmap: verify: %s: %s\n", tmp,
			strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fclose(f);
	if (rename(tmp, path)) {
		fprintf(stderr, "p2pmap: verify: %s: %s\n", path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
