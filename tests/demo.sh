#!/bin/bash
# demo.sh: boot an emulated AMD EPYC-shaped host (QEMU, the newest installed
# Debian kernel, run-vm.sh's epyc topology) and show peer transfers before
# and after p2pmap (tests/guest/demo.sh).
# IOMMU=amd (the default: AMD-Vi, on QEMU 11.1 from Debian trixie-backports,
# installed once into build/trixie by tests/newer-kernel.sh) or IOMMU=vtd
# (the host's QEMU).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
iommu=${IOMMU:-amd}
case $iommu in amd|vtd) ;; *) echo "demo: IOMMU=$iommu: amd or vtd" >&2; exit 2 ;; esac
k=$("$top/tests/kernels.sh" | tail -1)
mkdir -p "$top/build"
echo "Building p2pmap for $k ..."
"$top/tests/vm/build.sh" "$k" >"$top/build/demo-build.log" 2>&1 || {
	cat "$top/build/demo-build.log"
	exit 1
}
if [ "$iommu" = amd ]; then
	# QEMU 7.2's amd-iommu cannot translate devices behind root ports.
	echo "QEMU 11.1 for AMD-Vi, in build/trixie (the first time: a few minutes) ..."
	P2PMAP_NEWER_QEMU=1 "$top/tests/newer-kernel.sh" >"$top/build/demo-qemu.log" 2>&1
	qemu11=$(sed -n 's/^# vm-qemu \([^ ]*\) .*/\1/p' "$top/build/demo-qemu.log")
	if [ -z "$qemu11" ]; then
		cat "$top/build/demo-qemu.log"
		echo "demo: no QEMU 11 for AMD-Vi (see build/logs/newer-kernel.log); IOMMU=vtd runs on this QEMU" >&2
		exit 1
	fi
	export P2PMAP_VM_QEMU_ROOT=$qemu11
fi
echo "Booting the emulated host (about a minute) ..."
log=$top/build/demo.log
"$top/tests/vm/run-vm.sh" "$k" "$iommu" epyc demo "$top/build/$k/initrd.cpio" "$log"
# The demo's own lines: not the kernel's console messages (timestamped).
sed -n '/P2PMAP-VM: start/,/P2PMAP-VM: done/p' "$log" | sed 's/\r$//' |
	grep -v -e 'P2PMAP-VM' -e '^qemu-system' -e '^\[ *[0-9]*\.[0-9]*\]' || true
