#!/bin/bash
# check-vm.sh (make check-vm): one boot of the suites named, counted as
# make check counts them (tests/harness.sh), for the inner loop:
#   make check-vm KVER=6.12 IOMMU=amd SUITES=early,holds [TOPO=gpus4+pxb] [ARGS="vm.ops=100"]
# KVER: a Debian kernel installed here (a prefix: 6.1, 6.12, or the whole
# release), 7 for trixie-backports' 7.x (tests/newer-kernel.sh), debug for
# the debug kernel (tests/vm/debug-kernel.sh).  IOMMU: vtd (default) or amd
# (QEMU 11 from the trixie chroot where the kernel allows it, as make
# check).  TOPO: a topology of tests/vm/run-vm.sh (default gpus4+pxb).
# It builds what the boot needs first; the last line is make check's.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/logs
mkdir -p "$logs"
. "$top/tests/harness.sh"

kver=${KVER:?KVER=6.1, 6.12, 7 or debug}
iommu=${IOMMU:-vtd}
topo=${TOPO:-gpus4+pxb}
suites=${SUITES:?SUITES=suite[,suite...] (tests/guest/*.sh)}
for s in ${suites//,/ }; do
	[ -e "$top/tests/guest/$s.sh" ] || { echo "check-vm: no suite $s (tests/guest/$s.sh)" >&2; exit 2; }
done

# A 7.x kernel or QEMU 11 comes from the trixie chroot.
newer() {
	P2PMAP_NEWER_IMAGE=1 P2PMAP_NEWER_QEMU=1 "$top/tests/newer-kernel.sh" \
		>"$logs/newer.tap" 2>&1
	suite_file "[7.x]" "$logs/newer.tap"
}
qemu11=
if [ "$iommu" = amd ] || [ "$kver" = 7 ]; then
	newer
	qemu11=$(sed -n 's/^# vm-qemu \([^ ]*\) .*/\1/p' "$logs/newer.tap")
fi
case $kver in
7|7.*)
	set -- $(sed -n 's/^# vm-kernel //p' "$logs/newer.tap")
	[ -n "${1:-}" ] || { totals; exit 1; }
	kver=$1
	export P2PMAP_VM_KERNEL=$2 ;;
debug)
	"$top/tests/vm/debug-kernel.sh" >"$logs/debug-kernel.tap" 2>&1
	suite_file "[6.12-debug]" "$logs/debug-kernel.tap"
	set -- $(sed -n 's/^# vm-kernel //p' "$logs/debug-kernel.tap")
	[ -n "${1:-}" ] || { totals; exit 1; }
	kver=$1
	export P2PMAP_VM_KERNEL=$2 P2PMAP_VM_INITRD=$3
	export P2PMAP_VM_BOOT_TIMEOUT=600 ;;
*)
	k=$("$top/tests/kernels.sh" | grep -F -x -e "$kver" ||
	   "$top/tests/kernels.sh" | grep -F "$kver." | grep "^$kver" | tail -1)
	[ -n "$k" ] || { echo "check-vm: no installed kernel $kver* with headers" >&2; exit 2; }
	kver=$k
	"$top/tests/vm/build.sh" "$kver" >"$logs/build-$kver.log" 2>&1
	result $? "module, test driver and initramfs build for $kver"
	[ "$fail" = 0 ] || { tail -20 "$logs/build-$kver.log"; totals; exit 1; } ;;
esac

# Each suite's budget as tests/vm/boots.tsv gives it on this kernel, and
# the boot's timeout from them, as make check.
P2PMAP_VM_BUDGETS=$(suite_budgets "$(kernel_class "$kver")" "$suites")
P2PMAP_VM_TIMEOUT=$(vm_timeout "${P2PMAP_VM_BOOT_TIMEOUT:-180}" "$P2PMAP_VM_BUDGETS")
export P2PMAP_VM_BUDGETS P2PMAP_VM_TIMEOUT
# shellcheck disable=SC2086
if [ "$iommu" = amd ]; then
	amd_vm "$kver" "$topo" "$suites" ${ARGS:-}
else
	vm "$kver" vtd "$topo" "$suites" ${ARGS:-}
fi
vm_run_all
totals
[ "$fail" -eq 0 ]
