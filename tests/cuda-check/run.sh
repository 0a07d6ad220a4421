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

cc -Wall -Werror -I"$top/user/verify" -o "$tmp/symbols" "$here/symbols.c" \
	"$top/user/verify/cuda.c" -ldl
tap $? "the symbol check builds"
if [ -z "$stub" ]; then
	tap_skip "NVIDIA's stub libcuda.so resolves every symbol" "no CUDA toolkit"
else
	"$tmp/symbols" "$stub" 2>"$tmp/sym.err"
	tap $? "NVIDIA's stub $stub resolves every symbol verify looks up ($("$tmp/symbols" - | wc -l) names)"
	[ -s "$tmp/sym.err" ] && sed 's/^/# /' "$tmp/sym.err"
fi

tap_done
