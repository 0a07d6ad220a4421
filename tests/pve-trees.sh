#!/bin/bash
# pve-trees.sh: the Proxmox VE build-check trees (../shared/kernels/pve-*.tar.xz,
# see README.md there), unpacked, one "SERIES DIR" line each (6.17, 7.0).
# Each tarball is unpacked once into build/pve/SHA/, SHA its checksum's
# first 16 digits: a new tarball of a series replaces the old tree, an
# unchanged one is reused (unpacking takes seconds; 230 MB on disk).  The
# builds never write into a tree (M= builds of scratch copies), so a tree
# can be shared by every run.  P2PMAP_PVE_KERNELS names another folder.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=${P2PMAP_PVE_KERNELS:-$top/../shared/kernels}
base=$top/build/pve
mkdir -p "$base"
found=
for tarball in "$src"/pve-*.tar.xz; do
	[ -e "$tarball" ] || continue
	series=$(basename "$tarball" .tar.xz)
	series=${series#pve-}
	sha=$(sha256sum "$tarball" | cut -c1-16)
	dir=$base/$sha/pve-$series
	if [ ! -e "$base/$sha/.unpacked" ]; then
		# Trees of the same series from older tarballs go first.
		for old in "$base"/*/pve-"$series"; do
			[ -e "$old" ] && rm -rf "$(dirname "$old")"
		done
		rm -rf "${base:?}/$sha"
		mkdir -p "$base/$sha"
		tar -xJf "$tarball" -C "$base/$sha"
		[ -x "$dir/pve-buildcheck.sh" ] || {
			echo "pve-trees.sh: $tarball has no pve-$series/pve-buildcheck.sh" >&2
			exit 1
		}
		touch "$base/$sha/.unpacked"
	fi
	echo "$series $dir"
	found=1
done
[ -n "$found" ] || { echo "pve-trees.sh: no pve-*.tar.xz in $src" >&2; exit 1; }
