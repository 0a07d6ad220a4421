#!/bin/bash
# static-checks.sh: the kernel-side hygiene checks, as TAP lines.
#   - p2pmap.ko builds warning-free with W=1 for every kernel, and sparse
#     (C=2) reports nothing (build.sh made the build trees)
#   - checkpatch.pl --strict is clean on kmod/, the UAPI header and p2ptest
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"

# W=1 and C=2 in one build (sparse runs beside the compiler): one build
# per kernel instead of two.
for k in $("$top/tests/kernels.sh"); do
	src=$top/build/$k/src/kmod
	touch "$src"/*.c
	out=$(make -s -C "/lib/modules/$k/build" M="$src" W=1 C=2 modules 2>&1 |
	      grep -v 'Skipping BTF generation')
	[ -z "$out" ]; tap $? "p2pmap builds with W=1 and no warning, and sparse (C=2) is clean, on $k"
	[ -z "$out" ] || echo "$out" | sed 's/^/# /'
done

cp=$("$top/tests/tools.sh")
out=$(cd "$top" && "$cp" --no-tree --strict -q \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f \
	kmod/*.c kmod/*.h kmod/compat/*.h kmod/compat/probes/*.c \
	kmod/shared/*.c kmod/shared/*.h \
	include/uapi/linux/p2pmap.h tests/p2ptest/p2ptest.c 2>&1)
[ -z "$out" ]; tap $? "checkpatch.pl --strict is clean"
[ -z "$out" ] || echo "$out" | sed 's/^/# /'
tap_done
