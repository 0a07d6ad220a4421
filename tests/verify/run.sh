#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of "p2pmap verify" against a stand-in libcuda.so.1 (tests/cuda-stub):
# the real binary, the stub found through LD_LIBRARY_PATH (dlopen honours
# it), fault counters injected with P2PMAP_VERIFY_FAULTS_FILE (for tests
# only).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# P2PMAP_VERIFY_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_VERIFY_BIN:-$top/user/p2pmap}
stubdir=$top/build/cuda-stub
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"
make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >>"$tmp/build.log" 2>&1
tap $? "the CUDA stub builds"

# The stub exports what verify looks up (user/verify/cuda.h), and the
# synchronous cuMemcpyPeer that the driver has too (older verifies used it).
cc -I"$top/user/verify" -o "$tmp/names" "$top/tests/cuda-check/symbols.c" \
	"$top/user/verify/cuda.c" "$top/user/verify/cuda_errors.c" -ldl 2>>"$tmp/build.log"
want_syms=$( ("$tmp/names" -; echo cuMemcpyPeer) | sort | tr '\n' ' ')
got_syms=$(nm -D --defined-only "$stubdir/libcuda.so.1" | awk '{print $3}' |
	   sort | tr '\n' ' ')
[ -n "$want_syms" ] && [ "$got_syms" = "$want_syms" ]
tap $? "the stub exports the $(echo $want_syms | wc -w) entry points verify looks up, and cuMemcpyPeer"

# Four GPUs; the third has an upper-case bus id with an 8-digit domain.
# Rules are for the engine of the first GPU (the initiator).
devs="0000:01:00.0,0000:41:00.0,00000000:C1:00.0,0000:E1:00.0"
rules="refuse=0->2;noenable=3->0;wrong=1->0;error=2->1;fault=0->1;hang=3->2:r"
export P2PMAP_CUDA_STUB="$devs;$rules"
export P2PMAP_CUDA_STUB_LOG=$tmp/stub.log
export HOME=$tmp/home
# The records of the caches (cache_record.h): here, not in /var/lib/p2pmap.
export P2PMAP_STATE_DIR=$tmp/state
# The GPUs' PCIe links (pcie_link.h): a fixture sysfs, never this host's.
export P2PMAP_VERIFY_PCI_DIR=$tmp/pci-none
mkdir -p "$P2PMAP_VERIFY_PCI_DIR"
# pcilink DIR PCI SPEED WIDTH [MAX_SPEED MAX_WIDTH]: a GPU's link in a
# fixture sysfs, as the kernel spells it ("32.0 GT/s PCIe"), and its IDs:
# ${PCIDEV:-0x2bb5}, an RTX PRO 6000 Blackwell Server Edition (NVIDIA's
# open-gpu-kernel-modules README), unless PCIDEV names another.
pcilink() {
	mkdir -p "$1/$2"
	echo 0x10de >"$1/$2/vendor"
	echo "${PCIDEV:-0x2bb5}" >"$1/$2/device"
	echo "$3 GT/s PCIe" >"$1/$2/current_link_speed"
	echo "$4" >"$1/$2/current_link_width"
	echo "${5:-$3} GT/s PCIe" >"$1/$2/max_link_speed"
	echo "${6:-$4}" >"$1/$2/max_link_width"
}
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER VLLM_CACHE_ROOT XDG_CACHE_HOME
mkdir -p "$HOME"
printf '# direction before after\n0->1:write 0 3\n2->0 4 4\n' >"$tmp/faults"

# run NAME ARGS...: p2pmap with the stub; NAME.out, NAME.err, NAME.rc
run() {
	local name=$1
	shift
	LD_LIBRARY_PATH=${STUBDIR:-$stubdir} "$p2pmap" "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}

# The host's time to issue a copy (bandwidth lines) is measured, and
# varies from run to run: lines are compared with it as "N.N".
hostre='s/(host: )[0-9]+\.[0-9] us to issue/\1N.N us to issue/'
line() {	# line NAME "GPUa (..) -> GPUb (..): VERDICT..."
	sed -E "$hostre" "$tmp/$1.out" | grep -qxF -- "$(sed -E "$hostre" <<<"$2")"
}

g0="GPU0 (0000:01:00.0)" g1="GPU1 (0000:41:00.0)"
g2="GPU2 (0000:c1:00.0)" g3="GPU3 (0000:e1:00.0)"
rm -f "$tmp/stub.log"
mkdir -p "$tmp/hang13"
start=$(date +%s)
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults P2PMAP_CUDA_STUB_STATE=$tmp/hang13 \
	run all verify --timeout 2 --vllm-cache --sglang-cache
took=$(($(date +%s) - start))
[ "$(cat "$tmp/all.rc")" = 1 ]
tap $? "exit 1 when a direction does not work"
line all "$g1 -> $g2: works"
tap $? "verdict works"
line all "$g2 -> $g0: works"
tap $? "verdict works with a counter that did not grow (4 -> 4)"
line all "$g1 -> $g0: wrong data (first wrong byte at offset 0 of 4194304)"
tap $? "verdict wrong data, on both operations"
line all "$g0 -> $g1: faulted [write: faulted (p2pmap fault counter 0 -> 3, data wrong); read: wrong data (first wrong byte at offset 0 of 4194304)]"
tap $? "faulted from the write's counters; the read judged on its own"
line all "$g0 -> $g2: peer access refused (cuDeviceCanAccessPeer: no)"
tap $? "verdict peer access refused (cuDeviceCanAccessPeer 0)"
line all "$g3 -> $g0: peer access refused (cuCtxEnablePeerAccess: CUDA_ERROR_PEER_ACCESS_UNSUPPORTED (217): peer access is not supported between these two devices)"
tap $? "verdict peer access refused (cuCtxEnablePeerAccess 217), name and number"
line all "$g2 -> $g1: error (cuMemcpyPeerAsync: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered)"
tap $? "verdict error, with the CUresult's name, number and text"
line all "$g3 -> $g2: hung [write: works; read: hung (not done after 2 s: killed)]"
tap $? "a copy that never completes: hung, the child killed by the watchdog"
# Counted, not timed (a loaded machine took 20-32 s): the one hung
# operation, 3 -> 2's read, hung once on each of its four paths, and the
# run went on past it.
[ "$(wc -l <"$tmp/hang13/hangs")" = 4 ] &&
	[ "$(grep -c " at=copy$" "$tmp/hang13/hangs")" = 1 ]
tap $? "the hung copy cost one timeout per path it hangs on, not the run ($took s)"
# The sticky 700 of 2 -> 1 spoils nothing after it (one process each).
for d in "$g2 -> $g3" "$g3 -> $g1" "$g1 -> $g3" "$g0 -> $g3"; do
	line all "$d: works" || echo "# $d"
done >"$tmp/sticky"
[ ! -s "$tmp/sticky" ]
tap $? "directions after a sticky CUDA error still work (each in its own process)"
[ "$(grep -c ': ' "$tmp/all.out")" -ge 12 ] &&
	line all "verify: 12 directions, 6 work on every path (copy, sm, ipc, cumem)"
tap $? "12 directions, summary line"
# Each child appends one line when it unloads the stub (the enumeration
# too; the hung one is killed first).  A child without a CUDA error must
# have freed, released, destroyed and disabled all it took, and no copy
# may have been staged through the host.
# Four paths (verify_paths.h) per operation; ipc and cumem fork an owner
# process each, which logs too.
python3 - "$tmp/stub.log" <<'PY'
import re, sys
lines = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1])]
# the enumeration, 12 x 4 x 2 children less the 4 of 3 -> 2's read that
# were killed, 12 x 2 x 2 owners; the 2 owners of a killed child see it
# gone (EOF) and may clean up before the signal that kills them arrives;
# after each of the 4 hangs, GPU3 and GPU2 checked alone (both answer)
assert 1 + 96 - 4 + 48 - 2 + 8 <= len(lines) <= 1 + 96 - 4 + 48 + 8, len(lines)
clean = [l for l in lines if l["allocations"] == "0"]
dirty = [l for l in lines if l["allocations"] != "0"]
assert len(dirty) == 8, dirty          # the 700s of 2 -> 1 on every path
held = ("contexts", "peers", "streams", "modules", "ipc_open", "mappings",
        "handles")
assert all(l[k] == "0" for l in clean for k in held), clean
assert all(l["staged"] == "0" for l in lines)
assert sum(int(l["peer_copies"]) for l in lines) == 19  # 24 - 4 refused - 1 killed
assert sum(int(l["kernels"]) for l in lines) > 0
PY
tap $? "each child and each owner frees all it took (memory, IPC mappings, cuMem handles, modules), disables peer access, stages nothing"

cache=$HOME/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json
sglang=$HOME/.cache/sglang/gpu_p2p_access_cache_for_0,1,2,3.json
line all "vllm cache: $cache (read by vLLM only with VLLM_SKIP_P2P_CHECK=0)" &&
	line all "sglang cache: $sglang (read by SGLang unless SGLANG_SKIP_P2P_CHECK=1)"
tap $? "the cache paths are printed, with the variable each framework needs"
# What the frameworks' own gpu_p2p_access_check() writes for the same
# verdicts: vLLM vllm/distributed/device_communicators/
# custom_all_reduce_utils.py (SGLang's copy is the same): keys in
# itertools.product order, json.dump(cache, f, indent=4), no newline.  Key
# "i->j" is the process on GPU j writing GPU i's buffer; a pair is true
# only when p2pmap verified both directions (else the two ranks disagree).
expect() {	# expect OUT CACHE: the file the frameworks would write
	python3 - "$1" "$2" <<'PY'
import itertools, json, re, sys
works = set()
n = 0
for l in open(sys.argv[1]):
    m = re.match(r"GPU(\d+) \(.*\) -> GPU(\d+) \(.*\): (\S+)", l)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        n = max(n, a + 1, b + 1)
        if m.group(3) == "works":
            works.add((a, b))
cache = {}
for i, j in itertools.product(range(n), range(n)):
    cache[f"{i}->{j}"] = i == j or ((i, j) in works and (j, i) in works)
with open(sys.argv[2], "w") as f:
    json.dump(cache, f, indent=4)
PY
}
expect "$tmp/all.out" "$tmp/want.json" && cmp "$tmp/want.json" "$cache"
tap $? "the vLLM cache is byte for byte what vLLM writes for these verdicts"
cmp "$tmp/want.json" "$sglang"
tap $? "the SGLang cache too, under ~/.cache/sglang"
python3 -c 'import json,sys; c = json.load(open(sys.argv[1])); assert c["1->3"] and c["3->1"] and not c["1->2"] and not c["2->1"] and not c["0->3"] and not c["3->0"]' "$cache"
tap $? "a pair is true only when both its directions work (symmetric)"
[ -z "$(ls -A "$HOME/.cache/vllm" | grep -v '^gpu_p2p_access_cache_for_0,1,2,3.json$')" ] &&
	[ "$(stat -c %a "$cache")" = 644 ]
tap $? "the cache is written atomically (no temporary file left), mode 0644"

P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run json verify --json --size 64K --timeout 1
python3 - "$tmp/json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dirs = {(x["from"], x["to"]): x for x in d["directions"]}
assert len(dirs) == 12
assert d["summary"] == {"directions": 12, "working": 6, "not_tested": None,
                        "skipped": 0, "wedged": []}, d["summary"]
f = dirs[(0, 1)]
assert f["verdict"] == "faulted" and f["faults_before"] == 0 \
    and f["faults_after"] == 3 and f["cuda_error"] is None
assert f["write"]["verdict"] == "faulted" and f["read"]["verdict"] == "wrong_data"
assert f["read"]["faults_after"] == 0
assert f["from_pci"] == "0000:01:00.0" and f["to_pci"] == "0000:41:00.0"
e = dirs[(2, 1)]
assert e["verdict"] == "error" and e["cuda_code"] == 700
assert e["cuda_call"] == "cuMemcpyPeerAsync"
assert e["cuda_error"].endswith("an illegal memory access was encountered")
assert dirs[(3, 2)]["verdict"] == "hung" and dirs[(3, 2)]["write"]["verdict"] == "works"
assert dirs[(0, 2)]["verdict"] == "peer_access_refused"
assert dirs[(1, 0)]["verdict"] == "wrong_data"
assert dirs[(1, 2)]["verdict"] == "works" and dirs[(1, 2)]["faults_after"] == 0
assert d["vllm_cache"] is None and d["sglang_cache"] is None
assert d["device_order"] == "FASTEST_FIRST"
PY
tap $? "--json: directions, write and read, verdicts, counters, CUDA errors"

# Writes and reads are told apart, by the initiator's engine.
P2PMAP_CUDA_STUB="$devs;fault=1->3:r;wrong=3->1:w" run rw verify --devices 1,3
line rw "$g1 -> $g3: wrong data [write: works; read: wrong data (first wrong byte at offset 0 of 4194304)]" &&
	line rw "$g3 -> $g1: wrong data [write: wrong data (first wrong byte at offset 0 of 4194304); read: works]"
tap $? "a read by GPU1 and a write by GPU3 fail alone: the initiator is the first GPU"

# More GPUs than a device's eight peer connections: every direction works.
ten=$(for i in 1 2 3 4 5 6 7 8 9 10; do printf '0000:%02x:00.0,' $((i * 16)); done)
rm -f "$tmp/stub.log"
P2PMAP_CUDA_STUB="${ten%,}" run ten verify --size 4K
line ten "verify: 90 directions, 90 work on every path (copy, sm, ipc, cumem)" && ! grep -v ' peers=0 ' "$tmp/stub.log" | grep -q .
tap $? "ten GPUs: 90 directions work (peer access disabled after each, never 711)"

# A fault on a direction whose data arrive is still "faulted".
printf '1->3 5 6\n' >"$tmp/faults2"
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults2 run f2 verify --devices 1,3
line f2 "$g1 -> $g3: faulted (p2pmap fault counter 5 -> 6, data correct)" &&
	[ "$(cat "$tmp/f2.rc")" = 1 ]
tap $? "faulted whatever the data; exit 1"
printf '0000:41:00.0->0000:e1:00.0:read 1 2\n' >"$tmp/faults3"
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults3 run f3 verify --devices 3,1
line f3 "$g1 -> $g3: faulted [write: works; read: faulted (p2pmap fault counter 1 -> 2, data correct)]"
tap $? "the faults file takes PCI addresses and an operation; --devices order is kept"
# --devices by GPU UUID (nvidia-smi's spelling; the stub makes one from the
# bus id) and by PCI address, in any of p2pmap's forms, mixed with ordinals.
uuid1=GPU-a0a1a2a3-a4a5-a6a7-0000-000000410000
run byid verify --devices "${uuid1^^}",0000:E1:00.0
[ "$(grep -c ' -> ' "$tmp/byid.out")" = 2 ] &&
	head -1 "$tmp/byid.out" | grep -qF "$g1 -> $g3:" &&
	line byid "$g3 -> $g1: works"
tap $? "--devices by GPU UUID (any case) and PCI address: those two GPUs, in that order"
run byshort verify --devices c1:00.0,1
head -1 "$tmp/byshort.out" | grep -qF "$g2 -> $g1:"
tap $? "--devices by short PCI address (c1:00.0 is the 8-digit-domain GPU) and ordinal"
rc=0
for args in "GPU-deadbeef-0000-0000-0000-000000000000,0" "0,01:00.0" \
	"$uuid1,1" "GPU-a0a1,0" "0,zz:00.0"; do
	run devbad verify --devices "$args"
	[ "$(cat "$tmp/devbad.rc")" = 2 ] || { rc=1; echo "# --devices $args: exit $(cat "$tmp/devbad.rc")"; }
done
tap $rc "--devices: an unknown UUID, one GPU named twice (ordinal and address, UUID and ordinal), a malformed UUID or address: exit 2"
run devbad verify --devices "0,$uuid1,$uuid1"
grep -q "names CUDA device 1 twice (as $uuid1)" "$tmp/devbad.err"
tap $? "... the GPU named twice is said"

# All work: exit 0.
P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run good verify --devices 1,3 --vllm-cache
[ "$(cat "$tmp/good.rc")" = 0 ] &&
	line good "$g1 -> $g3: works" &&
	line good "$g3 -> $g1: works" &&
	line good "verify: 2 directions, 2 work on every path (copy, sm, ipc, cumem)"
tap $? "exit 0 when every direction works"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"0->0": True, "0->1": True, "1->0": True, "1->1": True}' \
	"$HOME/.cache/vllm/gpu_p2p_access_cache_for_1,3.json"
tap $? "the cache of a subset: named after the subset, keys are positions"

# A driver that compiles no PTX (issue 35, item 8): the sm, ipc and cumem
# paths launch a PTX kernel, so they are not tested, and nothing says P2P
# failed: in a container that mounts only libcuda.so*, cuModuleLoadData
# returns 221 (no libnvidia-ptxjitcompiler); with CUDA_DISABLE_JIT=1, 223.
# env then keeps P2P on the copy engine's evidence, paths unknown.
jitwhy="the driver compiles no PTX (cuModuleLoadData: CUDA_ERROR_JIT_COMPILER_NOT_FOUND (221)): in a container, pass in the host's libnvidia-ptxjitcompiler.so.1 beside libcuda.so.1; unset CUDA_DISABLE_JIT"
P2PMAP_CUDA_STUB="$devs;jit=221" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
	run jit verify --devices 1,3
[ "$(cat "$tmp/jit.rc")" = 0 ] &&
	line jit "$g1 -> $g3: works" && line jit "$g3 -> $g1: works" &&
	line jit "  paths: copy works" &&
	line jit "  not tested for: NCCL, vLLM, SGLang" &&
	line jit "verify: 2 directions, 2 work on the paths run (copy)" &&
	line jit "verify: sm, ipc, cumem not tested: $jitwhy" &&
	! grep -q "error" "$tmp/jit.out" && [ ! -s "$tmp/jit.err" ]
tap $? "no PTX JIT (221): sm, ipc, cumem not tested, why and what to mount said once, no error, exit 0"
P2PMAP_CUDA_STUB="$devs;jit=221" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
	run jitjson verify --devices 1,3 --json
python3 - "$tmp/jitjson.out" "$jitwhy" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"] == {"directions": 2, "working": 2, "not_tested": sys.argv[2],
                        "skipped": 0, "wedged": []}, d["summary"]
for r in d["directions"]:
    assert r["verdict"] == "works" and r["decided_by"] == "copy", r
    assert r["paths"]["copy"]["verdict"] == "works", r["paths"]
    assert [r["paths"][p] for p in ("sm", "ipc", "cumem")] == [None] * 3, r["paths"]
    assert r["frameworks"] == {"nccl": None, "vllm": None, "sglang": None}, r
PY
tap $? "... --json: the PTX paths null (not run), frameworks null, summary.not_tested says why"
CUDA_DISABLE_JIT=1 P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults run nojit verify --devices 1,3
[ "$(cat "$tmp/nojit.rc")" = 0 ] &&
	grep -qF "verify: sm, ipc, cumem not tested: the driver compiles no PTX (cuModuleLoadData: CUDA_ERROR_JIT_COMPILATION_DISABLED (223)" "$tmp/nojit.out"
tap $? "... CUDA_DISABLE_JIT=1 (223): the same, not tested"
P2PMAP_CUDA_STUB="$devs;jit=221" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
	run jitsm verify --devices 1,3 --paths sm
[ "$(cat "$tmp/jitsm.rc")" = 1 ] &&
	grep -qF "$g1 -> $g3: error (via sm: cuModuleLoadData: CUDA_ERROR_JIT_COMPILER_NOT_FOUND (221)" "$tmp/jitsm.out" &&
	line jitsm "verify: sm not tested: $jitwhy"
tap $? "... --paths sm alone: nothing tested, an error that names the call, exit 1"
# The driver's teardown (dlclose of libcuda) after the work (issue 35,
# item 6): each child sends its result first, so a crash there changes
# nothing, and a hang costs a bounded wait (isolate.h), not the verdict.
P2PMAP_CUDA_STUB="$devs;unload=crash" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
	run unloadcrash verify --devices 1,3
[ "$(cat "$tmp/unloadcrash.rc")" = 0 ] &&
	line unloadcrash "verify: 2 directions, 2 work on every path (copy, sm, ipc, cumem)"
tap $? "libcuda's teardown crashes after the work: every direction still works, exit 0" ||
	sed 's/^/# /' "$tmp/unloadcrash.out" "$tmp/unloadcrash.err" | head -20
t0=$(date +%s)
P2PMAP_CUDA_STUB="$devs;unload=hang" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
	run unloadhang verify --devices 1,3 --paths copy,ipc --timeout 30
t1=$(date +%s)
[ "$(cat "$tmp/unloadhang.rc")" = 0 ] &&
	line unloadhang "verify: 2 directions, 2 work on the paths run (copy, ipc)" &&
	grep -q "^p2pmap verify: 1 test process(es) did not exit after reporting (libcuda's teardown hung): killed, their results stand" "$tmp/unloadhang.err" &&
	[ $((t1 - t0)) -lt 20 ] && ! pgrep -f "$p2pmap verify --devices 1,3 --paths copy,ipc" >/dev/null
tap $? "... hangs after the work: still works; the first child killed after a bounded wait, the later ones leave without unloading ($((t1 - t0)) s in all, not a 30 s timeout each), said on stderr, none left" ||
	sed 's/^/# /' "$tmp/unloadhang.out" "$tmp/unloadhang.err" | head -20
# A peer mapping refused or failed, with the codes cuda.h documents for
# each call (issue 35, item 9): cuCtxEnablePeerAccess 217 or 205 (seen in
# the field with IOMMU trouble), cuIpcOpenMemHandle 205, cuMemSetAccess
# 801: every path "peer access refused", the call and code named; never
# an "error" that reads as a broken copy.
for rule in noenable mapfail; do
	P2PMAP_CUDA_STUB="$devs;$rule=1->3" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
		run $rule verify --devices 1,3 --json
done
python3 - "$tmp/noenable.out" "$tmp/mapfail.out" <<'PY'
import json, sys
want = {"copy": ("cuCtxEnablePeerAccess", 217), "sm": ("cuCtxEnablePeerAccess", 217),
        "ipc": ("cuIpcOpenMemHandle", 205), "cumem": ("cuMemSetAccess", 801)}
for f, enable in zip(sys.argv[1:], (217, 205)):
    d = json.load(open(f))
    r = d["directions"][0]
    assert (r["from"], r["to"], r["verdict"]) == (1, 3, "peer_access_refused"), (f, r["verdict"])
    for p, (call, code) in want.items():
        if call == "cuCtxEnablePeerAccess":
            code = enable
        for op in ("write", "read"):
            o = r["paths"][p][op]
            assert (o["verdict"], o["cuda_call"], o["cuda_code"]) == ("peer_access_refused", call, code), (f, p, op, o)
    assert d["directions"][1]["verdict"] == "works", (f, d["directions"][1]["verdict"])
PY
tap $? "peer mapping refused: 217 or 205 from cuCtxEnablePeerAccess, 205 from cuIpcOpenMemHandle, 801 from cuMemSetAccess: every path refused, call and code named; the other direction works"
P2PMAP_CUDA_STUB="$devs;mapfail=1->3" P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults \
	run mapfailtext verify --devices 1,3
line mapfailtext "$g1 -> $g3: peer access refused (cuCtxEnablePeerAccess: CUDA_ERROR_MAP_FAILED (205): mapping of buffer object failed)"
tap $? "... in the text: one verdict, the call and CUDA_ERROR_MAP_FAILED (205) named"
# env on that output: the PTX paths unknown are not a P2P failure.
jroot=$tmp/jitroot
for a in 0000:41:00.0 0000:e1:00.0; do
	mkdir -p "$jroot/sys/bus/pci/devices"
	ln -s "../../../devices/pci0000:${a:5:2}/$a" "$jroot/sys/bus/pci/devices/$a"
	for b in 0000:41:00.0 0000:e1:00.0; do
		[ "$a" = "$b" ] && continue
		mkdir -p "$jroot/sys/kernel/p2pmap/links/$a-$b"
		echo mapped >"$jroot/sys/kernel/p2pmap/links/$a-$b/state"
		echo >"$jroot/sys/kernel/p2pmap/links/$a-$b/reason"
		echo 0 >"$jroot/sys/kernel/p2pmap/links/$a-$b/faults"
	done
done
"$p2pmap" env --verify "$tmp/jit.out" --root "$jroot" >"$tmp/jitenv.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -qx "unset NCCL_P2P_DISABLE" "$tmp/jitenv.out" &&
	! grep -q "NCCL_P2P_DISABLE=1" "$tmp/jitenv.out"
tap $? "... env on that output: P2P stays on (no NCCL_P2P_DISABLE=1), exit 0" ||
	sed 's/^/# /' "$tmp/jitenv.out"

# Cache paths: vLLM's envs.py rules, computed here by Python itself.
vllm_path() {
	python3 -c 'import os; print(os.path.join(os.path.expanduser(os.getenv("VLLM_CACHE_ROOT", os.path.join(os.getenv("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache")), "vllm"))), "gpu_p2p_access_cache_for_1,3.json"))'
}
rc=0
for env in "XDG_CACHE_HOME=$tmp/xdg" "VLLM_CACHE_ROOT=~/vroot" \
	   "VLLM_CACHE_ROOT=~/vroot/" "XDG_CACHE_HOME=~/x" \
	   "VLLM_CACHE_ROOT=$tmp/abs XDG_CACHE_HOME=$tmp/ignored"; do
	# shellcheck disable=SC2086
	want=$(env $env bash -c "$(declare -f vllm_path); vllm_path")
	# shellcheck disable=SC2086
	env $env LD_LIBRARY_PATH=$stubdir "$p2pmap" verify --devices 1,3 \
		--vllm-cache >"$tmp/path.out" 2>&1
	grep -qxF "vllm cache: $want (read by vLLM only with VLLM_SKIP_P2P_CHECK=0)" "$tmp/path.out" &&
		[ -f "$want" ] || { rc=1; echo "# $env: want $want"; sed 's/^/#   /' "$tmp/path.out"; }
done
tap $rc "the vLLM cache goes where vLLM looks (VLLM_CACHE_ROOT, XDG_CACHE_HOME, ~)"
VLLM_CACHE_ROOT= run empty verify --devices 1,3 --vllm-cache
[ "$(cat "$tmp/empty.rc")" = 1 ] && grep -q "relative to its working directory" "$tmp/empty.err"
tap $? "VLLM_CACHE_ROOT set but empty (vLLM would use its working directory): refused"
CUDA_VISIBLE_DEVICES=3,1,0,2 run vis verify --devices 1,3 --vllm-cache
[ "$(cat "$tmp/vis.rc")" = 1 ] && grep -q "CUDA_DEVICE_ORDER=PCI_BUS_ID" "$tmp/vis.err" &&
	[ ! -e "$HOME/.cache/vllm/gpu_p2p_access_cache_for_1,2.json" ]
tap $? "CUDA_VISIBLE_DEVICES in the default order: no cache, says to set CUDA_DEVICE_ORDER"
CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=3,1,0,2 run vis2 verify --devices 1,3 --vllm-cache
[ -f "$HOME/.cache/vllm/gpu_p2p_access_cache_for_1,2.json" ] &&
	line vis2 "GPU1 (0000:41:00.0) -> GPU3 (0000:c1:00.0): works" &&
	grep -q "start the server with CUDA_DEVICE_ORDER=PCI_BUS_ID" "$tmp/vis2.out"
tap $? "with PCI_BUS_ID: CUDA_VISIBLE_DEVICES' entries name the file, ordinals follow the variable"
CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=3,1,0,2 run vis3 verify --vllm-cache --timeout 1
[ -f "$HOME/.cache/vllm/gpu_p2p_access_cache_for_3,1,0,2.json" ]
tap $? "every visible device: the file is named after CUDA_VISIBLE_DEVICES verbatim"
P2PMAP_CUDA_STUB="0000:41:00.0,0000:01:00.0" run order verify --vllm-cache
[ "$(cat "$tmp/order.rc")" = 1 ] && grep -q "not PCI order" "$tmp/order.err"
tap $? "the default order differs from PCI order: no cache without CUDA_DEVICE_ORDER=PCI_BUS_ID"
CUDA_DEVICE_ORDER=PCI_BUS_ID P2PMAP_CUDA_STUB="0000:41:00.0,0000:01:00.0" run order2 verify --json --vllm-cache
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["device_order"] == "PCI_BUS_ID" and d["directions"][0]["from_pci"] == "0000:01:00.0" and d["vllm_cache"]' "$tmp/order2.out"
tap $? "CUDA_DEVICE_ORDER=PCI_BUS_ID: ordinals in bus order, recorded in --json"

# Without counters (module not loaded, no file): verdicts from the data.
run nofile verify --devices 0,1
grep -q "fault counters unknown" "$tmp/nofile.err" &&
	line nofile "$g0 -> $g1: wrong data (first wrong byte at offset 0 of 4194304)"
tap $? "fault counters unknown: said so, verified anyway"
if [ ! -d /sys/module/p2pmap ]; then
	[ "$(cat "$tmp/nofile.rc")" = 1 ] && ! grep -q "kernel module not loaded" "$tmp/nofile.err"
	tap $? "verify needs no module: without it, exit 1 from a direction that does not work, not 4"
else
	tap_skip "verify without the module" "p2pmap is loaded on this machine"
fi
run nofilejson verify --devices 0,1 --json
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert all(x["faults_before"] is None and x["faults_after"] is None for x in d["directions"])' \
	"$tmp/nofilejson.out"
tap $? "fault counters unknown: null in --json"

# An old driver without cuDevicePrimaryCtxRelease_v2.
rm -f "$tmp/stub.log"
STUBDIR=$stubdir/legacy run legacy verify --devices 1,3
line legacy "verify: 2 directions, 2 work on every path (copy, sm, ipc, cumem)" && grep -q ' contexts=0 ' "$tmp/stub.log" &&
	! grep -v ' contexts=0 ' "$tmp/stub.log" | grep -q .
tap $? "no _v2 release (old driver): the legacy entry point releases the contexts"
# A domain above 0xffff (VMD) is named; a bus id that is not one skips
# that device only.
P2PMAP_CUDA_STUB="0000:01:00.0,00010000:02:00.0,bogus,0000:41:00.0" run dom verify
grep -q "CUDA device 2: malformed PCI bus id \"bogus\": skipped" "$tmp/dom.err" &&
	line dom "GPU1 (10000:02:00.0) -> GPU3 (0000:41:00.0): works" &&
	line dom "verify: 6 directions, 6 work on every path (copy, sm, ipc, cumem)"
tap $? "a domain above 0xffff is verified; a malformed bus id skips that device only"

# Usage errors: exit 2.
rc=0
for args in "--devices 0,0" "--devices 0" "--devices x" "--size 0" \
	    "--size 2G" "--size" "--timeout 0" "--timeout x" "--bogus" \
	    "--devices 0,9"; do
	# shellcheck disable=SC2086
	run usage verify $args
	[ "$(cat "$tmp/usage.rc")" = 2 ] || { rc=1; echo "# $args"; }
done
tap $rc "usage errors exit 2 (a device index out of range too)"
grep -q "no CUDA device 9" "$tmp/usage.err"
tap $? "a device index out of range is named"
# The exit-code table (p2pmap help): an unknown device is a usage error
# (2), not a failed verify (1) nor a missing GPU (3).
run dev5 verify --devices 0,5
run dev5j verify --devices 0,5 --json
[ "$(cat "$tmp/dev5.rc")" = 2 ] && grep -qxF "p2pmap verify: no CUDA device 5 (4 present)" "$tmp/dev5.err" &&
	[ "$(cat "$tmp/dev5j.rc")" = 2 ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d == {"schema": 1, "error": "p2pmap verify: no CUDA device 5 (4 present)", "exit_code": 2, "directions": []}, d' "$tmp/dev5j.out"
tap $? "verify --devices 0,5 of 4 GPUs: exit 2, the device named (--json: exit_code 2)"

# --bandwidth: timed with CUDA events on the stub's clock, at the
# published rates (tests/cuda-stub/stub.c: a direct peer copy 0.4 us +
# 55 GB/s, a staged one 14 us + 38 GB/s, 1.8 us of host time a call),
# the copies queued behind verify's gate.  2 -> 0 is "narrow" (direct, a
# quarter of the rate); 2 -> 1 is "slow" (peer access on, yet every copy
# staged through the host, as a driver that stages silently); 1 -> 2
# writes wrong data, so it is never timed.  Every link Gen5 x16.
rm -f "$tmp/stub.log"
for a in 0000:01:00.0 0000:41:00.0 0000:81:00.0; do
	pcilink "$tmp/pci-gen5" $a 32.0 16
done
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-gen5 \
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0,0000:81:00.0;narrow=2->0;slow=2->1;wrong=1->2:w" \
	run bw verify --bandwidth --timeout 5
b0="GPU0 (0000:01:00.0)" b1="GPU1 (0000:41:00.0)" b2="GPU2 (0000:81:00.0)"
line bw "bandwidth $b0 -> $b1: 54.96 GB/s, latency 0.4 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); both ways at once 109.93 GB/s; vs RTX PRO 6000 Blackwell at PCIe Gen5 x16: 104% one way, 107% both ways, latency 0.9x"
tap $? "--bandwidth: GB/s and the GPU's latency with and without peer access, the host's issue time beside it, both ways at once for a pair that works both ways, against the Gen5 x16 figures, not flagged"
line bw "bandwidth against the published figures for the GPUs and their link (none: speed not judged); latency is the GPU's, the copies queued behind a gate (the host's time to issue one beside it); STAGED: no peer access, or 5 us or more a copy with it; SLOW: direct, under 70% of the lower figure or over 4x the latency" &&
	line bw "bandwidth figures for RTX PRO 6000 Blackwell at PCIe Gen5 x16, GPUs of one NUMA node: 53-56 GB/s one way, 103-111 GB/s both ways, latency 0.36-0.45 us (about 14 us without P2P); github.com/voipmonitor/rtx6kpro hardware/pcie-bandwidth.md" &&
	[ "$(grep '^bandwidth ' "$tmp/bw.out" | head -2 | cut -d' ' -f1-3 | tr '\n' ,)" = "bandwidth against the,bandwidth figures for," ] &&
	[ "$(grep -c '^bandwidth figures' "$tmp/bw.out")" = 1 ]
tap $? "... the rule and the figures the GPUs are compared with (cited) said once, before the first direction"
line bw "bandwidth $b1 -> $b0: 54.96 GB/s, latency 0.4 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); vs RTX PRO 6000 Blackwell at PCIe Gen5 x16: 104% one way, latency 0.9x"
tap $? "... both ways measured once per pair (on its first direction)"
line bw "bandwidth $b0 -> $b2: 54.96 GB/s, latency 0.4 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); both ways at once 27.50 GB/s; vs RTX PRO 6000 Blackwell at PCIe Gen5 x16: 104% one way, 27% both ways, latency 0.9x: both ways CLEARLY BELOW, set by the slower direction, GPU2 -> GPU0"
tap $? "... both ways at once is set by the slower side (2 -> 0), and named"
line bw "bandwidth $b2 -> $b1: 37.41 GB/s, latency 14.0 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); vs RTX PRO 6000 Blackwell at PCIe Gen5 x16: 71% one way, latency 31.1x: STAGED through host memory (a 4-byte copy takes 14.0 us with peer access, a staged copy's time: a direct one takes under 2 us)"
tap $? "a direction whose copies take a staged copy's latency with peer access on is STAGED, whatever its throughput"
grep "^bandwidth $b2 -> $b0: 13.75 GB/s, latency 0.4 us" "$tmp/bw.out" | grep -q ": SLOW, likely cause: not the links"
tap $? "a direct direction at a quarter of the rate is SLOW with its likely cause, not staged"
! grep -q "^bandwidth $b1 -> $b2" "$tmp/bw.out" && [ "$(grep -c '^bandwidth GPU' "$tmp/bw.out")" = 5 ]
tap $? "a direction that does not work is not timed (5 of 6)"
[ "$(cat "$tmp/bw.rc")" = 1 ]
tap $? "exit 1 (a direction does not work, one is staged)"
python3 - "$tmp/stub.log" <<'PY'
import sys
lines = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1])]
# each timing child: 8 + 100 staged copies (more if a gate was retried)
bw = [l for l in lines if int(l["staged"]) >= 108]
assert len(bw) == 5, lines
assert all(l["allocations"] == l["contexts"] == l["peers"] == l["streams"] ==
           l["events"] == l["modules"] == "0" for l in lines), lines
PY
tap $? "each timing child frees, releases, disables and destroys all it took (events and the gate's module too)"

# A direction clearly below the figures, its copies direct (1 -> 0 at a
# quarter of the rate: "narrow"): SLOW, the likely cause read from the
# links while the copies ran.  bwlink NAME PCIDIR: that run.
bwlink() {
	P2PMAP_VERIFY_PCI_DIR=$2 \
	P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;narrow=1->0" \
		run "$1" verify --bandwidth --paths copy
}
slow10="bandwidth $b1 -> $b0: 13.75 GB/s, latency 0.4 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); vs RTX PRO 6000 Blackwell at PCIe Gen5 x16: 26% one way, latency 0.9x: SLOW, likely cause:"
pcilink "$tmp/pci-x8" 0000:01:00.0 32.0 16
pcilink "$tmp/pci-x8" 0000:41:00.0 16.0 8 32.0 16
bwlink bwx8 "$tmp/pci-x8"
line bwx8 "$slow10 0000:41:00.0's PCIe link trained at 16.0 GT/s x8 (it can do 32.0 GT/s x16: reseat, check the slot or riser, its BIOS link speed)" &&
	[ "$(cat "$tmp/bwx8.rc")" = 0 ]
tap $? "a direct direction clearly below, a GPU's link trained below what it can do: SLOW, that link named as the likely cause (exit 0: P2P works, slower)"
# An RTX PRO 6000 in a Gen4 slot: sysfs's max_link_speed is the GPU's
# own (its Link Capabilities), 32 GT/s, whatever the slot trains at.
pcilink "$tmp/pci-gen4" 0000:01:00.0 16.0 16 32.0 16
pcilink "$tmp/pci-gen4" 0000:41:00.0 32.0 16
bwlink bwgen4 "$tmp/pci-gen4"
line bwgen4 "$slow10 0000:01:00.0's PCIe link trained at 16.0 GT/s x16 (it can do 32.0 GT/s x16: reseat, check the slot or riser, its BIOS link speed)"
tap $? "... a GPU in a slower slot (Gen4 x16, it can do Gen5): its link named, the slower of the two"
bwlink bwfull "$tmp/pci-gen5"
line bwfull "$slow10 not the links (0000:41:00.0 at 32.0 GT/s x16, 0000:01:00.0 at 32.0 GT/s x16): the path between the GPUs (the figures are for GPUs of one NUMA node; across sockets 39-51 GB/s were measured)"
tap $? "... both links at Gen5 x16: not the links, said"
bwlink bwnone "$tmp/pci-none"
line bwnone "bandwidth $b1 -> $b0: 13.75 GB/s, latency 0.4 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); no published figure known: 0000:41:00.0's PCI ID or link is not readable" &&
	[ "$(cat "$tmp/bwnone.rc")" = 0 ]
tap $? "... a GPU's link and IDs not readable: no figure known, its speed not judged (not SLOW against another GPU's), exit 0"

# Figures keyed by the GPUs and their links (issue 35, item 3).  A
# healthy RTX 6000 Ada pair (10de:26b1) over Gen4 x16 at its published
# rate (the stub's gen4 rule, 26.5 GB/s and 1.2 us) is judged against its
# own figures, not found slow against the RTX PRO 6000's Gen5 ones.
for a in 0000:01:00.0 0000:41:00.0; do
	PCIDEV=0x2331 pcilink "$tmp/pci-h100" $a 32.0 16
	PCIDEV=0x26b1 pcilink "$tmp/pci-ada" $a 16.0 16
done
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-ada \
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;gen4=0->1;gen4=1->0" \
	run bwada verify --bandwidth --paths copy
line bwada "bandwidth figures for RTX 6000 Ada Generation at PCIe Gen4 x16, GPUs within a socket or across sockets: 26.3-27 GB/s one way, 51.1-52.1 GB/s both ways, latency 1.12-1.44 us (about 11 us without P2P); github.com/luigifcruz/stelline docs/quickstart/validated-hardware/server" &&
	line bwada "bandwidth $b0 -> $b1: 26.47 GB/s, latency 1.2 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); both ways at once 52.95 GB/s; vs RTX 6000 Ada Generation at PCIe Gen4 x16: 101% one way, 104% both ways, latency 0.8x" &&
	line bwada "bandwidth $b1 -> $b0: 26.47 GB/s, latency 1.2 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); vs RTX 6000 Ada Generation at PCIe Gen4 x16: 101% one way, latency 0.8x" &&
	[ "$(cat "$tmp/bwada.rc")" = 0 ] &&
	! grep '^bandwidth GPU' "$tmp/bwada.out" | grep -q "RTX PRO\|SLOW\|BELOW"
tap $? "a healthy RTX 6000 Ada pair over Gen4 x16: against its own published figures (cited), not SLOW against another GPU's, exit 0"
# An H100 PCIe pair (10de:2331: no PCIe P2P figure published) at a
# quarter of the RTX PRO's rate, and a pair of two kinds: no figure, their
# speed not judged.
pcilink "$tmp/pci-mixed" 0000:01:00.0 32.0 16
PCIDEV=0x2331 pcilink "$tmp/pci-mixed" 0000:41:00.0 32.0 16
bwlink bwh100 "$tmp/pci-h100"
bwlink bwmixed "$tmp/pci-mixed"
nofig="bandwidth $b1 -> $b0: 13.75 GB/s, latency 0.4 us (host: 1.9 us to issue a copy; without peer access 37.41 GB/s, 14.0 us); no published figure"
line bwh100 "$nofig for 10de:2331 at PCIe Gen5 x16" &&
	line bwmixed "$nofig: two different GPUs (10de:2331 and 10de:2bb5)" &&
	[ "$(cat "$tmp/bwh100.rc")$(cat "$tmp/bwmixed.rc")" = 00 ] &&
	! grep -q "^bandwidth figures" "$tmp/bwh100.out"
tap $? "GPUs no published figure is for (H100 PCIe, two kinds): \"no published figure\", their speed not judged against the RTX PRO 6000's, exit 0"
# Staging takes no figure: a staged direction of GPUs without one is
# still STAGED (its latency), exit 1.
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-h100 \
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;slow=1->0" \
	run bwh100staged verify --bandwidth --paths copy
grep -q "^bandwidth $b1 -> $b0: .*; no published figure for 10de:2331 at PCIe Gen5 x16: STAGED through host memory (a 4-byte copy takes 14.0 us" "$tmp/bwh100staged.out" &&
	[ "$(cat "$tmp/bwh100staged.rc")" = 1 ]
tap $? "... a staged direction among them is still STAGED (from its latency, no figure needed), exit 1"
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-mixed P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;narrow=1->0" \
	run bwmixedj verify --bandwidth --paths copy --json
python3 - "$tmp/bwmixedj.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["directions"]:
    b = r["bandwidth"]
    assert b["figures"] is None and b["no_figure"] == "no published figure: two different GPUs (10de:%s and 10de:%s)" % (
        ("2bb5", "2331") if r["from_pci"] == "0000:01:00.0" else ("2331", "2bb5")), b
    v = b["vs_figures"]
    assert v == b["vs_gen5_x16"], b
    assert v["one_way"] is None and v["latency"] is None and v["both_ways"] is None, v
    assert v["below"] is False and v["cause"] == "no_figure" and v["why"].startswith("speed not judged: no published figure"), v
PY
[ $? = 0 ] && python3 "$top/tests/unit/json_lint.py" verify "$tmp/bwmixedj.out"
tap $? "--json: no figure: \"figures\" null, \"no_figure\" says why, vs_figures' ratios null and its cause no_figure (linted)"

# A link an idle GPU had slowed reads low until the copies have run a
# while (issue 35, item 4): its first read 2.5 GT/s, every later one
# 32.0, from a FIFO.  Read while the copies run, the highest counts: not
# "trained at 2.5 GT/s".  GPU1 first (--devices 1,0), so that its
# direction is the first to read the link.
pcilink "$tmp/pci-train" 0000:01:00.0 32.0 16
pcilink "$tmp/pci-train" 0000:41:00.0 32.0 16
train=$tmp/pci-train/0000:41:00.0/current_link_speed
rm "$train" && mkfifo "$train"
(trap '' PIPE
 echo "2.5 GT/s PCIe" >"$train"
 while :; do echo "32.0 GT/s PCIe" >"$train"; done) 2>/dev/null &
writer=$!
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-train \
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;narrow=1->0" \
	run bwtrain verify --bandwidth --paths copy --devices 1,0
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
grep -F "bandwidth $b1 -> $b0: 13.75 GB/s, latency 0.4 us" "$tmp/bwtrain.out" |
	grep -qF "SLOW, likely cause: not the links (0000:41:00.0 at 32.0 GT/s x16, 0000:01:00.0 at 32.0 GT/s x16)"
tap $? "a link still training up when the copies start (read 2.5 GT/s first): read while they run, the highest counts, not blamed"
# The first staged copy of a process sets up staging buffers (the stub:
# 2 ms more): warmed up, the staged rate is the staged copies' own.
grep -qF "without peer access 37.41 GB/s, 14.0 us" "$tmp/bwtrain.out"
tap $? "... a warm-up copy before each timed run: the staged rate is not the first copy's set-up"

# A host slower than the gate (11 ms a driver call, the stub's hostcall
# rule: 8 copies outlast even the third, 80 ms gate): NOT GATED, the
# times are the host's, nothing judged from them, exit 0.
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-gen5 \
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;hostcall=11000" \
	run bwslowhost verify --bandwidth --paths copy --timeout 60
[ "$(cat "$tmp/bwslowhost.rc")" = 0 ] &&
	[ "$(grep -c "^bandwidth GPU.*NOT GATED: the host queued slower than the gate held, the GPU times include its calls.*: not judged: the times are the host's ([0-9.]* us to issue a copy), not the GPU's; run again when the host is idle$" "$tmp/bwslowhost.out")" = 2 ] &&
	! grep "^bandwidth GPU" "$tmp/bwslowhost.out" | grep -q "STAGED through\|SLOW,"
tap $? "a host that outlasts every gate: NOT GATED, not judged (neither STAGED nor SLOW from the host's times), exit 0"
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-x8 P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;narrow=1->0" \
	run bwlinkj verify --bandwidth --paths copy --json
python3 - "$tmp/bwlinkj.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fast, slow = (r["bandwidth"] for r in d["directions"])
assert slow["links"] == {"from": {"speed_gts": 16.0, "width": 8, "max_speed_gts": 32.0, "max_width": 16},
                         "to": {"speed_gts": 32.0, "width": 16, "max_speed_gts": 32.0, "max_width": 16}}, slow
assert slow["figures"] == {"gpu": "RTX PRO 6000 Blackwell", "speed_gts": 32.0, "width": 16,
                          "topology": "GPUs of one NUMA node", "gbps_lo": 53.0, "gbps_hi": 56.0,
                          "bidir_gbps_lo": 103.0, "bidir_gbps_hi": 111.0,
                          "latency_us_lo": 0.36, "latency_us_hi": 0.45, "no_p2p_latency_us": 14.0,
                          "source": "github.com/voipmonitor/rtx6kpro hardware/pcie-bandwidth.md"}, slow
assert slow["no_figure"] is None and slow["vs_figures"] == slow["vs_gen5_x16"], slow
v = slow["vs_figures"]
assert v["below"] is True and v["cause"] == "link" and v["both_ways"] is None, v
assert v["why"].startswith("0000:41:00.0's PCIe link trained at 16.0 GT/s x8"), v
assert round(slow["staged_latency_us"], 1) == 14.0 and slow["latency_us"] == 0.4, slow
assert slow["looks_staged"] is False and slow["peer_access"] is True, slow
v = fast["vs_figures"]
assert v["below"] is False and v["cause"] is None and v["why"] is None, v
assert v["both_ways_below"] is True and v["both_ways"] < 0.7, v
PY
[ $? = 0 ] && python3 "$top/tests/unit/json_lint.py" verify "$tmp/bwlinkj.out"
tap $? "--json: the links, the ratios to the figures, below, its cause and why (fields and enums as JSON.md lists them)"
# The published rates of a healthy host (stub.c's defaults), GPUs 0 and
# 1 on different sockets (39 GB/s): the GPU's latency, not the host's
# 1.8 us a call, is what is compared; nothing staged, nothing slow.
P2PMAP_VERIFY_PCI_DIR=$tmp/pci-gen5 \
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0;numa=0,1" run bwok verify --bandwidth --json
python3 - "$tmp/bwok.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["directions"]:
    b = r["bandwidth"]
    assert b["measured"] and 38 < b["gbps"] < 40 and 36 < b["staged_gbps"] < 39, b
    assert b["latency_us"] == 0.4 and round(b["staged_latency_us"], 1) == 14.0, b
    assert b["issue_us"] >= 1.8 and b["gated"] is True and b["peer_access"] is True, b
    assert b["looks_staged"] is False and b["error"] is None, b
    assert b["figures"]["gpu"] == "RTX PRO 6000 Blackwell", b
    assert b["vs_figures"]["below"] is False and b["vs_figures"]["cause"] is None, b
assert d["directions"][0]["bandwidth"]["bidir_gbps"] > 75
assert d["directions"][1]["bandwidth"]["bidir_gbps"] is None
PY
[ $? = 0 ] && [ "$(cat "$tmp/bwok.rc")" = 0 ]
tap $? "--bandwidth --json at published rates across sockets: the GPU's latency (0.4 us) beside the host's issue time (1.8 us or more), gated, none staged or below, exit 0"
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0" run nobw verify --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(r["bandwidth"] is None for r in d["directions"])' "$tmp/nobw.out"
tap $? "without --bandwidth, \"bandwidth\": null"

# --json on every outcome: an error is a document too.
rc=0
for c in "3 nodev-j|" "2 usage-j|--bogus" "2 range-j|--devices 0,9"; do
	want=${c%% *} rest=${c#* } name=${rest%%|*} args=${rest#*|}
	if [ "$name" = nodev-j ]; then
		P2PMAP_CUDA_STUB="" run $name verify --json
	else
		run $name verify --json $args
	fi
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exit_code"] == int(sys.argv[2]) and d["error"] and d["directions"] == []' \
		"$tmp/$name.out" "$want" && [ "$(cat "$tmp/$name.rc")" = "$want" ] ||
		{ rc=1; echo "# $name: $(cat "$tmp/$name.out")"; }
done
tap $rc "--json on a failure (no CUDA device, a bad option, a device out of range): {\"error\", \"exit_code\", \"directions\": []}, same exit code"

# No CUDA: exit 3.
P2PMAP_CUDA_STUB="" run nodev verify
[ "$(cat "$tmp/nodev.rc")" = 3 ] &&
	grep -q "^p2pmap verify: no CUDA devices (cuInit: CUDA_ERROR_NO_DEVICE (100)[^)]*): the driver ($stubdir/libcuda.so.1) sees no GPU: the device nodes are missing or not allowed" "$tmp/nodev.err"
tap $? "no CUDA devices: exit 3, the library named, what to look at"
# Every way cuInit fails is "no usable CUDA driver" (exit 3), named from
# verify's own table (the stub's cuGetErrorName names nothing), with the
# fix: a userspace driver that is not the kernel module's, an unknown
# error (device nodes a container lacks).
rc=0
for code in 803:CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:"is not the kernel module's version" \
	999:CUDA_ERROR_UNKNOWN:"could not open the GPU: /dev/nvidiactl" \
	46:CUDA_ERROR_DEVICE_UNAVAILABLE:"did not initialise"; do
	n=${code%%:*} rest=${code#*:}
	P2PMAP_CUDA_STUB="0000:01:00.0,0000:02:00.0;init=$n" run init$n verify
	[ "$(cat "$tmp/init$n.rc")" = 3 ] &&
		grep -q "^p2pmap verify: cuInit: ${rest%%:*} ($n): .*${rest#*:}" "$tmp/init$n.err" ||
		{ rc=1; sed 's/^/# /' "$tmp/init$n.err"; }
done
tap $rc "cuInit failing (803 driver mismatch, 999, 46): exit 3, named from the table, with what to do"
P2PMAP_CUDA_STUB="0000:01:00.0" run onedev verify
P2PMAP_CUDA_STUB="0000:01:00.0" run onedevj verify --json
[ "$(cat "$tmp/onedev.rc")" = 3 ] && [ "$(cat "$tmp/onedevj.rc")" = 3 ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["exit_code"] == 3 and "fewer than two" in d["error"], d' "$tmp/onedevj.out"
tap $? "one CUDA device: exit 3 (--json: exit_code 3)"
mkdir -p "$tmp/broken"
echo "not a library" >"$tmp/broken/libcuda.so.1"
STUBDIR=$tmp/broken run broken verify
[ "$(cat "$tmp/broken.rc")" = 3 ] &&
	grep -q "^p2pmap verify: the CUDA driver cannot be used: .*libcuda.so.1" "$tmp/broken.err"
tap $? "a libcuda.so.1 that does not load: exit 3, dlopen's reason, not \"not found\""
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	tap_skip "no CUDA driver" "this host has a real libcuda.so.1"
else
	"$p2pmap" verify >"$tmp/nolib.out" 2>"$tmp/nolib.err"
	[ $? = 3 ] && grep -qxF "p2pmap verify: no CUDA driver (libcuda.so.1 not found)" \
		"$tmp/nolib.err"
	tap $? "no libcuda.so.1 on the path: exit 3, no CUDA driver"
fi

# Documentation/faults-to-faster-server.md: verify on the 8-GPU host
# of tests/doctor after "link auto --numa 0", over its four node-0 GPUs
# (one per root complex; node 1's four are vfio-pci's, which CUDA does not
# see), every link mapped and no fault counted since p2pmap loaded (an
# empty faults file: every counter 0), run as the server's user (root: its
# unit has no User=) with the device order of its drop-in.  The whole
# output is 8gpu-node0.want, that document's block (tests/env/run.sh compares
# the two), with this run's HOME as /root.
node0="0000:01:00.0,0000:21:00.0,0000:41:00.0,0000:61:00.0"
mkdir -p "$tmp/n0/root"
printf '# p2pmap loaded by link auto: no fault counted since\n' >"$tmp/n0/faults"
# Each GPU's link at Gen5 x16, as on the host.
for a in ${node0//,/ }; do
	pcilink "$tmp/n0/pci" $a 32.0 16
done
HOME=$tmp/n0/root CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,2,3 \
	P2PMAP_CUDA_STUB=$node0 P2PMAP_VERIFY_FAULTS_FILE=$tmp/n0/faults \
	P2PMAP_VERIFY_PCI_DIR=$tmp/n0/pci run node0 verify --vllm-cache --bandwidth
sed -i "s|$tmp/n0/root/|/root/|g" "$tmp/node0.out"
# (the host's issue times compared as N.N: they vary from run to run)
diff -u <(sed -E "$hostre" "$top/tests/verify/8gpu-node0.want") \
	<(sed -E "$hostre" "$tmp/node0.out") >"$tmp/node0.diff" &&
	[ "$(cat "$tmp/node0.rc")" = 0 ] && [ ! -s "$tmp/node0.err" ] &&
	[ -f "$tmp/n0/root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json" ]
tap $? "the 8-GPU host of Documentation/faults-to-faster-server.md, node 0 after link auto: --vllm-cache --bandwidth, 12 of 12 work, exit 0 (whole output: 8gpu-node0.want)"
sed 's/^/# /' "$tmp/node0.diff" | head -20
sed 's/^/# /' "$tmp/node0.err" | head -5
# The directions whose faults doctor found in that host's log (that
# document's block before it, tests/doctor/before.want) are among them.
rc=0 n=0
while read -r d; do
	n=$((n + 1))
	grep -q "^GPU[0-3] (${d%>*}) -> GPU[0-3] (${d#*>}): works$" \
		"$top/tests/verify/8gpu-node0.want" || { rc=1; echo "# $d"; }
done < <(sed -n 's/^warn  log\.\([0-9a-f:.]*\)>\([0-9a-f:.]*\): .*/\1>\2/p' \
	 "$top/tests/doctor/before.want")
[ "$rc" = 0 ] && [ "$n" = 3 ]
tap $? "... the $n directions that faulted in doctor's log before p2pmap now work"

# The paths beyond the copy engine (user/verify/verify_paths.h).  The
# stub first: each misuse fails as the driver fails it.
cc -I"$top/user/verify" -o "$tmp/selftest" "$top/tests/cuda-stub/selftest.c" \
	"$top/user/verify/cuda.c" "$top/user/verify/cuda_errors.c" -ldl 2>>"$tmp/build.log"
P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0" P2PMAP_CUDA_STUB_LOG= \
	LD_LIBRARY_PATH=$stubdir "$tmp/selftest" >"$tmp/selftest.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/selftest.out"
[ $rc = 0 ] && [ "$(grep -c '^ok ' "$tmp/selftest.out")" = 16 ]
tap $? "the stub fails misuse as the driver does: an IPC handle in its own process, not PTX, no entry, cuMem size and handle type, a mapping without access (700, sticky); its host clock: copies wait on the host's calls unless gated, a synchronize waits"

# Copy engine and SMs work 0 -> 1; the IPC path faults (its counter
# grows, its data do not arrive): NCCL still works (cuMem), vLLM and
# SGLang do not (their check and all-reduce use IPC), and their caches
# say false for the pair.  The module's last fault of the pair is at
# the raw bus address of GPU1's BAR0 + 0x1000 (the fault file stands for
# its device dump): the detail names that BAR and what NVIDIA keeps there.
cat >"$tmp/ipcfaults" <<'EOF'
bar 0000:41:00.0 0 e0000000 1000000
bar 0000:41:00.0 1 c000000000 800000000
0->1:write@ipc 2 9 e0001000
0->1:read@ipc 9 9
EOF
P2PMAP_CUDA_STUB="$devs;fault=0->1:w@ipc" P2PMAP_VERIFY_FAULTS_FILE=$tmp/ipcfaults \
	HOME=$tmp/ipchome run ipc verify --devices 0,1 --size 64K --vllm-cache --sglang-cache
{
	echo "$g0 -> $g1: faulted [via ipc: write: faulted (p2pmap fault counter 2 -> 9, data wrong; last fault at 0xe0001000: 0000:41:00.0 BAR0+0x1000 (registers/mailbox)); read: works]"
	echo "  paths: copy works, sm works, ipc faulted, cumem works"
	echo "  works for: NCCL; not for: vLLM, SGLang"
	echo "$g1 -> $g0: works"
	echo "verify: 2 directions, 1 work on every path (copy, sm, ipc, cumem)"
	echo "vllm cache: $tmp/ipchome/.cache/vllm/gpu_p2p_access_cache_for_0,1.json (read by vLLM only with VLLM_SKIP_P2P_CHECK=0)"
	echo "sglang cache: $tmp/ipchome/.cache/sglang/gpu_p2p_access_cache_for_0,1.json (read by SGLang unless SGLANG_SKIP_P2P_CHECK=1)"
} >"$tmp/ipc.want"
diff -u "$tmp/ipc.want" "$tmp/ipc.out" >"$tmp/ipc.diff" && [ "$(cat "$tmp/ipc.rc")" = 1 ] &&
	python3 -c 'import json,sys; c = json.load(open(sys.argv[1])); assert not c["0->1"] and not c["1->0"]' \
		"$tmp/ipchome/.cache/vllm/gpu_p2p_access_cache_for_0,1.json"
tap $? "copy works, IPC faults: faulted, each path's verdict, works for NCCL only, caches false, exit 1"
sed 's/^/# /' "$tmp/ipc.diff" | head -10
P2PMAP_CUDA_STUB="$devs;fault=0->1:w@ipc" P2PMAP_VERIFY_FAULTS_FILE=$tmp/ipcfaults \
	run ipcj verify --devices 0,1 --size 64K --json
python3 - "$tmp/ipcj.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["directions"][0]
assert d["verdict"] == "faulted" and d["decided_by"] == "ipc", d
assert {k: v["verdict"] for k, v in d["paths"].items()} == \
    {"copy": "works", "sm": "works", "ipc": "faulted", "cumem": "works"}
assert d["paths"]["ipc"]["write"]["faults_after"] == 9
assert d["last_fault"] == d["write"]["last_fault"] == d["paths"]["ipc"]["write"]["last_fault"] == \
    {"addr": "0xe0001000", "bar": {"device": "0000:41:00.0", "bar": 0, "offset": "0x1000",
                                   "role": "registers/mailbox"}}, d
assert d["read"]["last_fault"] is None and d["paths"]["copy"]["write"]["last_fault"] is None, d
assert d["write"]["verdict"] == "faulted" and d["read"]["verdict"] == "works"
assert d["frameworks"] == {"nccl": True, "vllm": False, "sglang": False}
PY
[ $? = 0 ] && python3 "$top/tests/unit/json_lint.py" verify "$tmp/ipcj.out"
tap $? "--json: paths, decided_by, frameworks, the last fault and the BAR it hit"

# The copy engine faulting into GPU1's BAR1 (its VRAM aperture, where
# copies land), and a fault at an address in no tracked BAR: said so.
cat >"$tmp/bar1faults" <<'EOF'
bar 0000:41:00.0 0 e0000000 1000000
bar 0000:41:00.0 1 c000000000 800000000
bar 0000:01:00.0 1 a000000000 800000000
0->1:write 0 4 c000200000
1->0:read 1 2 1000
EOF
P2PMAP_CUDA_STUB="$devs;fault=0->1:w;fault=1->0:r" P2PMAP_VERIFY_FAULTS_FILE=$tmp/bar1faults \
	run bar1 verify --devices 0,1 --size 4K --paths copy
line bar1 "$g0 -> $g1: faulted [write: faulted (p2pmap fault counter 0 -> 4, data wrong; last fault at 0xc000200000: 0000:41:00.0 BAR1+0x200000 (VRAM aperture)); read: works]" &&
	line bar1 "$g1 -> $g0: faulted [write: works; read: faulted (p2pmap fault counter 1 -> 2, data wrong; last fault at 0x1000, in no tracked BAR)]"
tap $? "a fault in the target's BAR1 named with its offset (VRAM aperture); one in no tracked BAR said so"
printf 'bar 0000:41:00.0 1 zz 10\n' >"$tmp/badbar"
P2PMAP_VERIFY_FAULTS_FILE=$tmp/badbar run badbar verify --devices 0,1 --size 4K
grep -qF 'badbar:1: expected "bar PCI INDEX START SIZE"' "$tmp/badbar.err" && [ ! -s "$tmp/badbar.out" ]
tap $? "a malformed bar line in the faults file: named, nothing verified"

# cuMem broken alone: NCCL falls back to IPC (NCCL_CUMEM_ENABLE=0), so
# every framework works; SMs broken (a sticky 700 in that process only):
# none does, though the copy engine works.
P2PMAP_CUDA_STUB="$devs;wrong=1->0:r@cumem" run cumem verify --devices 0,1 --size 4K
grep -qxF "  paths: copy works, sm works, ipc works, cumem wrong data" "$tmp/cumem.out" &&
	grep -qxF "  works for: NCCL, vLLM, SGLang" "$tmp/cumem.out"
tap $? "cuMem broken alone: every framework still works (NCCL over IPC)"
rm -f "$tmp/stub.log"
P2PMAP_CUDA_STUB="$devs;error=0->1@sm" run smerr verify --devices 0,1 --size 4K
grep -qxF "$g0 -> $g1: error (via sm: cuLaunchKernel: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered)" "$tmp/smerr.out" &&
	grep -qxF "  paths: copy works, sm error, ipc works, cumem works" "$tmp/smerr.out" &&
	grep -qxF "  not for: NCCL, vLLM, SGLang" "$tmp/smerr.out" &&
	[ "$(grep -c 'allocations=[1-9]' "$tmp/stub.log")" = 2 ]
tap $? "the SMs' path broken (700): no framework works; the sticky error stays in its two processes"

# --paths: fewer paths; the caches need the paths their framework uses.
P2PMAP_CUDA_STUB="$devs;fault=0->1:w@ipc" run only verify --devices 0,1 --size 4K --paths copy,sm --vllm-cache
grep -qxF "$g0 -> $g1: works" "$tmp/only.out" &&
	grep -qxF "  paths: copy works, sm works" "$tmp/only.out" &&
	grep -qxF "  not tested for: NCCL, vLLM, SGLang" "$tmp/only.out" &&
	[ "$(cat "$tmp/only.rc")" = 1 ] &&
	grep -qF "not writing the vLLM cache: --paths leaves out a path it uses (sm and ipc)" "$tmp/only.err"
tap $? "--paths copy,sm: those two only, said, no framework judged; no vLLM cache without the IPC path (exit 1, said)"
rc=0
for bad in "" "copy,copy" "nvlink" "all,sm"; do
	run badpaths verify --paths "$bad"
	[ "$(cat "$tmp/badpaths.rc")" = 2 ] || { rc=1; echo "# --paths '$bad': $(cat "$tmp/badpaths.rc")"; }
done
tap $rc "--paths: empty, twice, unknown, all with more: exit 2"

# A GPU that hangs and stays hung (issue 35, item 7): the stand-in's
# wedge=2 hangs GPU2's first peer operation, and every process that opens
# a context on it after (state in P2PMAP_CUDA_STUB_STATE, one line per
# hang in its file "hangs").  verify checks each GPU of a hung operation
# alone; GPU2 hangs again, is named wedged, and no later child touches it:
# two hangs in all (the operation, the lone check), not one per
# operation of its six directions (48 on every path).
wedge="$devs;wedge=2"
printf '# direction before after\n' >"$tmp/nofaults"
wedge_why="GPU2 (0000:c1:00.0) wedged: hung in copy write of GPU0 -> GPU2"
rm -rf "$tmp/wedge" && mkdir -p "$tmp/wedge"
P2PMAP_CUDA_STUB=$wedge P2PMAP_CUDA_STUB_STATE=$tmp/wedge \
	P2PMAP_VERIFY_FAULTS_FILE=$tmp/nofaults run wedge verify --timeout 1
hangs=$(cat "$tmp/wedge/hangs" 2>/dev/null | wc -l)
[ "$hangs" = 2 ] && grep -q "at=copy" "$tmp/wedge/hangs" &&
	grep -q "at=context" "$tmp/wedge/hangs"
tap $? "a wedged GPU: two hangs in all, the operation and the lone check ($hangs)"
line wedge "$g0 -> $g2: hung [write: hung (not done after 1 s: killed); read: not tested ($wedge_why)]" &&
	grep -qxF "  paths: copy hung, sm not tested, ipc not tested, cumem not tested" "$tmp/wedge.out" &&
	grep -qxF "  not tested for: NCCL, vLLM, SGLang" "$tmp/wedge.out"
tap $? "the operation that hung: hung; the rest of its direction not tested, said why"
for d in "$g1 -> $g2" "$g2 -> $g0" "$g2 -> $g1" "$g2 -> $g3" "$g3 -> $g2"; do
	line wedge "$d: not tested ($wedge_why)" || echo "# $d"
done >"$tmp/wedge.miss"
[ ! -s "$tmp/wedge.miss" ]
tap $? "its other directions, as initiator and as target: not tested, GPU2 wedged, said why"
for d in "$g0 -> $g1" "$g0 -> $g3" "$g1 -> $g0" "$g1 -> $g3" "$g3 -> $g0" "$g3 -> $g1"; do
	line wedge "$d: works" || echo "# $d"
done >"$tmp/wedge.miss"
[ ! -s "$tmp/wedge.miss" ] && [ "$(cat "$tmp/wedge.rc")" = 1 ]
tap $? "the directions without GPU2 still run and work; exit 1"
line wedge "verify: 12 directions, 6 work on every path (copy, sm, ipc, cumem)" &&
	line wedge "verify: 6 directions not tested in full: $wedge_why" &&
	grep -qF "p2pmap verify: $wedge_why, and alone it hung too; its remaining directions are not tested" "$tmp/wedge.err"
tap $? "the summary: how many directions were not tested, and the wedged GPU; said at once on stderr"
rm -rf "$tmp/wedge" && mkdir -p "$tmp/wedge"
P2PMAP_CUDA_STUB=$wedge P2PMAP_CUDA_STUB_STATE=$tmp/wedge \
	P2PMAP_VERIFY_FAULTS_FILE=$tmp/nofaults run wedgej verify --json --size 64K --timeout 1
python3 - "$tmp/wedgej.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
dirs = {(x["from"], x["to"]): x for x in d["directions"]}
why = "hung in copy write of GPU0 -> GPU2"
w = {"gpu": 2, "pci": "0000:c1:00.0", "why": why}
assert d["summary"]["skipped"] == 6 and d["summary"]["wedged"] == [w], d["summary"]
assert d["summary"]["working"] == 6
h = dirs[(0, 2)]
assert h["verdict"] == "hung" and h["write"]["verdict"] == "hung", h
assert h["read"]["verdict"] == "not_tested" and h["skipped"] == w
assert h["paths"]["sm"]["verdict"] == "not_tested"
for k in [(1, 2), (2, 0), (2, 1), (2, 3), (3, 2)]:
    x = dirs[k]
    assert x["verdict"] == "not_tested" and x["skipped"] == w, x
    assert x["cuda_error"] == "GPU2 (0000:c1:00.0) wedged: " + why, x
    assert all(x["paths"][p]["verdict"] == "not_tested" for p in x["paths"])
    assert x["frameworks"] == {"nccl": None, "vllm": None, "sglang": None}
for k in [(0, 1), (0, 3), (1, 0), (1, 3), (3, 0), (3, 1)]:
    assert dirs[k]["verdict"] == "works" and dirs[k]["skipped"] is None
PY
tap $? "--json: the skipped directions not_tested, each with \"skipped\" naming the wedged GPU; summary.skipped and summary.wedged"

# A GPU that worked, then wedged at its first hang (rule hang names it):
# --bandwidth times no direction of it, which would hang again.
rm -rf "$tmp/wedge" && mkdir -p "$tmp/wedge"
P2PMAP_CUDA_STUB="$devs;hang=1->2:r@cumem;wedge=2" P2PMAP_CUDA_STUB_STATE=$tmp/wedge \
	P2PMAP_VERIFY_FAULTS_FILE=$tmp/nofaults run wedgebw verify --timeout 1 --size 64K --bandwidth
bw_why="GPU2 (0000:c1:00.0) wedged: hung in cumem read of GPU1 -> GPU2"
line wedgebw "$g0 -> $g2: works" &&
	line wedgebw "$g2 -> $g3: not tested ($bw_why)" &&
	line wedgebw "bandwidth $g0 -> $g2: not measured ($bw_why)" &&
	line wedgebw "bandwidth $g1 -> $g2: not measured ($bw_why)" &&
	grep -q "^bandwidth $g0 -> $g1: [0-9.]* GB/s" "$tmp/wedgebw.out" &&
	[ "$(wc -l <"$tmp/wedge/hangs")" = 2 ]
tap $? "a GPU wedged after it worked: --bandwidth times none of its directions, says why; two hangs in all"

# A child stuck in the driver: SIGKILL does nothing (tests/verify/nokill.c).
# verify waits a bounded time for it, says so, names the GPU wedged when
# its lone check is stuck too, and goes on with the other GPUs.
if cc -shared -fPIC -o "$tmp/nokill.so" "$top/tests/verify/nokill.c" -ldl 2>>"$tmp/build.log"; then
	rm -rf "$tmp/wedge" && mkdir -p "$tmp/wedge"
	P2PMAP_CUDA_STUB=$wedge P2PMAP_CUDA_STUB_STATE=$tmp/wedge \
		P2PMAP_NOKILL_LOG=$tmp/nokill.pids LD_PRELOAD=$tmp/nokill.so \
		P2PMAP_VERIFY_FAULTS_FILE=$tmp/nofaults run stuck verify --timeout 1 --paths copy
	# The children it left behind: ended here (they are this test's).
	sort -u "$tmp/nokill.pids" 2>/dev/null | while read -r pid; do
		kill -9 "$pid" 2>/dev/null
	done
	stuck_why="GPU2 (0000:c1:00.0) wedged: stuck in the driver in copy write of GPU0 -> GPU2"
	line stuck "$g0 -> $g2: hung [write: hung (not done after 1 s: killed, but stuck in the driver: left behind); read: not tested ($stuck_why)]" &&
		line stuck "$g2 -> $g3: not tested ($stuck_why)" &&
		line stuck "$g3 -> $g1: works" &&
		grep -qF "p2pmap verify: $stuck_why, and alone it was stuck in the driver too; its remaining directions are not tested" "$tmp/stuck.err" &&
		grep -qF "p2pmap verify: 2 test process(es) stayed after SIGKILL (stuck in the driver, which no signal ends): left behind" "$tmp/stuck.err" &&
		[ "$(sort -u "$tmp/nokill.pids" | wc -l)" = 2 ] &&
		[ "$(cat "$tmp/stuck.rc")" = 1 ]
	tap $? "a child stuck in the driver: a bounded wait, said, the GPU named wedged; two left behind, the rest runs"
else
	tap 1 "tests/verify/nokill.c builds"
fi

# Every --json document above, results and failures: "schema": 1 first,
# each string field and enum value as Documentation/JSON.md lists it (verdicts in
# snake_case: peer_access_refused, wrong_data).
python3 "$top/tests/unit/json_lint.py" verify "$tmp"/{json,order2,nofilejson,dev5j,bwok,nobw,nodev-j,usage-j,range-j,onedevj,ipcj,wedgej}.out
tap $? "every --json document: \"schema\": 1 first, fields and enum values as JSON.md lists them"

tap_done
