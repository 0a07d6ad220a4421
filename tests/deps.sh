#!/bin/bash
# deps.sh [demo]: install the Debian 12 packages that build and tests need
# (make check), or make demo's alone ("demo", below), if any is missing.
# Kernels: Debian's 6.1 (bookworm) and 6.12 (bookworm-security), with
# their headers; QEMU; busybox for the guests;
# libnl/libpci for the CLI and json-c (it reads verify's --json document
# back: env, nccl-check); sparse and the 6.12 source (for checkpatch.pl
# and YNL, and the debug kernel tests/vm/debug-kernel.sh builds, which
# needs nothing beyond build-essential, bc, flex, bison, libelf-dev and
# xz-utils: no BTF, no module signing); python3-yaml/-jsonschema for YNL and the spec checks; dkms
# (make install, and the module the VMs load); debootstrap for the trixie
# chroot with 7.x headers (tests/newer-kernel.sh); linux-source-6.1 (and
# 6.12's) for the IOMMU layout check (tests/iommu-layout.sh reads their
# dma-iommu.c and iova.c, which no headers package ships); python3 and
# xz-utils for that check and the Proxmox VE build trees
# (tests/pve-build.sh, tests/pve-trees.sh); tmux to type into the
# completion as a user does (tests/man/run.sh); debhelper, dh-dkms and
# lintian for the Debian packages (make deb, tests/package/run.sh);
# prometheus (for promtool) and prometheus-node-exporter for the alerting
# rules' tests and a real scrape (tests/prometheus/run.sh), which start
# their own instances: the packages' services are not started or enabled
# by this install.
#
# "deps.sh demo" (make demo): only what make demo needs.  Its kernel is not
# installed (tests/kernel-unpack.sh unpacks it under build/), nor its QEMU
# (tests/qemu-unpack.sh, build/qemu11): gcc and make for the module and the CLI
# (build-essential; the 6.12 headers' Makefile calls gcc-12, bookworm's
# gcc), libnl/libpci/json-c and pkg-config for the CLI, busybox-static,
# cpio, kmod and pci.ids for the initramfs (python3-yaml: its netlink
# fuzzer's table is made from the YNL spec), xz-utils for the kernel's
# modules, and what linux-kbuild-6.12's tools
# link or run (libelf1, libssl3, pahole: installed, the headers package
# would have pulled them in); the host's QEMU only for IOMMU=vtd.
set -euo pipefail
if [ "${1:-}" = demo ]; then
	pkgs=(build-essential pkg-config libnl-3-dev libnl-genl-3-dev
	      libpci-dev libjson-c-dev pci.ids busybox-static cpio kmod
	      xz-utils libelf1 libssl3 pahole python3 python3-yaml)
	[ "${IOMMU:-amd}" = vtd ] && pkgs+=(qemu-system-x86)
else
pkgs=(build-essential bc flex bison libelf-dev kmod cpio xz-utils
      busybox-static qemu-system-x86 sparse pkg-config
      libnl-3-dev libnl-genl-3-dev libpci-dev libjson-c-dev pci.ids python3
      python3-yaml python3-jsonschema dkms debootstrap tmux
      debhelper dh-dkms lintian prometheus prometheus-node-exporter
      linux-image-amd64 linux-headers-amd64
      linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
      linux-source-6.1)
fi

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
# The tests run their own promtool and node_exporter; the daemons the two
# packages ship stay off (policy-rc.d: nothing starts during this install).
daemons=()
for p in prometheus prometheus-node-exporter; do
	[[ " ${missing[*]} " == *" $p "* ]] && daemons+=("$p")
done
policy=
if [ ${#daemons[@]} -gt 0 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
# The kernels in a second transaction: installed with the rest, they had
# initramfs-tools' trigger (activated by busybox-static) build a third
# initramfs after their own two (98 s, 89 s and 65 s on a 2-core machine).
# Alone, after the rest, the trigger has run before they are there.
kernels=() rest=()
for p in "${missing[@]}"; do
	case $p in linux-image-*) kernels+=("$p") ;; *) rest+=("$p") ;; esac
done
[ ${#rest[@]} -eq 0 ] ||
	apt-get install -y -q --no-install-recommends "${rest[@]}"
# A machine that does not boot its /boot (no /boot/vmlinuz-$(uname -r): a
# container or a VM started with its kernel from outside, as CI's) never
# boots these kernels: the test bed boots them with its own initramfs
# (tests/vm/mkinitramfs.sh), so theirs is not made (INITRD=No: initramfs-
# tools' /etc/kernel/postinst.d hook then exits; linux-run-hooks passes the
# environment on).  A machine that boots its /boot gets them whole, initramfs
# included: one of them may become its default kernel.
if [ ${#kernels[@]} -gt 0 ]; then
	if [ -e "/boot/vmlinuz-$(uname -r)" ]; then
		apt-get install -y -q --no-install-recommends "${kernels[@]}"
	else
		echo "deps: this machine does not boot /boot's kernels (no /boot/vmlinuz-$(uname -r)): the test bed's kernels are installed without an initramfs"
		INITRD=No apt-get install -y -q --no-install-recommends "${kernels[@]}"
	fi
fi
if [ ${#daemons[@]} -gt 0 ] && command -v systemctl >/dev/null; then
	systemctl disable "${daemons[@]}" >/dev/null 2>&1 || true
fi
