#!/bin/bash
# demo.sh: boot an emulated multi-GPU host (QEMU, VT-d, the newest installed
# Debian kernel) and show a peer transfer before and after p2pmap.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
k=$("$top/tests/kernels.sh" | tail -1)
echo "Building p2pmap for $k ..."
"$top/tests/vm/build.sh" "$k" >"$top/build/demo-build.log" 2>&1 || {
	cat "$top/build/demo-build.log"
	exit 1
}
echo "Booting the emulated host (about 15 s) ..."
log=$top/build/demo.log
"$top/tests/vm/run-vm.sh" "$k" vtd gpus4+pxb demo "$top/build/$k/initrd.cpio" "$log"
sed -n '/P2PMAP-VM: start/,/P2PMAP-VM: done/p' "$log" |
	grep -v -e 'P2PMAP-VM' -e '^qemu-system' -e 'DRHD: handling fault' |
	sed 's/\r$//' || true
