#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Caches that cannot go stale: "p2pmap verify --vllm-cache/--sglang-cache"
# records what each cache file was valid for (user/verify/cache_record.h),
# and check, doctor and metrics say when it no longer matches
# (cache_stale.h); check --refresh-caches verifies again.  The real
# binary, the stand-in libcuda (tests/cuda-stub), records in a temporary
# P2PMAP_STATE_DIR; doctor --root reads a fixture host (another GPU at an
# address, a GPU gone, a link that changed, another NVIDIA driver).
# Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# P2PMAP_CACHES_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_CACHES_BIN:-$top/user/p2pmap}
stubdir=$top/build/cuda-stub
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"
make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >>"$tmp/build.log" 2>&1
tap $? "the CUDA stub builds"

export P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0,0000:c1:00.0,0000:e1:00.0;fault=0->2"
export P2PMAP_CUDA_STUB_LOG=$tmp/stub.log
export HOME=$tmp/home P2PMAP_STATE_DIR=$tmp/state
unset CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER VLLM_CACHE_ROOT XDG_CACHE_HOME
mkdir -p "$HOME"
vllm=$HOME/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json
sglang=$HOME/.cache/sglang/gpu_p2p_access_cache_for_0,1,2,3.json
uuid() { printf 'GPU-a0a1a2a3-a4a5-a6a7-0000-000000%s0000' "$1"; }

# run NAME ARGS...: p2pmap with the stub; NAME.out, NAME.err, NAME.rc
run() {
	local name=$1
	shift
	LD_LIBRARY_PATH=$stubdir "$p2pmap" "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
# The module's version as the records say it ("-": not loaded here).
module=$(cat /sys/kernel/p2pmap/version 2>/dev/null || echo -)
[ -d /sys/kernel/p2pmap ] && [ "$module" = - ] && module=unknown
now_module=$module
[ "$now_module" = - ] && now_module="not loaded"

run verify verify --size 4K --timeout 5 --vllm-cache --sglang-cache
records=$(ls "$P2PMAP_STATE_DIR/caches" 2>/dev/null)
rv=$(ls "$P2PMAP_STATE_DIR"/caches/vllm-*.record 2>/dev/null)
rs=$(ls "$P2PMAP_STATE_DIR"/caches/sglang-*.record 2>/dev/null)
[ "$(echo "$records" | grep -c '\.record$')" = 2 ] &&
	[ "$(echo "$records" | wc -l)" = 2 ] && [ -f "$rv" ] && [ -f "$rs" ] &&
	[ "$(stat -c %a "$rv")" = 644 ]
tap $? "verify writes a record per cache (vLLM, SGLang), mode 0644, no temporary file left"

# The record: the file's own bytes (FNV-1a 64), the GPUs (ordinal,
# address, CUDA's UUID), the order, the kernel, the module, the driver.
python3 - "$rv" "$vllm" "$(uname -r)" "$module" <<'PY'
import sys
rec, cache, kernel, module = sys.argv[1:]
kv = {}
gpus = []
for l in open(rec):
    if l.startswith("#"):
        continue
    k, v = l.rstrip("\n").split(" ", 1)
    if k == "gpu":
        gpus.append(v.split()[:3])
    else:
        kv[k] = v
h = 0xcbf29ce484222325
for b in open(cache, "rb").read():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
assert kv["record"] == "1" and kv["framework"] == "vllm", kv
assert kv["cache"] == cache and kv["content"] == "%016x" % h, kv
assert kv["kernel"] == kernel and kv["module"] == module, kv
assert kv["nvidia"] == "-" and kv["order"] == "FASTEST_FIRST" and kv["visible"] == "-"
want = [[str(i), a, "GPU-a0a1a2a3-a4a5-a6a7-0000-000000%s0000" % a[5:7]]
        for i, a in enumerate(["0000:01:00.0", "0000:41:00.0", "0000:c1:00.0", "0000:e1:00.0"])]
assert gpus == want, gpus
PY
tap $? "the record holds the cache's path and content hash, the GPUs with their UUIDs, order, kernel, module and driver"

run fresh check
[ -f "$rv" ] && ! grep -q "cache" "$tmp/fresh.out"
tap $? "check right after verify: no cache line (the caches are valid)"
run doc0 doctor
grep -qxF "ok    caches: vLLM cache $vllm matches what p2pmap verify verified ($(sed -n 's/^written //p' "$rv"))" "$tmp/doc0.out"
tap $? "doctor: the vLLM cache matches what verify verified"

# A newer kernel since verify: stale, with the command that rewrites it.
written=$(sed -n 's/^written //p' "$rv")
cp "$rv" "$tmp/rv.orig"
sed -i 's/^kernel .*/kernel 6.1.0-99-amd64/' "$rv"
run kernel check
grep -qxF "cache stale: $vllm (vLLM, verified $written): kernel 6.1.0-99-amd64 then, $(uname -r) now; refresh: p2pmap verify --devices 0,1,2,3 --vllm-cache" "$tmp/kernel.out" &&
	[ "$(cat "$tmp/kernel.rc")" != 0 ] && [ "$(grep -c cache "$tmp/kernel.out")" = 1 ]
tap $? "another kernel: check says the vLLM cache is stale, what changed and the refresh command; the SGLang one stays valid"
run kdoc doctor
grep -qxF "fail  caches: vLLM cache $vllm is stale: kernel 6.1.0-99-amd64 then, $(uname -r) now; the framework would trust verdicts of $written" "$tmp/kdoc.out" &&
	grep -A1 "^fail  caches" "$tmp/kdoc.out" | grep -qxF "      fix: p2pmap verify --devices 0,1,2,3 --vllm-cache" &&
	[ "$(cat "$tmp/kdoc.rc")" != 0 ]
tap $? "doctor: fail, the change, the refresh command as the fix"

cp "$tmp/rv.orig" "$rv"
echo "link 0000:01:00.0 0000:41:00.0 mapped" >>"$rv"
run link check
grep -qF "verified $written): p2pmap's link 0000:01:00.0 -> 0000:41:00.0 was mapped, is not configured now; refresh:" "$tmp/link.out"
tap $? "a p2pmap link among the cache's GPUs that changed state: stale"

cp "$tmp/rv.orig" "$rv"
sed -i 's/^module .*/module 0.0.1-old/; s/^nvidia .*/nvidia 570.86.15/' "$rv"
run mod check
grep -qF "verified $written): p2pmap module 0.0.1-old then, $now_module now (and 1 more change); refresh:" "$tmp/mod.out"
tap $? "another p2pmap module, another NVIDIA driver: the first change said, the others counted"

cp "$tmp/rv.orig" "$rv"
printf ' \n' >>"$sglang"
run edited check
grep -qxF "warning: cache $sglang (SGLang): its content is not what p2pmap verify wrote; p2pmap cannot vouch for it: p2pmap verify --devices 0,1,2,3 --sglang-cache" "$tmp/edited.out"
tap $? "a cache someone else rewrote: a warning, not judged"
run metrics metrics
grep -qx 'p2pmap_verify_caches{state="valid"} 1' "$tmp/metrics.out" &&
	grep -qx 'p2pmap_verify_caches{state="stale"} 0' "$tmp/metrics.out" &&
	grep -qx 'p2pmap_verify_caches{state="edited"} 1' "$tmp/metrics.out"
tap $? "metrics: p2pmap_verify_caches by state (1 valid, 0 stale, 1 edited)"

rm "$sglang"
run gone check
[ -f "$rs" ] && ! grep -q "sglang" "$tmp/gone.out"
tap $? "a cache that was removed: nothing to say (the framework tests P2P itself)"
echo "garbage" >"$P2PMAP_STATE_DIR/caches/vllm-0000000000000000.record"
run bad check
grep -qxF "warning: cache record $P2PMAP_STATE_DIR/caches/vllm-0000000000000000.record: line 1 is malformed" "$tmp/bad.out"
tap $? "an unreadable record: a warning naming it"
rm "$P2PMAP_STATE_DIR/caches/vllm-0000000000000000.record"

# --refresh-caches: verify again for the stale one, at the same path.
sed -i 's/^kernel .*/kernel 6.1.0-99-amd64/' "$rv"
rm -f "$tmp/stub.log"
run refresh check --refresh-caches
grep -qxF "cache refreshed: $vllm (vLLM)" "$tmp/refresh.out" &&
	grep -qx "kernel $(uname -r)" "$rv" && [ -s "$tmp/stub.log" ] &&
	grep -q " -> " "$tmp/refresh.err"
tap $? "check --refresh-caches runs verify again (its report on stderr): the cache and its record are new"
run after check
[ -f "$rv" ] && ! grep -q "cache" "$tmp/after.out"
tap $? "... and the next check finds it valid"

# The environment that named the file travels with the record.
mkdir -p "$tmp/vroot"
CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1,3 VLLM_CACHE_ROOT=$tmp/vroot run vis verify --devices 0,1 --size 4K --vllm-cache
sub=$tmp/vroot/gpu_p2p_access_cache_for_1,3.json
rsub=$(grep -l "^cache $sub\$" "$P2PMAP_STATE_DIR"/caches/*.record)
sed -i 's/^kernel .*/kernel 6.1.0-99-amd64/' "$rsub"
run vis2 check
grep -qF "cache stale: $sub (vLLM" "$tmp/vis2.out" &&
	grep -qF "; refresh: CUDA_DEVICE_ORDER='PCI_BUS_ID' CUDA_VISIBLE_DEVICES='1,3' VLLM_CACHE_ROOT='$tmp/vroot' p2pmap verify --devices 0,1 --vllm-cache" "$tmp/vis2.out"
tap $? "a cache named by CUDA_VISIBLE_DEVICES in another VLLM_CACHE_ROOT: the refresh command sets them and the order"
run vis3 check --refresh-caches
grep -qxF "cache refreshed: $sub (vLLM)" "$tmp/vis3.out" && [ ! -e "$HOME/.cache/vllm/gpu_p2p_access_cache_for_0,1.json" ]
tap $? "... and --refresh-caches writes that same file, from an environment without them"

if [ "$(id -u)" = 0 ]; then
	sed -i 's/^kernel .*/kernel 6.1.0-99-amd64/' "$rsub"
	chown nobody "$tmp/vroot"
	run other check --refresh-caches
	grep -qxF "warning: not refreshing $sub: its directory belongs to another user" "$tmp/other.out" &&
		grep -qF "cache stale: $sub" "$tmp/other.out"
	tap $? "--refresh-caches leaves a cache in another user's directory alone (and still says it is stale)"
	chown root "$tmp/vroot"
else
	tap_skip "--refresh-caches leaves a cache in another user's directory alone" "not root"
fi

# doctor --root: another host's records (ROOT/var/lib/p2pmap), its
# caches under ROOT, its sysfs and NVIDIA procfs.
r=$tmp/root
a=0000:41:00.0 b=0000:c1:00.0
mkdir -p "$r/var/lib/p2pmap/caches" "$r/root/.cache/vllm" \
	"$r/sys/kernel/p2pmap/links/$a-$b" "$r/sys/kernel/p2pmap/links/$b-$a"
for d in $a $b; do
	mkdir -p "$r/sys/bus/pci/devices/$d" "$r/proc/driver/nvidia/gpus/$d"
	printf 'Model: \t\t NVIDIA RTX PRO 6000\nGPU UUID: \t %s\n' "$(uuid "${d:5:2}")" \
		>"$r/proc/driver/nvidia/gpus/$d/information"
done
echo mapped >"$r/sys/kernel/p2pmap/links/$a-$b/state"
echo mapped >"$r/sys/kernel/p2pmap/links/$b-$a/state"
echo 1.0.0 >"$r/sys/kernel/p2pmap/version"
echo "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Oct 23 19:37:15 UTC 2025" \
	>"$r/proc/driver/nvidia/version"
rcache=/root/.cache/vllm/gpu_p2p_access_cache_for_0,1.json
printf '{\n    "0->0": true\n}' >"$r$rcache"
h=$(python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
print("%016x" % h)' "$r$rcache")
record() {	# record LINE...: the fixture host's record, valid as it stands
	{
		printf 'record 1\nframework vllm\ncache %s\ncontent %s\n' "$rcache" "$h"
		printf 'written 2026-12-01T10:00:00Z\nmodule 1.0.0\nnvidia 580.95.05\n'
		printf 'kernel 6.12.57+deb13-amd64\norder PCI_BUS_ID\nvisible -\n'
		printf 'gpu 0 %s %s present\ngpu 1 %s %s present\n' $a "$(uuid 41)" $b "$(uuid c1)"
		printf 'link %s %s mapped\nlink %s %s mapped\n' $a $b $b $a
		printf '%s\n' "$@"
	} >"$r/var/lib/p2pmap/caches/vllm-1.record"
}
doc() {	# doc NAME: doctor --root's caches lines in NAME.out
	"$p2pmap" doctor --root "$r" >"$tmp/$1.full" 2>&1
	grep -A1 " caches: " "$tmp/$1.full" >"$tmp/$1.out"
}
record
doc rvalid
grep -qxF "ok    caches: vLLM cache $rcache matches what p2pmap verify verified (2026-12-01T10:00:00Z)" "$tmp/rvalid.out"
tap $? "doctor --root: that host's record and cache, valid against its sysfs and procfs (its kernel not judged)"
printf 'Model: \t\t NVIDIA RTX PRO 6000\nGPU UUID: \t GPU-FFFFFFFF-a4a5-a6a7-0000-000000c10000\n' \
	>"$r/proc/driver/nvidia/gpus/$b/information"
doc ruuid
grep -qF "stale: $b is another GPU now (GPU-ffffffff-a4a5-a6a7-0000-000000c10000, verified $(uuid c1)); the framework" "$tmp/ruuid.out" &&
	grep -qxF "      fix: CUDA_DEVICE_ORDER='PCI_BUS_ID' VLLM_CACHE_ROOT='/root/.cache/vllm' p2pmap verify --devices 0,1 --vllm-cache" "$tmp/ruuid.out"
tap $? "another GPU at a verified address (its UUID in /proc/driver/nvidia): stale"
rm -r "$r/sys/bus/pci/devices/$b"
doc rgone
grep -qF "stale: CUDA device 1 ($b) is no longer on the PCI bus; the framework" "$tmp/rgone.out"
tap $? "a verified GPU no longer on the PCI bus: stale"
mkdir -p "$r/sys/bus/pci/devices/$b"
record
printf 'Model: \t\t NVIDIA RTX PRO 6000\nGPU UUID: \t %s\n' "$(uuid c1)" \
	>"$r/proc/driver/nvidia/gpus/$b/information"
echo pending >"$r/sys/kernel/p2pmap/links/$b-$a/state"
doc rlink
grep -qF "stale: p2pmap's link $b -> $a was mapped, is pending now; the framework" "$tmp/rlink.out"
tap $? "a link of the cache's GPUs pending now: stale"
echo mapped >"$r/sys/kernel/p2pmap/links/$b-$a/state"
sed -i 's/580.95.05/580.105.08/' "$r/proc/driver/nvidia/version"
doc rdrv
grep -qF "stale: NVIDIA driver 580.95.05 then, 580.105.08 now; the framework" "$tmp/rdrv.out"
tap $? "another NVIDIA driver: stale"
sed -i 's/580.105.08/580.95.05/' "$r/proc/driver/nvidia/version"
rm -r "$r/sys/kernel/p2pmap"
doc rmod
grep -qF "stale: p2pmap's link $a -> $b was mapped, is not configured now (and 2 more changes)" "$tmp/rmod.out"
tap $? "p2pmap unloaded: its links and the module are changes"

tap_done
