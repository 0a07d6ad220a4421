/* SPDX-License-Identifier: GPL-2.0 */
/* P2PMAP_CMD_DEV_GET: tracked devices. */
#ifndef P2PMAP_DEV_H
#define P2PMAP_DEV_H

#include "nl.h"
#include "objects.h"

/* Parse one device message's attributes; unknown ones are ignored. */
int dev_parse_attrs(struct nlattr *head, int len, struct p2pmap_dev *dev);

/* Dump every tracked device into @list (emptied first). */
int dev_dump(struct p2pmap_nl *nl, struct p2pmap_dev_list *list);

const struct p2pmap_dev *dev_list_find(const struct p2pmap_dev_list *list,
				       const char *addr);
void dev_list_free(struct p2pmap_dev_list *list);

#endif /* P2PMAP_DEV_H */
