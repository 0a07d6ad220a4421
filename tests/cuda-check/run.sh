#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# verify's CUDA table against the real thing, where NVIDIA's toolkit is
# installed (never a build dependency): the function pointer types against
# cuda.h, and every symbol resolved in NVIDIA's stub libcuda.so by the name
# verify looks up.  A mutated table must fail the type check (the check
# can fail).  Skipped, and said so, without a toolkit.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/cuda-check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

inc=$(ls -d /usr/local/cuda*/include 2>/dev/null | sort -V | tail -1)
stub=$(ls /usr/local/cuda*/lib64/stubs/libcuda.so 2>/dev/null | sort -V | tail -1)
ours=$top/user/verify/cuda.h

types() {	# types HEADER: compile types.c with that table
	cc -Wall -Wextra -Werror -I"$inc" -DP2PMAP_CUDA_HEADER="\"$1\"" \
		-o "$tmp/types" "$here/types.c" 2>"$tmp/types.err"
}

if [ -z "$inc" ] || [ ! -f "$inc/cuda.h" ]; then
	tap_skip "cuda.h type check" "no CUDA toolkit under /usr/local/cuda*"
	tap_skip "cuda.h type check fails on a wrong prototype" "no CUDA toolkit"
else
	types "$ours"
	tap $? "every entry point verify loads has cuda.h's type ($inc/cuda.h)"
	[ -s "$tmp/types.err" ] && sed 's/^/# /' "$tmp/types.err" | head -20
	# The mutant: one argument of cuMemcpyPeerAsync of the wrong type.
	sed 's/CUcontext src_ctx, size_t size, CUstream stream/CUcontext src_ctx, unsigned int size, CUstream stream/' \
		"$ours" >"$tmp/mutant.h"
	! cmp -s "$ours" "$tmp/mutant.h" && ! types "$tmp/mutant.h" &&
		grep -q 'cuda_api.MemcpyPeerAsync is not cuda.h' "$tmp/types.err"
	tap $? "the type check fails on a wrong prototype (size_t -> unsigned int)"
fi

# The structs of the paths (cuda_types.h): NVIDIA's sizes and offsets; a
# copy with two members swapped must fail.  The PTX kernel verify loads:
# ptxas of the toolkit compiles it for Turing, Hopper and Blackwell.
layout() {	# layout TYPES_HEADER
	cc -Wall -Wextra -Werror -I"$inc" -DP2PMAP_CUDA_TYPES="\"$1\"" \
		-o "$tmp/layout" "$here/layout.c" 2>"$tmp/layout.err"
}
ptxas=$(ls /usr/local/cuda*/bin/ptxas 2>/dev/null | sort -V | tail -1)
if [ -z "$inc" ] || [ ! -f "$inc/cuda.h" ]; then
	tap_skip "the paths' structs have cuda.h's layout" "no CUDA toolkit under /usr/local/cuda*"
	tap_skip "... a swapped member fails" "no CUDA toolkit"
else
	layout "$top/user/verify/cuda_types.h"
	tap $? "the paths' structs (IPC handle, cuMem properties, access) have cuda.h's sizes and offsets"
	[ -s "$tmp/layout.err" ] && sed 's/^/# /' "$tmp/layout.err" | head -10
	python3 - "$top/user/verify/cuda_types.h" "$tmp/swapped.h" <<'PY'
import sys
s = open(sys.argv[1]).read()
a = "\tunsigned int type;\t\t\t/* CUmemAllocationType */\n\tCUmemAllocationHandleType requestedHandleTypes;\n"
b = "\tCUmemAllocationHandleType requestedHandleTypes;\n\tunsigned short pad;\n\tunsigned int type;\n"
assert a in s
open(sys.argv[2], "w").write(s.replace(a, b))
PY
	! layout "$tmp/swapped.h" && grep -q "CUmemAllocationProp" "$tmp/layout.err"
	tap $? "... a struct laid out differently fails the check"
fi
if [ -z "$ptxas" ]; then
	tap_skip "ptxas compiles verify's PTX kernel" "no CUDA toolkit"
else
	python3 - "$top/user/verify/verify_paths.c" "$tmp/copy.ptx" <<'PY'
import ast, re, sys
src = open(sys.argv[1]).read()
body = src[src.index("static const char ptx_copy[] ="):]
body = body[:body.index(";\n")]
text = "".join(ast.literal_eval(s) for s in re.findall(r'"(?:[^"\\]|\\.)*"', body))
open(sys.argv[2], "w").write(text)
PY
	rc=0
	for arch in sm_75 sm_90 sm_120; do
		"$ptxas" -arch=$arch "$tmp/copy.ptx" -o "$tmp/copy-$arch.cubin" 2>>"$tmp/ptxas.err" || rc=1
	done
	[ -s "$tmp/ptxas.err" ] && sed 's/^/# /' "$tmp/ptxas.err" | head -10
	tap $rc "ptxas ($ptxas) compiles verify's PTX kernel for sm_75, sm_90 and sm_120"
	sed 's/ld.global.u32 %r1/ld.global.u32 %r9/' "$tmp/copy.ptx" >"$tmp/bad.ptx"
	! "$ptxas" -arch=sm_90 "$tmp/bad.ptx" -o "$tmp/bad.cubin" 2>/dev/null
	tap $? "... and rejects a kernel with an undeclared register"
fi

cc -Wall -Werror -I"$top/user/verify" -o "$tmp/symbols" "$here/symbols.c" \
	"$top/user/verify/cuda.c" "$top/user/verify/cuda_errors.c" -ldl
tap $? "the symbol check builds"
if [ -z "$stub" ]; then
	tap_skip "NVIDIA's stub libcuda.so resolves every symbol" "no CUDA toolkit"
else
	"$tmp/symbols" "$stub" 2>"$tmp/sym.err"
	tap $? "NVIDIA's stub $stub resolves every symbol verify looks up ($("$tmp/symbols" - | wc -l) names)"
	[ -s "$tmp/sym.err" ] && sed 's/^/# /' "$tmp/sym.err"
fi

# Every CUresult named (user/verify/cuda_errors.h), as cuda.h names it,
# both ways: a failure is named even where cuGetErrorName() answers nothing
# (a stub, a driver that did not initialise).  A copy with one value
# changed must fail.
errors() {	# errors OURS: our table against cuda.h's enum
	python3 - "$inc/cuda.h" "$1" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
blk = h[h.index("typedef enum cudaError_enum"):]
blk = blk[:blk.index("} CUresult;")]
theirs = set(re.findall(r"\b(CUDA_(?:SUCCESS|ERROR_\w+))\s*=\s*(\d+)", blk))
ours = set(re.findall(r"X\((CUDA_\w+), (\d+)\)", open(sys.argv[2]).read()))
for n, v in sorted(theirs - ours):
    print("# cuda.h has %s = %s, the table does not" % (n, v))
for n, v in sorted(ours - theirs):
    print("# the table has %s = %s, cuda.h does not" % (n, v))
sys.exit(0 if theirs and theirs == ours else 1)
PY
}
table=$top/user/verify/cuda_errors.h
if [ -z "$inc" ] || [ ! -f "$inc/cuda.h" ]; then
	tap_skip "every CUresult of cuda.h named" "no CUDA toolkit under /usr/local/cuda*"
	tap_skip "... a wrong value fails" "no CUDA toolkit"
else
	errors "$table"
	tap $? "every CUresult of cuda.h is named in verify's table, with cuda.h's value ($(grep -c '^	X(CUDA_' "$table") names)"
	sed 's/X(CUDA_ERROR_STUB_LIBRARY, 34)/X(CUDA_ERROR_STUB_LIBRARY, 35)/' "$table" >"$tmp/errors.h"
	! cmp -s "$table" "$tmp/errors.h" && errors "$tmp/errors.h" >"$tmp/errors.out"
	[ $? = 1 ] && grep -q "cuda.h has CUDA_ERROR_STUB_LIBRARY = 34" "$tmp/errors.out"
	tap $? "... a wrong value fails the check"
fi

# "p2pmap verify" against NVIDIA's own stub, as in a container whose
# library path finds the toolkit's stubs before the driver: no usable CUDA
# driver (exit 3), the error named, the library it loaded, what to do.
if [ -z "$stub" ]; then
	tap_skip "verify with NVIDIA's stub: exit 3, named" "no CUDA toolkit"
else
	mkdir -p "$tmp/stubdir"
	ln -s "$stub" "$tmp/stubdir/libcuda.so.1"
	make -s -C "$top/user" p2pmap >/dev/null 2>&1
	LD_LIBRARY_PATH=$tmp/stubdir "$top/user/p2pmap" verify >"$tmp/v.out" 2>"$tmp/v.err"
	rc=$?
	[ $rc = 3 ] &&
		grep -q "^p2pmap verify: cuInit: CUDA_ERROR_STUB_LIBRARY (34): $(readlink -f "$stub") is NVIDIA's stub libcuda" "$tmp/v.err" &&
		grep -q "take that directory off LD_LIBRARY_PATH" "$tmp/v.err"
	tap $? "verify with NVIDIA's stub first on the library path: exit 3 (got $rc), CUDA_ERROR_STUB_LIBRARY named, the file, the fix"
	sed 's/^/# /' "$tmp/v.err"
fi

tap_done
