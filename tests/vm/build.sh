#!/bin/bash
# build.sh KVER [KDIR OUT]: build everything a test VM for KVER needs, in
# build/KVER/: p2pmap.ko as DKMS builds it (kmod/, from the DKMS tree
# dkms/), its debug variant (kmod-debug/), the p2ptest driver (p2ptest/) and
# the initramfs (initrd.cpio); and src/, the copy tests/static-checks.sh
# builds.
# With KDIR (a built kernel tree that is not installed, e.g. the debug
# kernel of tests/vm/debug-kernel.sh) everything is built against KDIR into
# OUT, and kmod/ is a plain kbuild W=1 build (DKMS builds only for
# installed kernels).
# P2PMAP_KROOT=DIR (default /): the root KVER's kernel is unpacked in, not
# installed (make demo: tests/kernel-unpack.sh's build/kroot/KVER): KDIR
# defaults to DIR/lib/modules/KVER/build, kmod/ is a plain kbuild W=1 build
# as with KDIR, and the initramfs takes KVER's modules from DIR.
# P2PMAP_WITH_PYTHON=0: no Python and YNL in the initramfs (make demo's
# guest runs neither; YNL comes from linux-source-6.12).  P2PMAP_BUILD_DEBUG=0:
# no debug variant of the module (make demo's guest loads p2pmap.ko).
# P2PMAP_BUILD_JOBS=N: make -jN for the kbuild builds (default 1; make demo:
# nproc).
# Out-of-tree builds write into their source folder, so each is built in a
# copy.
set -euo pipefail
kver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${3:-$top/build/$kver}
kroot=${P2PMAP_KROOT:-/}
kroot=${kroot%/}
kdir=${2:-$kroot/lib/modules/$kver/build}

# copy_tree DEST SRC...: a fresh copy of SRC... in DEST.
copy_tree() {
	local dest=$1
	shift
	rm -rf "$dest"
	mkdir -p "$dest"
	cp -r "$@" "$dest/"
}

kbuild() {
	make -s -j"${P2PMAP_BUILD_JOBS:-1}" -C "$kdir" M="$1" W=1 "${@:2}" modules 2>&1 |
		grep -v 'Skipping BTF generation' || true
	ls "$1"/*.ko >/dev/null
}

# The tree tests/static-checks.sh builds (W=1, sparse).
copy_tree "$out/src" "$top/kmod" "$top/include" "$top/VERSION"

# dkms_module: p2pmap.ko as DKMS builds it, into $out/kmod.
# The p2pmap.ko the VMs load is the one DKMS builds from what "make install"
# would install (make dkms-src).  The DKMS tree is private to this kernel's
# build folder, never the system's /var/lib/dkms or /usr/src, and is made
# afresh each time (the sources change between runs): no "already added",
# no stale build.  sign_file points nowhere, so dkms neither signs the
# module nor creates its MOK key in /var/lib/dkms (unsigned modules load in
# the test kernels).
dkms_module() {
version=$(cat "$top/VERSION")
dk=$out/dkms
rm -rf "$dk"
mkdir -p "$dk/tree" "$dk/install"
make -s -C "$top" dkms-src DKMS_SRC="$dk/src/p2pmap-$version"
dkms_() {
	sign_file=/nonexistent dkms --dkmstree "$dk/tree" \
		--sourcetree "$dk/src" --installtree "$dk/install" "$@"
}
dkms_ add -m p2pmap -v "$version"
if ! dkms_ build -m p2pmap -v "$version" -k "$kver"; then
	cat "$dk/tree/p2pmap/$version/build/make.log" 2>/dev/null
	exit 1
fi
# DKMS compresses the module as the kernel's modules are (6.12: xz).
ko=$dk/tree/p2pmap/$version/$kver/$(uname -m)/module/p2pmap.ko
rm -rf "$out/kmod"
mkdir -p "$out/kmod"
if [ -e "$ko" ]; then cp "$ko" "$out/kmod/p2pmap.ko"
elif [ -e "$ko.xz" ]; then xz -dc "$ko.xz" >"$out/kmod/p2pmap.ko"
elif [ -e "$ko.zst" ]; then zstd -dc "$ko.zst" >"$out/kmod/p2pmap.ko"
elif [ -e "$ko.gz" ]; then gzip -dc "$ko.gz" >"$out/kmod/p2pmap.ko"
else echo "build.sh: DKMS left no $ko*" >&2; exit 1
fi
echo "build.sh: DKMS built p2pmap $version for $kver: $(ls "$ko"*)"
}

if [ -n "${2:-}" ] || [ -n "$kroot" ]; then
	# A kernel tree, not an installed kernel: kbuild W=1, as DKMS would.
	copy_tree "$out/src-plain" "$top/kmod" "$top/include" "$top/VERSION"
	kbuild "$out/src-plain/kmod"
	copy_tree "$out/kmod" "$out/src-plain/kmod/p2pmap.ko"
else
	dkms_module
fi

debug=()
if [ "${P2PMAP_BUILD_DEBUG:-1}" = 1 ]; then
	copy_tree "$out/src-debug" "$top/kmod" "$top/include" "$top/VERSION"
	kbuild "$out/src-debug/kmod" P2PMAP_DEBUG=y
	copy_tree "$out/kmod-debug" "$out/src-debug/kmod/p2pmap.ko"
	debug=(p2pmap-debug="$out/kmod-debug")
fi

copy_tree "$out/p2ptest-src" "$top/tests/p2ptest/Kbuild" \
	"$top/tests/p2ptest/p2ptest.c"
kbuild "$out/p2ptest-src"
copy_tree "$out/p2ptest" "$out/p2ptest-src/p2ptest.ko"

make -s -j"${P2PMAP_BUILD_JOBS:-1}" -C "$top/user"
export P2PMAP_WITH_PYTHON=${P2PMAP_WITH_PYTHON:-1}	# ynl and a JSON parser in the guests
"$top/tests/vm/mkinitramfs.sh" "$out/initrd.cpio" "$kver" \
	p2pmap="$out/kmod" "${debug[@]}" p2ptest="$out/p2ptest"
