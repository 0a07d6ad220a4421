#!/bin/bash
# deps.sh: install the Debian 12 packages that build, demo and tests need,
# if any is missing.  Kernels: Debian's 6.1 (bookworm) and 6.12
# (bookworm-security), with their headers; QEMU; busybox for the guests;
# libnl/libpci for the CLI; sparse and the 6.12 source (for checkpatch.pl
# and YNL, and the debug kernel tests/vm/debug-kernel.sh builds, which
# needs nothing beyond build-essential, bc, flex, bison, libelf-dev and
# xz-utils: no BTF, no module signing); python3-yaml/-jsonschema for YNL and the spec checks; dkms
# (make install, and the module the VMs load); debootstrap for the trixie
# chroot with 7.x headers (tests/newer-kernel.sh); tmux to type into the
# completion as a user does (tests/man/run.sh); debhelper, dh-dkms and
# lintian for the Debian packages (make deb, tests/package/run.sh).
set -euo pipefail
pkgs=(build-essential bc flex bison libelf-dev kmod cpio xz-utils
      busybox-static qemu-system-x86 sparse pkg-config
      libnl-3-dev libnl-genl-3-dev libpci-dev pci.ids python3
      python3-yaml python3-jsonschema dkms debootstrap tmux
      debhelper dh-dkms lintian
      linux-image-amd64 linux-headers-amd64
      linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
