#!/bin/bash
# demo-check.sh: make demo's host side installs no kernel, as TAP lines.
# tests/kernel-unpack.sh's root (build/kroot/KVER) builds an out-of-tree
# module from its own trees only (no /usr/src or /usr/lib/linux-kbuild path
# of this machine in the compiler's command lines), and tests/vm/build.sh
# as tests/demo.sh runs it builds the module, the test driver and the
# initramfs with this machine's /boot, /lib/modules and /usr/src hidden
# (empty read-only tmpfs over them, in a mount namespace of its own): it
# neither reads nor writes them.  Their listings (name, size, mtime) are
# the same before and after.  And tests/qemu-unpack.sh's QEMU 11 runs,
# without touching this machine's dpkg and apt state.  The first run
# downloads the kernel's packages (124 MB, cached in build/kroot/debs) and
# QEMU's (48 MB, build/qemu11).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# said STATUS DESC CMD...: tap, and CMD's lines as comments when it failed.
said() {
	local r=$1 d=$2
	shift 2
	tap "$r" "$d"
	[ "$r" = 0 ] || "$@" | sed 's/^/#   /'
}
listing() {
	find /boot /lib/modules /usr/src -xdev -printf '%p %s %T@\n' 2>/dev/null | sort
}
listing >"$tmp/before"

root=$("$top/tests/kernel-unpack.sh" ${P2PMAP_DEMO_KERNEL:+"$P2PMAP_DEMO_KERNEL"} 2>"$tmp/unpack.log")
said $? "kernel-unpack.sh unpacks a Debian kernel under build/kroot (${root#$top/})" \
	tail -n 20 "$tmp/unpack.log"
k=$(basename "${root:-none}")
case $root in "${P2PMAP_KROOT_DIR:-$top/build/kroot}"/*) r=0 ;; *) r=1 ;; esac
tap $r "its root is under build/kroot (or P2PMAP_KROOT_DIR)"
[ -f "$root/boot/vmlinuz-$k" ] && [ -d "$root/lib/modules/$k/kernel/drivers/vfio" ]
tap $? "it holds boot/vmlinuz-$k and the VFIO modules"
kdir=$root/lib/modules/$k/build
case $(realpath "$kdir/scripts" 2>/dev/null) in "$root"/*) r=0 ;; *) r=1 ;; esac
tap $r "the headers' build link and scripts link resolve inside the root"
t0=$SECONDS
"$top/tests/kernel-unpack.sh" ${P2PMAP_DEMO_KERNEL:+"$P2PMAP_DEMO_KERNEL"} >/dev/null 2>&1 &&
	! grep -q . <(find "$root" -newer "$root/.p2pmap-kroot" 2>/dev/null)
tap $? "a second kernel-unpack.sh unpacks nothing ($((SECONDS - t0)) s)"

# A module built against the root, with the compiler's command lines shown.
mkdir -p "$tmp/mod"
cp "$top/tests/p2ptest/Kbuild" "$top/tests/p2ptest/p2ptest.c" "$tmp/mod/"
make -C "$kdir" M="$tmp/mod" V=1 modules >"$tmp/mod.log" 2>&1
[ -f "$tmp/mod/p2ptest.ko" ]
said $? "p2ptest.ko builds against the unpacked headers" tail -n 20 "$tmp/mod.log"
vm=$(modinfo -F vermagic "$tmp/mod/p2ptest.ko" 2>/dev/null)
case $vm in "$k "*) r=0 ;; *) r=1 ;; esac
tap $r "its vermagic is $k (got '$vm')"
host=$(grep -o '[^ =]*/usr/\(src\|lib/linux-kbuild\)[^ ]*' "$tmp/mod.log" |
       grep -v "^[-'\"A-Za-z]*$root/" | sort -u)
[ -z "$host" ]
said $? "the build used no tree of this machine's /usr/src or /usr/lib/linux-kbuild" \
	head -n 5 <<<"$host"

# build.sh as the demo runs it, with the machine's kernel folders hidden.
if [ "$(id -u)" -ne 0 ]; then
	tap_skip "build.sh with /boot, /lib/modules, /usr/src hidden" "needs root (unshare --mount)"
else
	out=$tmp/out
	unshare --mount --propagation private bash -c '
		for d in /boot /lib/modules /usr/src; do
			mount -t tmpfs -o ro,size=1m none "$d" || exit 99
		done
		P2PMAP_KROOT=$1 P2PMAP_WITH_PYTHON=0 P2PMAP_BUILD_DEBUG=0 \
		P2PMAP_BUILD_JOBS=$(nproc) "$2/tests/vm/build.sh" "$3" "" "$4"
	' _ "$root" "$top" "$k" "$out" >"$tmp/build.log" 2>&1
	r=$?
	said $r "build.sh for the demo with /boot, /lib/modules, /usr/src hidden (exit $r)" \
		tail -n 20 "$tmp/build.log"
	mkdir -p "$tmp/initrd"
	[ -f "$out/initrd.cpio" ] &&
		(cd "$tmp/initrd" && cpio -id --quiet <"$out/initrd.cpio" 2>/dev/null)
	vm=$(modinfo -F vermagic "$tmp/initrd/modules/p2pmap/p2pmap.ko" 2>/dev/null)
	case $vm in "$k "*) r=0 ;; *) r=1 ;; esac
	tap $r "the initramfs's p2pmap.ko is built for $k (got '$vm')"
	[ -s "$tmp/initrd/modules/vfio/order" ] && [ -f "$tmp/initrd/modules/vfio/vfio.ko" ]
	tap $? "the initramfs holds the root's VFIO modules"
fi
# QEMU 11 for the demo: unpacked with apt's own state under build/qemu11,
# this machine's dpkg status and apt lists untouched (downloads 48 MB once).
if [ "$(id -u)" -eq 0 ]; then
	st=$(stat -c %Y /var/lib/dpkg/status; ls -l --time-style=+%s /var/lib/apt/lists)
	"$top/tests/qemu-unpack.sh" >"$tmp/qemu.out" 2>"$tmp/qemu.log"
	said $? "qemu-unpack.sh: $(cat "$tmp/qemu.out")" tail -n 20 "$tmp/qemu.log"
	grep -q "^# vm-qemu $top/build/qemu11/root 11\." "$tmp/qemu.out"
	tap $? "its QEMU is 11.x, under build/qemu11"
	[ "$st" = "$(stat -c %Y /var/lib/dpkg/status; ls -l --time-style=+%s /var/lib/apt/lists)" ]
	tap $? "this machine's dpkg status and apt lists are as they were"
else
	tap_skip "qemu-unpack.sh" "needs root (chroot)"
fi
listing >"$tmp/after"
diff "$tmp/before" "$tmp/after" >"$tmp/diff"
said $? "nothing changed in /boot, /lib/modules, /usr/src" head -n 10 "$tmp/diff"
tap_done
