#!/bin/bash
# run-vm.sh KVER IOMMU TOPOLOGY SUITE INITRD LOG [KERNEL-ARGS...]
#
# Boots /boot/vmlinuz-KVER in QEMU (TCG) on a q35 machine with an emulated
# IOMMU (IOMMU: vtd | amd) and stand-in GPUs (QEMU "edu" devices):
#   gpus4      four edus on pcie.0 at 00:10.0 .. 00:13.0
#   gpus4+pxb  the same, plus a fifth edu at 41:00.0 behind its own host
#              bridge (pxb-pcie, bus 0x40): the topology in which the kernel
#              does not reserve a peer's BAR in an initiator's IOVA space.
#   gpus4+pxb+mf  gpus4+pxb, plus a two-function edu slot on pcie.0
#              (00:15.0, 00:15.1: no ACS, so one IOMMU group), for a group
#              with a VFIO function beside a DMA API one (tests/guest/pins.sh).
#   numa2      the four on pcie.0, and two NUMA nodes each with a host
#              bridge of two edus (node 0: 21:00.0, 22:00.0; node 1:
#              41:00.0, 42:00.0), plus an empty hot-plug root port
#              (00:1c.0).  The guest asks for hot-plug by printing
#              "P2PMAP-HOST: <monitor command>"; this script passes it to
#              the QEMU monitor.
#   epyc       the host p2pmap is for (an AMD EPYC with 8 GPUs): no edu on
#              pcie.0; four pxb-pcie host bridges (buses 0x20, 0x40 on NUMA
#              node 0, 0x60, 0x80 on node 1), each with two root ports of
#              one edu each (21:00.0, 22:00.0, 41:00.0, 42:00.0 | 61:00.0,
#              62:00.0, 81:00.0, 82:00.0), plus the hot-plug root port
#              00:1c.0 (monitor as for numa2).
#   epyc+bigbar  epyc, plus an ivshmem-plain device with a 64 GiB BAR2 (as
#              bigbar) behind a third root port of node 1's first host
#              bridge (63:00.0): a large BAR under another host bridge.
#   bigbar     the four, plus ivshmem-plain devices whose BAR2 is a
#              64 GiB prefetchable 64-bit BAR (sparse files under build/),
#              $P2PMAP_BIGBARS of them (default 1).
# The guest runs tests/guest/SUITE.sh; the serial console goes to LOG.
# P2PMAP_VM_KERNEL=IMAGE boots IMAGE instead (a kernel not installed in
# /boot, e.g. the 7.x one tests/newer-kernel.sh unpacks, or the debug
# kernel of tests/vm/debug-kernel.sh); without it, P2PMAP_KROOT=DIR boots
# DIR/boot/vmlinuz-KVER (make demo's kernel, tests/kernel-unpack.sh).
# P2PMAP_VM_BATCH=1: SUITE is a comma-separated list of suites, run one
# after the other in this one boot by tests/guest/batch.sh (which also runs
# the kmemleak check of debug kernels); P2PMAP_VM_BUDGETS=N,...: each
# suite's budget in seconds (boot_watch below).
# The console shows kernel messages up to KERN_WARNING (quiet, then
# loglevel=5): WARN_ON and lockdep reports are printed at that level, and
# tests/run.sh fails a VM whose console shows a kernel report.
set -euo pipefail
kver=$1 iommu=$2 topo=$3 suite=$4 initrd=$5 log=$6
shift 6

edu="edu,dma_mask=0xffffffffffffffff"
smp=2 cpu=qemu64
case $topo in numa2|epyc*) smp=2,sockets=2,cores=1,threads=1 ;; esac	# a socket per node
case $topo in *bigbar) cpu=qemu64,phys-bits=44 ;; esac	# room for 64 GiB BARs
kroot=${P2PMAP_KROOT:-/}
kernel=${P2PMAP_VM_KERNEL:-${kroot%/}/boot/vmlinuz-$kver}
# P2PMAP_VM_QEMU_ROOT=DIR: the QEMU installed in the chroot DIR (QEMU 11
# from trixie-backports, tests/newer-kernel.sh P2PMAP_NEWER_QEMU=1), run
# by chroot-qemu.sh in a mount namespace of its own that sees build/ at the
# same path; a kernel from elsewhere (/boot) is copied under build/ first.
qemu=(qemu-system-x86_64)
if [ -n "${P2PMAP_VM_QEMU_ROOT:-}" ]; then
	build=$(cd "$(dirname "$0")/../.." && pwd)/build
	kernel=$(realpath "$kernel")
	case $kernel in
	"$build"/*) ;;
	*)	mkdir -p "$build/vm-kernels"
		cp -u "$kernel" "$build/vm-kernels/"
		kernel=$build/vm-kernels/$(basename "$kernel") ;;
	esac
	# Paths QEMU opens must be absolute and under build/.
	initrd=$(realpath "$initrd") log=$(realpath -m "$log")
	qemu=(unshare --mount --propagation private
	      "$(dirname "$0")/chroot-qemu.sh" "$P2PMAP_VM_QEMU_ROOT" "$build")
fi
args=(-accel tcg -machine q35 -cpu "$cpu" -smp "$smp" -m 1024
      -nographic -nodefaults -serial stdio -no-reboot
      -kernel "$kernel" -initrd "$initrd")
append="console=ttyS0 panic=-1 quiet loglevel=5 vm.iommu=$iommu vm.topo=$topo"
# The scheduler's tracepoints on from boot, patched before the other CPUs
# start.  Every tracer and (with record-cmd) every trace event a suite
# switches on adds probes to them, which patches __schedule and
# try_to_wake_up while CPUs run them; under TCG a CPU can then execute
# the int3 of the patch after it is gone ("Oops: int3" in __schedule,
# make check of stop 48; tests/vm/init).  Enabled at boot, each has two
# probes (the event's and the comm recorder's), so later probes change
# neither the static key nor the static call.
append+=" trace_event=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new"
if [ "${P2PMAP_VM_BATCH:-0}" = 1 ]; then
	append+=" vm.suite=batch vm.suites=$suite"
	[ -n "${P2PMAP_VM_BUDGETS:-}" ] && append+=" vm.budgets=$P2PMAP_VM_BUDGETS"
else
	append+=" vm.suite=$suite"
fi

case $iommu in
vtd)	args+=(-device intel-iommu,intremap=off,aw-bits=48)
	append+=" intel_iommu=on" ;;
amd)	# QEMU 11's amd-iommu translates only with dma-remap=on (QEMU 7.2
	# has no such property and always translates).
	if [ -n "${P2PMAP_VM_QEMU_ROOT:-}" ]; then
		args+=(-device amd-iommu,intremap=off,dma-remap=on)
	else
		args+=(-device amd-iommu,intremap=off)
	fi
	append+=" amd_iommu=on" ;;
*)	echo "run-vm.sh: unknown IOMMU $iommu" >&2; exit 2 ;;
esac

case $topo in epyc*) ;; *)
	for slot in 10 11 12 13; do
		args+=(-device "$edu,bus=pcie.0,addr=0x$slot")
	done ;;
esac
case $topo in
gpus4) ;;
gpus4+pxb|gpus4+pxb+mf)
	args+=(-device pxb-pcie,id=pxb1,bus_nr=0x40,bus=pcie.0
	       -device pcie-root-port,id=rp1,bus=pxb1,chassis=1,slot=1
	       -device "$edu,bus=rp1")
	[ "$topo" = gpus4+pxb+mf ] &&
		args+=(-device "$edu,bus=pcie.0,addr=0x15.0,multifunction=on"
		       -device "$edu,bus=pcie.0,addr=0x15.1") ;;
numa2|epyc|epyc+bigbar)
	# Two NUMA nodes of a CPU and 512 MiB each; host bridge H (pxb-pcie,
	# bus 0x20 * (H + 1)) with two root ports of one edu each: numa2 has
	# one per node, epyc two; then the hot-plug root port.
	args+=(-object memory-backend-ram,id=m0,size=512M
	       -object memory-backend-ram,id=m1,size=512M
	       -numa node,nodeid=0,cpus=0,memdev=m0
	       -numa node,nodeid=1,cpus=1,memdev=m1)
	per_node=1
	case $topo in epyc*) per_node=2 ;; esac
	for h in $(seq 0 $((2 * per_node - 1))); do
		n=$((h / per_node)) bus=$((0x20 + h * 0x20))
		args+=(-device "pxb-pcie,id=pxb$h,bus_nr=$bus,numa_node=$n,bus=pcie.0")
		for p in 0 1; do
			args+=(-device "pcie-root-port,id=rp$h$p,bus=pxb$h,chassis=$((10 + h * 2 + p)),slot=$p"
			       -device "$edu,bus=rp$h$p")
		done
	done
	args+=(-device pcie-root-port,id=rphp,bus=pcie.0,addr=0x1c,chassis=30,slot=0)
	if [ "$topo" = epyc+bigbar ]; then
		img=${log%.log}-bigbar.img	# one per boot: boots run side by side
		rm -f "$img"
		truncate -s 64G "$img"
		args+=(-global q35-pcihost.pci-hole64-size=1T
		       -object "memory-backend-file,id=big1,size=64G,mem-path=$img,share=on"
		       -device pcie-root-port,id=rpbig,bus=pxb2,chassis=40,slot=2
		       -device ivshmem-plain,memdev=big1,bus=rpbig)
	fi
	monitor=yes ;;
bigbar)
	args+=(-global q35-pcihost.pci-hole64-size=1T)
	for i in $(seq "${P2PMAP_BIGBARS:-1}"); do
		img=${log%.log}-bigbar$i.img
		rm -f "$img"
		truncate -s 64G "$img"
		args+=(-object "memory-backend-file,id=big$i,size=64G,mem-path=$img,share=on"
		       -device "ivshmem-plain,memdev=big$i,bus=pcie.0,addr=$(printf 0x%x $((0x14 + i)))")
	done ;;
*)	echo "run-vm.sh: unknown topology $topo" >&2; exit 2 ;;
esac
if [ -n "${monitor:-}" ]; then
	# QEMU's option syntax splits at commas (a batch's log name has them).
	monitor=$(dirname "$log")/$(basename "$log" .log | tr , +).mon
	case $monitor in *,*) monitor=$(mktemp -u /tmp/p2pmap-mon.XXXXXX) ;; esac
	rm -f "$monitor"
	args+=(-monitor "unix:$monitor,server,nowait")
else
	args+=(-monitor none)
fi

# host_commands: pass the guest's "P2PMAP-HOST: CMD" lines to the monitor.
host_commands() {
	tail -n +1 -F "$log" 2>/dev/null | while IFS= read -r line; do
		case $line in
		*P2PMAP-HOST:*)
			# What QEMU answered, for a hot-plug that never showed.
			python3 "$(dirname "$0")/monitor.py" "$monitor" \
				"$(echo "${line#*P2PMAP-HOST: }" | tr -d '\r')" \
				>>"${log%.log}.monitor.txt" 2>&1 ;;
		esac
	done
}

: >"$log"
[ -n "${monitor:-}" ] && { host_commands 2>/dev/null & watcher=$!; }
# boot_watch PID: a guest that has not started its suite after
# $P2PMAP_VM_BOOT_TIMEOUT seconds (default 180; tests/run.sh gives the
# Debian kernels 90, which start in 2-28 s, and the debug kernel 600, which
# starts in up to 150 s) is stopped, so that a kernel
# hung at boot costs minutes, not the whole VM timeout; tests/run.sh then
# boots it once more.  Then each suite (its "P2PMAP-SUITE: begin S" line)
# has its budget ($P2PMAP_VM_BUDGETS, in the order of SUITE's list) and a
# minute more: the guest stops a suite past its budget itself
# (tests/guest/batch.sh), so a guest still in it then is stuck where no
# signal reaches (a task in D state, a dead console): stopped, and said, so
# that the suite is blamed and not the ones after it.
# stop_guest PID WHY: said in the log (the harness reads it), then stopped.
stop_guest() {
	echo "P2PMAP-VM-HOST: $2: guest stopped" >>"$log"
	kill "$1" 2>/dev/null
}
boot_watch() {
	local end=$((SECONDS + ${P2PMAP_VM_BOOT_TIMEOUT:-180})) n=0 began s b
	while kill -0 "$1" 2>/dev/null; do
		grep -q 'P2PMAP-VM: start' "$log" && break
		# A kernel that panicked at boot may never reboot (under TCG an
		# int3 left by boot-time code patching kills both CPUs; make
		# check of stop 50 waited out the timeout twice): stopped at
		# once, its trace printed, for tests/harness.sh's one retry.
		if grep -q 'Kernel panic - not syncing' "$log"; then
			sleep 2
			stop_guest "$1" "the kernel panicked before a suite started"
			return 0
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			stop_guest "$1" "no suite started after ${P2PMAP_VM_BOOT_TIMEOUT:-180} s"
			return 0
		fi
		sleep 1
	done
	while kill -0 "$1" 2>/dev/null; do
		began=$(grep -c '^P2PMAP-SUITE: begin ' "$log" || true)
		if [ "$began" != "$n" ]; then
			n=$began end=
			s=$(grep '^P2PMAP-SUITE: begin ' "$log" | tail -1 | tr -d '\r')
			s=${s#P2PMAP-SUITE: begin }
			b=$(echo "${P2PMAP_VM_BUDGETS:-}" | awk -F, -v n="$n" '{ print $n }')
			[ -n "$b" ] && end=$((SECONDS + b + 60))
		fi
		if [ -n "$end" ] && [ "$SECONDS" -ge "$end" ] &&
			! grep -q "^P2PMAP-SUITE: end $s" "$log"; then
			stop_guest "$1" "suite $s still running a minute past its budget of $b s"
			return 0
		fi
		sleep 2
	done
}

timeout "${P2PMAP_VM_TIMEOUT:-600}" "${qemu[@]}" "${args[@]}" \
	-append "$append $*" </dev/null >>"$log" 2>&1 &
qemu=$!
boot_watch "$qemu" &
bootwatch=$!
wait "$qemu" || true
kill "$bootwatch" 2>/dev/null || true
wait "$bootwatch" 2>/dev/null || true
if [ -n "${watcher:-}" ]; then
	pkill -P "$watcher" 2>/dev/null || true
	kill "$watcher" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
fi
