// SPDX-License-Identifier: GPL-2.0
/*
 * Up to 6.2, printk_sprint() calls trace_console_rcuidle(), and __DO_TRACE
 * WARNs (rcuidle && in_nmi()) on every printk from NMI context once any
 * probe is attached to the console tracepoint: sysrq-l, the hard-lockup
 * detector, RCU stall backtraces.  6.3 switched printk to trace_console()
 * (880970b56b73) in the same series that made tracepoint.h define
 * RCUIDLE_COND (408b961146be); 6.13 dropped the rcuidle variants.  This
 * builds exactly where __DO_TRACE still takes an rcuidle argument without
 * RCUIDLE_COND: those kernels.
 */
#include <linux/tracepoint.h>

#if !(defined(__DECLARE_TRACE_RCU) && !defined(RCUIDLE_COND))
#error "printk's console tracepoint is not the rcuidle variant here"
#endif
