#!/bin/sh
# floor: 13 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Large BARs (issue 4): a 64 GiB 64-bit prefetchable BAR (QEMU ivshmem-plain
# over a sparse file) as the target, like a GPU's VRAM aperture.  A peer
# write lands at its start, middle and last page through a p2pmap link, and
# the mapping uses the largest page sizes the domain offers.
. ./lib.sh

# bigbar: both on pcie.0; epyc+bigbar: A on node 0's first host bridge,
# the big BAR under node 1's first.
case $TOPO in
epyc+bigbar) A=0000:21:00.0 BIG=0000:63:00.0 ;;
*) A=0000:00:10.0 BIG=0000:00:15.0 ;;
esac
insmod /modules/p2ptest/p2ptest.ko
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest,p2ptest-mem

bar2=$(sed -n 3p /sys/bus/pci/devices/$BIG/resource | cut -d' ' -f1)
end2=$(sed -n 3p /sys/bus/pci/devices/$BIG/resource | cut -d' ' -f2)
size=$((end2 - bar2 + 1))
echo "# ivshmem BAR2 at $bar2, $size bytes"
expect "the target BAR is 64 GiB" "$size" $((64 << 30))
check "the target BAR is 64-bit prefetchable and lies above 4 GiB" \
	sh -c "p2pmap list | grep -A3 '^$BIG' | grep -q 'BAR2 .* 64.0 GiB 64bit prefetch' && [ $((bar2)) -ge $((1 << 32)) ]"

last=$((size - 4096))
p2pt dmawrite $A $bar2 c0ffee00 >/dev/null
expect "without a link a peer write into the big BAR is lost" \
	"$(p2pt peek $bar2)" 0x00000000
p2pmap link add $A $BIG --bars 0x4 >/dev/null
expect "link to the big BAR maps" "$(link_state $A $BIG)" mapped
i=1
for off in 0 $((size / 2)) $last; do
	addr=$((bar2 + off))
	pat=$(printf '%08x' $((0x5a5a0000 + i)))
	p2pt dmawrite $A $addr $pat >/dev/null
	expect "peer write lands at offset $off of the 64 GiB BAR" \
		"$(p2pt peek $addr)" "0x$pat"
	expect "the IOMMU translates offset $off to itself" \
		"$(p2pt xlate $A $addr)" "$(printf '0x%x' $addr)"
	i=$((i + 1))
done

# Page-table entries written, against the fewest the domain's page sizes
# allow for this size and alignment (largest aligned page first is optimal
# when page sizes are powers of two).
pgs=$(p2pt pgsizes $A)
min=0 a=$((bar2)) left=$size
while [ $left -gt 0 ]; do
	best=0 p=1
	while [ $p -gt 0 ]; do
		if [ $((pgs & p)) -ne 0 ] && [ $p -le $left ] &&
		   [ $((a % p)) -eq 0 ]; then
			best=$p
		fi
		p=$((p << 1))
	done
	a=$((a + best)) left=$((left - best)) min=$((min + 1))
done
pages=$(p2pmap status --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print([r["pages"] for l in d["links"] for r in l["ranges"]][0])')
echo "# 64 GiB BAR at $bar2: $pages IOMMU page-table entries written, minimum $min (page sizes $pgs, $IOMMU)"
expect "the mapping uses the fewest entries the page sizes allow" "$pages" "$min"

p2pmap link del $A $BIG >/dev/null
p2pt dmawrite $A $bar2 0badf00d >/dev/null
expect "after link del the write is lost again" "$(p2pt peek $bar2)" 0x5a5a0001
check "no kernel WARNING or BUG in the log" kernel_log_clean

finish
