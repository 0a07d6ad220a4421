// SPDX-License-Identifier: GPL-2.0
/*
 * Fault source 1: the io_page_fault tracepoint, fired by
 * report_iommu_fault().  AMD-Vi reports every DMA fault there, before its
 * log rate limit, so these counts are exact.
 */
#include <linux/tracepoint.h>
#include <trace/events/iommu.h>
#include "p2pmap.h"

static void p2pmap_io_page_fault(void *data, struct device *dev,
				 unsigned long iova, int flags)
{
	struct p2pmap_dev *init;

	if (!dev)
		return;
	rcu_read_lock();
	init = p2pmap_fault_index_dev(dev);
	if (init)
		p2pmap_fault_account(init, iova, flags & IOMMU_FAULT_WRITE,
				     P2PMAP_FAULT_SRC_TRACEPOINT);
	rcu_read_unlock();
}

int p2pmap_fault_tp_register(void)
{
	int err = register_trace_io_page_fault(p2pmap_io_page_fault, NULL);

	if (err)
		pr_warn("io_page_fault tracepoint unavailable (%d): no exact fault counts\n",
			err);
	return err;
}

void p2pmap_fault_tp_unregister(void)
{
	unregister_trace_io_page_fault(p2pmap_io_page_fault, NULL);
	tracepoint_synchronize_unregister();
}
