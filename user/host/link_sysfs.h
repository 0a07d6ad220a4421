/* SPDX-License-Identifier: GPL-2.0 */
/*
 * link_sysfs: what /sys says about p2pmap's links and the PCI tree, read
 * under a root directory (tests give a fixture tree; the host gives "/").
 */
#ifndef P2PMAP_LINK_SYSFS_H
#define P2PMAP_LINK_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* @path's first line, without its newline; 0 or -errno (@buf "" then). */
int sysfs_read_line(const char *path, char *buf, size_t len);

/* Is p2pmap loaded (ROOT/sys/kernel/p2pmap exists)? */
bool link_sysfs_loaded(const char *root);

struct link_sysfs {
	bool exists;			/* the link is configured */
	char state[32];			/* "mapped", "pending", ... */
	char reason[160];
	bool has_faults;
	uint64_t faults;
};

/* Reads ROOT/sys/kernel/p2pmap/links/FROM-TO/. */
void link_sysfs_read(const char *root, const char *from, const char *to,
		     struct link_sysfs *l);

/*
 * The PCI root bus ("pci0000:40") above device @addr, from the target of
 * ROOT/sys/bus/pci/devices/ADDR; -1 when it cannot be read.
 */
int link_sysfs_root_bus(const char *root, const char *addr, char *buf,
			size_t len);

#endif
