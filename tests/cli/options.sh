#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The commands' table (user/cmd/cmd_table.c, as "p2pmap help --table"
# prints it) and their parsers cannot drift: every option of the table is
# taken by its command, as --opt VALUE and --opt=VALUE, in some subcommand
# and answered "unknown option" in none; a word the table lacks, or a
# prefix of an option's name, is refused by every command and subcommand
# the same way.  The commands run with their netlink socket refused (an
# LD_PRELOAD shim), so none reaches a loaded module.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# P2PMAP_CLI_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_CLI_BIN:-$top/user/p2pmap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/hostroot" "$tmp/root" "$tmp/cwd" "$tmp/mods"
export P2PMAP_CONTAINER_ROOT=$tmp/hostroot P2PMAP_MODULES_DIR=$tmp/mods
# verify: no CUDA device, whatever this machine has.
export CUDA_VISIBLE_DEVICES='' HOME=$tmp

. "$top/tests/tap.sh"

if [ -z "${P2PMAP_CLI_BIN:-}" ]; then
	make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
	tap $? "p2pmap builds"
fi
if ! cc -shared -fPIC -o "$tmp/nosock.so" "$top/tests/cli/nosock.c" -ldl 2>>"$tmp/build.log"; then
	tap_skip "the table against the parsers" "no C compiler for the netlink shim"
	tap_done
	exit
fi
: >"$tmp/nccl.log"

"$p2pmap" help --table >"$tmp/table"
cmds=$(awk -F'\t' '$1 == "command" { print $2 }' "$tmp/table")
[ -n "$cmds" ]
tap $? "help --table lists the commands"

run() {	# run ARGS...: exit code; stderr in $tmp/err
	(cd "$tmp/cwd" && LD_PRELOAD=$tmp/nosock.so timeout 20 "$p2pmap" "$@") \
		>/dev/null 2>"$tmp/err"
}
# The arguments a context needs besides options, so that a usage error
# there is about the option tried.
base() {	# base CMD [SUB]
	case "$1 ${2:-}" in
	"link add" | "link del" | "link delete") echo 0000:01:00.0 0000:41:00.0 ;;
	"nccl-check ") echo "$tmp/nccl.log" ;;
	"doctor ") echo --root "$tmp/root" ;;
	"proxmox-hook ") echo 100 post-stop ;;
	esac
}
# A value of the kind the table names.
value() {
	case $1 in
	SECONDS | "[SECONDS]") echo 0 ;;
	N | PID) echo 1 ;;
	MASK) echo 0x3 ;;
	LIST) echo 0,1 ;;
	BYTES) echo 4K ;;
	FILE | PATH | LOG | DIR) echo "$tmp/file" ;;
	"VENDOR[:DEVICE]") echo 10de ;;
	*"|"*) echo "${1%%|*}" ;;
	*) echo nvidia ;;
	esac
}
# Where the option tried was refused: the words of this parser, and those
# of the hand-written ones before it ("unknown argument", "bad argument",
# a bare usage line).
refused() { grep -Eq "unknown option|unknown argument|bad argument|another subcommand's option|in the table but not parsed|^p2pmap: usage:" "$tmp/err"; }
unknown() { grep -Eq "unknown option|unknown argument|bad argument" "$tmp/err"; }

# The contexts of each command: itself, then each subcommand.  A command
# that cannot go without its subcommand (link, config: "CMD" alone is a
# usage error) has only its subcommands.
: >"$tmp/contexts"
for c in $cmds; do
	subs=$(awk -F'\t' -v c="$c" '$1 == "subcommand" && $2 == c { print $3 }' "$tmp/table")
	# shellcheck disable=SC2046
	run "$c" $(base "$c")
	rc=$?
	[ -n "$subs" ] && [ $rc = 2 ] || echo "$c" >>"$tmp/contexts"
	for s in $subs; do echo "$c $s" >>"$tmp/contexts"; done
done

echo "# $(wc -l <"$tmp/contexts") commands and subcommands, $(grep -c '^option' "$tmp/table") options of the table"

# Every option in every context: taken in one at least (each of its
# forms), "unknown" in none.
missing='' unknown=''
while IFS=$'\t' read -r kind c o arg; do
	[ "$kind" = option ] || continue
	forms=("$o")
	if [ "$arg" != - ]; then
		v=$(value "$arg")
		forms=("$o $v")
		[[ $o == --* ]] && forms+=("$o=$v")
	fi
	for f in "${forms[@]}"; do
		taken=
		while read -r ctx; do
			# shellcheck disable=SC2046,SC2086
			run $ctx $(base $ctx) $f
			refused || taken="$taken [$ctx]"
			! unknown || unknown="$unknown [$ctx $f]"
		done < <(grep "^$c\( \|$\)" "$tmp/contexts")
		[ -n "$taken" ] || missing="$missing [$c $f]"
	done
done <"$tmp/table"
[ -z "$missing" ]
tap $? "every option of the table is taken by its command, --opt VALUE and --opt=VALUE${missing:+ (refused everywhere:$missing)}"
[ -z "$unknown" ]
tap $? "no command answers an option of its table with \"unknown option\"${unknown:+ (not:$unknown)}"

# A word the table lacks: refused in every context, named, with the usage.
bad=
while read -r ctx; do
	c=${ctx%% *}
	# shellcheck disable=SC2046,SC2086
	run $ctx --not-in-table $(base $ctx)
	rc=$?
	[ $rc = 2 ] && grep -q "unknown option \"--not-in-table\"" "$tmp/err" &&
		grep -q "usage: p2pmap $c" "$tmp/err" || bad="$bad [$ctx: $rc]"
done <"$tmp/contexts"
[ -z "$bad" ]
tap $? "an option the table lacks: exit 2, named as unknown, with the usage, in every command and subcommand${bad:+ (not:$bad)}"

# A prefix of an option's name (getopt_long would take a unique one): no.
bad=
while IFS=$'\t' read -r kind c o arg; do
	[ "$kind" = option ] && [[ $o == --??* ]] || continue
	p=${o%?}
	awk -F'\t' -v c="$c" -v p="$p" '$2 == c && $3 == p { f = 1 } END { exit !f }' \
		"$tmp/table" && continue	# cut short, an option itself
	v=
	[ "$arg" = - ] || v=$(value "$arg")
	while read -r ctx; do
		# shellcheck disable=SC2046,SC2086
		run $ctx $(base $ctx) $p $v
		rc=$?
		[ $rc = 2 ] && grep -q "unknown option \"$p\"" "$tmp/err" ||
			bad="$bad [$ctx $p: $rc]"
	done < <(grep "^$c\( \|$\)" "$tmp/contexts")
done <"$tmp/table"
[ -z "$bad" ]
tap $? "an option's name cut short is refused as unknown (no abbreviations)${bad:+ (not:$bad)}"

# The global options: the same parser.
bad=
for args in "--not-in-table status" "--jso status" "--json=1 status"; do
	# shellcheck disable=SC2086
	run $args
	rc=$?
	[ $rc = 2 ] && grep -q '(try "p2pmap help")' "$tmp/err" || bad="$bad [$args: $rc]"
done
[ -z "$bad" ]
tap $? "before the command: an unknown option, a prefix, a value to a flag are refused (exit 2)${bad:+ (not:$bad)}"

# Arguments and options in any order; "--" ends the options; "-" is an
# argument (nccl-check reads standard input), whatever POSIXLY_CORRECT says.
printf 'x Init COMPLETE\n' >"$tmp/nccl.log"
run nccl-check - --json <"$tmp/nccl.log"
rc1=$?
grep -q "^p2pmap: nccl-check: -: " "$tmp/err"
rc2=$?
[ $rc1 = 1 ] && [ $rc2 = 0 ]
tap $? "nccl-check - reads standard input (as p2pmap.8 says): exit $rc1"
cp "$tmp/nccl.log" "$tmp/cwd/--json"
run nccl-check -- --json
rc1=$?
[ $rc1 = 1 ] && grep -q "^p2pmap: nccl-check: --json: " "$tmp/err"
tap $? "after \"--\" an argument starting with - is no option: nccl-check -- --json reads the file --json (exit $rc1)"
echo 'options p2pmap links=0000:01:00.0>0000:41:00.0' >"$tmp/p.conf"
bad=
for args in "config check $tmp/p.conf" "config check -- $tmp/p.conf" \
	    "config check --file=$tmp/p.conf" "config check --file $tmp/p.conf"; do
	# shellcheck disable=SC2086
	run $args
	rc=$?
	[ $rc = 0 ] || bad="$bad [$args: $rc]"
	# shellcheck disable=SC2086
	POSIXLY_CORRECT=1 run $args
	rc=$?
	[ $rc = 0 ] || bad="$bad [POSIXLY_CORRECT $args: $rc]"
done
POSIXLY_CORRECT=1 run link add 0000:01:00.0 0000:41:00.0 --bogus
rc=$?
[ $rc = 2 ] && grep -q 'unknown option "--bogus"' "$tmp/err" || bad="$bad [POSIXLY_CORRECT link add A B --bogus: $rc]"
[ -z "$bad" ]
tap $? "config check PATH, -- PATH, --file=PATH, --file PATH; an option after the addresses, with POSIXLY_CORRECT too${bad:+ (not:$bad)}"
bad=
for args in "faults --watch 0" "faults --watch=0" "faults --json --watch 0"; do
	# shellcheck disable=SC2086
	run $args
	rc=$?
	[ $rc = 2 ] && grep -q 'invalid interval "0"' "$tmp/err" || bad="$bad [$args: $rc]"
done
run faults --watch --json
rc=$?
[ $rc = 5 ] || bad="$bad [faults --watch --json: $rc]"
[ -z "$bad" ]
tap $? "faults --watch [SECONDS]: --watch 0 and --watch=0 read the value, --watch --json none${bad:+ (not:$bad)}"

tap_done
