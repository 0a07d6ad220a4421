#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap nccl-check" on NCCL_DEBUG=INFO logs written from NCCL's own
# format strings (verify/nccl_log.h names them) for NCCL 2.18, 2.21, 2.26
# and 2.27: busId and nvmlDev brackets, channel lines before the ranks'
# Init COMPLETE lines, SHM, P2P and NET, two hosts, NCCL_P2P_DISABLE as
# before and after 2.23, timestamps; and NCCL_RUN_DIAGNOSTICS=1's lines
# (verify/nccl_diag.h: 2.31.2's format strings, and the later summary's
# wording as 2.32): a failing import where verify's copy works, a write
# mismatch where verify faulted.  Against a "p2pmap verify" output of
# the four GPUs (one direction faulted).  The whole output is compared
# with NAME.want.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/nccl
p2pmap=${P2PMAP_NCCL_BIN:-$top/user/p2pmap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"

for log in "$here"/*.log; do
	name=$(basename "$log" .log)
	"$p2pmap" nccl-check "$log" --verify "$here/verify-4gpu.txt" >"$tmp/$name.out" 2>&1
	rc=$?
	diff -u "$here/$name.want" "$tmp/$name.out" >"$tmp/$name.diff"
	[ ! -s "$tmp/$name.diff" ] && [ $rc = 1 ]
	tap $? "$name: the whole report as expected, exit 1 (something flagged)"
	sed 's/^/# /' "$tmp/$name.diff" | head -20
	"$p2pmap" nccl-check "$log" --verify "$here/verify-4gpu.txt" --json >"$tmp/$name.json"
	python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); g = d["diagnostics"] or {"failures": [], "unexplained_flag": False}; assert d["flags"] == sum(p["flag"] is not None for p in d["pairs"]) + len(g["failures"]) + g["unexplained_flag"]' "$tmp/$name.json"
	tap $? "$name: --json parses, its flags add up"
done

# verify's --json document is what nccl-check reads (JSON.md; the text
# stays readable for files saved before).  The real verify on the
# stand-in libcuda (tests/cuda-stub) finds the fixture's facts (3 -> 0's
# write faulted: counter 0 -> 4, data wrong), once as text, once as JSON:
# with either, every log's report is NAME.want.
stubdir=$top/build/cuda-stub
v=$tmp/v	# a folder of its own: json_lint reads $tmp/*.json
mkdir -p "$v"
make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >>"$tmp/build.log" 2>&1
printf '3->0:write 0 4\n' >"$tmp/faults"
for fmt in txt json; do
	P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0,0000:81:00.0,0000:c1:00.0;fault=3->0:w" \
	P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults P2PMAP_VERIFY_PCI_DIR=$tmp/pci-none \
	HOME=$tmp P2PMAP_STATE_DIR=$tmp/state LD_LIBRARY_PATH=$stubdir \
		"$p2pmap" verify $([ $fmt = json ] && echo --json) \
		>"$v/verify.$fmt" 2>"$v/verify-$fmt.err"
done
diff <(grep -v '^verify: ' "$v/verify.txt") <(grep -v '^verify: ' "$here/verify-4gpu.txt") >/dev/null &&
	[ "$(head -c1 "$v/verify.json")" = "{" ]
tap $? "the stand-in's verify finds verify-4gpu.txt's verdicts (text), and prints them as JSON with --json"
rc=0
for log in "$here"/*.log; do
	name=$(basename "$log" .log)
	for fmt in txt json; do
		"$p2pmap" nccl-check "$log" --verify "$v/verify.$fmt" >"$v/$name.$fmt.out" 2>&1
		echo $? >>"$v/$name.$fmt.out"
		"$p2pmap" nccl-check "$log" --verify "$v/verify.$fmt" --json >"$v/$name.$fmt.jout" 2>&1
	done
	{ cat "$here/$name.want"; echo 1; } | diff -u - "$v/$name.json.out" >"$v/$name.fmt.diff" &&
		cmp -s "$v/$name.txt.out" "$v/$name.json.out" &&
		cmp -s "$v/$name.txt.jout" "$v/$name.json.jout" ||
		{ rc=1; echo "# $name"; sed 's/^/# /' "$v/$name.fmt.diff" | head -10; }
done
tap $rc "every log: verify's JSON document and its text give the same report, text and --json, and exit status (NAME.want)"
# A JSON document that is not whole or not verify's: exit 1, said why,
# nothing judged from it.
log=$here/nccl-2.26-p2p-over-fault.log
head -c 300 "$v/verify.json" >"$v/trunc.json"
"$p2pmap" nccl-check "$log" --verify "$v/trunc.json" >"$v/trunc.out" 2>&1
[ $? = 1 ] && grep -q "trunc.json: truncated" "$v/trunc.out" && ! grep -q "^rank" "$v/trunc.out"
tap $? "a truncated JSON document: exit 1, \"truncated\", no report"
sed 's/"schema":1/"schema":2/' "$v/verify.json" >"$v/schema2.json"
"$p2pmap" nccl-check "$log" --verify "$v/schema2.json" >"$v/schema2.out" 2>&1
[ $? = 1 ] && grep -q 'schema2.json: "schema": 2, this p2pmap reads schema 1' "$v/schema2.out"
tap $? "a document of a later schema: exit 1, not read"

# --json: "schema": 1 first; verify's verdicts in snake_case (the text
# keeps verify's words).
sed 's/^\(GPU0 (0000:01:00.0) -> GPU3 (0000:c1:00.0)\): works$/\1: peer access refused (cuDeviceCanAccessPeer says no)/' \
	"$here/verify-4gpu.txt" >"$tmp/refused.txt"
log=$here/nccl-2.26-p2p-over-fault.log
"$p2pmap" nccl-check "$log" --verify "$tmp/refused.txt" >"$tmp/refused.out"
"$p2pmap" nccl-check "$log" --verify "$tmp/refused.txt" --json >"$tmp/refused.json"
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert [p["verify"] for p in d["pairs"]] == ["peer_access_refused", "faulted"], d' "$tmp/refused.json" &&
	grep -q "^rank 0 (0000:01:00.0) -> rank 1 (0000:c1:00.0): P2P/IPC (1 channel); p2pmap verify: peer access refused$" "$tmp/refused.out"
tap $? "--json: verify's verdict in snake_case (peer_access_refused), the text's words unchanged"
python3 "$top/tests/unit/json_lint.py" nccl-check "$tmp"/*.json
tap $? "every --json document: \"schema\": 1 first, fields and enum values as JSON.md lists them"

# NCCL's diagnostics: the import that fails where verify's copy works is
# the case of a path verify does not take; a log of the diagnostics alone
# (NCCL hung later, no channel line) is read; failures counted in the
# summary but printed by another node's process are flagged as such.
diag=$here/nccl-2.31-diagnostics.log
"$p2pmap" nccl-check "$diag" --verify "$here/verify-4gpu.txt" --json >"$tmp/diag.json"
python3 - "$tmp/diag.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnostics"]
assert (d["edges_tested"], d["edges_verified"]) == (12, 10), d
f = {(x["from_pci"], x["to_pci"]): x for x in d["failures"]}
imp = f[("0000:41:00.0", "0000:81:00.0")]
assert imp["check"] == "peer-memory import failed" and imp["handle"] == "CUMEM_POSIX_FD"
assert imp["reason"] == "import" and imp["verify"] == "works"
assert "not the one verify tested" in imp["flag"]
w = f[("0000:c1:00.0", "0000:01:00.0")]
assert w["check"] == "write mismatch" and w["verify"] == "faulted" and w["reason"] is None
assert not d["unexplained_flag"]
PY
tap $? "diagnostics: failing directions by rank and GPU (from Init COMPLETE), check, path, handle, reason, verify's verdict"
grep -v " NCCL INFO Channel " "$diag" >"$tmp/nochan.log"
"$p2pmap" nccl-check "$tmp/nochan.log" --verify "$here/verify-4gpu.txt" >"$tmp/nochan.out" 2>&1
[ $? = 1 ] && grep -q "^nccl-check: NCCL 2.31.2, 4 ranks, 1 communicator, 0 rank pairs$" "$tmp/nochan.out" &&
	grep -q "^nccl-check: 2 flags$" "$tmp/nochan.out"
tap $? "a log with the diagnostics and no channel line (init stopped after them): read, both failures flagged"
grep -v "srcRank=" "$diag" >"$tmp/elsewhere.log"
"$p2pmap" nccl-check "$tmp/elsewhere.log" >"$tmp/elsewhere.out" 2>&1
[ $? = 1 ] && grep -qF "  FLAG: 2 GPU P2P checks failed in NCCL's diagnostics and this log names none" "$tmp/elsewhere.out"
tap $? "failures the summary counts but this log does not name (another node's leader prints them): flagged"
grep -v "NCCL DIAG" "$here/nccl-2.21-amd-4gpu.log" | cmp -s - "$here/nccl-2.21-amd-4gpu.log" &&
	! grep -q "diagnostics" "$here/nccl-2.21-amd-4gpu.want"
tap $? "a log without diagnostics: no diagnostics line (older NCCL)"

grep -q "FLAG: P2P is disabled by the environment" "$here/nccl-2.18-p2p-disabled.want" &&
	grep -q "FLAG: P2P is disabled by the environment" "$here/nccl-2.27-disabled-net.want"
tap $? "NCCL_P2P_DISABLE=1 found in both spellings (2.18: as P2P level LOC; 2.27: its own line)"
grep -q "rank 1 (0000:41:00.0) -> rank 2 (0000:01:00.0): NET/IB/0/GDRDMA (1 channel); across hosts" \
	"$here/nccl-2.27-disabled-net.want" && [ "$(grep -c FLAG "$here/nccl-2.27-disabled-net.want")" = 1 ]
tap $? "a pair across hosts is NET's: not set against this host's verdicts"
grep -q "FLAG: NCCL's topology rules put this pair's PCIe path above its P2P level" "$here/nccl-2.21-amd-4gpu.want" &&
	grep -q "^rank 3 .* -> rank 0 .*: SHM" "$here/nccl-2.21-amd-4gpu.want" &&
	! grep -A1 "^rank 3 .* -> rank 0 " "$here/nccl-2.21-amd-4gpu.want" | grep -q FLAG
tap $? "SHM between GPUs verified both ways is flagged; SHM around a faulted direction is not"
[ "$(grep -c "FLAG: NCCL uses P2P where p2pmap verify found a direction that does not work" "$here/nccl-2.26-p2p-over-fault.want")" = 2 ]
tap $? "P2P over a pair with a faulted direction is flagged, both ways"

"$p2pmap" nccl-check "$here/nccl-2.21-amd-4gpu.log" >"$tmp/nov.out"
[ $? = 0 ] && ! grep -q FLAG "$tmp/nov.out"
tap $? "without --verify nothing is flagged (exit 0)"
echo "nothing of NCCL here" >"$tmp/empty.log"
"$p2pmap" nccl-check "$tmp/empty.log" >/dev/null 2>"$tmp/empty.err"
[ $? = 1 ] && grep -q "no NCCL channel line (run with NCCL_DEBUG=INFO" "$tmp/empty.err"
tap $? "a log without channel lines: said how to get one, exit 1"
"$p2pmap" nccl-check >/dev/null 2>&1
[ $? = 2 ]
tap $? "no log: a usage error"

tap_done
