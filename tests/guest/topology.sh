#!/bin/sh
# floor: 28 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Topology (issue 4): NUMA nodes with their own host bridges, links across
# host bridges (where the kernel reserves nothing for us) under IOVA
# pressure, and hot-plug through the QEMU monitor while links churn.
. ./lib.sh
trap '' PIPE

# numa2: A, B on pcie.0, a host bridge of two (N0A, N0B; N1A, N1B) on each
# node.  epyc (the host's shape): node 0's four GPUs on two host bridges,
# which link auto --numa 0 links (12 directions); A, B and N1A, N1B are
# node 1's two host bridges.
case $TOPO in
epyc)	A=0000:61:00.0 B=0000:62:00.0
	N0A=0000:21:00.0 N0B=0000:22:00.0 N1A=0000:81:00.0 N1B=0000:82:00.0
	AUTO="4 devices, 12 links" NAUTO=12 ;;
*)	A=0000:00:10.0 B=0000:00:11.0
	N0A=0000:21:00.0 N0B=0000:22:00.0 N1A=0000:41:00.0 N1B=0000:42:00.0
	AUTO="2 devices, 2 links" NAUTO=2 ;;
esac
RP=0000:00:1c.0

# Boot order (the softdep): p2pmap first, then the GPU driver.
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
insmod /modules/p2ptest/p2ptest.ko

numa() { cat /sys/bus/pci/devices/$1/numa_node; }
expect "node-0 host bridge: its devices are on NUMA node 0" \
	"$(numa $N0A) $(numa $N0B)" "0 0"
expect "node-1 host bridge: its devices are on NUMA node 1" \
	"$(numa $N1A) $(numa $N1B)" "1 1"
out=$(p2pmap link auto --numa 0)
echo "$out" | sed 's/^/# /'
check "link auto --numa 0 links node 0's GPUs only ($AUTO)" \
	sh -c "echo '$out' | grep -q '^link auto: $AUTO added'"
check "link auto --numa 0 says why it skips node 1" \
	sh -c "echo '$out' | grep -q '^skip $N1A: on NUMA node 1, not 0'"
expect "node-0 links mapped" "$(links_in mapped)" $NAUTO
expect "node-0 pair works" "$(peer_read $N0A $N0B)" $ID
expect "no path into node 1" "$(peer_read $N0A $N1A)" 0x00000000

# Two BARs in one window of another host bridge (N0A, N0B behind 0x20),
# reserved before the driver probed.  The window's reservation starts at
# one of the two BARs: mapping that one must not give the window back
# while the other's link lives in it (A adds N0A first, B adds N0B first:
# one of the two orders hits the window's start second).
nodes1() { p2pt nodes $1 "$(bar0 $2)" 0x100000 | cut -d' ' -f1; }
for l in "$A $N0A" "$A $N0B" "$B $N0B" "$B $N0A"; do
	p2pmap link add $l >/dev/null
done
expect "two links into one window of another host bridge, both orders: mapped" \
	"$(links_in mapped)" $((NAUTO + 4))
expect "... every target BAR stays reserved in its initiator's allocator" \
	"$(nodes1 $A $N0A) $(nodes1 $A $N0B) $(nodes1 $B $N0A) $(nodes1 $B $N0B)" \
	"nodes=1 nodes=1 nodes=1 nodes=1"
for l in "$A $N0A" "$A $N0B" "$B $N0B" "$B $N0A"; do
	p2pmap link del $l >/dev/null
done

# Across host bridges: the initiator's IOVA allocator knows nothing of the
# target's BAR; the guard must keep it out.
p2pmap link add $N0A $N1A >/dev/null
expect "cross-bridge link maps" "$(link_state $N0A $N1A)" mapped
res=$(p2pt pressure $N0A $N1A 1024)
echo "# pressure across host bridges: $res"
expect "IOVA pressure aimed at the peer's BAR: no overlap" \
	"$(echo "$res" | sed 's/.*overlaps=\([0-9]*\).*/\1/')" 0
check "IOVA pressure allocated all it asked for" \
	sh -c "echo '$res' | grep -q 'mapped=1024 errors=0'"
expect "cross-bridge link still translates" "$(peer_read $N0A $N1A)" $ID
p2pmap policy set --numa 0 >/dev/null
expect "policy --numa 0: the cross-node link is blocked" \
	"$(link_state $N0A $N1A)" blocked
expect "... and unmapped" "$(p2pt xlate $N0A "$(bar0 $N1A)")" 0x0
expect "policy --numa 0: the node-0 pair stays mapped" \
	"$(link_state $N0A $N0B)" mapped
p2pmap policy set --numa "" >/dev/null

# Hot-plug: a link configured for a device that is not there yet, links
# added and deleted all the while.
p2pmap link add $A $B >/dev/null
( while [ ! -e /tmp/stop ]; do
	p2pmap link add $B $A >/dev/null 2>&1
	p2pmap link del $B $A >/dev/null 2>&1
done ) &
churn=$!
# vm.hotplug=off (the debug kernel's numa2 boot runs with acpi=noirq, see
# tests/run.sh, and q35's ACPI hot-plug needs the SCI): the same device
# arrivals and departures (ADD_DEVICE, DEL_DEVICE) through sysfs remove
# and rescan of a spare edu.
if [ "$(param hotplug)" = off ]; then
	HP=0000:00:13.0
	echo 1 >/sys/bus/pci/devices/$HP/remove
	wait_for_gone $HP 20
	plug() {
		echo 1 >/sys/bus/pci/rescan
		wait_until "[ -e /sys/bus/pci/devices/$HP ]" 20
	}
	unplug() { echo 1 >/sys/bus/pci/devices/$HP/remove; }
	how="sysfs remove/rescan (vm.hotplug=off)"
else
	plug() {
		echo "P2PMAP-HOST: device_add edu,id=hp$1,bus=rphp,dma_mask=0xffffffffffffffff"
		wait_for_dev "$RP" 20
	}
	unplug() { echo "P2PMAP-HOST: device_del hp$1"; }
	how="the QEMU monitor"
fi
echo "# hot-plug through $how"
check "hot-added device appears" plug 1
[ "$(param hotplug)" = off ] || HP=$(hp_dev "$RP")
echo "# hot-added: $HP"
# The device shows in sysfs before its driver's probe (a GPU-like DMA
# allocation, slow under KASAN) has finished: wait for the bind.
check "hot-added device is tracked and bound" \
	wait_until "[ \"\$(cat /sys/kernel/p2pmap/devices/$HP/state 2>/dev/null)\" = bound ]" 20
p2pmap link add $A "$HP" >/dev/null
expect "link to the hot-added device maps" "$(link_state $A "$HP")" mapped
expect "link to the hot-added device works" "$(peer_read $A "$HP")" $ID
barhp=$(bar0 "$HP")
unplug 1
check "hot-removed device disappears" wait_for_gone "$HP" 20
expect "after hot-removal the link is pending" "$(link_state $A "$HP")" pending
expect "after hot-removal nothing maps its old BAR" \
	"$(p2pt xlate $A "$barhp")" 0x0
check "re-plugged device appears" plug 2
check "the configured link comes back by itself" \
	wait_until "[ \"\$(link_state $A $HP)\" = mapped ]" 20
expect "... and works" "$(peer_read $A "$HP")" $ID
touch /tmp/stop
wait $churn
expect "A->B unaffected by the churn and the hot-plug" "$(peer_read $A $B)" $ID
# The hot-plug port left empty, as the boot found it: the next suite of a
# batch (the races) plugs its own device there.
if [ "$(param hotplug)" != off ]; then
	unplug 2
	check "re-plugged device unplugged again" wait_for_gone "$HP" 60
fi
check "no kernel WARNING or BUG in the log" kernel_log_clean

finish
