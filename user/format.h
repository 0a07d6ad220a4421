/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure formatting: structs in, text out.  Nothing here talks to the kernel
 * or to libpci, so the unit tests can check every output format.
 */
#ifndef P2PMAP_FORMAT_H
#define P2PMAP_FORMAT_H

#include <stdio.h>

#include "objects.h"

/* Big enough for any format_size() result ("1023.9 EiB"). */
#define FORMAT_SIZE_LEN		16

/* "pending", "mapped", "native", "blocked", "error"; "unknown" otherwise. */
const char *format_link_state(uint32_t state);

/* "512 B", "4.0 KiB", "1.0 MiB", "64.0 GiB", ... Returns @buf. */
char *format_size(char *buf, size_t len, uint64_t bytes);

/* " 64bit prefetch": each set flag preceded by a space; "" for none. */
char *format_bar_flags(char *buf, size_t len, uint32_t flags);

/* "p2pmap list" */
void format_list_header(FILE *f);
void format_list_entry(FILE *f, const struct list_entry *e);

/* "p2pmap status": the table, or "no links configured". */
void format_status(FILE *f, const struct p2pmap_link *links, size_t n);

/* "link A -> B: <state>[ (<reason>)]" */
void format_link_result(FILE *f, const struct p2pmap_link *l);

#endif /* P2PMAP_FORMAT_H */
