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
tap_done
