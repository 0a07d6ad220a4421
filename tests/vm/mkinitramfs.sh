#!/bin/bash
# mkinitramfs.sh OUT KVER NAME=MODDIR... : a busybox initramfs for one kernel.
#
# It holds busybox, the p2pmap CLI with the shared libraries it needs,
# pci.ids, the guest test scripts (tests/guest) and the kernel modules built
# for KVER: every MODDIR/*.ko is copied to /modules/NAME/.
set -euo pipefail
out=$1 kver=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,modules,usr/share/misc}
chmod 755 "$root"
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
for app in $(busybox --list); do
	[ "$app" = busybox ] && continue
	ln -sf busybox "$root/bin/$app"
done

# The CLI and every shared object it links (ldd lists the loader too).
cp "$top/user/p2pmap" "$root/bin/p2pmap"
for lib in $(ldd "$top/user/p2pmap" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cp /usr/share/misc/pci.ids "$root/usr/share/misc/pci.ids"

for spec in "$@"; do
	name=${spec%%=*} dir=${spec#*=}
	mkdir -p "$root/modules/$name"
	for ko in "$dir"/*.ko; do
		strip --strip-debug -o "$root/modules/$name/$(basename "$ko")" "$ko"
	done
done

cp -r "$top/tests/guest" "$root/tests"
cp "$top/tests/vm/init" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/tmp:/bin/sh" >>"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "nogroup:x:65534:" >>"$root/etc/group"
echo "$kver" >"$root/etc/kver"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
