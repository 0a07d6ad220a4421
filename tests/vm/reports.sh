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
# vtd-pte-already-set" and "P2PMAP-EXPECT-WARN: end" (tests/guest/lib.sh:
# expect_warn), the WARN that Intel's page-table code issues right after
# its "DMA PTE for vPFN ... already set" line is expected: a "WARNING: CPU:"
# line at most 3 lines after such a line is not a report there.  (It is
# matched by that preceding line, not by the function the WARNING names:
# __domain_mapping is inlined into intel_iommu_map_pages in some builds.)
# Every other report in the window still is one.
set -uo pipefail

first_report() {
	tr -d '\r' <"$1" | awk '
	/P2PMAP-EXPECT-WARN: begin / {
		want = $0; sub(/.*P2PMAP-EXPECT-WARN: begin /, "", want)
		sub(/ .*/, "", want)
		next
	}
	/P2PMAP-EXPECT-WARN: end/ { want = ""; next }
	/DMA PTE for vPFN .* already set/ { pte = NR }
	/BUG:|UBSAN:|WARNING:|inconsistent lock state|Oops|Kernel panic|ODEBUG:|general protection fault|cannot create duplicate filename/ ||
	/^(\[ *[0-9.]+\] )?(kmemleak: )?unreferenced object/ {
		if (want == "vtd-pte-already-set" && $0 ~ /WARNING: CPU: / &&
		    pte && NR - pte <= 3)
			next
		print
		found = 1
		exit
	}
	END { exit found }'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	first_report "$1"
fi
