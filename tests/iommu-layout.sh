#!/bin/bash
# iommu-layout.sh: the private IOMMU layouts p2pmap mirrors
# (tests/iommu-layout.py says which) checked against every kernel source
# make check has, as TAP lines: the Proxmox VE trees (tests/pve-trees.sh),
# and the sources of the Debian kernels the module is built for, which no
# headers package ships (dma-iommu.c, iova.c): linux-source-SERIES.tar.xz
# in /usr/src for each installed kernel (tests/deps.sh), and in build/trixie
# for 7.x (tests/newer-kernel.sh).  The four files the check reads are
# unpacked once per tarball checksum into build/layout/.  Negative
# controls: a copy of a tree with iovad moved in struct iommu_dma_cookie,
# and one with the cookie types' enum reordered, must fail.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"
check=$top/tests/iommu-layout.py
base=$top/build/layout
files="drivers/iommu/dma-iommu.c drivers/iommu/iova.c include/linux/iova.h include/linux/iommu.h"
mkdir -p "$base"

# layout NAME DIR: one TAP line for the tree in DIR.
layout() {
	local out rc
	out=$(python3 "$check" "$2" 2>&1)
	rc=$?
	tap $rc "the IOMMU layouts p2pmap mirrors match $1's dma-iommu.c, iova.c and iova.h"
	echo "$out" | sed -e 's/^# //' -e "s/^/# $1: /"
}

# unpack TARBALL: the check's files of a linux-source tarball, once per
# checksum; prints the folder.
unpack() {
	local name sha dir f members=()
	name=$(basename "$1" .tar.xz)
	sha=$(sha256sum "$1" | cut -c1-16)
	dir=$base/$name-$sha
	if [ ! -e "$dir/.unpacked" ]; then
		rm -rf "${base:?}/$name"-*
		mkdir -p "$dir"
		for f in $files; do
			members+=("$name/$f")
		done
		tar -xJf "$1" -C "$dir" --strip-components=1 "${members[@]}" ||
			return 1
		touch "$dir/.unpacked"
	fi
	echo "$dir"
}

trees=$("$top/tests/pve-trees.sh")
tap $? "the Proxmox VE build-check trees are unpacked in build/pve/"
while read -r series dir; do
	[ -n "$dir" ] && layout "Proxmox VE $series" "$dir"
done <<<"$trees"

# Every series make check builds for: the installed Debian kernels, and
# 7.x where tests/newer-kernel.sh made its chroot.
want=$("$top/tests/kernels.sh" | cut -d. -f1,2 | sort -u)
newer=$(ls "$top/build/trixie/usr/src/" 2>/dev/null |
	sed -n 's/^linux-headers-\([0-9]*\.[0-9]*\)\..*-amd64$/\1/p' | sort -uV | tail -n 1)
for series in $want $newer; do
	tarball=/usr/src/linux-source-$series.tar.xz
	[ "$series" = "$newer" ] &&
		tarball=$top/build/trixie/usr/src/linux-source-$series.tar.xz
	if [ ! -e "$tarball" ]; then
		tap 1 "the source of Debian $series is there (${tarball#"$top"/})"
		continue
	fi
	if dir=$(unpack "$tarball"); then
		layout "Debian $series" "$dir"
	else
		tap 1 "the IOMMU files of ${tarball#"$top"/} unpack"
	fi
done

# Negative controls on copies: the newest Proxmox tree (iovad first, read
# through cookie_type) with iovad moved behind msi_page_list, and the
# oldest Debian tree (the mirrored head) with the enum's order swapped.
neg=$(mktemp -d)
trap 'rm -rf "$neg"' EXIT
# copy_tree DIR NAME: the check's files of DIR in $neg/NAME.
copy_tree() {
	local f
	for f in $files; do
		mkdir -p "$neg/$2/$(dirname "$f")" && cp "$1/$f" "$neg/$2/$f" || return 1
	done
}
# negative NAME WHAT PATTERN: the check must fail on $neg/NAME, saying PATTERN.
negative() {
	local out
	out=$(python3 "$check" "$neg/$1" 2>&1)
	[ $? = 1 ] && echo "$out" | grep -q "$3"
	tap $? "negative control: the layout check fails on $2"
	echo "$out" | grep '^FAIL' | sed 's/^/# /'
}
dir=$(echo "$trees" | tail -n 1 | cut -d' ' -f2)
if [ -n "$dir" ] && copy_tree "$dir" moved; then
	# Delete the iovad line, put it back after msi_page_list.
	sed -i '/^struct iommu_dma_cookie {/,/^};/{
		/^[[:space:]]*struct iova_domain[[:space:]]*iovad;$/d
		s/^\([[:space:]]*struct list_head[[:space:]]*msi_page_list;\)$/\1\n\tstruct iova_domain iovad;/
	}' "$neg/moved/drivers/iommu/dma-iommu.c"
	grep -A3 '^struct iommu_dma_cookie {' "$neg/moved/drivers/iommu/dma-iommu.c" | sed 's/^/# edited: /'
	negative moved "a copy of $(basename "$dir")'s dma-iommu.c with iovad moved behind msi_page_list" \
		"field 0 is struct list_head msi_page_list"
else
	tap 1 "negative control: a copy of the newest Proxmox tree"
fi
old=$(ls -d "$base"/linux-source-*/ 2>/dev/null | sort -V | head -n 1)
if [ -n "$old" ] && copy_tree "$old" enum; then
	sed -i '/^enum iommu_dma_cookie_type {/,/^};/{
		/^[[:space:]]*IOMMU_DMA_IOVA_COOKIE,$/d
		s/^\([[:space:]]*IOMMU_DMA_MSI_COOKIE,\)$/\1\n\tIOMMU_DMA_IOVA_COOKIE,/
	}' "$neg/enum/drivers/iommu/dma-iommu.c"
	negative enum "a copy of $(basename "$old")'s dma-iommu.c with IOMMU_DMA_IOVA_COOKIE no longer 0" \
		"IOMMU_DMA_IOVA_COOKIE is not 0"
else
	tap 1 "negative control: a copy of a Debian tree"
fi
tap_done
