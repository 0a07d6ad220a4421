// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap verify [--devices 0,1,...] [--vllm-cache] [--size BYTES] [--json]:
 * copy a known pattern over every ordered pair of CUDA devices with
 * cuMemcpyPeer, check it, and watch p2pmap's fault counters meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "verify.h"
#include "verify_faults.h"

#define VERIFY_USAGE "usage: p2pmap verify [--devices 0,1,...] [--vllm-cache] [--size BYTES] [--json]"

/* "0,1,3": CUDA indices, distinct. */
static int parse_devices(const char *s, int *idx, size_t *n)
{
	unsigned long v;
	char *end;
	size_t k;

	*n = 0;
	for (;;) {
		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > INT_MAX || *n == VERIFY_MAX_GPUS)
			return -1;
		for (k = 0; k < *n; k++)
			if (idx[k] == (int)v)
				return -1;
		idx[(*n)++] = (int)v;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* BYTES: decimal, with an optional K, M or G (powers of 1024). */
static int parse_size(const char *s, uint64_t *size)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'G': case 'g':
		v = v > VERIFY_SIZE_MAX ? 0 : v << 30;
		end++;
		break;
	case 'M': case 'm':
		v = v > VERIFY_SIZE_MAX ? 0 : v << 20;
		end++;
		break;
	case 'K': case 'k':
		v = v > VERIFY_SIZE_MAX ? 0 : v << 10;
		end++;
		break;
	}
	if (*end || !v || v > VERIFY_SIZE_MAX)
		return -1;
	*size = v;
	return 0;
}

static int mkdirs(const char *dir)
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

/* vLLM's cache directory: $VLLM_CACHE_ROOT, $XDG_CACHE_HOME/vllm, ~/.cache/vllm */
static int vllm_dir(char *buf, size_t len)
{
	const char *root = getenv("VLLM_CACHE_ROOT");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct passwd *pw;
	int w;

	if (!home || !*home) {
		pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (root && *root) {
		if (root[0] == '~' && (root[1] == '/' || !root[1]))
			w = snprintf(buf, len, "%s%s", home ? home : "",
				     root + 1);
		else
			w = snprintf(buf, len, "%s", root);
	} else if (xdg && *xdg) {
		w = snprintf(buf, len, "%s/vllm", xdg);
	} else if (home) {
		w = snprintf(buf, len, "%s/.cache/vllm", home);
	} else {
		return -1;
	}
	return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* Write the cache next to its final name, then rename it there. */
static int write_vllm_cache(const struct verify_result *r, size_t n,
			    const struct verify_gpu *gpus, size_t ngpus,
			    char *path, size_t len)
{
	char dir[PATH_MAX], devs[512], tmp[PATH_MAX + 16];
	FILE *f;
	int fd;

	if (vllm_dir(dir, sizeof(dir)) ||
	    verify_vllm_devs(devs, sizeof(devs), gpus, ngpus,
			     getenv("CUDA_VISIBLE_DEVICES")) ||
	    snprintf(path, len, "%s/gpu_p2p_access_cache_for_%s.json", dir,
		     devs) >= (int)len) {
		fprintf(stderr, "p2pmap: verify: cannot name the vLLM cache file\n");
		return -1;
	}
	if (mkdirs(dir)) {
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
	verify_vllm_render(f, r, n, ngpus);
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

struct verify_opts {
	int idx[VERIFY_MAX_GPUS];
	size_t nidx;
	uint64_t size;
	bool json, vllm;
};

static int parse_args(int argc, char **argv, struct verify_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->size = VERIFY_SIZE_DEFAULT;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			o->json = true;
		} else if (!strcmp(argv[i], "--vllm-cache")) {
			o->vllm = true;
		} else if (!strcmp(argv[i], "--devices") && i + 1 < argc) {
			if (parse_devices(argv[++i], o->idx, &o->nidx) ||
			    o->nidx < 2) {
				fprintf(stderr, "p2pmap: invalid --devices \"%s\" (two or more distinct CUDA indices, e.g. 0,1)\n",
					argv[i]);
				return -1;
			}
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (parse_size(argv[++i], &o->size)) {
				fprintf(stderr, "p2pmap: invalid --size \"%s\" (1 byte to 1G; suffixes K, M, G)\n",
					argv[i]);
				return -1;
			}
		} else {
			fprintf(stderr, "p2pmap: unknown argument \"%s\"; %s\n",
				argv[i], VERIFY_USAGE);
			return -1;
		}
	}
	return 0;
}

static int run(const struct cuda_api *api, const struct verify_opts *o,
	       struct verify_gpu *gpus, size_t ngpus)
{
	struct verify_faults faults;
	struct verify_result *r;
	char cache[PATH_MAX], *cache_path = NULL;
	const char *env = getenv(VERIFY_FAULTS_ENV);
	bool warned = false;
	size_t a, b, n = 0;
	int ret = EXIT_OK;

	if (env && *env ? verify_faults_file_open(&faults, env) :
			  verify_faults_nl_open(&faults))
		return EXIT_RUNTIME;
	r = calloc(ngpus * (ngpus - 1), sizeof(*r));
	if (!r) {
		fprintf(stderr, "p2pmap: out of memory\n");
		verify_faults_close(&faults);
		return EXIT_RUNTIME;
	}
	for (a = 0; a < ngpus; a++) {
		for (b = 0; b < ngpus; b++) {
			if (a == b)
				continue;
			verify_direction(api, &gpus[a], &gpus[b], o->size,
					 &faults, &r[n]);
			if (!warned && r[n].can_access && !r[n].cuda_call &&
			    !(r[n].has_before && r[n].has_after)) {
				fprintf(stderr, "p2pmap: verify: fault counters unknown (%s): verdicts from the data alone\n",
					faults.why ? faults.why : "?");
				warned = true;
			}
			if (!o->json) {
				verify_format_result(stdout, &r[n]);
				fflush(stdout);
			}
			if (r[n].verdict != VERIFY_WORKS)
				ret = EXIT_RUNTIME;
			n++;
		}
	}
	if (o->vllm) {
		if (write_vllm_cache(r, n, gpus, ngpus, cache, sizeof(cache)))
			ret = EXIT_RUNTIME;
		else
			cache_path = cache;
	}
	if (o->json) {
		verify_json(stdout, r, n, cache_path);
	} else {
		verify_format_summary(stdout, r, n);
		if (cache_path)
			printf("vllm cache: %s\n", cache_path);
	}
	free(r);
	verify_faults_close(&faults);
	return ret;
}

int cmd_verify(int argc, char **argv)
{
	struct verify_gpu gpus[VERIFY_MAX_GPUS];
	char err[256];
	struct verify_opts o;
	struct cuda_api api;
	bool no_cuda;
	int n, ret;

	if (parse_args(argc, argv, &o))
		return EXIT_USAGE;
	ret = cuda_load(&api, err, sizeof(err));
	if (ret) {
		if (ret == -1)
			fprintf(stderr, "p2pmap verify: no CUDA driver (" CUDA_LIB " not found)\n");
		else
			fprintf(stderr, "p2pmap verify: no CUDA driver (%s)\n",
				err);
		return VERIFY_EXIT_NO_CUDA;
	}
	n = verify_open(&api, o.idx, o.nidx, gpus, &no_cuda, err, sizeof(err));
	if (n < 0) {
		fprintf(stderr, "p2pmap verify: %s\n", err);
		cuda_unload(&api);
		return no_cuda ? VERIFY_EXIT_NO_CUDA : EXIT_RUNTIME;
	}
	if (n < 2) {
		fprintf(stderr, "p2pmap verify: only one CUDA device: no direction to verify\n");
		verify_close(&api, gpus, n);
		cuda_unload(&api);
		return VERIFY_EXIT_NO_CUDA;
	}
	ret = run(&api, &o, gpus, n);
	verify_close(&api, gpus, n);
	cuda_unload(&api);
	return ret;
}
