#!/bin/bash
# newer-kernel.sh: build p2pmap.ko against the newest Debian kernel headers
# (trixie-backports, 7.x) with W=1, as TAP lines.
#
# A Debian trixie chroot is kept in build/trixie (debootstrap minbase, then
# linux-headers-amd64, gcc, make from trixie-backports).  It is made once and
# reused: each step leaves a stamp file, and a later run only refreshes the
# copy of kmod/.  "newer-kernel.sh --update" re-runs apt (newer 7.x.y).
#
# With P2PMAP_NEWER_IMAGE=1 the kernel image of the same release is unpacked
# into the chroot too (build/trixie/boot/vmlinuz-KVER, and of its modules
# only VFIO's), for a
# boot check in the test bed: P2PMAP_VM_KERNEL=build/trixie/boot/vmlinuz-KVER
# tests/vm/run-vm.sh KVER ... (see tests/vm/run-vm.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=$top/build/trixie
log=$top/build/logs/newer-kernel.log
mkdir -p "$top/build/logs"
: >"$log"
. "$top/tests/tap.sh"
bail() {
	tap 1 "$1 (see build/logs/newer-kernel.log)"
	tail -n 20 "$log" | sed 's/^/# /'
	tap_done
	exit
}

# The chroot gets /proc (apt, dpkg scripts); debootstrap made its /dev
# nodes.  Nothing else is mounted in it, so that "rm -rf build" can never
# reach the host's /dev.  Mount and unmount happen in this shell only.
proc_mounted=
mount_proc() {
	mountpoint -q "$root/proc" && return
	mount -t proc proc "$root/proc" && proc_mounted=1
}
trap '[ -z "$proc_mounted" ] || umount -l "$root/proc"' EXIT
# in_root CMD...: run CMD in the chroot, in a clean environment.
in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
}

if [ "$(id -u)" -ne 0 ]; then
	bail "newer-kernel.sh needs root (debootstrap, chroot)"
fi

# The Debian archive this machine's apt uses (no host name in the project).
mirror=${P2PMAP_DEBIAN_MIRROR:-$("$top/tests/debian-mirror.sh")} ||
	bail "no Debian archive in /etc/apt/sources.list.d (set P2PMAP_DEBIAN_MIRROR)"
start=$SECONDS
if [ ! -e "$root/.p2pmap-debootstrap" ]; then
	# A half-made chroot: start again, unless something is mounted in it.
	if grep -q " $root/" /proc/mounts; then
		bail "build/trixie has mounts inside (umount them, then rerun)"
	fi
	rm -rf "$root"
	debootstrap --variant=minbase trixie "$root" "$mirror" >>"$log" 2>&1 ||
		bail "debootstrap of Debian trixie into build/trixie"
	touch "$root/.p2pmap-debootstrap"
fi

mount_proc
pkgs="linux-headers-amd64 gcc make libc6-dev"
if [ ! -e "$root/.p2pmap-packages" ] || [ "${1:-}" = --update ]; then
	echo "deb $mirror trixie-backports main" \
		>"$root/etc/apt/sources.list.d/trixie-backports.list"
	{ in_root apt-get update -q &&
	  in_root apt-get install -y -q --no-install-recommends \
		-t trixie-backports $pkgs; } >>"$log" 2>&1 ||
		bail "linux-headers-amd64 from trixie-backports in build/trixie"
	touch "$root/.p2pmap-packages"
fi

# The newest headers tree (the meta-package pulls one in; --update may add
# a newer one next to it).
hdr=$(cd "$root/usr/src" && ls -d linux-headers-*-amd64 2>/dev/null |
      sort -V | tail -n 1)
[ -n "$hdr" ] || bail "a linux-headers-*-amd64 tree in build/trixie"
kver=${hdr#linux-headers-}
kbase=${kver%%[-+]*}
echo "# trixie-backports headers: $kver"

if [ "${P2PMAP_NEWER_IMAGE:-0}" = 1 ] && [ ! -e "$root/boot/vmlinuz-$kver" ]; then
	# Unpacked, not installed: no initramfs-tools, no postinst hooks.
	# 7.x splits linux-image-KVER into linux-binary-KVER (the image) and
	# linux-base-KVER (config, System.map); modules are not needed.  Both
	# live in /usr/lib/modules/KVER (postinst would copy them to /boot).
	{ rm -rf "$root/tmp/debs" && mkdir "$root/tmp/debs" &&
	  in_root sh -c "cd /tmp/debs && apt-get download \
		linux-binary-$kver linux-base-$kver" &&
	  for deb in "$root"/tmp/debs/*.deb; do
		dpkg-deb -x "$deb" "$root" || exit 1
	  done && rm -rf "$root/tmp/debs" &&
	  ln -sf "../usr/lib/modules/$kver/vmlinuz" "$root/boot/vmlinuz-$kver" &&
	  ln -sf "../usr/lib/modules/$kver/config" "$root/boot/config-$kver"
	} >>"$log" 2>&1 ||
		bail "linux-binary-$kver unpacked into build/trixie"
	echo "# kernel image: build/trixie/boot/vmlinuz-$kver"
fi
# The VFIO modules of that kernel for the tenant and epyc suites (the host's
# node-1 GPUs belong to a VM): from linux-modules-KVER (107 MB), only
# drivers/vfio and irqbypass are unpacked.
moddir=$root/usr/lib/modules/$kver
if [ "${P2PMAP_NEWER_IMAGE:-0}" = 1 ] && [ ! -e "$moddir/kernel/drivers/vfio/vfio.ko.xz" ]; then
	{ rm -rf "$root/tmp/debs" && mkdir "$root/tmp/debs" &&
	  in_root sh -c "cd /tmp/debs && apt-get download linux-modules-$kver" &&
	  dpkg-deb --fsys-tarfile "$root"/tmp/debs/linux-modules-*.deb |
		tar -x -C "$root" --wildcards "./usr/lib/modules/$kver/kernel/drivers/vfio/*" \
			"./usr/lib/modules/$kver/kernel/virt/lib/irqbypass.ko*" &&
	  rm -rf "$root/tmp/debs"
	} >>"$log" 2>&1
	tap $? "linux-modules-$kver's VFIO modules unpacked into build/trixie"
fi

# The source of that series for the IOMMU layout check (tests/iommu-layout.sh
# reads its dma-iommu.c and iova.c, which no headers package ships): the
# tarball of linux-source-SERIES (167 MB), unpacked, not installed, once.
series=$(echo "$kbase" | cut -d. -f1,2)
if [ ! -e "$root/usr/src/linux-source-$series.tar.xz" ]; then
	{ rm -rf "$root/tmp/debs" && mkdir "$root/tmp/debs" &&
	  in_root sh -c "cd /tmp/debs && apt-get download linux-source-$series" &&
	  dpkg-deb --fsys-tarfile "$root"/tmp/debs/linux-source-*.deb |
		tar -x -C "$root" "./usr/src/linux-source-$series.tar.xz" &&
	  rm -rf "$root/tmp/debs"
	} >>"$log" 2>&1
	tap $? "linux-source-$series's tarball unpacked into build/trixie"
fi

# Out-of-tree builds write into their source folder: build a fresh copy.
rm -rf "$root/p2pmap"
mkdir -p "$root/p2pmap"
cp -r "$top/kmod" "$top/include" "$top/VERSION" "$root/p2pmap/"
out=$(in_root make -s -C "/usr/src/$hdr" M=/p2pmap/kmod W=1 modules 2>&1 |
      grep -v 'Skipping BTF generation')
echo "$out" >>"$log"
[ -e "$root/p2pmap/kmod/p2pmap.ko" ]
tap $? "p2pmap builds against $kbase headers ($kver)"
[ -e "$root/p2pmap/kmod/p2pmap.ko" ] && [ -z "$out" ]
tap $? "p2pmap builds against $kbase headers with W=1, no warnings"
[ -z "$out" ] || echo "$out" | sed 's/^/# /'
vermagic=$(modinfo -F vermagic "$root/p2pmap/kmod/p2pmap.ko" 2>/dev/null)
case $vermagic in
"$kver "*) tap 0 "p2pmap.ko's vermagic is $kver" ;;
*)	tap 1 "p2pmap.ko's vermagic is $kver (got '$vermagic')" ;;
esac
if [ -e "$root/p2pmap/kmod/compat_probed.h" ]; then
	echo "# compat probes for $kver:"
	sed 's/^/#   /' "$root/p2pmap/kmod/compat_probed.h"
fi
# With the image unpacked, the VM suites can run on it: the debug variant
# and the test driver are built in the chroot too, and the initramfs goes
# to build/KVER/initrd.cpio like the host kernels'.
if [ -e "$root/boot/vmlinuz-$kver" ] && [ -e "$root/p2pmap/kmod/p2pmap.ko" ]; then
	vm=$top/build/$kver
	rm -rf "$vm" "$root/p2pmap-debug" "$root/p2ptest"
	mkdir -p "$vm/kmod" "$vm/kmod-debug" "$vm/p2ptest" "$root/p2ptest"
	cp -r "$root/p2pmap" "$root/p2pmap-debug"
	cp "$top/tests/p2ptest/Kbuild" "$top/tests/p2ptest/p2ptest.c" "$root/p2ptest/"
	{ in_root make -s -C "/usr/src/$hdr" M=/p2pmap-debug/kmod \
		P2PMAP_DEBUG=y clean modules &&
	  in_root make -s -C "/usr/src/$hdr" M=/p2ptest modules; } >>"$log" 2>&1
	cp "$root/p2pmap/kmod/p2pmap.ko" "$vm/kmod/" &&
	cp "$root/p2pmap-debug/kmod/p2pmap.ko" "$vm/kmod-debug/" &&
	cp "$root/p2ptest/p2ptest.ko" "$vm/p2ptest/" &&
	P2PMAP_WITH_PYTHON=1 P2PMAP_MODULES_DIR=$moddir \
		"$top/tests/vm/mkinitramfs.sh" "$vm/initrd.cpio" \
		"$kver" p2pmap="$vm/kmod" p2pmap-debug="$vm/kmod-debug" \
		p2ptest="$vm/p2ptest" >>"$log" 2>&1
	tap $? "test driver, debug module and initramfs for $kver"
	echo "# vm-kernel $kver $root/boot/vmlinuz-$kver"
fi
# With P2PMAP_NEWER_QEMU=1, QEMU from trixie-backports (11.x) goes into the
# chroot too: its amd-iommu translates devices behind boot-time root ports
# and host bridges (dma-remap=on) and logs real IO_PAGE_FAULT events, which
# QEMU 7.2's does not.  tests/vm/run-vm.sh runs it with
# P2PMAP_VM_QEMU_ROOT=build/trixie.
if [ "${P2PMAP_NEWER_QEMU:-0}" = 1 ]; then
	if [ ! -e "$root/.p2pmap-qemu" ] || [ "${1:-}" = --update ]; then
		in_root apt-get install -y -q --no-install-recommends \
			-t trixie-backports qemu-system-x86 >>"$log" 2>&1 &&
			touch "$root/.p2pmap-qemu"
	fi
	qver=$(in_root qemu-system-x86_64 --version 2>/dev/null |
	       sed -n 's/^QEMU emulator version \([0-9.]*\).*/\1/p')
	in_root qemu-system-x86_64 -device amd-iommu,help 2>/dev/null |
		grep -q 'dma-remap='
	tap $? "QEMU from trixie-backports in build/trixie (${qver:-none}) has amd-iommu's dma-remap"
	[ -e "$root/.p2pmap-qemu" ] && [ -n "$qver" ] &&
		echo "# vm-qemu $root $qver"
fi
echo "# newer-kernel.sh took $((SECONDS - start)) s"
tap_done
