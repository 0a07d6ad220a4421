// SPDX-License-Identifier: GPL-2.0
/* "p2pmap config": render the modprobe.d file, write it atomically. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "modprobe_softdep.h"

void config_render(FILE *f, const struct p2pmap_policy *p,
		   const struct p2pmap_link *links, size_t n,
		   const char *when)
{
	size_t i;

	fprintf(f, "# Written by \"p2pmap config save\" on %s. Loaded by modprobe.\n",
		when);
	fprintf(f, "# p2pmap loads before the GPU driver (" SOFTDEP_FILE_NAME "), so links are mapped from its first bind.\n");
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

/*
 * Add @l's modules not yet in @m (p2pmap is already first in pre:), and
 * say where they came from.
 */
static void merge_line(struct softdep_line *m, const struct softdep_line *l,
		       FILE *f)
{
	char said[2][1024] = { "", "" };
	size_t n[2] = { 0, 0 };
	unsigned int i, *cnt;
	int pre;

	for (pre = 1; pre >= 0; pre--) {
		for (i = 0; i < (pre ? l->npre : l->npost); i++) {
			const char *mod = pre ? l->pre[i] : l->post[i];

			cnt = pre ? &m->npre : &m->npost;
			if (softdep_same_module(mod, "p2pmap") ||
			    softdep_names(m, true, mod) ||
			    softdep_names(m, false, mod) ||
			    *cnt == SOFTDEP_MODS)
				continue;
			snprintf(pre ? m->pre[*cnt] : m->post[*cnt],
				 SOFTDEP_NAME_LEN, "%s", mod);
			(*cnt)++;
			n[pre] += snprintf(said[pre] + n[pre],
					   n[pre] < sizeof(said[pre]) ?
					   sizeof(said[pre]) - n[pre] : 0,
					   " %s", mod);
		}
	}
	if (n[0] || n[1])
		fprintf(f, "# kept from %s line %u:%s%s%s%s\n", l->file,
			l->line, n[1] ? " pre:" : "", said[1],
			n[0] ? " post:" : "", said[0]);
}

static int render_driver(FILE *f, const char *driver, const char *root,
			 const char *kver, const char *own)
{
	struct softdep_line *m = calloc(1, sizeof(*m));
	struct softdep_view v;
	unsigned int i;
	size_t k;

	if (!m || softdep_scan(root, kver, driver, &v)) {
		free(m);
		return -1;
	}
	snprintf(m->pre[m->npre++], SOFTDEP_NAME_LEN, "p2pmap");
	for (k = 0; k < v.n; k++)
		if (strcmp(v.line[k].file, own))
			merge_line(m, &v.line[k], f);
	fprintf(f, "softdep %s pre:", driver);
	for (i = 0; i < m->npre; i++)
		fprintf(f, " %s", m->pre[i]);
	if (m->npost)
		fputs(" post:", f);
	for (i = 0; i < m->npost; i++)
		fprintf(f, " %s", m->post[i]);
	fputc('\n', f);
	softdep_view_free(&v);
	free(m);
	return 0;
}

int config_render_softdep(FILE *f, const char *drivers, const char *root,
			  const char *kver, const char *own, const char *when)
{
	char *copy = strdup(drivers), *drv, *save = NULL;
	int ret = copy ? 0 : -1;

	fprintf(f, "# Written by \"p2pmap config save\" on %s. Loaded by modprobe.\n",
		when);
	fprintf(f, "# kmod uses only the first \"softdep DRIVER\" line it reads, and reads\n"
		   "# this file first (modprobe.d files go by name): each line loads p2pmap\n"
		   "# before the GPU driver and keeps the modules of the driver's other lines.\n");
	for (drv = copy ? strtok_r(copy, ",", &save) : NULL; drv && !ret;
	     drv = strtok_r(NULL, ",", &save))
		ret = render_driver(f, drv, root, kver, own);
	free(copy);
	return ret;
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
