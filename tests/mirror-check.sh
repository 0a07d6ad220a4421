#!/bin/bash
# mirror-check.sh: the Debian archive is taken from the machine's apt
# sources (tests/debian-mirror.sh), and no archive's host name is written
# in the project, as TAP lines.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case NAME WANT: run debian-mirror.sh on $tmp/etc, compare.
case_is() {
	local got
	got=$(P2PMAP_APT_ETC=$tmp/etc "$top/tests/debian-mirror.sh")
	[ "$got" = "$2" ]; tap $? "debian-mirror: $1 (got '${got}')"
	rm -rf "$tmp/etc"; mkdir -p "$tmp/etc/sources.list.d"
}
mkdir -p "$tmp/etc/sources.list.d"
cat >"$tmp/etc/sources.list.d/debian.sources" <<'X'
Types: deb
URIs: http://sec.example/debian-security
Suites: bookworm-security
Components: main

# a comment
Types: deb-src deb
URIs: http://archive.example/debian http://second.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
X
case_is "deb822: the main suite's first URI, not security" \
	http://archive.example/debian
cat >"$tmp/etc/sources.list.d/off.sources" <<'X'
Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no
X
case_is "deb822: a disabled stanza is not taken" ""
cat >"$tmp/etc/sources.list" <<'X'
# deb http://commented.example/debian bookworm main
deb http://sec.example/debian-security bookworm-security main
deb [arch=amd64 signed-by=/k.gpg] http://list.example/debian bookworm main
X
case_is "one-line: options skipped, security not taken" \
	http://list.example/debian
case_is "no source: nothing printed" ""
P2PMAP_APT_ETC=$tmp/etc "$top/tests/debian-mirror.sh" >/dev/null
[ $? = 1 ]; tap $? "debian-mirror: no source: exit 1"

# No archive host in what the project ships or runs.
hits=$(cd "$top" && git ls-files -z 2>/dev/null |
	xargs -0 grep -lE '(deb|ftp|security|httpredir)\.debian\.org' 2>/dev/null |
	grep -v '^tests/mirror-check.sh$')
[ -z "$hits" ]; tap $? "no Debian archive host name in the project"
[ -z "$hits" ] || echo "$hits" | sed 's/^/# /'
tap_done
