#!/bin/bash
# demo.sh: boot an emulated AMD EPYC-shaped host (QEMU, Debian 12's 6.12
# kernel, run-vm.sh's epyc topology) and show peer transfers before and
# after p2pmap (tests/guest/demo.sh).
# The kernel is not installed: tests/kernel-unpack.sh fetches its packages
# with apt-get download and unpacks them into build/kroot/KVER, which the
# module is built against and the VM boots (P2PMAP_KROOT); nothing goes
# into this machine's /boot or /lib/modules.  P2PMAP_DEMO_KERNEL=KVER
# picks another Debian kernel release.
# IOMMU=amd (the default: AMD-Vi, on QEMU 11.1 from Debian trixie-backports,
# unpacked once into build/qemu11 by tests/qemu-unpack.sh, while the
# kernel is fetched and the module builds) or IOMMU=vtd (the host's QEMU).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
iommu=${IOMMU:-amd}
case $iommu in amd|vtd) ;; *) echo "demo: IOMMU=$iommu: amd or vtd" >&2; exit 2 ;; esac
mkdir -p "$top/build"
t0=$SECONDS
# phase NAME: how long the last phase took (build/demo-times.txt).
phase() {
	echo "$1 $((SECONDS - t0)) s" >>"$top/build/demo-times.txt"
	t0=$SECONDS
}
: >"$top/build/demo-times.txt"
if [ "$iommu" = amd ]; then
	# QEMU 7.2's amd-iommu cannot translate devices behind root ports.
	# Downloads, mostly: in the background while the module builds.
	echo "QEMU 11.1 for AMD-Vi, into build/qemu11 (the first time: a minute) ..."
	( s=$SECONDS
	  "$top/tests/qemu-unpack.sh" >"$top/build/demo-qemu.log" 2>&1
	  r=$?
	  echo "qemu-unpack $((SECONDS - s)) s (beside kernel-unpack and build)" \
		>>"$top/build/demo-times.txt"
	  exit $r ) &
	qemu_job=$!
fi
echo "Fetching Debian's kernel into build/kroot ..."
kroot=$("$top/tests/kernel-unpack.sh" ${P2PMAP_DEMO_KERNEL:+"$P2PMAP_DEMO_KERNEL"} \
	2>"$top/build/demo-kernel.log") || {
	cat "$top/build/demo-kernel.log"
	exit 1
}
export P2PMAP_KROOT=$kroot
k=$(basename "$kroot")
phase kernel-unpack
echo "Building p2pmap for $k ..."
# What the demo's guest runs, no more: no Python/YNL, no debug module.
P2PMAP_WITH_PYTHON=0 P2PMAP_BUILD_DEBUG=0 P2PMAP_BUILD_JOBS=$(nproc) \
	"$top/tests/vm/build.sh" "$k" \
	>"$top/build/demo-build.log" 2>&1 || {
	cat "$top/build/demo-build.log"
	exit 1
}
phase build
if [ "$iommu" = amd ]; then
	wait "$qemu_job" || true
	phase qemu-wait
	qemu11=$(sed -n 's/^# vm-qemu \([^ ]*\) .*/\1/p' "$top/build/demo-qemu.log")
	if [ -z "$qemu11" ]; then
		cat "$top/build/demo-qemu.log"
		echo "demo: no QEMU 11 for AMD-Vi; IOMMU=vtd runs on this machine's QEMU" >&2
		exit 1
	fi
	export P2PMAP_VM_QEMU_ROOT=$qemu11
fi
echo "Booting the emulated host (about a minute) ..."
log=$top/build/demo.log
"$top/tests/vm/run-vm.sh" "$k" "$iommu" epyc demo "$top/build/$k/initrd.cpio" "$log"
phase boot
echo "total $SECONDS s" >>"$top/build/demo-times.txt"
# The demo's own lines: not the kernel's console messages (timestamped).
sed -n '/P2PMAP-VM: start/,/P2PMAP-VM: done/p' "$log" | sed 's/\r$//' |
	grep -v -e 'P2PMAP-VM' -e '^qemu-system' -e '^\[ *[0-9]*\.[0-9]*\]' || true
