#!/bin/sh
# floor: 32 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Early reservations (issue 11): a stand-in GPU driver that allocates like
# a GPU driver at probe (probe_dma_mib: 1 MiB IOVAs, below 4 GiB first),
# and peers under another host bridge (gpus4+pxb: A, B on pcie.0, E at
# 41:00.0 behind its own host bridge).  Boot order first (p2pmap loaded
# before the driver, as the softdep does), then p2pmap loaded late, then
# the same without early reservations: the control that shows the hazard.
. ./lib.sh

A=0000:00:10.0 B=0000:00:11.0 C=0000:00:12.0 E=0000:41:00.0
# A suite of the gpus4+pxb topology: without E it fails (tests/run.sh
# boots it there; a boot of another shape is a harness mistake).
if [ ! -e /sys/bus/pci/devices/$E ]; then
	not_ok "a peer behind a second host bridge ($E) is present ($TOPO)"
	finish
	exit 0
fi
MIB=256
EBAR=$(printf '0x%x' "$(bar0 $E)")
LINKS="$A>$E,$E>$A,$A>$B"
field() { echo "$2" | sed -n "s/.*$1=\([0-9a-fx]*\).*/\1/p"; }
info_windows() { p2pmap info --json | json_true 'print(d["windows_reserved_bytes"]) or True'; }

# --- 1. boot order: p2pmap first, with its links, then the GPU driver.
check "p2pmap loads before the driver, links configured" \
	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest "links=$LINKS"
insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=$MIB
for d in $A $E; do
	res=$(p2pt probeinfo $d)
	echo "# $d probe: $res"
	expect "$d's driver got all the $MIB MiB it asked for" \
		"$(field mapped "$res")" $MIB
done
check "A's first allocations were below 4 GiB, as dma-iommu does" \
	test "$(field below4g "$(p2pt probeinfo $A)")" -gt 0
expect "boot order: A -> E mapped" "$(link_state $A $E)" mapped
expect "boot order: E -> A mapped" "$(link_state $E $A)" mapped
expect "boot order: A -> B mapped" "$(link_state $A $B)" mapped
expect "A -> E works" "$(peer_read $A $E)" $ID
expect "E -> A works" "$(peer_read $E $A)" $ID
expect "A -> E write lands" "$(peer_write $A $E)" $LANDED
expect "no link in error" "$(links_in error)" 0
w=$(info_windows)
echo "# other host bridges' windows reserved: $w bytes"
check "info reports the windows reserved early" test "$w" -gt 0
# Never linked: B -> E.  B's buffers never get E's addresses, and a raw
# write from B to E's BAR faults instead of landing in B's RAM.
res=$(p2pt stale $B $E 512)
echo "# B -> E (no link) after B allocated: $res"
expect "B mapped all 512 pages (the check below has something to say)" \
	"$(field mapped "$res")" 512
expect "B's buffers never get E's BAR addresses" "$(field overlaps "$res")" 0
expect "a raw write B -> E lands in none of B's buffers" \
	"$(field landed "$res")" 0
expect "E's BAR address translates to nothing in B's domain (a fault)" \
	"$(p2pt xlate $B "$EBAR")" 0x0
# A rebind is a new probe: the same again.
drv_unbind $A
drv_bind $A
expect "after a rebind of A: A -> E mapped" "$(link_state $A $E)" mapped
expect "after a rebind of A: A -> E works" "$(peer_read $A $E)" $ID
check "p2pmap unloads" rmmod p2pmap
rmmod p2ptest

# --- 2. late load: the driver first, then p2pmap: a clear reason, and
# the rebind that fixes it.
insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=$MIB
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest "links=$LINKS"
st=$(link_state $A $E)
reason=$(p2pmap status --json | json_true "print([l['reason'] for l in d['links'] if l['initiator'] == '$A' and l['target'] == '$E'][0]) or True")
echo "# late load: A -> E $st: $reason"
expect "late load: A -> E in error" "$st" error
check "the reason says the driver allocated there before p2pmap" \
	has "$reason" 'allocated .* before p2pmap'
check "the reason says how to fix it" \
	has "$reason" 'load p2pmap before the driver'

drv_unbind $A
drv_bind $A
expect "after unbind/bind of A: A -> E mapped" "$(link_state $A $E)" mapped
expect "after unbind/bind of A: A -> E works" "$(peer_read $A $E)" $ID
check "p2pmap unloads" rmmod p2pmap
rmmod p2ptest

# --- 3. the control: without early reservations the hazard is real.
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest "links=$LINKS" reserve=none
insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=$MIB
expect "reserve=none: A -> E cannot map (the driver took the range)" \
	"$(link_state $A $E)" error
x=$(p2pt xlate $B "$EBAR")
echo "# reserve=none: E's BAR address in B's domain translates to $x"
check "reserve=none: B's driver was handed E's BAR address (it translates to B's own buffer)" \
	test "$x" != 0x0 -a "$x" != "$EBAR"
expect "reserve=none: a raw write B -> E is lost" "$(peer_write $B $E)" $LOST
# And where the driver's buffer there is RAM: C, probed without the big
# allocation, maps pages with a DMA mask just above E's BAR.
echo 0 >/sys/module/p2ptest/parameters/probe_dma_mib
drv_unbind $C
drv_bind $C
res=$(p2pt stale $C $E 512)
echo "# reserve=none, C -> E: $res"
check "reserve=none: C's buffers get E's BAR addresses" \
	test "$(field overlaps "$res")" -gt 0
check "reserve=none: a raw write C -> E lands in C's RAM" \
	test "$(field landed "$res")" -gt 0
check "p2pmap unloads" rmmod p2pmap
rmmod p2ptest

check "no kernel WARNING or BUG in the log" kernel_log_clean
finish
