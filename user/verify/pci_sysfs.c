// SPDX-License-Identifier: GPL-2.0
/* A PCI device's sysfs attributes (pci_sysfs.h). */
#include <stdio.h>
#include <stdlib.h>

#include "pci_sysfs.h"

bool pci_sysfs_read(const char *pci, const char *name, char *buf, size_t len)
{
	const char *dir = getenv(PCI_SYSFS_DIR_ENV);
	char path[512];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s/%s",
		 dir && *dir ? dir : "/sys/bus/pci/devices", pci, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f);
	fclose(f);
	return ok;
}

/* A hex ID as sysfs writes it ("0x10de\n"), at most 16 bits. */
static bool read_id(const char *pci, const char *name, unsigned int *id)
{
	char buf[32], *end;
	unsigned long v;

	if (!pci_sysfs_read(pci, name, buf, sizeof(buf)))
		return false;
	v = strtoul(buf, &end, 16);
	if (end == buf || (*end && *end != '\n') || v > 0xffff)
		return false;
	*id = (unsigned int)v;
	return true;
}

bool pci_sysfs_id(const char *pci, unsigned int *vendor, unsigned int *device)
{
	return read_id(pci, "vendor", vendor) && read_id(pci, "device", device);
}
