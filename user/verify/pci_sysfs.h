/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A PCI device's sysfs attributes as verify reads them: its link
 * (pcie_link.h) and its identity (bw_reference.h), from
 * /sys/bus/pci/devices/DDDD:BB:DD.F/NAME.
 */
#ifndef P2PMAP_PCI_SYSFS_H
#define P2PMAP_PCI_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

/* For tests only: a directory standing for /sys/bus/pci/devices. */
#define PCI_SYSFS_DIR_ENV	"P2PMAP_VERIFY_PCI_DIR"

/* The first line of @pci's attribute @name into @buf; false: unreadable. */
bool pci_sysfs_read(const char *pci, const char *name, char *buf, size_t len);

/* @pci's vendor and device IDs ("0x10de"); false when unreadable. */
bool pci_sysfs_id(const char *pci, unsigned int *vendor, unsigned int *device);

#endif /* P2PMAP_PCI_SYSFS_H */
