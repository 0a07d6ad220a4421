/* SPDX-License-Identifier: GPL-2.0 */
/* P2PMAP_CMD_INFO_GET and P2PMAP_CMD_FAULTS_RESET. */
#ifndef P2PMAP_INFO_H
#define P2PMAP_INFO_H

#include "nl.h"
#include "objects.h"

/* Parse an INFO_GET reply's attributes; unknown ones are ignored. */
int info_parse_attrs(struct nlattr *head, int len, struct p2pmap_info *info);

/* INFO_GET (do). */
int info_get(struct p2pmap_nl *nl, struct p2pmap_info *info);

/* FAULTS_RESET of @addr, or of every device when @addr is NULL. */
int faults_reset(struct p2pmap_nl *nl, const char *addr);

#endif /* P2PMAP_INFO_H */
