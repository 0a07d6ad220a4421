#!/bin/bash
# bench-check.sh: unit check of tests/bench.sh's boots (make bench), with a
# stand-in for run-vm.sh (P2PMAP_BENCH_RUNVM) whose guest dies in the
# boots named by DIE.  TAP lines; no VM needed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stand-in: KVER IOMMU TOPO SUITE INITRD LOG [ARGS...], as run-vm.sh.
# It notes each boot in $tmp/boots ("PART N ARGS...") and writes a report
# of two ratios; the N-th boot of PART dies between them ("Oops: int3", no
# "BENCH: done") when DIE holds "PART:N".
cat >"$tmp/run-vm" <<'EOF'
#!/bin/bash
log=$6
part=$(basename "$log" .log)
part=${part#bench-$1-}
n=$(($(grep -c "^$part " "$BOOTS") + 1))
shift 6
echo "$part $n $*" >>"$BOOTS"
{
	echo "P2PMAP-VM: start"
	printf 'BENCH: %s boot %d: 1.0 us vs 2.0 us: ratio 0.50 (goal <= 1.0)\r\n' "$part" "$n"
	case " $DIE " in *" $part:$n "*)
		echo "[   12.345678] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI"
		exit 0 ;;
	esac
	echo "BENCH: $part boot $n: 3.0 us vs 2.0 us: ratio 1.50 (no goal set)"
	echo "BENCH: done"
	echo "P2PMAP-VM: done"
} >"$log"
EOF
chmod +x "$tmp/run-vm"

# bench NAME: the VT-d parts (bigbar, iova, early) as bench.sh's main runs
# them (set -e), in a subshell; sets out (what it printed) and rc.
bench() {
	mkdir -p "$tmp/$1"
	: >"$tmp/$1/boots"
	(
		. "$top/tests/bench.sh"
		logs=$tmp/$1 k=6.12.1-amd64 qemu11=
		parts
		summary
	) >"$tmp/$1/out" 2>&1 </dev/null
	rc=$?
	out=$(cat "$tmp/$1/out")
}
export P2PMAP_BENCH_RUNVM=$tmp/run-vm P2PMAP_BENCH_IOMMUS=vtd BOOTS DIE

# printed LINE: out has exactly LINE.
printed() { grep -qxF -- "$1" <<<"$out"; }

BOOTS=$tmp/clean/boots DIE="" bench clean
tap $((rc != 0)) "bench: every boot finished: it passes (rc $rc)"
printed "bench: every part measured"
tap $? "bench: ... and says every part was measured"
[ "$(wc -l <"$tmp/clean/boots")" = 3 ]
tap $? "bench: ... one boot per part"
printed "vtd-iova boot 1: 1.0 us vs 2.0 us: ratio 0.50 (goal <= 1.0)"
tap $? "bench: ... its report printed (carriage returns dropped)"

BOOTS=$tmp/once/boots DIE="vtd-iova:1" bench once
tap $((rc != 0)) "bench: a boot that died once: it passes on the retry (rc $rc)"
printed "bench: vtd iova: the VM did not finish (see $tmp/once/bench-6.12.1-amd64-vtd-iova.1.log): booting it again"
tap $? "bench: ... the retry is said"
[ "$(grep -c '^vtd-iova ' "$tmp/once/boots")" = 2 ] &&
	[ "$(grep '^vtd-iova ' "$tmp/once/boots" | cut -d' ' -f3-)" = \
		"$(printf 'bench.part=iova\nbench.part=iova')" ]
tap $? "bench: ... booted twice, with the same kernel arguments"
grep -q 'Oops: int3' "$tmp/once/bench-6.12.1-amd64-vtd-iova.1.log" &&
	grep -q '^BENCH: done' "$tmp/once/bench-6.12.1-amd64-vtd-iova.log"
tap $? "bench: ... the first log kept as .1.log, the retry's as .log"
printed "vtd-iova boot 2: 3.0 us vs 2.0 us: ratio 1.50 (no goal set)" &&
	! grep -q 'vtd-iova boot 1' <<<"$out"
tap $? "bench: ... the retry's report printed, not the dead boot's"
printed "bench: every part measured"
tap $? "bench: ... every part measured"
BOOTS=$tmp/once/boots DIE="" bench once
[ ! -e "$tmp/once/bench-6.12.1-amd64-vtd-iova.1.log" ]
tap $? "bench: a later run that boots each part once leaves no .1.log of it"

BOOTS=$tmp/twice/boots DIE="vtd-iova:1 vtd-early:1 vtd-early:2" bench twice
tap $((rc == 0)) "bench: a part whose boot died twice fails the bench (rc $rc)"
printed "bench: not measured (the VM did not finish twice): vtd early"
tap $? "bench: ... its last line names that part alone"
[ "$(tail -1 "$tmp/twice/out")" = "bench: not measured (the VM did not finish twice): vtd early" ]
tap $? "bench: ... as the last line"
printed "first boot, unfinished: vtd-early boot 1: 1.0 us vs 2.0 us: ratio 0.50 (goal <= 1.0)" &&
	printed "vtd-early boot 2: 1.0 us vs 2.0 us: ratio 0.50 (goal <= 1.0)"
tap $? "bench: ... the ratios both boots finished printed, the first boot's marked"
printed "bench: vtd early: the VM did not finish twice (see $tmp/twice/bench-6.12.1-amd64-vtd-early.1.log, $tmp/twice/bench-6.12.1-amd64-vtd-early.log)"
tap $? "bench: ... and its logs named"
[ "$(grep -c '^vtd-early ' "$tmp/twice/boots")" = 2 ]
tap $? "bench: ... two boots, no third"
printed "vtd-bigbar boot 1: 3.0 us vs 2.0 us: ratio 1.50 (no goal set)" &&
	printed "vtd-iova boot 2: 3.0 us vs 2.0 us: ratio 1.50 (no goal set)"
tap $? "bench: ... the other parts still measured and printed"
tap_done
