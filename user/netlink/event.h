/* SPDX-License-Identifier: GPL-2.0 */
/* Messages of the "events" multicast group. */
#ifndef P2PMAP_EVENT_H
#define P2PMAP_EVENT_H

#include "nl.h"
#include "objects.h"

/* Parse a FAULT_NTF's attributes; -EINVAL without an initiator. */
int fault_ntf_parse_attrs(struct nlattr *head, int len,
			  struct p2pmap_fault_ntf *f);

/*
 * Parse one event message into @ev.  Returns 0; 1 for a command that is
 * not an event (ignored: a newer kernel's); -EINVAL for an event without
 * the addresses that name its object.
 */
int event_parse(const struct nlmsghdr *nlh, struct p2pmap_event *ev);

#endif /* P2PMAP_EVENT_H */
