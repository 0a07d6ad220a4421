// SPDX-License-Identifier: GPL-2.0
/* A tiny streaming JSON writer. */
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = false;
	j->after_key = false;
}

/* Before any value or key: the comma that separates it from the last. */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = true;
}

static void open_(struct json *j, char c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth)
		j->depth--;
}

void json_obj_begin(struct json *j) { open_(j, '{'); }
void json_obj_end(struct json *j) { close_(j, '}'); }
void json_arr_begin(struct json *j) { open_(j, '['); }
void json_arr_end(struct json *j) { close_(j, ']'); }

void json_doc_begin(struct json *j)
{
	json_obj_begin(j);
	json_key(j, "schema");
	json_u64(j, P2PMAP_JSON_SCHEMA);
}

void json_failure_doc(FILE *f, const char *error, int code,
		      const char *results)
{
	struct json j;

	json_init(&j, f);
	json_doc_begin(&j);
	json_key(&j, "error");
	json_str(&j, error);
	json_key(&j, "exit_code");
	json_u64(&j, code);
	json_key(&j, results);
	json_arr_begin(&j);
	json_arr_end(&j);
	json_obj_end(&j);
	fputc('\n', f);
}

/* Length of the valid UTF-8 sequence at @s, or 0. */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', f);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(f, "\\u%04x", *s);
				break;
			}
			n = utf8_len(s);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s, 1, n, f);
			s += n - 1;
			break;
		}
		s++;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	json_write_string(j->f, key);
	fputc(':', j->f);
	j->after_key = true;
}

void json_str(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	sep(j);
	json_write_string(j->f, s);
}

void json_str_or_null(struct json *j, const char *s)
{
	json_str(j, s && s[0] ? s : NULL);
}

void json_enum(struct json *j, const char *s)
{
	if (!s || !s[0]) {
		json_null(j);
		return;
	}
	sep(j);
	fputc('"', j->f);
	for (; *s; s++) {
		if (*s >= 'A' && *s <= 'Z')
			fputc(*s - 'A' + 'a', j->f);
		else if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
			fputc(*s, j->f);
		else
			fputc('_', j->f);
	}
	fputc('"', j->f);
}

void json_u64(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_double_or_null(struct json *j, bool has, double v)
{
	/* JSON has no NaN or infinity. */
	if (!has || v != v || v > 1e300 || v < -1e300) {
		json_null(j);
		return;
	}
	sep(j);
	fprintf(j->f, "%.3f", v);
}

void json_key_u64_or_null(struct json *j, const char *key, bool has,
			  uint64_t v)
{
	json_key(j, key);
	if (has)
		json_u64(j, v);
	else
		json_null(j);
}

void json_s64(struct json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	sep(j);
	fputs("null", j->f);
}

void json_hex(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}
