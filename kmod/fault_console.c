// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's IOMMU fault logs as fault sources: one probe on the printk
 * "console" tracepoint hands the lines to the VT-d (fault_dmar.c) and
 * AMD-Vi (fault_amdvi.c) parsers.  The tracepoint is exported
 * (EXPORT_TRACEPOINT_SYMBOL_GPL(console) in printk.c); it is found by name
 * (for_each_kernel_tracepoint()) and registered with
 * tracepoint_probe_register(), so no printk trace header is included.
 *
 * What the probe sees (6.12, kernel/printk/printk.c): vprintk_store()
 * formats each message into the ring buffer and printk_sprint() calls
 * trace_console(text, len) right there, in the printing thread, with
 * interrupts off (printk_enter_irqsave()), before any console prints it.
 * (There since 5.19, so in every kernel p2pmap builds for; before, it ran
 * wherever the consoles were flushed, where the context test below would
 * mean nothing.)
 * The text is the message as formatted: without the trailing newline, and
 * without the KERN_<level> prefix for kernel messages; not NUL-terminated
 * at @len.  A dev_printk() message (pci_err()) carries the device prefix
 * "DRIVER DEVICE: " that __dev_printk() puts in front of the format (the
 * driver's name, or the bus name "pci" for an unbound device); pr_fmt()
 * and dev_fmt() prefixes ("DMAR: ", "AMD-Vi: ") are part of the format.
 *
 * Forged lines.  devkmsg_write() passes whatever a user writes to
 * /dev/kmsg to printk (devkmsg_emit(), facility LOG_USER, which the
 * tracepoint does not show) in the writing task: its text reaches this
 * probe exactly like a fault line.  The IOMMU drivers print their fault
 * lines elsewhere (6.12):
 *   - VT-d: dmar_fault() -> dmar_fault_do_one() -> pr_err(), dmar_fault()
 *     being requested with IRQF_NO_THREAD (dmar_set_interrupt()): hard IRQ
 *     context, also on PREEMPT_RT and with threadirqs; its only other
 *     caller, enable_drhd_fault_handling(), clears stale faults once per
 *     IOMMU, at boot (before any module loads) or from CPU hot-plug (its
 *     CPUHP_AP_ONLINE_DYN callback, run by the cpuhp kernel thread).
 *   - AMD-Vi: amd_iommu_int_handler() only returns IRQ_WAKE_THREAD; the
 *     threaded handler amd_iommu_int_thread() (or
 *     amd_iommu_int_thread_evtlog() with INTCAPXT) -> amd_iommu_handle_irq()
 *     -> iommu_poll_events() -> iommu_print_event() ->
 *     amd_iommu_report_page_fault() -> pci_err() / pr_err_ratelimited()
 *     runs in the IRQ thread, a kernel thread; nothing else calls
 *     iommu_poll_events().
 * So a fault-log line counts only when printed in hard IRQ context or by
 * a kernel thread (PF_KTHREAD) outside softirq; a user task, an io_uring
 * worker (PF_IO_WORKER, not PF_KTHREAD), softirqs (network code logs
 * remote data there) and NMIs are ignored.  What this cannot tell apart:
 * a kernel thread that prints text from elsewhere verbatim at the start of
 * a line.
 *
 * The probe runs inside printk(): it must never print.
 *
 * Not on kernels whose printk calls trace_console_rcuidle() (6.1: see
 * compat/probes/console_tp_rcuidle.c): there any probe attached to the
 * console tracepoint makes every printk from NMI context WARN, which
 * panic_on_warn turns into a crash at the next NMI backtrace.  The
 * fault-log sources stay off there and INFO_GET says why.
 */
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include "p2pmap.h"

#define P2PMAP_LOG_OFF_RCUIDLE \
	"this kernel's printk calls trace_console_rcuidle(): a probe there makes every printk from NMI context WARN (Linux 6.3 fixed it)"
#define P2PMAP_LOG_OFF_NO_TP "the printk console tracepoint was not found"
#define P2PMAP_LOG_OFF_REGISTER \
	"the probe on the printk console tracepoint could not be registered"

static struct tracepoint *p2pmap_console_tp;
static u32 p2pmap_console_sources;	/* the parsers armed */
const char *p2pmap_fault_log_off;	/* why none is, when asked for */

static bool p2pmap_console_trusted(void)
{
	if (in_nmi())
		return false;
	if (in_hardirq())
		return true;
	return !in_serving_softirq() && (current->flags & PF_KTHREAD);
}

static void p2pmap_console_probe(void *data, const char *text, size_t len)
{
	if (!len || !p2pmap_console_trusted())
		return;
	if (p2pmap_console_sources & P2PMAP_FAULT_SRC_DMAR)
		p2pmap_fault_dmar_line(text, len);
	if (p2pmap_console_sources & P2PMAP_FAULT_SRC_AMDVI_LOG)
		p2pmap_fault_amdvi_line(text, len);
}

static void p2pmap_find_console_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "console"))
		p2pmap_console_tp = tp;
}

/* The P2PMAP_FAULT_SRC_* of the parsers now armed; 0 if none. */
u32 p2pmap_fault_console_register(void)
{
	u32 want = (p2pmap_dmar_log ? P2PMAP_FAULT_SRC_DMAR : 0) |
		   (p2pmap_amdvi_log ? P2PMAP_FAULT_SRC_AMDVI_LOG : 0);
	int err;

	p2pmap_fault_log_off = NULL;
	if (!want)
		return 0;
#ifdef P2PMAP_HAVE_CONSOLE_TP_RCUIDLE
	p2pmap_fault_log_off = P2PMAP_LOG_OFF_RCUIDLE;
	pr_info("no fault counts from the VT-d or AMD-Vi fault logs: %s\n",
		p2pmap_fault_log_off);
	return 0;
#endif
	for_each_kernel_tracepoint(p2pmap_find_console_tp, NULL);
	if (!p2pmap_console_tp) {
		p2pmap_fault_log_off = P2PMAP_LOG_OFF_NO_TP;
		pr_info("printk console tracepoint not found: no fault counts from the VT-d or AMD-Vi fault logs\n");
		return 0;
	}
	p2pmap_console_sources = want;
	err = tracepoint_probe_register(p2pmap_console_tp,
					p2pmap_console_probe, NULL);
	if (err) {
		pr_warn("fault log probe unavailable (%d): no fault counts from the VT-d or AMD-Vi fault logs\n",
			err);
		p2pmap_fault_log_off = P2PMAP_LOG_OFF_REGISTER;
		p2pmap_console_sources = 0;
		return 0;
	}
	return want;
}

void p2pmap_fault_console_unregister(void)
{
	tracepoint_probe_unregister(p2pmap_console_tp, p2pmap_console_probe,
				    NULL);
	tracepoint_synchronize_unregister();
	p2pmap_console_sources = 0;
}
