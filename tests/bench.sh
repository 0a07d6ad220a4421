#!/bin/bash
# bench.sh ("make bench"): boot the newest installed kernel with VT-d, then
# AMD-Vi: once with eight 64 GiB BARs (bigbar) and once with an edu behind
# a second host bridge (gpus4+pxb, the IOVA guard), once in the host's shape
# (epyc, the early reservations), run tests/guest/bench.sh
# in each, print its report.  Every ratio is of two numbers from one boot.
# A boot that does not finish (no "BENCH: done": its guest kernel died, as
# one did with "Oops: int3" in __schedule under TCG) is retried once, its
# log kept as .1.log; the ratios of a first boot are printed too when the
# retry does not finish either.  The bench fails only on a part that no
# boot finished; its last line names those parts.
# P2PMAP_BENCH_RUNVM: a stand-in for tests/vm/run-vm.sh, with its arguments
# (tests/bench-check.sh).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
logs=$top/build/logs
missed=""

# runvm ARGS...: run-vm.sh, one boot at a time on this machine (the lock
# every make bench takes), or the stand-in.
runvm() {
	if [ -n "${P2PMAP_BENCH_RUNVM:-}" ]; then
		"$P2PMAP_BENCH_RUNVM" "$@"
	else
		flock /tmp/p2pmap-vm.lock "$top/tests/vm/run-vm.sh" "$@"
	fi
}

# boot LOG IOMMU TOPOLOGY [KERNEL-ARGS...]: one boot of the bench into LOG;
# fails when the guest did not finish.
boot() {
	local log=$1 iommu=$2 topo=$3
	shift 3
	: >"$log"
	P2PMAP_BIGBARS=8 runvm "$k" "$iommu" "$topo" bench \
		"$top/build/$k/initrd.cpio" "$log" "$@" || true
	grep -q '^BENCH: done' "$log"
}

# report LOG: the guest's report lines.
report() {
	sed -n 's/^BENCH: //p' "$1" | tr -d '\r'
}

# vm IOMMU TOPOLOGY NAME [KERNEL-ARGS...]: one part of the bench: a boot,
# and a second one when the first does not finish.
vm() {
	local iommu=$1 topo=$2 part="$1 $3" log=$logs/bench-$k-$1-$3.log
	local first=$logs/bench-$k-$1-$3.1.log
	shift 3
	mkdir -p "$logs"
	rm -f "$first"	# a .1.log is this run's
	if ! boot "$log" "$iommu" "$topo" "$@"; then
		mv "$log" "$first"
		echo "bench: $part: the VM did not finish (see $first): booting it again"
		if ! boot "$log" "$iommu" "$topo" "$@"; then
			report "$first" | sed -n 's/^\(.*: ratio .*\)/first boot, unfinished: \1/p'
			report "$log"
			echo "bench: $part: the VM did not finish twice (see $first, $log)"
			missed="${missed:+$missed, }$part"
			return
		fi
	fi
	report "$log"
}

# parts: every boot of the bench.
parts() {
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
}

# summary: the parts that no boot finished; fails when there is one.
summary() {
	if [ -n "$missed" ]; then
		echo "bench: not measured (the VM did not finish twice): $missed"
		return 1
	fi
	echo "bench: every part measured"
}

main() {
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
	parts
	summary
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main
fi
