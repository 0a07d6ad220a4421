#!/bin/bash
# build.sh KVER: build everything a test VM for KVER needs, in build/KVER/:
# p2pmap.ko (kmod/), its debug variant (kmod-debug/), the p2ptest driver
# (p2ptest/) and the initramfs (initrd.cpio).  Out-of-tree builds write into
# their source folder, so each is built in a copy.
set -euo pipefail
kver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/$kver
kdir=/lib/modules/$kver/build

# copy_tree DEST SRC...: a fresh copy of SRC... in DEST.
copy_tree() {
	local dest=$1
	shift
	rm -rf "$dest"
	mkdir -p "$dest"
	cp -r "$@" "$dest/"
}

kbuild() {
	make -s -C "$kdir" M="$1" W=1 "${@:2}" modules 2>&1 |
		grep -v 'Skipping BTF generation' || true
	ls "$1"/*.ko >/dev/null
}

copy_tree "$out/src" "$top/kmod" "$top/include" "$top/VERSION"
kbuild "$out/src/kmod"
copy_tree "$out/kmod" "$out/src/kmod/p2pmap.ko"

copy_tree "$out/src-debug" "$top/kmod" "$top/include" "$top/VERSION"
kbuild "$out/src-debug/kmod" P2PMAP_DEBUG=y
copy_tree "$out/kmod-debug" "$out/src-debug/kmod/p2pmap.ko"

copy_tree "$out/p2ptest-src" "$top/tests/p2ptest/Kbuild" \
	"$top/tests/p2ptest/p2ptest.c"
kbuild "$out/p2ptest-src"
copy_tree "$out/p2ptest" "$out/p2ptest-src/p2ptest.ko"

make -s -C "$top/user"
export P2PMAP_WITH_PYTHON=1	# ynl and a JSON parser in the guests
"$top/tests/vm/mkinitramfs.sh" "$out/initrd.cpio" "$kver" \
	p2pmap="$out/kmod" p2pmap-debug="$out/kmod-debug" \
	p2ptest="$out/p2ptest"
