// SPDX-License-Identifier: GPL-2.0
/*
 * The lookup tables the fault probes use in interrupt context: tracked
 * devices by struct device and by requester id, and memory BARs by address.
 * Rebuilt under p2pmap_lock whenever devices come, go, bind or unbind, and
 * published with RCU; probes never take a lock.
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include "p2pmap.h"

struct p2pmap_index_dev {
	const struct device *dev;
	u16 sid;			/* bus << 8 | devfn */
	bool sid_shared;		/* another PCI segment has it too */
	struct p2pmap_dev *pd;
};

struct p2pmap_index_bar {
	u64 lo, hi;			/* bus addresses, inclusive */
	struct p2pmap_dev *pd;
};

struct p2pmap_fault_index {
	struct rcu_head rcu;
	unsigned int ndevs, nbars;
	struct p2pmap_index_dev *devs;
	struct p2pmap_index_bar *bars;	/* sorted by lo */
};

static struct p2pmap_fault_index __rcu *p2pmap_index;

static int p2pmap_bar_cmp(const void *a, const void *b)
{
	const struct p2pmap_index_bar *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Memory BARs as assigned now, bound or not: a fault into an unbound
 * target is still a fault into that target.
 */
static unsigned int p2pmap_index_bars(struct p2pmap_dev *pd,
				      struct p2pmap_index_bar *out)
{
	struct pci_dev *pdev = pd->pdev;
	unsigned int i, n = 0;

	for (i = 0; i < PCI_STD_NUM_BARS; i++) {
		unsigned long fl = pci_resource_flags(pdev, i);

		if (!(fl & IORESOURCE_MEM) ||
		    (fl & (IORESOURCE_UNSET | IORESOURCE_DISABLED)) ||
		    !pci_resource_len(pdev, i) || !pdev->resource[i].parent)
			continue;
		out[n].lo = pci_bus_address(pdev, i);
		out[n].hi = out[n].lo + pci_resource_len(pdev, i) - 1;
		out[n].pd = pd;
		n++;
	}
	return n;
}

void p2pmap_fault_index_free(void)
{
	struct p2pmap_fault_index *old;

	old = rcu_replace_pointer(p2pmap_index, NULL, true);
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * VT-d fault lines name bus, device and function, not the PCI segment: a
 * requester id that a device of another segment has too (tracked or not)
 * says nothing about which one faulted.  Decided once, when @dev is
 * tracked (every PCI function, O(functions)), and a device tracked later
 * in another segment with the same id marks the earlier one too; the
 * index rebuild only copies the flag.
 */
void p2pmap_fault_sid_note(struct p2pmap_dev *dev)
{
	struct pci_dev *pdev = dev->pdev, *other = NULL;
	int seg = pci_domain_nr(pdev->bus);
	struct p2pmap_dev *d;

	lockdep_assert_held(&p2pmap_lock);
	for_each_pci_dev(other) {
		if (pci_domain_nr(other->bus) != seg &&
		    other->bus->number == pdev->bus->number &&
		    other->devfn == pdev->devfn) {
			dev->sid_shared = true;
			pci_dev_put(other);
			break;
		}
	}
	list_for_each_entry(d, &p2pmap_devs, node)
		if (pci_domain_nr(d->pdev->bus) != seg &&
		    d->pdev->bus->number == pdev->bus->number &&
		    d->pdev->devfn == pdev->devfn) {
			d->sid_shared = true;
			dev->sid_shared = true;
		}
}

void p2pmap_fault_index_rebuild(void)
{
	struct p2pmap_fault_index *idx, *old;
	unsigned int n = 0;
	struct p2pmap_dev *pd;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(pd, &p2pmap_devs, node)
		n++;
	idx = kzalloc(sizeof(*idx) + n * sizeof(*idx->devs) +
		      n * PCI_STD_NUM_BARS * sizeof(*idx->bars), GFP_KERNEL);
	if (!idx) {
		/* The old index may name a device about to be freed. */
		pr_warn_ratelimited("fault index: out of memory, faults not counted\n");
		p2pmap_fault_index_free();
		return;
	}
	idx->devs = (void *)(idx + 1);
	idx->bars = (void *)(idx->devs + n);
	list_for_each_entry(pd, &p2pmap_devs, node) {
		struct p2pmap_index_dev *d = &idx->devs[idx->ndevs++];

		d->dev = &pd->pdev->dev;
		d->sid = PCI_DEVID(pd->pdev->bus->number, pd->pdev->devfn);
		d->sid_shared = pd->sid_shared;
		d->pd = pd;
		idx->nbars += p2pmap_index_bars(pd, idx->bars + idx->nbars);
	}
	sort(idx->bars, idx->nbars, sizeof(*idx->bars), p2pmap_bar_cmp, NULL);

	old = rcu_replace_pointer(p2pmap_index, idx,
				  lockdep_is_held(&p2pmap_lock));
	if (old)
		kfree_rcu(old, rcu);
}

/* The lookups: call under rcu_read_lock(); NULL if not tracked. */
struct p2pmap_dev *p2pmap_fault_index_dev(const struct device *dev)
{
	struct p2pmap_fault_index *idx = rcu_dereference(p2pmap_index);
	unsigned int i;

	for (i = 0; idx && i < idx->ndevs; i++)
		if (idx->devs[i].dev == dev)
			return idx->devs[i].pd;
	return NULL;
}

struct p2pmap_dev *p2pmap_fault_index_addr(const char *addr)
{
	struct p2pmap_fault_index *idx = rcu_dereference(p2pmap_index);
	unsigned int i;

	for (i = 0; idx && i < idx->ndevs; i++)
		if (!strcmp(idx->devs[i].pd->addr, addr))
			return idx->devs[i].pd;
	return NULL;
}

/* By requester id; NULL also when another PCI segment has it too. */
struct p2pmap_dev *p2pmap_fault_index_sid(u16 sid)
{
	struct p2pmap_fault_index *idx = rcu_dereference(p2pmap_index);
	struct p2pmap_dev *found = NULL;
	unsigned int i;

	for (i = 0; idx && i < idx->ndevs; i++) {
		if (idx->devs[i].sid != sid)
			continue;
		if (found || idx->devs[i].sid_shared)
			return NULL;
		found = idx->devs[i].pd;
	}
	return found;
}

struct p2pmap_dev *p2pmap_fault_index_bar(u64 addr)
{
	struct p2pmap_fault_index *idx = rcu_dereference(p2pmap_index);
	unsigned int lo = 0, hi;

	if (!idx)
		return NULL;
	hi = idx->nbars;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct p2pmap_index_bar *b = &idx->bars[mid];

		if (addr < b->lo)
			hi = mid;
		else if (addr > b->hi)
			lo = mid + 1;
		else
			return b->pd;
	}
	return NULL;
}
