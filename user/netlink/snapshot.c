// SPDX-License-Identifier: GPL-2.0
/* Links and devices read as of one moment of the kernel's state. */
#include <errno.h>
#include <stdio.h>

#include "dev.h"
#include "info.h"
#include "link.h"
#include "snapshot.h"

int snapshot_read(struct p2pmap_nl *nl, struct p2pmap_link_list *links,
		  struct p2pmap_dev_list *devs, const char **op)
{
	struct p2pmap_info before, after;
	int tries, err;

	for (tries = 0; tries < SNAPSHOT_TRIES; tries++) {
		*op = "info";
		err = info_get(nl, &before);
		if (err)
			return err;
		*op = "link dump";
		if (links && (err = link_dump(nl, links)))
			return err;
		*op = "dev dump";
		if (devs && (err = dev_dump(nl, devs)))
			return err;
		if (!before.has_generation)
			return 0;
		*op = "info";
		err = info_get(nl, &after);
		if (err)
			return err;
		if (after.has_generation &&
		    after.generation == before.generation)
			return 0;
	}
	*op = "snapshot";
	nl->error.err = -EAGAIN;
	snprintf(nl->error.msg, sizeof(nl->error.msg),
		 "the state kept changing while it was read (%d attempts): try again",
		 SNAPSHOT_TRIES);
	return -EAGAIN;
}
