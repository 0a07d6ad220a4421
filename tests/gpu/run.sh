#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-gpu: what the CUDA driver answers to the calls verify makes
# (tests/gpu/probe.c), from the stand-in libcuda and, on a machine with an
# NVIDIA GPU, from the real driver, set one beside the other; then list,
# doctor and verify on that machine.  Without a GPU (every build machine)
# it checks the probe against the stand-in and the stand-in against each
# real driver's answers saved before under tests/gpu/seen/, and says "no
# NVIDIA GPU": it runs in make check in that form.  P2PMAP_GPU_SEEN: where
# a real run saves what it saw (default tests/gpu/seen; the device
# machine's $OUT/seen).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/gpu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/tap.sh"

cc -Wall -Wextra -Werror -I"$top/user/verify" -o "$tmp/probe" "$here/probe.c" \
	"$top/user/verify/gate_ptx.c" "$top/user/verify/cuda.c" \
	"$top/user/verify/cuda_errors.c" -ldl 2>"$tmp/build.log"
tap $? "the probe builds" || sed 's/^/# /' "$tmp/build.log"
make -s -C "$top/tests/cuda-stub" OUT="$tmp/stub" >>"$tmp/build.log" 2>&1
tap $? "the stand-in libcuda builds"

# The answers compared: every line but the measured ones (time.*).
answers() { grep -v '^time\.' "$1"; }

P2PMAP_CUDA_STUB="0000:01:00.0" LD_LIBRARY_PATH=$tmp/stub "$tmp/probe" \
	>"$tmp/stub.txt" 2>&1
answers "$tmp/stub.txt" | diff -u "$here/stub.want" - >"$tmp/stub.diff"
tap $? "the stand-in's answers to the probe are tests/gpu/stub.want's" ||
	sed 's/^/# /' "$tmp/stub.diff"
sed 's/^/# stand-in: /' "$tmp/stub.txt"

# Each real driver seen before: the stand-in answers as it did.
for seen in "$here"/seen/*.txt; do
	[ -e "$seen" ] || continue
	answers "$seen" | grep -v '^#' >"$tmp/seen.txt"
	diff -u "$tmp/seen.txt" <(answers "$tmp/stub.txt") >"$tmp/seen.diff"
	tap $? "the stand-in answers as the real driver of $(basename "$seen" .txt) did" ||
		sed 's/^/# /' "$tmp/seen.diff"
done

# A real GPU: NVIDIA's driver loaded with a GPU, and a libcuda.so.1 that
# is not the stand-in on the library path.
if ! ls /proc/driver/nvidia/gpus/* >/dev/null 2>&1; then
	echo "# no NVIDIA GPU: the real driver was not probed"
	tap 0 "no NVIDIA GPU here: nothing of the real driver to compare (make check-gpu on a machine with one)"
	tap_done
	exit
fi
name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null |
	head -1 | tr -c 'A-Za-z0-9.\n' '-' | tr -s '-')
name=${name:-nvidia}
seen_dir=${P2PMAP_GPU_SEEN:-$here/seen}
mkdir -p "$seen_dir"
env -u LD_LIBRARY_PATH "$tmp/probe" >"$tmp/real.txt" 2>&1
rc=$?
{ echo "# $(nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader 2>/dev/null | head -1)"
  cat "$tmp/real.txt"; } >"$seen_dir/$name.txt"
[ $rc = 0 ] && grep -q '^init 0$' "$tmp/real.txt"
tap $? "the real driver initialises (saved in $seen_dir/$name.txt)"
sed 's/^/# real: /' "$tmp/real.txt"
diff -u <(answers "$tmp/stub.txt") <(answers "$tmp/real.txt") >"$tmp/real.diff"
tap $? "the real driver answers as the stand-in does (else: fix the stand-in)" ||
	sed 's/^/# /' "$tmp/real.diff"

# End to end on this machine: list, doctor, verify (one GPU: exit 3, said).
p2pmap=$top/user/p2pmap
make -s -C "$top/user" p2pmap >>"$tmp/build.log" 2>&1
"$p2pmap" list --gpus >"$seen_dir/$name-list.txt" 2>&1
rc=$?
{ [ $rc = 0 ] || [ $rc = 4 ]; } && grep -qi nvidia "$seen_dir/$name-list.txt"
tap $? "list --gpus shows the GPU (exit $rc)"
"$p2pmap" doctor >"$seen_dir/$name-doctor.txt" 2>&1
rc=$?
[ $rc -le 1 ] && grep -q '^ok    cuda.driver' "$seen_dir/$name-doctor.txt"
tap $? "doctor: cuda.driver ok (exit $rc)"
env -u LD_LIBRARY_PATH "$p2pmap" verify --json >"$seen_dir/$name-verify.json" 2>&1
rc=$?
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$n" -lt 2 ]; then
	[ $rc = 3 ]
	tap $? "verify with one GPU: exit 3 (fewer than two CUDA devices)"
else
	[ $rc = 0 ] || [ $rc = 1 ]
	tap $? "verify on $n GPUs: a verdict for each direction (exit $rc)"
fi
tap_done
