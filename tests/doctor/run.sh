#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap doctor" on fixture hosts built under a --root directory (sysfs,
# procfs, /etc): the 8-GPU host of the README before p2pmap (AMD-Vi,
# DMA-FQ, four nvidia GPUs on NUMA node 0 under four root complexes, four
# vfio-pci GPUs on node 1, SEV-SNP on, NCCL_P2P_DISABLE=1 in the server's
# unit) and after (every node-0 direction linked and mapped, the unit's
# drop-in from "p2pmap env --format systemd"), and an iommu=pt host.  The
# whole output is compared with NAME.want; then the build machine itself
# (--root /, a real host with no GPU).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/doctor
p2pmap=$top/user/p2pmap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"

node0="0000:01:00.0 0000:21:00.0 0000:41:00.0 0000:61:00.0"
node1="0000:81:00.0 0000:a1:00.0 0000:c1:00.0 0000:e1:00.0"

put() {	# put FILE TEXT
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

# gpu DIR ADDR DRIVER NODE GROUP TYPE RANK: an NVIDIA 3D controller under
# its own root complex (pci0000:BB, BB = its bus - 1).
gpu() {
	local d=$1 a=$2 bus=${2:5:2} rb dev
	rb=$(printf '%02x' $((0x$bus - 1)))
	dev=$d/sys/devices/pci0000:$rb/0000:$rb:01.1/$a
	put "$dev/vendor" 0x10de
	put "$dev/class" 0x030200
	put "$dev/numa_node" "$4"
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

# before DIR [TYPE]: the README's host before p2pmap.
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
}

# after DIR: p2pmap loaded, every node-0 direction mapped, the drop-in.
after() {
	local d=$1 a b
	before "$d"
	put "$d/sys/module/p2pmap/version" 0.1.0
	put "$d/sys/kernel/p2pmap/version" 0.1.0
	for a in $node0; do
		for b in $node0; do
			[ "$a" = "$b" ] && continue
			put "$d/sys/kernel/p2pmap/links/$a-$b/state" mapped
			put "$d/sys/kernel/p2pmap/links/$a-$b/reason" ""
			put "$d/sys/kernel/p2pmap/links/$a-$b/faults" 0
		done
	done
	put "$d/etc/modprobe.d/p2pmap.conf" "softdep nvidia pre: p2pmap"
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
		put "$dev/class" 0x030000
		put "$dev/numa_node" 0
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
whole() {
	diff -u "$here/$1.want" "$tmp/$1.out" >"$tmp/$1.diff" && return 0
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
[   15.000003] DMAR: [DMA Read NO_PASID] Request device [61:00.0] fault addr 0xe2000000 [fault reason 0x06] PTE Read access is not set
[   16.000000] nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver
LOG
before "$tmp/before"
run before 1 --root "$tmp/before" --unit vllm.service --dmesg dmesg.txt && whole before
tap $? "the README's host before p2pmap: every check as expected, first blocking cause p2pmap not loaded, exit 1 (whole output)"
after "$tmp/after"
run after 0 --root "$tmp/after" --unit vllm.service && whole after
tap $? "the same host after link auto and the drop-in: 12 links mapped, nothing fails, exit 0 (whole output)"
before "$tmp/pt" identity iommu=pt
run pt 1 --root "$tmp/pt" --unit vllm.service && whole pt
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

rc=0
for args in "--unit a --pid 1" "--unit ../etc/x" "--pid 12x" "--bogus" "--gpus zz" "--gpus 10de:" "--driver"; do
	run usage 2 $args || rc=1
done
tap $rc "usage errors exit 2 (two sources, a unit path, a bad pid, an unknown option, a bad --gpus, --driver without a name)"
run other 1 --root "$tmp/sw" --gpus 10b5:9797 --driver pcieport
grep -q "^warn  gpu.0000:02:03.0.driver: 0000:02:03.0 (NUMA node -1) is bound to no driver" "$tmp/other.out" &&
	[ "$(grep -c '^.....\? *gpu\..*\.driver' "$tmp/other.out")" = 2 ]
tap $? "--gpus VENDOR:DEVICE: any class of that vendor and device (the switch's two ports)"
run none 0 --root "$tmp/sw" --gpus 10b5:1111
grep -qx "warn  gpus: no device 10b5:1111 in /sys/bus/pci/devices" "$tmp/none.out"
tap $? "--gpus naming no device: said"

# The build machine itself: a real host (no GPU here); nothing may crash.
"$p2pmap" doctor --root / >"$tmp/self.out" 2>&1
rc=$?
{ [ $rc = 0 ] || [ $rc = 1 ]; } && grep -q "^ok    iommu.cmdline\|^warn  iommu.cmdline" "$tmp/self.out" &&
	tail -1 "$tmp/self.out" | grep -q "^first blocking cause: \|^no blocking cause found$"
tap $? "on this machine itself (--root /): a whole report, exit $rc"
sed 's/^/# /' "$tmp/self.out"

tap_done
