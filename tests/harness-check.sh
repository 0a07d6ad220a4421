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
top=$top_real

# vm_run_all: boots run two at a time, reported in the order queued.  A
# fake run-vm.sh (in a fake tree) writes a guest log after a pause.
mkdir -p "$tmp/t2/tests/vm" "$tmp/t2/tests/guest"
echo '# floor: 1' >"$tmp/t2/tests/guest/s.sh"
cat >"$tmp/t2/tests/vm/run-vm.sh" <<'EOF'
#!/bin/bash
# run-vm.sh KVER IOMMU TOPO SUITE INITRD LOG [ARGS]: a guest that takes
# vm.wait=S seconds.
sleep "${7#vm.wait=}"
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
	start=$SECONDS
	vm_run_all >"$tmp/q.out"
	echo "$pass $fail $((SECONDS - start))" >"$tmp/q.n"
)
read -r q_pass q_fail q_secs <"$tmp/q.n"
order=$(grep -o 'ok - \[k[0-9] vtd s\] VM ran' "$tmp/q.out" | cut -c7-8 | tr -d '\n')
echo "# three boots of 2, 1 and 1 s: $q_secs s, reported in order $order"
[ "$q_fail" = 0 ] && [ "$q_pass" -ge 12 ] && [ "$order" = k1k2k3 ]
tap $? "vm_run_all: every boot reported, in the order queued ($q_pass passed)"
[ "$q_secs" -le 3 ]
tap $? "vm_run_all: two boots at a time (3 boots of 2+1+1 s in $q_secs s)"

tap_done
