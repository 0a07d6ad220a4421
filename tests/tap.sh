# shellcheck shell=bash
# tap.sh, sourced by the host-side test scripts: TAP lines for run.sh.
#   tap STATUS DESC   "ok N - DESC" when STATUS is 0, else "not ok N - DESC"
#   tap_skip DESC WHY "ok N - DESC # SKIP WHY": not run here
#   tap_done          "1..N" and "# N passed, N failed"; fails if any failed
tap_n=0 tap_failed=0

tap() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

tap_done() {
	echo "1..$tap_n"
	echo "# $((tap_n - tap_failed)) passed, $tap_failed failed"
	[ "$tap_failed" = 0 ]
}

# tap_skip DESC WHY: a test not run here, said as such (TAP "# SKIP").
tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}
