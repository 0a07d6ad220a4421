#!/bin/sh
# floor: 7 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# AMD SME (issue 23): with mem_encrypt=on, AMD's IOMMU page table of
# kernels before 6.19.4 sets the C-bit on MMIO PTEs too, which AMD requires
# clear for MMIO; p2pmap then maps nothing, and says why.  QEMU (TCG) has
# no SME: the debug build's debug_sme acts as if sme_me_mask were set.
# 7.x (the generic page table with e2692c4eeaa4) maps.
. ./lib.sh

A=0000:00:10.0 B=0000:00:11.0
case $KVER in
6.*)	WANT=refused ;;
*)	WANT=mmio_plain ;;
esac
insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=0
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
expect "SME off here: /sys/kernel/p2pmap/sme" "$(cat /sys/kernel/p2pmap/sme)" off
p2pmap info --json >/tmp/info.json
check "info --json says off" json_true 'd["sme"] == "off"' </tmp/info.json
rmmod p2pmap

insmod /modules/p2pmap-debug/p2pmap.ko drivers=p2ptest debug_sme=1 "links=$A>$B"
expect "SME active on $KVER: /sys/kernel/p2pmap/sme" \
	"$(cat /sys/kernel/p2pmap/sme)" $WANT
reason=$(p2pmap status --json | json_true "print([l['reason'] or '' for l in d['links']][0]) or True")
if [ $WANT = refused ]; then
	expect "SME active, C-bit on MMIO PTEs: A -> B (links=) in error" \
		"$(link_state $A $B)" error
	out=$(p2pmap link add $B $A 2>&1)
	check "link add B A is refused, and says why" \
		has "$out" 'Operation not supported: SME is active'
	check "the reason names SME and the kernel fix" \
		has "$reason" 'SME is active.*e2692c4eeaa4'
	expect "nothing is mapped: A -> B still faults" "$(peer_read $A $B)" \
		0x00000000
	check "p2pmap info says SME refuses" \
		sh -c "p2pmap info | grep -q '^AMD SME: active: .*no identity range is mapped'"
	check "doctor fails cc.sme" \
		sh -c "p2pmap doctor | grep -q '^fail  cc.sme: SME is active'"
else
	expect "SME active, MMIO PTEs without the C-bit ($KVER): A -> B mapped" \
		"$(link_state $A $B)" mapped
	expect "A -> B works" "$(peer_read $A $B)" $ID
	check "doctor: cc.sme ok" \
		sh -c "p2pmap doctor | grep -q '^ok    cc.sme: SME is active; this kernel leaves'"
fi
check "p2pmap unloads" rmmod p2pmap
finish
