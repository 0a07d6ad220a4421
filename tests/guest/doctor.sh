#!/bin/sh
# floor: 17 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# "p2pmap doctor" against the real state of the guest (issue 12): the edus
# stand in for the GPUs (--gpus 1234:11e8) and p2ptest for nvidia
# (--driver p2ptest).  What it says of the IOMMU, the groups, the paths,
# p2pmap, the links (mapped, pending) and the kernel log's fault lines must
# be what the kernel shows.
. ./lib.sh

A=0000:00:10.0 B=0000:00:11.0 C=0000:00:12.0
doc() { p2pmap doctor --gpus 1234:11e8 --driver p2ptest "$@"; }
line() { echo "$1" | grep -q "$2"; }

insmod /modules/p2ptest/p2ptest.ko
out=$(doc); rc=$?
expect "without p2pmap: exit 1" "$rc" 1
check "without p2pmap: the first blocking cause is p2pmap not loaded" \
	line "$out" "^first blocking cause: p2pmap.loaded: p2pmap is not loaded"
case $IOMMU in vtd) want=VT-d ;; *) want=AMD-Vi ;; esac
check "the active IOMMU is $want" line "$out" "^ok    iommu.driver: $want is active"
g=$(basename "$(readlink /sys/bus/pci/devices/$A/iommu_group)")
check "A's group and its type as sysfs says ($g, $(group_type $A))" \
	line "$out" "gpu.$A.group: IOMMU group $g, $(group_type $A): translated"
check "the edus on pcie.0: one host bridge (PHB)" \
	line "$out" "^ok    path.$A~$B: PHB: one host bridge"

insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
out=$(doc)
check "p2pmap loaded: said" line "$out" "^ok    p2pmap.loaded: p2pmap $(cat /sys/kernel/p2pmap/version) is loaded"
expect "no link yet: a warning for each of the 12 directions" \
	"$(echo "$out" | grep -c '^warn  link\.')" 12
p2pmap link add $A $B >/dev/null
out=$(doc)
check "link A -> B mapped: ok" line "$out" "^ok    link.$A>$B: link $A -> $B is mapped, no fault"
expect "... and 11 directions left without a link" \
	"$(echo "$out" | grep -c '^warn  link\.')" 11
drv_unbind $B
out=$(doc); rc=$?
check "B unbound: the link is pending, a failure" \
	line "$out" "^fail  link.$A>$B: link $A -> $B is pending"
check "... the blocking cause" line "$out" "^first blocking cause: link.$A>$B"
expect "... exit 1" "$rc" 1
drv_bind $B
check "B bound again: mapped" sh -c "p2pmap doctor --gpus 1234:11e8 --driver p2ptest | grep -q '^ok    link.$A>$B'"

# A raw peer read A -> C faults; the kernel log says so (VT-d: the DMAR
# line names A and C's BAR; QEMU 11's AMD-Vi: address 0, never attributed).
dmesg -c >/dev/null
peer_read $A $C >/dev/null
dmesg >/tmp/dmesg.txt
out=$(doc --dmesg /tmp/dmesg.txt)
if [ "$IOMMU" = vtd ]; then
	check "the DMAR fault line of A -> C is attributed to the pair" \
		line "$out" "^warn  log.$A>$C: [1-9][0-9]* IOMMU fault line"
	check "... and to what it hit: C's BAR0 and the offset" \
		line "$out" "^warn  log.$A>$C: .*'s DMA to $C's BAR0 (the last at offset 0x[0-9a-f]*) was not mapped"
elif grep -q IO_PAGE_FAULT /tmp/dmesg.txt; then
	check "AMD-Vi's fault lines at address 0 are counted apart" \
		line "$out" "^warn  log: [1-9][0-9]* IOMMU fault line(s) in /tmp/dmesg.txt, [1-9]"
	expect "... and not attributed to a pair" \
		"$(echo "$out" | grep -c '^warn  log\.0000')" 0
else
	ok "no AMD-Vi fault line to attribute # SKIP QEMU 7.2 logs none"
fi
doc --json | json_true "[c['level'] for c in d['checks'] if c['name'] == 'link.$A>$B'] == ['ok']"
expect "--json: the same checks, A -> B ok" "$?" 0

check "rmmod p2pmap" rmmod p2pmap
check "no kernel WARNING or BUG in the log" kernel_log_clean
finish
