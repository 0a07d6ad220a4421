// SPDX-License-Identifier: GPL-2.0
/* What every doctor check uses: files under the root, one check added. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor_int.h"
#include "link_sysfs.h"

/* ROOT/PATH's first line into @buf; false when it cannot be read. */
bool doctor_read(const struct host *h, char *buf, size_t len,
		 const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	return !sysfs_read_line(path, buf, len);
}

size_t doctor_read_bytes(const struct host *h, const char *rel, void *buf,
			 size_t len)
{
	char path[PATH_MAX];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	f = fopen(path, "rb");
	if (f) {
		n = fread(buf, 1, len, f);
		fclose(f);
	}
	return n;
}

bool doctor_exists(const struct host *h, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	return !stat(path, &st);
}

/* The last component of the link ROOT/REL points to, or "". */
void doctor_link_name(const struct host *h, const char *rel, char *buf,
		      size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	buf[0] = '\0';
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "%.*s", (int)len - 1, slash ? slash + 1 : target);
}

struct doctor_check *doctor_add(struct host *h, const char *name,
				enum doctor_level level, const char *fix,
				const char *fmt, ...)
{
	struct doctor_check *c;
	va_list ap;

	if (h->r->n == DOCTOR_MAX_CHECKS)
		return NULL;
	c = &h->r->c[h->r->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->level = level;
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(c->evidence, sizeof(c->evidence), fmt, ap);
	va_end(ap);
	return c;
}

void doctor_blocking(struct doctor_check *c)
{
	if (c)
		c->blocking = true;
}

bool doctor_translated(const struct gpu *g)
{
	return !strcmp(g->group_type, "DMA") || !strcmp(g->group_type, "DMA-FQ");
}



void doctor_size_text(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes >= 1ULL << 30)
		snprintf(buf, len, "%llu GiB", bytes >> 30);
	else if (bytes >= 1ULL << 20)
		snprintf(buf, len, "%llu MiB", bytes >> 20);
	else
		snprintf(buf, len, "%llu KiB", bytes >> 10);
}


/*
 * Translated GPUs bound to the server's driver: their P2P needs p2pmap.
 * Not a Proxmox VM's GPU, even on nvidia while its VM is stopped: the VM
 * takes it at its start (doctor_proxmox.c).
 */
bool doctor_needs_links(const struct host *h, const struct gpu *g)
{
	return doctor_translated(g) && !strcmp(g->driver, h->want->driver) && !g->vm;
}

/* How many GPUs need p2pmap's links (doctor_needs_links()). */
size_t doctor_need_count(const struct host *h)
{
	size_t i, need = 0;

	for (i = 0; i < h->ngpus; i++)
		need += doctor_needs_links(h, &h->gpus[i]);
	return need;
}
