#!/bin/sh
# make bench, inside the VM: p2pmap's identity mappings against the NVIDIA
# driver's way (dma_map_resource) for the same 64 GiB BARs, and what
# p2pmap adds to a device bind.  Prints a report; asserts nothing.
. ./lib.sh

insmod /modules/p2ptest/p2ptest.ko
T=$(for d in /sys/bus/pci/drivers/p2ptest-mem/0000:*; do basename $d; done)
n=$(echo $T | wc -w)
echo "BENCH: kernel $KVER, IOMMU $IOMMU, $n targets with a 64 GiB BAR2"

echo "BENCH: unbind+bind of an edu without p2pmap:"
p2pbench bind 0000:00:10.0 p2ptest 20 | sed 's/^/BENCH:   /'

insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest,p2ptest-mem
echo "BENCH: ... with p2pmap loaded, tracking it, no link:"
p2pbench bind 0000:00:10.0 p2ptest 20 | sed 's/^/BENCH:   /'
p2pmap link add 0000:00:10.0 0000:00:11.0 >/dev/null
p2pmap link add 0000:00:11.0 0000:00:10.0 >/dev/null
echo "BENCH: ... with a link each way to remap at every bind:"
p2pbench bind 0000:00:10.0 p2ptest 20 | sed 's/^/BENCH:   /'
p2pmap link del 0000:00:10.0 0000:00:11.0 >/dev/null
p2pmap link del 0000:00:11.0 0000:00:10.0 >/dev/null

echo "BENCH: p2pmap, full mesh of links among the first N targets (BAR2, 64 GiB each):"
p2pbench mesh $T >/tmp/mesh.out 2>&1
sed 's/^/BENCH:   /' /tmp/mesh.out

echo "BENCH: dma_map_resource of the same BAR (the NVIDIA driver's way), mean of 20:"
set -- $T
res=$(p2pt benchmap $1 $2 2 20)
echo "BENCH:   $res"
# Ratios at N = 8: p2pmap's time per link less the netlink round trip
# (which dma_map_resource, called in the kernel, does not pay).
rtt=$(sed -n 's/.*round trip (INFO_GET): \([0-9.]*\) us/\1/p' /tmp/mesh.out)
echo "$res $(grep '^8 ' /tmp/mesh.out)" | awk -v rtt="$rtt" '{
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^map_ns=/) map = substr($i, 8) / 1000
		if ($i ~ /^unmap_ns=/) unmap = substr($i, 10) / 1000
		if ($i ~ /^entries=/) ent = substr($i, 9)
	}
	add = $(NF - 2) - rtt; del = $(NF - 1) - rtt
	printf "BENCH: at N=8: map %.1f us/link (p2pmap, netlink excluded) vs %.1f us (dma_map_resource): ratio %.2f\n", add, map, add / map
	printf "BENCH: at N=8: unmap %.1f us/link vs %.1f us: ratio %.2f\n", del, unmap, del / unmap
	printf "BENCH: entries per 64 GiB BAR: p2pmap %s, dma_map_resource %s\n", $NF, ent
}'
echo "BENCH: done"
