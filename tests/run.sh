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
phase "host tests (unit, verify, caches, cuda, config, cli, options, nccl, nccl-stub, env, doctor, proxmox-hook, man, reports, bench, mirror, demo)"

make -s -C "$top/user" >"$logs/user-build.log" 2>&1
result $? "CLI builds with -Werror"
# The stand-in libcuda once, before the suites that use it run side by side
# (each one's own make then writes nothing).
make -s -C "$top/tests/cuda-stub" OUT="$top/build/cuda-stub" \
	>"$logs/cuda-stub-build.log" 2>&1
result $? "the stand-in libcuda builds (tests/cuda-stub)"
# The debug kernel's build (about 22 min of CPU on a fresh machine; at once
# where it is cached) on the CPU the phases before the VMs leave idle
# (package installs, the trixie chroot's downloads, the host suites'
# waits, verify's: it runs alone on 0.6 of a core): under SCHED_IDLE (it
# runs only where nothing else wants the CPU: verify's timed copies and
# timeouts keep their core) and the idle I/O class, in a process group of
# its own, from here to the debug phase, which gives what is left of it
# the normal class and waits.  Nothing it reports is lost: its TAP is read
# there.
debug_build=
if [ "$tier" != host ]; then
	setsid chrt --idle 0 nice -n 19 ionice -c 3 \
		"$top/tests/vm/debug-kernel.sh" --kernel-only \
		>"$logs/debug-kernel-build.tap" 2>&1 &
	debug_build=$!
	trap '[ -z "$debug_build" ] || kill -- -"$debug_build" 2>/dev/null' EXIT
fi
# verify alone among the suites: some of its checks time the stand-in's
# copies and timeouts.  Then the rest two at a time, each with a budget
# (about three times what it takes on the 2-core machines), counted in
# this order.
suite -t 600 "[verify]" "$top/tests/verify/run.sh"
# make demo's kernel unpacked, not installed (downloads 172 MB once):
# the longest, so first, beside the others.
suite_queue -t 900 "[demo]" "$top/tests/demo-check.sh"
suite_queue -t 600 "[doctor]" "$top/tests/doctor/run.sh"
suite_queue -t 120 "[proxmox-hook]" "$top/tests/proxmox-hook/run.sh"
suite_queue -t 300 "[unit]" make -s -C "$top/user" test
suite_queue -t 300 "[caches]" "$top/tests/caches/run.sh"
suite_queue -t 300 "[cuda]" "$top/tests/cuda-check/run.sh"
suite_queue -t 120 "[gpu]" "$top/tests/gpu/run.sh"
suite_queue -t 300 "[config]" "$top/tests/config/run.sh"
suite_queue -t 300 "[cli]" "$top/tests/cli/run.sh"
suite_queue -t 300 "[options]" "$top/tests/cli/options.sh"
suite_queue -t 300 "[nccl]" "$top/tests/nccl/run.sh"
suite_queue -t 300 "[nccl-stub]" "$top/tests/nccl-stub/run.sh"
suite_queue -t 600 "[collective]" "$top/tests/collective/run.sh"
suite_queue -t 400 "[env]" "$top/tests/env/run.sh"
suite_queue -t 300 "[prometheus]" "$top/tests/prometheus/run.sh"
suite_queue -t 300 "[man]" "$top/tests/man/run.sh"
suite_queue -t 300 "[reports]" "$top/tests/vm/report-check.sh"
suite_queue -t 300 "[bench]" "$top/tests/bench-check.sh"
suite_queue -t 300 "[harness]" "$top/tests/harness-check.sh"
suite_queue -t 120 "[mirror]" "$top/tests/mirror-check.sh"
suites_run
if [ "$tier" = host ]; then
	finish_run host
	exit
fi

phase "module builds for the Debian kernels (DKMS, test driver, initramfs)"
# The module's own builds (Kbuild, W=1 and sparse, the Proxmox trees) on
# every core: a make of its own is serial.
jobs=-j$(nproc)
kernels=$("$top/tests/kernels.sh")
for series in 6.1. 6.12.; do
	echo "$kernels" | grep -q "^$series"
	result $? "a Debian $series* kernel with matching headers is installed"
done

for k in $kernels; do
	MAKEFLAGS=$jobs "$top/tests/vm/build.sh" "$k" >"$logs/build-$k.log" 2>&1
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
MAKEFLAGS=$jobs suite "[pve]" "$top/tests/pve-build.sh"
suite "[layout]" "$top/tests/iommu-layout.sh"
phase "install, packages, static checks, spec"
suite "[install]" "$top/tests/install/run.sh"
suite "[package]" "$top/tests/package/run.sh"
MAKEFLAGS=$jobs suite "[static]" "$top/tests/static-checks.sh"
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
# The debug kernel: built once, then reused while linux-source-6.12,
# tests/vm/debug.config and the script are unchanged (tests/vm/debug-kernel.sh).
# Its build started under SCHED_IDLE before verify: what is left of it
# (each process of its group: make's children inherit make's class)
# runs in the normal class now.
phase "debug kernel: the rest of its build (started before verify), its modules and initramfs"
for pid in $(pgrep -g "$debug_build"); do
	chrt --other -p 0 "$pid" >/dev/null 2>&1
done
renice -n 0 -g "$debug_build" >/dev/null 2>&1
ionice -c 2 -n 4 -P "$debug_build" >/dev/null 2>&1
wait "$debug_build"
debug_build=
suite_file "[6.12-debug build]" "$logs/debug-kernel-build.tap"
"$top/tests/vm/debug-kernel.sh" >"$logs/debug-kernel.tap" 2>&1
suite_file "[6.12-debug]" "$logs/debug-kernel.tap"
debug=$(sed -n 's/^# vm-kernel //p' "$logs/debug-kernel.tap")
[ -n "$debug" ]
result $? "[6.12-debug] the debug kernel is there to boot"

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
# epyc_post KVER IOMMU LOG (post=epyc in tests/vm/boots.tsv): what link
# auto printed in the host's shape (tests/guest/epyc.sh: eight GPUs under
# four host bridges on two NUMA nodes, node 1's on vfio-pci) is the block of
# Documentation/faults-to-faster-server.md, and so is make demo's output
# where the boot ran it (Documentation/demo.md, README.md's excerpt):
# tests/env/run.sh checks that those blocks are the .want files.
epyc_post() {
	local k=$1 iommu=$2 log=$3
	if grep -q '^P2PMAP-SUITE: begin epyc' "$log"; then
		sed -n '/P2PMAP-SUITE: begin epyc/,/P2PMAP-SUITE: end epyc/s/^# | //p' "$log" |
			tr -d '\r' | diff -u "$top/tests/guest/epyc-link-auto.want" - \
			>"$logs/$k-$iommu-epyc.diff"
		result $? "[$k $iommu epyc] link auto --numa 0 printed the documented block (tests/guest/epyc-link-auto.want)"
		# What p2pmap metrics printed there, for the scrape after the VMs.
		sed -n '/P2PMAP-SUITE: begin epyc/,/P2PMAP-SUITE: end epyc/s/^# metrics | //p' "$log" |
			tr -d '\r' >"$logs/$k-$iommu-epyc.prom"
	fi
	grep -q '^P2PMAP-SUITE: begin demo' "$log" || return 0
	# make demo's output (tests/demo.sh prints it the same way).
	sed -n '/P2PMAP-SUITE: begin demo/,/P2PMAP-SUITE: end demo/p' "$log" |
		tr -d '\r' | grep -v -e '^P2PMAP-SUITE' -e '^# time' -e '^\[ *[0-9]*\.[0-9]*\]' |
		sed '/./,$!d' | diff -u "$top/tests/guest/demo-epyc.want" - >"$logs/$k-$iommu-demo.diff"
	result $? "[$k $iommu demo] make demo printed the documented block (tests/guest/demo-epyc.want)"
}

# queue_boot CLASS IOMMU TOPOLOGY SUITES BUDGETS [ARGS...]: one row of
# tests/vm/boots.tsv on one kernel and IOMMU: each installed Debian kernel
# of the series (6.1, 6.12), the 7.x one ($newer), the debug one ($debug,
# its own initramfs; up to 600 s to boot).  The boot's timeout: its
# boot's, then each suite's budget and a minute.
queue_boot() {
	local class=$1 iommu=$2 topo=$3 suites=$4 budgets=$5 k a args=()
	shift 5
	for a in "$@"; do
		case $a in
		post=epyc) ;;
		*)	args+=("${a//@SEED/$seed}") ;;
		esac
	done
	local VM_POST=
	case " $* " in *" post=epyc "*) VM_POST=epyc_post ;; esac
	# A Debian kernel starts its suite at 2-28 s of uptime (make check of
	# stop 51, 67 boots beside another); one that hangs at boot (the 7.x
	# kernel under TCG, now and then: "tsc: Unable to calibrate against
	# PIT", then nothing) is stopped at 90 s and booted again.
	local P2PMAP_VM_BUDGETS=$budgets P2PMAP_VM_BOOT_TIMEOUT=90
	local P2PMAP_VM_KERNEL= P2PMAP_VM_INITRD= P2PMAP_VM_TIMEOUT
	local kvers
	case $class in
	6.1|6.12)
		kvers=$(for k in $kernels; do
			[ "$(kernel_class "$k")" = "$class" ] && echo "$k"
		done) ;;
	7)	[ -n "$newer" ] || return 0
		set -- $newer
		kvers=$1 P2PMAP_VM_KERNEL=$2 ;;
	debug)	[ -n "$debug" ] || return 0
		set -- $debug
		kvers=6.12-debug P2PMAP_VM_KERNEL=$2 P2PMAP_VM_INITRD=$3
		P2PMAP_VM_BOOT_TIMEOUT=600 ;;
	esac
	P2PMAP_VM_TIMEOUT=$(vm_timeout "$P2PMAP_VM_BOOT_TIMEOUT" "$budgets")
	export P2PMAP_VM_BUDGETS P2PMAP_VM_BOOT_TIMEOUT P2PMAP_VM_KERNEL \
		P2PMAP_VM_INITRD P2PMAP_VM_TIMEOUT
	for k in $kvers; do
		if [ "$iommu" = amd ]; then
			amd_vm "$k" "$topo" "$suites" "${args[@]}"
		else
			vm "$k" vtd "$topo" "$suites" "${args[@]}"
		fi
	done
}

# Every boot of tests/vm/boots.tsv: one suite per boot on the Debian
# kernels, batches on the debug kernel (why, and each suite's budget:
# there).
while IFS=$'\t' read -r kclasses iommus topo suites budgets args; do
	for c in ${kclasses//,/ }; do
		for i in ${iommus//,/ }; do
			# shellcheck disable=SC2086
			queue_boot "$c" "$i" "$topo" "$suites" "$budgets" $args
		done
	done
done < <(boot_rows)

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
