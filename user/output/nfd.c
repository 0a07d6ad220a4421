// SPDX-License-Identifier: GPL-2.0
/* Node Feature Discovery's feature file (nfd.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nfd.h"

void nfd_render(FILE *f, const struct nfd_labels *l)
{
	fprintf(f, "# p2pmap: GPU peer-to-peer verified (p2pmap env --format nfd, from %s)\n",
		l->source);
	fprintf(f, NFD_PREFIX "verified=true\n");
	fprintf(f, NFD_PREFIX "gpus=%zu\n", l->gpus);
	if (l->numa[0])
		fprintf(f, NFD_PREFIX "numa-nodes=%s\n", l->numa);
}

static int fail(const char *path, int err)
{
	fprintf(stderr, "p2pmap: %s: %s\n", path, strerror(err));
	return -err;
}

int nfd_write(const char *path, bool verified, const struct nfd_labels *l)
{
	const char *slash = strrchr(path, '/');
	char *tmp = NULL;
	int fd, err = 0;
	FILE *f;

	if (!verified)
		return unlink(path) && errno != ENOENT ? fail(path, errno) : 0;
	/* DIR/.NAME.XXXXXX: NFD skips hidden files. */
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0,
		     path, slash ? slash + 1 : path) < 0)
		return fail(path, ENOMEM);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = fail(tmp, errno);
		free(tmp);
		return err;
	}
	f = fdopen(fd, "w");
	if (!f || fchmod(fd, 0644)) {
		err = fail(tmp, errno);
		if (f)
			fclose(f);
		else
			close(fd);
		unlink(tmp);
		free(tmp);
		return err;
	}
	nfd_render(f, l);
	if (fflush(f) || fsync(fd) || ferror(f))
		err = fail(tmp, errno ? errno : EIO);
	else if (rename(tmp, path))
		err = fail(path, errno);
	fclose(f);
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
