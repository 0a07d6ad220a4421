#!/bin/bash
# qemu-unpack.sh [--update]: QEMU 11 from Debian trixie-backports,
# unpacked (not installed) into build/qemu11/root for make demo: its
# amd-iommu translates devices behind root ports (dma-remap=on), QEMU 7.2's
# does not.  tests/vm/run-vm.sh runs it with P2PMAP_VM_QEMU_ROOT (through
# chroot-qemu.sh, which needs root).  Prints "# vm-qemu ROOT VERSION" when
# the root's QEMU runs and has dma-remap; the rest goes to stderr.
#
# No debootstrap: apt, with a state folder of its own (build/qemu11/apt;
# this machine's apt lists, cache and status are not touched), resolves
# qemu-system-x86 from trixie-backports with its dependencies (no
# recommends: about 90 packages, 38 MB), downloads them and dpkg-deb -x
# unpacks each into the root; no maintainer script runs (QEMU needs none:
# its libraries are found in the multiarch folders without ld.so.cache).
# The merged-/usr links (bin, lib, lib64, sbin) are made by hand, as
# debootstrap would.  tests/newer-kernel.sh's build/trixie (make check) is
# a separate, debootstrapped chroot.
# The archive: this machine's apt's (tests/debian-mirror.sh); trixie's
# signing keys: this machine's (debian-archive-keyring ships them in
# Debian 12).  Made once: a stamp names the packages; --update resolves
# again and remakes the root if a version changed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/qemu11
root=$dir/root
say() { echo "qemu-unpack: [${SECONDS} s] $*" >&2; }

check() {
	local qver
	qver=$(chroot "$root" /usr/bin/qemu-system-x86_64 --version 2>/dev/null |
	       sed -n 's/^QEMU emulator version \([0-9.]*\).*/\1/p')
	[ -n "$qver" ] || { say "the QEMU in ${root#$top/} does not run"; return 1; }
	chroot "$root" /usr/bin/qemu-system-x86_64 -device amd-iommu,help 2>/dev/null |
		grep -q 'dma-remap=' ||
		{ say "QEMU $qver in ${root#$top/} has no amd-iommu dma-remap"; return 1; }
	echo "# vm-qemu $root $qver"
}

if [ "$(id -u)" -ne 0 ]; then
	say "needs root (chroot: the QEMU runs in its root)"
	exit 1
fi
if [ -f "$dir/.p2pmap-qemu" ] && [ "${1:-}" != --update ]; then
	check
	exit
fi

mirror=${P2PMAP_DEBIAN_MIRROR:-$("$top/tests/debian-mirror.sh")} || {
	say "no Debian archive in /etc/apt/sources.list.d (set P2PMAP_DEBIAN_MIRROR)"
	exit 1
}
apt=$dir/apt
mkdir -p "$apt/etc/sources.list.d" "$apt/etc/preferences.d" \
	"$apt/etc/apt.conf.d" "$apt/state/lists/partial" \
	"$apt/cache/archives/partial"
printf 'deb %s trixie main\ndeb %s trixie-backports main\n' \
	"$mirror" "$mirror" >"$apt/etc/sources.list"
: >"$apt/state/status"
cat >"$apt/apt.conf" <<EOF
Dir::Etc "$apt/etc";
Dir::Etc::trusted "/etc/apt/trusted.gpg";
Dir::Etc::trustedparts "/etc/apt/trusted.gpg.d";
Dir::State "$apt/state";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
EOF
export APT_CONFIG=$apt/apt.conf
# --update: the newest versions only (older .debs would be unpacked too).
[ "${1:-}" = --update ] && rm -f "$apt"/cache/archives/*.deb
say "trixie's package lists ..."
apt-get update -q >&2
say "qemu-system-x86 from trixie-backports and what it depends on ..."
apt-get install -q -y -d --no-install-recommends -t trixie-backports \
	qemu-system-x86 >&2
list=$(ls "$apt"/cache/archives/*.deb)
if [ -f "$dir/.p2pmap-qemu" ] && [ "$list" = "$(cat "$dir/.p2pmap-qemu")" ]; then
	check
	exit
fi
rm -rf "$root" "$root.tmp" "$dir/.p2pmap-qemu"
mkdir -p "$root.tmp"
for deb in $list; do
	dpkg-deb -x "$deb" "$root.tmp"
done
for d in bin lib lib64 sbin; do
	[ -e "$root.tmp/usr/$d" ] && [ ! -e "$root.tmp/$d" ] && ln -s "usr/$d" "$root.tmp/$d"
done
mv "$root.tmp" "$root"
say "$(echo "$list" | wc -l) packages unpacked into ${root#$top/}"
check
echo "$list" >"$dir/.p2pmap-qemu"
