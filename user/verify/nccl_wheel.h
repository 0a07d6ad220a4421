/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NCCL of NVIDIA's pip wheels (nvidia-nccl-cu12, nvidia-nccl-cu13):
 * SITE/nvidia/nccl/lib/libnccl.so.2 in the site-packages of the
 * inference server's Python, which nothing puts on the library path.
 * "p2pmap verify --collective" looks there when --nccl, $P2PMAP_NCCL
 * and the library path have none (collective.h).  Files are read only:
 * no interpreter or script is ever run (nccl_wheel.c says why).
 */
#ifndef P2PMAP_VERIFY_NCCL_WHEEL_H
#define P2PMAP_VERIFY_NCCL_WHEEL_H

#include <limits.h>

/* For tests: the directory units are read from instead of systemd's. */
#define NCCL_WHEEL_UNIT_DIR_ENV	"P2PMAP_UNIT_DIR"

struct nccl_wheel {
	char lib[PATH_MAX];		/* the library found, or "" */
	char how[PATH_MAX + 160];	/* "wheel nvidia-nccl-cu12 2.27.3 of PY" */
	char looked[4096];		/* where it looked, "; " between */
};

/*
 * Look for the wheel's library in the Python of systemd unit @unit, or
 * (NULL) in $VIRTUAL_ENV's, the python3 on $PATH's and the system's.
 * Returns 0 when found (@w->lib, @w->how), -1 when not (@w->looked).
 */
int nccl_wheel_find(const char *unit, struct nccl_wheel *w);

#endif /* P2PMAP_VERIFY_NCCL_WHEEL_H */
