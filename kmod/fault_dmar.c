// SPDX-License-Identifier: GPL-2.0
/*
 * Fault source 2, for Intel VT-d, which fires no io_page_fault tracepoint:
 * the DMA fault lines the VT-d driver logs,
 *	DMAR: [DMA Read NO_PASID] Request device [00:13.0] fault addr 0x... ...
 * seen through the printk console probe (fault_console.c, which also
 * decides whether a line may come from the driver at all).  The VT-d
 * driver logs a fault only when its log rate limit (10 lines per 5 s) lets
 * it through and clears the others unread: these counts are lower bounds,
 * and are marked so.
 */
#include <linux/module.h>
#include "p2pmap.h"

bool p2pmap_dmar_log = true;
module_param_cb(dmar_log, &p2pmap_param_ops_bool, &p2pmap_dmar_log, 0444);
MODULE_PARM_DESC(dmar_log,
		 "count VT-d faults from the kernel's DMAR fault log (lower bounds)");

#define P2PMAP_DMAR_PREFIX	"DMAR: [DMA "

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

/* A console line (@len bytes, not NUL-terminated): count it if it is one. */
void p2pmap_fault_dmar_line(const char *text, size_t len)
{
	char line[128];
	struct p2pmap_dev *init;
	bool write;
	u16 sid;
	u64 addr;

	if (len < strlen(P2PMAP_DMAR_PREFIX) ||
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
