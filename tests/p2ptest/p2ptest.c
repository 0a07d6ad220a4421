// SPDX-License-Identifier: GPL-2.0
/*
 * p2ptest - test-only driver for QEMU's "edu" PCI device (1234:11e8).
 *
 * It imitates a GPU driver doing peer-to-peer DMA: one edu (the initiator,
 * bound to this driver) DMAs into another edu's BAR0 (the target, bound or
 * not), with either the raw peer bus address or an IOVA obtained from
 * dma_map_resource(). Control: /sys/kernel/debug/p2ptest/ctl (write a
 * command line, read back the result of the last command).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iommu.h>
#include <linux/iova.h>
#include <linux/ktime.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mmu_context.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8
#define EDU_ID_VALUE		0x010000ed

#define EDU_REG_ID		0x00
#define EDU_REG_LIVE		0x04
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_CNT		0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_CMD_RUN		0x1
#define EDU_CMD_TO_PCI		0x2	/* edu buffer -> bus address */

#define EDU_BUF			0x40000	/* edu-internal DMA buffer */
#define EDU_XFER		4	/* bytes per DMA: peer regs are 32 bit */

#define P2P_DMA_TIMEOUT_MS	2000
#define P2P_SENTINEL		0x5a5a5a5a
#define P2P_MAX_PRESSURE	65536
#define P2P_CMD_MAX		256
#define P2P_MAX_ARGS		8
#define P2P_RESULT_MAX		2048

struct p2p_dev {
	struct list_head node;
	struct pci_dev *pdev;
	void __iomem *bar;
	u32 *staging;
	dma_addr_t staging_dma;
	struct iova *held;	/* "hold": a node not made by p2pmap */
	dma_addr_t *probe_iovas;	/* what probe_dma_mib allocated */
	unsigned int probe_n;
	struct page **small_pages;	/* what probe_small allocated */
	dma_addr_t *small_iovas;
	unsigned int small_n;
	struct iommu_domain *own_domain;	/* own_domain: attached in probe */
};

/*
 * A GPU driver allocates hundreds of MiB of DMA addresses while it boots
 * its firmware, before the driver core says BOUND_DRIVER.  This many MiB
 * are allocated at probe, as dma_map_resource() of the device's own BAR0
 * (1 MiB at a time: IOVA space without guest RAM), below 4 GiB first as
 * dma-iommu does for a PCI device, and kept until remove.  On by default:
 * every suite runs against a driver that allocates like a GPU driver.
 */
static unsigned int probe_dma_mib = 256;
module_param(probe_dma_mib, uint, 0644);
MODULE_PARM_DESC(probe_dma_mib,
		 "MiB of IOVA space to allocate at probe, like a GPU driver booting its firmware");

/*
 * A GPU driver's clients go on allocating while its remove() waits for
 * them (NVIDIA's nv_pci_remove()): with remove_peer set, remove() does
 * what "stale" does (map remove_pages pages just below the end of the
 * peer's BAR0, raw-write to the peer) after the driver core said
 * UNBIND_DRIVER, and logs "remove: peer P mapped=N overlaps=M landed=K".
 */
static char remove_peer[16];
module_param_string(remove_peer, remove_peer, sizeof(remove_peer), 0644);
MODULE_PARM_DESC(remove_peer,
		 "PCI address of a peer to allocate against and raw-write to in remove()");
static unsigned int remove_pages = 512;
module_param(remove_pages, uint, 0644);
MODULE_PARM_DESC(remove_pages, "pages remove() maps for remove_peer");

/*
 * Small buffers at probe, as a driver's rings and descriptors: this many
 * single pages mapped with dma_map_page(), with the DMA mask at
 * probe_small_below (0: the 64-bit mask), kept until remove().  Freed,
 * they wait in the IOVA allocator's per-CPU caches.
 */
static unsigned int probe_small;
module_param(probe_small, uint, 0644);
MODULE_PARM_DESC(probe_small, "single pages to map at probe");
static unsigned long long probe_small_below;
module_param(probe_small_below, ullong, 0644);
MODULE_PARM_DESC(probe_small_below,
		 "DMA mask for probe_small's pages (0: 64-bit)");

/*
 * A driver that attaches a paging domain of its own in probe (on a
 * single-device group), after BIND_DRIVER; detached in remove().
 */
static bool own_domain;
module_param(own_domain, bool, 0644);
MODULE_PARM_DESC(own_domain, "attach a domain of its own in probe");

/* A kept dma_map_resource() mapping of b's BAR0 in a's DMA domain. */
struct p2p_map {
	struct list_head node;
	struct pci_dev *a;
	struct pci_dev *b;
	phys_addr_t phys;
	size_t len;
	dma_addr_t iova;
};

static DEFINE_MUTEX(p2p_lock);		/* protects everything below */
static LIST_HEAD(p2p_devs);
static LIST_HEAD(p2p_maps);
static char p2p_result[P2P_RESULT_MAX];
static struct dentry *p2p_dir;

/* ---- edu DMA ---------------------------------------------------------- */

static bool edu_busy(struct p2p_dev *d)
{
	return readl(d->bar + EDU_REG_DMA_CMD) & EDU_CMD_RUN;
}

static int edu_wait_idle(struct p2p_dev *d)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(P2P_DMA_TIMEOUT_MS);

	while (edu_busy(d)) {
		if (time_after(jiffies, deadline))
			return edu_busy(d) ? -ETIMEDOUT : 0;
		usleep_range(5000, 6000);
	}
	return 0;
}

/* One 4-byte edu DMA; cmd is 0 (bus -> buffer) or EDU_CMD_TO_PCI. */
static int edu_dma(struct p2p_dev *d, u64 src, u64 dst, u32 cmd)
{
	int ret;

	if (edu_busy(d)) {
		pr_info("%s: DMA engine busy\n", pci_name(d->pdev));
		return -EBUSY;
	}
	writeq(src, d->bar + EDU_REG_DMA_SRC);
	writeq(dst, d->bar + EDU_REG_DMA_DST);
	writeq(EDU_XFER, d->bar + EDU_REG_DMA_CNT);
	writel(cmd | EDU_CMD_RUN, d->bar + EDU_REG_DMA_CMD);
	ret = edu_wait_idle(d);
	if (ret)
		pr_info("%s: DMA src=0x%llx dst=0x%llx cmd=%u timed out\n",
			pci_name(d->pdev), src, dst, cmd);
	rmb();	/* read staging only after seeing completion */
	return ret;
}

/* Copy a u32 from RAM into the initiator's edu buffer. */
static int edu_load(struct p2p_dev *d, u32 val)
{
	WRITE_ONCE(d->staging[0], val);
	wmb();	/* the value is in RAM before the device is told to read it */
	return edu_dma(d, d->staging_dma, EDU_BUF, 0);
}

/* Copy the first u32 of the edu buffer out to RAM. */
static int edu_store(struct p2p_dev *d, u32 *val)
{
	int ret;

	WRITE_ONCE(d->staging[0], P2P_SENTINEL);
	wmb();	/* the sentinel is in RAM before the device writes over it */
	ret = edu_dma(d, EDU_BUF, d->staging_dma, EDU_CMD_TO_PCI);
	if (!ret)
		*val = READ_ONCE(d->staging[0]);
	return ret;
}

/* ---- lookups and kept mappings --------------------------------------- */

static struct p2p_dev *p2p_find_dev(struct pci_dev *pdev)
{
	struct p2p_dev *d;

	list_for_each_entry(d, &p2p_devs, node)
		if (d->pdev == pdev)
			return d;
	return NULL;
}

static struct p2p_map *p2p_find_map(struct pci_dev *a, struct pci_dev *b)
{
	struct p2p_map *m;

	list_for_each_entry(m, &p2p_maps, node)
		if (m->a == a && m->b == b)
			return m;
	return NULL;
}

static void p2p_release_map(struct p2p_map *m)
{
	dma_unmap_resource(&m->a->dev, m->iova, m->len, DMA_BIDIRECTIONAL, 0);
	list_del(&m->node);
	pci_dev_put(m->b);
	pci_dev_put(m->a);
	kfree(m);
}

/* Drop every kept mapping made by or into pdev (NULL: all of them). */
static void p2p_release_maps(struct pci_dev *pdev)
{
	struct p2p_map *m, *tmp;

	list_for_each_entry_safe(m, tmp, &p2p_maps, node)
		if (!pdev || m->a == pdev || m->b == pdev)
			p2p_release_map(m);
}

/* ---- command parsing -------------------------------------------------- */

static struct pci_dev *p2p_get_pdev(const char *s)
{
	unsigned int dom, bus, dev, fn;
	char c;

	if (sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &c) != 4 ||
	    dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7) {
		pr_info("malformed PCI address '%s' (want DDDD:BB:DD.F)\n", s);
		return ERR_PTR(-EINVAL);
	}
	return pci_get_domain_bus_and_slot(dom, bus, PCI_DEVFN(dev, fn));
}

static int p2p_check_bar0(struct pci_dev *pdev)
{
	unsigned long flags = pci_resource_flags(pdev, 0);

	if (!(flags & IORESOURCE_MEM) || (flags & IORESOURCE_UNSET) ||
	    pci_resource_len(pdev, 0) < PAGE_SIZE) {
		pr_info("%s: BAR0 is not an assigned memory BAR\n",
			pci_name(pdev));
		return -ENODEV;
	}
	return 0;
}

/* Resolve initiator (bound to us) and target (any device, referenced). */
static int p2p_get_pair(const char *sa, const char *sb, struct p2p_dev **a,
			struct pci_dev **b)
{
	struct pci_dev *pa;
	int ret;

	pa = p2p_get_pdev(sa);
	if (IS_ERR(pa))
		return PTR_ERR(pa);
	*a = pa ? p2p_find_dev(pa) : NULL;
	pci_dev_put(pa);
	if (!*a) {
		pr_info("initiator %s is not bound to p2ptest\n", sa);
		return -ENODEV;
	}
	*b = p2p_get_pdev(sb);
	if (IS_ERR(*b))
		return PTR_ERR(*b);
	if (!*b) {
		pr_info("target %s not found\n", sb);
		return -ENODEV;
	}
	ret = p2p_check_bar0(*b);
	if (ret)
		pci_dev_put(*b);
	return ret;
}

/* Peer DMA address of b's BAR0: raw bus address or kept IOVA. */
static int p2p_peer_addr(struct p2p_dev *a, struct pci_dev *b,
			 const char *mode, u64 *addr)
{
	struct p2p_map *m;

	if (!strcmp(mode, "raw")) {
		*addr = pci_bus_address(b, 0);
		return 0;
	}
	if (strcmp(mode, "mapped")) {
		pr_info("mode '%s' is neither raw nor mapped\n", mode);
		return -EINVAL;
	}
	m = p2p_find_map(a->pdev, b);
	if (!m) {
		pr_info("no kept mapping of %s in %s\n", pci_name(b),
			pci_name(a->pdev));
		return -ENOENT;
	}
	*addr = m->iova;
	return 0;
}

/* ---- commands --------------------------------------------------------- */

static int p2p_cmd_read(struct p2p_dev *a, struct pci_dev *b, const char *mode)
{
	u64 addr;
	u32 val;
	int ret;

	if (a->pdev == b) {
		pr_info("read: initiator and target are the same device\n");
		return -EINVAL;
	}
	ret = p2p_peer_addr(a, b, mode, &addr);
	if (ret)
		return ret;
	ret = edu_load(a, 0);		/* clear the edu buffer */
	if (!ret)
		ret = edu_dma(a, addr + EDU_REG_ID, EDU_BUF, 0);
	if (!ret)
		ret = edu_store(a, &val);
	if (ret)
		return ret;
	scnprintf(p2p_result, sizeof(p2p_result), "0x%08x\n", val);
	return 0;
}

/* CPU access to the target's BAR0: its p2ptest mapping or a temporary one. */
static void __iomem *p2p_map_target(struct pci_dev *b, bool *temp)
{
	struct p2p_dev *d = p2p_find_dev(b);

	*temp = !d;
	if (d)
		return d->bar;
	return ioremap(pci_resource_start(b, 0), PAGE_SIZE);
}

static int p2p_reset_target(struct pci_dev *b, void __iomem *bbar)
{
	u32 id = readl(bbar + EDU_REG_ID);

	if (id != EDU_ID_VALUE) {
		pr_info("%s: id register reads 0x%08x from the CPU, not an edu or not decoding\n",
			pci_name(b), id);
		return -EIO;
	}
	writel(0, bbar + EDU_REG_LIVE);
	if (readl(bbar + EDU_REG_LIVE) != 0xffffffff) {
		pr_info("%s: register 0x04 did not reset\n", pci_name(b));
		return -EIO;
	}
	return 0;
}

static int p2p_do_write(struct p2p_dev *a, struct pci_dev *b,
			void __iomem *bbar, u64 addr, u32 pattern)
{
	int ret;

	ret = p2p_reset_target(b, bbar);
	if (!ret)
		ret = edu_load(a, pattern);
	if (!ret)
		ret = edu_dma(a, EDU_BUF, addr + EDU_REG_LIVE, EDU_CMD_TO_PCI);
	if (ret)
		return ret;
	scnprintf(p2p_result, sizeof(p2p_result), "0x%08x\n",
		  readl(bbar + EDU_REG_LIVE));
	return 0;
}

static int p2p_cmd_write(struct p2p_dev *a, struct pci_dev *b,
			 const char *mode, const char *spat)
{
	void __iomem *bbar;
	u32 pattern;
	bool temp;
	u64 addr;
	int ret;

	if (kstrtou32(spat, 16, &pattern)) {
		pr_info("write: malformed pattern '%s' (want hex u32)\n", spat);
		return -EINVAL;
	}
	if (a->pdev == b) {
		pr_info("write: initiator and target are the same device\n");
		return -EINVAL;
	}
	ret = p2p_peer_addr(a, b, mode, &addr);
	if (ret)
		return ret;
	bbar = p2p_map_target(b, &temp);
	if (!bbar)
		return -ENOMEM;
	ret = p2p_do_write(a, b, bbar, addr, pattern);
	if (temp)
		iounmap(bbar);
	return ret;
}

static int p2p_cmd_map(struct p2p_dev *a, struct pci_dev *b)
{
	struct p2p_map *m;

	if (p2p_find_map(a->pdev, b)) {
		pr_info("map: %s already has a kept mapping of %s\n",
			pci_name(a->pdev), pci_name(b));
		return -EEXIST;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->phys = pci_resource_start(b, 0);
	m->len = pci_resource_len(b, 0);
	m->iova = dma_map_resource(&a->pdev->dev, m->phys, m->len,
				   DMA_BIDIRECTIONAL, 0);
	if (dma_mapping_error(&a->pdev->dev, m->iova)) {
		pr_info("map: dma_map_resource failed\n");
		kfree(m);
		return -EIO;
	}
	m->a = pci_dev_get(a->pdev);
	m->b = pci_dev_get(b);
	list_add_tail(&m->node, &p2p_maps);
	scnprintf(p2p_result, sizeof(p2p_result), "0x%llx\n",
		  (unsigned long long)m->iova);
	return 0;
}

static int p2p_cmd_unmap(struct p2p_dev *a, struct pci_dev *b)
{
	struct p2p_map *m = p2p_find_map(a->pdev, b);

	if (!m) {
		pr_info("unmap: no kept mapping of %s in %s\n", pci_name(b),
			pci_name(a->pdev));
		return -ENOENT;
	}
	p2p_release_map(m);
	scnprintf(p2p_result, sizeof(p2p_result), "ok\n");
	return 0;
}

struct p2p_pressure {
	u64 start;		/* target BAR0 bus range [start, end) */
	u64 end;
	unsigned int mapped;
	unsigned int errors;
	unsigned int overlaps;
	u64 lowest;
	u64 highest;
};

static void p2p_pressure_run(struct device *dev, struct page *page,
			     dma_addr_t *addrs, unsigned int count,
			     struct p2p_pressure *p)
{
	unsigned int i;
	dma_addr_t da;

	for (i = 0; i < count; i++) {
		da = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, da)) {
			p->errors++;
			break;
		}
		addrs[p->mapped++] = da;
		if (da >= p->start && da < p->end)
			p->overlaps++;
		p->lowest = p->mapped == 1 ? da : min_t(u64, p->lowest, da);
		p->highest = max_t(u64, p->highest, da);
	}
	for (i = 0; i < p->mapped; i++)
		dma_unmap_page(dev, addrs[i], PAGE_SIZE, DMA_TO_DEVICE);
}

static int p2p_cmd_pressure(struct p2p_dev *a, struct pci_dev *b,
			    const char *scount)
{
	struct device *dev = &a->pdev->dev;
	struct p2p_pressure p = { };
	unsigned int count;
	dma_addr_t *addrs;
	struct page *page;
	u64 limit;
	int ret;

	if (kstrtouint(scount, 0, &count) || !count ||
	    count > P2P_MAX_PRESSURE) {
		pr_info("pressure: count '%s' not in 1..%u\n", scount,
			P2P_MAX_PRESSURE);
		return -EINVAL;
	}
	p.start = pci_bus_address(b, 0);
	p.end = p.start + pci_resource_len(b, 0);
	limit = ALIGN(p.end, SZ_1M) + SZ_1M - 1;

	addrs = kvmalloc_array(count, sizeof(*addrs), GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	ret = -ENOMEM;
	if (!addrs || !page)
		goto out;
	ret = dma_set_mask(dev, limit);
	if (ret) {
		pr_info("pressure: dma_set_mask(0x%llx) failed\n", limit);
		goto out;
	}
	p2p_pressure_run(dev, page, addrs, count, &p);
	ret = dma_set_mask(dev, DMA_BIT_MASK(64));
	if (ret)
		pr_warn("%s: could not restore the 64-bit DMA mask\n",
			pci_name(a->pdev));
	scnprintf(p2p_result, sizeof(p2p_result),
		  "mapped=%u errors=%u overlaps=%u lowest=0x%llx highest=0x%llx\n",
		  p.mapped, p.errors, p.overlaps, p.lowest, p.highest);
out:
	if (page)
		__free_page(page);
	kvfree(addrs);
	return ret;
}

static int p2p_cmd_devices(void)
{
	struct p2p_dev *d;
	size_t n = 0;

	p2p_result[0] = '\0';
	list_for_each_entry(d, &p2p_devs, node)
		n += scnprintf(p2p_result + n, sizeof(p2p_result) - n,
			       "%s bar0=0x%llx len=0x%llx\n", pci_name(d->pdev),
			       (unsigned long long)pci_resource_start(d->pdev, 0),
			       (unsigned long long)pci_resource_len(d->pdev, 0));
	return 0;
}

static int p2p_cmd_hold(struct p2p_dev *a, struct pci_dev *b, bool half);
static int p2p_cmd_stale(struct p2p_dev *a, struct pci_dev *b,
			 const char *scount);
static int p2p_cmd_churn(struct p2p_dev *a, struct pci_dev *b,
			 const char *scount, const char *sms);

/* Commands of the form "VERB A B [ARG]". */
static int p2p_cmd_pair(int argc, char **argv)
{
	const char *verb = argv[0];
	struct p2p_dev *a;
	struct pci_dev *b;
	int ret;

	ret = p2p_get_pair(argv[1], argv[2], &a, &b);
	if (ret)
		return ret;
	if (!strcmp(verb, "read") && argc == 4) {
		ret = p2p_cmd_read(a, b, argv[3]);
	} else if (!strcmp(verb, "write") && argc == 5) {
		ret = p2p_cmd_write(a, b, argv[3], argv[4]);
	} else if (!strcmp(verb, "map") && argc == 3) {
		ret = p2p_cmd_map(a, b);
	} else if (!strcmp(verb, "unmap") && argc == 3) {
		ret = p2p_cmd_unmap(a, b);
	} else if (!strcmp(verb, "pressure") && argc == 4) {
		ret = p2p_cmd_pressure(a, b, argv[3]);
	} else if (!strcmp(verb, "hold") && (argc == 3 || argc == 4)) {
		ret = p2p_cmd_hold(a, b, argc == 4 && !strcmp(argv[3], "half"));
	} else if (!strcmp(verb, "stale") && argc == 4) {
		ret = p2p_cmd_stale(a, b, argv[3]);
	} else if (!strcmp(verb, "churn") && (argc == 4 || argc == 5)) {
		ret = p2p_cmd_churn(a, b, argv[3], argc == 5 ? argv[4] : "0");
	} else {
		pr_info("wrong argument count for '%s'\n", verb);
		ret = -EINVAL;
	}
	pci_dev_put(b);
	return ret;
}

/* Initiator by address: a device bound to p2ptest, or NULL. */
static struct p2p_dev *p2p_initiator(const char *addr)
{
	struct pci_dev *pa = p2p_get_pdev(addr);
	struct p2p_dev *a;

	if (IS_ERR_OR_NULL(pa))
		return NULL;
	a = p2p_find_dev(pa);
	pci_dev_put(pa);
	return a;
}

/*
 * fault A ADDR COUNT read|write: report COUNT faults of A at ADDR through
 * report_iommu_fault(), as the AMD-Vi driver does for each DMA fault (QEMU's
 * AMD-Vi emulation reports none itself).
 */
static int p2p_cmd_fault(char **argv)
{
	struct iommu_domain *dom;
	struct p2p_dev *a = p2p_initiator(argv[1]);
	u32 count, i;
	int flags;
	u64 addr;

	if (!a)
		return -ENODEV;
	if (kstrtou64(argv[2], 0, &addr) || kstrtou32(argv[3], 0, &count) ||
	    count > 10000000)
		return -EINVAL;
	if (!strcmp(argv[4], "read"))
		flags = IOMMU_FAULT_READ;
	else if (!strcmp(argv[4], "write"))
		flags = IOMMU_FAULT_WRITE;
	else
		return -EINVAL;
	dom = iommu_get_domain_for_dev(&a->pdev->dev);
	if (!dom)
		return -ENODEV;
	for (i = 0; i < count; i++) {
		report_iommu_fault(dom, &a->pdev->dev, addr, flags);
		if (!(i & 1023))
			cond_resched();
	}
	scnprintf(p2p_result, sizeof(p2p_result), "reported=%u\n", count);
	return 0;
}

/*
 * The AMD-Vi driver's fault-log lines (tests/guest/faults.sh), printed as
 * amd_iommu_report_page_fault() prints them (drivers/iommu/amd/iommu.c):
 * same format strings, same prefixes, from a kernel thread (the driver
 * prints from its IRQ thread; here a kworker: the work is queued and
 * waited for), without its rate limits.
 *
 * The format strings are each kernel's own: in every kernel this driver
 * is built for, amd_iommu_report_page_fault()'s two (pci_err() form,
 * unknown-device form) are byte for byte those in p2p_amdvi_work(), with
 * the same pr_fmt/dev_fmt "AMD-Vi: " and EVENT_FLAG_RW 0x020, reached the
 * same way (iommu_print_event(), EVENT_TYPE_IO_FAULT; report_iommu_fault()
 * first for a DMA fault of a managed device), so none needs a switch:
 *	Debian 6.1.192-3 (6.1.0-57-amd64), linux-source-6.1:
 *		drivers/iommu/amd/iommu.c:580,584
 *	Debian 6.12.118-1~deb12u1 (and the debug build of that tree):
 *		drivers/iommu/amd/iommu.c:885,889
 *	Debian 7.3.4-1~bpo13+1 (trixie-backports), linux-source-7.3:
 *		drivers/iommu/amd/iommu.c:897,901
 * A kernel that changes them gets its own here, chosen by a probe in Kbuild.
 *
 * amdvi DEV ADDR COUNT read|write [tp]: COUNT times the line for an IO page
 *	fault of DEV (any PCI function) at ADDR, through pci_err() on DEV:
 *	"DRIVER DEV: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000
 *	address=0x... flags=0x0000]", flags 0x0020 (EVENT_FLAG_RW) for a
 *	write.  With "tp" each line follows a report_iommu_fault() of the
 *	same fault, in the same thread, as the driver does for a DMA fault
 *	(DEV must be bound to p2ptest then).  "printed=N"
 * amdvi-unknown DDDD:BB:DD.F ADDR COUNT read|write: the line for a device
 *	the driver does not know: "AMD-Vi: Event logged [IO_PAGE_FAULT
 *	device=DDDD:BB:DD.F domain=0x0000 address=0x... flags=0x....]".  The
 *	address need not name a device.  "printed=N"
 */
#define P2P_AMDVI_RW		0x020	/* EVENT_FLAG_RW, amd_iommu_types.h */
#define P2P_AMDVI_MAX		10000

struct p2p_amdvi {
	struct work_struct work;
	struct pci_dev *pdev;		/* NULL: the unknown-device form */
	struct iommu_domain *dom;	/* report_iommu_fault() first */
	unsigned int seg, bus, slot, fn;
	u64 addr;
	u32 count;
	bool write;
};

/* The driver's pr_fmt and dev_fmt, for its lines byte for byte. */
#undef pr_fmt
#undef dev_fmt
#define pr_fmt(fmt) "AMD-Vi: " fmt
#define dev_fmt(fmt) pr_fmt(fmt)

static void p2p_amdvi_work(struct work_struct *work)
{
	struct p2p_amdvi *a = container_of(work, struct p2p_amdvi, work);
	int flags = a->write ? P2P_AMDVI_RW : 0;
	u32 i;

	for (i = 0; i < a->count; i++) {
		if (!a->pdev) {
			pr_err("Event logged [IO_PAGE_FAULT device=%04x:%02x:%02x.%x domain=0x%04x address=0x%llx flags=0x%04x]\n",
			       a->seg, a->bus, a->slot, a->fn, 0, a->addr,
			       flags);
			continue;
		}
		if (a->dom)
			report_iommu_fault(a->dom, &a->pdev->dev, a->addr,
					   a->write ? IOMMU_FAULT_WRITE :
						      IOMMU_FAULT_READ);
		pci_err(a->pdev, "Event logged [IO_PAGE_FAULT domain=0x%04x address=0x%llx flags=0x%04x]\n",
			0, a->addr, flags);
	}
}

#undef dev_fmt
#undef pr_fmt
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#define dev_fmt(fmt) fmt

static int p2p_amdvi_print(struct p2p_amdvi *a, char **argv)
{
	if (kstrtou64(argv[2], 0, &a->addr) ||
	    kstrtou32(argv[3], 0, &a->count) || !a->count ||
	    a->count > P2P_AMDVI_MAX)
		return -EINVAL;
	if (!strcmp(argv[4], "write"))
		a->write = true;
	else if (strcmp(argv[4], "read"))
		return -EINVAL;
	INIT_WORK_ONSTACK(&a->work, p2p_amdvi_work);
	schedule_work(&a->work);
	flush_work(&a->work);
	destroy_work_on_stack(&a->work);
	scnprintf(p2p_result, sizeof(p2p_result), "printed=%u\n", a->count);
	return 0;
}

static int p2p_cmd_amdvi(int argc, char **argv)
{
	struct pci_dev *pdev = p2p_get_pdev(argv[1]);
	struct p2p_amdvi a = { .pdev = pdev };
	int ret = -EINVAL;

	if (IS_ERR_OR_NULL(pdev))
		return pdev ? PTR_ERR(pdev) : -ENODEV;
	if (argc == 6) {
		if (strcmp(argv[5], "tp"))
			goto out;
		ret = -ENODEV;
		/* Bound to p2ptest: its domain stays while we use it. */
		if (!p2p_find_dev(pdev))
			goto out;
		a.dom = iommu_get_domain_for_dev(&pdev->dev);
		if (!a.dom)
			goto out;
	}
	ret = p2p_amdvi_print(&a, argv);
out:
	pci_dev_put(pdev);
	return ret;
}

static int p2p_cmd_amdvi_unknown(char **argv)
{
	struct p2p_amdvi a = { };
	char c;

	if (sscanf(argv[1], "%x:%x:%x.%x%c", &a.seg, &a.bus, &a.slot, &a.fn,
		   &c) != 4 || a.seg > 0xffff || a.bus > 0xff ||
	    a.slot > 0x1f || a.fn > 7)
		return -EINVAL;
	return p2p_amdvi_print(&a, argv);
}

/*
 * dmawrite A ADDR PATTERN: A DMA-writes the u32 PATTERN to bus address ADDR,
 * raw, with nothing checked afterwards (the target may be owned by VFIO or
 * be memory, not an edu).
 */
static int p2p_cmd_dmawrite(char **argv)
{
	struct p2p_dev *a = p2p_initiator(argv[1]);
	u32 pattern;
	u64 addr;
	int ret;

	if (!a)
		return -ENODEV;
	if (kstrtou64(argv[2], 0, &addr) || kstrtou32(argv[3], 16, &pattern))
		return -EINVAL;
	ret = edu_load(a, pattern);
	if (!ret)
		ret = edu_dma(a, EDU_BUF, addr, EDU_CMD_TO_PCI);
	if (!ret)
		scnprintf(p2p_result, sizeof(p2p_result), "done\n");
	return ret;
}

/*
 * xlate DEV IOVA: what IOVA translates to in the domain DEV is attached to
 * now (0: nothing), read with iommu_iova_to_phys(): an independent check of
 * what p2pmap says it mapped.  DEV need not be bound to p2ptest.
 */
static int p2p_cmd_xlate(char **argv)
{
	struct iommu_domain *dom;
	struct pci_dev *pdev;
	u64 iova;

	if (kstrtou64(argv[2], 0, &iova))
		return -EINVAL;
	pdev = p2p_get_pdev(argv[1]);
	if (IS_ERR_OR_NULL(pdev))
		return -ENODEV;
	dom = iommu_get_domain_for_dev(&pdev->dev);
	scnprintf(p2p_result, sizeof(p2p_result), "0x%llx\n",
		  dom ? (u64)iommu_iova_to_phys(dom, iova) : 0ULL);
	pci_dev_put(pdev);
	return 0;
}

/*
 * xlatem DEV...: for every ordered pair (I, T) of the named devices, "1"
 * if I's current domain translates T's BAR0 (first and last page) to
 * itself, else "0"; "-" if either is absent.  One line, pairs in order.
 * The stress test's independent view of what is mapped.
 */
static int p2p_cmd_xlatem(int argc, char **argv)
{
	struct pci_dev *devs[P2P_MAX_ARGS];
	size_t len = 0;
	int i, j;

	for (i = 1; i < argc; i++) {
		devs[i] = p2p_get_pdev(argv[i]);
		if (IS_ERR(devs[i]))
			devs[i] = NULL;
	}
	p2p_result[0] = '\0';
	for (i = 1; i < argc; i++) {
		struct iommu_domain *dom = devs[i] ?
			iommu_get_domain_for_dev(&devs[i]->dev) : NULL;

		for (j = 1; j < argc; j++) {
			u64 lo, hi;
			char c = '-';

			if (i == j)
				continue;
			if (devs[i] && devs[j]) {
				lo = pci_bus_address(devs[j], 0);
				hi = lo + pci_resource_len(devs[j], 0) - PAGE_SIZE;
				c = dom && iommu_iova_to_phys(dom, lo) == lo &&
				    iommu_iova_to_phys(dom, hi) == hi ? '1' : '0';
			}
			len += scnprintf(p2p_result + len,
					 sizeof(p2p_result) - len, "%c", c);
		}
	}
	scnprintf(p2p_result + len, sizeof(p2p_result) - len, "\n");
	for (i = 1; i < argc; i++)
		pci_dev_put(devs[i]);
	return 0;
}

/* Entries a range needs with @pgsizes: largest aligned page first. */
static u64 p2p_pages(unsigned long pgsizes, u64 iova, u64 size)
{
	u64 pages = 0;

	while (size) {
		unsigned long fit = pgsizes & GENMASK_ULL(fls64(size) - 1, 0);

		if (iova)
			fit &= GENMASK_ULL(__ffs64(iova), 0);
		if (!fit)
			return 0;
		iova += 1UL << __fls(fit);
		size -= 1UL << __fls(fit);
		pages++;
	}
	return pages;
}

/*
 * benchmap I T BAR REPEAT: what the NVIDIA driver's way costs: map T's BAR
 * into I's domain with dma_map_resource() and unmap it, REPEAT times.
 * Result: "map_ns=M unmap_ns=U entries=E iova=0x..." (means).
 */
static int p2p_cmd_benchmap(char **argv)
{
	struct pci_dev *init, *tgt;
	struct iommu_domain *dom;
	u64 t0, map = 0, unmap = 0, n;
	dma_addr_t iova = 0;
	u32 bar, repeat, i;
	int ret = 0;

	if (kstrtou32(argv[3], 0, &bar) || bar >= PCI_STD_NUM_BARS ||
	    kstrtou32(argv[4], 0, &repeat) || !repeat)
		return -EINVAL;
	init = p2p_get_pdev(argv[1]);
	tgt = p2p_get_pdev(argv[2]);
	if (IS_ERR_OR_NULL(init) || IS_ERR_OR_NULL(tgt) ||
	    !pci_resource_len(tgt, bar)) {
		ret = -ENODEV;
		goto out;
	}
	for (i = 0; i < repeat; i++) {
		t0 = ktime_get_ns();
		iova = dma_map_resource(&init->dev, pci_resource_start(tgt, bar),
					pci_resource_len(tgt, bar),
					DMA_BIDIRECTIONAL, 0);
		map += ktime_get_ns() - t0;
		if (dma_mapping_error(&init->dev, iova)) {
			ret = -ENOMEM;
			goto out;
		}
		t0 = ktime_get_ns();
		dma_unmap_resource(&init->dev, iova,
				   pci_resource_len(tgt, bar),
				   DMA_BIDIRECTIONAL, 0);
		unmap += ktime_get_ns() - t0;
	}
	dom = iommu_get_domain_for_dev(&init->dev);
	n = dom ? p2p_pages(dom->pgsize_bitmap, iova,
			    pci_resource_len(tgt, bar)) : 0;
	scnprintf(p2p_result, sizeof(p2p_result),
		  "map_ns=%llu unmap_ns=%llu entries=%llu iova=0x%llx\n",
		  map / repeat, unmap / repeat, n, (u64)iova);
out:
	if (!IS_ERR(init))
		pci_dev_put(init);
	if (!IS_ERR(tgt))
		pci_dev_put(tgt);
	return ret;
}

/* pgsizes DEV: the page sizes of the domain DEV is attached to. */
static int p2p_cmd_pgsizes(char **argv)
{
	struct iommu_domain *dom;
	struct pci_dev *pdev;

	pdev = p2p_get_pdev(argv[1]);
	if (IS_ERR_OR_NULL(pdev))
		return -ENODEV;
	dom = iommu_get_domain_for_dev(&pdev->dev);
	scnprintf(p2p_result, sizeof(p2p_result), "0x%lx\n",
		  dom ? dom->pgsize_bitmap : 0UL);
	pci_dev_put(pdev);
	return 0;
}

/* peek PHYS: read a u32 at a physical MMIO address from the CPU. */
static int p2p_cmd_peek(char **argv)
{
	void __iomem *p;
	u64 phys;

	if (kstrtou64(argv[1], 0, &phys) || !IS_ALIGNED(phys, 4))
		return -EINVAL;
	p = ioremap(phys, 4);
	if (!p)
		return -ENOMEM;
	scnprintf(p2p_result, sizeof(p2p_result), "0x%08x\n", readl(p));
	iounmap(p);
	return 0;
}

/* ---- the DMA API's IOVA allocator, seen from outside p2pmap --------- */

/*
 * The iova_domain of @dev's current domain, found without p2pmap's build
 * probe: the dma-iommu cookie starts with it (6.15+) or has it after a
 * 4-byte type (up to 6.14); only a candidate whose anchor node is in place
 * is taken.  A second, independent reading of what p2pmap relies on.
 */
static struct iova_domain *p2p_iovad(struct device *dev)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	static const size_t offs[] = { 0, 8 };
	unsigned int i;

	if (!dom || !(dom->type & __IOMMU_DOMAIN_DMA_API) || !dom->iova_cookie)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		struct iova_domain *v = (void *)dom->iova_cookie + offs[i];

		if (v->anchor.pfn_lo == ~0UL && v->anchor.pfn_hi == ~0UL &&
		    v->granule == BIT(__ffs(dom->pgsize_bitmap)))
			return v;
	}
	return NULL;
}

/*
 * nodes DEV ADDR SIZE: the allocator nodes of DEV's domain that overlap
 * [ADDR, ADDR + SIZE): "nodes=N 0xLO-0xHI ..." (inclusive byte ranges).
 */
static int p2p_cmd_nodes(char **argv)
{
	struct iova_domain *iovad;
	struct pci_dev *pdev;
	unsigned long flags, lo, hi;
	struct rb_node *n;
	u64 addr, size;
	size_t len;
	int count = 0;

	if (kstrtou64(argv[2], 0, &addr) || kstrtou64(argv[3], 0, &size) ||
	    !size)
		return -EINVAL;
	pdev = p2p_get_pdev(argv[1]);
	if (IS_ERR_OR_NULL(pdev))
		return -ENODEV;
	iovad = p2p_iovad(&pdev->dev);
	if (!iovad) {
		pci_dev_put(pdev);
		return -EOPNOTSUPP;
	}
	lo = iova_pfn(iovad, addr);
	hi = iova_pfn(iovad, addr + size - 1);
	len = scnprintf(p2p_result, sizeof(p2p_result), "nodes=");
	spin_lock_irqsave(&iovad->iova_rbtree_lock, flags);
	for (n = rb_first(&iovad->rbroot); n; n = rb_next(n)) {
		struct iova *v = rb_entry(n, struct iova, node);

		if (v->pfn_hi < lo || v->pfn_lo > hi)
			continue;
		count++;
	}
	len += scnprintf(p2p_result + len, sizeof(p2p_result) - len, "%d", count);
	for (n = rb_first(&iovad->rbroot); n; n = rb_next(n)) {
		struct iova *v = rb_entry(n, struct iova, node);

		if (v->pfn_hi < lo || v->pfn_lo > hi)
			continue;
		len += scnprintf(p2p_result + len, sizeof(p2p_result) - len,
				 " 0x%llx-0x%llx",
				 (u64)v->pfn_lo << iova_shift(iovad),
				 (((u64)v->pfn_hi + 1) << iova_shift(iovad)) - 1);
	}
	spin_unlock_irqrestore(&iovad->iova_rbtree_lock, flags);
	scnprintf(p2p_result + len, sizeof(p2p_result) - len, "\n");
	pci_dev_put(pdev);
	return 0;
}

/*
 * hold A B [half]: put a node that p2pmap did not make over B's BAR0 (or its
 * upper half) in A's allocator, as the DMA API does for a buffer that is
 * allocated but not yet mapped, or freed and waiting in the flush queue:
 * a node without PTEs.  release A drops it.
 */
static int p2p_cmd_hold(struct p2p_dev *a, struct pci_dev *b, bool half)
{
	struct iova_domain *iovad = p2p_iovad(&a->pdev->dev);
	u64 start = pci_bus_address(b, 0), len = pci_resource_len(b, 0);

	if (!iovad)
		return -EOPNOTSUPP;
	if (a->held)
		return -EEXIST;
	if (half) {
		start += len / 2;
		len /= 2;
	}
	a->held = reserve_iova(iovad, iova_pfn(iovad, start),
			       iova_pfn(iovad, start + len - 1));
	if (!a->held)
		return -ENOMEM;
	scnprintf(p2p_result, sizeof(p2p_result), "held=0x%llx-0x%llx\n",
		  (u64)a->held->pfn_lo << iova_shift(iovad),
		  (((u64)a->held->pfn_hi + 1) << iova_shift(iovad)) - 1);
	return 0;
}

static void p2p_release_hold(struct p2p_dev *a)
{
	struct iova_domain *iovad = p2p_iovad(&a->pdev->dev);

	if (a->held && iovad)
		__free_iova(iovad, a->held);
	a->held = NULL;
}

/*
 * stale A B COUNT: what a raw-address peer write costs when the DMA API
 * hands out B's BAR0 range to A: A maps COUNT pages (DMA mask just above
 * the BAR, so that the allocator goes through it), each filled with a
 * sentinel, then DMA-writes a pattern to B's raw BAR0 + 4.  Result:
 * "mapped=N overlaps=M landed=K" (K: pages of A's RAM the write reached).
 */
static int p2p_stale(struct p2p_dev *a, struct pci_dev *b, unsigned int count,
		     char *out, size_t outlen)
{
	struct device *dev = &a->pdev->dev;
	u64 start = pci_bus_address(b, 0), end, limit;
	unsigned int i, mapped = 0, overlaps = 0, landed = 0;
	struct page **pages = NULL;
	dma_addr_t *addrs = NULL;
	int ret;

	end = start + pci_resource_len(b, 0);
	limit = ALIGN(end, SZ_1M) + SZ_1M - 1;
	pages = kcalloc(count, sizeof(*pages), GFP_KERNEL);
	addrs = kcalloc(count, sizeof(*addrs), GFP_KERNEL);
	ret = -ENOMEM;
	if (!pages || !addrs)
		goto out;
	ret = dma_set_mask(dev, limit);
	if (ret)
		goto out;
	for (i = 0; i < count; i++) {
		u32 *p;

		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			break;
		p = page_address(pages[i]);
		memset32(p, P2P_SENTINEL, PAGE_SIZE / 4);
		addrs[i] = dma_map_page(dev, pages[i], 0, PAGE_SIZE,
					DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, addrs[i])) {
			__free_page(pages[i]);
			pages[i] = NULL;
			break;
		}
		mapped++;
		if (addrs[i] >= start && addrs[i] < end)
			overlaps++;
	}
	ret = edu_load(a, 0x5eadbeef);
	if (!ret)
		ret = edu_dma(a, EDU_BUF, start + EDU_REG_LIVE, EDU_CMD_TO_PCI);
	for (i = 0; i < mapped; i++) {
		u32 *p = page_address(pages[i]);

		dma_unmap_page(dev, addrs[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (p[EDU_REG_LIVE / 4] == 0x5eadbeef)
			landed++;
		__free_page(pages[i]);
	}
	if (dma_set_mask(dev, DMA_BIT_MASK(64)))
		pr_warn("%s: could not restore the 64-bit DMA mask\n",
			pci_name(a->pdev));
	if (!ret)
		scnprintf(out, outlen, "mapped=%u overlaps=%u landed=%u\n",
			  mapped, overlaps, landed);
out:
	kfree(addrs);
	kfree(pages);
	return ret;
}

static int p2p_cmd_stale(struct p2p_dev *a, struct pci_dev *b,
			 const char *scount)
{
	unsigned int count;

	if (kstrtouint(scount, 0, &count) || !count || count > 4096)
		return -EINVAL;
	return p2p_stale(a, b, count, p2p_result, sizeof(p2p_result));
}

/*
 * churn A B N [MS]: N times (or for MS milliseconds, whichever ends
 * first), allocate from A's allocator (as the DMA API does, alloc_iova()
 * under the allocator's lock) a range of B's BAR0 size below its end, and
 * count the times the range was B's BAR0 while A's domain also
 * identity-maps it: "got=G both=X" (X must stay 0; G > 0 says the race
 * ran).  Run against link add/del loops to catch a guard that checks and
 * reserves in two steps.
 */
static int p2p_cmd_churn(struct p2p_dev *a, struct pci_dev *b,
			 const char *scount, const char *sms)
{
	unsigned long until;
	unsigned int ms;
	struct iova_domain *iovad = p2p_iovad(&a->pdev->dev);
	struct iommu_domain *dom = iommu_get_domain_for_dev(&a->pdev->dev);
	u64 start = pci_bus_address(b, 0), len = pci_resource_len(b, 0);
	unsigned long pages, lim;
	unsigned int n, i, got = 0, both = 0;

	if (!iovad || !dom)
		return -EOPNOTSUPP;
	if (kstrtouint(scount, 0, &n) || !n || n > 10000000 ||
	    kstrtouint(sms, 0, &ms) || ms > 60000)
		return -EINVAL;
	until = jiffies + msecs_to_jiffies(ms);
	pages = iova_pfn(iovad, len);
	lim = iova_pfn(iovad, start + len - 1);
	for (i = 0; i < n; i++) {
		struct iova *v = alloc_iova(iovad, pages, lim, true);

		if (v && iova_pfn(iovad, start) == v->pfn_lo) {
			got++;
			if (iommu_iova_to_phys(dom, start) == start)
				both++;
		}
		if (v)
			__free_iova(iovad, v);
		if (!(i & 63))
			cond_resched();
		if (ms && time_after(jiffies, until))
			break;
	}
	scnprintf(p2p_result, sizeof(p2p_result), "got=%u both=%u\n", got,
		  both);
	return 0;
}

static int p2p_cmd_probeinfo(char **argv);
static int p2p_cmd_smallin(char **argv);

/* ==== make bench commands (tests/guest/bench.sh) ======================== */

/*
 * ifill DEV N LIMIT: N live single-page IOVAs in DEV's DMA API allocator,
 *	allocated as dma-iommu does (alloc_iova(), size-aligned, top down) at
 *	or below bus address LIMIT, and kept: nodes in its rbtree with no
 *	PTEs, as a busy device's mappings are.  "allocated=N lowest=0x...
 *	highest=0x... ns=T" (T: the whole fill).  They stay across unbind and
 *	bind of DEV (its default domain stays); ifree them before DEV is
 *	removed (its domain, and the nodes, go with it).
 * ifree DEV: give them back (__free_iova()).  "freed=N ns=T"
 * faulttime A ADDR COUNT read|write: "fault", timed: COUNT calls of
 *	report_iommu_fault() for A at ADDR.  "reported=N ns=T per_fault_ns=P"
 */
#define P2P_MAX_IFILL		1000000

struct p2p_ifill {
	struct list_head node;
	struct pci_dev *pdev;		/* referenced */
	struct iova_domain *iovad;
	struct iova **v;
	unsigned int n;
};

static LIST_HEAD(p2p_ifills);

static struct p2p_ifill *p2p_find_ifill(struct pci_dev *pdev)
{
	struct p2p_ifill *f;

	list_for_each_entry(f, &p2p_ifills, node)
		if (f->pdev == pdev)
			return f;
	return NULL;
}

static void p2p_ifill_free(struct p2p_ifill *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++) {
		__free_iova(f->iovad, f->v[i]);
		if (!(i & 1023))
			cond_resched();
	}
	list_del(&f->node);
	pci_dev_put(f->pdev);
	kvfree(f->v);
	kfree(f);
}

static int p2p_cmd_ifill(char **argv)
{
	struct iova_domain *iovad;
	struct pci_dev *pdev;
	struct p2p_ifill *f;
	unsigned long limit;
	unsigned int n, i;
	u64 lim, t0, lo = ~0ULL, hi = 0;
	int ret = -EINVAL;

	if (kstrtouint(argv[2], 0, &n) || !n || n > P2P_MAX_IFILL ||
	    kstrtou64(argv[3], 0, &lim))
		return -EINVAL;
	pdev = p2p_get_pdev(argv[1]);
	if (IS_ERR_OR_NULL(pdev))
		return -ENODEV;
	iovad = p2p_iovad(&pdev->dev);
	if (!iovad) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (p2p_find_ifill(pdev)) {
		ret = -EEXIST;
		goto out;
	}
	limit = iova_pfn(iovad, lim);
	ret = -ENOMEM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		goto out;
	f->v = kvmalloc_array(n, sizeof(*f->v), GFP_KERNEL);
	if (!f->v) {
		kfree(f);
		goto out;
	}
	f->pdev = pci_dev_get(pdev);
	f->iovad = iovad;
	list_add_tail(&f->node, &p2p_ifills);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		struct iova *v = alloc_iova(iovad, 1, limit, true);

		if (!v)
			break;
		f->v[f->n++] = v;
		lo = min_t(u64, lo, v->pfn_lo);
		hi = max_t(u64, hi, v->pfn_hi);
		if (!(i & 1023))
			cond_resched();
	}
	t0 = ktime_get_ns() - t0;
	if (f->n < n) {
		pr_info("ifill: %s: only %u of %u IOVAs below 0x%llx\n",
			pci_name(pdev), f->n, n, lim);
		p2p_ifill_free(f);
		goto out;
	}
	scnprintf(p2p_result, sizeof(p2p_result),
		  "allocated=%u lowest=0x%llx highest=0x%llx ns=%llu\n", f->n,
		  lo << iova_shift(iovad),
		  ((hi + 1) << iova_shift(iovad)) - 1, t0);
	ret = 0;
out:
	pci_dev_put(pdev);
	return ret;
}

static int p2p_cmd_ifree(char **argv)
{
	struct pci_dev *pdev = p2p_get_pdev(argv[1]);
	struct p2p_ifill *f;
	unsigned int n;
	u64 t0;

	if (IS_ERR_OR_NULL(pdev))
		return -ENODEV;
	f = p2p_find_ifill(pdev);
	pci_dev_put(pdev);
	if (!f)
		return -ENOENT;
	n = f->n;
	t0 = ktime_get_ns();
	p2p_ifill_free(f);
	scnprintf(p2p_result, sizeof(p2p_result), "freed=%u ns=%llu\n", n,
		  ktime_get_ns() - t0);
	return 0;
}

static int p2p_cmd_faulttime(char **argv)
{
	struct p2p_dev *a = p2p_initiator(argv[1]);
	struct iommu_domain *dom;
	u32 count, i;
	u64 addr, t0;
	int flags;

	if (!a)
		return -ENODEV;
	if (kstrtou64(argv[2], 0, &addr) || kstrtou32(argv[3], 0, &count) ||
	    !count || count > 10000000)
		return -EINVAL;
	if (!strcmp(argv[4], "read"))
		flags = IOMMU_FAULT_READ;
	else if (!strcmp(argv[4], "write"))
		flags = IOMMU_FAULT_WRITE;
	else
		return -EINVAL;
	dom = iommu_get_domain_for_dev(&a->pdev->dev);
	if (!dom)
		return -ENODEV;
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++) {
		report_iommu_fault(dom, &a->pdev->dev, addr, flags);
		if (!(i & 1023))
			cond_resched();
	}
	t0 = ktime_get_ns() - t0;
	scnprintf(p2p_result, sizeof(p2p_result),
		  "reported=%u ns=%llu per_fault_ns=%llu\n", count, t0,
		  div_u64(t0, count));
	return 0;
}

/* A bench command: true, and its result in *ret, if argv is one. */
static bool p2p_bench_cmd(int argc, char **argv, int *ret)
{
	if (!strcmp(argv[0], "ifill") && argc == 4)
		*ret = p2p_cmd_ifill(argv);
	else if (!strcmp(argv[0], "ifree") && argc == 2)
		*ret = p2p_cmd_ifree(argv);
	else if (!strcmp(argv[0], "faulttime") && argc == 5)
		*ret = p2p_cmd_faulttime(argv);
	else
		return false;
	return true;
}

/* Module exit: every fill still held goes back. */
static void p2p_bench_exit(void)
{
	struct p2p_ifill *f, *tmp;

	list_for_each_entry_safe(f, tmp, &p2p_ifills, node)
		p2p_ifill_free(f);
}

/* ==== end of the make bench commands ==================================== */

static bool p2p_pair_verb(const char *verb)
{
	static const char * const verbs[] = {
		"read", "write", "map", "unmap", "pressure", "hold", "stale",
		"churn",
	};

	return match_string(verbs, ARRAY_SIZE(verbs), verb) >= 0;
}

static int p2p_run(char *line)
{
	char *argv[P2P_MAX_ARGS];
	int argc = 0;
	char *tok;

	while ((tok = strsep(&line, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (argc == P2P_MAX_ARGS) {
			pr_info("too many arguments\n");
			return -EINVAL;
		}
		argv[argc++] = tok;
	}
	if (!argc) {
		pr_info("empty command\n");
		return -EINVAL;
	}
	if (!strcmp(argv[0], "devices") && argc == 1)
		return p2p_cmd_devices();
	if (!strcmp(argv[0], "fault") && argc == 5)
		return p2p_cmd_fault(argv);
	if (!strcmp(argv[0], "amdvi") && (argc == 5 || argc == 6))
		return p2p_cmd_amdvi(argc, argv);
	if (!strcmp(argv[0], "amdvi-unknown") && argc == 5)
		return p2p_cmd_amdvi_unknown(argv);
	if (!strcmp(argv[0], "dmawrite") && argc == 4)
		return p2p_cmd_dmawrite(argv);
	if (!strcmp(argv[0], "xlate") && argc == 3)
		return p2p_cmd_xlate(argv);
	if (!strcmp(argv[0], "peek") && argc == 2)
		return p2p_cmd_peek(argv);
	if (!strcmp(argv[0], "pgsizes") && argc == 2)
		return p2p_cmd_pgsizes(argv);
	if (!strcmp(argv[0], "nodes") && argc == 4)
		return p2p_cmd_nodes(argv);
	if (!strcmp(argv[0], "probeinfo") && argc == 2)
		return p2p_cmd_probeinfo(argv);
	if (!strcmp(argv[0], "smallin") && argc == 3)
		return p2p_cmd_smallin(argv);
	if (!strcmp(argv[0], "release") && argc == 2) {
		struct p2p_dev *a = p2p_initiator(argv[1]);

		if (!a)
			return -ENODEV;
		p2p_release_hold(a);
		scnprintf(p2p_result, sizeof(p2p_result), "ok\n");
		return 0;
	}
	if (!strcmp(argv[0], "benchmap") && argc == 5)
		return p2p_cmd_benchmap(argv);
	if (!strcmp(argv[0], "xlatem") && argc >= 3)
		return p2p_cmd_xlatem(argc, argv);
	{	/* make bench */
		int ret;

		if (p2p_bench_cmd(argc, argv, &ret))
			return ret;
	}
	if (p2p_pair_verb(argv[0]) && argc >= 3)
		return p2p_cmd_pair(argc, argv);
	pr_info("unknown command or wrong argument count: '%s'\n", argv[0]);
	return -EINVAL;
}

/* ---- debugfs ---------------------------------------------------------- */

static ssize_t p2p_ctl_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char line[P2P_CMD_MAX];
	int ret;

	if (!len || len >= sizeof(line)) {
		pr_info("command length %zu not in 1..%zu\n", len,
			sizeof(line) - 1);
		return -EINVAL;
	}
	if (copy_from_user(line, ubuf, len))
		return -EFAULT;
	line[len] = '\0';

	mutex_lock(&p2p_lock);
	ret = p2p_run(line);
	if (ret)
		scnprintf(p2p_result, sizeof(p2p_result), "err=%d\n", ret);
	mutex_unlock(&p2p_lock);
	return ret ? ret : len;
}

static ssize_t p2p_ctl_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&p2p_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, p2p_result,
				      strlen(p2p_result));
	mutex_unlock(&p2p_lock);
	return ret;
}

static const struct file_operations p2p_ctl_fops = {
	.owner = THIS_MODULE,
	.read = p2p_ctl_read,
	.write = p2p_ctl_write,
	.llseek = default_llseek,
};

/* ---- the hold: a fault-log lookup stopped while its device goes ------ */

/*
 * /sys/kernel/debug/p2ptest/hold (tests/guest/faults.sh, issue 34 item 6a).
 * Write "DDDD:BB:DD.F MS" to arm it: the next lookup of that device's entry
 * by name in p2pmap's fault index (p2pmap_fault_index_addr()) made by a
 * kernel thread (the AMD-Vi fault-log parser, run by the kworker of
 * "amdvi-unknown") that finds the entry is held right after it returns,
 * until "go" is written or MS milliseconds pass.  The test removes the
 * device meanwhile: the parser then goes on with an entry whose device is
 * gone, inside the same rcu_read_lock() section.  Read: idle, armed, held,
 * released (by "go") or expired, then "freed" once the device's struct
 * pci_dev was freed (pci_release_dev(), probed too: with
 * CONFIG_DEBUG_KOBJECT_RELEASE, as on the debug kernel, each kobject's
 * release runs 0.1 to 0.5 s after its last put (1 to 4 s upstream:
 * tests/vm/debug-kernel.sh), so the pci_dev goes a while
 * after its removal), else "alive".  "off" removes the probes.
 *
 * A kretprobe: its handlers run in the probed thread, here inside
 * rcu_read_lock() and printk's interrupts-off section, so the hold spins
 * (mdelay()) and never sleeps; it is its own file, outside p2p_lock, which
 * the "amdvi-unknown" command holds while it waits for its kworker.
 */
enum {
	P2P_HOLD_IDLE, P2P_HOLD_ARMED, P2P_HOLD_HELD, P2P_HOLD_RELEASED,
	P2P_HOLD_EXPIRED,
};

static const char * const p2p_hold_names[] = {
	"idle", "armed", "held", "released", "expired",
};

#define P2P_HOLD_MAX_MS		15000	/* under the 21 s RCU stall warning */

static DEFINE_MUTEX(p2p_hold_lock);	/* arming and the probe's life */
static atomic_t p2p_hold_state = ATOMIC_INIT(P2P_HOLD_IDLE);
static char p2p_hold_addr[16];
static unsigned int p2p_hold_ms;
static bool p2p_hold_go;
static struct kretprobe *p2p_hold_probe;
static struct kprobe *p2p_hold_free_probe;
static bool p2p_hold_freed;

static int p2p_hold_free_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct device *dev = (struct device *)regs_get_kernel_argument(regs, 0);

	if (!strcmp(dev_name(dev), p2p_hold_addr))
		WRITE_ONCE(p2p_hold_freed, true);
	return 0;
}

static int p2p_hold_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const char *addr = (const char *)regs_get_kernel_argument(regs, 0);
	bool *match = (bool *)ri->data;

	*match = (current->flags & PF_KTHREAD) &&
		 atomic_read(&p2p_hold_state) == P2P_HOLD_ARMED &&
		 !strcmp(addr, p2p_hold_addr);
	return 0;
}

static int p2p_hold_return(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	bool *match = (bool *)ri->data;
	unsigned int ms;

	if (!*match || !regs_return_value(regs) ||
	    atomic_cmpxchg(&p2p_hold_state, P2P_HOLD_ARMED,
			   P2P_HOLD_HELD) != P2P_HOLD_ARMED)
		return 0;
	/*
	 * A kworker runs on the last user mm of its CPU, lazily, and a flush
	 * that frees page tables waits for every such CPU (x86's
	 * native_flush_tlb_multi(): freed_tables, on_each_cpu_mask(.., true)):
	 * any process exiting meanwhile would wait for the hold, interrupts
	 * being off.  On init_mm no user flush asks this CPU anything.
	 */
#ifdef P2PTEST_LEAVE_MM_VOID
	leave_mm();
#else
	leave_mm(smp_processor_id());
#endif
	for (ms = 0; ms < p2p_hold_ms; ms++) {
		if (READ_ONCE(p2p_hold_go)) {
			atomic_set(&p2p_hold_state, P2P_HOLD_RELEASED);
			return 0;
		}
		mdelay(1);
	}
	atomic_set(&p2p_hold_state, P2P_HOLD_EXPIRED);
	return 0;
}

static void p2p_hold_off(void)
{
	lockdep_assert_held(&p2p_hold_lock);
	WRITE_ONCE(p2p_hold_go, true);
	if (p2p_hold_probe) {
		unregister_kretprobe(p2p_hold_probe);
		kfree(p2p_hold_probe);
		p2p_hold_probe = NULL;
	}
	if (p2p_hold_free_probe) {
		unregister_kprobe(p2p_hold_free_probe);
		kfree(p2p_hold_free_probe);
		p2p_hold_free_probe = NULL;
	}
	atomic_set(&p2p_hold_state, P2P_HOLD_IDLE);
}

/* pci_release_dev(DEV), the release of a struct pci_dev, watched. */
static int p2p_hold_watch_free(void)
{
	struct kprobe *kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	int ret;

	if (!kp)
		return -ENOMEM;
	kp->symbol_name = "pci_release_dev";
	kp->pre_handler = p2p_hold_free_pre;
	WRITE_ONCE(p2p_hold_freed, false);
	ret = register_kprobe(kp);
	if (ret) {
		kfree(kp);
		return ret;
	}
	p2p_hold_free_probe = kp;
	return 0;
}

/* Fresh probes each time: one unregistered is not registered again. */
static int p2p_hold_arm(const char *line)
{
	struct kretprobe *rp;
	unsigned int ms;
	char addr[16];
	int ret;

	if (sscanf(line, "%15s %u", addr, &ms) != 2 || !ms ||
	    ms > P2P_HOLD_MAX_MS)
		return -EINVAL;
	p2p_hold_off();
	strscpy(p2p_hold_addr, addr, sizeof(p2p_hold_addr));
	ret = p2p_hold_watch_free();
	if (ret)
		return ret;
	rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp) {
		p2p_hold_off();
		return -ENOMEM;
	}
	rp->kp.symbol_name = "p2pmap_fault_index_addr";
	rp->entry_handler = p2p_hold_entry;
	rp->handler = p2p_hold_return;
	rp->data_size = sizeof(bool);
	rp->maxactive = 8;
	p2p_hold_ms = ms;
	WRITE_ONCE(p2p_hold_go, false);
	atomic_set(&p2p_hold_state, P2P_HOLD_ARMED);
	ret = register_kretprobe(rp);
	if (ret) {
		kfree(rp);
		p2p_hold_off();
		return ret;
	}
	p2p_hold_probe = rp;
	return 0;
}

static ssize_t p2p_hold_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char line[48];
	int ret = 0;

	if (!len || len >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, len))
		return -EFAULT;
	line[len] = '\0';
	strim(line);
	mutex_lock(&p2p_hold_lock);
	if (!strcmp(line, "go"))
		WRITE_ONCE(p2p_hold_go, true);
	else if (!strcmp(line, "off"))
		p2p_hold_off();
	else
		ret = p2p_hold_arm(line);
	mutex_unlock(&p2p_hold_lock);
	return ret ? ret : len;
}

static ssize_t p2p_hold_read(struct file *file, char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[24];
	int n;

	n = scnprintf(buf, sizeof(buf), "%s %s\n",
		      p2p_hold_names[atomic_read(&p2p_hold_state)],
		      READ_ONCE(p2p_hold_freed) ? "freed" : "alive");
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations p2p_hold_fops = {
	.owner = THIS_MODULE,
	.read = p2p_hold_read,
	.write = p2p_hold_write,
	.llseek = default_llseek,
};

static void p2p_hold_exit(void)
{
	mutex_lock(&p2p_hold_lock);
	p2p_hold_off();
	mutex_unlock(&p2p_hold_lock);
}

/* ---- PCI driver ------------------------------------------------------- */

static void p2p_release_hold(struct p2p_dev *a);

static int p2p_setup(struct pci_dev *pdev, struct p2p_dev *d)
{
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	ret = p2p_check_bar0(pdev);
	if (ret)
		return ret;
	d->bar = pcim_iomap(pdev, 0, 0);
	if (!d->bar)
		return -ENOMEM;
	d->staging = dma_alloc_coherent(&pdev->dev, PAGE_SIZE,
					&d->staging_dma, GFP_KERNEL);
	if (!d->staging)
		return -ENOMEM;
	return 0;
}

/* probe_small: single pages, below probe_small_below if set. */
static void p2p_probe_small(struct p2p_dev *d)
{
	struct device *dev = &d->pdev->dev;
	unsigned int i, n = probe_small;

	if (!n)
		return;
	d->small_pages = kcalloc(n, sizeof(*d->small_pages), GFP_KERNEL);
	d->small_iovas = kcalloc(n, sizeof(*d->small_iovas), GFP_KERNEL);
	if (!d->small_pages || !d->small_iovas)
		return;
	if (probe_small_below && dma_set_mask(dev, probe_small_below))
		return;
	for (i = 0; i < n; i++) {
		struct page *pg = alloc_page(GFP_KERNEL);
		dma_addr_t a;

		if (!pg)
			break;
		a = dma_map_page(dev, pg, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, a)) {
			__free_page(pg);
			break;
		}
		d->small_pages[d->small_n] = pg;
		d->small_iovas[d->small_n++] = a;
	}
	if (dma_set_mask(dev, DMA_BIT_MASK(64)))
		pci_warn(d->pdev, "could not restore the 64-bit DMA mask\n");
}

static void p2p_small_free(struct p2p_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->small_n; i++) {
		dma_unmap_page(&d->pdev->dev, d->small_iovas[i], PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
		__free_page(d->small_pages[i]);
	}
	kfree(d->small_pages);
	kfree(d->small_iovas);
	d->small_pages = NULL;
	d->small_iovas = NULL;
	d->small_n = 0;
}

/* own_domain: a paging domain of the driver's, as some GPU drivers use. */
static int p2p_own_domain(struct p2p_dev *d)
{
	struct iommu_domain *dom;
	int ret;

	if (!own_domain)
		return 0;
#ifdef P2PTEST_HAVE_PAGING_DOMAIN_ALLOC
	dom = iommu_paging_domain_alloc(&d->pdev->dev);
#else
	dom = iommu_domain_alloc(d->pdev->dev.bus);
	if (!dom)
		dom = ERR_PTR(-ENOMEM);
#endif
	if (IS_ERR(dom))
		return PTR_ERR(dom);
	ret = iommu_attach_device(dom, &d->pdev->dev);
	if (ret) {
		iommu_domain_free(dom);
		return ret;
	}
	d->own_domain = dom;
	pci_info(d->pdev, "attached a domain of its own\n");
	return 0;
}

static void p2p_own_domain_free(struct p2p_dev *d)
{
	if (!d->own_domain)
		return;
	iommu_detach_device(d->own_domain, &d->pdev->dev);
	iommu_domain_free(d->own_domain);
	d->own_domain = NULL;
}

/*
 * smallin A B: how many of A's probe_small pages got IOVAs inside B's
 * BAR0: "small=N in=K".
 */
static int p2p_cmd_smallin(char **argv)
{
	struct p2p_dev *a = p2p_initiator(argv[1]);
	struct pci_dev *b = p2p_get_pdev(argv[2]);
	unsigned int i, in = 0;
	u64 lo, hi;

	if (IS_ERR_OR_NULL(b) || !a) {
		if (!IS_ERR_OR_NULL(b))
			pci_dev_put(b);
		return -ENODEV;
	}
	lo = pci_bus_address(b, 0);
	hi = lo + pci_resource_len(b, 0);
	pci_dev_put(b);
	for (i = 0; i < a->small_n; i++)
		in += a->small_iovas[i] >= lo && a->small_iovas[i] < hi;
	scnprintf(p2p_result, sizeof(p2p_result), "small=%u in=%u\n",
		  a->small_n, in);
	return 0;
}

/* At probe, before the driver core says BOUND_DRIVER. */
static void p2p_probe_alloc(struct p2p_dev *d)
{
	struct device *dev = &d->pdev->dev;
	phys_addr_t bar = pci_resource_start(d->pdev, 0);
	unsigned int i, n = probe_dma_mib;

	if (!n || pci_resource_len(d->pdev, 0) < SZ_1M)
		return;
	d->probe_iovas = kcalloc(n, sizeof(*d->probe_iovas), GFP_KERNEL);
	if (!d->probe_iovas)
		return;
	for (i = 0; i < n; i++) {
		dma_addr_t a = dma_map_resource(dev, bar, SZ_1M,
						DMA_BIDIRECTIONAL, 0);

		if (dma_mapping_error(dev, a))
			break;
		d->probe_iovas[d->probe_n++] = a;
	}
}

static void p2p_probe_free(struct p2p_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->probe_n; i++)
		dma_unmap_resource(&d->pdev->dev, d->probe_iovas[i], SZ_1M,
				   DMA_BIDIRECTIONAL, 0);
	kfree(d->probe_iovas);
	d->probe_iovas = NULL;
	d->probe_n = 0;
}

/*
 * probeinfo A: what A's probe allocated: "mapped=N below4g=M lowest=0x...
 * highest=0x..." (all of it must have been granted: mapped == probe_dma_mib).
 */
static int p2p_cmd_probeinfo(char **argv)
{
	struct p2p_dev *a = p2p_initiator(argv[1]);
	u64 lo = U64_MAX, hi = 0;
	unsigned int i, low = 0;

	if (!a)
		return -ENODEV;
	for (i = 0; i < a->probe_n; i++) {
		lo = min_t(u64, lo, a->probe_iovas[i]);
		hi = max_t(u64, hi, a->probe_iovas[i]);
		low += a->probe_iovas[i] < SZ_4G;
	}
	scnprintf(p2p_result, sizeof(p2p_result),
		  "mapped=%u below4g=%u lowest=0x%llx highest=0x%llx\n",
		  a->probe_n, low, a->probe_n ? lo : 0, hi);
	return 0;
}

static int p2p_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct p2p_dev *d;
	int ret;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->pdev = pdev;
	ret = p2p_setup(pdev, d);
	if (ret) {
		kfree(d);
		return ret;
	}
	ret = p2p_own_domain(d);
	if (ret) {
		dma_free_coherent(&pdev->dev, PAGE_SIZE, d->staging,
				  d->staging_dma);
		kfree(d);
		return ret;
	}
	if (!d->own_domain) {
		p2p_probe_alloc(d);
		p2p_probe_small(d);
	}
	pci_set_drvdata(pdev, d);

	mutex_lock(&p2p_lock);
	p2p_release_maps(pdev);
	list_add_tail(&d->node, &p2p_devs);
	mutex_unlock(&p2p_lock);
	pci_info(pdev, "bound, BAR0 0x%llx len 0x%llx\n",
		 (unsigned long long)pci_resource_start(pdev, 0),
		 (unsigned long long)pci_resource_len(pdev, 0));
	return 0;
}

/* remove_peer: allocate and raw-write as running clients would. */
static void p2p_remove_stale(struct p2p_dev *d)
{
	struct pci_dev *b;
	char res[96];

	if (!remove_peer[0])
		return;
	b = p2p_get_pdev(remove_peer);
	if (IS_ERR_OR_NULL(b))
		return;
	if (b != d->pdev && remove_pages && remove_pages <= 4096 &&
	    !p2p_check_bar0(b) &&
	    !p2p_stale(d, b, remove_pages, res, sizeof(res)))
		pci_info(d->pdev, "remove: peer %s %s", pci_name(b), res);
	else
		pci_info(d->pdev, "remove: peer %s: no result\n", pci_name(b));
	pci_dev_put(b);
}

static void p2p_remove(struct pci_dev *pdev)
{
	struct p2p_dev *d = pci_get_drvdata(pdev);

	p2p_remove_stale(d);

	mutex_lock(&p2p_lock);
	p2p_release_maps(pdev);
	p2p_release_hold(d);
	list_del(&d->node);
	mutex_unlock(&p2p_lock);

	/* A timed-out DMA may still target the staging buffer. */
	if (edu_wait_idle(d))
		pci_warn(pdev, "DMA still running at remove\n");
	pci_clear_master(pdev);
	p2p_probe_free(d);
	p2p_small_free(d);
	p2p_own_domain_free(d);
	dma_free_coherent(&pdev->dev, PAGE_SIZE, d->staging, d->staging_dma);
	kfree(d);
}

static const struct pci_device_id p2p_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, p2p_ids);

static struct pci_driver p2p_driver = {
	.name = "p2ptest",
	.id_table = p2p_ids,
	.probe = p2p_probe,
	.remove = p2p_remove,
};

/*
 * A second driver that, like vfio-pci, manages DMA itself: it binds nothing
 * by id (tests bind it through driver_override) and does nothing.  Links
 * to or from a device bound to it must be "blocked".
 */
static int p2p_owned_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	return 0;
}

static void p2p_owned_remove(struct pci_dev *pdev)
{
}

static struct pci_driver p2p_owned_driver = {
	.name = "p2ptest-owned",
	.probe = p2p_owned_probe,
	.remove = p2p_owned_remove,
	.driver_managed_dma = true,
};

/*
 * A third driver for memory-only targets (QEMU ivshmem-plain: a large
 * 64-bit prefetchable BAR2, like a GPU's VRAM aperture).  It only enables
 * the device, so its BARs decode; it does no DMA.
 */
static int p2p_mem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret = pcim_enable_device(pdev);

	if (!ret)	/* benchmap maps 64 GiB BARs into its domain */
		ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	return ret;
}

static void p2p_mem_remove(struct pci_dev *pdev)
{
}

static const struct pci_device_id p2p_mem_ids[] = {
	{ PCI_DEVICE(0x1af4, 0x1110) },	/* ivshmem */
	{ }
};

static struct pci_driver p2p_mem_driver = {
	.name = "p2ptest-mem",
	.id_table = p2p_mem_ids,
	.probe = p2p_mem_probe,
	.remove = p2p_mem_remove,
};

static int __init p2p_init(void)
{
	int ret;

	p2p_dir = debugfs_create_dir("p2ptest", NULL);
	debugfs_create_file("ctl", 0600, p2p_dir, NULL, &p2p_ctl_fops);
	debugfs_create_file("hold", 0600, p2p_dir, NULL, &p2p_hold_fops);
	ret = pci_register_driver(&p2p_driver);
	if (ret)
		goto err_dir;
	ret = pci_register_driver(&p2p_owned_driver);
	if (ret)
		goto err_driver;
	ret = pci_register_driver(&p2p_mem_driver);
	if (ret)
		goto err_owned;
	return 0;

err_owned:
	pci_unregister_driver(&p2p_owned_driver);
err_driver:
	pci_unregister_driver(&p2p_driver);
err_dir:
	debugfs_remove_recursive(p2p_dir);
	return ret;
}

static void __exit p2p_exit(void)
{
	/* Waits for commands in progress; none can start afterwards. */
	debugfs_remove_recursive(p2p_dir);
	p2p_hold_exit();
	pci_unregister_driver(&p2p_mem_driver);
	pci_unregister_driver(&p2p_owned_driver);
	pci_unregister_driver(&p2p_driver);
	mutex_lock(&p2p_lock);
	p2p_release_maps(NULL);
	p2p_bench_exit();	/* make bench */
	mutex_unlock(&p2p_lock);
}

module_init(p2p_init);
module_exit(p2p_exit);

MODULE_DESCRIPTION("Test driver: peer-to-peer DMA between QEMU edu devices");
MODULE_LICENSE("GPL");
