// SPDX-License-Identifier: GPL-2.0
/*
 * Fault source 3, for AMD-Vi: the IO page fault lines its driver logs,
 * seen through the printk console probe (fault_console.c, which also
 * decides whether a line may come from the driver at all).  In 6.12's
 * drivers/iommu/amd/iommu.c (pr_fmt and dev_fmt "AMD-Vi: "),
 * amd_iommu_report_page_fault() prints, for a device it manages and
 * behind that device's own rate limit (dev_data->rs),
 *	pci_err(pdev, "Event logged [IO_PAGE_FAULT domain=0x%04x "
 *		"address=0x%llx flags=0x%04x]\n", ...)
 * (one string there), which reaches the probe with __dev_printk()'s
 * "DRIVER DEVICE: " in front ("pci DEVICE: " while no driver is bound):
 *	nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT
 *		domain=0x000b address=0xfe900000 flags=0x0020]
 * (one line), and for a device it does not know (no pci_dev, or no IOMMU
 * data of its own), behind one global rate limit,
 *	pr_err_ratelimited("Event logged [IO_PAGE_FAULT "
 *		"device=%04x:%02x:%02x.%x domain=0x%04x address=0x%llx "
 *		"flags=0x%04x]\n", segment, bus, slot, function, ...)
 * i.e. "AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:41:00.0 ...]".
 * Counts from these lines alone are lower bounds.  For a DMA fault
 * (EVENT_FLAG_I clear) of a managed device the driver calls
 * report_iommu_fault(), the io_page_fault tracepoint, just before the
 * first form: fault.c counts such a fault once.  Write or read is the
 * event's EVENT_FLAG_RW bit, as the driver's IS_WRITE_REQUEST() decodes it.
 *
 * Impossible lines are dropped, never attributed: address 0 (the DMA API
 * never hands out IOVA page 0 and no BAR sits there) and a PCI host bridge
 * (class 0x0600) as the faulting device.  QEMU 11.1's amd-iommu logs its
 * events with address 0 and names every device behind a root port
 * 00:00.0, the host bridge.  They are only counted, in
 * p2pmap_fault_amdvi_rejected() ("info": fault-log-dropped).
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/string.h>
#include "p2pmap.h"

bool p2pmap_amdvi_log = true;
module_param_cb(amdvi_log, &p2pmap_param_ops_bool, &p2pmap_amdvi_log, 0444);
MODULE_PARM_DESC(amdvi_log,
		 "count AMD-Vi faults from the kernel's AMD-Vi fault log too (lower bounds where the tracepoint does not see them)");

#define P2PMAP_AMDVI_MARK	"AMD-Vi: Event logged [IO_PAGE_FAULT "
#define P2PMAP_AMDVI_RW		0x020	/* EVENT_FLAG_RW, amd_iommu_types.h */
#define P2PMAP_AMDVI_LINE	192

static atomic64_t p2pmap_amdvi_rejected;

/* AMD-Vi fault lines dropped as impossible (address 0, a host bridge). */
u64 p2pmap_fault_amdvi_rejected(void)
{
	return atomic64_read(&p2pmap_amdvi_rejected);
}

/*
 * @line (NUL-terminated, cut up here): the faulting device's address
 * ("DDDD:BB:DD.F" as dev_name() and p2pmap write it) into @dev, the fault
 * address and direction.  0, or -EINVAL if it is not an IO page fault line.
 */
static int p2pmap_amdvi_parse(char *line, char *dev, u64 *addr, bool *write)
{
	unsigned int seg, bus, slot, fn, domain, flags;
	char *mark = strstr(line, P2PMAP_AMDVI_MARK);
	char *rest, *name;
	int n = 0;

	if (!mark)
		return -EINVAL;
	rest = mark + strlen(P2PMAP_AMDVI_MARK);
	if (mark == line) {
		/* The form for a device the driver does not know. */
		if (sscanf(rest, "device=%x:%x:%x.%x domain=0x%x address=0x%llx flags=0x%x]%n",
			   &seg, &bus, &slot, &fn, &domain, addr, &flags,
			   &n) != 7 || !n || rest[n])
			return -EINVAL;
		if (seg > 0xffff || bus > 0xff || slot > 0x1f || fn > 7)
			return -EINVAL;
		snprintf(dev, P2PMAP_ADDR_LEN, "%04x:%02x:%02x.%x", seg, bus,
			 slot, fn);
	} else {
		/* "DRIVER DEVICE: " and nothing else before the mark. */
		if (mark - line < 4 || mark[-2] != ':' || mark[-1] != ' ')
			return -EINVAL;
		mark[-2] = '\0';
		name = strchr(line, ' ');
		if (!name || name == line || !name[1] ||
		    strchr(name + 1, ' ') ||
		    strscpy(dev, name + 1, P2PMAP_ADDR_LEN) < 0)
			return -EINVAL;
		if (sscanf(rest, "domain=0x%x address=0x%llx flags=0x%x]%n",
			   &domain, addr, &flags, &n) != 3 || !n || rest[n])
			return -EINVAL;
	}
	*write = flags & P2PMAP_AMDVI_RW;
	return 0;
}

/* A console line (@len bytes, not NUL-terminated): count it if it is one. */
void p2pmap_fault_amdvi_line(const char *text, size_t len)
{
	char line[P2PMAP_AMDVI_LINE], dev[P2PMAP_ADDR_LEN];
	struct p2pmap_dev *init;
	bool write;
	u64 addr;

	len = min(len, sizeof(line) - 1);
	if (!strnstr(text, P2PMAP_AMDVI_MARK, len))
		return;
	memcpy(line, text, len);
	line[len] = '\0';
	if (p2pmap_amdvi_parse(line, dev, &addr, &write))
		return;
	if (!addr) {
		atomic64_inc(&p2pmap_amdvi_rejected);
		return;
	}
	rcu_read_lock();
	init = p2pmap_fault_index_addr(dev);
	if (init && init->host_bridge) {
		atomic64_inc(&p2pmap_amdvi_rejected);
	} else if (init) {
		/* Counted once if the tracepoint saw it too: see fault.c. */
		if (p2pmap_fault_tp_claim(init, addr, write))
			p2pmap_fault_mark(init, addr,
					  P2PMAP_FAULT_SRC_AMDVI_LOG);
		else
			p2pmap_fault_account(init, addr, write,
					     P2PMAP_FAULT_SRC_AMDVI_LOG);
	}
	rcu_read_unlock();
}
