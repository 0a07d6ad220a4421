// SPDX-License-Identifier: GPL-2.0
/*
 * Fault source 1: the io_page_fault tracepoint, fired by
 * report_iommu_fault().  AMD-Vi reports every DMA fault there, before its
 * log rate limit, so these counts are exact.  Each fault is also noted for
 * the AMD-Vi log line that follows it (fault.c: counted once).
 */
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <trace/events/iommu.h>
#include "p2pmap.h"

#ifdef P2PMAP_DEBUG
static bool debug_no_tracepoint;
module_param_cb(debug_no_tracepoint, &p2pmap_param_ops_bool,
		&debug_no_tracepoint, 0644);
MODULE_PARM_DESC(debug_no_tracepoint,
		 "DEBUG BUILDS ONLY: ignore the io_page_fault tracepoint, as if AMD-Vi no longer called report_iommu_fault() (its faults then come from the log alone)");
#else
#define debug_no_tracepoint false
#endif

static void p2pmap_io_page_fault(void *data, struct device *dev,
				 unsigned long iova, int flags)
{
	bool write = flags & IOMMU_FAULT_WRITE;
	struct p2pmap_dev *init;

	if (!dev || debug_no_tracepoint)
		return;
	rcu_read_lock();
	init = p2pmap_fault_index_dev(dev);
	if (init) {
		p2pmap_fault_account(init, iova, write,
				     P2PMAP_FAULT_SRC_TRACEPOINT);
		p2pmap_fault_tp_note(init, iova, write);
	}
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
