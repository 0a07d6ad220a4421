#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of "p2pmap verify" against a stand-in libcuda.so.1 (tests/cuda-stub):
# the real binary, the stub found through LD_LIBRARY_PATH (dlopen honours
# it), fault counters injected with P2PMAP_VERIFY_FAULTS_FILE (for tests
# only).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
p2pmap=$top/user/p2pmap
stubdir=$top/build/cuda-stub
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"
make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >>"$tmp/build.log" 2>&1
tap $? "the CUDA stub builds"

want_syms="cuCtxEnablePeerAccess cuCtxSetCurrent cuCtxSynchronize
cuDeviceCanAccessPeer cuDeviceGet cuDeviceGetCount cuDeviceGetPCIBusId
cuDevicePrimaryCtxRelease_v2 cuDevicePrimaryCtxRetain cuGetErrorString
cuInit cuMemAlloc_v2 cuMemFree_v2 cuMemcpyDtoH_v2 cuMemcpyHtoD_v2
cuMemcpyPeer"
got_syms=$(nm -D --defined-only "$stubdir/libcuda.so.1" | awk '{print $3}' |
	   sort | tr '\n' ' ')
[ "$got_syms" = "$(echo $want_syms | tr ' ' '\n' | sort | tr '\n' ' ')" ]
tap $? "the stub exports exactly the 16 entry points p2pmap looks up"

# Four GPUs; the third has an upper-case bus id with an 8-digit domain.
devs="0000:01:00.0,0000:41:00.0,00000000:C1:00.0,0000:E1:00.0"
rules="refuse=0->2;noenable=3->0;wrong=1->0;error=2->1;fault=0->1"
export P2PMAP_CUDA_STUB="$devs;$rules"
export P2PMAP_CUDA_STUB_LOG=$tmp/stub.log
export HOME=$tmp/home
unset CUDA_VISIBLE_DEVICES VLLM_CACHE_ROOT XDG_CACHE_HOME
mkdir -p "$HOME"
printf '# direction before after\n0->1 0 3\n2->0 4 4\n' >"$tmp/faults"

# run NAME ARGS...: p2pmap with the stub; NAME.out, NAME.err, NAME.rc
run() {
	local name=$1
	shift
	LD_LIBRARY_PATH=$stubdir "$p2pmap" "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

line() {	# line NAME "GPUa (..) -> GPUb (..): VERDICT..."
	grep -qxF -- "$2" "$tmp/$1.out"
}

rm -f "$tmp/stub.log"
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run all verify --vllm-cache
[ "$(cat "$tmp/all.rc")" = 1 ]
tap $? "exit 1 when a direction does not work"
line all "GPU1 (0000:41:00.0) -> GPU2 (0000:c1:00.0): works"
tap $? "verdict works"
line all "GPU2 (0000:c1:00.0) -> GPU0 (0000:01:00.0): works"
tap $? "verdict works with a counter that did not grow (4 -> 4)"
line all "GPU1 (0000:41:00.0) -> GPU0 (0000:01:00.0): wrong data (first wrong byte at offset 0 of 4194304)"
tap $? "verdict wrong data"
line all "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): faulted (p2pmap fault counter 0 -> 3, data wrong)"
tap $? "verdict faulted from the injected counters"
line all "GPU0 (0000:01:00.0) -> GPU2 (0000:c1:00.0): peer access refused (cuDeviceCanAccessPeer: no)"
tap $? "verdict peer access refused (cuDeviceCanAccessPeer 0)"
line all "GPU3 (0000:e1:00.0) -> GPU0 (0000:01:00.0): peer access refused (cuCtxEnablePeerAccess: peer access is not supported between these two devices)"
tap $? "verdict peer access refused (cuCtxEnablePeerAccess 217)"
line all "GPU2 (0000:c1:00.0) -> GPU1 (0000:41:00.0): error (cuMemcpyPeer: CUDA error 700: an illegal memory access was encountered)"
tap $? "verdict error, with cuGetErrorString's text"
[ "$(grep -c ': ' "$tmp/all.out")" -ge 12 ] &&
	line all "verify: 12 directions, 7 work"
tap $? "12 directions, summary line"
cache=$HOME/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json
line all "vllm cache: $cache"
tap $? "the vLLM cache path is printed"
python3 - "$cache" "$tmp/all.out" <<'PY'
import json, re, sys
cache = json.load(open(sys.argv[1]))
works = set()
for l in open(sys.argv[2]):
    m = re.match(r"GPU(\d) \(.*\) -> GPU(\d) \(.*\): (.*)", l)
    if m and m.group(3) == "works":
        works.add((int(m.group(1)), int(m.group(2))))
want = {"%d->%d" % (a, b): a == b or (a, b) in works
        for a in range(4) for b in range(4)}
assert cache == want, (cache, want)
assert cache["1->2"] is True and cache["0->1"] is False
PY
tap $? "the vLLM cache: every pair, true exactly for works (and the diagonal)"
[ -z "$(ls -A "$HOME/.cache/vllm" | grep -v '^gpu_p2p_access_cache_for_0,1,2,3.json$')" ]
tap $? "the vLLM cache is written atomically (no temporary file left)"
[ "$(stat -c %a "$cache")" = 644 ]
tap $? "the vLLM cache is mode 0644"
grep -qx "allocations=0 contexts=0 peer_copies=10" "$tmp/stub.log"
tap $? "every allocation freed and context released; 10 peer copies (not for refused)"

P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run json verify --json --size 64K
python3 - "$tmp/json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dirs = {(x["from"], x["to"]): x for x in d["directions"]}
assert len(dirs) == 12
assert d["summary"] == {"directions": 12, "working": 7}, d["summary"]
f = dirs[(0, 1)]
assert f["verdict"] == "faulted" and f["faults_before"] == 0 \
    and f["faults_after"] == 3 and f["cuda_error"] is None
assert f["from_pci"] == "0000:01:00.0" and f["to_pci"] == "0000:41:00.0"
e = dirs[(2, 1)]
assert e["verdict"] == "error"
assert e["cuda_error"] == "an illegal memory access was encountered"
assert dirs[(0, 2)]["verdict"] == "peer access refused"
assert dirs[(0, 2)]["faults_before"] is None
assert dirs[(1, 0)]["verdict"] == "wrong data"
assert dirs[(1, 2)]["verdict"] == "works" and dirs[(1, 2)]["faults_after"] == 0
assert d["vllm_cache"] is None
PY
tap $? "--json: directions, verdicts, counters, CUDA errors, summary"

# A fault on a direction whose data arrive is still "faulted".
printf '1->3 5 6\n' >"$tmp/faults2"
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults2 run f2 verify --devices 1,3
line f2 "GPU1 (0000:41:00.0) -> GPU3 (0000:e1:00.0): faulted (p2pmap fault counter 5 -> 6, data correct)" &&
	[ "$(cat "$tmp/f2.rc")" = 1 ]
tap $? "faulted whatever the data; exit 1"
printf '0000:41:00.0->0000:e1:00.0 1 2\n' >"$tmp/faults3"
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults3 run f3 verify --devices 3,1
line f3 "GPU1 (0000:41:00.0) -> GPU3 (0000:e1:00.0): faulted (p2pmap fault counter 1 -> 2, data correct)"
tap $? "the faults file takes PCI addresses too; --devices order is kept"

# All work: exit 0.
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run good verify --devices 1,3 --vllm-cache
[ "$(cat "$tmp/good.rc")" = 0 ] &&
	line good "GPU1 (0000:41:00.0) -> GPU3 (0000:e1:00.0): works" &&
	line good "GPU3 (0000:e1:00.0) -> GPU1 (0000:41:00.0): works" &&
	line good "verify: 2 directions, 2 work"
tap $? "exit 0 when every direction works"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"0->0": True, "0->1": True, "1->0": True, "1->1": True}' \
	"$HOME/.cache/vllm/gpu_p2p_access_cache_for_1,3.json"
tap $? "vLLM cache of a subset: named after the subset, keys are positions"
CUDA_VISIBLE_DEVICES=4,5,6,7 XDG_CACHE_HOME=$tmp/xdg \
	P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run vis verify --devices 1,3 --vllm-cache
[ -f "$tmp/xdg/vllm/gpu_p2p_access_cache_for_5,7.json" ]
tap $? "vLLM cache under XDG_CACHE_HOME, named by CUDA_VISIBLE_DEVICES' entries"

# Without counters (module not loaded, no file): verdicts from the data.
run nofile verify --devices 0,1
grep -q "fault counters unknown" "$tmp/nofile.err" &&
	line nofile "GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0): wrong data (first wrong byte at offset 0 of 4194304)"
tap $? "fault counters unknown: said so, verified anyway"
run nofilejson verify --devices 0,1 --json
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert all(x["faults_before"] is None and x["faults_after"] is None for x in d["directions"])' \
	"$tmp/nofilejson.out"
tap $? "fault counters unknown: null in --json"

# Usage errors: exit 2.
rc=0
for args in "--devices 0,0" "--devices 0" "--devices x" "--size 0" \
	    "--size 2G" "--size" "--bogus"; do
	# shellcheck disable=SC2086
	run usage verify $args
	[ "$(cat "$tmp/usage.rc")" = 2 ] || { rc=1; echo "# $args"; }
done
tap $rc "usage errors exit 2"
run range verify --devices 0,9
[ "$(cat "$tmp/range.rc")" = 1 ] && grep -q "no CUDA device 9" "$tmp/range.err"
tap $? "a device index out of range: exit 1"

# No CUDA: exit 3.
P2PMAP_CUDA_STUB="" run nodev verify
[ "$(cat "$tmp/nodev.rc")" = 3 ] &&
	grep -qx "p2pmap verify: no CUDA devices" "$tmp/nodev.err"
tap $? "no CUDA devices: exit 3"
P2PMAP_CUDA_STUB="0000:01:00.0" run onedev verify
[ "$(cat "$tmp/onedev.rc")" = 3 ]
tap $? "one CUDA device: exit 3"
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	tap_skip "no CUDA driver" "this host has a real libcuda.so.1"
else
	"$p2pmap" verify >"$tmp/nolib.out" 2>"$tmp/nolib.err"
	[ $? = 3 ] && grep -qxF "p2pmap verify: no CUDA driver (libcuda.so.1 not found)" \
		"$tmp/nolib.err"
	tap $? "no libcuda.so.1 on the path: exit 3, no CUDA driver"
fi

tap_done
