#!/bin/bash
# debug-kernel.sh [--kernel-only]: the test bed's debug kernel, and what its
# VMs load.
#
# 1. A small kernel built from Debian's linux-source-6.12 tarball
#    (/usr/src/linux-source-6.12.tar.xz): "make tinyconfig", the fragment
#    tests/vm/debug.config merged over it (what a busybox guest and the
#    suites need, plus KASAN, UBSAN, lockdep, kmemleak, debugobjects, fault
#    injection), "make olddefconfig", then a check that every option of the
#    fragment is set as the fragment says (the script fails naming those
#    that are not: Kconfig drops an option silently when a dependency is
#    missing), then "make bzImage modules" (which also writes the
#    Module.symvers that out-of-tree builds need).  The tree is
#    build/debug-kernel/linux, the image build/debug-kernel/bzImage, the
#    build's output build/debug-kernel/kernel-build.log.
#    The build is skipped when build/debug-kernel/stamp holds the hash of
#    the linux-source version, the compiler, the fragment and the recipe
#    (the text of build_kernel and check_config below).
#    A finished build is also kept, without its object files, in
#    $P2PMAP_DEBUG_KERNEL_CACHE/HASH (default /var/cache/p2pmap-debug-kernel,
#    when writable), where a fresh clone on the same machine finds it.
#    A fresh machine builds it: about 12 min on 2 idle cores (22 min of CPU).
# 2. p2pmap.ko (normal and P2PMAP_DEBUG=y), p2ptest.ko and the initramfs,
#    built against that tree by tests/vm/build.sh, in build/debug-kernel/vm
#    (skipped with --kernel-only).
#
# Output: TAP lines, and "# vm-kernel KVER IMAGE INITRD" for tests/run.sh.
# Logs: build/logs/debug-kernel.log, build/logs/build-debug.log.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/debug-kernel
tree=$out/linux
tarball=/usr/src/linux-source-6.12.tar.xz
frag=$top/tests/vm/debug.config
log=$top/build/logs/debug-kernel.log
mkdir -p "$top/build/logs" "$out"
. "$top/tests/tap.sh"

bail() {
	tap 1 "$1 (see ${2:-build/logs/debug-kernel.log})"
	tail -n 20 "${3:-$log}" | sed 's/^/# /'
	tap_done
	exit 1
}

# check_config CONFIG FRAGMENT: every "CONFIG_X=V" of FRAGMENT is in CONFIG,
# every "# CONFIG_X is not set" is not set there; prints the ones that are
# not so.
check_config() {
	local line opt
	grep -E '^CONFIG_[A-Z0-9_]+=' "$2" | while IFS= read -r line; do
		grep -qxF "$line" "$1" ||
			echo "$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$1" || echo absent))"
	done
	sed -n 's/^# \(CONFIG_[A-Z0-9_]*\) is not set$/\1/p' "$2" |
	while IFS= read -r opt; do
		if grep -qE "^$opt=" "$1"; then
			echo "$opt should not be set (got: $(grep -E "^$opt=" "$1"))"
		fi
	done
}

# shorten_kobject_release_delay TREE: CONFIG_DEBUG_KOBJECT_RELEASE runs
# each kobject's release from a worker 1 to 4 s after its last put
# (lib/kobject.c, kobject_release()); a parent is put by its child's
# release, so p2pmap's unload (a device's kobject, its directory, the root,
# then the module's own, each waited for) took 10 to 16 s, most of the
# debug kernel's time in the suites (every insmod step of the fault
# injection walk, every parameter case).  Here the delay is 0.1 to 0.5 s:
# still a release from a worker long after the last put (p2pmap's exit
# without its wait would free the release's code in microseconds), still
# in a random order.  Fails when the line is not there to change.
shorten_kobject_release_delay() {
	local f=$1/lib/kobject.c
	grep -q 'unsigned long delay = HZ + HZ \* get_random_u32_below(4);' "$f" ||
		{ echo "lib/kobject.c: the release delay line is not as expected" >&2; return 1; }
	sed -i 's|unsigned long delay = HZ + HZ \* get_random_u32_below(4);|unsigned long delay = HZ / 10 + get_random_u32_below(HZ * 4 / 10 + 1);|' "$f"
	grep -q 'unsigned long delay = HZ / 10 + get_random_u32_below(HZ \* 4 / 10 + 1);' "$f"
}

# build_kernel TREE: the recipe.  Its output goes to stdout; it fails with
# "CONFIG: ..." lines on stderr when the fragment did not make it.
build_kernel() {
	local bad
	rm -rf "$1"
	mkdir -p "$1"
	tar -C "$1" --strip-components=1 -xf "$tarball" || return 1
	shorten_kobject_release_delay "$1" || return 1
	make -C "$1" tinyconfig || return 1
	"$1/scripts/kconfig/merge_config.sh" -m -O "$1" "$1/.config" "$frag" ||
		return 1
	make -C "$1" olddefconfig || return 1
	bad=$(check_config "$1/.config" "$frag")
	if [ -n "$bad" ]; then
		echo "$bad" | sed 's/^/CONFIG: /' >&2
		return 2
	fi
	make -C "$1" -j"$(nproc)" bzImage modules
}

: >"$log"
dpkg-query -W -f='${Status}' linux-source-6.12 2>/dev/null |
	grep -q 'ok installed' && [ -e "$tarball" ] ||
	bail "linux-source-6.12 is installed (tests/deps.sh)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
hash=$({ echo "$srcver"; gcc --version | head -1; cat "$frag"
	 declare -f build_kernel check_config shorten_kobject_release_delay; } |
	sha256sum | cut -c1-16)
cachedir=${P2PMAP_DEBUG_KERNEL_CACHE:-/var/cache/p2pmap-debug-kernel}
cache=$cachedir/$hash
echo "debug kernel: linux-source-6.12 $srcver, hash $hash" >>"$log"

start=$SECONDS
if [ "$(cat "$out/stamp" 2>/dev/null)" = "$hash" ] &&
   [ -e "$tree/Module.symvers" ] && [ -e "$out/bzImage" ]; then
	how="up to date, hash $hash"
elif [ -e "$cache/.complete" ]; then
	rm -rf "$tree" "$out/stamp"
	mkdir -p "$tree"
	cp -a "$cache/." "$tree/" >>"$log" 2>&1 || bail "copy of $cache"
	cp "$tree/arch/x86/boot/bzImage" "$out/bzImage"
	echo "$hash" >"$out/stamp"
	how="copied from $cache"
else
	rm -f "$out/stamp" "$out/bzImage"
	echo "building in $tree: see $out/kernel-build.log" >>"$log"
	build_kernel "$tree" >"$out/kernel-build.log" 2>"$out/kernel-build.err"
	rc=$?
	cat "$out/kernel-build.err" >>"$out/kernel-build.log"
	if [ "$rc" = 2 ]; then
		tap 1 "every option of tests/vm/debug.config is in the kernel's .config"
		sed 's/^CONFIG: /# not set as debug.config says: /' \
			"$out/kernel-build.err"
		tap_done
		exit 1
	fi
	[ "$rc" = 0 ] || bail "debug kernel build (tinyconfig + debug.config, make bzImage modules)" \
		build/debug-kernel/kernel-build.log "$out/kernel-build.log"
	cp "$tree/arch/x86/boot/bzImage" "$out/bzImage"
	echo "$hash" >"$out/stamp"
	how="built in $((SECONDS - start)) s"
	# The cache: the tree an out-of-tree module build needs (no objects).
	if mkdir -p "$cachedir" 2>/dev/null && [ -w "$cachedir" ]; then
		rm -rf "$cache.tmp"
		mkdir -p "$cache.tmp"
		tar -C "$tree" --exclude='*.o' --exclude='.*.cmd' \
			--exclude='*.a' --exclude=vmlinux.o -cf - . |
			tar -C "$cache.tmp" -xf - && touch "$cache.tmp/.complete" &&
			rm -rf "$cache" && mv "$cache.tmp" "$cache" ||
			echo "debug-kernel.sh: could not fill $cache" >>"$log"
	fi
fi
kver=$(make -s -C "$tree" kernelrelease 2>>"$log")
echo "$how" >>"$log"
tap 0 "debug kernel $kver ($srcver, tinyconfig + debug.config): $how"

# The option check again, on whatever tree is there (a cached one too).
bad=$(check_config "$tree/.config" "$frag")
[ -z "$bad" ]
tap $? "every option of tests/vm/debug.config is in the kernel's .config"
[ -z "$bad" ] || echo "$bad" | sed 's/^/# not set as debug.config says: /'

[ "${1:-}" = --kernel-only ] && { tap_done; exit; }

start=$SECONDS
"$top/tests/vm/build.sh" "$kver" "$tree" "$out/vm" \
	>"$top/build/logs/build-debug.log" 2>&1
tap $? "module, test driver and initramfs build for $kver ($((SECONDS - start)) s)"
echo "# vm-kernel $kver $out/bzImage $out/vm/initrd.cpio"
tap_done
