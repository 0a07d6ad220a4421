/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --json outputs: one JSON document per line, the same facts as the
 * text formats of format.c.  Shapes: JSON.md.
 */
#ifndef P2PMAP_FORMAT_JSON_H
#define P2PMAP_FORMAT_JSON_H

#include <stdio.h>

#include "objects.h"
#include "report.h"

void json_list(FILE *f, const struct list_entry *e, size_t n);
void json_status(FILE *f, const struct p2pmap_link *links, size_t n,
		 const struct p2p_report *r);
void json_faults(FILE *f, const struct p2pmap_dev *devs, size_t n);
/* false (nothing written) for an unknown event */
bool json_event(FILE *f, const struct p2pmap_event *ev);
void json_info(FILE *f, const struct p2pmap_info *info);
void json_policy(FILE *f, const struct p2pmap_policy *p);

#endif /* P2PMAP_FORMAT_JSON_H */
