#!/bin/bash
# bench.sh ("make bench"): boot the newest installed kernel with VT-d, then
# AMD-Vi: once with eight 64 GiB BARs (bigbar) and once with an edu behind
# a second host bridge (gpus4+pxb, the IOVA guard), once in the host's shape
# (epyc, the early reservations), run tests/guest/bench.sh
# in each, print its report.  Every ratio is of two numbers from one boot.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
k=$("$top/tests/kernels.sh" | tail -1)
"$top/tests/vm/build.sh" "$k" >"$top/build/bench-build.log" 2>&1 || {
	tail -20 "$top/build/bench-build.log"
	exit 1
}
# QEMU 11.1 for AMD-Vi on the epyc topology (as make demo: QEMU 7.2's
# amd-iommu cannot translate behind root ports).
qemu11=
case ${P2PMAP_BENCH_IOMMUS:-vtd amd} in *amd*)
	P2PMAP_NEWER_QEMU=1 "$top/tests/newer-kernel.sh" >"$top/build/bench-qemu.log" 2>&1 || true
	qemu11=$(sed -n 's/^# vm-qemu \([^ ]*\) .*/\1/p' "$top/build/bench-qemu.log") ;;
esac
# vm IOMMU TOPOLOGY NAME [KERNEL-ARGS...]: one boot, one at a time on this
# machine (the lock the other VM suites take).
vm() {
	local iommu=$1 topo=$2 log=$top/build/logs/bench-$k-$1-$3.log
	shift 3
	mkdir -p "$(dirname "$log")"
	P2PMAP_BIGBARS=8 flock /tmp/p2pmap-vm.lock "$top/tests/vm/run-vm.sh" \
		"$k" "$iommu" "$topo" bench "$top/build/$k/initrd.cpio" "$log" "$@"
	sed -n 's/^BENCH: //p' "$log" | tr -d '\r'
	grep -q '^BENCH: done' "$log" || { echo "bench: the VM did not finish (see $log)"; exit 1; }
}
for iommu in ${P2PMAP_BENCH_IOMMUS:-vtd amd}; do
	vm "$iommu" bigbar bigbar
	vm "$iommu" gpus4+pxb iova bench.part=iova
	# AMD-Vi behind root ports and host bridges: QEMU 11 (make demo's).
	if [ "$iommu" = vtd ]; then
		vm "$iommu" epyc early bench.part=early
	elif [ -n "$qemu11" ]; then
		P2PMAP_VM_QEMU_ROOT=$qemu11 vm "$iommu" epyc early bench.part=early
	else
		echo "bench: no QEMU 11 (tests/newer-kernel.sh): no AMD-Vi early-reservation bench"
	fi
done
