// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for user/host/pci_scan.c, on a fake sysfs: a device whose
 * files vanish while libpci reads it (what a hot-removal looks like) must
 * not end the process (libpci's own error handler exits).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pci_scan.h"
#include "tap.h"

static char root[64];

static void put(const char *dev, const char *file, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/%s", root, dev);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/devices/%s/%s", root, dev, file);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void unput(const char *dev, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/devices/%s/%s", root, dev, file);
	unlink(path);
}

static void fake_device(const char *dev)
{
	put(dev, "vendor", "0x1234\n");
	put(dev, "device", "0x11e8\n");
	put(dev, "class", "0x00ff00\n");
	put(dev, "irq", "0\n");
	put(dev, "resource", "0x00000000fea00000 0x00000000feafffff 0x0000000000040200\n");
}

struct seen {
	int calls, devices, heal_after;
};

/* Reads every device's identity; heals the tree after HEAL_AFTER calls. */
static int count_devices(struct pci_access *pacc, void *arg)
{
	struct seen *s = arg;
	struct pci_dev *d;

	s->calls++;
	s->devices = 0;
	if (s->heal_after && s->calls > s->heal_after)
		put("0000:00:11.0", "vendor", "0x1234\n");
	for (d = pacc->devices; d; d = d->next) {
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_BASES);
		if (d->vendor_id == 0x1234)
			s->devices++;
	}
	return 0;
}

int main(void)
{
	struct seen s = { 0 };
	char why[256] = "", path[128];
	int err;

	snprintf(root, sizeof(root), "/tmp/p2pmap-pci-scan.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	snprintf(path, sizeof(path), "%s/devices", root);
	mkdir(path, 0755);
	fake_device("0000:00:10.0");
	fake_device("0000:00:11.0");

	err = pci_scan_guarded(root, count_devices, &s, why, sizeof(why));
	if (!tap_ok(err == 0 && s.devices == 2 && s.calls == 1,
		    "a steady tree: both devices read in one try"))
		printf("# err %d devices %d calls %d why \"%s\"\n", err,
		       s.devices, s.calls, why);

	/* 00:11.0 is being removed: its vendor file has gone. */
	unput("0000:00:11.0", "vendor");
	memset(&s, 0, sizeof(s));
	err = pci_scan_guarded(root, count_devices, &s, why, sizeof(why));
	if (!tap_ok(err == -EAGAIN && s.calls == PCI_SCAN_TRIES,
		    "a device that keeps vanishing: -EAGAIN after %d tries, the process lives on",
		    PCI_SCAN_TRIES))
		printf("# err %d calls %d\n", err, s.calls);
	if (!tap_ok(strstr(why, "vendor") != NULL,
		    "the reason names the file that went (\"%s\")", why))
		printf("# why \"%s\"\n", why);

	/* It is back (or fully gone) by the second try. */
	memset(&s, 0, sizeof(s));
	s.heal_after = 1;
	err = pci_scan_guarded(root, count_devices, &s, why, sizeof(why));
	if (!tap_ok(err == 0 && s.calls == 2 && s.devices == 2,
		    "a device that vanished once: read again on the second try"))
		printf("# err %d calls %d devices %d\n", err, s.calls,
		       s.devices);

	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	if (system(path))
		return 1;
	return tap_done();
}
