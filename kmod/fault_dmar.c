// SPDX-License-Identifier: GPL-2.0
/*
 * Fault source 2, for Intel VT-d, which fires no io_page_fault tracepoint:
 * the DMA fault lines the VT-d driver logs,
 *	DMAR: [DMA Read NO_PASID] Request device [00:13.0] fault addr 0x... ...
 * seen through the printk "console" tracepoint (every stored message passes
 * it).  That tracepoint is not exported to modules, so it is looked up by
 * name.  The VT-d driver logs a fault only when its log rate limit (10
 * lines per 5 s) lets it through and clears the others unread: these counts
 * are lower bounds, and are marked so.
 */
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/tracepoint.h>
#include "p2pmap.h"

static bool dmar_log = true;
module_param_cb(dmar_log, &p2pmap_param_ops_bool, &dmar_log, 0444);
MODULE_PARM_DESC(dmar_log,
		 "count VT-d faults from the kernel's DMAR fault log (lower bounds)");

#define P2PMAP_DMAR_PREFIX	"DMAR: [DMA "

static struct tracepoint *p2pmap_console_tp;

/*
 * "DMAR: [DMA Read NO_PASID] Request device [bb:dd.f] fault addr 0xADDR"
 * (or "... PASID 0x5] ...").  7.x prints the PCI segment too:
 * "[ssss:bb:dd.f]"; the segment is ignored, as 6.x does not print it.
 * Returns 0 and fills the fields, or -EINVAL.
 */
static int p2pmap_dmar_parse(const char *line, bool *write, u16 *sid,
			     u64 *addr)
{
	unsigned int seg, bus, dev, fn;
	const char *p;

	if (strncmp(line, P2PMAP_DMAR_PREFIX, strlen(P2PMAP_DMAR_PREFIX)))
		return -EINVAL;
	p = line + strlen(P2PMAP_DMAR_PREFIX);
	if (!strncmp(p, "Write", 5))
		*write = true;
	else if (!strncmp(p, "Read", 4))
		*write = false;
	else
		return -EINVAL;
	p = strstr(p, "Request device [");
	if (!p)
		return -EINVAL;
	p += strlen("Request device [");
	if (sscanf(p, "%x:%x:%x.%x] fault addr %llx",
		   &seg, &bus, &dev, &fn, addr) != 5 &&
	    sscanf(p, "%x:%x.%x] fault addr %llx", &bus, &dev, &fn, addr) != 4)
		return -EINVAL;
	if (bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	*sid = PCI_DEVID(bus, PCI_DEVFN(dev, fn));
	return 0;
}

static void p2pmap_console_probe(void *data, const char *text, size_t len)
{
	char line[128];
	struct p2pmap_dev *init;
	bool write;
	u16 sid;
	u64 addr;

	if (in_nmi() || len < strlen(P2PMAP_DMAR_PREFIX) ||
	    strncmp(text, P2PMAP_DMAR_PREFIX, strlen(P2PMAP_DMAR_PREFIX)))
		return;
	len = min(len, sizeof(line) - 1);
	memcpy(line, text, len);
	line[len] = '\0';
	if (p2pmap_dmar_parse(line, &write, &sid, &addr))
		return;
	rcu_read_lock();
	init = p2pmap_fault_index_sid(sid);
	if (init)
		p2pmap_fault_account(init, addr, write, P2PMAP_FAULT_SRC_DMAR);
	rcu_read_unlock();
}

static void p2pmap_find_console_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "console"))
		p2pmap_console_tp = tp;
}

int p2pmap_fault_dmar_register(void)
{
	int err;

	if (!dmar_log)
		return -EPERM;
	for_each_kernel_tracepoint(p2pmap_find_console_tp, NULL);
	if (!p2pmap_console_tp) {
		pr_info("printk console tracepoint not found: no VT-d fault counts\n");
		return -ENOENT;
	}
	err = tracepoint_probe_register(p2pmap_console_tp,
					p2pmap_console_probe, NULL);
	if (err)
		pr_info("VT-d fault log probe unavailable (%d)\n", err);
	return err;
}

void p2pmap_fault_dmar_unregister(void)
{
	tracepoint_probe_unregister(p2pmap_console_tp, p2pmap_console_probe,
				    NULL);
	tracepoint_synchronize_unregister();
}
