#!/bin/sh
# floor: 20 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Domains nothing holds (issue 34, items 1 and 2), on gpus4+pxb+mf: A at
# 00:10.0 and E at 41:00.0 behind its own host bridge (p2pmap reserves
# nodes of its own for E's BAR in A's allocator), F0 and F1 at 00:15.0
# and 00:15.1, two functions of one slot in one IOMMU group.  Between a
# driver's dma_cleanup() and p2pmap's UNBOUND_DRIVER nothing holds the
# group's default domain; debug_unbound_delay_ms holds that window open,
# as another device's bind holding p2pmap's lock does on a real host.
#   1. root replaces the domain through the group's type file (identity,
#      then DMA; 6.12+ asks only that no DMA API driver is left): the old
#      domain is freed with p2pmap's nodes and the new one may come back
#      at the same address.  p2pmap must free nothing into it, say what
#      happened at the next bind, and map again there.
#   2. the same after the unbind (the reservations went back at
#      UNBOUND_DRIVER, the domain attached then), and during the unbind
#      with rmmod in the window: the unload must not touch the freed
#      domain (KASAN on the debug kernel).
#   3. VFIO claims the group through F1 (vfio-pci) in the window: the
#      default domain survives with p2pmap's nodes in it; after the
#      release and a rebind of F0 they are p2pmap's again, and F0 -> E
#      maps (before: refused, "unbind and bind the driver", until reboot).
#   4. rmmod while VFIO holds the group: the dormant ranges are left to
#      the kernel, untouched.
. ./lib.sh

A=0000:00:10.0 E=0000:41:00.0 F0=0000:00:15.0 F1=0000:00:15.1
for d in $A $E $F0 $F1; do
	if [ ! -e /sys/bus/pci/devices/$d ]; then
		not_ok "$d is present ($TOPO: pins needs gpus4+pxb+mf)"
		finish
		exit 0
	fi
done
PMD=/modules/p2pmap-debug/p2pmap.ko PT=/modules/p2ptest/p2ptest.ko
DELAY=/sys/module/p2pmap/parameters/debug_unbound_delay_ms
grp_of() { readlink -f /sys/bus/pci/devices/$1/iommu_group; }
nodes_in() { p2pt nodes "$1" "$(bar0 "$2")" 0x100000 | cut -d' ' -f1; }
replaced() { dmesg | grep -c "$1: its group's default domain was replaced"; }

# unbind_held DEV: unbind DEV from p2ptest in the background, p2pmap's
# UNBOUND_DRIVER held back 5 s; returns when the unbind has begun.
unbind_held() {
	echo 5000 >$DELAY
	drv_unbind $1 &
	UNBIND=$!
	wait_until "[ ! -e /sys/bus/pci/devices/$1/driver ]" 10
}

# --- 1. the group's type changed while p2pmap waits at UNBOUND_DRIVER.
check "p2pmap (debug build) loads, A -> E and F0 -> E configured" \
	insmod $PMD drivers=p2ptest "links=$A>$E,$F0>$E"
insmod $PT probe_dma_mib=0
expect "A -> E mapped" "$(link_state $A $E)" mapped
g=$(grp_of $A)
type0=$(cat $g/type)
unbind_held $A
# The write is refused (EPERM) until dma_cleanup() has run; on 6.1 it
# waits for the device lock, which the delayed notifier holds.
check "in the window, root sets A's group to identity" \
	wait_until "echo identity >$g/type 2>/dev/null" 10
check "... and back to DMA: a new default domain" sh -c "echo DMA >$g/type"
wait $UNBIND
echo 0 >$DELAY
check "no kernel report after the unbind" kernel_log_clean
drv_bind $A
# 6.1's type store takes the device lock, which the delayed notifier
# holds: the type changes only after p2pmap gave the ranges back.
case $KVER in
6.1.*)	expect "6.1: the type changed after UNBOUND_DRIVER, nothing was left to go" \
		"$(replaced $A)" 0 ;;
*)	expect "at the rebind or at UNBOUND_DRIVER p2pmap says the old domain went, with its ranges" \
		"$(replaced $A)" 1 ;;
esac
expect "after the rebind A -> E maps in the new domain" \
	"$(link_state $A $E)" mapped
expect "A -> E works" "$(peer_read $A $E)" $ID
expect "A's new domain holds one node in E's BAR: p2pmap's" \
	"$(nodes_in $A $E)" nodes=1
expect "nothing is dormant" "$(cat /sys/kernel/p2pmap/ranges_dormant)" 0

# --- 2. the same after the unbind, then rmmod.
drv_unbind $A
expect "A unbound, its domain still attached: its ranges went back at once" \
	"$(cat /sys/kernel/p2pmap/ranges_dormant) $(nodes_in $A $E)" "0 nodes=0"
echo identity >$g/type
echo DMA >$g/type
expect "root replaced A's unbound group's domain" "$(cat $g/type)" DMA
check "rmmod p2pmap" rmmod p2pmap
check "... no kernel report (the freed domain was not touched)" \
	kernel_log_clean
echo "$type0" >$g/type
drv_bind $A

# --- 2b. rmmod while p2pmap's UNBOUND_DRIVER waits, after a type change:
# the unload must wait for that driver's unbind, not free p2pmap's old
# nodes through the freed domain (KASAN on the debug kernel).
check "p2pmap loads, A -> E configured" \
	insmod $PMD drivers=p2ptest "links=$A>$E"
expect "A -> E mapped" "$(link_state $A $E)" mapped
unbind_held $A
check "in the window, root replaces A's group's domain" \
	wait_until "echo identity >$g/type 2>/dev/null" 10
echo DMA >$g/type
check "rmmod p2pmap in the window" rmmod p2pmap
wait $UNBIND
check "... no kernel report" kernel_log_clean
echo "$type0" >$g/type
drv_bind $A
rmmod p2ptest

# --- 3. VFIO claims F0's group while p2pmap waits at UNBOUND_DRIVER.
load_vfio allow_unsafe_interrupts=1
expect "F0 and F1 share one IOMMU group" "$(grp_of $F0)" "$(grp_of $F1)"
check "p2pmap loads again, F0 -> E configured" \
	insmod $PMD drivers=p2ptest "links=$F0>$E"
insmod $PT probe_dma_mib=0
drv_unbind $F1
echo vfio-pci >/sys/bus/pci/devices/$F1/driver_override
echo $F1 >/sys/bus/pci/drivers/vfio-pci/bind
expect "F1 on vfio-pci" "$(basename "$(readlink /sys/bus/pci/devices/$F1/driver)")" vfio-pci
expect "F0 -> E mapped" "$(link_state $F0 $E)" mapped
grp=$(basename "$(grp_of $F0)")
# claim_in_window: unbind F0 with UNBOUND_DRIVER held back, claim the group
# through F1 meanwhile (a claim before dma_cleanup() is refused, EBUSY:
# tried until it holds), and return once p2pmap has seen UNBOUND_DRIVER,
# VFIO still holding the group (fd 4 releases it).
claim_in_window() {
	unbind_held $F0
	claimed=0
	for i in 1 2 3 4 5 6 7 8; do
		rm -f /tmp/pfifo
		mkfifo /tmp/pfifo
		vfio_claim "$grp" $F1 </tmp/pfifo >/tmp/pclaim.out 2>&1 &
		claim=$!
		exec 4>/tmp/pfifo
		wait_until "grep -q -e claimed -e vfio_claim: /tmp/pclaim.out" 5
		grep -q claimed /tmp/pclaim.out && { claimed=1; break; }
		exec 4>&-
		wait $claim
		sleep 0.3
	done
	sed 's/^/# vfio_claim: /' /tmp/pclaim.out
	wait $UNBIND
	echo 0 >$DELAY
}
release_claim() {
	echo >&4 2>/dev/null
	exec 4>&-
	wait_for /tmp/pclaim.out released
	rc=$?
	wait $claim
	return $rc
}
claim_in_window
expect "VFIO claims the group in the window" $claimed 1
check "with VFIO holding the group at UNBOUND_DRIVER, F0's ranges stay dormant" \
	test "$(cat /sys/kernel/p2pmap/ranges_dormant)" -gt 0
check "VFIO releases it" release_claim
drv_bind $F0
expect "after the release and a rebind, F0 -> E maps" \
	"$(link_state $F0 $E)" mapped
expect "F0 -> E works" "$(peer_read $F0 $E)" $ID
expect "F0's domain holds one node in E's BAR: p2pmap's" \
	"$(nodes_in $F0 $E)" nodes=1

# --- 4. rmmod while VFIO holds the group with p2pmap's ranges dormant in
# its default domain: left to the kernel, untouched.
claim_in_window
expect "VFIO claims the group again, in the window" $claimed 1
check "rmmod p2pmap while VFIO holds the group" rmmod p2pmap
check "... it left the dormant ranges to the kernel, and said so" \
	has "$(dmesg | grep 'left to the kernel')" "left to the kernel"
check "VFIO releases the group" release_claim
echo $F1 >/sys/bus/pci/drivers/vfio-pci/unbind
echo >/sys/bus/pci/devices/$F1/driver_override
rmmod p2ptest
check "no kernel WARNING or BUG in the log" kernel_log_clean
finish
