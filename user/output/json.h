/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny streaming JSON writer: compact output on one line, commas placed
 * by the writer.  Strings are escaped; bytes that are not valid UTF-8 are
 * written as U+FFFD, so the output always parses.
 */
#ifndef P2PMAP_JSON_H
#define P2PMAP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json_schema.h"

#define JSON_MAX_DEPTH	16

struct json {
	FILE *f;
	unsigned int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool after_key;			/* a value completes "key": */
};

void json_init(struct json *j, FILE *f);

void json_obj_begin(struct json *j);
/* A document's top-level object, opened with "schema": P2PMAP_JSON_SCHEMA. */
void json_doc_begin(struct json *j);
/*
 * A whole document for a command that ended before any result: its
 * error, its exit code and an empty array named @results.
 */
void json_failure_doc(FILE *f, const char *error, int code,
		      const char *results);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);

/* An object member's key; the next call writes its value. */
void json_key(struct json *j, const char *key);

/* A string; NULL writes null. */
void json_str(struct json *j, const char *s);
/* As json_str(), but "" writes null too. */
void json_str_or_null(struct json *j, const char *s);
/*
 * An enum value (one of a fixed set, JSON.md), in snake_case: the text's
 * words with A-Z lowered and anything but a-z, 0-9 and _ as _ ("peer
 * access refused" -> "peer_access_refused", "dev-add" -> "dev_add").
 * NULL or "" writes null.
 */
void json_enum(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_s64(struct json *j, int64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* "@key": @v, or "@key": null when !@has (a counter not known). */
void json_key_u64_or_null(struct json *j, const char *key, bool has,
			  uint64_t v);
/* A measurement with 3 decimals; null when !@has (or not finite). */
void json_double_or_null(struct json *j, bool has, double v);
/* "0x<hex>": addresses survive readers that hold numbers as doubles. */
void json_hex(struct json *j, uint64_t v);

/* Write @s as a quoted, escaped JSON string. */
void json_write_string(FILE *f, const char *s);

#endif /* P2PMAP_JSON_H */
