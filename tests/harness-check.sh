#!/bin/bash
# harness-check.sh: unit checks of tests/harness.sh, the counting that
# make check relies on, as TAP lines.  Each case is a producer that once
# went uncounted (or could): the harness must fail it.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
logs=$tmp

# counted NAME CMD...: run the harness's suite() on CMD in a subshell; sets
# c_pass c_fail c_skip and c_out (what it printed).
counted() {
	local name=$1
	shift
	(
		. "$top/tests/harness.sh"
		suite "[$name]" "$@" >"$tmp/$name.out"
		echo "$pass $fail $skip" >"$tmp/$name.n"
	)
	read -r c_pass c_fail c_skip <"$tmp/$name.n"
	c_out=$(cat "$tmp/$name.out")
}

# producer LINES... : a script printing its arguments, then exiting $RC.
producer() {
	printf '%s\n' "$@" >"$tmp/lines"
	printf '#!/bin/sh\ncat %s\nexit ${RC:-0}\n' "$tmp/lines" >"$tmp/prod"
	chmod +x "$tmp/prod"
}

producer "ok 1 - a" "ok 2 - b # SKIP not here" "not ok 3 - c" "1..3"
counted good "$tmp/prod"
[ "$c_pass $c_fail $c_skip" = "1 1 1" ]
tap $? "a whole stream: 1 passed, 1 failed, 1 skipped ($c_pass $c_fail $c_skip)"

producer "1..2" "ok 1 - a" "ok 2 - b"
counted planfirst "$tmp/prod"
[ "$c_pass $c_fail" = "2 0" ]
tap $? "a plan before the tests is a plan too"

producer "ok 1 - a" "ok 2 - b" "1..3"
counted short "$tmp/prod"
[ "$c_fail" = 1 ] && grep -q "planned 3 tests and ran 2" <<<"$c_out"
tap $? "fewer tests than the plan: a failure, named"

producer "ok 1 - a" "1..1" "ok 1 - b"
counted noplan "$tmp/prod"
[ "$c_fail" = 1 ] && grep -q "stopped early" <<<"$c_out"
tap $? "tests after the last plan (a second binary that died): a failure"

producer "# nothing"
counted empty "$tmp/prod"
[ "$c_fail" = 1 ] && grep -q "printed no test" <<<"$c_out"
tap $? "a suite that prints nothing: a failure"

producer "ok 1 - a" "1..1"
RC=2 counted status "$tmp/prod"
[ "$c_fail" = 1 ] && grep -q "exited with status 2 and no test failed" <<<"$c_out"
tap $? "a suite that exits non-zero with every test passed: a failure"

# A suite that hangs: stopped at its budget with what it started (its
# process group), failed alone, and the run goes on.
(
	. "$top/tests/harness.sh"
	start=$SECONDS
	suite -t 2 "[hang]" sh -c 'echo "ok 1 - a"; echo $$ >'"$tmp/hang.pid"'; sleep 60 & echo $! >'"$tmp/hang.child"'; sleep 60' >"$tmp/hang.out"
	echo "$pass $fail $((SECONDS - start))" >"$tmp/hang.n"
)
read -r h_pass h_fail h_secs <"$tmp/hang.n"
[ "$h_pass $h_fail" = "1 1" ] && [ "$h_secs" -le 5 ] &&
	grep -q "ran past its budget of 2 s and was stopped" "$tmp/hang.out"
tap $? "a host suite past its budget (2 s): stopped after $h_secs s, a failure, named"
# (gone, or a zombie its new parent has not reaped yet)
sleep 1
hc=$(cat "$tmp/hang.child" 2>/dev/null)
[ -n "$hc" ] && ! kill -0 "$hc" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$hc/stat" 2>/dev/null)" = Z ]
tap $? "a host suite past its budget: what it started in the background is stopped too"

# Queued host suites, two at a time: each counted as suite() counts it, in
# the order queued, a hung one stopped at its budget.
(
	. "$top/tests/harness.sh"
	producer "ok 1 - a" "not ok 2 - b" "1..2"
	cp "$tmp/prod" "$tmp/prod1"
	suite_queue -t 2 "[q1]" sh -c 'echo "ok 1 - slow"; sleep 60'
	suite_queue "[q2]" "$tmp/prod1"
	# q3 spins: 2,000,000 turns of a bash loop, 3-6 s of CPU on the
	# 2-core machines (800,000 measured 2.2 s alone, 1 s in make check's
	# queue of stop 51: a check at 1 s of CPU needs the margin).
	suite_queue "[q3]" bash -c 'i=0; while [ $i -lt 2000000 ]; do i=$((i + 1)); done
		echo "ok 1 - c"; echo 1..1; exit 3'
	start=$SECONDS
	suites_run >"$tmp/qs.out"
	echo "$pass $fail $((SECONDS - start))" >"$tmp/qs.n"
)
read -r qs_pass qs_fail qs_secs <"$tmp/qs.n"
qs_order=$(grep -o '^[a-z ]*- \[q[0-9]\]' "$tmp/qs.out" | grep -o 'q[0-9]' | uniq | tr -d '\n')
[ "$qs_pass $qs_fail" = "3 3" ] && [ "$qs_order" = q1q2q3 ] && [ "$qs_secs" -le 30 ] &&
	grep -q "\[q1\] the suite itself: it ran past its budget of 2 s" "$tmp/qs.out" &&
	grep -q "\[q3\] the suite itself: it exited with status 3" "$tmp/qs.out"
tap $? "queued host suites: counted in queue order ($qs_order), a hung one stopped at its budget, a bad status failed ($qs_pass passed, $qs_fail failed, $qs_secs s)"
# q1 sleeps (no CPU: stopped at its budget), q3 spins (1 s of CPU or
# more on a machine up to three times as fast as these).
grep -qx '# time: \[q1\] took [2-9] s (wall), 0 s of CPU of its budget of 2 s' "$tmp/qs.out" &&
	grep -qEx '# time: \[q3\] took [0-9]+ s \(wall\), [1-9][0-9]* s of CPU of its budget of 600 s' "$tmp/qs.out"
tap $? "queued host suites: each one's wall time, CPU time and budget said ($(grep -c '^# time: \[q' "$tmp/qs.out") lines: $(grep '^# time: \[q3' "$tmp/qs.out"))"

# Two at a time, even where the caller has children of its own that end
# meanwhile (a process substitution).
(
	. "$top/tests/harness.sh"
	for q in 4 5 6; do
		suite_queue "[q$q]" sh -c "echo start >>$tmp/hev; sleep 0.5; echo end >>$tmp/hev; echo 'ok 1 - x'; echo 1..1"
	done
	while read -r _; do :; done < <(echo a)
	(sleep 0.2) &
	suites_run >/dev/null
)
most=$(awk '/start/ { n++ } /end/ { n-- } n > m { m = n } END { print m }' "$tmp/hev")
[ "$most" = 2 ]
tap $? "queued host suites: two at a time, other children of the caller's notwithstanding (at most $most at once)"

# Not waiting for the caller's other children: run.sh builds the debug
# kernel in the background meanwhile (a bare "wait" waited for it).
(
	. "$top/tests/harness.sh"
	suite_queue "[q7]" sh -c "echo 'ok 1 - x'; echo 1..1"
	sleep 20 &
	bg=$!
	start=$SECONDS
	suites_run >/dev/null
	echo "$((SECONDS - start))" >"$tmp/qw.n"
	kill $bg
)
qw_secs=$(cat "$tmp/qw.n")
[ "$qw_secs" -le 5 ]
tap $? "queued host suites: done without waiting for the caller's other children (a 20 s one: $qw_secs s)"

# The first reproduction: a unit test that does not compile (a syntax
# error in test_json.c) stopped make test before any test ran.
cp -r "$top/user" "$tmp/user"
mkdir -p "$tmp/tests"
cp -r "$top/tests/unit" "$tmp/tests/unit"
rm -rf "$tmp/user/obj"
echo 'this is not C' >>"$tmp/tests/unit/test_json.c"
counted build make -s -C "$tmp/user" test
[ "$c_fail" -ge 1 ] && [ "$c_pass" = 0 ]
tap $? "a unit test that does not build: make test fails the run ($c_pass passed, $c_fail failed)"

# The second: a test binary that prints "not ok" and aborts, its stdout a
# pipe: the line must not be lost (tap.h flushes each line), and the
# abort is a failure of its own.
cat >"$tmp/abort.c" <<'EOF'
#include <stdlib.h>
#include "tap.h"
int main(void)
{
	tap_ok(true, "before the crash");
	tap_ok(false, "the failing check");
	abort();
}
EOF
cc -I"$top/tests/unit" -o "$tmp/abort" "$tmp/abort.c"
counted abort sh -c "'$tmp/abort' | cat"
[ "$c_pass" = 1 ] && [ "$c_fail" -ge 1 ] &&
	grep -q "not ok - \[abort\] the failing check" <<<"$c_out"
tap $? "a binary that aborts after not ok: its lines reach the harness, the run fails"

# vm_suites: what a boot's log says against what the guest counted.
guestlog() {	# guestlog FILE SUITE OK NOTOK TALLY-PASSED TALLY-FAILED [end]
	{
		echo "P2PMAP-SUITE: begin $2"
		for i in $(seq "$3"); do echo "ok $i - $2: x"; done
		for i in $(seq "$4"); do echo "not ok $i - $2: y"; done
		echo "# 6.12 vtd: $5 passed, $6 failed"
		[ "${7:-end}" = end ] && echo "P2PMAP-SUITE: end $2"
		echo "P2PMAP-BATCH: checks"
		echo "ok 1 - batch: every suite exited 0"
	} >"$1"
}
vmcount() {	# vmcount LOG SUITE: sets c_fail, c_out
	(
		. "$top_real/tests/harness.sh"
		vm_suites "[vm]" "$1" "$2" >"$tmp/vm.out"
		echo "$fail" >"$tmp/vm.n"
	)
	c_fail=$(cat "$tmp/vm.n") c_out=$(cat "$tmp/vm.out")
}
mkdir -p "$tmp/tests/guest"
echo '# floor: 3' >"$tmp/tests/guest/fake.sh"
top_real=$top
top=$tmp	# floor() reads $top/tests/guest/SUITE.sh
guestlog "$tmp/g1" fake 4 0 4 0
vmcount "$tmp/g1" fake
[ "$c_fail" = 0 ]
tap $? "a suite whose tally agrees and passes its floor: no failure"
guestlog "$tmp/g2" fake 4 0 5 0
vmcount "$tmp/g2" fake
[ "$c_fail" = 1 ] && grep -q "host counted what the guest did" <<<"$c_out"
tap $? "a line the host did not see (the guest counted 5, the host 4): a failure"
guestlog "$tmp/g3" fake 2 0 2 0
vmcount "$tmp/g3" fake
[ "$c_fail" = 1 ] && grep -q "floor of 3" <<<"$c_out"
tap $? "a suite that stopped early (2 checks, floor 3): a failure"
guestlog "$tmp/g4" fake 4 0 4 0 noend
vmcount "$tmp/g4" fake
[ "$c_fail" = 1 ] && grep -q "did not run to its end" <<<"$c_out"
tap $? "a suite that never ended (the guest died in it): a failure"
# A suite the host stopped (run-vm.sh's per-suite watchdog): it is blamed,
# with why, and the suite after it is said not to have run because of it.
{
	echo "P2PMAP-SUITE: begin fake"
	echo "ok 1 - fake: x"
	echo "P2PMAP-VM-HOST: suite fake still running a minute past its budget of 9 s: guest stopped"
} >"$tmp/g5"
vmcount "$tmp/g5" fake,other
[ "$c_fail" = 2 ] &&
	grep -q "fake: the suite did not run to its end (still running a minute past its budget of 9 s" <<<"$c_out" &&
	grep -q "other: not run: fake before it did not end" <<<"$c_out"
tap $? "a suite stopped at its budget is blamed, the one after it said not run because of it"
top=$top_real

# suite_budgets: the budgets of tests/vm/boots.tsv, 600 s where it has none.
(
	. "$top/tests/harness.sh"
	suite_budgets debug core,faults >"$tmp/b.out"
	suite_budgets 6.12 no-such-suite >>"$tmp/b.out"
)
want_core=$(grep -v '^#' "$top/tests/vm/boots.tsv" | awk -F'\t' '$1 ~ /(^|,)debug(,|$)/ && $4 ~ /core/ { split($4, s, ","); split($5, b, ","); for (i in s) if (s[i] == "core") print b[i]; exit }')
[ "$(head -1 "$tmp/b.out")" = "$want_core,$(grep -v '^#' "$top/tests/vm/boots.tsv" | awk -F'\t' '$1 ~ /(^|,)debug(,|$)/ && $4 ~ /faults/ { split($4, s, ","); split($5, b, ","); for (i in s) if (s[i] == "faults") print b[i]; exit }')" ] &&
	[ "$(sed -n 2p "$tmp/b.out")" = 600 ]
tap $? "suite_budgets: the table's budget for each suite ($(head -1 "$tmp/b.out")), 600 s for one it lacks"

# vm_run_all: boots run two at a time, reported in the order queued.  A
# fake run-vm.sh (in a fake tree) writes a guest log after a pause.
mkdir -p "$tmp/t2/tests/vm" "$tmp/t2/tests/guest"
echo '# floor: 1' >"$tmp/t2/tests/guest/s.sh"
cat >"$tmp/t2/tests/vm/run-vm.sh" <<'EOF'
#!/bin/bash
# run-vm.sh KVER IOMMU TOPO SUITE INITRD LOG [ARGS]: a guest that takes
# vm.wait=S seconds.
echo "$1" >>"$(dirname "$0")/started"
echo "start" >>"$(dirname "$0")/events"
sleep "${7#vm.wait=}"
echo "end" >>"$(dirname "$0")/events"
{ echo "P2PMAP-VM: start"; echo "P2PMAP-SUITE: begin s"; echo "ok 1 - s: $1"
  echo "# k i: 1 passed, 0 failed"; echo "P2PMAP-SUITE: end s"
  echo "P2PMAP-BATCH: checks"; echo "P2PMAP-VM: done"; } >"$6"
EOF
printf '#!/bin/sh\nexit 0\n' >"$tmp/t2/tests/vm/reports.sh"
chmod +x "$tmp/t2/tests/vm/run-vm.sh" "$tmp/t2/tests/vm/reports.sh"
(
	top=$tmp/t2 logs=$tmp/t2
	. "$top_real/tests/harness.sh"
	vm k1 vtd topo s vm.wait=2
	vm k2 vtd topo s vm.wait=1
	vm k3 vtd topo s vm.wait=1
	# Children of the caller's own that end meanwhile (run.sh reads
	# tests/vm/boots.tsv through a process substitution) open no lane.
	while read -r _; do :; done < <(echo a; echo b)
	(sleep 0.3) &
	# Nor does it wait for another child of the caller's (a background
	# build): it returns when its boots are done.
	sleep 20 &
	bg=$!
	start=$SECONDS
	vm_run_all >"$tmp/q.out"
	echo "$pass $fail $((SECONDS - start))" >"$tmp/q.n"
	kill $bg
)
read -r q_pass q_fail q_secs <"$tmp/q.n"
# The most boots at once, from the fake's start and end lines.
most=$(awk '/start/ { n++ } /end/ { n-- } n > m { m = n } END { print m }' "$tmp/t2/tests/vm/events")
order=$(grep -o 'ok - \[k[0-9] vtd s\] VM ran' "$tmp/q.out" | cut -c7-8 | tr -d '\n')
echo "# three boots of 2, 1 and 1 s: $q_secs s, reported in order $order"
[ "$q_fail" = 0 ] && [ "$q_pass" -ge 12 ] && [ "$order" = k1k2k3 ] && [ "$q_secs" -le 12 ]
tap $? "vm_run_all: every boot reported, in the order queued ($q_pass passed), without waiting for the caller's other children ($q_secs s)"
[ "$most" = 2 ]
tap $? "vm_run_all: two boots at a time (at most $most at once; 3 boots of 2+1+1 s in $q_secs s)"
# Each boot's wall and CPU time (the fake sleeps: none).
grep -q '^ok - \[k1 vtd s\] VM ran to the end ([2-9] s, 0 s of CPU)$' "$tmp/q.out"
tap $? "vm_run_all: each boot's wall and CPU time said ($(grep -o 'k1 vtd s\] VM ran to the end.*' "$tmp/q.out"))"
# One at a time: the largest budget starts first, reports keep the queue's
# order.
rm -f "$tmp/t2/tests/vm/started" "$tmp/t2/tests/vm/events"
(
	top=$tmp/t2 logs=$tmp/t2
	. "$top_real/tests/harness.sh"
	P2PMAP_VM_BUDGETS=10 vm k1 vtd topo s vm.wait=0
	P2PMAP_VM_BUDGETS=30,40 vm k2 vtd topo s vm.wait=0
	P2PMAP_VM_BUDGETS=50 vm k3 vtd topo s vm.wait=0
	P2PMAP_VM_JOBS=1 vm_run_all >"$tmp/q2.out"
)
started=$(tr -d '\n' <"$tmp/t2/tests/vm/started")
order=$(grep -o 'ok - \[k[0-9] vtd s\] VM ran' "$tmp/q2.out" | cut -c7-8 | tr -d '\n')
most=$(awk '/start/ { n++ } /end/ { n-- } n > m { m = n } END { print m }' "$tmp/t2/tests/vm/events")
[ "$started" = k2k3k1 ] && [ "$order" = k1k2k3 ] && [ "$most" = 1 ]
tap $? "vm_run_all: started largest budget first ($started), reported in the queue's order ($order)"

tap_done
