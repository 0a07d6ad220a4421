// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap list [--all] [--gpus] [--driver NAME] [-d VENDOR[:DEVICE]]: PCI
 * functions from libpci, marked when tracked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pci/pci.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "dev.h"
#include "dev_filter.h"
#include "format.h"
#include "format_json.h"
#include "pci_scan.h"

#define LIST_FILL	(PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES | \
			 PCI_FILL_SIZES | PCI_FILL_NUMA_NODE | \
			 PCI_FILL_IOMMU_GROUP | LIST_FILL_DRIVER)
#ifdef PCI_FILL_DRIVER
#define LIST_FILL_DRIVER PCI_FILL_DRIVER
#else
#define LIST_FILL_DRIVER 0
#endif

/* /sys/kernel/iommu_groups/<group>/type: "DMA", "DMA-FQ", "identity", ... */
static void read_group_type(int group, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = '\0';
	if (group < 0)
		return;
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%d/type", group);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void read_driver(struct pci_dev *d, char *buf, size_t len)
{
	const char *drv = NULL;

#ifdef PCI_FILL_DRIVER
	drv = pci_get_string_property(d, PCI_FILL_DRIVER);
#else
	(void)d;
#endif
	snprintf(buf, len, "%s", drv ? drv : "");
}

static void read_bars(struct pci_dev *d, struct list_entry *e)
{
	unsigned int i;

	for (i = 0; i < P2PMAP_NR_BARS; i++) {
		pciaddr_t base = d->base_addr[i];
		struct p2pmap_bar *b;

		if (!d->size[i] || (base & PCI_BASE_ADDRESS_SPACE_IO))
			continue;
		b = &e->bars[e->nbars++];
		b->index = i;
		b->start = base & PCI_ADDR_MEM_MASK;
		b->size = d->size[i];
		b->flags = 0;
		if ((base & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
		    PCI_BASE_ADDRESS_MEM_TYPE_64)
			b->flags |= P2PMAP_BAR_F_64BIT;
		if (base & PCI_BASE_ADDRESS_MEM_PREFETCH)
			b->flags |= P2PMAP_BAR_F_PREFETCH;
	}
}

static void fill_entry(struct pci_access *pacc, struct pci_dev *d,
		       struct list_entry *e)
{
	const char *group;
	int known;

	memset(e, 0, sizeof(*e));
	known = pci_fill_info(d, LIST_FILL);
	snprintf(e->addr, sizeof(e->addr), "%04x:%02x:%02x.%x",
		 d->domain & 0xffff, d->bus, d->dev & 0x1f, d->func & 7);
	e->vendor = d->vendor_id;
	e->device = d->device_id;
	e->device_class = known & PCI_FILL_CLASS ? d->device_class : 0;
	e->numa_node = known & PCI_FILL_NUMA_NODE ? d->numa_node : -1;

	group = pci_get_string_property(d, PCI_FILL_IOMMU_GROUP);
	e->iommu_group = group ? atoi(group) : -1;
	read_group_type(e->iommu_group, e->group_type, sizeof(e->group_type));
	read_driver(d, e->driver, sizeof(e->driver));

	if (!pci_lookup_name(pacc, e->name, sizeof(e->name),
			     PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE,
			     d->vendor_id, d->device_id))
		e->name[0] = '\0';
	read_bars(d, e);
}

/* The kernel's admission verdict on a tracked device. */
static void list_entry_admission(struct list_entry *e,
				 const struct p2pmap_dev *k)
{
	e->has_admitted = k->has_admitted;
	e->admitted = k->admitted;
	snprintf(e->admit_reason, sizeof(e->admit_reason), "%s",
		 k->admit_reason);
}

/*
 * A device the kernel tracks but libpci does not see (it is being removed):
 * shown from the kernel's own record, so that a stale entry is visible.
 */
static void fill_entry_from_kernel(const struct p2pmap_dev *k,
				   struct list_entry *e)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->addr, sizeof(e->addr), "%s", k->addr);
	e->vendor = k->vendor;
	e->device = k->device;
	e->device_class = k->class >> 8;
	e->numa_node = k->numa_node;
	e->iommu_group = k->iommu_group;
	read_group_type(e->iommu_group, e->group_type, sizeof(e->group_type));
	snprintf(e->driver, sizeof(e->driver), "%s", k->driver);
	snprintf(e->name, sizeof(e->name), "(tracked, not in sysfs)");
	e->tracked = LIST_TRACKED_YES;
	e->nbars = k->nbars;
	memcpy(e->bars, k->bars, sizeof(e->bars));
	list_entry_admission(e, k);
}

/* Room for one more entry; NULL on allocation failure. */
static struct list_entry *list_grow(struct list_entry **entries, size_t *n,
				    size_t *cap)
{
	struct list_entry *e;

	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		e = realloc(*entries, *cap * sizeof(**entries));
		if (!e) {
			fprintf(stderr, "p2pmap: out of memory\n");
			return NULL;
		}
		*entries = e;
	}
	return &(*entries)[(*n)++];
}

static bool list_has(const struct list_entry *entries, size_t n,
		     const char *addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(entries[i].addr, addr))
			return true;
	return false;
}

static int cmp_dev(const void *a, const void *b)
{
	const struct list_entry *x = a, *y = b;

	return strcmp(x->addr, y->addr);
}

struct list_scan {
	bool all;
	struct list_entry *entries;
	size_t n, cap;
};

/* Under pci_scan_guarded(): starts the list again on each try. */
static int list_scan_pci(struct pci_access *pacc, void *arg)
{
	struct list_scan *s = arg;
	struct list_entry *e;
	struct pci_dev *d;

	s->n = 0;
	for (d = pacc->devices; d; d = d->next) {
		if (!s->all && (pci_read_byte(d, PCI_HEADER_TYPE) & 0x7f) !=
			       PCI_HEADER_TYPE_NORMAL)
			continue;
		e = list_grow(&s->entries, &s->n, &s->cap);
		if (!e)
			return -ENOMEM;
		fill_entry(pacc, d, e);
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct p2pmap_dev_list tracked = { 0 };
	const struct p2pmap_dev *k;
	struct list_entry *entries = NULL, *e;
	struct list_scan scan = { 0 };
	struct dev_filter filter = { 0 };
	struct p2pmap_nl nl;
	char why[256];
	bool all = false, loaded = false, json = false;
	size_t n = 0, cap = 0, i, shown;
	struct cmd_getopt g;
	int ret = EXIT_OK, err, f;

	cmd_getopt_init(&g, "list", NULL, argc, argv);
	while ((f = cmd_getopt_next(&g)) > 0) {
		f = dev_filter_opt(&filter, g.opt->name, g.arg, "list");
		if (f < 0)
			return EXIT_USAGE;
		if (f)
			continue;
		if (cmd_opt_is(&g, "--all"))
			all = true;
		else if (cmd_opt_is(&g, "--json"))
			json = true;
		else
			return cmd_getopt_refuse(&g);
	}
	if (f < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);

	/*
	 * Without the module (or its answer) the PCI devices are still
	 * listed, whole, and the exit code says what is missing.
	 */
	err = pnl_open(&nl);
	if (err == -ENOENT) {
		fprintf(stderr, "p2pmap: module not loaded; showing PCI devices only\n");
		ret = cmd_exit_nl(&nl);
	} else if (err) {
		ret = cmd_exit_nl(&nl);
	} else {
		if (dev_dump(&nl, &tracked)) {
			pnl_perror(&nl.error, "dev dump");
			ret = cmd_exit_nl(&nl);
		} else {
			loaded = true;
		}
		pnl_close(&nl);
	}

	scan.all = all;
	err = pci_scan_guarded(NULL, list_scan_pci, &scan, why, sizeof(why));
	entries = scan.entries;
	n = scan.n;
	cap = scan.cap;
	if (err == -EAGAIN) {
		fprintf(stderr, "p2pmap list: the PCI devices kept changing while they were read (%d tries, last: %s); try again\n",
			PCI_SCAN_TRIES, why);
		ret = EXIT_FAILED;
		goto out;
	} else if (err) {
		fprintf(stderr, "p2pmap list: cannot read the PCI devices: %s\n",
			err == -ENODEV ? why : strerror(-err));
		ret = EXIT_FAILED;
		goto out;
	}
	for (i = 0; i < n; i++) {
		e = &entries[i];
		if (!loaded) {
			e->tracked = LIST_TRACKED_UNKNOWN;
		} else if ((k = dev_list_find(&tracked, e->addr))) {
			e->tracked = LIST_TRACKED_YES;
			list_entry_admission(e, k);
		} else {
			e->tracked = LIST_TRACKED_NO;
		}
	}

	for (i = 0; i < tracked.n; i++) {
		if (list_has(entries, n, tracked.devs[i].addr))
			continue;
		e = list_grow(&entries, &n, &cap);
		if (!e) {
			ret = EXIT_FAILED;
			goto out;
		}
		fill_entry_from_kernel(&tracked.devs[i], e);
	}

	/* The filters drop entries; the order of the rest stays. */
	for (i = 0, shown = 0; i < n; i++)
		if (dev_filter_match(&filter, entries[i].vendor,
				     entries[i].device, entries[i].device_class,
				     entries[i].driver))
			entries[shown++] = entries[i];
	n = shown;
	qsort(entries, n, sizeof(*entries), cmp_dev);
	if (json) {
		json_list(stdout, entries, n);
		goto out;
	}
	format_list_header(stdout);
	for (i = 0; i < n; i++)
		format_list_entry(stdout, &entries[i]);
out:
	free(entries);
	dev_list_free(&tracked);
	return ret;
}
