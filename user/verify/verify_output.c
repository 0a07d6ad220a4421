// SPDX-License-Identifier: GPL-2.0
/* Reading back what "p2pmap verify" found (verify_output.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify_json_read.h"
#include "verify_output.h"
#include "verify_text_legacy.h"

/* verify --json's document is one line; this is far beyond 4096 GPUs'. */
#define VERIFY_JSON_MAX (256u << 20)

/* The rest of @f in a buffer to free, or NULL. */
static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap), *bigger;

	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		if (cap >= VERIFY_JSON_MAX) {
			free(buf);
			errno = EFBIG;
			return NULL;
		}
		bigger = realloc(buf, cap * 2);
		if (!bigger) {
			free(buf);
			return NULL;
		}
		buf = bigger;
		cap *= 2;
	}
	if (buf && ferror(f)) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/*
 * The first character that is not white space, or EOF, left unread: the
 * white space before it is dropped (no rewind: FILE may be a pipe).
 */
static int first_char(FILE *f)
{
	int c;

	do
		c = getc(f);
	while (c != EOF && isspace(c));
	if (c != EOF)
		ungetc(c, f);
	return c;
}

int verify_output_read(const char *path, struct verify_output *vr, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "r");
	size_t len = 0;
	char *buf;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	if (first_char(f) != '{') {
		verify_text_legacy_read(f, vr);
		fclose(f);
		return 0;
	}
	buf = slurp(f, &len);
	ret = buf ? 0 : -(errno ? errno : ENOMEM);
	fclose(f);
	if (ret) {
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	ret = verify_json_read(buf, len, vr, err, errlen);
	free(buf);
	return ret;
}

int verify_line_fw(const struct verify_line *v, enum verify_fw fw)
{
	if (v->has_paths)
		return v->fw[fw];
	return -1;
}

const char *verify_line_path(const struct verify_line *v, enum verify_path p)
{
	if (v->has_paths)
		return v->path_what[p][0] ? v->path_what[p] : NULL;
	return NULL;
}

const struct verify_line *verify_output_find(const struct verify_output *vr,
						const char *from,
						const char *to)
{
	size_t i;

	for (i = 0; i < vr->n; i++)
		if (!strcmp(vr->v[i].from, from) && !strcmp(vr->v[i].to, to))
			return &vr->v[i];
	return NULL;
}
