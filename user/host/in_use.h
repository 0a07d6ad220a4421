/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a GPU in use?  The processes that hold one of its BARs through sysfs
 * (an open or mapped /sys/.../resourceN), or its NVIDIA device node
 * (/dev/nvidiaN, N from /proc/driver/nvidia/gpus/ADDR/information): what a
 * CUDA process or a user-space driver keeps while it can DMA.
 */
#ifndef P2PMAP_IN_USE_H
#define P2PMAP_IN_USE_H

#include <stddef.h>

struct in_use {
	int pid;
	char comm[32];
	char what[160];		/* the file it holds */
};

/*
 * Fill @out (up to @max) with the holders of PCI device @addr; @root
 * ("" for the live system) is where /proc, /sys and /dev are read.
 * Returns how many were found (it may be more than @max).
 */
size_t in_use_scan(const char *root, const char *addr, struct in_use *out,
		   size_t max);

/*
 * Say on stderr which processes hold @a or @b (the GPUs of a link @op
 * would unmap: "link del"); returns how many.
 */
size_t in_use_say(const char *a, const char *b, const char *op);

#endif /* P2PMAP_IN_USE_H */
