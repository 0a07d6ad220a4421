// SPDX-License-Identifier: GPL-2.0
/* Must always build: if it does not, the probe flags are wrong. */
#include <linux/module.h>
#include <linux/pci.h>

static int __maybe_unused p2pmap_probe(struct pci_dev *pdev)
{
	return pci_domain_nr(pdev->bus);
}
