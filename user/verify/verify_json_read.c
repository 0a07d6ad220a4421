// SPDX-License-Identifier: GPL-2.0
/*
 * verify --json's document read back (verify_json_read.h).  A key that a
 * later verify added is optional here (size, timeout_s, write and read,
 * paths, frameworks, the bandwidth's gated); the ones every schema 1
 * document has are required, and one missing means the file is not
 * verify's: nothing is taken from it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json_schema.h"
#include "verify_json_read.h"

struct reader {
	char *err;
	size_t errlen;
	size_t at;			/* the direction being read */
};

__attribute__((format(printf, 2, 3)))
static int bad(struct reader *rd, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(rd->err, rd->errlen, "directions[%zu]: ", rd->at);
	if (n >= rd->errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(rd->err + n, rd->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @key of @o, NULL when absent or null. */
static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, key, &v);
	return v;
}

static bool is(struct json_object *v, enum json_type t)
{
	return v && json_object_is_type(v, t);
}

/* A string @key, required or not; "" when absent or null. */
static int str(struct reader *rd, struct json_object *o, const char *key,
	       bool required, char *out, size_t len)
{
	struct json_object *v = get(o, key);

	out[0] = '\0';
	if (!v && !required)
		return 0;
	if (!is(v, json_type_string))
		return bad(rd, "\"%s\" %s", key, v ? "is not a string" :
			   "is missing");
	snprintf(out, len, "%s", json_object_get_string(v));
	return 0;
}

/* A count @key: false when absent or null. */
static int count(struct reader *rd, struct json_object *o, const char *key,
		 bool *has, uint64_t *out)
{
	struct json_object *v = get(o, key);

	*has = false;
	*out = 0;
	if (!v)
		return 0;
	if (!is(v, json_type_int) || json_object_get_int64(v) < 0)
		return bad(rd, "\"%s\" is not a count", key);
	*has = true;
	*out = json_object_get_uint64(v);
	return 0;
}

/* "peer_access_refused" -> VERIFY_REFUSED, or -1 when not known. */
static int verdict_parse(const char *s)
{
	char name[32];
	int v;
	char *c;

	for (v = VERIFY_WORKS; v <= VERIFY_FAULTED; v++) {
		snprintf(name, sizeof(name), "%s", verify_verdict_name(v));
		for (c = name; *c; c++)
			if (*c == ' ')
				*c = '_';
		if (!strcmp(s, name))
			return v;
	}
	return -1;
}

/* "0xe0001000" */
static int hex(struct reader *rd, struct json_object *o, const char *key,
	       uint64_t *out)
{
	char s[24], *end;

	if (str(rd, o, key, true, s, sizeof(s)))
		return -EINVAL;
	*out = strtoull(s, &end, 16);
	if (strncmp(s, "0x", 2) || *end || end == s + 2)
		return bad(rd, "\"%s\" is not a hex address", key);
	return 0;
}

/* "last_fault": null | {"addr", "bar": null | {device, bar, offset, role}} */
static int hit_read(struct reader *rd, struct json_object *o,
		    struct verify_fault_hit *h)
{
	struct json_object *lf = get(o, "last_fault"), *bar;
	bool has;
	uint64_t n;

	if (!lf)
		return 0;
	if (!is(lf, json_type_object))
		return bad(rd, "\"last_fault\" is not an object");
	h->known = true;
	if (hex(rd, lf, "addr", &h->addr))
		return -EINVAL;
	bar = get(lf, "bar");
	if (!bar)
		return 0;
	h->in_bar = true;
	if (str(rd, bar, "device", true, h->dev, sizeof(h->dev)) ||
	    count(rd, bar, "bar", &has, &n) || hex(rd, bar, "offset", &h->offset) ||
	    str(rd, bar, "role", false, h->role, sizeof(h->role)))
		return -EINVAL;
	h->bar = (uint32_t)n;
	return 0;
}

/* One operation's fields (a direction's own, or "write"'s, "read"'s). */
static int op_read(struct reader *rd, struct json_object *o,
		   enum verify_verdict verdict, struct verify_op_result *op)
{
	struct json_object *ok = get(o, "data_ok"), *code = get(o, "cuda_code");
	char error[VERIFY_ERR_LEN];
	bool has;

	memset(op, 0, sizeof(*op));
	op->verdict = verdict;
	if (count(rd, o, "faults_before", &op->has_before, &op->faults_before) ||
	    count(rd, o, "faults_after", &op->has_after, &op->faults_after) ||
	    hit_read(rd, o, &op->hit) ||
	    str(rd, o, "cuda_call", false, op->copy.cuda_call,
		sizeof(op->copy.cuda_call)) ||
	    str(rd, o, "cuda_error", false, error, sizeof(error)) ||
	    count(rd, o, "first_wrong_byte", &has, &op->copy.first_diff))
		return -EINVAL;
	/* cuda_error is the failed call's, or how the test process died. */
	if (op->copy.cuda_call[0])
		memcpy(op->copy.cuda_error, error, sizeof(error));
	else
		memcpy(op->child_error, error, sizeof(error));
	if (code && !is(code, json_type_int))
		return bad(rd, "\"cuda_code\" is not a number");
	op->copy.cuda_code = code ? json_object_get_int(code) : 0;
	if (ok && !is(ok, json_type_boolean))
		return bad(rd, "\"data_ok\" is not a boolean");
	op->copy.data_checked = ok;
	op->copy.data_ok = ok && json_object_get_boolean(ok);
	return 0;
}

/* A verdict @key, required; -1 (and @words) for one this CLI lacks. */
static int verdict_read(struct reader *rd, struct json_object *o,
			const char *key, int *v, char *words, size_t len)
{
	char *c;

	if (str(rd, o, key, true, words, len))
		return -EINVAL;
	*v = verdict_parse(words);
	/* A later verdict (JSON.md: "something else"): not "works". */
	for (c = words; *c; c++)
		if (*c == '_')
			*c = ' ';
	return 0;
}

/* "write" and "read", or the direction's own fields for both (older). */
static int ops_read(struct reader *rd, struct json_object *d,
		    struct verify_op_result *ops, enum verify_verdict verdict)
{
	static const char * const key[VERIFY_NR_OPS] = { "write", "read" };
	struct json_object *o;
	char words[32];
	int op, v;

	for (op = 0; op < VERIFY_NR_OPS; op++) {
		o = get(d, key[op]);
		if (!o) {
			if (op_read(rd, d, verdict, &ops[op]))
				return -EINVAL;
			continue;
		}
		if (!is(o, json_type_object))
			return bad(rd, "\"%s\" is not an object", key[op]);
		if (verdict_read(rd, o, "verdict", &v, words, sizeof(words)))
			return -EINVAL;
		if (op_read(rd, o, v < 0 ? VERIFY_ERROR : v, &ops[op]))
			return -EINVAL;
	}
	return 0;
}

/* "paths" and "frameworks": each path's verdict, each framework's. */
static int paths_read(struct reader *rd, struct json_object *d,
		      struct verify_line *l)
{
	struct json_object *paths = get(d, "paths"), *fws = get(d, "frameworks");
	struct json_object *p, *f;
	int k, v;

	if (!paths)
		return 0;		/* older than the paths: not known */
	if (!is(paths, json_type_object))
		return bad(rd, "\"paths\" is not an object");
	l->has_paths = true;
	for (k = 0; k < VERIFY_NR_PATHS; k++) {
		p = get(paths, verify_path_name(k));
		if (!p)
			continue;	/* not run */
		if (!is(p, json_type_object) ||
		    verdict_read(rd, p, "verdict", &v, l->path_what[k],
				 sizeof(l->path_what[k])))
			return bad(rd, "\"paths\": \"%s\" has no verdict",
				   verify_path_name(k));
	}
	if (fws && !is(fws, json_type_object))
		return bad(rd, "\"frameworks\" is not an object");
	for (k = 0; k < VERIFY_NR_FW; k++) {
		f = fws ? get(fws, verify_fw_key(k)) : NULL;
		if (f && !is(f, json_type_boolean))
			return bad(rd, "\"frameworks\": \"%s\" is not a boolean",
				   verify_fw_key(k));
		l->fw[k] = f ? json_object_get_boolean(f) : -1;
	}
	return 0;
}

/*
 * "bandwidth": looks_staged as verify decides it since its copies are
 * gated (latency with peer access); before "gated" it was judged from
 * throughput alone, which a slow direct direction shows too: not taken.
 */
static int bandwidth_read(struct reader *rd, struct json_object *d,
			  struct verify_line *l)
{
	struct json_object *bw = get(d, "bandwidth"), *st;

	if (!bw)
		return 0;
	if (!is(bw, json_type_object))
		return bad(rd, "\"bandwidth\" is not an object");
	st = get(bw, "looks_staged");
	if (st && !is(st, json_type_boolean))
		return bad(rd, "\"bandwidth\": \"looks_staged\" is not a boolean");
	l->looks_staged = get(bw, "gated") && st && json_object_get_boolean(st);
	return 0;
}

static int gpu_read(struct reader *rd, struct json_object *d, const char *key,
		    int *out)
{
	struct json_object *v = get(d, key);

	if (!is(v, json_type_int) || json_object_get_int64(v) < 0 ||
	    json_object_get_int64(v) >= VERIFY_MAX_GPUS)
		return bad(rd, "\"%s\" %s", key, v ? "is not a CUDA ordinal" :
			   "is missing");
	*out = json_object_get_int(v);
	return 0;
}

/* "0000:01:00.0", a domain of 4 to 8 hex digits (JSON.md's pci kind). */
static bool pci_like(const char *s)
{
	unsigned int bus, dev, fn;
	int dom = 0, n = 0;

	if (sscanf(s, "%*x%n:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) != 3)
		return false;
	return dom >= 4 && dom <= 8 && n == dom + 8 && !s[n] &&
	       s[dom + 3] == ':' && s[dom + 6] == '.' && fn < 8;
}

/* One direction into @l; @r: room for verify's result, to word it. */
static int direction_read(struct reader *rd, struct json_object *d,
			  struct verify_line *l, struct verify_result *r)
{
	char path[16];
	bool has;
	uint64_t n;
	int v;

	memset(l, 0, sizeof(*l));
	memset(r, 0, sizeof(*r));
	if (!is(d, json_type_object))
		return bad(rd, "not an object");
	if (gpu_read(rd, d, "from", &l->from_gpu) ||
	    gpu_read(rd, d, "to", &l->to_gpu) ||
	    str(rd, d, "from_pci", true, l->from, sizeof(l->from)) ||
	    str(rd, d, "to_pci", true, l->to, sizeof(l->to)) ||
	    verdict_read(rd, d, "verdict", &v, l->what, sizeof(l->what)) ||
	    str(rd, d, "decided_by", false, path, sizeof(path)) ||
	    count(rd, d, "size", &has, &r->size) ||
	    count(rd, d, "timeout_s", &has, &n))
		return -EINVAL;
	if (!pci_like(l->from) || !pci_like(l->to))
		return bad(rd, "\"from_pci\" or \"to_pci\" is not a PCI address");
	r->timeout = n;
	r->decided_by = path[0] ? verify_path_parse(path) : VERIFY_PATH_COPY;
	if ((int)r->decided_by < 0)
		r->decided_by = VERIFY_PATH_COPY;	/* a later path */
	if (ops_read(rd, d, r->op, v < 0 ? VERIFY_ERROR : v) ||
	    paths_read(rd, d, l) || bandwidth_read(rd, d, l))
		return -EINVAL;
	/* Worded as verify words it, from its fields: not parsed back. */
	if (v >= 0)
		verify_format_detail(r, l->detail, sizeof(l->detail));
	return 0;
}

/* The document's top: "schema", no "error", "directions". */
static struct json_object *top_read(struct reader *rd, struct json_object *doc)
{
	struct json_object *s = get(doc, "schema"), *e = get(doc, "error");
	struct json_object *dirs = get(doc, "directions");

	if (!is(doc, json_type_object)) {
		snprintf(rd->err, rd->errlen, "not a JSON object: not p2pmap verify --json's document");
		return NULL;
	}
	if (!is(s, json_type_int)) {
		snprintf(rd->err, rd->errlen, "no \"schema\" number: not p2pmap verify --json's document (or one from before schema 1: run p2pmap verify --json again)");
		return NULL;
	}
	if (json_object_get_int64(s) != P2PMAP_JSON_SCHEMA) {
		snprintf(rd->err, rd->errlen, "\"schema\": %lld, this p2pmap reads schema %d (a newer p2pmap wrote it?): not read",
			 (long long)json_object_get_int64(s),
			 P2PMAP_JSON_SCHEMA);
		return NULL;
	}
	if (e) {
		snprintf(rd->err, rd->errlen, "p2pmap verify failed, it tested nothing: %s",
			 is(e, json_type_string) ? json_object_get_string(e) :
			 "?");
		return NULL;
	}
	if (!is(dirs, json_type_array)) {
		snprintf(rd->err, rd->errlen, "\"directions\" %s: not p2pmap verify --json's document",
			 dirs ? "is not an array" : "is missing");
		return NULL;
	}
	return dirs;
}

/* Parsed whole, one document, or NULL with @rd->err said. */
static struct json_object *parse(struct reader *rd, const char *buf,
				 size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *doc;
	enum json_tokener_error e;
	size_t end;

	if (!tok) {
		snprintf(rd->err, rd->errlen, "%s", strerror(ENOMEM));
		return NULL;
	}
	doc = json_tokener_parse_ex(tok, buf, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (e == json_tokener_continue) {
		snprintf(rd->err, rd->errlen, "truncated: the JSON document ends after %zu bytes, before it is whole",
			 len);
		return NULL;
	}
	if (!doc) {
		snprintf(rd->err, rd->errlen, "not valid JSON at byte %zu: %s",
			 end, json_tokener_error_desc(e));
		return NULL;
	}
	while (end < len && strchr(" \t\r\n", buf[end]))
		end++;
	if (end < len) {
		json_object_put(doc);
		snprintf(rd->err, rd->errlen, "more than one JSON document (byte %zu): not p2pmap verify --json's output",
			 end);
		return NULL;
	}
	return doc;
}

int verify_json_read(const char *buf, size_t len, struct verify_output *vr,
		     char *err, size_t errlen)
{
	struct reader rd = { .err = err, .errlen = errlen };
	struct json_object *doc, *dirs;
	struct verify_result *r = NULL;
	size_t n0 = vr->n, k;
	int ret = -EINVAL;

	doc = parse(&rd, buf, len);
	if (!doc)
		return -EINVAL;
	dirs = top_read(&rd, doc);
	if (!dirs)
		goto out;
	r = malloc(sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < json_object_array_length(dirs); k++) {
		rd.at = k;
		if (vr->n == VERIFY_OUTPUT_MAX) {
			bad(&rd, "more than %d directions", VERIFY_OUTPUT_MAX);
			goto out;
		}
		if (direction_read(&rd, json_object_array_get_idx(dirs, k),
				   &vr->v[vr->n], r))
			goto out;
		vr->n++;
	}
	ret = 0;
out:
	if (ret)
		vr->n = n0;	/* nothing from a document not read whole */
	free(r);
	json_object_put(doc);
	return ret;
}
