#!/bin/bash
# kernel-unpack.sh [KVER]: fetch a Debian kernel and its headers with
# "apt-get download" (this machine's apt sources; no root, nothing
# installed) and unpack them with dpkg-deb -x into build/kroot/KVER/, a
# root that tests/vm/build.sh, mkinitramfs.sh and run-vm.sh take as
# P2PMAP_KROOT (make demo: nothing goes into this machine's /boot or
# /lib/modules).  Prints the root's path on stdout, the rest on stderr.
#
# KVER: default the release that linux-image-6.12-amd64 depends on now
# (Debian 12's 6.12, from bookworm-security, as tests/deps.sh installs it
# for make check).  Packages: linux-image-KVER (the image, and the modules
# the guests load: VFIO), linux-headers-KVER and its -common, and
# linux-kbuild-X.Y (scripts/, the host tools).  The headers' Makefile
# includes the -common tree at its /usr/src path: rewritten to the
# unpacked one; the scripts and tools links are relative and resolve
# inside the root.
# Cached: the .debs in build/kroot/debs/ and the root with a stamp naming
# the packages' versions; a second run with the same versions downloads and
# unpacks nothing.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
base=${P2PMAP_KROOT_DIR:-$top/build/kroot}
say() { echo "kernel-unpack: [${SECONDS} s] $*" >&2; }

kver=${1:-}
if [ -z "$kver" ]; then
	kver=$(apt-cache depends linux-image-6.12-amd64 2>/dev/null |
	       sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-amd64\)$/\1/p' |
	       sort -V | tail -n 1)
	[ -n "$kver" ] || {
		say "no linux-image-6.12-amd64 in apt's lists (apt-get update? bookworm-security in the sources?)"
		exit 1
	}
fi
# The kbuild package is named after the release without the flavour.
kb=${kver%-amd64}
pkgs=("linux-image-$kver" "linux-headers-$kver" "linux-headers-$kb-common"
      "linux-kbuild-$kb")
# One apt-cache call for the four (each call reads apt's lists: a second).
cands=$(apt-cache policy "${pkgs[@]}" 2>/dev/null |
	awk '/^[^ ]/ { p = $1; sub(/:$/, "", p) }
	     /^ *Candidate:/ { print p "=" $2 }')
vers=()
for p in "${pkgs[@]}"; do
	v=$(echo "$cands" | sed -n "s/^$p=//p")
	case $v in ''|'(none)') say "no package $p in apt's lists"; exit 1 ;; esac
	vers+=("$p=$v")
done
root=$base/$kver
stamp=$root/.p2pmap-kroot
want=$(printf '%s\n' "${vers[@]}")
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "$root"
	exit 0
fi

debs=$base/debs
mkdir -p "$debs"
get=()
for pv in "${vers[@]}"; do
	p=${pv%%=*} v=${pv#*=}
	ls "$debs/${p}_${v/:/%3a}_"*.deb >/dev/null 2>&1 || get+=("$pv")
done
if [ ${#get[@]} -gt 0 ]; then
	say "downloading ${get[*]}"
	(cd "$debs" && apt-get download -q "${get[@]}" >&2)
fi

rm -rf "$root" "$root.tmp"
mkdir -p "$root.tmp"
for pv in "${vers[@]}"; do
	p=${pv%%=*} v=${pv#*=}
	dpkg-deb -x "$(ls "$debs/${p}_${v/:/%3a}_"*.deb | head -n 1)" "$root.tmp"
done
# Debian 12's packages put /lib/modules in /lib (no merged /usr in the
# .debs); the tree is used through its /lib/modules/KVER path.
hdr=$root.tmp/usr/src/linux-headers-$kver
common=/usr/src/linux-headers-$kb-common
grep -q "^include $common/Makefile\$" "$hdr/Makefile" || {
	say "$hdr/Makefile does not include $common/Makefile: a new layout?"
	exit 1
}
sed -i "s|^include $common/Makefile\$|include $root$common/Makefile|" "$hdr/Makefile"
# The build link (absolute: /usr/src/...): to the unpacked tree.
ln -sfn "$root/usr/src/linux-headers-$kver" "$root.tmp/lib/modules/$kver/build"
for l in scripts tools; do
	[ -e "$hdr/$l/" ] || { say "$hdr/$l does not resolve in the root"; exit 1; }
done
[ -e "$root.tmp/boot/vmlinuz-$kver" ] || { say "no boot/vmlinuz-$kver in linux-image-$kver"; exit 1; }
mv "$root.tmp" "$root"
echo "$want" >"$stamp"
say "$kver unpacked into ${root#$top/}"
echo "$root"
