/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The number alone, for readers of p2pmap's documents (verify_json_read.c)
 * that use json-c, whose json_bool json.h's writer would clash with.
 */
#ifndef P2PMAP_JSON_SCHEMA_H
#define P2PMAP_JSON_SCHEMA_H

/*
 * The "schema" every document carries as its first key (JSON.md): bumped
 * on an incompatible change (a key removed or renamed, a value's type or
 * meaning changed, an enum value renamed); added keys or enum values do
 * not bump it.
 */
#define P2PMAP_JSON_SCHEMA	1

#endif /* P2PMAP_JSON_SCHEMA_H */
