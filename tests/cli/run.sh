#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CLI's one grammar, where it needs no module: per-command help,
# --opt=value for every option, -j/--json before the command, iproute2's
# "link show/list/delete".  (The VM suites use the same forms against the
# module.)  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
p2pmap=$top/user/p2pmap
stubdir=$top/build/cuda-stub
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1 &&
	make -s -C "$top/tests/cuda-stub" OUT="$stubdir" >>"$tmp/build.log" 2>&1
tap $? "p2pmap and the CUDA stub build"

run() {	# run NAME ARGS...
	local name=$1
	shift
	"$p2pmap" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
}
rc() { cat "$tmp/$1.rc"; }

bad=
for c in list link status faults monitor check info policy config verify metrics; do
	run h1 help $c
	run h2 $c --help
	run h3 $c -h
	[ "$(rc h1)$(rc h2)$(rc h3)" = 000 ] && grep -q "^Usage: p2pmap $c " "$tmp/h1.out" &&
		cmp -s "$tmp/h1.out" "$tmp/h2.out" && cmp -s "$tmp/h1.out" "$tmp/h3.out" ||
		bad="$bad $c"
done
[ -z "$bad" ]
tap $? "help CMD, CMD --help and CMD -h print that command's usage, exit 0${bad:+ (not:$bad)}"
run h4 link add 0000:01:00.0 --help
grep -q "^Usage: p2pmap link " "$tmp/h4.out" && [ "$(rc h4)" = 0 ]
tap $? "--help after a subcommand's arguments too"
run h5 help nosuch
[ "$(rc h5)" = 2 ] && grep -q 'no command "nosuch"' "$tmp/h5.err"
tap $? "help of an unknown command: exit 2"
run h6 --help
! grep -q -- "--no-check" "$tmp/h6.out" && grep -q -- "-j, --json" "$tmp/h6.out"
tap $? "the main help lists -j/--json, not the test-only --no-check"

export P2PMAP_CUDA_STUB="0000:01:00.0,0000:41:00.0"
export LD_LIBRARY_PATH=$stubdir HOME=$tmp
run eq verify --devices=0,1 --size=4K --timeout=5
[ "$(rc eq)" = 0 ] && grep -qx "verify: 2 directions, 2 work" "$tmp/eq.out"
tap $? "--opt=value: verify --devices=0,1 --size=4K --timeout=5"
run eqbad verify --size=0
[ "$(rc eqbad)" = 2 ] && grep -q 'invalid --size "0"' "$tmp/eqbad.err"
tap $? "--opt=value: a bad value is named as with --opt VALUE (exit 2)"
run j -j verify --devices 0,1 --size 4K
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["summary"]["working"] == 2' "$tmp/j.out"
tap $? "-j before the command: its JSON"
run j2 --json verify --size=4K
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j2.out"
tap $? "--json before the command too"
run j3 -j check
[ "$(rc j3)" = 2 ]
tap $? "-j for a command without JSON output: a usage error"
echo 'options p2pmap links=0000:01:00.0>0000:41:00.0' >"$tmp/p.conf"
run cf config check --file="$tmp/p.conf"
[ "$(rc cf)" = 0 ] && grep -q "ok (1 link)" "$tmp/cf.out"
tap $? "--file=PATH"

run lf link flush --bogus
[ "$(rc lf)" = 2 ] && grep -q "usage: p2pmap link flush" "$tmp/lf.err"
tap $? "link flush: a bad argument is a usage error"
run ca config apply --file "$tmp/missing.conf"
[ "$(rc ca)" = 1 ] && grep -q "missing.conf: No such file" "$tmp/ca.err"
tap $? "config apply: a missing file is said (exit 1)"
run pd policy set --drivers ""
[ "$(rc pd)" = 2 ] && grep -q 'admits no driver.*--force' "$tmp/pd.err"
tap $? "policy set --drivers \"\" (admit no driver) is refused without --force"
run pd2 policy set --drivers= --force
[ "$(rc pd2)" = 1 ] && ! grep -q 'admits no driver' "$tmp/pd2.err"
tap $? "... with --force it goes on (here: to the missing module)"
run ld link delete
[ "$(rc ld)" = 2 ] && grep -q "need two addresses" "$tmp/ld.err"
tap $? "link delete is link del"
if [ ! -d /sys/module/p2pmap ]; then
	run ls link show
	run st status
	[ "$(rc ls)" = "$(rc st)" ] && cmp -s "$tmp/ls.err" "$tmp/st.err"
	tap $? "link show is status (here: both say the module is not loaded)"
else
	tap_skip "link show is status" "p2pmap is loaded on this machine"
fi

if [ ! -d /sys/module/p2pmap ]; then
	run v --version
	[ "$(rc v)" = 0 ] && [ "$(cat "$tmp/v.out")" = "p2pmap $(cat "$top/VERSION")
module: not loaded" ]
	tap $? "--version: the CLI's, and the module's state"
else
	tap_skip "--version without the module" "p2pmap is loaded on this machine"
fi

# Not loaded: installed or not, and the command that fixes it.
if [ ! -d /sys/module/p2pmap ]; then
	mkdir -p "$tmp/mods" "$tmp/nomods"
	echo "updates/dkms/p2pmap.ko.xz:" >"$tmp/mods/modules.dep"
	echo "kernel/drivers/foo.ko:" >"$tmp/nomods/modules.dep"
	P2PMAP_MODULES_DIR=$tmp/mods run nl1 info
	P2PMAP_MODULES_DIR=$tmp/nomods run nl2 info
	[ "$(rc nl1)" = 1 ] && grep -q 'it is installed for kernel .*"modprobe p2pmap"' "$tmp/nl1.err" &&
		grep -q "it is not installed for kernel .*dkms install p2pmap/$(cat "$top/VERSION") -k" "$tmp/nl2.err"
	tap $? "module not loaded: says whether it is installed, and the command that fixes it"
else
	tap_skip "module not loaded: installed or not" "p2pmap is loaded on this machine"
fi

tap_done
