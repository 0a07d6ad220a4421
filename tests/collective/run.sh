#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap verify --collective" (issue 37, item 1) against the stand-in
# libnccl.so.2 (tests/nccl-stub) over the stand-in libcuda
# (tests/cuda-stub), both found through LD_LIBRARY_PATH as the real ones
# would be.  A hang is the watchdog's kill (--timeout) and is counted in
# the stand-ins' state file "hangs", never timed.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# P2PMAP_COLLECTIVE_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_COLLECTIVE_BIN:-$top/user/p2pmap}
cudadir=$top/build/cuda-stub
nccldir=$top/build/nccl-stub
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1 &&
	make -s -C "$top/tests/cuda-stub" OUT="$cudadir" >>"$tmp/build.log" 2>&1 &&
	make -s -C "$top/tests/nccl-stub" OUT="$nccldir" >>"$tmp/build.log" 2>&1
tap $? "p2pmap and the stand-in libcuda and libnccl build"
sed 's/^/# /' "$tmp/build.log" | head -20

gpus2="0000:01:00.0,0000:41:00.0"
gpus4="$gpus2,0000:81:00.0,0000:c1:00.0"
export LD_LIBRARY_PATH=$nccldir:$cudadir
export P2PMAP_CUDA_STUB_STATE=$tmp/state P2PMAP_CUDA_STUB_LOG=
export TMPDIR=$tmp/tmp		# NCCL's logs, the stand-in's rendezvous
# Fault counters read 0 before and after unless a test says otherwise.
: >"$tmp/faults"
export P2PMAP_VERIFY_FAULTS_FILE=$tmp/faults
unset NCCL_P2P_DISABLE NCCL_P2P_LEVEL NCCL_CUMEM_ENABLE NCCL_P2P_READ_ENABLE \
	NCCL_DEBUG NCCL_DEBUG_FILE P2PMAP_NCCL CUDA_VISIBLE_DEVICES VIRTUAL_ENV \
	P2PMAP_UNIT_DIR
mkdir -p "$tmp/state" "$tmp/tmp"

# coll NAME GPUS_AND_RULES [ENV...] -- ARGS: verify --collective; its
# output in NAME.out, NAME.err, exit in NAME.rc, the stand-ins' hangs in
# NAME.hangs.
coll() {
	local name=$1 stub=$2 envs=()
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rm -f "$tmp/state/"*
	env P2PMAP_CUDA_STUB="$stub" "${envs[@]}" $loader "$p2pmap" verify \
		--collective "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	cp "$tmp/state/hangs" "$tmp/$name.hangs" 2>/dev/null || : >"$tmp/$name.hangs"
}
rc() { cat "$tmp/$1.rc"; }
# The watchdog's --timeout where a run hangs: each hang costs it, and the
# runs that do not hang must end within it.  A healthy 32 MiB run takes
# 0.4-1 s on an idle 2-core machine and 1.3-2.8 s beside two busy CPUs
# (the stand-ins spin as a driver does); 8 s was once too short for four
# ranks beside make check's other suites (stop 49).
hang2=12 hang4=20
loader=""	# coll runs p2pmap through this (a dynamic loader) if set
hangs() { wc -l <"$tmp/$1.hangs"; }
# verdict NAME GROUP: the verdict line of a group, e.g. GPU0,GPU1
verdict() { grep "^collective {$2}: " "$tmp/$1.out" | sed 's/^[^:]*: //'; }
show() { sed 's/^/# /' "$tmp/$1.out" "$tmp/$1.err" | head -"${2:-12}"; }

# Healthy GPUs: every group works in both arms, no hang.
coll ok2 "$gpus2" -- --timeout 20
[ "$(rc ok2)" = 0 ] && [ "$(verdict ok2 GPU0,GPU1)" = works ] &&
	[ "$(grep -c '^  p2p .*: right, P2P/' "$tmp/ok2.out")" = 2 ] &&
	[ "$(grep -c '^  control .*: right, SHM/' "$tmp/ok2.out")" = 2 ] &&
	[ "$(hangs ok2)" = 0 ] && grep -q '^nccl: .*libnccl.so.2, version 23007 (found: library path)$' "$tmp/ok2.out" &&
	[ "$(grep -c ': right, .*, [0-9.]* ms, bus [0-9.]* GB/s$' "$tmp/ok2.out")" = 4 ]
tap $? "healthy, 2 GPUs: works, 12 KiB and 32 MiB right over P2P and (control) SHM, each timed (ms, bus GB/s); NCCL's path and version said"
show ok2 8
coll ok4 "$gpus4" -- --timeout 20
[ "$(rc ok4)" = 0 ] && [ "$(grep -c '^collective {.*}: works$' "$tmp/ok4.out")" = 7 ] &&
	[ "$(verdict ok4 GPU0,GPU1,GPU2,GPU3)" = works ] &&
	[ "$(grep -c ': right, ' "$tmp/ok4.out")" = 28 ] && [ "$(hangs ok4)" = 0 ]
tap $? "healthy, 4 GPUs: the 4-rank group and its 6 pairs work, 28 runs right"
show ok4 3

# GPU1's writes to GPU0 vanish: the 2-rank ring {0,1} waits for ever
# (NCCL's head and tail never arrive), the 4-rank ring at 12 KiB does not
# need 1->0 enough to notice, at 32 MiB it does.
printf '1->0 0 2\n' >"$tmp/faults"
coll fault4 "$gpus4;fault=1->0:w" -- --timeout $hang4
: >"$tmp/faults"
# Which part failed, said.  A failure here was seen twice under load
# (stops 49 and 51), each time with the output shown below it right: the
# two groups' blocks are read once, without pipes, and the ones checked
# are shown with the failure.
f4=""
b01=$(grep -A4 '^collective {GPU0,GPU1}:' "$tmp/fault4.out")
b4=$(grep -A4 '^collective {GPU0,GPU1,GPU2,GPU3}:' "$tmp/fault4.out")
[ "$(rc fault4)" = 1 ] || f4+=" exit $(rc fault4), not 1;"
[[ "$(verdict fault4 GPU0,GPU1)" == "P2P broken; faulted: GPU1 -> GPU0 "* ]] || f4+=" {0,1}'s verdict;"
grep -q "^  p2p      12 KiB: hung (killed after $hang4 s)" <<<"$b01" ||
	f4+=" {0,1} p2p 12 KiB not hung;"
[ "$(grep -c '^  control .*: right' <<<"$b01")" = 2 ] ||
	f4+=" {0,1}'s control not right;"
grep -q '^  p2p      12 KiB: right' <<<"$b4" ||
	f4+=" the 4's p2p 12 KiB not right;"
[ "$(grep -c '^collective {GPU[0-9],GPU[0-9]}: works$' "$tmp/fault4.out")" = 5 ] ||
	f4+=" $(grep -c '^collective {GPU[0-9],GPU[0-9]}: works$' "$tmp/fault4.out") pairs work, not 5;"
[ "$(hangs fault4)" = 2 ] && [ "$(grep -c 'at=nccl' "$tmp/fault4.hangs")" = 2 ] ||
	f4+=" $(hangs fault4) hangs counted, not 2 at=nccl;"
[ -z "$f4" ]
tap $? "fault=1->0:w, 4 GPUs: {0,1} hangs with P2P (the watchdog's kill; 2 hangs in the stand-in's file: {0,1} at 12 KiB, the 4 at 32 MiB), works with NCCL_P2P_DISABLE=1: P2P broken, GPU1 -> GPU0 named from its faults; the 4 at 12 KiB right; the 5 other pairs work${f4:+ (failed:$f4)}"
if [ -n "$f4" ]; then
	printf '%s\n' "$b01" "$b4" | sed 's/^/# checked: /'
	show fault4 60
	sed 's/^/# stand-in: /' "$tmp/fault4.hangs"
else
	show fault4 12
fi

coll fault2 "$gpus2;fault=1->0:w" -- --timeout $hang2
[ "$(rc fault2)" = 1 ] && [ "$(verdict fault2 GPU0,GPU1)" = "P2P broken; the pair GPU0 <-> GPU1" ] &&
	grep -q '^  p2p      32 MiB: not run$' "$tmp/fault2.out" && [ "$(hangs fault2)" = 1 ]
tap $? "... 2 GPUs, no fault counted: P2P broken, the pair named; 32 MiB not run after the hang at 12 KiB"
show fault2 6

# NCCL 2.31's own diagnostics (NCCL_RUN_DIAGNOSTICS=1, P2P arm only),
# printed by a shim in front of the stand-in: the edge they fail named.
cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC -o "$tmp/libnccl-diag.so" \
	"$top/tests/collective/diag-shim.c" -L"$nccldir" -Wl,--no-as-needed \
	-l:libnccl.so.2 -ldl \
	>"$tmp/shim.log" 2>&1
coll diag "$gpus2;fault=1->0:w" -- --timeout $hang2 --nccl "$tmp/libnccl-diag.so"
[ "$(rc diag)" = 1 ] &&
	[ "$(verdict diag GPU0,GPU1)" = "P2P broken; GPU1 -> GPU0 (NCCL's diagnostics: write mismatch)" ] &&
	[ "$(hangs diag)" = 1 ]
tap $? "... NCCL's diagnostics failing GPU1 -> GPU0 (a shim prints 2.31's line): that edge named"
sed 's/^/# /' "$tmp/shim.log"
show diag 3

# The P2P arm takes NCCL_CUMEM_ENABLE from the environment (env's output):
# a cuMem path that hangs breaks the default, not cudaMalloc memory.
coll cumem "$gpus2;hang=0->1:w@cumem" -- --timeout $hang2
coll nocumem "$gpus2;hang=0->1:w@cumem" NCCL_CUMEM_ENABLE=0 -- --timeout $hang2
[ "$(rc cumem)" = 1 ] && verdict cumem GPU0,GPU1 | grep -q '^P2P broken' &&
	[ "$(rc nocumem)" = 0 ] && [ "$(verdict nocumem GPU0,GPU1)" = works ]
tap $? "a hang on the cuMem path only: P2P broken with NCCL's default, works with NCCL_CUMEM_ENABLE=0 in the environment"
show nocumem 3

# Wrong data, read by P2P: the all-reduce completes, an element is wrong.
coll wrong "$gpus2;wrong=1->0:r" NCCL_P2P_READ_ENABLE=1 -- --timeout 20
[ "$(rc wrong)" = 1 ] && verdict wrong GPU0,GPU1 | grep -q '^P2P broken' &&
	grep -q '^  p2p      12 KiB: wrong data (rank 0 element 0 is 2, not 3)' "$tmp/wrong.out" &&
	[ "$(hangs wrong)" = 0 ]
tap $? "wrong data read GPU1 <- GPU0 (NCCL_P2P_READ_ENABLE=1): wrong data (rank 0's first element, checked first), P2P broken"
show wrong 6

# No NCCL: exit 3 and a clear message, however it was named.
coll nolib "$gpus2" -- --nccl "$tmp/none/libnccl.so.2"
[ "$(rc nolib)" = 3 ] && grep -q "^p2pmap verify: no usable NCCL ($tmp/none/libnccl.so.2): .*cannot open shared object file.*; name it with --nccl PATH or P2PMAP_NCCL=PATH$" "$tmp/nolib.err" &&
	[ ! -s "$tmp/nolib.out" ]
tap $? "--nccl naming no file: exit 3, \"no usable NCCL\", how to name one"
show nolib 3
coll noenv "$gpus2" P2PMAP_NCCL="$tmp/none.so" --
[ "$(rc noenv)" = 3 ] && grep -q "no usable NCCL ($tmp/none.so)" "$tmp/noenv.err"
tap $? "... P2PMAP_NCCL naming no file: exit 3 too"
show noenv 3
# The loader's cache may hold a real NCCL (CUDA's, /usr/local/cuda*/lib,
# on the build machines): the loader run by hand with --inhibit-cache
# searches LD_LIBRARY_PATH and the system's own directories only.
sysnccl=$(ls /lib/x86_64-linux-gnu/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2 \
	/lib/libnccl.so.2 /usr/lib/libnccl.so.2 2>/dev/null | head -1)
# ... nor a pip wheel in the system's Python (nor a python3 but /usr/bin's).
syswheel=$(ls /usr/local/lib*/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2 \
	/usr/lib*/python3*/*-packages/nvidia/nccl/lib/libnccl.so.2 2>/dev/null | head -1)
nopath=""
if [ -n "$sysnccl" ] || [ -n "$syswheel" ]; then
	nopath="${sysnccl:-$syswheel} is this system's"
elif [ ! -x /lib64/ld-linux-x86-64.so.2 ]; then
	nopath="no /lib64/ld-linux-x86-64.so.2"
fi
if [ -z "$nopath" ]; then
	loader="/lib64/ld-linux-x86-64.so.2 --inhibit-cache" \
		coll nopath "$gpus2" LD_LIBRARY_PATH="$cudadir" PATH=/usr/bin:/bin --
	[ "$(rc nopath)" = 3 ] && grep -q "no usable NCCL (libnccl.so.2)" "$tmp/nopath.err" &&
		grep -q "; no nvidia-nccl wheel either (looked in: .*; name it with --nccl PATH or P2PMAP_NCCL=PATH$" "$tmp/nopath.err" &&
		grep -qF "/usr/local/lib*/python3*/*-packages (the system's Python)" "$tmp/nopath.err" &&
		grep -qF "/usr/lib*/python3*/*-packages (" "$tmp/nopath.err"
	tap $? "... none on the library path (the loader's cache not read) nor in the system's Python: exit 3 too, where it looked said"
	show nopath 3
else
	tap_skip "... none on the library path: exit 3 too" "$nopath"
fi
coll named "$gpus2" LD_LIBRARY_PATH="$cudadir" -- --nccl "$nccldir/libnccl.so.2" --timeout 20
[ "$(rc named)" = 0 ] && [ "$(verdict named GPU0,GPU1)" = works ] &&
	grep -q "^nccl: $nccldir/libnccl.so.2, version 23007 (found: --nccl)$" "$tmp/named.out"
tap $? "--nccl PATH with none on the library path: loaded, works, '(found: --nccl)'"
show named 1

# NVIDIA's pip wheels (nvidia-nccl-cu12/-cu13): nvidia/nccl/lib under the
# site-packages of the server's Python, found by reading files only.  The
# interpreters and scripts here leave a mark if anything runs them.
ran=$tmp/ran
# pyenv DIR SITE WHEEL: a Python environment at DIR whose SITE (under
# DIR/lib) has the stand-in as WHEEL's libnccl.so.2 (WHEEL "": no wheel).
pyenv() {
	local site=$1/lib/$2
	mkdir -p "$1/bin" "$site"
	printf '#!/bin/sh\necho "$0" >>%s\nexit 1\n' "$ran" >"$1/bin/python3.11"
	chmod +x "$1/bin/python3.11"
	ln -sf python3.11 "$1/bin/python3"
	[ -n "$3" ] || return 0
	mkdir -p "$site/nvidia/nccl/lib" "$site/$3.dist-info"
	cp "$nccldir/libnccl.so.2" "$site/nvidia/nccl/lib/"
}
venv=$tmp/venv
pyenv "$venv" python3.11/site-packages nvidia_nccl_cu12-2.30.7
# A venv: bin/python3 would resolve to the base's; pyvenv.cfg says not to.
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n' >"$venv/pyvenv.cfg"
# pip's console script: the interpreter's absolute path on its #! line.
printf '#!%s/bin/python3\nimport sys\nfrom vllm.entrypoints.cli.main import main\nsys.exit(main())\n' \
	"$venv" >"$venv/bin/vllm"
# ... and distlib's form for a path too long for the kernel's #! line.
printf '#!/bin/sh\n'"'''exec'"' "%s/bin/python3" "$0" "$@"\n'"' '''"'\nimport sys\n' \
	"$venv" >"$venv/bin/sglang"
chmod +x "$venv/bin/vllm" "$venv/bin/sglang"
# conda's layout: no pyvenv.cfg, the prefix above bin/; a cu13 wheel.
conda=$tmp/conda
pyenv "$conda" python3.11/site-packages nvidia_nccl_cu13-2.28.9
empty=$tmp/empty
pyenv "$empty" python3.11/site-packages ""
# A venv without the wheel that takes its base's packages (conda's).
inherit=$tmp/inherit
pyenv "$inherit" python3.11/site-packages ""
printf 'home = %s/bin\ninclude-system-site-packages = true\n' "$conda" >"$inherit/pyvenv.cfg"
units=$tmp/units
mkdir -p "$units/sglang.service.d"
printf '[Service]\nEnvironment=VLLM_SKIP_P2P_CHECK=0\nExecStart=%s/bin/vllm serve /models/m \\\n  --tensor-parallel-size 2\n' \
	"$venv" >"$units/vllm.service"
printf '[Service]\nExecStart=%s/bin/sglang --model /models/m\n' "$venv" >"$units/sglang-long.service"
# A drop-in replaces ExecStart= (an empty one first, as systemd wants).
printf '[Service]\nExecStart=/usr/bin/false\n' >"$units/sglang.service"
printf '[Service]\nExecStart=\nExecStart=-%s/bin/python3.11 -m sglang.launch_server\n' \
	"$conda" >"$units/sglang.service.d/override.conf"
printf '[Service]\nEnvironment="PATH=%s/bin:/usr/bin"\nExecStart=/usr/bin/env python3 -m vllm.entrypoints.openai.api_server\n' \
	"$empty" >"$units/empty.service"
printf '[Service]\nExecStart=%s/bin/python3 -m vllm.entrypoints.openai.api_server\n' \
	"$inherit" >"$units/inherit.service"
vlib=$venv/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2
if [ -z "$nopath" ]; then
	loader="/lib64/ld-linux-x86-64.so.2 --inhibit-cache"
	# wheel NAME [ENV...] -- ARGS: coll with none on the library path.
	# Only wunit runs the collective; the others end at the stand-in
	# libnccl's first init (rule jit=221 fails its kernels' load: exit 1,
	# "not P2P", in well under a second): the library was found, loaded
	# and asked its version, which is what they check.
	wheel() {
		local name=$1 stub="$gpus2;jit=221"
		shift
		[ "$name" = wunit ] && stub=$gpus2
		coll "$name" "$stub" LD_LIBRARY_PATH="$cudadir" PATH=/usr/bin:/bin \
			P2PMAP_UNIT_DIR="$units" "$@"
	}
	# loaded: NAME's exit 1 with its groups "not P2P" (the rule above)
	loaded() { [ "$(rc "$1")" = 1 ] && [ "$(verdict "$1" GPU0,GPU1)" = "not P2P; fails without P2P too" ]; }
	wheel wunit -- --unit vllm.service --timeout 20
	[ "$(rc wunit)" = 0 ] && [ "$(verdict wunit GPU0,GPU1)" = works ] &&
		grep -qxF "nccl: $vlib, version 23007 (found: wheel nvidia-nccl-cu12 2.30.7 of $venv/bin/python3 (unit vllm.service))" "$tmp/wunit.out" &&
		[ ! -e "$ran" ]
	tap $? "--unit NAME, ExecStart= pip's console script: its #! interpreter's venv (pyvenv.cfg), the cu12 wheel's NCCL loaded, works; the wheel and interpreter said; nothing of the venv run"
	show wunit 2
	wheel wlong -- --unit sglang-long.service --timeout 20
	loaded wlong &&
		grep -qxF "nccl: $vlib, version 23007 (found: wheel nvidia-nccl-cu12 2.30.7 of $venv/bin/python3 (unit sglang-long.service))" "$tmp/wlong.out" &&
		[ ! -e "$ran" ]
	tap $? "... a console script in distlib's long form (#!/bin/sh, '''exec' PY): PY's venv"
	show wlong 1
	wheel wdrop -- --unit sglang.service --timeout 20
	loaded wdrop &&
		grep -qxF "nccl: $conda/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2, version 23007 (found: wheel nvidia-nccl-cu13 2.28.9 of $conda/bin/python3.11 (unit sglang.service))" "$tmp/wdrop.out" &&
		[ ! -e "$ran" ]
	tap $? "... ExecStart= a python3.11 (conda's layout: no pyvenv.cfg, the prefix above bin/), set by a drop-in: the cu13 wheel"
	show wdrop 1
	wheel winherit -- --unit inherit.service --timeout 20
	loaded winherit &&
		grep -qxF "nccl: $conda/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2, version 23007 (found: wheel nvidia-nccl-cu13 2.28.9 of $inherit/bin/python3 (unit inherit.service))" "$tmp/winherit.out" &&
		[ ! -e "$ran" ]
	tap $? "... a venv without the wheel, include-system-site-packages = true: its base's (pyvenv.cfg's home) wheel"
	show winherit 1
	wheel wnone -- --unit empty.service --timeout 20
	[ "$(rc wnone)" = 3 ] && [ ! -s "$tmp/wnone.out" ] &&
		grep -qF "; no nvidia-nccl wheel either (looked in: $empty/lib*/python3*/*-packages ($empty/bin/python3 (unit empty.service))); name it" "$tmp/wnone.err" &&
		[ ! -e "$ran" ]
	tap $? "... 'env python3' on the unit's PATH=, a Python without the wheel: exit 3, where it looked said"
	show wnone 2
	wheel wnounit -- --unit none.service
	[ "$(rc wnounit)" = 3 ] &&
		grep -qF "(looked in: unit none.service: not in $units)" "$tmp/wnounit.err"
	tap $? "... no such unit: exit 3, said"
	show wnounit 2
	wheel wvenv VIRTUAL_ENV="$venv" -- --timeout 20
	loaded wvenv &&
		grep -qxF "nccl: $vlib, version 23007 (found: wheel nvidia-nccl-cu12 2.30.7 of VIRTUAL_ENV=$venv)" "$tmp/wvenv.out"
	tap $? "no --unit: \$VIRTUAL_ENV's wheel"
	show wvenv 1
	wheel wpath PATH="$tmp/nowhere:$conda/bin:/usr/bin:/bin" -- --timeout 20
	loaded wpath &&
		grep -qxF "nccl: $conda/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2, version 23007 (found: wheel nvidia-nccl-cu13 2.28.9 of $conda/bin/python3 (python3 on PATH))" "$tmp/wpath.out" &&
		[ ! -e "$ran" ]
	tap $? "... else the python3 on PATH's wheel; nothing run"
	show wpath 1
	wheel wlibpath LD_LIBRARY_PATH="$nccldir:$cudadir" -- --unit vllm.service --timeout 20
	loaded wlibpath &&
		grep -qxF "nccl: $nccldir/libnccl.so.2, version 23007 (found: library path)" "$tmp/wlibpath.out"
	tap $? "... the library path's libnccl.so.2 first, --unit or not"
	show wlibpath 1
	loader=""
else
	tap_skip "--unit NAME and the environment's Python: the nvidia-nccl wheels" "$nopath"
fi
"$p2pmap" verify --unit vllm.service >"$tmp/usage-unit.out" 2>&1
[ $? = 2 ] && grep -q -- "--unit is for --collective" "$tmp/usage-unit.out" &&
	"$p2pmap" verify --collective --unit /etc/systemd/system/vllm.service >"$tmp/usage-unit2.out" 2>&1
[ $? = 2 ] && grep -q -- "--unit takes a unit name" "$tmp/usage-unit2.out"
tap $? "--unit without --collective, or naming a path: usage errors (exit 2)"

"$p2pmap" verify --nccl "$nccldir/libnccl.so.2" >"$tmp/usage.out" 2>&1
[ $? = 2 ] && grep -q -- "--nccl is for --collective" "$tmp/usage.out"
tap $? "--nccl without --collective: a usage error (exit 2)"

# --json: the same runs again, one document each.  same NAME: its exit
# code is the text run's (NAME without the j) and every text line is
# written again from the document (text_json.py); q NAME EXPR: a Python
# expression over the document d.
same() {
	[ "$(rc "$1")" = "$(rc "${1%j}")" ] &&
		python3 "$top/tests/collective/text_json.py" "$tmp/${1%j}.out" "$tmp/$1.out"
}
q() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
		"$tmp/$1.out" "$2" 2>&1 | sed 's/^/# /'
	return "${PIPESTATUS[0]}"
}
coll ok2j "$gpus2" -- --timeout 20 --json
[ "$(rc ok2j)" = 0 ] && [ "$(wc -l <"$tmp/ok2j.out")" = 1 ] &&
	python3 -m json.tool "$tmp/ok2j.out" >/dev/null && same ok2j &&
	q ok2j 'd["nccl"]["version"] == "2.30.7" and [g["verdict"] for g in d["groups"]] == ["works"] and all(r["result"] == "right" and r["bus_gbps"] > 0 for r in d["groups"][0]["runs"]) and d["groups"][0]["gpus"][1] == {"gpu": 1, "pci": "0000:41:00.0"}'
tap $? "--json, healthy, 2 GPUs: one document (json.tool parses it), exit 0 as the text; works, 4 runs right and timed, the GPUs' PCI addresses, NCCL 2.30.7; every text line written again from it"
show ok2j 2
printf '1->0 0 2\n' >"$tmp/faults"
coll fault4j "$gpus4;fault=1->0:w" -- --timeout $hang4 --json
: >"$tmp/faults"
same fault4j && [ "$(hangs fault4j)" = 2 ] &&
	q fault4j 'len(d["groups"]) == 7 and len(d["groups"][0]["faults"]) == 12 and [g for g in d["groups"] if [x["gpu"] for x in g["gpus"]] == [0, 1]][0]["blame"] == {"directions": [{"from": 1, "to": 0, "from_pci": "0000:41:00.0", "to_pci": "0000:01:00.0", "by": "faults", "faults": 2, "check": None}], "pair": False}'
tap $? "--json, fault=1->0:w, 4 GPUs: exit 1 and the verdicts, hangs and results of the text (7 groups, 12 directions' counters in the 4-rank one); {0,1} p2p_broken, GPU1 -> GPU0 blamed by its 2 faults"
show fault4j 1
coll fault2j "$gpus2;fault=1->0:w" -- --timeout $hang2 --json
same fault2j && q fault2j 'd["groups"][0]["blame"] == {"directions": [], "pair": True} and [r["result"] for r in d["groups"][0]["runs"]] == ["hung", "not_run", "right", "right"] and d["timeout_s"] == '"$hang2"
tap $? "--json, ... 2 GPUs: hung after $hang2 s then not_run with P2P, right without; the pair blamed, as the text"
coll diagj "$gpus2;fault=1->0:w" -- --timeout $hang2 --nccl "$tmp/libnccl-diag.so" --json
same diagj && q diagj 'd["groups"][0]["blame"]["directions"][0]["check"] == "write mismatch" and d["groups"][0]["runs"][0]["diagnostics"]["failures"][0]["from"] == 1'
tap $? "--json, NCCL's diagnostics failing GPU1 -> GPU0: that edge, as the text"
coll wrongj "$gpus2;wrong=1->0:r" NCCL_P2P_READ_ENABLE=1 -- --timeout 20 --json
same wrongj && q wrongj 'd["groups"][0]["runs"][0]["first_wrong"] == {"rank": 0, "element": 0, "got": 2.0, "want": 3.0}'
tap $? "--json, wrong data: result wrong_data, the first wrong element (rank 0 element 0 is 2, not 3), as the text"
coll nolibj "$gpus2" -- --nccl "$tmp/none/libnccl.so.2" --json
[ "$(rc nolibj)" = 3 ] && grep -q "no usable NCCL" "$tmp/nolibj.err" &&
	q nolibj 'd["error"].startswith("p2pmap verify: no usable NCCL (") and d["exit_code"] == 3 and d["groups"] == [] and list(d)[0] == "schema"'
tap $? "--json, no usable NCCL: exit 3, and a document with its error and exit code, no groups"
show nolibj 2
coll usagej "$gpus2" -- --bandwidth --json
[ "$(rc usagej)" = 2 ] && q usagej 'd["exit_code"] == 2 and d["groups"] == [] and "--bandwidth" in d["error"]'
tap $? "--json, --collective with --bandwidth: exit 2, the usage error as a document"
python3 "$top/tests/unit/json_lint.py" verify "$tmp"/*j.out &&
	python3 -c 'import json, sys; sys.exit(not all("groups" in json.load(open(f)) for f in sys.argv[1:]))' "$tmp"/*j.out
tap $? "every --collective --json document: \"schema\": 1 first, fields and enum values as JSON.md lists them, groups (not verify's directions)"
# JSON.md's example (and its failure document) name every key the
# documents have, and only those: the cases above reach every key.
python3 - "$top/Documentation/JSON.md" "$tmp"/*j.out <<'PY'
import json, re, sys
md = open(sys.argv[1]).read()
ex = md.split("### verify --collective", 1)[1].split("\n## ", 1)[0]
shown = set(re.findall(r'"([a-z_]+)":', ex))
keys = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if not k.startswith("NCCL_"):
                keys.add(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
for f in sys.argv[2:]:
    walk(json.load(open(f)))
missing, unseen = sorted(keys - shown), sorted(shown - keys)
if missing:
    print("# not in JSON.md's example: %s" % " ".join(missing))
if unseen:
    print("# in JSON.md's example, in no document: %s" % " ".join(unseen))
sys.exit(1 if missing or unseen else 0)
PY
tap $? "JSON.md's example of verify --collective shows every key the documents have, and no other"

! compgen -G "$tmp/tmp/p2pmap-collective.*" >/dev/null
tap $? "NCCL's logs removed after each run"

tap_done
