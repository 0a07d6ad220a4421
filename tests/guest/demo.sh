#!/bin/sh
# The demo: a peer transfer between two stand-in GPUs fails under the
# translating IOMMU, p2pmap links the pair, the same transfer works.
. ./lib.sh
A=0000:00:10.0 B=0000:00:11.0

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest	# before the GPU driver,
insmod /modules/p2ptest/p2ptest.ko			# as the softdep does
sleep 0.2
say "An emulated host: 4 stand-in GPUs (QEMU edu) on pcie.0 and one behind a second host bridge, IOMMU: $IOMMU, kernel $KVER"
run p2pmap list

say "GPU $A reads GPU $B's BAR0 at the raw peer bus address $(bar0 $B), as NVIDIA's driver does for directions it did not map. A good read returns 0x010000ed; the IOMMU faults it:"
echo "read:  $(peer_read $A $B)"
echo "write: $(peer_write $A $B)   (0xedcba987 = landed, 0xffffffff = lost)"

say "p2pmap saw those faults: the direction shows FLT, though no link is configured on it"
sleep 0.3
run p2pmap status

say "Link the pair: $A may DMA into $B's BARs (and start the fault counters afresh)"
run p2pmap link add $A $B
run p2pmap faults reset

say "The same transfer again"
echo "read:  $(peer_read $A $B)"
echo "write: $(peer_write $A $B)"
sleep 0.3
run p2pmap status

say "Only the linked direction is mapped: $B -> $A still faults"
echo "read:  $(peer_read $B $A)"

say "Remove the link: the fault is back, and the IOMMU group type never changed"
run p2pmap link del $A $B
echo "read:  $(peer_read $A $B)"
echo "group type of $A: $(group_type $A)"
