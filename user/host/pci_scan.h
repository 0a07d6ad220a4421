/* SPDX-License-Identifier: GPL-2.0 */
#ifndef P2PMAP_PCI_SCAN_H
#define P2PMAP_PCI_SCAN_H

#include <stddef.h>
#include <pci/pci.h>

/* Reads libpci's device list; 0 or a negative errno.  Called again on a retry. */
typedef int (*pci_scan_fn)(struct pci_access *pacc, void *arg);

#define PCI_SCAN_TRIES	5

/*
 * pci_scan_guarded(SYSFS, FN, ARG, WHY, LEN): scans the PCI bus with libpci
 * (SYSFS: another sysfs root than /sys/bus/pci, for tests; NULL for the
 * real one) and calls FN on it.  libpci ends the process when a sysfs file
 * it must read has gone, which is what a device being removed while it is
 * read looks like: here that abandons the scan and starts a new one, up to
 * PCI_SCAN_TRIES times.  Returns 0, FN's error, -EAGAIN when the devices
 * kept changing, or -ENODEV when libpci found no way to read the bus (WHY:
 * libpci's last message for the last two).
 */
int pci_scan_guarded(const char *sysfs, pci_scan_fn fn, void *arg,
		     char *why, size_t len);

#endif
