// SPDX-License-Identifier: GPL-2.0
/* Fault counter sources of p2pmap verify: netlink, or a file (tests). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "fault_hit.h"
#include "verify_faults.h"
#include "verify_paths.h"

struct nl_source {
	struct p2pmap_nl nl;
	bool loaded;
	const char *why;		/* when not loaded */
	struct p2pmap_dev_list devs;
};

/* The (@dev, @target) pair counter; false when unknown. */
static bool peer_count(const struct p2pmap_dev *dev, const char *target,
		       uint64_t *count)
{
	const struct p2pmap_fault *f = fault_hit_peer(dev, target);

	*count = f && f->has_count ? f->count : 0;
	/* Records past the ones kept may hold it. */
	return f || dev->npeers <= P2PMAP_MAX_PEERS;
}

static bool nl_read(struct verify_faults *src, const struct verify_gpu *from,
		    const struct verify_gpu *to, enum verify_path path,
		    enum verify_op op, bool after, uint64_t *count)
{
	struct nl_source *s = src->priv;
	const struct p2pmap_dev *a, *b;
	uint64_t ab, ba;

	(void)path;
	(void)op;
	(void)after;
	if (!s->loaded) {
		src->why = s->why;
		return false;
	}
	if (dev_dump(&s->nl, &s->devs)) {
		src->why = "reading the device dump failed";
		return false;
	}
	a = dev_list_find(&s->devs, from->pci);
	b = dev_list_find(&s->devs, to->pci);
	if (!a || !b) {
		src->why = "a GPU is not tracked by p2pmap";
		return false;
	}
	if (!peer_count(a, to->pci, &ab) || !peer_count(b, from->pci, &ba)) {
		src->why = "too many peer records";
		return false;
	}
	*count = ab + ba;
	return true;
}

/* The later of the pair's two records' last faults, from the last dump. */
static bool nl_last_hit(struct verify_faults *src,
			const struct verify_gpu *from,
			const struct verify_gpu *to, enum verify_path path,
			enum verify_op op, struct verify_fault_hit *hit)
{
	struct nl_source *s = src->priv;

	(void)path;
	(void)op;
	return fault_hit_of_pair(s->devs.devs, s->devs.n, from->pci, to->pci,
				 hit);
}

int verify_faults_nl_open(struct verify_faults *src)
{
	struct nl_source *s = calloc(1, sizeof(*s));
	int err;

	if (!s) {
		fprintf(stderr, "p2pmap: out of memory\n");
		return -1;
	}
	/* Verify without counters rather than not at all. */
	err = pnl_open(&s->nl);
	s->loaded = !err;
	s->why = err == -ENOENT ? "p2pmap module not loaded" :
		 "p2pmap netlink unavailable";
	memset(src, 0, sizeof(*src));
	src->read = nl_read;
	src->last_hit = nl_last_hit;
	src->priv = s;
	return 0;
}

/* The file source: the lines, parsed at open. */
struct file_line {
	char from[P2PMAP_ADDR_LEN], to[P2PMAP_ADDR_LEN];
	int op;				/* enum verify_op, or -1: both */
	int path;			/* enum verify_path, or -1: every */
	uint64_t before, after;
	bool has_addr;
	uint64_t addr;			/* the last fault's address */
};

struct file_source {
	size_t n;
	struct file_line *lines;
	size_t ndevs;			/* the "bar" lines' devices */
	struct p2pmap_dev *devs;
};

/* @key is a CUDA index or a PCI address of @g. */
static bool key_matches(const char *key, const struct verify_gpu *g)
{
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", g->index);
	return !strcmp(key, idx) || !strcmp(key, g->pci);
}

/* The first line for this direction, operation and path, or NULL. */
static const struct file_line *file_find(const struct file_source *s,
					 const struct verify_gpu *from,
					 const struct verify_gpu *to,
					 enum verify_path path,
					 enum verify_op op)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (key_matches(s->lines[i].from, from) &&
		    key_matches(s->lines[i].to, to) &&
		    (s->lines[i].op < 0 || s->lines[i].op == (int)op) &&
		    (s->lines[i].path < 0 || s->lines[i].path == (int)path))
			return &s->lines[i];
	return NULL;
}

static bool file_read(struct verify_faults *src, const struct verify_gpu *from,
		      const struct verify_gpu *to, enum verify_path path,
		      enum verify_op op, bool after, uint64_t *count)
{
	const struct file_line *l = file_find(src->priv, from, to, path, op);

	*count = !l ? 0 : after ? l->after : l->before;
	return true;
}

static bool file_last_hit(struct verify_faults *src,
			  const struct verify_gpu *from,
			  const struct verify_gpu *to, enum verify_path path,
			  enum verify_op op, struct verify_fault_hit *hit)
{
	struct file_source *s = src->priv;
	const struct file_line *l = file_find(s, from, to, path, op);

	if (!l || !l->has_addr)
		return false;
	fault_hit_at(s->devs, s->ndevs, l->addr, hit);
	return true;
}

/*
 * "bar PCI INDEX START SIZE": a BAR of an NVIDIA GPU, as the module's
 * device dump has it.  Returns 0, or -1 when malformed or out of memory.
 */
static int parse_bar(const char *line, struct file_source *s)
{
	char pci[32], extra;
	struct p2pmap_dev *d = NULL, *devs;
	unsigned int index;
	uint64_t start, size;
	size_t i;

	if (sscanf(line, "bar %31s %u %" SCNx64 " %" SCNx64 " %c", pci, &index,
		   &start, &size, &extra) != 4 || strlen(pci) >= P2PMAP_ADDR_LEN)
		return -1;
	for (i = 0; i < s->ndevs; i++)
		if (!strcmp(s->devs[i].addr, pci))
			d = &s->devs[i];
	if (!d) {
		devs = realloc(s->devs, (s->ndevs + 1) * sizeof(*devs));
		if (!devs)
			return -1;
		s->devs = devs;
		d = memset(&devs[s->ndevs++], 0, sizeof(*d));
		memcpy(d->addr, pci, strlen(pci) + 1);
		d->vendor = 0x10de;
	}
	if (d->nbars >= P2PMAP_NR_BARS)
		return -1;
	d->bars[d->nbars].index = index;
	d->bars[d->nbars].start = start;
	d->bars[d->nbars++].size = size;
	return 0;
}

static int parse_line(char *line, struct file_line *l)
{
	char dir[64], *arrow, *colon, *at;
	uint64_t before, after;
	char extra;
	int n;

	line[strcspn(line, "#\n")] = '\0';
	if (strspn(line, " \t") == strlen(line))
		return 1;			/* blank */
	n = sscanf(line, "%63s %" SCNu64 " %" SCNu64 " %" SCNx64 " %c", dir,
		   &before, &after, &l->addr, &extra);
	if (n != 3 && n != 4)
		return -1;
	l->has_addr = n == 4;
	l->op = -1;
	l->path = -1;
	/* "A->B:write@ipc": one path (last), one operation. */
	at = strrchr(dir, '@');
	if (at) {
		l->path = verify_path_parse(at + 1);
		if (l->path < 0)
			return -1;
		*at = '\0';
	}
	/* "A->B:write": one operation; a PCI address has colons too. */
	colon = strrchr(dir, ':');
	if (colon && (!strcmp(colon, ":write") || !strcmp(colon, ":read"))) {
		l->op = strcmp(colon, ":read") ? VERIFY_WRITE : VERIFY_READ;
		*colon = '\0';
	}
	arrow = strstr(dir, "->");
	if (!arrow || arrow == dir || !arrow[2] ||
	    (size_t)(arrow - dir) >= sizeof(l->from) ||
	    strlen(arrow + 2) >= sizeof(l->to))
		return -1;
	*arrow = '\0';
	memcpy(l->from, dir, strlen(dir) + 1);
	memcpy(l->to, arrow + 2, strlen(arrow + 2) + 1);
	l->before = before;
	l->after = after;
	return 0;
}

int verify_faults_file_open(struct verify_faults *src, const char *path)
{
	struct file_source *s = calloc(1, sizeof(*s));
	struct file_line l, *lines;
	unsigned int lineno = 0;
	char buf[256];
	FILE *f;
	int rc;

	if (!s) {
		fprintf(stderr, "p2pmap: out of memory\n");
		return -1;
	}
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "p2pmap: %s: %s\n", path, strerror(errno));
		free(s);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		lineno++;
		if (!strncmp(buf, "bar ", 4)) {
			if (parse_bar(buf, s) < 0) {
				fprintf(stderr, "p2pmap: %s:%u: expected \"bar PCI INDEX START SIZE\"\n",
					path, lineno);
				goto fail;
			}
			continue;
		}
		rc = parse_line(buf, &l);
		if (rc > 0)
			continue;
		if (rc < 0) {
			fprintf(stderr, "p2pmap: %s:%u: expected \"A->B[:write|:read][@PATH] BEFORE AFTER [ADDR]\"\n",
				path, lineno);
			goto fail;
		}
		lines = realloc(s->lines, (s->n + 1) * sizeof(*lines));
		if (!lines) {
			fprintf(stderr, "p2pmap: out of memory\n");
			goto fail;
		}
		s->lines = lines;
		s->lines[s->n++] = l;
	}
	fclose(f);
	memset(src, 0, sizeof(*src));
	src->read = file_read;
	src->last_hit = file_last_hit;
	src->priv = s;
	return 0;
fail:
	fclose(f);
	free(s->lines);
	free(s->devs);
	free(s);
	return -1;
}

void verify_faults_close(struct verify_faults *src)
{
	struct nl_source *ns;
	struct file_source *fs;

	if (src->read == nl_read) {
		ns = src->priv;
		if (ns->loaded)
			pnl_close(&ns->nl);
		dev_list_free(&ns->devs);
		free(ns);
	} else if (src->read == file_read) {
		fs = src->priv;
		free(fs->lines);
		free(fs->devs);
		free(fs);
	}
	memset(src, 0, sizeof(*src));
}
