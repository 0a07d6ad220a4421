#!/bin/bash
# reports.sh LOG: the first kernel report on a test VM's console (LOG).
# Prints that line (carriage returns dropped) and exits 1; prints nothing
# and exits 0 when there is none.  tests/run.sh fails a VM on a report.
#
# Reports: "BUG:" (KASAN: "BUG: KASAN:", "BUG: sleeping function called
# from invalid context", ...), "UBSAN:", "WARNING:" (WARN_ON: "WARNING:
# CPU:", lockdep: "WARNING: possible circular locking ...", "WARNING:
# suspicious RCU usage", ...), "inconsistent lock state", "Oops",
# "Kernel panic", "ODEBUG:" (debugobjects), "general protection fault",
# "cannot create duplicate filename" (sysfs/kobject name clash, with a stack
# dump: e.g. a module whose sysfs directory of a previous load is still
# there, which DEBUG_KOBJECT_RELEASE's delayed release exposes), and
# kmemleak's "unreferenced object" at the start of a line (the guest's
# kmemleak check prints the objects it does not count behind "# ").
# Reports whose first line says none of those (the kernel sources cited
# are Debian's 6.1 and 6.12, which print the same text): BUG_ON's "kernel
# BUG at" and the die header of 6.1 ("invalid opcode: 0000 [#1]": 6.1 has
# no "Oops: " before it), hung tasks, RCU stalls, lockdep's non-static key,
# the OOM killer, lost console lines, and a stack dump that no report line
# introduces (a bare "Call Trace:").
# "lockdep" alone is not a report: the debug kernel's boot prints "RCU
# lockdep checking is enabled".
#
# Expected reports, between markers the guest prints (tests/guest/lib.sh:
# expect_warn, expect_trace).  Each marker comes twice: from the guest's
# stdout, and as the console's copy of its /dev/kmsg write ("[ 12.3]
# P2PMAP-EXPECT-...", possibly in the middle of another line), which keeps
# its place among the kernel's lines.  A window opens at either copy of a
# begin and closes at the kernel log copy of its end (the stdout copy
# closes only a window that has no kernel log copy); a repeated copy
# changes nothing.  What a window lets through is a report after all when
# the window never closes, or when a begin of the same copy comes again
# before its end.
# - "P2PMAP-EXPECT-WARN: begin vtd-pte-already-set" ... "P2PMAP-EXPECT-WARN:
#   end": the WARN that Intel's page-table code issues right after its "DMA
#   PTE for vPFN ... already set" line: a "WARNING: CPU:" line at most 3
#   lines after such a line, and the "Call Trace:" of its stack dump.  (It
#   is matched by that preceding line, not by the function the WARNING
#   names: __domain_mapping is inlined into intel_iommu_map_pages in some
#   builds.)
# - "P2PMAP-EXPECT-TRACE: begin WHAT" ... "P2PMAP-EXPECT-TRACE: end": stack
#   dumps asked for (sysrq-l: "NMI backtrace for cpu N", then "Call
#   Trace:"): their "Call Trace:" lines.
# Every other report in a window still is one.
# Outside the windows, the stack dumps of fault injection (debug kernel,
# tests/guest/faultinject.sh: verbose=2, lib/fault-inject.c:fail_dump) are
# expected: a "Call Trace:" with should_fail in its first frames.
set -uo pipefail

first_report() {
	tr -d '\r' <"$1" | awk '
	# report LINE: the first report; the end.
	function report(line) {
		print line
		found = 1
		exit
	}
	# hold KIND: a line let through by an open window of KIND, kept until
	# that window closes.
	function hold(kind) {
		if (!(kind in held)) {
			held[kind] = $0
			held_nr[kind] = NR
		}
	}
	# copy: which copy of a marker this line holds: "k", the console
	# copy of what the guest wrote to /dev/kmsg (after a timestamp), or
	# "s", what it wrote to stdout.
	function copy() {
		return /\] P2PMAP-EXPECT-/ ? "k" : "s"
	}
	function is_open(kind) {
		return open[kind, "k"] || open[kind, "s"]
	}
	# opening KIND: a begin marker.  A second one of the same copy with
	# no end between: the first window never closed, and what it let
	# through is a report.
	function opening(kind, c) {
		c = copy()
		if (open[kind, c] && (kind in held))
			report(held[kind])
		open[kind, c] = 1
	}
	# closing KIND: an end marker.  The kernel log copy closes the
	# window: it follows every kernel line of the step, where the stdout
	# copy may precede some (a console that prints late), or be cut in
	# two by one.  What a closed window let through was expected.
	function closing(kind) {
		if (copy() == "k")
			open[kind, "k"] = 0
		open[kind, "s"] = 0
		if (!is_open(kind))
			delete held[kind]
	}
	/P2PMAP-EXPECT-WARN: begin / {
		want = $0; sub(/.*P2PMAP-EXPECT-WARN: begin /, "", want)
		sub(/ .*/, "", want)
		opening("warn")
		next
	}
	/P2PMAP-EXPECT-WARN: end/ { closing("warn"); next }
	/P2PMAP-EXPECT-TRACE: begin / { opening("trace"); next }
	/P2PMAP-EXPECT-TRACE: end/ { closing("trace"); next }
	/DMA PTE for vPFN .* already set/ { pte = NR }
	# A bare "Call Trace:" is decided by its first frames (fail_dump), or
	# gives way to a report line that follows it closely (more telling).
	ct != "" {
		if (/ should_fail/)
			ct = ""
		else if (NR - ct_nr > 8)
			report(ct)
	}
	/Call Trace:/ {
		if (is_open("trace") || ("warn" in held && is_open("warn")))
			hold(is_open("trace") ? "trace" : "warn")
		else if (ct == "") {
			ct = $0
			ct_nr = NR
		}
		next
	}
	/BUG:|UBSAN:|WARNING:|inconsistent lock state|Oops|Kernel panic|ODEBUG:|general protection fault|cannot create duplicate filename/ ||
	/^(\[ *[0-9.]+\] )?(kmemleak: )?unreferenced object/ ||
	# lib/bug.c:__report_bug
	/[Kk]ernel BUG at / ||
	# arch/x86/kernel/dumpstack.c:__die_header ("int3: 0000 [#1] ...")
	/[a-z0-9]: [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#[0-9]+\]/ ||
	# kernel/hung_task.c:check_hung_task
	/INFO: task .* blocked for more than / ||
	# kernel/rcu/tree_stall.h:print_other_cpu_stall, print_cpu_stall;
	# tree_exp.h:synchronize_rcu_expedited_stall; tasks.h (rcu_tasks*)
	/INFO: [a-z_]+ (self-)?detected (expedited )?stall/ ||
	# kernel/locking/lockdep.c:assign_lock_key
	/INFO: trying to register non-static key/ ||
	# mm/oom_kill.c:dump_header, __oom_kill_process
	/ invoked oom-killer: |: Killed process [0-9]/ ||
	# kernel/printk/printk.c:call_console_driver (6.1),
	# console_prepend_dropped (6.12)
	/printk messages dropped/ {
		if (is_open("warn") && want == "vtd-pte-already-set" &&
		    /WARNING: CPU: / && pte && NR - pte <= 3) {
			hold("warn")
			next
		}
		report($0)
	}
	END {
		if (found)
			exit 1
		for (k in held)
			if (ct == "" || held_nr[k] < ct_nr) {
				ct = held[k]
				ct_nr = held_nr[k]
			}
		if (ct != "") {
			print ct
			exit 1
		}
	}'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	first_report "$1"
fi
