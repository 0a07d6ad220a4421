#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The stand-in libnccl.so.2 (tests/nccl-stub, issue 37 item 4) over the
# stand-in libcuda (tests/cuda-stub): its API against NVIDIA's nccl.h and
# libnccl.so.2 where installed; all-reduce right with healthy GPUs at 2 and
# 4 ranks, 12 KiB and 32 MiB; the stand-in libcuda's path rules making it
# hang or go wrong where NCCL would (a hang is counted in the stand-in's
# state file "hangs" and the process seen not to return, never timed);
# NCCL_P2P_DISABLE=1 going round them; the INFO log read by
# "p2pmap nccl-check".  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/nccl-stub
cudadir=$top/build/cuda-stub
out=${P2PMAP_NCCL_STUB_OUT:-$top/build/nccl-stub}	# another build: a mutant
p2pmap=$top/user/p2pmap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/tests/cuda-stub" OUT="$cudadir" >"$tmp/build.log" 2>&1 &&
	make -s -C "$top/user" p2pmap >>"$tmp/build.log" 2>&1 &&
	{ [ -n "${P2PMAP_NCCL_STUB_OUT:-}" ] ||
	  make -s -C "$here" OUT="$out" >>"$tmp/build.log" 2>&1; }
tap $? "the stand-in libnccl.so.2, its driver and p2pmap build"
sed 's/^/# /' "$tmp/build.log" | head -20

gpus="0000:01:00.0,0000:41:00.0,0000:81:00.0,0000:c1:00.0"
export LD_LIBRARY_PATH=$out:$cudadir
export P2PMAP_CUDA_STUB_STATE=$tmp/state P2PMAP_CUDA_STUB_LOG=
export TMPDIR=$tmp	# ncclGetUniqueId's rendezvous files
mkdir -p "$tmp/state"

# The exports: exactly nccl_api.h's list, each one NVIDIA's library has.
nm -D --defined-only "$out/libnccl.so.2" | awk '$2 == "T" { print $3 }' |
	sort >"$tmp/exports"
sed -n 's/^[[:space:]]*X(\(nccl[A-Za-z]*\), \(ncclResult_t\|const char\).*/\1/p' "$here/nccl_api.h" |
	sort >"$tmp/declared"
diff "$tmp/declared" "$tmp/exports" >"$tmp/exports.diff"
tap $? "the library exports exactly nccl_api.h's $(wc -l <"$tmp/declared") entry points"
sed 's/^/# /' "$tmp/exports.diff"
real=$(ls /usr/local/cuda*/lib64/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2 2>/dev/null | sort -V | tail -1)
if [ -n "$real" ]; then
	nm -D --defined-only "$real" | awk '{ print $3 }' | sort >"$tmp/real"
	comm -23 "$tmp/exports" "$tmp/real" >"$tmp/missing"
	[ ! -s "$tmp/missing" ]
	tap $? "each is exported by NVIDIA's $real"
	sed 's/^/# not there: /' "$tmp/missing"
else
	tap_skip "each entry point is exported by NVIDIA's libnccl.so.2" "none installed"
fi

# The prototypes and values against NVIDIA's nccl.h; a mutant must fail.
inc=$(dirname "$(ls /usr/local/cuda*/include/nccl.h /usr/include/nccl.h 2>/dev/null | sort -V | tail -1)" 2>/dev/null)
api() {	# api HEADER
	cc -std=gnu11 -Wall -Wextra -Werror -I"$inc" -I"$here" \
		-DNCCL_STUB_HEADER="\"$1\"" -o "$tmp/api" "$here/api-check.c" \
		>"$tmp/api.err" 2>&1
}
if [ -n "$inc" ] && [ -f "$inc/nccl.h" ]; then
	ver=$(awk '/define NCCL_(MAJOR|MINOR|PATCH) / { v = v (v ? "." : "") $3 } END { print v }' "$inc/nccl.h")
	api "$here/nccl_api.h"
	tap $? "every prototype, enum value and the id's size are nccl.h's ($inc/nccl.h, NCCL $ver)"
	sed 's/^/# /' "$tmp/api.err" | head -10
	sed 's/(const void \*sendbuff, void \*recvbuff, size_t count,/(const void *sendbuff, void *recvbuff, int count,/' \
		"$here/nccl_api.h" >"$tmp/mutant.h"
	! cmp -s "$here/nccl_api.h" "$tmp/mutant.h" && ! api "$tmp/mutant.h" &&
		grep -q "conflicting types for .ncclAllReduce" "$tmp/api.err"
	tap $? "... and fails on a wrong one (ncclAllReduce's count an int)"
else
	tap_skip "the API against NVIDIA's nccl.h" "no nccl.h installed"
	tap_skip "... and fails on a wrong one" "no nccl.h installed"
fi

# run NAME RULES [ENV...] -- ARGS: the driver, to the end or to a hang.
# A hang: a line in the stand-ins' "hangs" file and the process still
# there after it (then killed); its exit is then "hang".
run() {
	local name=$1 rules=$2 pid i
	shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rm -f "$tmp/state/"*
	env P2PMAP_CUDA_STUB="$gpus${rules:+;$rules}" "${envs[@]}" \
		"$out/selftest" "$@" >"$tmp/$name.out" 2>&1 &
	pid=$!
	# up to 60 s for the stand-in to say it hangs or to finish
	for ((i = 0; i < 1200; i++)); do
		[ -s "$tmp/state/hangs" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	if [ -s "$tmp/state/hangs" ]; then
		sleep 0.2
		if kill -0 $pid 2>/dev/null; then
			kill -9 $pid 2>/dev/null
			wait $pid 2>/dev/null
			echo hang >"$tmp/$name.rc"
			return
		fi
	fi
	# Neither done nor hung in the stand-in's sense after 60 s: stuck
	# somewhere else (as a rank waiting for one that left), said as
	# such, and the suite goes on.
	if kill -0 $pid 2>/dev/null; then
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		echo "stuck (60 s)" >"$tmp/$name.rc"
		return
	fi
	wait $pid
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }
hangs() { grep -c "$2" "$tmp/state/hangs" 2>/dev/null; }

P2PMAP_CUDA_STUB=$gpus "$out/selftest" api >"$tmp/api.out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/api.out"
[ $rc = 0 ] && [ "$(grep -c '^ok ' "$tmp/api.out")" = 12 ]
tap $? "the calls' error paths as NCCL's: version, error strings, group misuse, 0 devices, half/ncclNumTypes/ncclNumOps, another GPU's buffer"

# Healthy GPUs.
for n in 2 4; do
	for size in 12288 33554432; do
		run "ok-$n-$size" "" -- $n $size
		[ "$(rc "ok-$n-$size")" = 0 ]
		tap $? "healthy: $n ranks, $size bytes, every element right"
	done
done
# Twenty times: the ranks' threads come at once, and a race among them
# (one took the driver's loading by another for a failure and left, the
# rest waited for it for ever) showed about one run in seven.
for i in $(seq 20); do
	run threads "" -- 4 12288 threads
	[ "$(rc threads)" = 0 ] || break
done
[ "$(rc threads)" = 0 ]
tap $? "healthy: 4 ranks as threads (ncclGetUniqueId, ncclCommInitRank), 20 runs ($i)"

# One process a rank (ncclCommInitRank): buffers shared as cuMem file
# descriptors ("P2P/CUMEM"), or CUDA IPC handles with
# NCCL_CUMEM_ENABLE=0 ("P2P/IPC").  A group whose IPC path works and whose
# cuMem path hangs: the all-reduce hangs with NCCL's defaults only.
for n in 2 4; do
	run "procs-$n" "" NCCL_DEBUG=INFO -- $n 33554432 procs
	[ "$(rc "procs-$n")" = 0 ] && [ "$(grep -c 'via P2P/CUMEM$' "$tmp/procs-$n.out")" = $((2 * n)) ]
	tap $? "healthy: $n ranks in $n processes, 32 MiB, right; P2P/CUMEM on each of the ring's $n edges, 2 channels"
done
run procs-cumem "hang=0->1:w@cumem" -- 2 12288 procs
run procs-ipc "hang=0->1:w@cumem" NCCL_CUMEM_ENABLE=0 NCCL_DEBUG=INFO -- 2 12288 procs
run procs-ipc-hang "hang=0->1:w@ipc" NCCL_CUMEM_ENABLE=0 -- 2 12288 procs
run procs-cumem-ok "hang=0->1:w@ipc" -- 2 12288 procs
[ "$(rc procs-cumem)" = hang ] && [ "$(rc procs-ipc)" = 0 ] &&
	grep -q 'via P2P/IPC$' "$tmp/procs-ipc.out" &&
	[ "$(rc procs-ipc-hang)" = hang ] && [ "$(rc procs-cumem-ok)" = 0 ]
tap $? "2 processes: a hang on the cuMem path hangs the all-reduce, which works over IPC (NCCL_CUMEM_ENABLE=0, P2P/IPC), and the other way round"
run procs-fault-2 "fault=1->0:w" -- 2 12288 procs
counted=$(hangs x at=nccl)
run procs-fault-4 "fault=1->0:w" -- 4 12288 procs
[ "$(rc procs-fault-2)" = hang ] && [ "$counted" = 1 ] && [ "$(rc procs-fault-4)" = 0 ]
tap $? "2 processes: GPU1's writes to GPU0 vanish: 2 ranks wait for ever for the tail, 4 ranks right at 12 KiB"

# Corrupt data.  Written (NCCL's default on PCIe) the zeros hit the tail
# after the data too: the receiver waits for ever, as NCCL's would.  Read
# (NCCL_P2P_READ_ENABLE=1) the data come by a path of their own: wrong.
run wrong-read "wrong=1->0:r" NCCL_P2P_READ_ENABLE=1 -- 2 12288
[ "$(rc wrong-read)" = 1 ] && grep -q "element 0 is 2, not 3" "$tmp/wrong-read.out"
tap $? "wrong data read by GPU1 from GPU0 (P2P read): the all-reduce completes with rank 1's sum wrong, element checked"
run wrong-write "wrong=0->1:w" -- 2 12288
[ "$(rc wrong-write)" = hang ] && [ "$(hangs x at=nccl)" = 1 ]
tap $? "zeros written GPU0 -> GPU1 (P2P write): the tail is zeros too, the all-reduce never returns (1 hang, at=nccl)"

# A hang on the cuMem path: the collective hangs; cudaMalloc memory
# (NCCL_CUMEM_ENABLE=0) goes another path; NCCL_P2P_DISABLE=1 none.
run hang "hang=0->1:w@cumem" -- 2 12288
[ "$(rc hang)" = hang ] && [ "$(hangs x 'at=kernel')" = 1 ]
tap $? "GPU0's writes to GPU1's cuMem hang: the all-reduce never returns (the stand-in libcuda's hang, at=kernel)"
run hang-nocumem "hang=0->1:w@cumem" NCCL_CUMEM_ENABLE=0 -- 2 12288
[ "$(rc hang-nocumem)" = 0 ]
tap $? "... with NCCL_CUMEM_ENABLE=0 (cudaMalloc pointers, path sm): right"
for size in 12288 33554432; do
	run "hang-shm-$size" "hang=0->1;hang=1->0" NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO -- 2 $size
	[ "$(rc "hang-shm-$size")" = 0 ] && [ ! -s "$tmp/state/hangs" ]
	tap $? "... every peer path hanging both ways, NCCL_P2P_DISABLE=1: right at $size bytes (through host memory)"
done

# Rules that break 2-rank rings only.  The ring 0 1 2 3 has edges
# 0->1, 1->2, 2->3, 3->0; a 2-rank ring {0, 1} has 0->1 and 1->0.
run read-2 "hang=0->1:r" NCCL_P2P_READ_ENABLE=1 -- 2 12288
run read-4 "hang=0->1:r" NCCL_P2P_READ_ENABLE=1 -- 4 33554432
[ "$(rc read-2)" = hang ] && [ "$(rc read-4)" = 0 ]
tap $? "GPU0's reads of GPU1 hang (P2P read): 2 ranks hang (GPU0 reads 1->0's data), 4 ranks right at 32 MiB (no edge 1->0)"
run fault-2 "fault=1->0:w" -- 2 12288
run fault-4 "fault=1->0:w" -- 4 12288
run fault-4big "fault=1->0:w" -- 4 33554432
[ "$(rc fault-2)" = hang ] && [ "$(rc fault-4)" = 0 ] && [ "$(rc fault-4big)" = hang ]
tap $? "GPU1's writes to GPU0 vanish (P2P write): 2 ranks hang at 12 KiB, 4 ranks right at 12 KiB (only 0->1's heads lost, fewer than NCCL_STEPS), and hang at 32 MiB (the sender runs out of slots)"

# The log, read by nccl-check: the transport of each pair.
run log "refuse=1->2" NCCL_DEBUG=INFO -- 4 12288
"$p2pmap" nccl-check "$tmp/log.out" --json >"$tmp/log.json" 2>"$tmp/log.err"
python3 - "$tmp/log.json" >"$tmp/log.check" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {(p["from_rank"], p["to_rank"]): (p["transports"], p["channels"]) for p in d["pairs"]}
want = {(0, 1): (["P2P/direct"], 2), (1, 2): (["SHM/direct"], 2),
        (2, 3): (["P2P/direct"], 2), (3, 0): (["P2P/direct"], 2)}
assert d["nccl_version"] == "2.30.7" and d["nranks"] == 4, d
assert got == want, got
PY
[ "$(rc log)" = 0 ] && [ ! -s "$tmp/log.check" ]
tap $? "nccl-check reads the INFO log: NCCL 2.30.7, 4 ranks, P2P/direct on 3 edges, SHM/direct on 1->2 (no peer access), 2 channels each"
sed 's/^/# /' "$tmp/log.check" "$tmp/log.err" | head -10
"$p2pmap" nccl-check "$tmp/hang-shm-12288.out" --json >"$tmp/shm.json" 2>&1
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["p2p_disable"] is True and all(p["transports"] == ["SHM/direct"] for p in d["pairs"]) and len(d["pairs"]) == 2' "$tmp/shm.json"
tap $? "... and with NCCL_P2P_DISABLE=1: disabled, SHM/direct both ways"
"$p2pmap" nccl-check "$tmp/procs-4.out" --json >"$tmp/procs.json" 2>&1
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["nranks"] == 4 and sorted((p["from_rank"], p["to_rank"]) for p in d["pairs"]) == [(0, 1), (1, 2), (2, 3), (3, 0)] and all(p["transports"] == ["P2P/CUMEM"] and p["channels"] == 2 for p in d["pairs"])' "$tmp/procs.json"
tap $? "... and the 4 processes' log: P2P/CUMEM on the ring's 4 edges, 2 channels each"

# No peer mapping at all on the cuMem path: ncclCommInitAll fails as
# NCCL's CUCHECK does.
run noenable "noenable=0->1@cumem" NCCL_DEBUG=WARN -- 2 12288
[ "$(rc noenable)" = 2 ] && grep -q "NCCL WARN Cuda failure 801" "$tmp/noenable.out"
tap $? "cuMemSetAccess refused (801): ncclCommInitAll fails, ncclUnhandledCudaError, \"Cuda failure 801\""

tap_done
