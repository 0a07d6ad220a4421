// SPDX-License-Identifier: GPL-2.0
/* "p2pmap config": render the modprobe.d file, write it atomically. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

void config_render(FILE *f, const struct p2pmap_policy *p,
		   const struct p2pmap_link *links, size_t n,
		   const char *when)
{
	const char *s = p->drivers, *comma;
	size_t i, len;

	fprintf(f, "# Written by \"p2pmap config save\" on %s. Loaded by modprobe.\n",
		when);
	fprintf(f, "# p2pmap loads before the GPU driver, so links are mapped from its first bind.\n");
	while (*s) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (len)
			fprintf(f, "softdep %.*s pre: p2pmap\n", (int)len, s);
		if (!comma)
			break;
		s = comma + 1;
	}
	fprintf(f, "options p2pmap drivers=%s", p->drivers);
	if (p->vendors[0])
		fprintf(f, " vendors=%s", p->vendors);
	if (p->classes[0])
		fprintf(f, " classes=%s", p->classes);
	if (p->numa_nodes[0])
		fprintf(f, " numa_nodes=%s", p->numa_nodes);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s%s>%s", i ? "," : " links=", links[i].initiator,
			links[i].target);
		if (links[i].bar_mask &&
		    links[i].bar_mask != P2PMAP_BAR_MASK_DEFAULT)
			fprintf(f, "/0x%x", links[i].bar_mask);
	}
	fputc('\n', f);
}

/* fsync the directory holding @path, so that the rename is durable. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

int config_write(const char *path, const char *text, size_t len)
{
	size_t tlen = strlen(path) + 5;
	char *tmp = malloc(tlen);
	ssize_t w;
	int fd, err = 0;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, tlen, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (len) {
		w = write(fd, text, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		text += w;
		len -= w;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	else
		sync_dir(path);
out:
	free(tmp);
	return err;
}
