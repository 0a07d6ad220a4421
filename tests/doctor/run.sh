#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap doctor" on fixture hosts built under a --root directory (sysfs,
# procfs, /etc): the 8-GPU host of Documentation/faults-to-faster-server.md before p2pmap (AMD-Vi,
# DMA-FQ, four nvidia GPUs on NUMA node 0 under four root complexes, four
# vfio-pci GPUs on node 1, SEV-SNP on, NCCL_P2P_DISABLE=1 in the server's
# unit) and after (every node-0 direction linked and mapped, the unit's
# drop-in from "p2pmap env --format systemd"), and an iommu=pt host.  The
# whole output is compared with NAME.want; then the build machine itself
# (--root /, a real host with no GPU).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/doctor
# P2PMAP_DOCTOR_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_DOCTOR_BIN:-$top/user/p2pmap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"

version=$(cat "$top/VERSION")
node0="0000:01:00.0 0000:21:00.0 0000:41:00.0 0000:61:00.0"
node1="0000:81:00.0 0000:a1:00.0 0000:c1:00.0 0000:e1:00.0"

put() {	# put FILE TEXT (no process where the directory is there: a
	# fixture host is a few hundred files)
	[ -d "${1%/*}" ] || mkdir -p "${1%/*}"
	printf '%s\n' "$2" >"$1"
}

# gpucfg FILE CUR MAX: a GPU's PCI config space (what libpci reads under
# --root): a PCIe endpoint whose Resizable BAR capability (extended, at
# 0x100) has BAR1 at 2^CUR MiB now, sizes 64 MiB to 2^MAX MiB supported.
gpucfg() {
	python3 - "$@" <<'PY'
import struct, sys
path, cur, top = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = bytearray(4096)
struct.pack_into("<HH", c, 0, 0x10de, 0x2236)     # NVIDIA A10
struct.pack_into("<H", c, 6, 0x0010)              # status: capability list
c[0x0b], c[0x0a] = 0x03, 0x02                     # 3D controller
c[0x34] = 0x40
struct.pack_into("<BBH", c, 0x40, 0x10, 0, 0x0002) # PCIe, endpoint
struct.pack_into("<I", c, 0x100, 0x00010015)      # Resizable BAR, v1, last
sizes = sum(1 << (n + 4) for n in range(6, top + 1))
struct.pack_into("<II", c, 0x104, sizes, 1 | 1 << 5 | cur << 8) # BAR1, 1 BAR
open(path, "wb").write(bytes(c))
PY
}

# gpu DIR ADDR DRIVER NODE GROUP TYPE RANK: an NVIDIA 3D controller (an
# A10: 24 GB, BAR1 32 GiB, the largest its Resizable BAR supports) under
# its own root complex (pci0000:BB, BB = its bus - 1).
gpu() {
	local d=$1 a=$2 bus=${2:5:2} rb dev
	rb=$(printf '%02x' $((0x$bus - 1)))
	dev=$d/sys/devices/pci0000:$rb/0000:$rb:01.1/$a
	put "$dev/vendor" 0x10de
	put "$dev/device" 0x2236
	put "$dev/class" 0x030200
	put "$dev/numa_node" "$4"
	gpucfg "$dev/config" 15 15
	# BAR0: 16 MiB at 0xe0000000 + 16 MiB x the GPU's rank ($7).
	# BAR1: 32 GiB, 64-bit prefetchable, above 2 TiB.
	put "$dev/resource" "$(printf '0x%016x 0x%016x 0x0000000000040200' \
		$((0xe0000000 + $7 * 0x1000000)) $((0xe0ffffff + $7 * 0x1000000)))
$(printf '0x%016x 0x%016x 0x000000000014220c' \
		$((0x20000000000 + $7 * 0x1000000000)) $((0x207ffffffff + $7 * 0x1000000000)))
0x0000000000000000 0x0000000000000000 0x0000000000000000"
	mkdir -p "$d/sys/bus/pci/devices" "$d/sys/bus/pci/drivers/$3" \
		"$d/sys/kernel/iommu_groups/$5/devices"
	ln -s "../../../devices/pci0000:$rb/0000:$rb:01.1/$a" "$d/sys/bus/pci/devices/$a"
	ln -s "../../../../bus/pci/drivers/$3" "$dev/driver"
	ln -s "../../../../kernel/iommu_groups/$5" "$dev/iommu_group"
	ln -s "../../../../devices/pci0000:$rb/0000:$rb:01.1/$a" \
		"$d/sys/kernel/iommu_groups/$5/devices/$a"
	put "$d/sys/kernel/iommu_groups/$5/type" "$6"
}

# before DIR [TYPE]: the 8-GPU host of Documentation/faults-to-faster-server.md before p2pmap.
before() {
	local d=$1 type=${2:-DMA-FQ} g=10 a
	rm -rf "$d"
	put "$d/proc/cmdline" "BOOT_IMAGE=/boot/vmlinuz-6.12.57+deb13-amd64 root=/dev/md0 ro amd_iommu=on${3:+ $3}"
	mkdir -p "$d/sys/class/iommu/ivhd0" "$d/sys/class/iommu/ivhd1"
	put "$d/sys/module/kvm_amd/parameters/sev_snp" Y
	put "$d/proc/driver/nvidia/version" "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build"
	printf 'ResmanDebugLevel: 4294967295\nDmaRemapPeerMmio: 1\nRegistryDwords: ""\n' \
		>"$d/proc/driver/nvidia/params"
	for a in $node0; do gpu "$d" "$a" nvidia 0 $g "$type" $((g - 10)); g=$((g + 1)); done
	for a in $node1; do gpu "$d" "$a" vfio-pci 1 $g "$type" $((g - 10)); g=$((g + 1)); done
	put "$d/etc/systemd/system/vllm.service" "[Unit]
Description=vLLM
[Service]
Environment=NCCL_P2P_DISABLE=1 CUDA_VISIBLE_DEVICES=0,1,2,3
ExecStart=/usr/bin/vllm serve --tensor-parallel-size 4"
	put "$d/proc/sys/kernel/osrelease" 6.12.57+deb13-amd64
	mkdir -p "$d/etc/initramfs-tools"
	# What nvidia-smi -q -d MEMORY says of the nvidia GPUs (24 GB each).
	smi "$d" 23028 32768 $node0
}

# smi DIR FB BAR1 ADDR...: DIR/nvidia-smi prints -q -d MEMORY's output
# for those GPUs (FB and BAR1 totals in MiB); P2PMAP_NVIDIA_SMI names it.
smi() {
	local d=$1 fb=$2 bar1=$3 a
	shift 3
	{
		printf '\n==============NVSMI LOG==============\n\n'
		printf 'Timestamp                                 : Tue Dec  1 10:00:00 2026\n'
		printf 'Driver Version                            : 580.95.05\n'
		printf 'CUDA Version                              : 13.0\n\n'
		printf 'Attached GPUs                             : %s\n' $#
		for a; do
			printf 'GPU 0000%s\n    FB Memory Usage\n' "$a"
			printf '        Total                             : %s MiB\n' "$fb"
			printf '        Reserved                          : 439 MiB\n'
			printf '        Used                              : 0 MiB\n'
			printf '    BAR1 Memory Usage\n'
			printf '        Total                             : %s MiB\n' "$bar1"
			printf '        Used                              : 1 MiB\n\n'
		done
	} >"$d/nvidia-smi.txt"
	printf '#!/bin/sh\ncat "%s/nvidia-smi.txt"\n' "$d" >"$d/nvidia-smi"
	chmod +x "$d/nvidia-smi"
}

# dkms DIR VERSION KERNEL...: p2pmap VERSION built by DKMS for KERNELs.
dkms() {
	local d=$1 v=$2 k
	shift 2
	mkdir -p "$d/var/lib/dkms/p2pmap/$v"
	ln -sfn "/usr/src/p2pmap-$v" "$d/var/lib/dkms/p2pmap/$v/source"
	for k; do
		put "$d/var/lib/dkms/p2pmap/$v/$k/x86_64/module/p2pmap.ko.xz" ""
		ln -sfn "$v/$k/x86_64" "$d/var/lib/dkms/p2pmap/kernel-$k-x86_64"
	done
}

# kernel DIR KVER: kernel KVER installed (its image and its modules).
kernel() {
	put "$1/boot/vmlinuz-$2" ""
	mkdir -p "$1/lib/modules/$2/kernel"
}

# after DIR: p2pmap loaded, every node-0 direction mapped, the drop-in.
after() {
	local d=$1 a b links
	before "$d"
	put "$d/sys/module/p2pmap/version" "$version"
	put "$d/sys/kernel/p2pmap/version" "$version"
	put "$d/sys/kernel/p2pmap/sme" off
	for a in $node0; do
		for b in $node0; do
			[ "$a" = "$b" ] && continue
			put "$d/sys/kernel/p2pmap/links/$a-$b/state" mapped
			put "$d/sys/kernel/p2pmap/links/$a-$b/reason" ""
			put "$d/sys/kernel/p2pmap/links/$a-$b/faults" 0
		done
	done
	# "p2pmap config save" after "link auto --numa 0".
	links=
	for a in $node0; do
		for b in $node0; do
			[ "$a" = "$b" ] || links=${links:+$links,}$a\>$b
		done
	done
	put "$d/etc/modprobe.d/p2pmap.conf" "# Written by \"p2pmap config save\" on 2026-11-30T10:00:00Z. Loaded by modprobe.
# p2pmap loads before the GPU driver, so links are mapped from its first bind.
softdep nvidia pre: p2pmap
options p2pmap drivers=nvidia links=$links"
	# DKMS built it for the running kernel and the one before; the
	# initramfs (p2pmap and nvidia in it) was updated after config save.
	dkms "$d" "$version" 6.12.48+deb13-amd64 6.12.57+deb13-amd64
	kernel "$d" 6.12.48+deb13-amd64
	kernel "$d" 6.12.57+deb13-amd64
	printf '# initramfs-tools modules\np2pmap\nnvidia\n' >"$d/etc/initramfs-tools/modules"
	put "$d/boot/initrd.img-6.12.57+deb13-amd64" ""
	touch -d "2026-11-30 10:00 UTC" "$d/etc/modprobe.d/p2pmap.conf"
	touch -d "2026-11-30 10:05 UTC" "$d/boot/initrd.img-6.12.57+deb13-amd64"
	put "$d/etc/systemd/system/vllm.service.d/p2pmap.conf" "[Service]
UnsetEnvironment=NCCL_P2P_DISABLE
Environment=NCCL_P2P_LEVEL=SYS
Environment=VLLM_SKIP_P2P_CHECK=0
Environment=CUDA_DEVICE_ORDER=PCI_BUS_ID"
}

# port DIR PATH ACSCTL: a PCIe switch downstream port with an ACS
# capability (extended config space at 0x100) whose control is ACSCTL.
port() {
	local dev=$1/sys/devices/$2 a=${2##*/}
	put "$dev/vendor" 0x10b5
	put "$dev/device" 0x9797
	put "$dev/class" 0x060400
	python3 - "$dev/config" "$3" <<'PY'
import struct, sys
c = bytearray(4096)
struct.pack_into("<HH", c, 0, 0x10b5, 0x9797)     # PLX
struct.pack_into("<H", c, 6, 0x0010)              # status: capability list
c[0x0b], c[0x0a], c[0x0e] = 0x06, 0x04, 0x01      # bridge, header type 1
c[0x34] = 0x40
struct.pack_into("<BBH", c, 0x40, 0x10, 0, 0x0062) # PCIe, downstream port
struct.pack_into("<I", c, 0x100, 0x0001000d)      # ACS, version 1, last
struct.pack_into("<HH", c, 0x104, 0x005f, int(sys.argv[2], 0))
open(sys.argv[1], "wb").write(bytes(c))
PY
	ln -s "../../../devices/$2" "$1/sys/bus/pci/devices/$a"
}

# switch DIR [ACSCTL]: an Intel host (VT-d, DMA-FQ) whose two GPUs share a
# PCIe switch (PIX), ACS control ACSCTL on its downstream ports (default
# 0: P2P turns in the switch and never reaches the IOMMU).
switch() {
	local d=$1 sw=pci0000:00/0000:00:01.0/0000:01:00.0
	rm -rf "$d"
	put "$d/proc/cmdline" "BOOT_IMAGE=/boot/vmlinuz-6.1.0-57-amd64 root=/dev/sda1 ro intel_iommu=on"
	mkdir -p "$d/sys/class/iommu/dmar0"
	for a in 0000:03:00.0 0000:04:00.0; do
		local dsp=0000:02:0${a:6:1}.0 dev
		dev=$d/sys/devices/$sw/$dsp/$a
		put "$dev/vendor" 0x10de
		put "$dev/device" 0x2236
		put "$dev/class" 0x030000
		put "$dev/numa_node" 0
		# BAR1 at 256 MiB: the firmware did not resize it (16 GiB).
		gpucfg "$dev/config" 8 14
		put "$dev/resource" "$(printf '0x%016x 0x%016x 0x0000000000040200' \
			$((0xa0000000 + ${a:6:1} * 0x1000000)) $((0xa0ffffff + ${a:6:1} * 0x1000000)))
$(printf '0x%016x 0x%016x 0x000000000014220c' \
			$((0x6000000000 + ${a:6:1} * 0x20000000)) $((0x600fffffff + ${a:6:1} * 0x20000000)))
0x0000000000000000 0x0000000000000000 0x0000000000000000
$(printf '0x%016x 0x%016x 0x000000000014220c' \
			$((0x6010000000 + ${a:6:1} * 0x20000000)) $((0x6011ffffff + ${a:6:1} * 0x20000000)))"
		mkdir -p "$d/sys/bus/pci/devices" "$d/sys/bus/pci/drivers/nvidia" \
			"$d/sys/kernel/iommu_groups/${a:6:1}/devices"
		ln -s "../../../devices/$sw/$dsp/$a" "$d/sys/bus/pci/devices/$a"
		ln -s "../../../../../../../bus/pci/drivers/nvidia" "$dev/driver"
		ln -s "../../../../../../../kernel/iommu_groups/${a:6:1}" "$dev/iommu_group"
		put "$d/sys/kernel/iommu_groups/${a:6:1}/type" DMA-FQ
		port "$d" "$sw/$dsp" "${2:-0}"
	done
}

# run NAME WANT-RC ARGS...
run() {
	local name=$1 want=$2 rc
	shift 2
	(cd "$tmp" && "$p2pmap" doctor "$@") >"$tmp/$name.out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { echo "# $name: exit $rc, want $want"; sed 's/^/# /' "$tmp/$name.out" | head -20; return 1; }
}
whole() {	# NAME.want, whose @VERSION@ is the VERSION file's
	sed "s/@VERSION@/$version/g" "$here/$1.want" >"$tmp/$1.want"
	diff -u "$tmp/$1.want" "$tmp/$1.out" >"$tmp/$1.diff" && return 0
	sed 's/^/# /' "$tmp/$1.diff" | head -30
	return 1
}
has() { grep -qxF -- "$2" "$tmp/$1.out"; }

# The kernel log of that host: AMD-Vi lines with the device prefix (01 ->
# 21 twice, 41 -> 01), two at address 0 (as QEMU's emulation logs them:
# never attributed, even from a GPU), a VT-d line (61 -> 41).
cat >"$tmp/dmesg.txt" <<'LOG'
[   12.345678] nvidia 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000b address=0xe1000040 flags=0x0020]
[   12.345699] nvidia 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000b address=0xe1000080 flags=0x0020]
[   13.000001] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000c address=0xe0000000 flags=0x0000]
[   14.000002] AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:00:00.0 domain=0x0000 address=0x0 flags=0x0009]
[   14.500000] nvidia 0000:21:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0x0 flags=0x0009]
[   15.000003] DMAR: [DMA Read NO_PASID] Request device [61:00.0] fault addr 0x22000001000 [fault reason 0x06] PTE Read access is not set
[   16.000000] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver
LOG
before "$tmp/before"
P2PMAP_NVIDIA_SMI=$tmp/before/nvidia-smi run before 1 --root "$tmp/before" --unit vllm.service --dmesg dmesg.txt && whole before
tap $? "the 8-GPU host (Documentation/faults-to-faster-server.md) before p2pmap: every check as expected, first blocking cause p2pmap not loaded, exit 1 (whole output)"
after "$tmp/after"
P2PMAP_NVIDIA_SMI=$tmp/after/nvidia-smi run after 0 --root "$tmp/after" --unit vllm.service && whole after
tap $? "the same host after link auto and the drop-in: 12 links mapped, nothing fails, exit 0 (whole output)"
# The same host seen from an LXC container (its own /etc: no p2pmap.conf,
# no DKMS tree): the GPUs, the module and the unit as on the host, the
# host-only checks skipped with the reason, the host's commands last.
cp -a "$tmp/after" "$tmp/ct"
rm -rf "$tmp/ct/etc/modprobe.d" "$tmp/ct/var/lib/dkms"
put "$tmp/ct/run/systemd/container" lxc
P2PMAP_NVIDIA_SMI=$tmp/ct/nvidia-smi run container 0 --root "$tmp/ct" --unit vllm.service && whole container
tap $? "the same host from an LXC container: host-only checks skipped (run on the host), the host's commands at the end (whole output)"
# pve DIR: the same host as a Proxmox VE node (pve1), as issue 25 tells it:
# node 0's four GPUs passed to CT 101 "sglang" (two as devN, two by
# lxc.mount.entry, one written "key = value", c 195:* allowed, nvidiactl
# and nvidia-uvm(-tools) given, nvidia-uvm's major 511 allowed; NVIDIA's
# minors in probe order, not bus order), node 1's four to VM 200 under
# SEV-SNP (81:00 without domain or function, a PCI mapping with a ";" list
# for this node and a map line for another node, e1 with its domain).  A
# snapshot names other devices: never read; the VM's pending hostpci3
# names one it has already (a1:00.0): nothing to say.
pve() {
	local d=$1 a
	after "$d"
	mkdir -p "$d/etc/pve/nodes/pve1/qemu-server" "$d/etc/pve/nodes/pve1/lxc" \
		"$d/etc/pve/nodes/pve2/qemu-server" "$d/etc/pve/mapping"
	ln -s nodes/pve1 "$d/etc/pve/local"
	ln -s nodes/pve1/qemu-server "$d/etc/pve/qemu-server"
	ln -s nodes/pve1/lxc "$d/etc/pve/lxc"
	# A pure cgroup2 host (Proxmox VE 7+), NVIDIA's majors as the kernel
	# lists them: 195 fixed, nvidia-uvm and nvidia-caps dynamic.
	put "$d/sys/fs/cgroup/cgroup.controllers" "cpuset cpu io memory hugetlb pids rdma misc"
	put "$d/proc/devices" "Character devices:
  1 mem
  4 /dev/vc/0
195 nvidia-frontend
510 nvidia-caps
511 nvidia-uvm

Block devices:
  8 sd
259 blkext"
	for a in 0000:01:00.0=0 0000:21:00.0=2 0000:41:00.0=1 0000:61:00.0=3; do
		mkdir -p "$d/proc/driver/nvidia/gpus/${a%=*}"
		printf 'Model: \t\t NVIDIA RTX PRO 6000 Blackwell Server Edition\nIRQ:   \t\t 120\nBus Location: \t %s\nDevice Minor: \t %s\nGPU Excluded:\t No\n' \
			"${a%=*}" "${a#*=}" >"$d/proc/driver/nvidia/gpus/${a%=*}/information"
	done
	put "$d/etc/pve/nodes/pve1/lxc/101.conf" "#SGLang, TP=4
arch: amd64
cores: 64
dev0: /dev/nvidia0,gid=44,mode=0666
dev1: /dev/nvidia1
hostname: sglang
memory: 262144
rootfs: local-lvm:vm-101-disk-0,size=200G
unprivileged: 1
lxc.cgroup2.devices.allow: c 195:* rwm
lxc.cgroup2.devices.allow: c 511:* rwm
lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry: /dev/nvidia2 dev/nvidia2 none bind,optional,create=file
lxc.mount.entry = /dev/nvidia3 dev/nvidia3 none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file

[pve:pending]
dev2: /dev/nvidia4

[before-upgrade]
dev0: /dev/nvidia5
hostname: old"
	put "$d/etc/pve/nodes/pve1/qemu-server/200.conf" "#confidential worker%3A node 1
amd-sev: type=snp
bios: ovmf
hostpci0: 81:00,pcie=1
hostpci1: mapping=node1-gpus,pcie=1
hostpci2: 0000:e1:00.0,pcie=1,x-vga=0
machine: q35
name: snp-vm

[PENDING]
hostpci3: 0000:a1:00.0

[before-upgrade]
hostpci3: 0000:21:00.0"
	put "$d/etc/pve/nodes/pve2/qemu-server/300.conf" "name: other-node
hostpci0: 0000:41:00.0"
	put "$d/etc/pve/mapping/pci.cfg" "node1-gpus
	description two GPUs of node 1
	map node=pve1,path=0000:a1:00.0;0000:c1:00.0,id=10de:2bb5,iommugroup=21
	map node=pve2,path=0000:61:00.0,id=10de:2bb5

other
	map node=pve1,path=0000:01:00.0,id=10de:2bb5"
}
pve "$tmp/pve"
P2PMAP_NVIDIA_SMI=$tmp/pve/nvidia-smi run pve 0 --root "$tmp/pve" --unit vllm.service && whole pve
tap $? "the same host as a Proxmox VE node: each GPU's owner (CT 101 by devN and lxc.mount.entry, VM 200 under SEV-SNP by hostpciN and a PCI mapping), the container's GPUs linked both ways (whole output)"
# Documentation/proxmox.md ("On a Proxmox VE host", once the README's):
# each doctor line it shows is one that doctor prints for that host, and
# it shows some (none found, say the file moved, fails).
pve_doc=${P2PMAP_PVE_DOC:-$top/Documentation/proxmox.md}
sed -n 's/^        \(\(ok\|warn\|fail\)  .*\)/\1/p' "$pve_doc" >"$tmp/readme-pve.txt"
missing=$(grep -vxFf "$tmp/pve.out" "$tmp/readme-pve.txt")
[ -s "$tmp/readme-pve.txt" ] && [ -z "$missing" ]
tap $? "Documentation/proxmox.md shows doctor lines it really prints ($(wc -l <"$tmp/readme-pve.txt") lines)"
[ -z "$missing" ] || printf '%s\n' "$missing" | sed 's/^/# not printed: /'
# The findings: a VM's GPU left on nvidia (VM stopped, the host took it),
# a link into a VM's GPU, the container's GPUs not linked both ways, a
# mount entry its cgroup does not allow.
pve "$tmp/pve2"
g81=$tmp/pve2/sys/devices/pci0000:80/0000:80:01.1/0000:81:00.0
rm "$g81/driver"
ln -s ../../../../bus/pci/drivers/nvidia "$g81/driver"
for a in 0000:01:00.0-0000:81:00.0 0000:81:00.0-0000:01:00.0; do
	put "$tmp/pve2/sys/kernel/p2pmap/links/$a/state" mapped
	put "$tmp/pve2/sys/kernel/p2pmap/links/$a/reason" ""
	put "$tmp/pve2/sys/kernel/p2pmap/links/$a/faults" 0
done
rm -r "$tmp/pve2/sys/kernel/p2pmap/links/0000:21:00.0-0000:41:00.0" \
	"$tmp/pve2/sys/kernel/p2pmap/links/0000:41:00.0-0000:21:00.0" \
	"$tmp/pve2/sys/kernel/p2pmap/links/0000:61:00.0-0000:01:00.0"
sed -i '/^lxc.cgroup2/d' "$tmp/pve2/etc/pve/nodes/pve1/lxc/101.conf"
run pve2 1 --root "$tmp/pve2" --unit vllm.service
has pve2 "warn  gpu.0000:81:00.0.owner: 0000:81:00.0 belongs to VM 200 \"snp-vm\" (SEV-SNP; hostpci0) but is bound to nvidia, not vfio-pci: the host uses a GPU its VM takes when it starts" &&
	has pve2 "fail  pve.vm.200.link: link 0000:01:00.0 -> 0000:81:00.0 touches 0000:81:00.0 of VM 200 \"snp-vm\" (SEV-SNP; hostpci0): a VM's GPU is never a peer of the host's GPUs" &&
	has pve2 "      fix: p2pmap link del 0000:01:00.0 0000:81:00.0; p2pmap config save" &&
	[ "$(grep -c '^fail  pve.vm.200.link: ' "$tmp/pve2.out")" = 2 ] &&
	has pve2 "warn  pve.ct.101.links: CT 101 \"sglang\": 3 of the 12 directions among its 4 GPUs have no link (0000:61:00.0 -> 0000:01:00.0, 0000:21:00.0 <-> 0000:41:00.0): its P2P there works only where the driver maps it"
r1=$?
has pve2 "      fix: p2pmap link add 0000:61:00.0 0000:01:00.0; p2pmap link add 0000:21:00.0 0000:41:00.0 --both" &&
	has pve2 "warn  gpu.0000:21:00.0.owner: 0000:21:00.0 is passed to CT 101 \"sglang\" (/dev/nvidia2 lxc.mount.entry), but the container's cgroup does not allow c 195:2: CUDA there cannot open it" &&
	has pve2 "ok    gpu.0000:01:00.0.owner: 0000:01:00.0 belongs to CT 101 \"sglang\" (/dev/nvidia0 dev0)" &&
	grep -q "^first blocking cause: pve.vm.200.link: " "$tmp/pve2.out"
tap $((r1 | $?)) "Proxmox findings: a VM's GPU on nvidia, links into it fail (blocking), the container's missing directions with the exact link add commands, a device its cgroup does not allow"
# Proxmox's files as they are (issue 36, item 7).  A pending hostpciN
# (qemu-server's [PENDING], applied when the VM next starts) naming a GPU
# in use: the container's 01:00.0, a linked 21:00.0 (taken from the
# container first); a pending one of the VM's own: nothing.
pve "$tmp/pp"
sed -i 's/^hostpci3: 0000:a1:00.0$/hostpci3: 0000:01:00.0\nhostpci4: 0000:21:00\nhostpci5: 0000:c1:00.0/' \
	"$tmp/pp/etc/pve/nodes/pve1/qemu-server/200.conf"
sed -i '/nvidia2 dev\/nvidia2/d' "$tmp/pp/etc/pve/nodes/pve1/lxc/101.conf"
run pp 0 --root "$tmp/pp" --unit vllm.service
has pp "warn  pve.vm.200.pending: VM 200 \"snp-vm\": its pending hostpci3 (applied when it next starts) names 0000:01:00.0, which CT 101 \"sglang\" has (/dev/nvidia0): qemu-server then binds it to vfio-pci, away from the host" &&
	has pp "      fix: qm set 200 --revert hostpci3 (unless the GPU is to move to the VM)" &&
	has pp "warn  pve.vm.200.pending: VM 200 \"snp-vm\": its pending hostpci4 (applied when it next starts) names 0000:21:00.0, which p2pmap links: qemu-server then binds it to vfio-pci, away from the host" &&
	[ "$(grep -c "^warn  pve.vm.200.pending:" "$tmp/pp.out")" = 2 ] &&
	! grep -q "pending.*c1:00.0" "$tmp/pp.out"
tap $? "Proxmox: a VM's pending hostpciN naming a GPU a container has or p2pmap links: warned, with qm set --revert; one of the VM's own: nothing"
# A GPU named by the VM and the container: the VM's line is the fix, not
# the container's links.
pve "$tmp/both"
sed -i 's/^hostpci2: 0000:e1:00.0,pcie=1,x-vga=0$/hostpci2: 0000:01:00.0,pcie=1/' \
	"$tmp/both/etc/pve/nodes/pve1/qemu-server/200.conf"
run both 1 --root "$tmp/both" --unit vllm.service
has both "warn  gpu.0000:01:00.0.owner: 0000:01:00.0 is named by VM 200 \"snp-vm\" (SEV-SNP; hostpci2) and CT 101 \"sglang\" (/dev/nvidia0 dev0): one device, two guests (the VM takes it from the container when it starts)" &&
	has both "      fix: qm set 200 --delete hostpci2 if CT 101 keeps it (its links stay as they are), or take /dev/nvidia0 out of CT 101; delete no p2pmap link before that" &&
	grep -q "^fail  pve.vm.200.link: link 0000:01:00.0 -> 0000:21:00.0 touches 0000:01:00.0 of VM 200" "$tmp/both.out" &&
	has both "      fix: qm set 200 --delete hostpci2: CT 101 has 0000:01:00.0 too (/dev/nvidia0); only if the VM keeps it: p2pmap link del 0000:01:00.0 0000:21:00.0; p2pmap config save" &&
	! grep -q "^      fix: p2pmap link del 0000:01:00.0" "$tmp/both.out"
tap $? "Proxmox: a GPU named by a VM and a container: the first fix removes the VM's line, never the container's links"
# As a user other than root (pmxcfs: guest files root:www-data 0640), no
# guest is read: said, and no GPU called the host's.  Guests past 128
# (a fixed limit before): all read.
pve "$tmp/nr"
chmod 0640 "$tmp/nr"/etc/pve/nodes/pve1/qemu-server/*.conf "$tmp/nr"/etc/pve/nodes/pve1/lxc/*.conf
chmod -R a+rX "$tmp/nr" && chmod a+x "$tmp"
chmod 0640 "$tmp/nr"/etc/pve/nodes/pve1/qemu-server/*.conf "$tmp/nr"/etc/pve/nodes/pve1/lxc/*.conf
(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$p2pmap" doctor --root "$tmp/nr") >"$tmp/nr.out" 2>&1
has nr "warn  pve.guests: 2 of 2 guest configuration(s) in /etc/pve could not be read (Permission denied; pmxcfs gives them to root:www-data, 0640): which GPUs those guests have is not known, and no GPU is called the host's" &&
	has nr "      fix: run p2pmap doctor as root" &&
	! grep -q "is the host's" "$tmp/nr.out" &&
	grep -q "^skip  gpu.0000:01:00.0.owner: 0000:01:00.0: whose it is is not known (2 guest configuration(s) not read: pve.guests)" "$tmp/nr.out"
tap $? "Proxmox as non-root: the unreadable guest files said, no GPU called the host's"
pve "$tmp/many"
for i in $(seq 1000 1149); do
	put "$tmp/many/etc/pve/nodes/pve1/lxc/$i.conf" "hostname: ct$i"
done
run many 0 --root "$tmp/many" --unit vllm.service
grep -q "^ok    proxmox: Proxmox VE node pve1: 1 VM(s) and 151 container(s) in /etc/pve" "$tmp/many.out" &&
	has many "ok    gpu.0000:81:00.0.owner: 0000:81:00.0 belongs to VM 200 \"snp-vm\" (SEV-SNP; hostpci0), bound to vfio-pci"
tap $? "Proxmox: 152 guests, every one read (no fixed limit of 128)"
rm "$tmp/pve2/etc/pve/local"
run pve3 0 --root "$tmp/pve2" --unit vllm.service
has pve3 "skip  proxmox: /etc/pve exists but pmxcfs does not serve it (no /etc/pve/local): the guests' configuration was not read" &&
	! grep -q "owner" "$tmp/pve3.out"
tap $? "Proxmox: /etc/pve without pmxcfs: said, nothing judged from it"
# The container's device nodes (issue 36, item 2): besides /dev/nvidiaN,
# CUDA opens /dev/nvidiactl (195:255), /dev/nvidia-uvm and -tools (the
# dynamic major /proc/devices gives nvidia-uvm, here 511) and, with MIG
# capabilities, /dev/nvidia-caps (nvidia-caps's major, 510): each given
# and allowed, the fix naming every line to add.
ct101=etc/pve/nodes/pve1/lxc/101.conf
pve "$tmp/n"
sed -i '/c 511:\* rwm/d; /nvidia-uvm-tools/d' "$tmp/n/$ct101"
mkdir -p "$tmp/n/dev/nvidia-caps"
run n1 0 --root "$tmp/n"
has n1 "warn  pve.ct.101.nodes: CT 101 \"sglang\": CUDA there cannot start: /dev/nvidia-uvm not allowed, /dev/nvidia-uvm-tools neither given nor allowed, /dev/nvidia-caps neither given nor allowed (it opens /dev/nvidiactl 195:255, /dev/nvidia-uvm 511:0, /dev/nvidia-uvm-tools 511:1, /dev/nvidia-caps 510:*)" &&
	has n1 "      fix: add to /etc/pve/lxc/101.conf: lxc.cgroup2.devices.allow: c 511:* rwm; lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file; lxc.cgroup2.devices.allow: c 510:* rwm; lxc.mount.entry: /dev/nvidia-caps dev/nvidia-caps none bind,optional,create=dir"
tap $? "container nodes: nvidia-uvm's dynamic major (/proc/devices) not allowed, nvidia-uvm-tools and nvidia-caps not given: one warning, every line to add"
# doctor's old fix, c 195:N per GPU, leaves nvidiactl (195:255) denied.
pve "$tmp/n"
sed -i 's|^lxc.cgroup2.devices.allow: c 195:\* rwm$|lxc.cgroup2.devices.allow: c 195:2 rwm|' "$tmp/n/$ct101"
run n2 0 --root "$tmp/n"
has n2 "warn  pve.ct.101.nodes: CT 101 \"sglang\": CUDA there cannot start: /dev/nvidiactl not allowed (it opens /dev/nvidiactl 195:255, /dev/nvidia-uvm 511:0, /dev/nvidia-uvm-tools 511:1)" &&
	has n2 "      fix: add to /etc/pve/lxc/101.conf: lxc.cgroup2.devices.allow: c 195:* rwm" &&
	has n2 "warn  gpu.0000:61:00.0.owner: 0000:61:00.0 is passed to CT 101 \"sglang\" (/dev/nvidia3 lxc.mount.entry), but the container's cgroup does not allow c 195:3: CUDA there cannot open it" &&
	has n2 "      fix: lxc.cgroup2.devices.allow: c 195:* rwm in /etc/pve/lxc/101.conf (its GPUs and /dev/nvidiactl, 195:255; or pass it as devN: /dev/nvidia3)" &&
	has n2 "ok    gpu.0000:21:00.0.owner: 0000:21:00.0 belongs to CT 101 \"sglang\" (/dev/nvidia2 lxc.mount.entry)"
tap $? "container nodes: c 195:N allows that GPU but not nvidiactl; the fix allows c 195:* (the GPUs and nvidiactl)"
grep -v nvidia-uvm "$tmp/n/proc/devices" >"$tmp/n/devices" && mv "$tmp/n/devices" "$tmp/n/proc/devices"
run n3 0 --root "$tmp/n"
has n3 "warn  pve.ct.101.nodes: CT 101 \"sglang\": nvidia-uvm is not loaded on the host (no nvidia-uvm in /proc/devices): CUDA there needs /dev/nvidia-uvm, and a container cannot load it"
tap $? "container nodes: nvidia-uvm not loaded on the host (its major unknown): said, with the fix"
# Documentation/proxmox.md's container block as written: CT 101 given
# exactly its lines (at least 7: fewer, none found say, fails).
pve "$tmp/n"
sed -n '/^2\. \*\*The container.s configuration/,/^3\. /p' "$pve_doc" |
	sed -n 's/^        \(\(dev[0-9]\|lxc\.\).*\)/\1/p' >"$tmp/readme-ct.txt"
{ printf 'arch: amd64\nhostname: sglang\nunprivileged: 1\n'; cat "$tmp/readme-ct.txt"; } >"$tmp/n/$ct101"
run n4 0 --root "$tmp/n"
[ "$(wc -l <"$tmp/readme-ct.txt")" -ge 7 ] &&
	[ "$(grep -c '^ok    gpu.0000:[0-6]1:00.0.owner: .* belongs to CT 101' "$tmp/n4.out")" = 4 ] &&
	grep -q '^ok    pve.ct.101.nodes: ' "$tmp/n4.out" && ! grep -q 'pve.ct.101.rule' "$tmp/n4.out"
tap $? "Documentation/proxmox.md's container block, as written ($(wc -l <"$tmp/readme-ct.txt") lines): every GPU and every node CUDA opens given and allowed"

# LXC's rules as LXC 6.0 applies them (item 3; cgfsng.c): the cgroup v1
# key is ignored on a cgroup2 host, and lxc.cgroup2 on a legacy one.
pve "$tmp/l"
sed -i 's|^lxc.cgroup2.devices.allow: c 195:\* rwm$|lxc.cgroup.devices.allow: c 195:* rwm|' "$tmp/l/$ct101"
run l1 0 --root "$tmp/l"
has l1 "warn  gpu.0000:21:00.0.owner: 0000:21:00.0 is passed to CT 101 \"sglang\" (/dev/nvidia2 lxc.mount.entry), but the container's cgroup does not allow c 195:2: CUDA there cannot open it" &&
	has l1 "warn  pve.ct.101.rule: CT 101 \"sglang\": \"lxc.cgroup.devices.allow: c 195:* rwm\" is not applied: the cgroup v1 key: LXC ignores it on a cgroup2 host, the default since Proxmox VE 7 (cgfsng_setup_limits_legacy: \"Ignoring legacy cgroup limits on pure cgroup2 system\")" &&
	has l1 "      fix: lxc.cgroup2.devices.allow: c 195:* rwm in /etc/pve/lxc/101.conf instead" &&
	grep -q '^warn  pve.ct.101.nodes: .*/dev/nvidiactl not allowed' "$tmp/l1.out"
tap $? "LXC keys: lxc.cgroup.devices.allow (cgroup v1) allows nothing on a cgroup2 host: said why, the cgroup2 line as the fix"
pve "$tmp/l"
rm "$tmp/l/sys/fs/cgroup/cgroup.controllers"
mkdir -p "$tmp/l/sys/fs/cgroup/devices"
run l2 0 --root "$tmp/l"
has l2 "warn  gpu.0000:21:00.0.owner: 0000:21:00.0 is passed to CT 101 \"sglang\" (/dev/nvidia2 lxc.mount.entry), but the container's cgroup does not allow c 195:2: CUDA there cannot open it" &&
	has l2 "      fix: lxc.cgroup.devices.allow: c 195:* rwm in /etc/pve/lxc/101.conf (its GPUs and /dev/nvidiactl, 195:255; or pass it as devN: /dev/nvidia2)" &&
	grep -q '^warn  pve.ct.101.rule: CT 101 "sglang": "lxc.cgroup2.devices.allow: c 195:\* rwm" is not applied: LXC applies lxc.cgroup2.\* only on a pure cgroup2 host' "$tmp/l2.out"
tap $? "LXC keys: on a legacy (cgroup v1) host lxc.cgroup2 is ignored, the fix uses lxc.cgroup.devices.allow"
# The path form: LXC stat()s the path into type, major and minor
# (device_cgroup_rule_parse_devpath), an access after it required.
pve "$tmp/l"
sed -i '/^lxc.cgroup2.devices.allow: c /d; /^unprivileged: 1$/a\
lxc.cgroup2.devices.allow: /dev/nvidia2 rwm\
lxc.cgroup2.devices.allow: /dev/nvidia3 rw\
lxc.cgroup2.devices.allow: /dev/nvidiactl rwm\
lxc.cgroup2.devices.allow: /dev/nvidia-uvm rwm\
lxc.cgroup2.devices.allow: /dev/nvidia-uvm-tools rwm' "$tmp/l/$ct101"
run l3 0 --root "$tmp/l"
has l3 "ok    gpu.0000:21:00.0.owner: 0000:21:00.0 belongs to CT 101 \"sglang\" (/dev/nvidia2 lxc.mount.entry)" &&
	has l3 "ok    gpu.0000:61:00.0.owner: 0000:61:00.0 belongs to CT 101 \"sglang\" (/dev/nvidia3 lxc.mount.entry)" &&
	grep -q '^ok    pve.ct.101.nodes: ' "$tmp/l3.out" && ! grep -q 'pve.ct.101.rule' "$tmp/l3.out"
tap $? "LXC keys: the path form \"/dev/nvidia2 rwm\" allows that node (stat()ed, NVIDIA's numbers under --root)"
sed -i 's|^lxc.cgroup2.devices.allow: /dev/nvidia3 rw$|lxc.cgroup2.devices.allow: /dev/nvidia3|; s|^lxc.cgroup2.devices.allow: /dev/nvidiactl rwm$|lxc.cgroup2.devices.allow: c  195:255 rwm|' "$tmp/l/$ct101"
run l4 0 --root "$tmp/l"
has l4 "warn  pve.ct.101.rule: CT 101 \"sglang\": \"lxc.cgroup2.devices.allow: /dev/nvidia3\" is not applied: LXC refuses it: a path needs its access after it (\"/dev/nvidia0 rwm\"; device_cgroup_rule_parse_devpath), so the container does not start" &&
	has l4 "      fix: lxc.cgroup2.devices.allow: /dev/nvidia3 rwm in /etc/pve/lxc/101.conf" &&
	has l4 "warn  pve.ct.101.rule: CT 101 \"sglang\": \"lxc.cgroup2.devices.allow: c  195:255 rwm\" is not applied: LXC refuses it: not \"a\" or \"TYPE MAJOR:MINOR ACCESS\" with single spaces (device_cgroup_rule_parse), so the container does not start" &&
	grep -q '^warn  gpu.0000:61:00.0.owner: .*does not allow c 195:3' "$tmp/l4.out"
tap $? "LXC keys: a path without its access and a rule with two spaces are refused by LXC (the container does not start): each said, with its fix"

# A stopped VM's GPUs (item 4): VM 200 stopped, its four GPUs on nvidia
# (qemu-server binds them to vfio-pci at start: pve-common SysFSTools.pm).
# Never proposed for a link (link add, link auto, a fault's fix); the fix
# for each is per device (driver_override), never vfio-pci ids=.
pve "$tmp/vs"
for a in $node1; do
	g=$(readlink -f "$tmp/vs/sys/bus/pci/devices/$a")
	rm "$g/driver"
	ln -s ../../../../bus/pci/drivers/nvidia "$g/driver"
done
printf '%s\n' "[   12.000000] nvidia 0000:a1:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000f address=0xe6000040 flags=0x0020]" >"$tmp/vs.dmesg"
run vs 0 --root "$tmp/vs" --dmesg "$tmp/vs.dmesg"
has vs "warn  gpu.0000:81:00.0.owner: 0000:81:00.0 belongs to VM 200 \"snp-vm\" (SEV-SNP; hostpci0) but is bound to nvidia, not vfio-pci: the host uses a GPU its VM takes when it starts" &&
	has vs "      fix: with nothing on the host using it: echo vfio-pci > /sys/bus/pci/devices/0000:81:00.0/driver_override; echo 0000:81:00.0 > /sys/bus/pci/devices/0000:81:00.0/driver/unbind; echo 0000:81:00.0 > /sys/bus/pci/drivers_probe (this device only, as qemu-server does when VM 200 starts; never vfio-pci ids=, which takes every GPU of its ID); or remove hostpci0 from VM 200" &&
	[ "$(grep -c '^warn  gpu\..*\.owner: .* belongs to VM 200 .* but is bound to nvidia' "$tmp/vs.out")" = 4 ] &&
	grep -q '^warn  log.0000:a1:00.0>0000:c1:00.0: ' "$tmp/vs.out" &&
	! grep -q 'link auto\|link add .*0000:\(81\|a1\|c1\|e1\)\|link\.[^ ]*0000:\(81\|a1\|c1\|e1\)\|vfio-pci ids= in' "$tmp/vs.out"
tap $? "a stopped VM's GPUs on nvidia: never a link (no link check, link add or link auto for them, not for a fault either); per-device driver_override as the fix"
g=$(readlink -f "$tmp/vs/sys/bus/pci/devices/0000:81:00.0")
put "$g/numa_node" 0
rm -r "$tmp/vs/sys/kernel/p2pmap/links/0000:01:00.0-0000:21:00.0"
run vs2 0 --root "$tmp/vs"
has vs2 "      fix: p2pmap link add 0000:01:00.0 0000:21:00.0" && ! grep -q 'link auto' "$tmp/vs2.out"
tap $? "a stopped VM's GPU on NUMA node 0: a missing node-0 direction's fix is link add alone (link auto --numa 0 would link the VM's GPU)"
P2PMAP_NVIDIA_SMI=$tmp/pve/nvidia-smi run json-pve 0 --root "$tmp/pve" --json &&
	python3 - "$tmp/json-pve.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
o = {x["address"]: x for x in d["owners"]}
assert len(d["owners"]) == 8, d["owners"]
assert o["0000:21:00.0"] == {"address": "0000:21:00.0", "owner": "ct", "id": 101, "name": "sglang", "sev": None, "via": "/dev/nvidia2 lxc.mount.entry"}, o["0000:21:00.0"]
assert o["0000:a1:00.0"] == {"address": "0000:a1:00.0", "owner": "vm", "id": 200, "name": "snp-vm", "sev": "snp", "via": "hostpci1 mapping node1-gpus"}, o["0000:a1:00.0"]
PY
tap $? "Proxmox: --json carries each GPU's owner (CT, VM with SEV-SNP and the line that names it)"
before "$tmp/pt" identity iommu=pt
P2PMAP_NVIDIA_SMI=$tmp/pt/nvidia-smi run pt 1 --root "$tmp/pt" --unit vllm.service && whole pt
tap $? "an iommu=pt host with SEV-SNP: identity groups, the first blocking cause is SEV-SNP against iommu=pt (whole output)"

switch "$tmp/sw"
run sw 1 --root "$tmp/sw" && whole sw
tap $? "an Intel host whose GPUs share a PCIe switch, ACS off: PIX, their P2P never reaches the IOMMU, the port named (whole output)"
switch "$tmp/sw2" 0x1d
run sw2 1 --root "$tmp/sw2"
grep -q "^ok    path.0000:03:00.0~0000:04:00.0: PIX: one PCIe switch whose ports redirect peer requests upstream (ACS ReqRedir+ CmpltRedir+)" "$tmp/sw2.out"
tap $? "... with ACS ReqRedir and CmpltRedir on its downstream ports (read through libpci): their P2P reaches the IOMMU"

# One link pending, one with faults: each a blocking failure, named.
after "$tmp/a2"
put "$tmp/a2/sys/kernel/p2pmap/links/0000:21:00.0-0000:41:00.0/state" pending
put "$tmp/a2/sys/kernel/p2pmap/links/0000:21:00.0-0000:41:00.0/reason" "target not bound"
put "$tmp/a2/sys/kernel/p2pmap/links/0000:61:00.0-0000:01:00.0/faults" 7
run a2 1 --root "$tmp/a2" --unit vllm.service
has a2 "fail  link.0000:21:00.0>0000:41:00.0: link 0000:21:00.0 -> 0000:41:00.0 is pending: target not bound" &&
	has a2 "fail  link.0000:61:00.0>0000:01:00.0: link 0000:61:00.0 -> 0000:01:00.0 is mapped but counted 7 fault(s)" &&
	has a2 "first blocking cause: link.0000:21:00.0>0000:41:00.0: link 0000:21:00.0 -> 0000:41:00.0 is pending: target not bound; fix: p2pmap status"
tap $? "a pending link and a faulting one: both fail, the first in the chain is the blocking cause"
# SME (mem_encrypt=on) on a kernel whose AMD page table sets the C-bit on
# MMIO PTEs: the module maps nothing, a blocking failure; without the
# module, the command line's mem_encrypt=on is a warning.
after "$tmp/sme"
put "$tmp/sme/sys/kernel/p2pmap/sme" refused
run sme 1 --root "$tmp/sme" --unit vllm.service
has sme "fail  cc.sme: SME is active (mem_encrypt=on) and this kernel's AMD IOMMU page table sets the C-bit on MMIO PTEs: p2pmap maps no peer BAR" &&
	grep -q "^first blocking cause: cc.sme: " "$tmp/sme.out"
tap $? "SME refused by the module: cc.sme fails and is the first blocking cause"
before "$tmp/smecl"
put "$tmp/smecl/proc/cmdline" "BOOT_IMAGE=/vmlinuz root=/dev/sda1 mem_encrypt=on"
run smecl 1 --root "$tmp/smecl" --unit vllm.service
has smecl "warn  cc.sme: mem_encrypt=on: with SME active, kernels before 6.19.4 set the C-bit on MMIO PTEs and p2pmap refuses to map (load p2pmap: /sys/kernel/p2pmap/sme says which)"
tap $? "mem_encrypt=on without the module: cc.sme warns"

# The target left its driver (unbound): its links are still judged.
rm "$tmp/a2/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/driver"
put "$tmp/a2/sys/kernel/p2pmap/links/0000:01:00.0-0000:41:00.0/state" blocked
put "$tmp/a2/sys/kernel/p2pmap/links/0000:01:00.0-0000:41:00.0/reason" "target not admitted"
run a2u 1 --root "$tmp/a2" --unit vllm.service
has a2u "fail  link.0000:21:00.0>0000:41:00.0: link 0000:21:00.0 -> 0000:41:00.0 is pending: target not bound" &&
	has a2u "warn  link.0000:01:00.0>0000:41:00.0: link 0000:01:00.0 -> 0000:41:00.0 is blocked: target not admitted" &&
	has a2u "warn  gpu.0000:41:00.0.driver: 0000:41:00.0 (NUMA node 0) is bound to no driver"
tap $? "a GPU that left its driver: its links still judged (pending fails, blocked warns)"
ln -s ../../../../bus/pci/drivers/nvidia "$tmp/a2/sys/devices/pci0000:40/0000:40:01.1/0000:41:00.0/driver"
rm -r "$tmp/a2/sys/kernel/p2pmap/links/0000:41:00.0-0000:61:00.0"
run a3 1 --root "$tmp/a2"
grep -qF "warn  link.0000:41:00.0>0000:61:00.0: no link 0000:41:00.0 -> 0000:61:00.0 (same NUMA node 0)" "$tmp/a3.out" &&
	grep -qF "fix: p2pmap link add 0000:41:00.0 0000:61:00.0 (or p2pmap link auto --numa 0)" "$tmp/a3.out" &&
	! grep -q "0000:81:00.0>\|>0000:81:00.0" "$tmp/a3.out"
tap $? "a missing node-0 direction is a warning with its fix; the vfio-pci GPUs need no link"

# The BARs: a GPU whose extended configuration space cannot be read (as
# without root: libpci reads all ones past 64 bytes), one without the
# Resizable BAR capability, and BAR1 smaller than the VRAM (an 80 GB GPU's
# nvidia-smi).
after "$tmp/b"
b0=$tmp/b/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0
b2=$tmp/b/sys/devices/pci0000:20/0000:20:01.1/0000:21:00.0
cfg() {	# cfg FILE OFFSET BYTE: bytes OFFSET..4095 of FILE set to BYTE
	python3 -c 'import sys; c = bytearray(open(sys.argv[1], "rb").read()); o = int(sys.argv[2], 0); c[o:] = bytes([int(sys.argv[3], 0)]) * (4096 - o); open(sys.argv[1], "wb").write(c)' "$@"
}
cfg "$b0/config" 0x40 0xff
cfg "$b2/config" 0x100 0
smi "$tmp/b" 81559 32768 $node0
P2PMAP_NVIDIA_SMI=$tmp/b/nvidia-smi run b 0 --root "$tmp/b"
has b "skip  gpu.0000:01:00.0.rebar: the extended configuration space of 0000:01:00.0 cannot be read: Resizable BAR not checked" &&
	has b "      fix: run as root (the capability sits in the extended configuration space)" &&
	has b "ok    gpu.0000:21:00.0.rebar: no Resizable BAR capability: the BAR sizes are the device's own" &&
	has b "ok    gpu.0000:41:00.0.rebar: Resizable BAR: BAR1 32 GiB, the largest supported (64 MiB to 32 GiB)" &&
	has b "warn  gpu.0000:61:00.0.bar1: BAR1 32 GiB is smaller than the VRAM (nvidia-smi: FB 81559 MiB, BAR1 32768 MiB): NVIDIA maps the memory a peer reaches into BAR1, so P2P buffers must fit in it" &&
	[ "$(grep -c '^warn  gpu\..*\.bar1: ' "$tmp/b.out")" = 4 ]
tap $? "BARs: an unreadable extended space skips ReBAR (fix: root), no capability is said, BAR1 below the VRAM warns for each nvidia GPU"
P2PMAP_NVIDIA_SMI=$tmp/none/nvidia-smi run b2 0 --root "$tmp/b"
has b2 "skip  nvidia.vram: BAR1 against the VRAM not checked: $tmp/none/nvidia-smi cannot be run (not installed?)" &&
	! grep -q '\.bar1: ' "$tmp/b2.out"
tap $? "BARs: no nvidia-smi to run: one skip, said why, no bar1 verdicts"
run b3 0 --root "$tmp/b"
has b3 "skip  nvidia.vram: BAR1 against the VRAM not checked: nvidia-smi is not run for another host's files (--root); P2PMAP_NVIDIA_SMI names a command that prints its nvidia-smi -q -d MEMORY"
tap $? "BARs: under --root, this host's nvidia-smi is never run for the copy"

# p2pmap itself: another module version loaded; DKMS without the running
# kernel, then with only another version for it.
after "$tmp/m"
put "$tmp/m/sys/kernel/p2pmap/version" 0.0.9
put "$tmp/m/proc/sys/kernel/osrelease" 6.12.60+deb13-amd64
run m 0 --root "$tmp/m"
has m "warn  p2pmap.version: the loaded module is p2pmap 0.0.9 (/sys/kernel/p2pmap/version), the CLI $version: a module loaded before an upgrade, or from another build" &&
	has m "warn  p2pmap.dkms: DKMS p2pmap $version built for 6.12.48+deb13-amd64, 6.12.57+deb13-amd64: the running kernel 6.12.60+deb13-amd64 is not among them (modprobe p2pmap finds no module for it)" &&
	has m "      fix: apt install linux-headers-6.12.60+deb13-amd64 (and linux-headers-amd64, for the kernels to come), then dkms install p2pmap/$version -k 6.12.60+deb13-amd64 (the running kernel's headers are not installed: no /lib/modules/6.12.60+deb13-amd64/build)"
tap $? "p2pmap: the module's version against the CLI's, the running kernel not among DKMS's builds (fix named: its headers package first)"
# A Proxmox VE kernel: its headers are proxmox-headers-REL; with them
# installed, only the DKMS build is left to do.
put "$tmp/m/proc/sys/kernel/osrelease" 6.8.12-4-pve
run m1 0 --root "$tmp/m"
has m1 "      fix: apt install proxmox-headers-6.8.12-4-pve (and proxmox-default-headers, for the kernels to come; pve-headers-6.8.12-4-pve before Proxmox VE 8), then dkms install p2pmap/$version -k 6.8.12-4-pve (the running kernel's headers are not installed: no /lib/modules/6.8.12-4-pve/build)" &&
	mkdir -p "$tmp/m/lib/modules/6.8.12-4-pve/build" && run m1b 0 --root "$tmp/m" &&
	has m1b "      fix: dkms install p2pmap/$version -k 6.8.12-4-pve (with that kernel's headers: apt install proxmox-headers-6.8.12-4-pve (and proxmox-default-headers, for the kernels to come; pve-headers-6.8.12-4-pve before Proxmox VE 8); or make install in p2pmap's source tree)"
tap $? "p2pmap on a Proxmox VE kernel: DKMS's fix names proxmox-headers-REL (and proxmox-default-headers)"
put "$tmp/m/proc/sys/kernel/osrelease" 6.12.60+deb13-amd64
dkms "$tmp/m" 0.0.9 6.12.60+deb13-amd64
rm "$tmp/m/sys/kernel/p2pmap/version"
run m2 0 --root "$tmp/m"
has m2 "warn  p2pmap.dkms: DKMS p2pmap 0.0.9 built for 6.12.60+deb13-amd64; $version built for 6.12.48+deb13-amd64, 6.12.57+deb13-amd64: the running kernel 6.12.60+deb13-amd64 has another version built, not the CLI's $version" &&
	has m2 "ok    p2pmap.version: the loaded module is p2pmap $version (/sys/module/p2pmap/version), as the CLI"
tap $? "p2pmap: DKMS built another version for the running kernel; the version from /sys/module without /sys/kernel's"

# Kernel upgrades (issue 36, item 5): every installed kernel (its
# /lib/modules/KVER and /boot/vmlinuz-KVER) and the next boot's:
# proxmox-boot-tool's pins (proxmox-kernel-helper), GRUB's entry, else
# the newest installed kernel (GRUB's first entry), said as assumed.
after "$tmp/k"
run k0 0 --root "$tmp/k"
has k0 "ok    p2pmap.dkms.next: the next boot's kernel 6.12.57+deb13-amd64 (assumed: the newest installed, GRUB's first entry and systemd-boot's default) has p2pmap $version built by DKMS" &&
	has k0 "ok    p2pmap.dkms.kernels: every installed kernel (6.12.57+deb13-amd64, 6.12.48+deb13-amd64) has p2pmap $version built by DKMS, or is judged above"
tap $? "kernels: the newest installed kernel (the next boot's, assumed) and the older one have p2pmap built: ok"
kernel "$tmp/k" 6.12.63+deb13-amd64
run k1 0 --root "$tmp/k"
has k1 "warn  p2pmap.dkms.next: the next boot's kernel 6.12.63+deb13-amd64 (assumed: the newest installed, GRUB's first entry and systemd-boot's default) has no p2pmap $version built by DKMS: after the reboot nvidia binds without p2pmap, and modprobe p2pmap finds no module" &&
	has k1 "      fix: apt install linux-headers-6.12.63+deb13-amd64 (and linux-headers-amd64, for the kernels to come), then dkms install p2pmap/$version -k 6.12.63+deb13-amd64, before the reboot (no /lib/modules/6.12.63+deb13-amd64/build: its headers are not installed)" &&
	grep -q '^ok    p2pmap.dkms: ' "$tmp/k1.out"
tap $? "kernels: a newer kernel installed without p2pmap built: the next boot's, named, with its headers and dkms install before the reboot"
kernel "$tmp/k" 6.12.41+deb13-amd64
mkdir -p "$tmp/k/lib/modules/6.12.63+deb13-amd64/build"
put "$tmp/k/etc/default/grub" 'GRUB_DEFAULT="1>2"'
run k2 0 --root "$tmp/k"
has k2 "warn  p2pmap.dkms.next: the next boot's kernel 6.12.63+deb13-amd64 (assumed: the newest installed, GRUB's first entry and systemd-boot's default; GRUB_DEFAULT=1>2 may choose another) has no p2pmap $version built by DKMS: after the reboot nvidia binds without p2pmap, and modprobe p2pmap finds no module" &&
	has k2 "      fix: dkms install p2pmap/$version -k 6.12.63+deb13-amd64, before the reboot" &&
	has k2 "warn  p2pmap.dkms.kernels: installed kernels without p2pmap $version built by DKMS: 6.12.41+deb13-amd64 (booting one, from the boot menu or after a pin, starts the GPUs without p2pmap)" &&
	has k2 "      fix: dkms install p2pmap/$version -k 6.12.41+deb13-amd64"
tap $? "kernels: an older installed kernel without p2pmap named apart; a GRUB_DEFAULT naming no kernel said with the assumption"
# grub-reboot's: GRUB's environment block, padded with '#'.
put "$tmp/k/boot/grub/grubenv" "# GRUB Environment Block
next_entry=gnulinux-advanced-4f1e>gnulinux-6.12.57+deb13-amd64-advanced-4f1e
################"
run k3 0 --root "$tmp/k"
has k3 "ok    p2pmap.dkms.next: the next boot's kernel 6.12.57+deb13-amd64 (/boot/grub/grubenv next_entry) has p2pmap $version built by DKMS" &&
	has k3 "warn  p2pmap.dkms.kernels: installed kernels without p2pmap $version built by DKMS: 6.12.63+deb13-amd64, 6.12.41+deb13-amd64 (booting one, from the boot menu or after a pin, starts the GPUs without p2pmap)" &&
	has k3 "      fix: dkms install p2pmap/$version -k 6.12.63+deb13-amd64; dkms install p2pmap/$version -k 6.12.41+deb13-amd64"
tap $? "kernels: grub-reboot's next_entry names the next boot's kernel; the others without p2pmap listed"
# Proxmox VE: "proxmox-boot-tool kernel pin 6.5.13-6-pve" (an older
# kernel, no p2pmap built for it), then a next-boot pin, which wins.
after "$tmp/kp"
rm -r "$tmp/kp/var/lib/dkms/p2pmap" "$tmp/kp/boot" "$tmp/kp/lib/modules"
put "$tmp/kp/proc/sys/kernel/osrelease" 6.8.12-4-pve
dkms "$tmp/kp" "$version" 6.8.12-4-pve 6.14.8-2-pve
for k in 6.5.13-6-pve 6.8.12-4-pve 6.14.8-2-pve; do kernel "$tmp/kp" $k; done
put "$tmp/kp/etc/kernel/proxmox-boot-pin" 6.5.13-6-pve
run kp 0 --root "$tmp/kp"
has kp "warn  p2pmap.dkms.next: the next boot's kernel 6.5.13-6-pve (/etc/kernel/proxmox-boot-pin: proxmox-boot-tool kernel pin) has no p2pmap $version built by DKMS: after the reboot nvidia binds without p2pmap, and modprobe p2pmap finds no module" &&
	has kp "      fix: apt install proxmox-headers-6.5.13-6-pve (and proxmox-default-headers, for the kernels to come; pve-headers-6.5.13-6-pve before Proxmox VE 8), then dkms install p2pmap/$version -k 6.5.13-6-pve, before the reboot (no /lib/modules/6.5.13-6-pve/build: its headers are not installed)" &&
	has kp "ok    p2pmap.dkms.kernels: every installed kernel (6.14.8-2-pve, 6.8.12-4-pve, 6.5.13-6-pve) has p2pmap $version built by DKMS, or is judged above"
tap $? "kernels on Proxmox VE: the next boot pinned by proxmox-boot-tool to a kernel without p2pmap: warned, named, proxmox-headers in the fix"
put "$tmp/kp/etc/kernel/next-boot-pin" 6.14.8-2-pve
run kp2 0 --root "$tmp/kp"
has kp2 "ok    p2pmap.dkms.next: the next boot's kernel 6.14.8-2-pve (/etc/kernel/next-boot-pin: proxmox-boot-tool kernel pin --next-boot) has p2pmap $version built by DKMS" &&
	has kp2 "warn  p2pmap.dkms.kernels: installed kernels without p2pmap $version built by DKMS: 6.5.13-6-pve (booting one, from the boot menu or after a pin, starts the GPUs without p2pmap)"
tap $? "kernels on Proxmox VE: a next-boot pin wins over the pin (proxmox-boot-tool's order); the pinned kernel without p2pmap still named"
# Not loaded: modprobe p2pmap is a late load (the GPUs' driver bound
# already): the fix says to bind it again, or reboot.
before "$tmp/late"
run late 1 --root "$tmp/late"
has late "      fix: modprobe p2pmap (installed with make install or the p2pmap-dkms package; built by DKMS for the running kernel: p2pmap.dkms), then bind nvidia again, as links map when it binds: stop the server or container using the GPUs and reload nvidia (modprobe -r nvidia and the modules using it, then modprobe nvidia), or reboot"
tap $? "p2pmap not loaded: the fix says a late load needs nvidia bound again (or a reboot), and a DKMS build for the running kernel"

# Secure Boot (issue 36, item 6): the SecureBoot EFI variable (4
# attribute bytes, 1 data byte), lockdown, module.sig_enforce; DKMS's
# certificate (DKMS 3.x: /var/lib/dkms/mok.pub, DER) among the kernel's
# keys (/proc/keys: "SUBJECT: SKID").
efivar() {	# efivar DIR BYTE
	mkdir -p "$1/sys/firmware/efi/efivars"
	printf "\\x06\\x00\\x00\\x00\\x0$2" \
		>"$1/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
}
after "$tmp/s"
run s0 0 --root "$tmp/s"
has s0 "ok    p2pmap.secureboot: no Secure Boot (booted without UEFI: no /sys/firmware/efi); lockdown unread, module.sig_enforce unread: the kernel loads p2pmap unsigned"
tap $? "Secure Boot: booted without UEFI: ok"
efivar "$tmp/s" 0
put "$tmp/s/sys/kernel/security/lockdown" "[none] integrity confidentiality"
put "$tmp/s/sys/module/module/parameters/sig_enforce" N
run s1 0 --root "$tmp/s"
has s1 "ok    p2pmap.secureboot: Secure Boot is off (the SecureBoot EFI variable: 0); lockdown none, module.sig_enforce N: the kernel loads p2pmap unsigned"
tap $? "Secure Boot off, no lockdown: ok"
efivar "$tmp/s" 1
put "$tmp/s/sys/kernel/security/lockdown" "none [integrity] confidentiality"
run s2 0 --root "$tmp/s"
has s2 "warn  p2pmap.secureboot: Secure Boot is on (the SecureBoot EFI variable: 1); lockdown integrity, module.sig_enforce N: the kernel loads only signed modules, and DKMS has no signing certificate (/var/lib/dkms/mok.pub): the p2pmap it built is unsigned and refused"
tap $? "Secure Boot on, lockdown integrity, DKMS without a key: warned"
if ! command -v openssl >/dev/null; then
	tap_skip "Secure Boot on: DKMS's key not enrolled, then enrolled" "no openssl"
else
	# As DKMS's prepare_mok() makes it.
	openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key" \
		-newkey rsa:2048 -keyout "$tmp/s/var/lib/dkms/mok.key" \
		-addext "extendedKeyUsage=codeSigning" \
		-outform DER -out "$tmp/s/var/lib/dkms/mok.pub" >/dev/null 2>&1
	skid=$(openssl x509 -inform DER -in "$tmp/s/var/lib/dkms/mok.pub" -noout -ext subjectKeyIdentifier |
		tail -1 | tr -d ' :' | tr A-F a-f)
	put "$tmp/s/proc/keys" "0c5bd8a2 I------     1 perm 1f030000     0     0 asymmetri Debian Secure Boot CA: 6ccece7e4c6c0d1f6149f3dd27dfcc5cbb419ea1: X509.rsa 4c6c0d1f []
2f3b7a01 I------     1 perm 1f030000     0     0 asymmetri Debian Secure Boot Signer 2022 - linux: 8a4a5d2b36e5e9f4d8f3b0e2c1a9d7e6f5b4a3c2: X509.rsa f5b4a3c2 []
1a7f3e22 I--Q---     1 perm 1f3f0000     0 65534 keyring   .platform: 2"
	run s3 0 --root "$tmp/s"
	has s3 "warn  p2pmap.secureboot: Secure Boot is on (the SecureBoot EFI variable: 1); lockdown integrity, module.sig_enforce N: the kernel loads only modules signed by a key it trusts, and /var/lib/dkms/mok.pub (key identifier $skid) is not among /proc/keys: modprobe p2pmap is refused (\"Key was rejected by service\")" &&
		has s3 "      fix: mokutil --import /var/lib/dkms/mok.pub (it asks a one-time password), reboot, and in the MOK manager choose Enroll MOK with that password"
	tap $? "Secure Boot on: DKMS's key not enrolled (not among the kernel's keys): warned, with the mokutil steps"
	printf '%s\n' "3d9e8f10 I------     1 perm 1f030000     0     0 asymmetri DKMS module signing key: $skid: X509.rsa ${skid:32:8} []" >>"$tmp/s/proc/keys"
	run s4 0 --root "$tmp/s"
	has s4 "ok    p2pmap.secureboot: Secure Boot is on (the SecureBoot EFI variable: 1); lockdown integrity, module.sig_enforce N: the kernel holds DKMS's key /var/lib/dkms/mok.pub (/proc/keys: \"DKMS module signing key: $skid\"), so it loads the p2pmap DKMS signs"
	tap $? "Secure Boot on: DKMS's key enrolled (the kernel holds it): ok"
fi

# The saved configuration against the live links: one live link not
# saved, one saved link not live; then the softdep and the initramfs.
after "$tmp/c"
sed -i 's/,0000:61:00.0>0000:41:00.0//' "$tmp/c/etc/modprobe.d/p2pmap.conf"
rm -r "$tmp/c/sys/kernel/p2pmap/links/0000:01:00.0-0000:21:00.0"
sed -i '/^softdep/d' "$tmp/c/etc/modprobe.d/p2pmap.conf"
run c 0 --root "$tmp/c"
has c "warn  p2pmap.saved.0000:61:00.0>0000:41:00.0: link 0000:61:00.0 -> 0000:41:00.0 is live but not saved in /etc/modprobe.d/p2pmap.conf: it is lost at the next boot" &&
	has c "warn  p2pmap.saved.0000:01:00.0>0000:21:00.0: link 0000:01:00.0 -> 0000:21:00.0 is saved in /etc/modprobe.d/p2pmap.conf (line 3) but not live: removed since, or the module was loaded without it" &&
	has c "      fix: p2pmap config apply (or p2pmap config save, if its removal was meant)" &&
	[ "$(grep -c '^warn  p2pmap\.saved\.' "$tmp/c.out")" = 2 ] &&
	has c "warn  p2pmap.softdep: no \"softdep nvidia pre: p2pmap\" in modprobe.d: at boot nvidia can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)" &&
	has c "warn  p2pmap.initramfs: p2pmap is in the initramfs (/etc/initramfs-tools/modules), and /etc/modprobe.d/p2pmap.conf ($(date -u -r "$tmp/c/etc/modprobe.d/p2pmap.conf" '+%Y-%m-%d %H:%M UTC')) is newer than /boot/initrd.img-6.12.57+deb13-amd64 (2026-11-30 10:05 UTC): at boot p2pmap loads with the configuration before it" &&
	has c "      fix: update-initramfs -u"
tap $? "the saved links against the live ones (each named), no softdep, the modprobe.d file newer than the initramfs"
put "$tmp/c/etc/modprobe.d/nvidia.conf" "softdep nvidia post: p2pmap"
run c2 0 --root "$tmp/c"
has c2 "warn  p2pmap.softdep: no \"softdep nvidia pre: p2pmap\" in modprobe.d: at boot nvidia can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)"
tap $? "softdep: p2pmap after nvidia (post:) is not before it"
put "$tmp/c/usr/lib/modprobe.d/p2pmap-nvidia.conf" "softdep nvidia pre: nvidia-peermem p2pmap post: x"
printf 'nvidia\n' >"$tmp/c/etc/initramfs-tools/modules"
run c3 0 --root "$tmp/c"
has c3 "warn  p2pmap.softdep: kmod uses only the first softdep line for nvidia it reads, \"softdep nvidia post: p2pmap\" (/etc/modprobe.d/nvidia.conf line 1), and ignores \"softdep nvidia pre: nvidia-peermem p2pmap post: x\" (/usr/lib/modprobe.d/p2pmap-nvidia.conf line 1): at boot nvidia can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)" &&
	has c3 "warn  p2pmap.initramfs: nvidia is loaded from the initramfs (/etc/initramfs-tools/modules) and p2pmap is not: nvidia probes before p2pmap can reserve the peers' windows" &&
	has c3 "      fix: add p2pmap to /etc/initramfs-tools/modules, then update-initramfs -u"
tap $? "softdep: a line in /usr/lib/modprobe.d that loads p2pmap, hidden by nvidia.conf's (name order); nvidia in the initramfs without p2pmap"
rm "$tmp/c/etc/modprobe.d/nvidia.conf"
put "$tmp/c/usr/lib/modprobe.d/p2pmap-nvidia.conf" "softdep nvidia  pre: nvidia-peermem p2pmap post: x"
run c3b 0 --root "$tmp/c"
has c3b "warn  p2pmap.softdep: no \"softdep nvidia pre: p2pmap\" in modprobe.d: at boot nvidia can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)"
tap $? "softdep: two spaces after the module's name, and kmod reads no \"pre:\" (kmod_config_add_softdep()): not before it"
put "$tmp/c/usr/lib/modprobe.d/p2pmap-nvidia.conf" "softdep nvidia pre: nvidia-peermem p2pmap post: x"
run c3c 0 --root "$tmp/c"
has c3c "ok    p2pmap.softdep: \"softdep nvidia pre: nvidia-peermem p2pmap post: x\" (/usr/lib/modprobe.d/p2pmap-nvidia.conf line 1) is the first softdep line for nvidia that kmod reads, the only one it uses: modprobe loads p2pmap before nvidia, which then probes with the peers' windows reserved"
tap $? "softdep from /usr/lib/modprobe.d among other modules"

# Proxmox VE's admin guide (qm-pci-passthrough.adoc) has passthrough users
# write "softdep nvidia pre: vfio-pci" in /etc/modprobe.d/nvidia.conf: kmod
# reads it before p2pmap.conf and uses only the first softdep line.
after "$tmp/px"
put "$tmp/px/etc/modprobe.d/nvidia.conf" "softdep nvidia pre: vfio-pci"
run px 0 --root "$tmp/px"
has px "warn  p2pmap.softdep: kmod uses only the first softdep line for nvidia it reads, \"softdep nvidia pre: vfio-pci\" (/etc/modprobe.d/nvidia.conf line 1), and ignores \"softdep nvidia pre: p2pmap\" (/etc/modprobe.d/p2pmap.conf line 3): at boot nvidia can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)" &&
	has px "      fix: p2pmap config save (it writes /etc/modprobe.d/00-p2pmap-softdep.conf, which kmod reads first, with p2pmap and the modules of every softdep line for nvidia)"
tap $? "softdep as Proxmox VE's guide leaves it: nvidia.conf's line hides p2pmap.conf's, named with its fix"
# What "config save" writes then (tests/unit/test_config.c renders it).
put "$tmp/px/etc/modprobe.d/00-p2pmap-softdep.conf" "# Written by \"p2pmap config save\" on 2026-11-30T10:00:00Z. Loaded by modprobe.
# kmod uses only the first \"softdep DRIVER\" line it reads, and reads
# this file first (modprobe.d files go by name): each line loads p2pmap
# before the GPU driver and keeps the modules of the driver's other lines.
# kept from /etc/modprobe.d/nvidia.conf line 1: pre: vfio-pci
softdep nvidia pre: p2pmap vfio-pci"
run px2 0 --root "$tmp/px"
has px2 "ok    p2pmap.softdep: \"softdep nvidia pre: p2pmap vfio-pci\" (/etc/modprobe.d/00-p2pmap-softdep.conf line 6) is the first softdep line for nvidia that kmod reads, the only one it uses: modprobe loads p2pmap before nvidia, which then probes with the peers' windows reserved" &&
	has px2 "warn  p2pmap.initramfs: p2pmap is in the initramfs (/etc/initramfs-tools/modules), and /etc/modprobe.d/00-p2pmap-softdep.conf ($(date -u -r "$tmp/px/etc/modprobe.d/00-p2pmap-softdep.conf" '+%Y-%m-%d %H:%M UTC')) is newer than /boot/initrd.img-6.12.57+deb13-amd64 (2026-11-30 10:05 UTC): at boot p2pmap loads with the configuration before it"
tap $? "softdep: config save's merged line, read first, keeps vfio-pci: ok; the initramfs older than it"
put "$tmp/px/etc/modprobe.d/nvidia-install.conf" "install nvidia /sbin/modprobe nvidia-peermem; /sbin/modprobe --ignore-install nvidia"
run px2i 0 --root "$tmp/px"
has px2i "warn  p2pmap.softdep: \"softdep nvidia pre: p2pmap vfio-pci\" (/etc/modprobe.d/00-p2pmap-softdep.conf line 6) is the first softdep line for nvidia that kmod reads, and it loads p2pmap first; but kmod ignores the \"install nvidia\" command of /etc/modprobe.d/nvidia-install.conf line 1 while a softdep line with modules applies (it inserts nvidia itself)"
tap $? "softdep: an install command for the driver, which kmod ignores once a softdep line applies, named"
rm "$tmp/px/etc/modprobe.d/nvidia-install.conf"
put "$tmp/px/etc/modprobe.d/00-p2pmap-softdep.conf" "softdep nvidia pre: p2pmap"
put "$tmp/px/etc/modprobe.d/nvidia.conf" "softdep nvidia pre: vfio-pci post: nvidia_uvm"
run px3 0 --root "$tmp/px"
has px3 "warn  p2pmap.softdep: \"softdep nvidia pre: p2pmap\" (/etc/modprobe.d/00-p2pmap-softdep.conf line 1) is the softdep line kmod uses for nvidia, and it lacks what another line names: vfio-pci (/etc/modprobe.d/nvidia.conf line 1), nvidia_uvm (/etc/modprobe.d/nvidia.conf line 1); kmod ignores those lines, so at boot nvidia loads without them" &&
	has px3 "      fix: p2pmap config save (it merges the modules of every softdep line for nvidia into its own)"
tap $? "softdep: a stale merge (a module another line names, added since config save) named, with its fix"
put "$tmp/px/etc/modprobe.d/0-vfio.conf" "softdep nvidia pre: vfio-pci"
run px4 0 --root "$tmp/px"
has px4 "      fix: rename /etc/modprobe.d/0-vfio.conf to sort after 00-p2pmap-softdep.conf (kmod reads modprobe.d files by name), then p2pmap config save"
tap $? "softdep: a file that sorts before config save's own: rename it"
rm -r "$tmp/c/etc/initramfs-tools"
put "$tmp/c/etc/dracut.conf.d/p2pmap.conf" 'add_drivers+=" p2pmap "'
put "$tmp/c/boot/initramfs-6.12.57+deb13-amd64.img" ""
touch -d "2026-11-01 00:00 UTC" "$tmp/c/boot/initramfs-6.12.57+deb13-amd64.img"
run c4 0 --root "$tmp/c"
grep -q "^warn  p2pmap.initramfs: p2pmap is in the initramfs (/etc/dracut.conf.d/p2pmap.conf), and /etc/modprobe.d/p2pmap.conf (.*) is newer than /boot/initramfs-6.12.57+deb13-amd64.img (2026-11-01 00:00 UTC)" "$tmp/c4.out" &&
	has c4 "      fix: dracut -f"
tap $? "initramfs: dracut's add_drivers, its image older than the modprobe.d file (fix: dracut -f)"

# The environment from a process and from a file.
after "$tmp/p"
printf 'PATH=/usr/bin\0NCCL_P2P_DISABLE=1\0VLLM_SKIP_P2P_CHECK=0\0NCCL_P2P_LEVEL=SYS\0' |
	{ mkdir -p "$tmp/p/proc/4242"; cat >"$tmp/p/proc/4242/environ"; }
run pid 1 --root "$tmp/p" --pid 4242
has pid "fail  env.nccl_p2p_disable: NCCL_P2P_DISABLE=1 in process 4242: NCCL uses SHM through host memory, whatever p2pmap maps" &&
	has pid "ok    env.vllm_skip_p2p_check: VLLM_SKIP_P2P_CHECK=0 in process 4242: vLLM reads p2pmap verify's cache"
tap $? "--pid: the running server's environment (NCCL_P2P_DISABLE=1 fails, as the blocking cause)"
printf 'export NCCL_P2P_LEVEL=PXB\n# a comment\nVLLM_SKIP_P2P_CHECK=1\n' >"$tmp/env.sh"
run file 0 --root "$tmp/p" --env-file "$tmp/env.sh"
grep -q "^warn  env.nccl_p2p_level: the GPUs sit under different PCI root complexes and NCCL_P2P_LEVEL is PXB in $tmp/env.sh" "$tmp/file.out" &&
	grep -q "^warn  env.vllm_skip_p2p_check: VLLM_SKIP_P2P_CHECK is 1 in" "$tmp/file.out"
tap $? "--env-file: NCCL_P2P_LEVEL=PXB across root complexes and VLLM_SKIP_P2P_CHECK=1 are warnings"

run json 1 --root "$tmp/before" --unit vllm.service --json &&
	python3 - "$tmp/json.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["first_blocking"] == "p2pmap.loaded", d["first_blocking"]
levels = {c["name"]: c["level"] for c in d["checks"]}
assert levels["cc"] == "ok" and levels["env.nccl_p2p_disable"] == "fail", levels
assert sum(c["blocking"] for c in d["checks"]) == 2, d["checks"]
assert all(set(c) == {"name", "level", "blocking", "evidence", "fix"} for c in d["checks"])
PY
tap $? "--json: the same checks, levels and first blocking cause"
run json-sw 1 --root "$tmp/sw" --json
run json-c 0 --root "$tmp/c" --json
run json-file 0 --root "$tmp/p" --env-file "$tmp/env.sh" --json
python3 "$top/tests/unit/json_lint.py" doctor "$tmp"/json*.out
tap $? "every --json document: \"schema\": 1 first, fields and enum values as JSON.md lists them"

rc=0
for args in "--unit a --pid 1" "--unit ../etc/x" "--pid 12x" "--bogus" "--gpus zz" "--gpus 10de:" "--driver"; do
	run usage 2 $args || rc=1
done
tap $rc "usage errors exit 2 (two sources, a unit path, a bad pid, an unknown option, a bad --gpus, --driver without a name)"
run other 0 --root "$tmp/sw" --gpus 10b5:9797 --driver pcieport &&
	grep -q "^warn  gpu.0000:02:03.0.driver: 0000:02:03.0 (NUMA node -1) is bound to no driver" "$tmp/other.out" &&
	[ "$(grep -c '^.....\? *gpu\..*\.driver' "$tmp/other.out")" = 2 ]
tap $? "--gpus VENDOR:DEVICE: any class of that vendor and device (the switch's two ports)"
run none 0 --root "$tmp/sw" --gpus 10b5:1111
grep -qx "warn  gpus: no device 10b5:1111 in /sys/bus/pci/devices" "$tmp/none.out"
tap $? "--gpus naming no device: said"

# The CUDA driver this machine really loads (cuda.driver): doctor without
# --root loads libcuda.so.1 from the library path in a child, as verify
# does; here the stand-in (tests/cuda-stub) and NVIDIA's own stub.
stubdir=$top/build/cuda-stub
make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >"$tmp/stub-build.log" 2>&1 ||
	cat "$tmp/stub-build.log"
# live NAME LIBDIR [STUB-SPEC]: doctor on this machine, that libcuda first
live() {
	local name=$1 dir=$2
	shift 2
	(cd "$tmp" && P2PMAP_CUDA_STUB=${1-} LD_LIBRARY_PATH=$dir \
		"$p2pmap" doctor) >"$tmp/$name.out" 2>&1
	echo $? >"$tmp/$name.rc"
	grep -A1 '^[a-z]* *cuda\.driver' "$tmp/$name.out" | sed 's/^/# /'
}
live cuda-ok "$stubdir" "0000:01:00.0,0000:41:00.0"
has cuda-ok "ok    cuda.driver: $stubdir/libcuda.so.1: 2 CUDA devices (0000:01:00.0, 0000:41:00.0)"
tap $? "live: the CUDA driver loaded, the file and the GPUs CUDA sees"
live cuda-803 "$stubdir" "0000:01:00.0;init=803"
[ "$(cat "$tmp/cuda-803.rc")" = 1 ] &&
	grep -q "^fail  cuda.driver: cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803): .*the userspace driver $stubdir/libcuda.so.1 is not the kernel module's version" "$tmp/cuda-803.out"
tap $? "live: a userspace driver that is not the kernel module's (803): a failure, named, with the fix, exit 1"
live cuda-nodev "$stubdir" ""
grep -q "^fail  cuda.driver: cuInit: CUDA_ERROR_NO_DEVICE (100): .*: the driver ($stubdir/libcuda.so.1) sees no GPU: the device nodes are missing" "$tmp/cuda-nodev.out"
tap $? "live: no device nodes (100): a failure naming them"
mkdir -p "$tmp/badlib"
echo "not a library" >"$tmp/badlib/libcuda.so.1"
live cuda-bad "$tmp/badlib"
grep -q "^fail  cuda.driver: the CUDA driver cannot be used: $tmp/badlib/libcuda.so.1: " "$tmp/cuda-bad.out" &&
	grep -A1 "^fail  cuda.driver" "$tmp/cuda-bad.out" | grep -q "fix: take the directory of that file off the library path"
tap $? "live: a libcuda.so.1 that is not a library: a failure, the file named"
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	tap_skip "live: no libcuda.so.1 at all: said" "this machine has a CUDA driver"
else
	mkdir -p "$tmp/nolib"
	live cuda-none "$tmp/nolib"
	grep -q "^\(warn  cuda.driver: no CUDA driver in this container\|skip  cuda.driver: no CUDA driver here\) (libcuda.so.1: cannot open shared object file" "$tmp/cuda-none.out"
	tap $? "live: no libcuda.so.1 at all: a warning in a container, else a skip"
fi
nvstub=$(ls /usr/local/cuda*/lib64/stubs/libcuda.so 2>/dev/null | sort -V | tail -1)
if [ -z "$nvstub" ]; then
	tap_skip "live: NVIDIA's stub first on the library path: named" "no CUDA toolkit"
else
	mkdir -p "$tmp/nvstub"
	ln -s "$nvstub" "$tmp/nvstub/libcuda.so.1"
	live cuda-nvstub "$tmp/nvstub"
	grep -q "^fail  cuda.driver: cuInit: CUDA_ERROR_STUB_LIBRARY (34): $(readlink -f "$nvstub") is NVIDIA's stub libcuda" "$tmp/cuda-nvstub.out" &&
		grep -q "^first blocking cause: .*" "$tmp/cuda-nvstub.out"
	tap $? "live: NVIDIA's stub first on the library path: CUDA_ERROR_STUB_LIBRARY named, the file, the fix"
fi
(cd "$tmp" && LD_LIBRARY_PATH=$stubdir P2PMAP_CUDA_STUB="0000:01:00.0;init=34" \
	"$p2pmap" doctor --json) >"$tmp/cuda-json.out" 2>&1
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [x for x in d["checks"] if x["name"] == "cuda.driver"]
assert len(c) == 1 and c[0]["level"] == "fail" and "CUDA_ERROR_STUB_LIBRARY (34)" in c[0]["evidence"], c
' "$tmp/cuda-json.out"
tap $? "live, --json: the cuda.driver check, its level and evidence"

# BAR1's alignment (issue 35, item 10): NVIDIA's BAR1 P2P path refuses a
# peer whose BAR1 DMA address is not 512 MiB-aligned (kern_bus_gh100.c).
# The before host with 0000:01:00.0's BAR1 moved 256 MiB: said only for
# that GPU; a warning only where RegistryDwords turns that path on.
before "$tmp/align"
dev=$(readlink -f "$tmp/align/sys/bus/pci/devices/0000:01:00.0")
sed -i '2s/^0x0000020000000000 0x00000207ffffffff/0x0000020010000000 0x000002080fffffff/' "$dev/resource"
P2PMAP_NVIDIA_SMI=$tmp/align/nvidia-smi run align 1 --root "$tmp/align"
grep -qxF "ok    gpu.0000:01:00.0.bar1_align: BAR1 at 0x20010000000 is not 512 MiB-aligned, which NVIDIA's BAR1 P2P path refuses; not in use (mailbox P2P, the driver's default)" "$tmp/align.out" &&
	[ "$(grep -c "bar1_align" "$tmp/align.out")" = 1 ] &&
	! grep -q "bar1_align" "$tmp/before.out"
tap $? "a GPU's BAR1 not 512 MiB-aligned: named (ok: NVIDIA's BAR1 P2P path is off by default); aligned BARs: nothing said"
printf 'DmaRemapPeerMmio: 1\nRegistryDwords: "RMPcieP2PType=1"\n' >"$tmp/align/proc/driver/nvidia/params"
P2PMAP_NVIDIA_SMI=$tmp/align/nvidia-smi run align-on 1 --root "$tmp/align"
grep -q "^warn  gpu.0000:01:00.0.bar1_align: BAR1 at 0x20010000000 is not 512 MiB-aligned: NVIDIA's BAR1 P2P path, which RegistryDwords turns on, refuses this GPU as a peer" "$tmp/align-on.out" &&
	grep -q "remove RMPcieP2PType" "$tmp/align-on.out"
tap $? "... a warning with the fix where RegistryDwords sets RMPcieP2PType=1"

# The build machine itself: a real host (no GPU here); nothing may crash.
"$p2pmap" doctor --root / >"$tmp/self.out" 2>&1
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } && grep -q "^ok    iommu.cmdline\|^warn  iommu.cmdline" "$tmp/self.out" &&
	tail -1 "$tmp/self.out" | grep -q "^first blocking cause: \|^no blocking cause found$"
tap $? "on this machine itself (--root /): a whole report, exit $rc"
sed 's/^/# /' "$tmp/self.out"

tap_done
