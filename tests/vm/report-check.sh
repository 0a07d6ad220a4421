#!/bin/bash
# report-check.sh: unit check of tests/vm/reports.sh (the kernel report
# detector run.sh applies to every VM console), on synthetic console logs.
# TAP lines; no VM needed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/tap.sh"
. "$top/tests/vm/reports.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

boot='[    0.000000] Linux version 6.12.117-p2pmap-debug
[    0.512345] RCU lockdep checking is enabled.
[    1.001234] kmemleak: Kernel memory leak detector initialized (mem pool available: 15000)
P2PMAP-VM: start 6.12.117-p2pmap-debug suite=core
ok 1 - no kernel WARNING or BUG in the log
# kmemleak other: unreferenced object 0xffff888003a1b300 (size 32):'

# want NAME EXPECTED-LINE < LOG: the detector reports EXPECTED-LINE (empty:
# no report).
want() {
	local got rc
	cat >"$tmp/$1.log"
	got=$(first_report "$tmp/$1.log"); rc=$?
	if [ -z "$2" ]; then
		[ "$rc" = 0 ] && [ -z "$got" ]
	else
		[ "$rc" = 1 ] && [ "$got" = "$2" ]
	fi
	tap $? "reports: $1${got:+ (saw: $got)}"
}

want "a clean debug boot has none" "" <<<"$boot"
kasan='[   12.345678] BUG: KASAN: slab-use-after-free in p2pmap_link_del+0x1a4/0x2c0 [p2pmap]'
# (a serial console line may end in CR: it is dropped)
want "KASAN use-after-free" "$kasan" < <(printf '%s\n%s\r\n%s\n' "$boot" \
	"$kasan" "[   12.345679] Read of size 8 at addr ffff888004c1e2a8 by task p2pmap/321")
warn='[   20.100000] WARNING: CPU: 1 PID: 99 at kmod/core.c:120 p2pmap_notify+0x80/0x100 [p2pmap]'
want "WARN_ON (WARNING: CPU:)" "$warn" <<<"$boot
$warn"
lockdep='[   30.000000] WARNING: possible circular locking dependency detected'
want "lockdep circular locking" "$lockdep" <<<"$boot
[   29.999999] ======================================================
$lockdep"
rcu='[   31.000000] WARNING: suspicious RCU usage'
want "suspicious RCU usage" "$rcu" <<<"$rcu"
sleep='[   32.000000] BUG: sleeping function called from invalid context at mm/slub.c:4130'
want "sleeping in atomic context" "$sleep" <<<"$sleep"
want "inconsistent lock state" "[ 1.0] inconsistent lock state" <<<"[ 1.0] inconsistent lock state"
want "UBSAN" "[ 1.0] UBSAN: shift-out-of-bounds in kmod/core.c:77:5" \
	<<<"[ 1.0] UBSAN: shift-out-of-bounds in kmod/core.c:77:5"
want "debugobjects" "[ 1.0] ODEBUG: free active (active state 0) object: ffff888 object type: timer_list" \
	<<<"[ 1.0] ODEBUG: free active (active state 0) object: ffff888 object type: timer_list"
want "kmemleak object counted by the guest" "unreferenced object 0xffff888003a1b2c0 (size 64):" \
	<<<"$boot
unreferenced object 0xffff888003a1b2c0 (size 64):"
want "Oops" "[ 5.0] Oops: general protection fault, probably for non-canonical address" \
	<<<"[ 5.0] Oops: general protection fault, probably for non-canonical address"
want "sysfs duplicate name" "[ 98.757070] sysfs: cannot create duplicate filename '/kernel/p2pmap'" \
	<<<"[ 98.757070] sysfs: cannot create duplicate filename '/kernel/p2pmap'"
want "Kernel panic" "[ 5.0] Kernel panic - not syncing: Fatal exception" \
	<<<"[ 5.0] Kernel panic - not syncing: Fatal exception"

expected='P2PMAP-EXPECT-WARN: begin vtd-pte-already-set
[   40.000000] DMAR: ERROR: DMA PTE for vPFN 0xfe600 already set (to fe600003 not 3d1000003)
[   40.000001] WARNING: CPU: 0 PID: 77 at drivers/iommu/intel/iommu.c:1884 __domain_mapping+0x3a6/0x8c0
[   40.000002] Modules linked in: p2pmap(O) p2ptest(O)
P2PMAP-EXPECT-WARN: end'
want "the negative control's expected VT-d WARN is let through" "" <<<"$boot
$expected"
# As the debug kernel prints it (__domain_mapping inlined).
want "... also when the WARN names intel_iommu_map_pages" "" <<<"P2PMAP-EXPECT-WARN: begin vtd-pte-already-set
[  332.622192] DMAR: ERROR: DMA PTE for vPFN 0xfe2ff already set (to fe2ff003 not 483e001)
[  332.623842] ------------[ cut here ]------------
[  332.624324] WARNING: CPU: 1 PID: 1302 at drivers/iommu/intel/iommu.c:1884 intel_iommu_map_pages+0x5f9/0xf80
[  332.648144] ---[ end trace 0000000000000000 ]---
P2PMAP-EXPECT-WARN: end"
want "... but not another WARN in the window" "$warn" <<<"P2PMAP-EXPECT-WARN: begin vtd-pte-already-set
[   40.000000] DMAR: ERROR: DMA PTE for vPFN 0xfe600 already set (to fe600003 not 3d1000003)
[   40.000001] Modules linked in: p2pmap(O) p2ptest(O)
[   40.000002] CPU: 0 UID: 0 PID: 77 Comm: sh
[   40.000003] Call Trace:
$warn
P2PMAP-EXPECT-WARN: end"
want "... nor a KASAN report in the window" "$kasan" <<<"P2PMAP-EXPECT-WARN: begin vtd-pte-already-set
$kasan
P2PMAP-EXPECT-WARN: end"
want "... nor the same WARN after the window" \
	'[   41.000000] WARNING: CPU: 1 PID: 78 at drivers/iommu/intel/iommu.c:1884 __domain_mapping+0x3a6/0x8c0' \
	<<<"$expected
[   41.000000] WARNING: CPU: 1 PID: 78 at drivers/iommu/intel/iommu.c:1884 __domain_mapping+0x3a6/0x8c0"
# Reports without BUG:, WARNING: or Oops in their first line, as Debian's
# 6.1 and 6.12 print them (the sources named in reports.sh).
bugon='[   50.000001] kernel BUG at drivers/iommu/iova.c:203!'
want "BUG_ON on 6.1 (no Oops: before invalid opcode)" "$bugon" <<<"$boot
[   50.000000] ------------[ cut here ]------------
$bugon
[   50.000002] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
[   50.000003] CPU: 1 PID: 94 Comm: p2pmap Tainted: G           OE      6.1.0-57-amd64 #1  Debian 6.1.192-3"
want "6.1's die header alone (invalid opcode)" \
	"[   50.000002] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI" \
	<<<"[   50.000002] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI"
want "6.1's die header of a breakpoint trap (int3)" \
	"[   50.000002] int3: 0000 [#1] PREEMPT SMP NOPTI" \
	<<<"[   50.000002] int3: 0000 [#1] PREEMPT SMP NOPTI"
want "hung task" "[  245.120000] INFO: task rmmod:186 blocked for more than 120 seconds." \
	<<<"$boot
[  245.120000] INFO: task rmmod:186 blocked for more than 120 seconds.
[  245.120001]       Tainted: G           OE      6.12.118+deb12-amd64 #1 Debian 6.12.118-1~deb12u1
[  245.120002] \"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."
want "RCU stall seen by another CPU" \
	"[   81.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" <<<"$boot
[   81.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   81.000001] rcu: 	1-...!: (0 ticks this GP) idle=7a4c/1/0x4000000000000000 softirq=2215/2215 fqs=0"
want "RCU stall seen by the stalled CPU" \
	"[   81.000000] rcu: INFO: rcu_sched self-detected stall on CPU" \
	<<<"[   81.000000] rcu: INFO: rcu_sched self-detected stall on CPU"
want "RCU expedited stall" \
	"[   81.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21 jiffies s: 129 root: 0x2/." \
	<<<"[   81.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21 jiffies s: 129 root: 0x2/."
want "lockdep: a lock without a static key" \
	"[   60.000000] INFO: trying to register non-static key." <<<"$boot
[   60.000000] INFO: trying to register non-static key.
[   60.000001] The code is fine but needs lockdep annotation, or maybe
[   60.000002] you didn't initialize this object before use?"
oom='[   70.000000] p2pbench invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0'
want "OOM killer (its first line)" "$oom" <<<"$oom
[   70.000001] CPU: 0 UID: 0 PID: 321 Comm: p2pbench Tainted: G           OE      6.12.118+deb12-amd64 #1
[   70.000002] Call Trace:
[   70.000090] Out of memory: Killed process 321 (p2pbench) total-vm:1048576kB, anon-rss:983040kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:2048kB oom_score_adj:0"
want "OOM kill" \
	"[   70.000090] Out of memory: Killed process 321 (p2pbench) total-vm:1048576kB, anon-rss:983040kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:2048kB oom_score_adj:0" \
	<<<"[   70.000090] Out of memory: Killed process 321 (p2pbench) total-vm:1048576kB, anon-rss:983040kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:2048kB oom_score_adj:0"
# The console writes the count before the next line, with no timestamp.
want "console lines lost" "** 14 printk messages dropped **" <<<"$boot
** 14 printk messages dropped **
[   90.000000] DMAR: [DMA Read NO_PASID] Request device [00:13.0] fault addr 0xfe900000 [fault reason 0x06] PTE Read access is not set"

# Stack dumps: a bare one is a report; sysrq-l's, between expect_trace's
# markers, are not.
dump='[   95.000000] CPU: 1 UID: 0 PID: 141 Comm: sh Tainted: G           OE      6.12.118+deb12-amd64 #1  Debian 6.12.118-1~deb12u1
[   95.000001] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[   95.000002] Call Trace:
[   95.000003]  <TASK>
[   95.000004]  dump_stack_lvl+0x64/0x80
[   95.000005]  p2pmap_link_del+0x1a4/0x2c0 [p2pmap]
[   95.000006]  </TASK>'
want "a bare Call Trace (a stack dump no report line introduces)" \
	"[   95.000002] Call Trace:" <<<"$boot
$dump
$boot"
# Fault injection's (faultinject.sh, verbose=2): fail_dump is inlined
# into should_fail_ex's cold part in the debug kernel.
want "... but not fault injection's" "" <<<"$boot
[  402.118830] CPU: 0 UID: 0 PID: 812 Comm: p2pmap Tainted: G           O       6.12.118-p2pmap-debug #1
[  402.118842] Tainted: [O]=OOT_MODULE
[  402.118846] Hardware name: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.2-debian-1.16.2-1 04/01/2014
[  402.118850] Call Trace:
[  402.118853]  <TASK>
[  402.118857]  dump_stack_lvl+0x80/0xa0
[  402.118869]  should_fail_ex.cold+0x5/0x1a
[  402.118880]  should_failslab+0xc2/0x120
[  402.118889]  __kmalloc_cache_noprof+0x6f/0x3c0
[  402.118899]  p2pmap_link_create+0x9c/0x6a0 [p2pmap]
[  402.118905]  </TASK>"
# 6.12's sysrq-l (tests/guest/faults.sh); each marker twice (lib.sh: stdout
# and /dev/kmsg), the console's copy of the end late.
sysrq='[   29.282383] sysrq: Show backtrace of all active CPUs
[   29.282600] Sending NMI from CPU 1 to CPUs 0:
[   29.282868] NMI backtrace for cpu 1
[   29.283207] CPU: 1 UID: 0 PID: 141 Comm: sh Tainted: G           OE      6.12.118+deb12-amd64 #1  Debian 6.12.118-1~deb12u1
[   29.283523] Call Trace:
[   29.284069]  <TASK>
[   29.284356]  dump_stack_lvl+0x64/0x80
[   29.284666]  nmi_cpu_backtrace+0xd6/0x110
[   29.285496]  </TASK>
[   29.292609] NMI backtrace for cpu 0
[   29.295059] RIP: 0010:pv_native_safe_halt+0xf/0x20
[   29.297139] Call Trace:
[   29.297735]  <TASK>
[   29.297870]  default_idle+0x9/0x20
[   29.298525]  </TASK>'
tbegin='P2PMAP-EXPECT-TRACE: begin sysrq-l backtraces'
tend='P2PMAP-EXPECT-TRACE: end'
want "sysrq-l's Call Traces inside the trace window" "" <<<"$boot
$tbegin
[   29.282100] $tbegin
$tend
$sysrq
[   29.300000] $tend"
# 6.1's: the console's copy of the begin in the middle of a TAP line, the
# guest's own broken by a kernel line.
want "... 6.1's too (a marker in the middle of a line)" "" <<<"ok 67 - p2pmap is lo[   21.701900] $tbegin
aded for sysrq-l
P2PMAP-EXPECT-TR[   21.702026] sysrq: Show backtrace of all active CPUs
ACE: begin sysrq-l backtraces
[   21.702677] NMI backtrace for cpu 1
[   21.703093] CPU: 1 PID: 94 Comm: sh Tainted: G           OE      6.1.0-57-amd64 #1  Debian 6.1.192-3
[   21.704489] Call Trace:
[   21.705572]  <TASK>
[   21.705669]  dump_stack_lvl+0x44/0x5c
[   21.705669]  </TASK>
[   21.718832] NMI backtrace for cpu 0 skipped: idling at native_safe_halt+0xb/0x10
$tend
[   21.720000] $tend"
want "... but a WARNING inside the trace window is a report" "$warn" <<<"$tbegin
[   29.282100] $tbegin
$sysrq
$warn
[   29.300000] $tend
$tend"
want "... and a Call Trace after the window is one" "[   95.000002] Call Trace:" \
	<<<"$tbegin
[   29.282100] $tbegin
$sysrq
[   29.300000] $tend
$tend
$dump"
want "... also after a stray begin that no end closes" "[   95.000002] Call Trace:" \
	<<<"$tbegin
[   29.282100] $tbegin
$sysrq
$tend
[   29.300000] $tend
[   29.300001] $tbegin
$dump"
want "... also before a stray begin that a later window closes" \
	"[   95.000002] Call Trace:" <<<"[   29.200000] $tbegin
$dump
[   29.282100] $tbegin
$tbegin
$sysrq
[   29.300000] $tend
$tend"
# The kernel's copy of an end closes the window where the guest's was cut.
want "... and after a window whose stdout end a kernel line cut in two" \
	"[   95.000002] Call Trace:" <<<"[   29.282100] $tbegin
$tbegin
$sysrq
P2PMAP-EXPE[   29.300000] $tend
CT-TRACE: end
$dump"
want "a trace window that never closes lets nothing through" \
	"[   29.283523] Call Trace:" <<<"$tbegin
[   29.282100] $tbegin
$sysrq"
# expect_warn's markers twice too, and the expected WARN's own stack dump.
want "the expected VT-d WARN with both marker copies and its Call Trace" "" \
	<<<"P2PMAP-EXPECT-WARN: begin vtd-pte-already-set
[   39.900000] P2PMAP-EXPECT-WARN: begin vtd-pte-already-set
[   40.000000] DMAR: ERROR: DMA PTE for vPFN 0xfe600 already set (to fe600003 not 3d1000003)
[   40.000001] WARNING: CPU: 0 PID: 77 at drivers/iommu/intel/iommu.c:1884 __domain_mapping+0x3a6/0x8c0
[   40.000002] Modules linked in: p2pmap(O) p2ptest(O)
[   40.000003] Call Trace:
[   40.000004]  <TASK>
[   40.000005]  intel_iommu_map_pages+0x5f9/0xf80
[   40.000006]  </TASK>
[   40.000007] ---[ end trace 0000000000000000 ]---
P2PMAP-EXPECT-WARN: end
[   40.100000] P2PMAP-EXPECT-WARN: end"
tap_done
