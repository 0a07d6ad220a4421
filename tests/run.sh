#!/bin/bash
# run.sh: every test of p2pmap (what "make check" runs).
#   1. unit tests of the CLI (no kernel needed)
#   2. static checks of the module (W=1, sparse, checkpatch); the module
#      built through DKMS for each kernel; a W=1 build against Debian
#      trixie-backports' 7.x headers in a chroot (tests/newer-kernel.sh);
#      make install / make uninstall (tests/install/run.sh; skipped where
#      p2pmap is already installed)
#   3. the VM suites: each installed Debian kernel (6.1 and 6.12 at least)
#      with VT-d and with AMD-Vi emulation
# Each test prints one TAP line; the last line is "N passed, N failed".
# Logs of every VM are kept in build/logs/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/build/logs
mkdir -p "$logs"
pass=0 fail=0

# count PREFIX < TAP: re-print TAP lines with PREFIX, tally them.
count() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) pass=$((pass + 1)); echo "ok - $1 ${line#ok [0-9]* - }" ;;
		"not ok "*) fail=$((fail + 1))
			echo "not ok - $1 ${line#not ok [0-9]* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done
}

# result OK DESC: one test decided here.
result() {
	if [ "$1" = 0 ]; then
		pass=$((pass + 1)); echo "ok - $2"
	else
		fail=$((fail + 1)); echo "not ok - $2"
	fi
}

make -s -C "$top/user" >"$logs/user-build.log" 2>&1
result $? "CLI builds with -Werror"
count "[unit]" < <(make -s -C "$top/user" test 2>&1)
count "[verify]" < <("$top/tests/verify/run.sh" 2>&1)
count "[man]" < <("$top/tests/man/run.sh" 2>&1)

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
P2PMAP_NEWER_IMAGE=1 "$top/tests/newer-kernel.sh" >"$logs/newer.tap" 2>&1
count "[7.x]" <"$logs/newer.tap"
newer=$(sed -n 's/^# vm-kernel //p' "$logs/newer.tap")
count "[install]" < <("$top/tests/install/run.sh")
count "[static]" < <("$top/tests/static-checks.sh")
count "[spec]" < <("$top/tests/spec/test-sync.sh")
ynl=$("$top/tests/tools.sh" ynl)
python3 "$top/tests/spec/validate-spec.py" "$ynl" \
	"$top/Documentation/netlink/specs/p2pmap.yaml" \
	"$ynl/../../../Documentation/netlink/genetlink-c.yaml" \
	>"$logs/spec-schema.log" 2>&1
result $? "[spec] p2pmap.yaml validates against the kernel's genetlink-c schema"

# vm KVER IOMMU TOPOLOGY SUITE [KERNEL-ARGS...]
vm() {
	local log=$logs/$1-$2-$4.log start=$SECONDS
	"$top/tests/vm/run-vm.sh" "$1" "$2" "$3" "$4" \
		"$top/build/$1/initrd.cpio" "$log" "${@:5}"
	# A guest kernel that died before the suite started (TCG has been seen
	# to trip the 7.x kernel's boot-time code patching) gets one more try;
	# the first log is kept and the retry is said.
	if ! grep -q 'P2PMAP-VM: start' "$log"; then
		mv "$log" "$log.noboot"
		echo "# [$1 $2 $4] the guest did not boot (see $log.noboot): retried once"
		"$top/tests/vm/run-vm.sh" "$1" "$2" "$3" "$4" \
			"$top/build/$1/initrd.cpio" "$log" "${@:5}"
	fi
	count "[$1 $2 $4]" <"$log"
	grep -q '^P2PMAP-VM: done' "$log"
	result $? "[$1 $2 $4] VM ran to the end ($((SECONDS - start)) s)"
	! grep -qE 'BUG:|Oops|Kernel panic' "$log"
	result $? "[$1 $2 $4] no kernel BUG, Oops or panic on the console"
}

# The stress test's seed: P2PMAP_STRESS_SEED replays a run.
seed=${P2PMAP_STRESS_SEED:-$(date +%s)}
echo "# stress seed $seed (P2PMAP_STRESS_SEED=$seed make check replays it)"
for k in $kernels; do
	vm "$k" vtd gpus4+pxb core
	vm "$k" amd gpus4 core
	vm "$k" vtd gpus4 faults
	vm "$k" amd gpus4 faults
	vm "$k" vtd gpus4 tenants
	vm "$k" amd gpus4 tenants
	vm "$k" vtd numa2 topology
	vm "$k" vtd bigbar bigbar
	vm "$k" amd bigbar bigbar
	vm "$k" vtd gpus4 stress vm.ops=1000 vm.seed="$seed"
done
# ---- races (tests/guest/races.sh) ---------------------------------------
# Netlink clients, sysfs unbind/bind, remove/rescan, hot-plug through the
# QEMU monitor and fault bursts at once, then the invariants.  On numa2
# under VT-d: the only topology with a hot-plug port, with links across
# three host bridges (where the IOVA guard reserves and gives back ranges);
# AMD-Vi cannot run it (QEMU 7.2 does not translate boot-time devices
# behind root ports).  Debian 6.12 only (about 90 s); the debug kernel runs
# it too, with fault injection (tests/guest/faultinject.sh).
for k in $kernels; do
	case $k in
	6.12.*) vm "$k" vtd numa2 races vm.seed="$seed" ;;
	esac
done
# ---- end of races ---------------------------------------------------------

# The newest Debian kernel (trixie-backports, 7.x), when it could be built
# and unpacked: the core and fault suites on both IOMMUs.
if [ -n "$newer" ]; then
	set -- $newer
	export P2PMAP_VM_KERNEL=$2
	vm "$1" vtd gpus4+pxb core
	vm "$1" amd gpus4 core
	vm "$1" vtd gpus4 faults
	vm "$1" amd gpus4 faults
	unset P2PMAP_VM_KERNEL
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
