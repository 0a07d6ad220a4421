#!/bin/sh
# floor: 34 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# How long p2pmap holds its reservations (issue 23, items 1, 2 and 4), on
# gpus4+pxb (A, C on pcie.0, E behind its own host bridge) or epyc (A and C
# under node 0's first two host bridges, E under node 1's first):
#   1. a driver's remove() runs after UNBIND_DRIVER and may still allocate
#      and use raw peer addresses (NVIDIA's waits for its clients): the
#      reservations stay until UNBOUND_DRIVER;
#   2. small IOVAs freed at unbind wait in the allocator's per-CPU caches,
#      which hand them out first: flushed before the windows are reserved
#      again at the next bind;
#   3. a driver that attaches a domain of its own in probe: what p2pmap
#      reserved at BIND_DRIVER in the default domain goes back while that
#      domain is alive (under KASAN on the debug kernel, the rmmod after
#      the device's removal would otherwise walk freed memory).
# Each has its negative control, with the debug build's switch that puts
# the old behaviour back.
. ./lib.sh

case $TOPO in
epyc)	A=0000:21:00.0 B=0000:22:00.0 C=0000:41:00.0 E=0000:61:00.0 ;;
*)	A=0000:00:10.0 B=0000:00:11.0 C=0000:00:12.0 E=0000:41:00.0 ;;
esac
if [ ! -e /sys/bus/pci/devices/$E ]; then
	not_ok "a peer under another host bridge ($E) is present in $TOPO"
	finish
	exit 0
fi
field() { echo "$2" | sed -n "s/.*$1=\([0-9a-fx]*\).*/\1/p"; }
info_windows() { p2pmap info --json | json_true 'print(d["windows_reserved_bytes"]) or True'; }
# Just above E's BAR0, as p2ptest's "stale" sets the DMA mask: the
# allocator starts there, top down, through E's BAR.
ELIMIT=$(printf '0x%x' $(( ($(bar0 $E) + 0x100000 + 0xfffff) / 0x100000 * 0x100000 + 0xfffff )))
LINKS="$A>$E,$E>$A"
PM=/modules/p2pmap/p2pmap.ko PMD=/modules/p2pmap-debug/p2pmap.ko
PT=/modules/p2ptest/p2ptest.ko

# remove_result: what A's remove() logged about its allocations and its
# raw write to E.
remove_result() {
	dmesg | sed -n "s/.*$A: remove: peer $E //p" | tail -1
}

# --- 1. remove() allocates and raw-writes after UNBIND_DRIVER.
check "p2pmap loads, A <-> E configured" insmod $PM drivers=p2ptest "links=$LINKS"
insmod $PT probe_dma_mib=0 remove_peer=$E remove_pages=512
expect "A -> E mapped" "$(link_state $A $E)" mapped
expect "A -> E works" "$(peer_read $A $E)" $ID
drv_unbind $A
res=$(remove_result)
echo "# A's remove(), after UNBIND_DRIVER: $res"
check "remove() ran its allocations" test -n "$(field mapped "$res")"
expect "remove(): none of its buffers got E's BAR addresses" \
	"$(field overlaps "$res")" 0
expect "remove(): its raw write to E landed in none of its buffers" \
	"$(field landed "$res")" 0
expect "A -> E is no longer mapped (unmapped at UNBIND_DRIVER)" \
	"$(link_state $A $E)" pending
drv_bind $A
expect "after the rebind, A -> E mapped again" "$(link_state $A $E)" mapped
expect "after the rebind, A -> E works" "$(peer_read $A $E)" $ID
check "p2pmap unloads" rmmod p2pmap
rmmod p2ptest

# The control: reservations given back at UNBIND_DRIVER (the old order).
insmod $PMD drivers=p2ptest "links=$LINKS" debug_release_at_unbind=1
insmod $PT probe_dma_mib=0 remove_peer=$E remove_pages=512
drv_unbind $A
res=$(remove_result)
echo "# control, released at UNBIND_DRIVER: $res"
check "control: remove()'s buffers got E's BAR addresses" \
	test "$(field overlaps "$res")" -gt 0
check "control: its raw write to E landed in its RAM" \
	test "$(field landed "$res")" -gt 0
rmmod p2pmap
rmmod p2ptest

# --- 2. small buffers freed at unbind, handed out first at the next bind.
# The driver first, with 512 single pages from just above E's BAR down:
# half of them inside it.  Then p2pmap (late), and a rebind, both on CPU
# 0, in a strict domain (unmaps free at once, not from a flush-queue
# timer on another CPU): the per-CPU caches of the CPU that freed them
# hand them out.  A with p2pmap, B (an allocator of its own, whose caches
# nothing filled before) for the control.
strict() {
	grp=$(readlink -f /sys/bus/pci/devices/$1/iommu_group)
	echo DMA >"$grp/type"
	expect "$1's group is strict for section 2" "$(cat "$grp/type")" DMA
}
type_a=$(group_type $A) type_b=$(group_type $B)
strict $A
strict $B
# small_rebind DEV P2PMAP-ARGS...
small_rebind() {
	local dev=$1
	shift
	insmod $PT probe_dma_mib=0 probe_small=512 probe_small_below=$ELIMIT
	before=$(p2pt smallin $dev $E)
	insmod "$@" drivers=p2ptest "links=$dev>$E"
	taskset 1 sh -c "echo $dev >/sys/bus/pci/drivers/p2ptest/unbind &&
		echo $dev >/sys/bus/pci/drivers/p2ptest/bind"
	after=$(p2pt smallin $dev $E)
}
small_rebind $A $PM
echo "# A's small buffers in E's BAR: before p2pmap $before, after the rebind $after"
check "the driver's first small buffers were in E's BAR (the setup is real)" \
	test "$(field in "$before")" -gt 0
expect "after the rebind all 512 were mapped" "$(field small "$after")" 512
expect "after the rebind none of them is in E's BAR (the caches were flushed)" \
	"$(field in "$after")" 0
expect "after the rebind: A -> E mapped" "$(link_state $A $E)" mapped
expect "after the rebind: A -> E works" "$(peer_read $A $E)" $ID
expect "after the rebind: A -> E write lands" "$(peer_write $A $E)" $LANDED
res=$(p2pt stale $C $E 512)
echo "# C -> E (no link) after the rebind: $res"
expect "C's buffers never get E's BAR addresses" "$(field overlaps "$res")" 0
expect "a raw write C -> E lands in none of C's buffers" \
	"$(field landed "$res")" 0
check "p2pmap unloads" rmmod p2pmap
rmmod p2ptest

small_rebind $B $PMD debug_no_cache_flush=1
echo "# control (B), caches not flushed: before p2pmap $before, after the rebind $after"
check "control: B's first small buffers were in E's BAR" \
	test "$(field in "$before")" -gt 0
check "control: without the flush the rebind's first buffers are in E's BAR" \
	test "$(field in "$after")" -gt 0
expect "control: B -> E refused, with the guard's reason" \
	"$(link_state $B $E)" error
rmmod p2pmap
rmmod p2ptest
echo "$type_a" >"$(readlink -f /sys/bus/pci/devices/$A/iommu_group)/type"
echo "$type_b" >"$(readlink -f /sys/bus/pci/devices/$B/iommu_group)/type"

# --- 3. a driver that attaches its own domain in probe (C: a group of
# its own, behind its own root port or on pcie.0).
insmod $PM drivers=p2ptest "links=$C>$E"
insmod $PT probe_dma_mib=0
w_all=$(info_windows)
drv_unbind $C
w_without=$(info_windows)
echo 1 >/sys/module/p2ptest/parameters/own_domain
drv_bind $C
echo 0 >/sys/module/p2ptest/parameters/own_domain
w_own=$(info_windows)
echo "# windows reserved: all bound $w_all, C unbound $w_without, C on its own domain $w_own"
check "C's driver attached a domain of its own" \
	has "$(dmesg | grep "$C: attached a domain of its own")" attached
check "C's windows went back at unbind" test "$w_without" -lt "$w_all"
expect "C on its own domain: its default domain holds no window of p2pmap's" \
	"$w_own" "$w_without"
expect "C -> E is blocked (C is not on its default domain)" \
	"$(link_state $C $E)" blocked
echo 1 >/sys/bus/pci/devices/$C/remove
check "C is gone" wait_for_gone $C
check "p2pmap unloads after C's group (and default domain) went away" \
	rmmod p2pmap
rmmod p2ptest
echo 1 >/sys/bus/pci/rescan
check "C is back after a rescan" wait_until "[ -e /sys/bus/pci/devices/$C ]"

check "no kernel WARNING or BUG in the log" kernel_log_clean
finish
