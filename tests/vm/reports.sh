#!/bin/bash
# reports.sh LOG: the first kernel report on a test VM's console (LOG).
# Prints that line (carriage returns dropped) and exits 1; prints nothing
# and exits 0 when there is none.  tests/run.sh fails a VM on a report.
#
# Reports: "BUG:" (KASAN: "BUG: KASAN:", "BUG: sleeping function called
# from invalid context", ...), "UBSAN:", "WARNING:" (WARN_ON: "WARNING:
# CPU:", lockdep: "WARNING: possible circular locking ...", "WARNING:
# suspicious RCU usage", ...), "inconsistent lock state", "Oops",
# "Kernel panic", "ODEBUG:" (debugobjects), "general protection fault",
# "cannot create duplicate filename" (sysfs/kobject name clash, with a stack
# dump: e.g. a module whose sysfs directory of a previous load is still
# there, which DEBUG_KOBJECT_RELEASE's delayed release exposes), and
# kmemleak's "unreferenced object" at the start of a line (the guest's
# kmemleak check prints the objects it does not count behind "# ").
# "lockdep" alone is not a report: the debug kernel's boot prints "RCU
# lockdep checking is enabled".
#
# The one exception: between the guest's lines "P2PMAP-EXPECT-WARN: begin
# FUNC" and "P2PMAP-EXPECT-WARN: end" (tests/guest/lib.sh: expect_warn), a
# "WARNING: CPU: ... at ... FUNC+0x..." line, i.e. a WARN in the function
# named by the marker, is expected and not a report.  Every other report
# there still is one.
set -uo pipefail

first_report() {
	tr -d '\r' <"$1" | awk '
	/P2PMAP-EXPECT-WARN: begin / {
		want = $0; sub(/.*P2PMAP-EXPECT-WARN: begin /, "", want)
		sub(/ .*/, "", want)
		next
	}
	/P2PMAP-EXPECT-WARN: end/ { want = ""; next }
	/BUG:|UBSAN:|WARNING:|inconsistent lock state|Oops|Kernel panic|ODEBUG:|general protection fault|cannot create duplicate filename/ ||
	/^(\[ *[0-9.]+\] )?(kmemleak: )?unreferenced object/ {
		if (want != "" && $0 ~ /WARNING: CPU: / &&
		    index($0, " " want "+0x")) {
			expected++
			next
		}
		print
		found = 1
		exit
	}
	END { exit found }'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	first_report "$1"
fi
