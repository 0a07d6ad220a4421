// SPDX-License-Identifier: GPL-2.0
/* Multicast groups that only CAP_NET_ADMIN may join (6.7, some 6.1.y). */
#include <net/genetlink.h>

static const struct genl_multicast_group p2pmap_probe_grp __maybe_unused = {
	.name = "probe",
	.flags = GENL_MCAST_CAP_NET_ADMIN,
};
