/* SPDX-License-Identifier: GPL-2.0 */
/* Links and devices read as of one moment of the kernel's state. */
#ifndef P2PMAP_SNAPSHOT_H
#define P2PMAP_SNAPSHOT_H

#include "nl.h"
#include "objects.h"

#define SNAPSHOT_TRIES	10

/*
 * Dump the links into @links and the devices into @devs (either may be
 * NULL), both from the same generation of the kernel's state.  Each dump
 * is consistent by itself (pnl_dump() retries one that NLM_F_DUMP_INTR
 * marks), but a change between the two would pair, say, a link table
 * from before a device went away with a device list from after.  So the
 * generation counter (INFO_GET) is read before and after, and everything
 * is read again if it moved, SNAPSHOT_TRIES times at most; then -EAGAIN,
 * with a message in nl->error.  A module without the counter gets one
 * pass.  Returns 0 or a negative errno; *op names what failed, for
 * pnl_perror().
 */
int snapshot_read(struct p2pmap_nl *nl, struct p2pmap_link_list *links,
		  struct p2pmap_dev_list *devs, const char **op);

#endif /* P2PMAP_SNAPSHOT_H */
