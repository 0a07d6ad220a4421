#!/bin/sh
# The demo (make demo): the host p2pmap is for, in run-vm.sh's epyc
# topology.  Eight stand-in GPUs, each behind its own root port, under four
# host bridges on two NUMA nodes; node 1's four belong to a VM (vfio-pci).
# Peer transfers among node 0's GPUs fail under the translating IOMMU,
# "p2pmap link auto --numa 0" links them, the same transfers work, and
# nothing reaches the VM's GPUs.  What it prints is Documentation/demo.md's
# block (tests/guest/demo-epyc.want, compared by tests/run.sh).
# floor: 0 (no check of its own: tests/run.sh compares what it prints)
. ./lib.sh
trap '' PIPE

N0="0000:21:00.0 0000:22:00.0 0000:41:00.0 0000:42:00.0"
N1="0000:61:00.0 0000:62:00.0 0000:81:00.0 0000:82:00.0"
A=0000:21:00.0 B=0000:41:00.0 V=0000:61:00.0

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }
# matrix: every direction among node 0's GPUs, by a raw-address peer read.
matrix() {
	for a in $N0; do for b in $N0; do
		[ $a = $b ] && continue
		r=$(peer_read $a $b)
		case $r in
		$ID) v=works ;;
		0x00000000) v="faults (read returned 0)" ;;
		*) v="read $r" ;;
		esac
		echo "  $a -> $b: $v"
	done; done
}

# kernel_lines: the kernel's lines that the quiet console did not show.
# Under make check (vm.suite=batch) every one, as dmesg prints it, for
# tests/vm/reports.sh on the console log (tests/run.sh's epyc() leaves
# those "[ time ]" lines out of the documented block).  Under make demo the
# reports only, indented: tests/demo.sh drops lines that start with a
# timestamp.
kernel_lines() {
	if [ "$(param suite)" = batch ]; then
		cat $KLOG
	elif grep -qE "$REPORTS" $KLOG; then
		say "The kernel reported:"
		grep -E "$REPORTS" $KLOG | sed 's/^/  /'
	fi
}
# The first lines of tests/vm/reports.sh's reports.
REPORTS='BUG:|BUG at|UBSAN:|WARNING:|Oops|Kernel panic|ODEBUG:|general protection|inconsistent lock state|INFO: |Call Trace:|\[#[0-9]+\]|invoked oom-killer|Killed process|messages dropped|duplicate filename|unreferenced object'

# The kernel's console messages (the IOMMU's fault lines among them) would
# land in the middle of the demo's lines: only emergencies go to the
# console while it runs; the end puts the level back and shows what the
# console missed (kernel_lines).  KLOG: the kernel log of the demo's run
# (the boot's reports are on the console already).
KLOG=/tmp/demo-klog
dmesg -c >/dev/null
echo 1 >/proc/sys/kernel/printk
# The boot order of a real host: p2pmap (the softdep), vfio-pci takes
# node 1's GPUs for the VM, the GPU driver binds node 0's.
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
vfio_take $N1 >/dev/null
insmod /modules/p2ptest/p2ptest.ko
wait_until "for d in $N0; do [ -e /sys/bus/pci/devices/\$d/driver ] || exit 1; done" 20

case $IOMMU in amd) iommu=AMD-Vi ;; *) iommu=VT-d ;; esac
say "An emulated AMD EPYC-shaped host: 8 stand-in GPUs (QEMU edu), each behind its own root port, under 4 host bridges on 2 NUMA nodes; node 1's four belong to a VM (vfio-pci). IOMMU: $iommu, translating (IOMMU group type $(group_type $A))."
run p2pmap list -d 1234

say "Node 0's GPUs read each other's BAR0 at the raw peer bus address, as NVIDIA's driver does for directions it did not map (a good read returns 0x010000ed):"
dmesg -c >$KLOG
matrix
say "The IOMMU logged those faults:"
dmesg | grep -m 3 -e 'IO_PAGE_FAULT' -e 'DMAR: \[DMA Read' |
	sed 's/^\[[^]]*\] *//; s/^/  /'
if [ "$IOMMU" = amd ]; then
	echo "  (QEMU's AMD-Vi writes address=0x0 and the device 00:00.0 into these"
	echo "  events for devices behind a root port, so p2pmap attributes none of"
	echo "  them here, and the matrix below shows no FLT; on a real EPYC host, and"
	echo "  under VT-d (make demo IOMMU=vtd), those directions show FLT)"
fi
sleep 0.3
run p2pmap status

say "Link every direction among node 0's GPUs (the VFIO GPUs are skipped)"
run p2pmap link auto --numa 0
p2pmap faults reset >/dev/null

say "The same transfers again"
matrix

say "Nothing reaches the VM's GPUs: a link into $V is refused, and it maps nothing"
run p2pmap link add $A $V
echo "  $A -> $V: $(peer_read $A $V)  (0x00000000: faulted)"
p2pmap link del $A $V >/dev/null

say "The verdict (the end of p2pmap status, after its 12 links)"
printf '$ %s\n' "p2pmap status | sed -n '/^P2P matrix/,\$p'"
p2pmap status | sed -n '/^P2P matrix/,$p'
echo "group type of $A: $(group_type $A) (never changed)"

# Where the server runs: a container.  unshare -U -n -r gives the CLI the
# user and network namespaces an unprivileged LXC container has.
say "Inside a container (its own user and network namespaces, as an unprivileged LXC container has): a change is the host's, the verdict is the same"
printf '$ %s\n' "unshare -U -n -r p2pmap link del $A $B"
unshare -U -n -r p2pmap link del $A $B 2>&1
echo "(exit $?)"
printf '$ %s\n' "unshare -U -n -r p2pmap check"
unshare -U -n -r p2pmap check
echo "(exit $?)"
printf '$ %s\n' "unshare -U -n -r p2pmap status | tail -1"
unshare -U -n -r p2pmap status | tail -1
echo 5 >/proc/sys/kernel/printk
dmesg >>$KLOG
kernel_lines
