#!/bin/bash
# run.sh: every test of p2pmap (what "make check" runs).
#   1. unit tests of the CLI (no kernel needed)
#   2. static checks of the module (W=1, sparse, checkpatch); the module
#      built through DKMS for each kernel; a W=1 build against Debian
#      trixie-backports' 7.x headers in a chroot (tests/newer-kernel.sh);
#      W=1 builds against Proxmox VE's 6.17 and 7.0 trees with Proxmox's
#      export list, probes held to tests/pve/expected-probes
#      (tests/pve-build.sh); the private IOMMU layouts p2pmap mirrors
#      checked in the Proxmox and Debian sources (tests/iommu-layout.sh);
#      make install / make uninstall (tests/install/run.sh), then the
#      Debian packages: make deb, lintian, apt-get install, purge
#      (tests/package/run.sh; both skipped where p2pmap is already
#      installed)
#   3. the VM suites: each installed Debian kernel (6.1 and 6.12 at least)
#      and trixie-backports' 7.x with VT-d and with AMD-Vi emulation (AMD-Vi
#      on QEMU 11 from trixie-backports for 6.12 and 7.x, see amd_vm below)
#   4. the debug kernel (tests/vm/debug-kernel.sh: 6.12 with KASAN, UBSAN,
#      lockdep, kmemleak, debugobjects, fault injection): its build, then
#      the suites on it, several per boot (tests/guest/batch.sh), and a
#      kmemleak check after the last unload
# Every VM fails on a kernel report on its console (tests/vm/reports.sh:
# BUG, WARNING, UBSAN, lockdep, ODEBUG, kmemleak, Oops, panic).
# Each test prints one TAP line; the last line is "N passed, N failed".
# Logs of every VM are kept in build/logs/.
# The netlink fuzzer (tests/fuzz, tables generated from the YNL spec) runs in
# a VT-d guest of each kernel (tests/guest/fuzz.sh): unprivileged, as root
# minus CAP_SYS_RAWIO and minus CAP_SYS_ADMIN (nothing may change), as root
# (p2pmap's account must then match the IOMMU's).  It takes the stress test's
# seed: P2PMAP_STRESS_SEED=N replays both; in a guest, p2pfuzz --seed N
# --trace FROM-TO prints messages FROM..TO-1 and their answers in full.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/logs
mkdir -p "$logs"
. "$top/tests/harness.sh"
# "run.sh host" (make check-host): the host tests alone, as here.
tier=${1:-all}

# phase NAME: the time of the phase before is kept for the table that ends
# the run (CI shows only the tail of the output).
times="" phase_name="" phase_start=$SECONDS
phase() {
	[ -n "$phase_name" ] &&
		times+="# time: $((SECONDS - phase_start)) s  $phase_name"$'\n'
	phase_name=$1 phase_start=$SECONDS
}
# finish_run: the time table and the closing line; fails on any failure.
finish_run() {
	phase ""
	printf '%s' "$times"
	echo "# time: $SECONDS s in all (tests/run.sh${1:+ $1})"
	totals
	[ "$fail" -eq 0 ]
}
phase "host tests (unit, verify, caches, cuda, config, cli, nccl, env, doctor, man, reports, bench, mirror)"

make -s -C "$top/user" >"$logs/user-build.log" 2>&1
result $? "CLI builds with -Werror"
suite "[unit]" make -s -C "$top/user" test
suite "[verify]" "$top/tests/verify/run.sh"
suite "[caches]" "$top/tests/caches/run.sh"
suite "[cuda]" "$top/tests/cuda-check/run.sh"
suite "[config]" "$top/tests/config/run.sh"
suite "[cli]" "$top/tests/cli/run.sh"
suite "[nccl]" "$top/tests/nccl/run.sh"
suite "[env]" "$top/tests/env/run.sh"
suite "[doctor]" "$top/tests/doctor/run.sh"
suite "[prometheus]" "$top/tests/prometheus/run.sh"
suite "[man]" "$top/tests/man/run.sh"
suite "[reports]" "$top/tests/vm/report-check.sh"
suite "[bench]" "$top/tests/bench-check.sh"
suite "[harness]" "$top/tests/harness-check.sh"
suite "[mirror]" "$top/tests/mirror-check.sh"
if [ "$tier" = host ]; then
	finish_run host
	exit
fi

phase "module builds for the Debian kernels (DKMS, test driver, initramfs)"
kernels=$("$top/tests/kernels.sh")
for series in 6.1. 6.12.; do
	echo "$kernels" | grep -q "^$series"
	result $? "a Debian $series* kernel with matching headers is installed"
done

for k in $kernels; do
	"$top/tests/vm/build.sh" "$k" >"$logs/build-$k.log" 2>&1
	result $? "module, test driver and initramfs build for $k"
	# build.sh starts from an empty DKMS tree: a module there is this run's.
	dko=$(ls "$top/build/$k/dkms/tree/p2pmap/$(cat "$top/VERSION")/$k"/*/module/p2pmap.ko* 2>/dev/null)
	[ -n "$dko" ] && [ "$(modinfo -F srcversion "$dko")" = \
		"$(modinfo -F srcversion "$top/build/$k/kmod/p2pmap.ko")" ]
	result $? "DKMS built p2pmap for $k (the module the VMs load)"
done
phase "7.x: trixie chroot, headers, build, kernel image"
P2PMAP_NEWER_IMAGE=1 P2PMAP_NEWER_QEMU=1 "$top/tests/newer-kernel.sh" \
	>"$logs/newer.tap" 2>&1
suite_file "[7.x]" "$logs/newer.tap"
newer=$(sed -n 's/^# vm-kernel //p' "$logs/newer.tap")
[ -n "$newer" ]
result $? "[7.x] the 7.x kernel image is there to boot"
# QEMU 11 (trixie-backports, in the same chroot) for AMD-Vi: it translates
# devices behind boot-time root ports and host bridges, as on an EPYC host,
# where QEMU 7.2's amd-iommu cannot (AMD-Vi ran on pcie.0 only).  Kernel 6.1
# soft-locks on its AMD event log ("IOMMU GA Log overflow"): 6.1 stays on
# QEMU 7.2 (harness.sh's amd_vm).
qemu11=$(sed -n 's/^# vm-qemu \([^ ]*\) .*/\1/p' "$logs/newer.tap")
[ -n "$qemu11" ]
result $? "[7.x] QEMU 11 (AMD-Vi behind root ports and host bridges) is there"
# Proxmox VE's kernels, built (not booted), and the private layouts in
# every source tree, the 7.x one included (newer-kernel.sh fetched it).
phase "Proxmox VE 6.17 and 7.0 builds; IOMMU layouts in PVE and Debian sources"
suite "[pve]" "$top/tests/pve-build.sh"
suite "[layout]" "$top/tests/iommu-layout.sh"
# The debug kernel: built once, then reused while linux-source-6.12,
# tests/vm/debug.config and the script are unchanged (tests/vm/debug-kernel.sh).
phase "debug kernel: build (or cache) and its initramfs"
"$top/tests/vm/debug-kernel.sh" >"$logs/debug-kernel.tap" 2>&1
suite_file "[6.12-debug]" "$logs/debug-kernel.tap"
debug=$(sed -n 's/^# vm-kernel //p' "$logs/debug-kernel.tap")
[ -n "$debug" ]
result $? "[6.12-debug] the debug kernel is there to boot"
phase "install, packages, static checks, spec"
suite "[install]" "$top/tests/install/run.sh"
suite "[package]" "$top/tests/package/run.sh"
suite "[static]" "$top/tests/static-checks.sh"
suite "[spec]" "$top/tests/spec/test-sync.sh"
ynl=$("$top/tests/tools.sh" ynl)
python3 "$top/tests/spec/validate-spec.py" "$ynl" \
	"$top/Documentation/netlink/specs/p2pmap.yaml" \
	"$ynl/../../../Documentation/netlink/genetlink-c.yaml" \
	>"$logs/spec-schema.log" 2>&1
result $? "[spec] p2pmap.yaml validates against the kernel's genetlink-c schema"

# The stress test's seed: P2PMAP_STRESS_SEED replays a run.
seed=${P2PMAP_STRESS_SEED:-$(date +%s)}
echo "# stress seed $seed (P2PMAP_STRESS_SEED=$seed make check replays it)"
phase "VMs (two at a time): debug, Debian 6.1, 6.12 and 7.x kernels"
# --- the netlink fuzzer ---------------------------------------------------
make -s -C "$top/tests/fuzz" >"$logs/fuzz-build.log" 2>&1
result $? "[fuzz] p2pfuzz builds from the YNL spec with -Wall -Wextra -Werror"
fzhash() {
	"$top/tests/fuzz/p2pfuzz" --dry-run --count 20000 --seed "$1" \
		--devices 0000:00:10.0,0000:00:11.0 | sed -n 's/.* hash \([0-9a-f]*\).*/\1/p'
}
[ -n "$(fzhash "$seed")" ] && [ "$(fzhash "$seed")" = "$(fzhash "$seed")" ] &&
	[ "$(fzhash "$seed")" != "$(fzhash $((seed + 1)))" ]
result $? "[fuzz] the same seed sends the same messages, another seed others"
# ---------------------------------------------------------------------------
# epyc KVER IOMMU [DEMO] [ARGS...]: the host's shape (tests/guest/epyc.sh,
# run-vm.sh's epyc topology): eight GPUs, each behind its own root port,
# two per host bridge under four host bridges on two NUMA nodes, node 1's
# on vfio-pci; link auto --numa 0 must map and verify node 0's 12
# directions and touch nothing of the VFIO GPUs.  In the same boot, on that
# shape: core (a peer under another host bridge: the IOVA collision hazard,
# where AMD v1 page tables overwrite PTEs silently, IOVA pressure and its
# negative control), tenants (node 1 on vfio-pci), topology with hot-plug,
# the stress test (1000 operations).  DEMO=demo runs make demo's script
# first (its output is the README's block).  Under AMD-Vi only where
# QEMU 11 runs (QEMU 7.2's amd-iommu cannot translate behind root ports).
epyc() {
	local k=$1 iommu=$2 demo=$3
	local suites=${demo:+$demo,}epyc,core,tenants,topology,stress
	shift 3
	if [ "$iommu" = amd ]; then
		VM_POST=epyc_post amd_vm "$k" epyc "$suites" vm.ops=1000 \
			vm.seed="$seed" "$@"
	else
		VM_POST=epyc_post vm "$k" vtd epyc "$suites" vm.ops=1000 \
			vm.seed="$seed" "$@"
	fi
}
# epyc_post KVER IOMMU LOG: what link auto printed there is the README's,
# and so is make demo's output where the boot ran it.
epyc_post() {
	local k=$1 iommu=$2 log=$3
	sed -n '/P2PMAP-SUITE: begin epyc/,/P2PMAP-SUITE: end epyc/s/^# | //p' "$log" |
		tr -d '\r' | diff -u "$top/tests/guest/epyc-link-auto.want" - \
		>"$logs/$k-$iommu-epyc.diff"
	result $? "[$k $iommu epyc] link auto --numa 0 printed the README's block (tests/guest/epyc-link-auto.want)"
	# What p2pmap metrics printed there, for the scrape after the VMs.
	sed -n '/P2PMAP-SUITE: begin epyc/,/P2PMAP-SUITE: end epyc/s/^# metrics | //p' "$log" |
		tr -d '\r' >"$logs/$k-$iommu-epyc.prom"
	grep -q '^P2PMAP-SUITE: begin demo' "$log" || return 0
	# make demo's output (tests/demo.sh prints it the same way).
	sed -n '/P2PMAP-SUITE: begin demo/,/P2PMAP-SUITE: end demo/p' "$log" |
		tr -d '\r' | grep -v -e '^P2PMAP-SUITE' -e '^# time' -e '^\[ *[0-9]*\.[0-9]*\]' |
		sed '/./,$!d' | diff -u "$top/tests/guest/demo-epyc.want" - >"$logs/$k-$iommu-demo.diff"
	result $? "[$k $iommu demo] make demo printed the README's block (tests/guest/demo-epyc.want)"
}
# The debug kernel (KASAN etc. make its guests slow under TCG: 20 s to boot
# with devices on pcie.0 only, 80 s with pxb-pcie host bridges): the same
# topologies as below, several suites per boot.  Queued first: its two
# long boots set the pace of the two lanes (vm_run_all).
if [ -n "$debug" ]; then
	set -- $debug
	export P2PMAP_VM_KERNEL=$2 P2PMAP_VM_INITRD=$3
	export P2PMAP_VM_TIMEOUT=${P2PMAP_DEBUG_VM_TIMEOUT:-2400}
	export P2PMAP_VM_BOOT_TIMEOUT=600
	# Each boot runs several suites (80 s to boot with pxb-pcie bridges).
	# Smaller counts than on the Debian kernels, so that make check fits:
	# the fuzzer 5,000 messages a phase (100,000 there),
	# the stress test 60 operations (1000 there); fault injection walks
	# every allocation point of link add, link del, bind, unbind, rescan
	# and remove (173 points, 190 s), and the insmod with configured links
	# by call site (vm.fi=i: each of its ~700 points costs 10 s here, a
	# KASAN module load and a rmmod that waits for DEBUG_KOBJECT_RELEASE's
	# delayed releases; one point per call site, aimed at by the stack
	# filter, about 25 points in 6 minutes; every point, vm.fi_insmod=all,
	# by hand: two hours).
	# The fuzzer first: it reads the whole kernel log (/dev/kmsg), which
	# the other suites' fault lines would otherwise fill.
	# (iova.sh is left to the Debian kernels: 5 min under KASAN, and the
	# guard's code runs here in core, topology and the races.)
	# acpi=noirq (QEMU 7.2 only): under KASAN and kmemleak, each
	# evaluation of a pxb-pcie host bridge's _PRT (at every enable of a
	# device behind it: each bind) runs into ACPICA's 30 s loop timeout in
	# QEMU 7.2's AML loop and fails anyway ("can't derive routing for PCI
	# INT A"); legacy routing finds no INTx for them either, at once.
	# p2pmap and the edus use no INTx.  (Measured: 13 such evaluations,
	# 390 s, in the numa2 boot.)  q35's ACPI hot-plug needs the ACPI SCI,
	# which acpi=noirq takes away (and native pciehp trips a lockdep report
	# of its own in 6.12): on QEMU 7.2's numa2, vm.hotplug=off makes
	# topology add and delete devices through sysfs remove/rescan, the
	# same notifier events.  QEMU 11's _PRT is a static package (no AML
	# loop): there the debug kernel boots without acpi=noirq, and
	# topology and the races hot-plug through the QEMU monitor.
	# Both IOMMUs run core, faults, tenants, topology and stress here:
	# VT-d on QEMU 7.2, AMD-Vi on QEMU 11 (dma-remap=on: devices behind
	# host bridges and root ports translate, as on an EPYC host), where
	# the races run too, with hot-plug.  (Measured, guest time under
	# AMD-Vi: core 251 s, faults 102 s, tenants 80 s, stress 58 s;
	# topology 47 s and the races 125 s on numa2.)
	vm 6.12-debug vtd gpus4+pxb fuzz,core,faultinject vm.seed="$seed" \
		vm.fuzz_count=5000 vm.fuzz_cap_count=1000 \
		vm.fi=la,ld,b,u,r,m,i acpi=noirq
	# The races with a 32 MiB probe-time allocation: each of their binds
	# pays it (256 MiB: 3 minutes more under KASAN), 30 s of clients.
	if [ -n "$qemu11" ]; then
		amd_vm 6.12-debug gpus4+pxb core,faults,tenants,stress,holds \
			vm.ops=60 vm.seed="$seed"
		vm 6.12-debug vtd numa2 topology vm.probe_mib=32 acpi=noirq \
			vm.hotplug=off
		amd_vm 6.12-debug numa2 topology,races vm.seed="$seed" \
			vm.probe_mib=32 vm.race_secs=30
	else
		# QEMU 7.2's AMD-Vi: GPUs on pcie.0 only (no E for core).
		vm 6.12-debug amd gpus4 core,faults,tenants,stress vm.ops=60 \
			vm.seed="$seed"
		vm 6.12-debug vtd numa2 topology,races vm.seed="$seed" \
			vm.probe_mib=32 vm.race_secs=30 acpi=noirq vm.hotplug=off
	fi
	# 60 stress operations: 200 took 303 s under KASAN, 100 took 107 s.
	vm 6.12-debug vtd gpus4 faults,tenants,stress,container vm.ops=60 vm.seed="$seed"
	# Domains nothing holds: a type change and a VFIO claim between a
	# driver's dma_cleanup() and UNBOUND_DRIVER, rmmod in that window.
	# (acpi=noirq: QEMU 7.2's pxb-pcie _PRT, as for the first boot.)
	vm 6.12-debug vtd gpus4+pxb+mf pins acpi=noirq
	unset P2PMAP_VM_KERNEL P2PMAP_VM_INITRD P2PMAP_VM_TIMEOUT \
		P2PMAP_VM_BOOT_TIMEOUT
fi

# Several suites per boot where they share a topology (tests/guest/batch.sh
# puts the machine back as a boot leaves it between them; a boot costs
# 8-9 s): vm() runs a comma-separated SUITE list as one batch.  The fuzzer
# first (it reads the whole kernel log).  iova.sh and early.sh each alone,
# on IOVA allocators no other suite has used: their negative controls (with
# nothing reserved, a raw write lands in the initiator's RAM) depend on
# where a fresh allocator puts buffers (after core in one boot, early's
# failed on 7.3).
# The races (tests/guest/races.sh): netlink clients, sysfs unbind/bind,
# remove/rescan, hot-plug through the QEMU monitor and fault bursts at
# once, then the invariants.  On numa2 (a hot-plug
# port, with links across three host bridges, where the early reservations
# and the IOVA guard reserve and keep ranges), in a boot of their own
# (after topology in one boot they took 112 s, against 67 s for a boot of
# their own, with other seeds): Debian 6.12
# (about 90 s) under VT-d, and AMD-Vi where QEMU 11 runs (its amd-iommu
# translates boot-time devices behind root ports; QEMU 7.2's does not), and
# the debug kernel below.
# p2pmap doctor against the guest's real state (tests/guest/doctor.sh), on
# both IOMMUs, on 6.12.  The CLI in a container (tests/guest/container.sh:
# its own user and network namespaces, as an unprivileged LXC container)
# on every kernel, VT-d, and AMD-Vi on 6.12; under the debug kernel too
# (events copied to every network namespace from the fault path).
# 6.1: AMD-Vi on QEMU 7.2 (GPUs on pcie.0 only), the stress test 300
# operations (1000 take 200 s there), topology on numa2, large BARs on
# pcie.0.  6.12: the host's shape (epyc, above) on both IOMMUs, with make
# demo's script under AMD-Vi, and large BARs there (epyc+bigbar).
for k in $kernels; do
	vm "$k" vtd gpus4+pxb fuzz,core vm.seed="$seed"
	vm "$k" vtd gpus4+pxb early,holds
	vm "$k" vtd gpus4+pxb iova
	# A group with two functions, one on vfio-pci (tests/guest/pins.sh).
	vm "$k" vtd gpus4+pxb+mf pins
	case $k in
	6.1.*)
		amd_vm "$k" gpus4 core,faults,tenants
		vm "$k" vtd gpus4 faults,tenants,stress,sme,container vm.ops=300 vm.seed="$seed"
		vm "$k" vtd numa2 topology
		vm "$k" vtd bigbar bigbar
		amd_vm "$k" bigbar bigbar ;;
	*)
		vm "$k" vtd gpus4 faults,tenants,doctor,sme,container
		vm "$k" vtd numa2 races vm.seed="$seed"
		epyc "$k" vtd ""
		if [ -n "$qemu11" ]; then
			# The early reservations under AMD-Vi too: with them a
			# raw write to a peer under another host bridge lands
			# in no buffer; without, in the initiator's RAM.
			amd_vm "$k" gpus4+pxb early,holds
			# The IOVA guard where v1 page tables overwrite PTEs
			# silently.
			amd_vm "$k" gpus4+pxb iova
			amd_vm "$k" gpus4 faults,doctor,container
			amd_vm "$k" numa2 races vm.seed="$seed"
			epyc "$k" amd demo
			amd_vm "$k" epyc+bigbar bigbar
		else
			amd_vm "$k" gpus4 core,faults,tenants,doctor,container
			amd_vm "$k" bigbar bigbar
		fi
		# A 64 GiB BAR under another host bridge than the initiator.
		vm "$k" vtd epyc+bigbar bigbar ;;
	esac
done

# The newest Debian kernel (trixie-backports, 7.x), when it could be built
# and unpacked: the core and fault suites on both IOMMUs, and under AMD-Vi
# the host's shape (epyc: its initramfs has the kernel's VFIO modules).
if [ -n "$newer" ]; then
	set -- $newer
	export P2PMAP_VM_KERNEL=$2
	vm "$1" vtd gpus4+pxb core
	vm "$1" vtd gpus4+pxb early,holds
	vm "$1" vtd gpus4+pxb iova
	vm "$1" vtd gpus4+pxb+mf pins
	vm "$1" vtd gpus4 faults,sme,container
	if [ -n "$qemu11" ]; then
		amd_vm "$1" gpus4+pxb holds
		amd_vm "$1" gpus4 faults
		epyc "$1" amd ""
		amd_vm "$1" epyc+bigbar bigbar
	else
		amd_vm "$1" gpus4 core,faults
	fi
	unset P2PMAP_VM_KERNEL
fi

vm_run_all

# A real scrape of a real module's metrics: what p2pmap metrics printed in
# the 6.12 VT-d epyc guest (12 links mapped, a pair with no link
# faulting), served by node_exporter's textfile collector.
phase "metrics of a guest: promtool, node_exporter"
prom=$logs/$(echo "$kernels" | grep '^6\.12\.' | tail -1)-vtd-epyc.prom
rm -f "$prom.lint"
[ -s "$prom" ] && promtool check metrics <"$prom" >"$prom.lint" 2>&1
result $? "[metrics] the 6.12 VT-d epyc guest's p2pmap metrics: there, and promtool check metrics is clean"
suite "[metrics]" "$top/tests/prometheus/scrape.sh" "$prom"
finish_run
