/* SPDX-License-Identifier: GPL-2.0 */
/* P2PMAP_CMD_LINK_*: configured links. */
#ifndef P2PMAP_LINK_H
#define P2PMAP_LINK_H

#include "nl.h"
#include "objects.h"

/* Parse one link message's attributes; unknown ones are ignored. */
int link_parse_attrs(struct nlattr *head, int len, struct p2pmap_link *link);

/* Dump every configured link into @list (emptied first). */
int link_dump(struct p2pmap_nl *nl, struct p2pmap_link_list *list);
void link_list_free(struct p2pmap_link_list *list);

/* LINK_GET (do): one link. */
int link_get(struct p2pmap_nl *nl, const char *initiator, const char *target,
	     struct p2pmap_link *link);

/* LINK_ADD; @bar_mask is sent only when @has_mask. */
int link_add(struct p2pmap_nl *nl, const char *initiator, const char *target,
	     bool has_mask, uint32_t bar_mask);

/* LINK_DEL */
int link_del(struct p2pmap_nl *nl, const char *initiator, const char *target);

#endif /* P2PMAP_LINK_H */
