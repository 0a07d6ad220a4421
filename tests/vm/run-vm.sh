#!/bin/bash
# run-vm.sh KVER IOMMU TOPOLOGY SUITE INITRD LOG [KERNEL-ARGS...]
#
# Boots /boot/vmlinuz-KVER in QEMU (TCG) on a q35 machine with an emulated
# IOMMU (IOMMU: vtd | amd) and stand-in GPUs (QEMU "edu" devices):
#   gpus4      four edus on pcie.0 at 00:10.0 .. 00:13.0
#   gpus4+pxb  the same, plus a fifth edu at 41:00.0 behind its own host
#              bridge (pxb-pcie, bus 0x40): the topology in which the kernel
#              does not reserve a peer's BAR in an initiator's IOVA space.
# The guest runs tests/guest/SUITE.sh; the serial console goes to LOG.
set -euo pipefail
kver=$1 iommu=$2 topo=$3 suite=$4 initrd=$5 log=$6
shift 6

edu="edu,dma_mask=0xffffffffffffffff"
args=(-accel tcg -machine q35 -cpu qemu64 -smp 2 -m 1024
      -nographic -nodefaults -serial stdio -monitor none -no-reboot
      -kernel "/boot/vmlinuz-$kver" -initrd "$initrd")
append="console=ttyS0 panic=-1 quiet vm.suite=$suite vm.iommu=$iommu"

case $iommu in
vtd)	args+=(-device intel-iommu,intremap=off,aw-bits=48)
	append+=" intel_iommu=on" ;;
amd)	args+=(-device amd-iommu,intremap=off)
	append+=" amd_iommu=on" ;;
*)	echo "run-vm.sh: unknown IOMMU $iommu" >&2; exit 2 ;;
esac

for slot in 10 11 12 13; do
	args+=(-device "$edu,bus=pcie.0,addr=0x$slot")
done
case $topo in
gpus4) ;;
gpus4+pxb)
	args+=(-device pxb-pcie,id=pxb1,bus_nr=0x40,bus=pcie.0
	       -device pcie-root-port,id=rp1,bus=pxb1,chassis=1,slot=1
	       -device "$edu,bus=rp1") ;;
*)	echo "run-vm.sh: unknown topology $topo" >&2; exit 2 ;;
esac

timeout "${P2PMAP_VM_TIMEOUT:-600}" qemu-system-x86_64 "${args[@]}" \
	-append "$append $*" </dev/null >"$log" 2>&1 || true
