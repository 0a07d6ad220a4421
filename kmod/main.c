// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap: identity IOMMU mappings of peer PCI BARs, so that GPU peer-to-peer
 * DMA with raw peer bus addresses works while the IOMMU keeps translating
 * everything else.
 */
#include <linux/module.h>
#include "p2pmap.h"

DEFINE_MUTEX(p2pmap_lock);	/* serialises all state: see p2pmap.h */
u32 p2pmap_generation = 1;
bool p2pmap_dying;

/* Stop reacting to events and undo every mapping, under the lock. */
static void p2pmap_teardown_mappings(void)
{
	mutex_lock(&p2pmap_lock);
	p2pmap_dying = true;
	p2pmap_links_destroy_all();
	p2pmap_ranges_release_locked();	/* range.c: which domains, and why */
	mutex_unlock(&p2pmap_lock);
}

/* After the notifier is gone: nothing can add a device any more. */
static void p2pmap_forget_devices(void)
{
	mutex_lock(&p2pmap_lock);
	p2pmap_dev_untrack_all();
	mutex_unlock(&p2pmap_lock);
}

static int __init p2pmap_init(void)
{
	int err;

	/* Bad parameters are skipped and reported, never fatal. */
	p2pmap_policy_init();
	p2pmap_reserve_param_check();
	err = p2pmap_faults_init();
	if (err)
		return err;
	err = p2pmap_sysfs_init();
	if (err)
		goto err_faults;
	p2pmap_links_param_apply();
	err = p2pmap_notifier_register();
	if (err)
		goto err_links;
	/* Nobody can talk to us before the registry is complete. */
	err = p2pmap_genl_register();
	if (err)
		goto err_notifier;
	p2pmap_fault_sources_register();
	pr_info("loaded, version %s\n", P2PMAP_VERSION);
	return 0;

err_notifier:
	p2pmap_teardown_mappings();
	p2pmap_notifier_unregister();
	p2pmap_forget_devices();
	goto err_sysfs;
err_links:
	mutex_lock(&p2pmap_lock);
	p2pmap_links_destroy_all();
	mutex_unlock(&p2pmap_lock);
err_sysfs:
	p2pmap_sysfs_exit();
err_faults:
	p2pmap_faults_exit();
	return err;
}

/* The reverse of init: fault sources first, the registry last. */
static void __exit p2pmap_exit(void)
{
	p2pmap_fault_sources_unregister();
	p2pmap_genl_unregister();
	p2pmap_teardown_mappings();
	p2pmap_notifier_unregister();
	p2pmap_forget_devices();
	p2pmap_sysfs_exit();
	p2pmap_faults_exit();
	pr_info("unloaded\n");
}

module_init(p2pmap_init);
module_exit(p2pmap_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(P2PMAP_VERSION);
MODULE_DESCRIPTION("Identity IOMMU mappings of peer PCI BARs for P2P DMA");
