#!/bin/bash
# bench.sh ("make bench"): boot the newest installed kernel with VT-d and
# eight 64 GiB BARs, run tests/guest/bench.sh, print its report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
k=$("$top/tests/kernels.sh" | tail -1)
"$top/tests/vm/build.sh" "$k" >"$top/build/bench-build.log" 2>&1 || {
	tail -20 "$top/build/bench-build.log"
	exit 1
}
for iommu in ${P2PMAP_BENCH_IOMMUS:-vtd amd}; do
	log=$top/build/logs/bench-$k-$iommu.log
	mkdir -p "$(dirname "$log")"
	P2PMAP_BIGBARS=8 "$top/tests/vm/run-vm.sh" "$k" "$iommu" bigbar bench \
		"$top/build/$k/initrd.cpio" "$log"
	sed -n 's/^BENCH: //p' "$log" | tr -d '\r'
	grep -q '^BENCH: done' "$log" || { echo "bench: the VM did not finish (see $log)"; exit 1; }
done
