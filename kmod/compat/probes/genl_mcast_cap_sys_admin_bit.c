// SPDX-License-Identifier: GPL-2.0
/* Older stable kernels: a cap_sys_admin bit instead of flags. */
#include <net/genetlink.h>

static const struct genl_multicast_group p2pmap_probe_grp __maybe_unused = {
	.name = "probe",
	.cap_sys_admin = 1,
};
