#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap env" on fixture hosts: a sysfs tree under a --root directory
# (p2pmap's links with their state and fault counters, the PCI devices
# under their root complexes) and a "p2pmap verify" output.  The 4-GPU
# host of the README: one GPU per root complex (pci0000:00, 40, 80, c0).
# P2P must be recommended only when every direction worked, its link is
# mapped and counted no fault; the whole output is compared with
# NAME.want for the main cases.  Then the walk on the 8-GPU host of
# tests/doctor (Documentation/faults-to-faster-server.md; its node-0 GPUs
# 01, 21, 41, 61, one per root complex): env and nccl-check from the
# verify output tests/verify/run.sh compares with the real one, every
# block of README.md and Documentation/*.md against its file, the
# README's length and every relative link of those documents.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/env
# P2PMAP_ENV_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_ENV_BIN:-$top/user/p2pmap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"

gpus="0000:01:00.0 0000:41:00.0 0000:81:00.0 0000:c1:00.0"

# host DIR [loaded] [same-root]: the fixture tree; every link mapped.
host() {
	local dir=$1 a b bus rp
	rm -rf "$dir"
	mkdir -p "$dir/sys/bus/pci/devices"
	for a in $gpus; do
		bus=${a:5:2}
		rp=$(printf '%02x' $((0x$bus - 1)))
		[ "${3:-}" = same-root ] && bus=01 rp=00
		ln -s "../../../devices/pci0000:$rp/0000:$rp:01.1/$a" \
			"$dir/sys/bus/pci/devices/$a"
	done
	[ "${2:-}" = loaded ] || return 0
	for a in $gpus; do
		for b in $gpus; do
			[ "$a" = "$b" ] && continue
			mkdir -p "$dir/sys/kernel/p2pmap/links/$a-$b"
			echo mapped >"$dir/sys/kernel/p2pmap/links/$a-$b/state"
			echo >"$dir/sys/kernel/p2pmap/links/$a-$b/reason"
			echo 0 >"$dir/sys/kernel/p2pmap/links/$a-$b/faults"
		done
	done
}
link_set() {	# DIR FROM TO FILE VALUE
	echo "$5" >"$1/sys/kernel/p2pmap/links/$2-$3/$4"
}

# run NAME WANT-RC ARGS...: env's output (stdout and stderr) to $tmp/NAME.out.
run() {
	local name=$1 want=$2 rc
	shift 2
	"$p2pmap" env "$@" >"$tmp/$name.out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { echo "# $name: exit $rc, want $want"; sed 's/^/# /' "$tmp/$name.out"; return 1; }
}
# whole NAME: the output equals NAME.want (paths of this run made relative).
whole() {
	sed -i "s|$tmp/||g; s|$here/||g" "$tmp/$1.out"
	diff -u "$here/$1.want" "$tmp/$1.out" >"$tmp/$1.diff" && return 0
	sed 's/^/# /' "$tmp/$1.diff" | head -20
	return 1
}
has() { grep -qxF -- "$2" "$tmp/$1.out"; }
hasnt() { ! grep -qF -- "$2" "$tmp/$1.out"; }

ok=$here/verify-4gpu-ok.txt
bad=$top/tests/nccl/verify-4gpu.txt
cp "$ok" "$tmp/verify-4gpu-ok.txt"
cp "$bad" "$tmp/verify-4gpu.txt"
ok=$tmp/verify-4gpu-ok.txt bad=$tmp/verify-4gpu.txt

# 1. All 12 directions verified, mapped, no fault: P2P on, across root
#    complexes (NCCL_P2P_LEVEL=SYS).
host "$tmp/h1" loaded
run all-mapped 0 --verify "$ok" --root "$tmp/h1" && whole all-mapped
tap $? "every direction verified, mapped, no fault: P2P on, NCCL_P2P_LEVEL=SYS across root complexes, exit 0 (whole output)"
run all-mapped-systemd 0 --verify "$ok" --root "$tmp/h1" --format systemd &&
	whole all-mapped-systemd
tap $? "the same as a systemd drop-in: [Service], UnsetEnvironment=, Environment= (whole output)"
run all-mapped-json 0 --verify "$ok" --root "$tmp/h1" --json &&
	python3 - "$tmp/all-mapped-json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["p2p"] is True and d["module_loaded"] is True, d
assert d["directions"] == 12 and d["usable"] == 12, d
assert d["set"] == {"NCCL_P2P_LEVEL": "SYS", "VLLM_SKIP_P2P_CHECK": "0"}, d["set"]
assert d["unset"] == ["NCCL_P2P_DISABLE"], d["unset"]
assert [g["root_bus"] for g in d["devices"]] == ["pci0000:00", "pci0000:40", "pci0000:80", "pci0000:c0"], d["devices"]
assert all(p["usable"] and p["link_state"] == "mapped" and p["faults"] == 0 and p["why"] is None for p in d["pairs"]), d["pairs"]
PY
tap $? "--json: p2p true, 12 of 12, set and unset as in the text, each pair's link state and faults"

# 1b. verify's paths (user/verify/verify_paths.h): the cuMem path broken
#     one way, IPC working everywhere: NCCL keeps P2P over IPC handles
#     (NCCL_CUMEM_ENABLE=0) and SGLang's PCIe IPC all-reduce is on; IPC
#     broken one way, cuMem working: NCCL keeps P2P on cuMem, SGLang's
#     all-reduce stays off, the direction named.  An older verify's
#     output (no paths): neither variable (1. above).
sfx=" on every path (copy, sm, ipc, cumem)"
sed "s/^verify: 12 directions, 12 work\$/verify: 12 directions, 11 work$sfx/" "$ok" |
	awk '{ print } /^GPU0 \(0000:01:00.0\) -> GPU1/ { print "  paths: copy works, sm works, ipc works, cumem wrong data"; print "  works for: NCCL, vLLM, SGLang" }' |
	sed 's/^\(GPU0 (0000:01:00.0) -> GPU1 (0000:41:00.0)\): works$/\1: wrong data (via cumem: first wrong byte at offset 0 of 4194304)/' >"$tmp/v-cumem.txt"
run cumem 0 --verify "$tmp/v-cumem.txt" --root "$tmp/h1" &&
	has cumem "export NCCL_CUMEM_ENABLE=0" &&
	has cumem "# NCCL's cuMem path (NCCL_CUMEM_ENABLE, on by default) did not work GPU0 -> GPU1; its IPC handles did in every direction" &&
	has cumem "export SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1" && has cumem "unset NCCL_P2P_DISABLE"
tap $? "cuMem broken one way, IPC everywhere: P2P on, NCCL_CUMEM_ENABLE=0, SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1, exit 0"
sed "s/^verify: 12 directions, 12 work\$/verify: 12 directions, 11 work$sfx/" "$ok" |
	awk '{ print } /^GPU2 \(0000:81:00.0\) -> GPU3/ { print "  paths: copy works, sm works, ipc faulted, cumem works"; print "  works for: NCCL; not for: vLLM, SGLang" }' |
	sed 's/^\(GPU2 (0000:81:00.0) -> GPU3 (0000:c1:00.0)\): works$/\1: faulted (via ipc: p2pmap fault counter 0 -> 2, data wrong)/' >"$tmp/v-ipc.txt"
run ipc 0 --verify "$tmp/v-ipc.txt" --root "$tmp/h1" &&
	has ipc "export NCCL_CUMEM_ENABLE=1" &&
	has ipc "# SGLANG_ENABLE_PCIE_IPC_ALLREDUCE not set: its IPC path is not usable GPU2 -> GPU3" &&
	hasnt ipc "export SGLANG_ENABLE_PCIE_IPC_ALLREDUCE" && has ipc "unset NCCL_P2P_DISABLE"
tap $? "IPC broken one way, cuMem everywhere: P2P on over cuMem (NCCL_CUMEM_ENABLE=1), SGLang's IPC all-reduce off, the direction named"
run ipc-json 0 --verify "$tmp/v-ipc.txt" --root "$tmp/h1" --json &&
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["set"] == {"NCCL_P2P_LEVEL": "SYS", "NCCL_CUMEM_ENABLE": "1", "VLLM_SKIP_P2P_CHECK": "0"}, d["set"]' "$tmp/ipc-json.out"
tap $? "--json: NCCL_CUMEM_ENABLE in set, SGLang's variable not"
sed 's/^  works for: NCCL; not for: vLLM, SGLang$/  not for: NCCL, vLLM, SGLang/; s/cumem works$/cumem faulted/' "$tmp/v-ipc.txt" >"$tmp/v-both.txt"
run both 1 --verify "$tmp/v-both.txt" --root "$tmp/h1" &&
	has both "export NCCL_P2P_DISABLE=1" && hasnt both "NCCL_CUMEM_ENABLE" &&
	has both "# left out: GPU2 (0000:81:00.0) -> GPU3 (0000:c1:00.0): verify found it faulted (via ipc: p2pmap fault counter 0 -> 2, data wrong)"
tap $? "IPC and cuMem broken one way: no NCCL path left, P2P stays off, exit 1"

# 2. One direction faulted in verify: P2P stays off, that direction named.
run one-faulted 1 --verify "$bad" --root "$tmp/h1" && whole one-faulted
tap $? "one direction faulted in verify: P2P stays off (NCCL_P2P_DISABLE=1), the direction named, exit 1 (whole output)"
# 2b. Kubernetes node labels (--format nfd): Node Feature Discovery's
#     local feature file, written atomically when P2P is on, removed when
#     it turns bad.  Node 0 holds the first two GPUs, node 1 the others.
host "$tmp/hn" loaded
for a in $gpus; do
	d=$(realpath -m "$tmp/hn/sys/bus/pci/devices/$(readlink "$tmp/hn/sys/bus/pci/devices/$a")")
	mkdir -p "$d"
	case $a in 0000:01:00.0|0000:41:00.0) echo 0 ;; *) echo 1 ;; esac >"$d/numa_node"
done
feat=$tmp/features.d/p2pmap
mkdir -p "$tmp/features.d"
run nfd 0 --verify "$ok" --root "$tmp/hn" --format nfd
has nfd "feature.node.kubernetes.io/p2pmap-verified=true" &&
	has nfd "feature.node.kubernetes.io/p2pmap-gpus=4" &&
	has nfd "feature.node.kubernetes.io/p2pmap-numa-nodes=0_1"
tap $? "--format nfd: p2pmap-verified=true, -gpus=4, -numa-nodes=0_1 as NFD label lines"
# As NFD's local source reads it (source/local/local.go): each line not a
# comment is NAME[=VALUE], NAME a qualified name in an allowed namespace,
# VALUE a label value; bad ones are dropped there, so none may be here.
nfd_valid() {
	python3 - "$1" <<'PY'
import re, sys
name = re.compile(r'^(([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)*feature\.node\.kubernetes\.io/)[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$')
value = re.compile(r'^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$')
n = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    k, _, v = line.partition("=")
    assert name.match(k) and value.match(v), line
    n += 1
assert n == 3, n
PY
}
nfd_valid "$tmp/nfd.out"
tap $? "... every line a label NFD accepts (qualified name in feature.node.kubernetes.io, label value)"
run nfd-file 0 --verify "$ok" --root "$tmp/hn" --format nfd --output "$feat"
[ "$(stat -c %a "$feat")" = 644 ] && nfd_valid "$feat" &&
	[ "$(ls -A "$tmp/features.d")" = p2pmap ]
tap $? "--output: the file written (0644), no temporary file left behind"
run nfd-bad 1 --verify "$bad" --root "$tmp/hn" --format nfd --output "$feat"
[ ! -e "$feat" ] && [ -z "$(ls -A "$tmp/features.d")" ]
tap $? "a direction that faulted in verify: exit 1, the file removed (the labels go)"
run nfd-bad-again 1 --verify "$bad" --root "$tmp/hn" --format nfd --output "$feat"
tap $? "... and again with no file there: exit 1, no error"
run nfd-bad-stdout 1 --verify "$bad" --root "$tmp/hn" --format nfd
grep -q "^# p2pmap: P2P not verified (11 of 12 directions usable): no labels" "$tmp/nfd-bad-stdout.out" &&
	! grep -q "^feature" "$tmp/nfd-bad-stdout.out"
tap $? "... on stdout: no label, why in a comment"
run nfd-file2 0 --verify "$ok" --root "$tmp/hn" --format nfd --output "$feat"
run nfd-gone 1 --verify "$tmp/no-such-verify.txt" --root "$tmp/hn" --format nfd --output "$feat"
[ ! -e "$feat" ]
tap $? "verify's file gone: exit 1, the labels of the earlier verdict removed"
run nfd-usage 2 --verify "$ok" --root "$tmp/hn" --output "$feat"
tap $? "--output without --format nfd: a usage error (exit 2)"

run subset 0 --verify "$bad" --root "$tmp/h1" --devices GPU0,0000:41:00.0
has subset "unset NCCL_P2P_DISABLE" && has subset "export NCCL_P2P_LEVEL=SYS" &&
	grep -q "2 GPUs .*GPU0 0000:01:00.0, GPU1 0000:41:00.0): 2 of 2 directions usable" "$tmp/subset.out"
tap $? "--devices GPU0,0000:41:00.0 (labels and addresses): those two work both ways: P2P on"
run subset-short 1 --verify "$bad" --root "$tmp/h1" --devices c1:00.0,01:00.0
grep -q "^# left out: GPU3 (0000:c1:00.0) -> GPU0 (0000:01:00.0): verify found it faulted" "$tmp/subset-short.out" &&
	has subset-short "export NCCL_P2P_DISABLE=1"
tap $? "--devices in lspci's short form, the faulted pair: P2P off"

# 3. A link not mapped now (its target unbound): left out with its state.
host "$tmp/h3" loaded
link_set "$tmp/h3" 0000:41:00.0 0000:81:00.0 state pending
link_set "$tmp/h3" 0000:41:00.0 0000:81:00.0 reason "target not bound"
run pending 1 --verify "$ok" --root "$tmp/h3"
grep -qxF "# left out: GPU1 (0000:41:00.0) -> GPU2 (0000:81:00.0): its p2pmap link is pending: target not bound" "$tmp/pending.out" &&
	has pending "export NCCL_P2P_DISABLE=1" && hasnt pending "NCCL_P2P_LEVEL" &&
	[ "$(grep -c '^# left out' "$tmp/pending.out")" = 1 ]
tap $? "a link pending now: that direction left out with the link's state and reason, P2P off, exit 1"

# 4. A link that counted faults since p2pmap loaded.
host "$tmp/h4" loaded
link_set "$tmp/h4" 0000:c1:00.0 0000:41:00.0 faults 3
run faults 1 --verify "$ok" --root "$tmp/h4"
grep -qxF "# left out: GPU3 (0000:c1:00.0) -> GPU1 (0000:41:00.0): its p2pmap link counted 3 IOMMU fault(s) since p2pmap loaded (p2pmap faults)" "$tmp/faults.out" &&
	has faults "export NCCL_P2P_DISABLE=1"
tap $? "a link with 3 faults counted: left out, P2P off, exit 1"

# 5. p2pmap not loaded: nothing verified can be trusted now.
host "$tmp/h5"
run unloaded 1 --verify "$ok" --root "$tmp/h5"
grep -q "^# left out: every direction verify found working: p2pmap is not loaded" "$tmp/unloaded.out" &&
	has unloaded "export NCCL_P2P_DISABLE=1" && grep -q ": 0 of 12 directions usable" "$tmp/unloaded.out"
tap $? "p2pmap not loaded: no direction usable, one line says why, P2P off"

# 6. A direction with no p2pmap link (the driver maps it itself) counts
#    on verify's word; GPUs under one root complex need no NCCL_P2P_LEVEL.
host "$tmp/h6" loaded same-root
rm -r "$tmp/h6/sys/kernel/p2pmap/links/0000:01:00.0-0000:41:00.0"
run same-root 0 --verify "$ok" --root "$tmp/h6"
has same-root "unset NCCL_P2P_DISABLE" && hasnt same-root "NCCL_P2P_LEVEL" &&
	hasnt same-root "left out"
tap $? "one root complex, a direction the driver maps itself (no link): P2P on, no NCCL_P2P_LEVEL"
rm -r "$tmp/h6/sys/bus/pci/devices"
run no-pci 0 --verify "$ok" --root "$tmp/h6"
has no-pci "export NCCL_P2P_LEVEL=SYS" && grep -q "root complexes could not be read" "$tmp/no-pci.out"
tap $? "root complexes unreadable: NCCL_P2P_LEVEL=SYS, and it says why"

# 6b. verify --bandwidth's lines, from the real verify on the stand-in
#     libcuda (tests/cuda-stub) at its published rates: GPUs 01 and 41 on
#     NUMA node 0, 81 and c1 on node 1 (direct 55 GB/s within a node,
#     39 GB/s across, staged 38 GB/s and 14 us, 1.8 us of host time a
#     driver call).  Only a direction whose copies are staged through the
#     host (its latency says so) is left out; a slow direct one is kept.
stubdir=$top/build/cuda-stub
make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >>"$tmp/build.log" 2>&1
mkdir -p "$tmp/pci"
for a in $gpus; do
	mkdir -p "$tmp/pci/$a"
	echo "32.0 GT/s PCIe" >"$tmp/pci/$a/current_link_speed"
	echo "32.0 GT/s PCIe" >"$tmp/pci/$a/max_link_speed"
	echo 16 >"$tmp/pci/$a/current_link_width"
	echo 16 >"$tmp/pci/$a/max_link_width"
	# RTX PRO 6000 Blackwell Server Edition: the figures verify uses.
	echo 0x10de >"$tmp/pci/$a/vendor"
	echo 0x2bb5 >"$tmp/pci/$a/device"
done
# bwverify NAME RULES: verify --bandwidth's output to NAME.txt, its exit
# status to NAME.rc.
bwverify() {
	P2PMAP_CUDA_STUB="$(echo $gpus | tr ' ' ,);numa=0,0,1,1${2:+;$2}" \
	P2PMAP_VERIFY_PCI_DIR=$tmp/pci HOME=$tmp P2PMAP_STATE_DIR=$tmp/state \
	LD_LIBRARY_PATH=$stubdir "$p2pmap" verify --bandwidth --paths copy \
		>"$tmp/$1.txt" 2>"$tmp/$1.err"
	echo $? >"$tmp/$1.rc"
}
host "$tmp/h1" loaded
bwverify bwok ""
[ "$(cat "$tmp/bwok.rc")" = 0 ] && [ "$(grep -c '^bandwidth GPU' "$tmp/bwok.txt")" = 12 ] &&
	! grep '^bandwidth GPU' "$tmp/bwok.txt" | grep -q 'STAGED\|SLOW\|BELOW\|not measured' &&
	grep -q '^bandwidth GPU0 (0000:01:00.0) -> GPU2 (0000:81:00.0): 38.98 GB/s, latency 0.4 us' "$tmp/bwok.txt"
tap $? "verify --bandwidth at published rates (39 GB/s across sockets, 38 GB/s staged): every direction works, none staged or slow, exit 0"
grep '^bandwidth GPU' "$tmp/bwok.txt" | grep -e STAGED -e SLOW -e BELOW | sed 's/^/# /' | head -3
run bwok 0 --verify "$tmp/bwok.txt" --root "$tmp/h1" &&
	has bwok "unset NCCL_P2P_DISABLE" && hasnt bwok "left out"
tap $? "... env enables every direction (P2P on, none left out)"
bwverify bwstaged "slow=2->0"
grep -q '^bandwidth GPU2 (0000:81:00.0) -> GPU0 (0000:01:00.0): .*: STAGED through host memory (a 4-byte copy takes 14.0 us with peer access' "$tmp/bwstaged.txt" &&
	[ "$(cat "$tmp/bwstaged.rc")" = 1 ]
tap $? "a direction whose copies are really staged (peer access on, copies through the host): STAGED from its latency, exit 1"
run bwstaged 1 --verify "$tmp/bwstaged.txt" --root "$tmp/h1" &&
	has bwstaged "# left out: GPU2 (0000:81:00.0) -> GPU0 (0000:01:00.0): verify --bandwidth found its copies staged through host memory (a staged copy's latency with peer access, or none possible): not P2P" &&
	[ "$(grep -c '^# left out' "$tmp/bwstaged.out")" = 1 ] && has bwstaged "export NCCL_P2P_DISABLE=1"
tap $? "... env leaves it out, P2P off"
bwverify bwrefused "refuse=2->0"
grep -q '^GPU2 (0000:81:00.0) -> GPU0 (0000:01:00.0): peer access refused' "$tmp/bwrefused.txt" &&
	run bwrefused 1 --verify "$tmp/bwrefused.txt" --root "$tmp/h1" &&
	grep -q "^# left out: GPU2 (0000:81:00.0) -> GPU0 (0000:01:00.0): verify found it peer access refused" "$tmp/bwrefused.out"
tap $? "peer access refused (every copy staged): found, left out"
bwverify bwslow "narrow=1->0"
grep -qF 'bandwidth GPU1 (0000:41:00.0) -> GPU0 (0000:01:00.0): 13.75 GB/s, latency 0.4 us' "$tmp/bwslow.txt" &&
	grep -q '^bandwidth GPU1 (0000:41:00.0) -> GPU0 (0000:01:00.0): .*: SLOW, likely cause: not the links (0000:41:00.0 at 32.0 GT/s x16, 0000:01:00.0 at 32.0 GT/s x16): the path between the GPUs' "$tmp/bwslow.txt" &&
	[ "$(cat "$tmp/bwslow.rc")" = 0 ] && ! grep '^bandwidth GPU' "$tmp/bwslow.txt" | grep -q STAGED
tap $? "a slow direct direction (a quarter of the rate, direct latency): SLOW with its likely cause, not staged, exit 0"
run bwslow 0 --verify "$tmp/bwslow.txt" --root "$tmp/h1" && hasnt bwslow "left out" &&
	has bwslow "unset NCCL_P2P_DISABLE"
tap $? "... env keeps it: data and paths right, slow is no reason to switch P2P off"
# An older verify flagged "LOOKS STAGED" from throughput alone, which a
# slow direct direction shows too: not evidence enough to leave it out.
head -12 "$ok" >"$tmp/old-bw.txt"
cat >>"$tmp/old-bw.txt" <<'TXT'
bandwidth GPU2 (0000:81:00.0) -> GPU0 (0000:01:00.0): 7.98 GB/s, latency 12.0 us (without peer access 7.98 GB/s): LOOKS STAGED through host memory (no faster with peer access than CUDA's staged copy)
verify: 12 directions, 12 work
TXT
run old-bw 0 --verify "$tmp/old-bw.txt" --root "$tmp/h1" && hasnt old-bw "left out"
tap $? "an older verify's LOOKS STAGED (throughput alone): not taken, the direction kept"

# 6c. verify's --json document is what env reads (JSON.md); the text an
#     older setup saved stays readable (verify_text_legacy.c).  The real
#     verify on the stand-in, once as text and once as --json, the same
#     rules: env gives the same answer from either, as text, as a systemd
#     drop-in, as --json and as NFD labels, with the same exit status.
v=$tmp/v	# a folder of its own: json_lint reads $tmp/*-json.out
mkdir -p "$v"
printf '0->3:write 0 3\n' >"$v/faults"
# verify2 NAME RULES ARGS...: verify's text to NAME.txt, its JSON to NAME.json
verify2() {
	local name=$1 rules=$2 fmt
	shift 2
	for fmt in txt json; do
		P2PMAP_CUDA_STUB="$(echo $gpus | tr ' ' ,);numa=0,0,1,1${rules:+;$rules}" \
		P2PMAP_VERIFY_FAULTS_FILE=$v/faults P2PMAP_VERIFY_PCI_DIR=$tmp/pci \
		HOME=$tmp P2PMAP_STATE_DIR=$tmp/state LD_LIBRARY_PATH=$stubdir \
			"$p2pmap" verify "$@" $([ $fmt = json ] && echo --json) \
			>"$v/$name.$fmt" 2>"$v/$name.$fmt.err"
	done
}
# same NAME HOST [ARGS...]: env on NAME.txt and on NAME.json (each copied
# to one path, which the output names) agree in every format
same() {
	local name=$1 root=$2 fmt f rc=0
	shift 2
	for fmt in txt json; do
		cp "$v/$name.$fmt" "$v/verify-result"
		for f in shell systemd json nfd; do
			if [ $f = json ]; then
				"$p2pmap" env --verify "$v/verify-result" --root "$root" --json "$@"
			else
				"$p2pmap" env --verify "$v/verify-result" --root "$root" --format $f "$@"
			fi >"$v/$name.$f.$fmt" 2>&1
			echo "exit $?" >>"$v/$name.$f.$fmt"
		done
	done
	for f in shell systemd json nfd; do
		diff -u "$v/$name.$f.txt" "$v/$name.$f.json" >"$v/$name.$f.diff" ||
			{ rc=1; sed 's/^/# /' "$v/$name.$f.diff" | head -10; }
	done
	return $rc
}
verify2 mixed "refuse=0->2;wrong=1->0;error=2->1;fault=0->3:w;wrong=3->1:r@ipc" --paths all
grep -q '^GPU0 (0000:01:00.0) -> GPU3 (0000:c1:00.0): faulted \[write: faulted (p2pmap fault counter 0 -> 3' "$v/mixed.txt" &&
	[ "$(head -c1 "$v/mixed.json")" = "{" ] && same mixed "$tmp/h1" &&
	grep -qF "# left out: GPU0 (0000:01:00.0) -> GPU3 (0000:c1:00.0): verify found it faulted [write: faulted (p2pmap fault counter 0 -> 3, data wrong); read: works]" "$v/mixed.shell.json" &&
	grep -qF "# left out: GPU1 (0000:41:00.0) -> GPU0 (0000:01:00.0): verify found it wrong data (first wrong byte at offset 0 of 4194304)" "$v/mixed.shell.json" &&
	grep -q "^exit 1$" "$v/mixed.shell.json"
tap $? "verify's JSON and its text, refused, wrong data, error, faulted, a path's wrong data: env's answer the same in every format (P2P off, each direction named as verify words it)"
printf '# no fault from here on\n' >"$v/faults"
verify2 ipcbad "wrong=2->3:w@ipc"
same ipcbad "$tmp/h1" && grep -q "^export NCCL_CUMEM_ENABLE=1$" "$v/ipcbad.shell.json" &&
	grep -q "^# SGLANG_ENABLE_PCIE_IPC_ALLREDUCE not set: its IPC path is not usable GPU2 -> GPU3" "$v/ipcbad.shell.json" &&
	grep -q "^exit 0$" "$v/ipcbad.shell.json"
tap $? "... IPC wrong one way (NCCL's cuMem path fine): the same, P2P on, NCCL_CUMEM_ENABLE=1, SGLang's IPC all-reduce off"
same ipcbad "$tmp/h4" && grep -q "^export NCCL_P2P_DISABLE=1$" "$v/ipcbad.shell.json"
tap $? "... and with a link that counted faults: the same, P2P off"
verify2 bwstaged "slow=2->0" --bandwidth --paths copy
same bwstaged "$tmp/h1" &&
	grep -qF "# left out: GPU2 (0000:81:00.0) -> GPU0 (0000:01:00.0): verify --bandwidth found its copies staged through host memory" "$v/bwstaged.shell.json"
tap $? "... verify --bandwidth, one direction staged: the same, that direction left out"
verify2 bwslow "narrow=1->0" --bandwidth --paths copy
same bwslow "$tmp/h1" && grep -q "^exit 0$" "$v/bwslow.shell.json"
tap $? "... a slow direct direction: the same, kept"
# An older --bandwidth's looks_staged (before "gated": throughput alone)
# is no more evidence in JSON than its LOOKS STAGED in text.
python3 - "$v/bwslow.json" "$v/oldbw.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["directions"]:
    if x["bandwidth"]:
        del x["bandwidth"]["gated"]
        x["bandwidth"]["looks_staged"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
run oldbw 0 --verify "$v/oldbw.json" --root "$tmp/h1" && hasnt oldbw "left out"
tap $? "an older --bandwidth's looks_staged without \"gated\" (throughput alone): not taken, as its text's LOOKS STAGED"
# Auto-detected: JSON after white space; text otherwise, whatever its name.
{ printf '\n  \n'; cat "$v/ipcbad.json"; } >"$v/spaced.txt"
run spaced 0 --verify "$v/spaced.txt" --root "$tmp/h1" && has spaced "export NCCL_CUMEM_ENABLE=1"
tap $? "a JSON document after blank lines, named .txt: read as JSON"
"$p2pmap" env --verify /dev/stdin --root "$tmp/h1" <"$v/ipcbad.json" >"$v/pipe-json.out" 2>&1 &&
	"$p2pmap" env --verify /dev/stdin --root "$tmp/h1" <"$v/ipcbad.txt" >"$v/pipe-txt.out" 2>&1 &&
	cmp -s "$v/pipe-json.out" "$v/pipe-txt.out" && grep -q "^export NCCL_CUMEM_ENABLE=1$" "$v/pipe-json.out"
tap $? "either form through a pipe (--verify /dev/stdin): read, the same answer"
# A broken document decides nothing: exit 1, said why, the labels go.
head -c 700 "$v/ipcbad.json" >"$v/trunc.json"
run nfd-ok-again 0 --verify "$v/ipcbad.json" --root "$tmp/hn" --format nfd --output "$feat"
[ -e "$feat" ] &&
	run trunc 1 --verify "$v/trunc.json" --root "$tmp/hn" --format nfd --output "$feat" &&
	grep -q "trunc.json: truncated: the JSON document ends after 700 bytes" "$tmp/trunc.out" && [ ! -e "$feat" ]
tap $? "a truncated JSON document: exit 1, \"truncated\", the labels of the earlier verdict removed"
sed 's/"schema":1/"schema":2/' "$v/ipcbad.json" >"$v/schema2.json"
run schema2 1 --verify "$v/schema2.json" --root "$tmp/h1" &&
	grep -q '"schema": 2, this p2pmap reads schema 1' "$tmp/schema2.out" && hasnt schema2 "export"
tap $? "a document of a later schema: exit 1, not read, nothing printed to set"
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); del d["directions"][3]["to_pci"]; json.dump(d, open(sys.argv[2], "w"))' \
	"$v/ipcbad.json" "$v/nopci.json"
run nopci 1 --verify "$v/nopci.json" --root "$tmp/h1" &&
	grep -q 'directions\[3\]: "to_pci" is missing' "$tmp/nopci.out" && hasnt nopci "export"
tap $? "a direction without to_pci: exit 1, the key named, nothing decided"
printf '{"schema": 1, "error": "p2pmap verify: no CUDA devices", "exit_code": 3, "directions": []}\n' >"$v/failed.json"
run failed 1 --verify "$v/failed.json" --root "$tmp/h1" &&
	grep -q "p2pmap verify failed, it tested nothing: p2pmap verify: no CUDA devices" "$tmp/failed.out"
tap $? "verify's failure document: exit 1, its error said"

# 7. Bad input: a usage error changes nothing and says what is wrong.
run no-verify 2 --root "$tmp/h1" && grep -q "needs p2pmap verify's output" "$tmp/no-verify.out"
tap $? "no --verify: exit 2 with the reason"
run bad-dev 2 --verify "$ok" --root "$tmp/h1" --devices GPU0,GPU9 &&
	grep -q '"GPU9" is not a GPU of' "$tmp/bad-dev.out"
tap $? "--devices with a GPU verify did not test: exit 2, named"
run dup-dev 2 --verify "$ok" --root "$tmp/h1" --devices GPU0,01:00.0
tap $? "--devices naming one GPU twice: exit 2"
run bad-format 2 --verify "$ok" --format yaml
tap $? "--format yaml: exit 2"
run missing 1 --verify "$tmp/nonexistent" && grep -q "No such file" "$tmp/missing.out"
tap $? "an unreadable verify file: exit 1, the error named"
printf 'hello\n' >"$tmp/empty.txt"
run not-verify 1 --verify "$tmp/empty.txt" && grep -q "fewer than two GPUs" "$tmp/not-verify.out"
tap $? "a file that is not verify's output: exit 1, said so"
run help 0 --help && grep -q "Usage: p2pmap env --verify FILE" "$tmp/help.out"
tap $? "env --help"

# 8. Documentation/faults-to-faster-server.md's walk on tests/doctor's 8-GPU host after link auto
#    --numa 0: node 0's four GPUs, one per root complex (pci0000:00, 20,
#    40, 60), every link mapped, and what verify printed there
#    (tests/verify/8gpu-node0.want, the real output: tests/verify/run.sh).
node0="0000:01:00.0 0000:21:00.0 0000:41:00.0 0000:61:00.0"
cp "$top/tests/verify/8gpu-node0.want" "$tmp/verify-node0.txt"
gpus=$node0 host "$tmp/h8" loaded
run node0-systemd 0 --verify "$tmp/verify-node0.txt" --root "$tmp/h8" --format systemd &&
	whole node0-systemd
tap $? "the 8-GPU host's node 0 from its verify output (bandwidth, cache and device-order lines): P2P on, the drop-in, exit 0 (whole output)"
# The restarted server's NCCL log there (nccl-2.26-node0.log, written from
# NCCL 2.26's format strings as tests/nccl's logs are: four ranks on those
# GPUs, the drop-in's NCCL_P2P_LEVEL=SYS, two ring channels and the
# chain's tree): P2P on every pair NCCL connects, each direction verified.
"$p2pmap" nccl-check "$here/nccl-2.26-node0.log" --verify "$tmp/verify-node0.txt" \
	>"$tmp/nccl-2.26-node0.out" 2>&1
rc=$?
whole nccl-2.26-node0 && [ $rc = 0 ]
tap $? "nccl-check on that host's NCCL log with that verify output: P2P on 7 rank pairs, each verified, no flag, exit 0 (whole output)"

# Documentation/faults-to-faster-server.md shows these outputs (and
# tests/doctor's and tests/verify's), Documentation/demo.md make demo's,
# the README some of it: in README.md and every Documentation/*.md, each
# block between "<!-- tests/... -->" and "<!-- end -->" must be the file
# (its @VERSION@ the VERSION file's).  "<!-- tests/... excerpt -->" shows
# some of its lines: each run of lines between "..." lines (one or more
# left out) must be consecutive lines of the file, in order, from its
# first line unless the block starts with "...", to its last unless it
# ends with one.  A marker without its "<!-- end -->", or a document that
# lost the blocks it should hold, fails.  P2PMAP_DOCS_TOP: another tree's
# documents (to show a changed block fails).
python3 - "$top" "${P2PMAP_DOCS_TOP:-$top}" <<'PY'
import glob, os, re, sys
top, docs = sys.argv[1], sys.argv[2]
version = open(top + "/VERSION").read().strip()
files = [docs + "/README.md"] + sorted(glob.glob(docs + "/Documentation/*.md"))
where = {}
blocks = []
for f in files:
    text = open(f).read()
    found = re.findall(r"<!-- (tests/\S+)( excerpt)? -->\n(.*?)<!-- end -->", text, re.S)
    opened = re.findall(r"<!-- (tests/\S+)( excerpt)? -->", text)
    assert len(found) == len(opened), (f, "a block without <!-- end -->")
    for b in found:
        where.setdefault(os.path.relpath(f, docs), []).append(b[0])
    blocks += found
assert len(blocks) >= 9, len(blocks)

def excerpt(lines, want):
    segs = [[]]
    for l in lines:
        if l == "...":
            segs.append([])
        else:
            segs[-1].append(l)
    pos = 0
    for k, seg in enumerate(segs):
        if not seg:                     # a leading or trailing "..."
            if k and k == len(segs) - 1 and pos >= len(want):
                return False            # nothing left out after it
            continue
        first = pos if k == 0 else pos + 1
        last = len(want) - len(seg)
        starts = [first] if k == 0 else range(first, last + 1)
        if k == len(segs) - 1:
            starts = [i for i in starts if i == last]
        for i in starts:
            if want[i:i + len(seg)] == seg:
                pos = i + len(seg)
                break
        else:
            return False
    return True

for path, part, text in blocks:
    lines = [l[4:] if l.startswith("    ") else l for l in text.strip("\n").split("\n")]
    want = open(top + "/" + path).read().replace("@VERSION@", version).rstrip("\n").split("\n")
    if part:
        assert "..." in lines and excerpt(lines, want), (path, "excerpt", lines[:3])
    else:
        assert lines == want, (path, lines[:3], want[:3])
# Where each block must stay: the walk on the 8-GPU host (doctor, verify,
# env, nccl-check, doctor), link auto on the test bed, make demo's output.
want = {
    "Documentation/faults-to-faster-server.md": [
        "tests/doctor/before.want", "tests/guest/epyc-link-auto.want",
        "tests/verify/8gpu-node0.want", "tests/env/node0-systemd.want",
        "tests/env/nccl-2.26-node0.want", "tests/nccl/nccl-2.31-diagnostics.want",
        "tests/doctor/after.want"],
    "Documentation/demo.md": ["tests/guest/demo-epyc.want"],
    "README.md": ["tests/guest/demo-epyc.want"],
}
for f, ps in want.items():
    for p in ps:
        assert p in where.get(f, []), (p, "not in", f)
PY
tap $? "the doctor, verify, env, nccl-check, link auto and make demo examples in README.md and Documentation/*.md are what the commands print"

# The README starts with the user and stays short (issue 38): at most 250
# lines; and every relative link in README.md and Documentation/*.md
# (markdown "[text](target)") names a file or folder that exists.
python3 - "${P2PMAP_DOCS_TOP:-$top}" <<'PY'
import glob, os, re, sys
docs = sys.argv[1]
n = len(open(docs + "/README.md").read().split("\n")) - 1
assert 0 < n <= 250, ("README.md", n, "lines")
PY
tap $? "README.md is at most 250 lines"
python3 - "${P2PMAP_DOCS_TOP:-$top}" <<'PY'
import glob, os, re, sys
docs = sys.argv[1]
files = [docs + "/README.md"] + sorted(glob.glob(docs + "/Documentation/*.md"))
bad, n = [], 0
for f in files:
    for target in re.findall(r"\]\(([^)\s]+)\)", open(f).read()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue                    # a URL or an anchor of the same page
        n += 1
        path = os.path.join(os.path.dirname(f), target.split("#")[0])
        if not os.path.exists(path):
            bad.append("%s: %s" % (os.path.relpath(f, docs), target))
for b in bad:
    print("# broken link:", b)
assert not bad and n >= 20, (len(bad), n)
PY
tap $? "every relative link in README.md and Documentation/*.md names a file that exists"

# Every p2pmap command line the documents show (in a code block, at the
# start of a line or after "&&", "|" or "$("; "\" continuations
# joined) names a command "p2pmap help" knows, a subcommand its usage
# lists, and only options its help lists: the README's Proxmox section
# and every other is checked against the CLI, not against itself.
python3 - "${P2PMAP_DOCS_TOP:-$top}" "$p2pmap" <<'PY'
import glob, os, re, subprocess, sys
docs, cli = sys.argv[1], sys.argv[2]
files = [docs + "/README.md"] + sorted(glob.glob(docs + "/Documentation/*.md"))
helps, bad, n = {}, [], 0

def help_of(cmd):
    if cmd not in helps:
        r = subprocess.run([cli, "help", cmd], capture_output=True, text=True)
        helps[cmd] = r.stdout if r.returncode == 0 else None
    return helps[cmd]

def code_lines(text):
    # Fenced, or indented 4 or more after a blank line (an indented line
    # that follows text continues that paragraph or list item).
    fenced, code, prev = False, False, ""
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if line.startswith("    ") and line.strip():
            code = code or not prev.strip()
        elif line.strip():
            code = False
        prev = line
        if fenced or code:
            yield line

for f in files:
    joined, buf = [], ""
    for line in code_lines(open(f).read()):
        buf += line.rstrip()[:-1] + " " if line.rstrip().endswith("\\") else line
        if not line.rstrip().endswith("\\"):
            joined.append(buf)
            buf = ""
    for line in joined:
        for m in re.finditer(r"(?:^\s*(?:[#$] )?|&&\s*|\|\s*|\$\()p2pmap\s+([a-z][a-z-]*)(?=\s|$)([^|;&)>#]*)", line):
            cmd, args = m.group(1), m.group(2).split()
            n += 1
            where = "%s: %s" % (os.path.relpath(f, docs), line.strip())
            text = help_of(cmd)
            if text is None:
                bad.append(where + ": no command " + cmd)
                continue
            if args and re.fullmatch(r"[a-z]+", args[0]) and \
               re.search(r"^\s*(Usage:)?\s*p2pmap %s [a-z|]+" % cmd, text, re.M):
                subs = re.findall(r"^\s*(?:Usage:)?\s*p2pmap %s ([a-z|]+)" % cmd, text, re.M)
                if not any(args[0] in s.split("|") for s in subs):
                    bad.append(where + ": no subcommand " + args[0])
            for a in args:
                o = a.split("=")[0]
                if o.startswith("--") and not re.search(re.escape(o) + r"\b", text):
                    bad.append(where + ": " + cmd + " has no " + o)
for b in bad:
    print("# " + b)
assert not bad and n >= 30, (len(bad), n)
print("# %d command lines checked" % n)
PY
tap $? "every p2pmap command line in README.md and Documentation/*.md is one the CLI takes: its command, subcommand and options (p2pmap help)"

# --json: "schema": 1 first; link_state is status' state name, "unknown"
# for one /sys spells otherwise ("?"); the text keeps what /sys says.
run pending-json 1 --verify "$ok" --root "$tmp/h3" --json
run faulted-json 1 --verify "$bad" --root "$tmp/h1" --json
host "$tmp/h7" loaded
link_set "$tmp/h7" 0000:41:00.0 0000:81:00.0 state "?"
run unknown 1 --verify "$ok" --root "$tmp/h7"
run unknown-json 1 --verify "$ok" --root "$tmp/h7" --json &&
	python3 - "$tmp/pending-json.out" "$tmp/unknown-json.out" <<'PY' &&
import json, sys
for path, want in zip(sys.argv[1:], ("pending", "unknown")):
    d = json.load(open(path))
    p = [p for p in d["pairs"] if p["from"] == "0000:41:00.0" and p["to"] == "0000:81:00.0"]
    assert p[0]["link_state"] == want and not p[0]["usable"], p
    assert all(q["link_state"] == "mapped" for q in d["pairs"] if q is not p[0]), d
PY
	grep -qxF "# left out: GPU1 (0000:41:00.0) -> GPU2 (0000:81:00.0): its p2pmap link is ?" "$tmp/unknown.out"
tap $? "--json: link_state pending, or unknown for a state /sys spells \"?\" (the text keeps \"?\")"
python3 "$top/tests/unit/json_lint.py" env "$tmp"/*-json.out
tap $? "every --json document: \"schema\": 1 first, fields and enum values as JSON.md lists them"

tap_done
