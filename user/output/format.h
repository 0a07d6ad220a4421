/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure formatting: structs in, text out.  Nothing here talks to the kernel
 * or to libpci, so the unit tests can check every output format.
 */
#ifndef P2PMAP_FORMAT_H
#define P2PMAP_FORMAT_H

#include <stdio.h>

#include "objects.h"
#include "report.h"

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

/* Big enough for format_count(), format_time(), format_fault_last(). */
#define FORMAT_COUNT_LEN	24
#define FORMAT_TIME_LEN		48
#define FORMAT_LAST_LEN		80

/* "5", or ">=5" when the sources include P2PMAP_FAULT_SRC_DMAR. */
char *format_count(char *buf, size_t len, uint64_t count, uint32_t sources);

/* CLOCK_REALTIME ns as ISO-8601 local time "2024-05-01T12:00:00+02:00". */
char *format_time(char *buf, size_t len, uint64_t ns);

/* format_time() with milliseconds: "2024-05-01T12:00:00.123+02:00". */
char *format_time_ms(char *buf, size_t len, uint64_t ns);

/* "read" or "write" */
const char *format_access(uint32_t fault_flags);

/*
 * What is known of the last fault: "0xfe500000 read, <time>", any part
 * left out that the kernel did not send; "" when nothing is known.
 */
char *format_fault_last(char *buf, size_t len, const struct p2pmap_fault *f);

/* "tracepoint, dmar (lower bound)"; "none" for 0. */
char *format_fault_sources(char *buf, size_t len, uint32_t sources);

/* "faults: A -> B  N  (last 0x... read, <time>)" */
void format_pair_fault(FILE *f, const struct pair_fault *p);

/*
 * "p2pmap status" after the link table: the matrix, its device key, the
 * legend, the faulting pairs and the verdict line.  Nothing when the
 * report has no devices (no links and no faulting pairs).
 */
void format_report(FILE *f, const struct p2p_report *r);

/* "p2pmap faults": a row per device, a "  -> TARGET" row per peer record. */
void format_faults(FILE *f, const struct p2pmap_dev *devs, size_t n);

/* "p2pmap monitor": one line per event; false for an unknown event. */
bool format_event(FILE *f, const struct p2pmap_event *ev);

/* "p2pmap info" */
void format_info(FILE *f, const struct p2pmap_info *info);
const char *format_sme(uint32_t sme);

/*
 * "p2pmap policy": four lines "drivers: ", "vendors: ", "classes: ",
 * "numa nodes: ", each with the kernel's comma-separated list, or "any"
 * for an empty filter ("none" for an empty driver allowlist).
 */
void format_policy(FILE *f, const struct p2pmap_policy *p);

#endif /* P2PMAP_FORMAT_H */
