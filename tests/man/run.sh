#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages render without warnings and document what the code has;
# the bash completion completes.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	echo "# installing man-db and groff-base" >&2
	apt-get install -y -qq man-db groff-base >/dev/null 2>&1
fi

# Every page: p2pmap.8 (the overview), p2pmap-CMD.8 (one a command), p2pmap.4.
# P2PMAP_MAN_DIR: another set of pages (to show a test fails on broken ones).
man=${P2PMAP_MAN_DIR:-$top/man}
pages=$(cd "$man" && ls *.[1-8])
cmdpages=$(cd "$man" && ls p2pmap-*.8 2>/dev/null)
for page in $pages; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man/$page" \
		>"$tmp/$page.txt" 2>"$tmp/$page.err"
	rc=$?
	[ $rc = 0 ] && [ ! -s "$tmp/$page.err" ] && [ -s "$tmp/$page.txt" ]
	tap $? "man/$page renders without warnings"
	[ -s "$tmp/$page.err" ] && sed 's/^/# /' "$tmp/$page.err"
done

# The commands' table (user/cmd/cmd_table.c), as the CLI prints it.
# P2PMAP_CLI_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_CLI_BIN:-$top/user/p2pmap}
[ -n "${P2PMAP_CLI_BIN:-}" ] || make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
"$p2pmap" help --table >"$tmp/table" 2>"$tmp/table.err"
cmds=$(awk -F'\t' '$1 == "command" { print $2 }' "$tmp/table")
[ -n "$cmds" ]
tap $? "p2pmap help --table lists the commands"

# sect PAGE NAME: the lines of section NAME of man page PAGE.
sect() { awk -v s=".SH $2" '$0 == s { on = 1; next } /^\.SH / { on = 0 } on' "$man/$1"; }
# page_of CMD: the page that documents CMD (help stays in p2pmap.8).
esc() { local s=$1; echo "${s//-/\\-}"; }	# "-" as groff's "\-"
page_of() { [ -f "$man/p2pmap-$1.8" ] && echo "p2pmap-$1.8" || echo p2pmap.8; }
# A command's page, or its full entry (a synopsis) in p2pmap.8; p2pmap.8's
# COMMANDS names each page.
python3 "$top/tests/man/man_options.py" --synopsis "$man/p2pmap.8" >"$tmp/main.synopsis"
sect p2pmap.8 COMMANDS >"$tmp/main.commands"
sect p2pmap.8 "SEE ALSO" | sed 's/,$//' >"$tmp/main.seealso"
missing= unlisted=
for c in $cmds; do
	if [ -f "$man/p2pmap-$c.8" ]; then
		grep -qxF ".BR $(esc "p2pmap-$c") (8)" "$tmp/main.commands" ||
			unlisted="$unlisted $c"
	else
		grep -q "^$c\b" "$tmp/main.synopsis" || missing="$missing $c"
	fi
done
[ -z "$missing" ]
tap $? "every command has its page, or its entry in p2pmap.8${missing:+ (neither:$missing)}"
[ -z "$unlisted" ]
tap $? "p2pmap.8's COMMANDS names every command's page${unlisted:+ (not:$unlisted)}"
for c in "link auto" "config save" "config show" "policy set" "faults reset"; do
	p=$(page_of "${c%% *}")
	grep -q "fB$c\\\\fR\|^\.BR \"$c\"" "$man/$p"
	tap $? "$p documents $c"
done
# Each command page: named for its command, no other command's forms, and
# back to p2pmap.8; p2pmap.8's SEE ALSO names every other page.
bad= noback= unseen=
for p in $cmdpages; do
	c=${p#p2pmap-}; c=${c%.8}
	grep -qx -- "$c" <<<"$cmds" || bad="$bad $p:not-in-the-table"
	sect "$p" NAME >"$tmp/name.$c"
	grep -qF "$(esc "p2pmap-$c") \\- " "$tmp/name.$c" || bad="$bad $p:NAME"
	python3 "$top/tests/man/man_options.py" --synopsis "$man/$p" >"$tmp/synopsis.$c"
	[ -s "$tmp/synopsis.$c" ] || bad="$bad $p:SYNOPSIS"
	grep -qv "^$c\b" "$tmp/synopsis.$c" && bad="$bad $p:SYNOPSIS"
	sect "$p" "SEE ALSO" >"$tmp/seealso.$c"
	grep -q '^\.BR p2pmap (8)' "$tmp/seealso.$c" || noback="$noback $p"
done
for p in $pages; do
	[ "$p" = p2pmap.8 ] && continue
	grep -qxF ".BR $(esc "${p%.*}") (${p##*.})" "$tmp/main.seealso" ||
		unseen="$unseen $p"
done
[ -z "$bad" ]
tap $? "each command page names its command and only its forms${bad:+ (not:$bad)}"
[ -z "$noback" ]
tap $? "each command page's SEE ALSO names p2pmap(8)${noback:+ (not:$noback)}"
[ -z "$unseen" ]
tap $? "p2pmap.8's SEE ALSO names every other page${unseen:+ (not:$unseen)}"
# "p2pmap help CMD" ends naming that page.
bad=
for c in $cmds; do
	p=$(page_of "$c")
	[ "$("$p2pmap" help "$c" | tail -1)" = "See ${p%.8}(8)." ] || bad="$bad $c"
done
[ -z "$bad" ]
tap $? "p2pmap help CMD ends naming CMD's page${bad:+ (not:$bad)}"

# Every --option the commands parse, in the man page and the completion.
opts=$(cat "$top"/user/main.c "$top"/user/cmd/cmd_*.c |
       grep -v '^[[:space:]]*/\?\*' |
       grep -o '"--[a-z][a-z-]*' | tr -d '"' | sort -u)
missing= missing_c=
for o in $opts; do
	grep -qF -- "$(esc "$o")" "$man"/p2pmap*.8 || missing="$missing $o"
	case $o in --version|--help|--no-check) continue ;; esac
	grep -qF -- "$o" "$top/completion/p2pmap.bash" || missing_c="$missing_c $o"
done
[ -z "$missing" ]
tap $? "every option is in the man pages${missing:+ (missing:$missing)}"
[ -z "$missing_c" ]
tap $? "every option is in the completion${missing_c:+ (missing:$missing_c)}"

# Module parameters and sysfs files in p2pmap.4.
missing=
for p in $(sed -n 's/^module_param(\([a-z_]*\),.*/\1/p' "$top"/kmod/*.c |
	   grep -v '^debug_'); do
	grep -q "^\.BI $p=" "$top/man/p2pmap.4" || missing="$missing $p"
done
[ -z "$missing" ]
tap $? "every module parameter is in p2pmap.4${missing:+ (missing:$missing)}"
missing=
for f in $(sed -n 's|^What:.*/\([a-z_]*\)$|\1|p' \
	   "$top/Documentation/ABI/testing/sysfs-kernel-p2pmap"); do
	grep -q "^\.I $f\b\|^\.IR $f\b" "$top/man/p2pmap.4" ||
		missing="$missing $f"
done
[ -z "$missing" ]
tap $? "every sysfs file is in p2pmap.4${missing:+ (missing:$missing)}"
grep -q '^\.B events$' "$top/man/p2pmap.4" &&
	grep -q '^\.B p2pmap$' "$top/man/p2pmap.4" &&
	grep -q '^\.SH IOVA GUARD' "$top/man/p2pmap.4"
tap $? "p2pmap.4: the netlink family, its multicast group, the IOVA guard"

# The completion, in a plain bash (no bash-completion package), driven as
# bash drives it: COMP_LINE and COMP_POINT, COMP_WORDS split at the
# default COMP_WORDBREAKS (a PCI address arrives as "0000" ":" "01" ...),
# and the reply replacing only the last piece of the current word.
mkdir -p "$tmp/pci/0000:01:00.0" "$tmp/pci/0000:41:00.0" "$tmp/pci/0000:81:00.0"
mkdir -p "$tmp/links/0000:01:00.0-0000:41:00.0" \
	 "$tmp/links/0000:01:00.0-0000:81:00.0" "$tmp/links/0000:41:00.0-0000:01:00.0"
mkdir -p "$tmp/pve/qemu-server" "$tmp/pve/lxc"
: >"$tmp/pve/qemu-server/200.conf"
: >"$tmp/pve/lxc/101.conf"
complete_line() {	# complete_line LINE: what each candidate makes of it
	P2PMAP_COMPLETION_PCI_DIR=$tmp/pci P2PMAP_COMPLETION_PVE_DIR=$tmp/pve \
	P2PMAP_COMPLETION_LINKS_DIR=${LINKS_DIR:-$tmp/nolinks} \
	bash --norc --noprofile -c '
		source "$1"
		COMP_LINE=$2 COMP_POINT=${#2}
		# bash: words at white space, each break character its own word.
		COMP_WORDS=()
		for w in $COMP_LINE; do
			while [[ $w == *:* ]]; do
				[ -n "${w%%:*}" ] && COMP_WORDS+=("${w%%:*}")
				COMP_WORDS+=(":"); w=${w#*:}
			done
			[ -n "$w" ] && COMP_WORDS+=("$w")
		done
		last=${COMP_WORDS[${#COMP_WORDS[@]} - 1]}
		if [[ $COMP_LINE == *" " ]]; then COMP_WORDS+=(""); last=; fi
		[ "$last" = ":" ] && last=
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_p2pmap
		# What the user sees: the typed word, its last piece replaced.
		typed=${COMP_LINE##* }
		for r in "${COMPREPLY[@]}"; do
			printf "%s " "${typed%"$last"}$r"
		done' _ "$top/completion/p2pmap.bash" "$1" | sed 's/ $//'
}
expect() {	# expect "WANT" LINE
	local got
	got=$(complete_line "$2")
	[ "$got" = "$1" ]
	tap $? "completion: $2<TAB> -> ${1:-nothing}"
	[ "$got" = "$1" ] || echo "# got: $got"
}
expect "list link" "p2pmap li"
expect "add auto" "p2pmap link a"
expect "del delete" "p2pmap link de"
expect "list link" "p2pmap help li"
expect "-j --json --no-check --version --help" "p2pmap -"
expect "0000:41:00.0" "p2pmap link delete 0000:01:00.0 0000:4"
expect "0000:01:00.0 0000:41:00.0 0000:81:00.0" "p2pmap link add "
expect "0000:01:00.0" "p2pmap link add 0000:0"
expect "0000:41:00.0" "p2pmap link add 0000:01:00.0 0000:4"
expect "0000:41:00.0" "p2pmap link add 0000:01:00.0 0000:41:0"
expect "" "p2pmap link add 0000:01:00.0 0000:41:00.0 "
expect "--both --bars" "p2pmap link add 0000:01:00.0 0000:41:00.0 --"
expect "0000:81:00.0" "p2pmap link del 0000:8"
LINKS_DIR=$tmp/links expect "0000:01:00.0 0000:41:00.0" "p2pmap link del "
LINKS_DIR=$tmp/links expect "0000:41:00.0 0000:81:00.0" "p2pmap link del 0000:01:00.0 "
LINKS_DIR=$tmp/links expect "0000:81:00.0" "p2pmap link del 0000:01:00.0 0000:8"
expect "--numa --driver --dry-run --verbose" "p2pmap link auto --"
expect "--vllm-cache" "p2pmap verify --v"
expect "save show check apply" "p2pmap config "
expect "0000:01:00.0 0000:41:00.0 0000:81:00.0" "p2pmap --no-check faults reset "
expect "--no-check" "p2pmap --no"
expect "200 101" "p2pmap proxmox-hook "
expect "pre-start pre-stop" "p2pmap proxmox-hook 200 pre"
expect "" "p2pmap proxmox-hook 200 pre-start "
expect "--wait --root" "p2pmap proxmox-hook 101 pre-start --"
complete_words() { complete_line "$*"; }
got=$(complete_words p2pmap "")
missing=
for c in $cmds; do
	[[ " $got " == *" $c "* ]] || missing="$missing $c"
done
[ -z "$missing" ]
tap $? "completion offers every subcommand of the table${missing:+ (missing:$missing)}"
bash --norc --noprofile -c 'source "$1" && complete -p p2pmap' _ \
	"$top/completion/p2pmap.bash" >/dev/null
tap $? "completion registers itself for p2pmap"

# The table against p2pmap.8 and the completion, both ways: a command's
# options are those of its synopsis lines in p2pmap.8 (COMMANDS) and those
# the completion offers after "p2pmap CMD -" and "p2pmap CMD SUB -", no
# more and no fewer.  The usage text has drifted before (env's nfd and
# --output were missing from "p2pmap help env").
awk -F'\t' '$1 == "option" { print $2, $3 }' "$tmp/table" | sort -u >"$tmp/table.opts"
for p in p2pmap.8 $cmdpages; do
	python3 "$top/tests/man/man_options.py" "$man/$p"
done | sort -u >"$tmp/man.opts"
for c in $cmds; do
	subs=$(awk -F'\t' -v c="$c" '$1 == "subcommand" && $2 == c { print $3 }' "$tmp/table")
	for s in "" $subs; do
		complete_line "p2pmap $c ${s:+$s }-" | tr ' ' '\n' | grep '^-' |
			sed "s/^/$c /"
	done
done | sort -u >"$tmp/completion.opts"
[ -s "$tmp/table.opts" ] && [ -s "$tmp/man.opts" ] && [ -s "$tmp/completion.opts" ]
tap $? "the table's, the pages' and the completion's options per command are read"
same_opts() {	# same_opts NAME FILE: TAP lines, FILE against the table
	local lacks extra
	lacks=$(comm -23 "$tmp/table.opts" "$2" | paste -sd, -)
	extra=$(comm -13 "$tmp/table.opts" "$2" | paste -sd, -)
	[ -z "$lacks" ]
	tap $? "every option of the table is in $1 for its command${lacks:+ (missing: $lacks)}"
	[ -z "$extra" ]
	tap $? "$1 gives no command an option the table lacks${extra:+ (extra: $extra)}"
}
same_opts "its page's synopsis" "$tmp/man.opts"
# ... and each is described in its page's OPTIONS (help's, in p2pmap.8's
# COMMANDS, checked above).
missing=
while IFS=$'\t' read -r kind c o arg; do
	[ "$kind" = option ] && [ -f "$man/p2pmap-$c.8" ] || continue
	python3 "$top/tests/man/man_options.py" --options "$man/p2pmap-$c.8" \
		>"$tmp/options.$c"
	grep -qxF -- "$o" "$tmp/options.$c" || missing="$missing $c:$o"
done <"$tmp/table"
[ -z "$missing" ]
tap $? "each option of the table is in its command page's OPTIONS${missing:+ (missing:$missing)}"
same_opts "the completion" "$tmp/completion.opts"
# An option's argument as the table names it ("--format shell|systemd|nfd")
# in its command's synopsis; fixed values offered by the completion.
for p in p2pmap.8 $cmdpages; do
	python3 "$top/tests/man/man_options.py" --synopsis "$man/$p"
done >"$tmp/synopsis"
bad= bad_c=
while IFS=$'\t' read -r kind c o arg; do
	[ "$kind" = option ] && [ "$arg" != - ] || continue
	# The whole argument: "shell|systemd" is not "shell|systemd|nfd".
	line=" $(grep "^$c " "$tmp/synopsis" | tr '\n' ' ') "
	[[ $line == *" $o $arg "* || $line == *" $o $arg]"* ||
	   $line == *"[$o $arg "* || $line == *"[$o $arg]"* ]] ||
		bad="$bad $c:$o:$arg"
	[[ $arg == *"|"* ]] || continue
	got=" $(complete_line "p2pmap $c $o ") "
	for v in ${arg//|/ }; do
		[[ $got == *" $v "* ]] || bad_c="$bad_c $c:$o:$v"
	done
done <"$tmp/table"
[ -z "$bad" ]
tap $? "the pages name each option's argument as the table does${bad:+ (not:$bad)}"
[ -z "$bad_c" ]
tap $? "the completion offers each option's fixed values${bad_c:+ (not:$bad_c)}"

# Anywhere in p2pmap.8 and the command pages: a long option is a command's
# or a global one.
extra=
for o in $(for p in p2pmap.8 $cmdpages; do
		python3 "$top/tests/man/man_options.py" --all "$man/$p"
	   done | sort -u); do
	case $o in --json|--help|--version|--no-check|--opt) continue ;; esac
	grep -q " $o\$" "$tmp/table.opts" || extra="$extra $o"
done
[ -z "$extra" ]
tap $? "the pages name no long option the table lacks${extra:+ (extra:$extra)}"

# Once as a user types it, in a terminal (tmux): TAB after "0000:4".
if command -v tmux >/dev/null; then
	sock=p2pmap-man-$$
	tmux -L "$sock" -f /dev/null new-session -d -x 150 -y 10 \
		"env -i HOME=/nonexistent HISTFILE= TERM=xterm PS1='$ ' P2PMAP_COMPLETION_PCI_DIR=$tmp/pci bash --norc --noprofile"
	tmux -L "$sock" send-keys "source $top/completion/p2pmap.bash; echo sourced" Enter
	# Type only once the completion is loaded (a loaded machine is slow).
	for i in $(seq 100); do
		tmux -L "$sock" capture-pane -p | grep -qx sourced && break
		sleep 0.1
	done
	tmux -L "$sock" send-keys "p2pmap link add 0000:0" Tab
	tmux -L "$sock" send-keys "0000:4" Tab
	got=
	for i in $(seq 100); do
		got=$(tmux -L "$sock" capture-pane -p | grep '^\$ p2pmap link add' | tail -1)
		[[ $got == *" 0000:41:00.0" ]] && break
		sleep 0.1
	done
	tmux -L "$sock" kill-server 2>/dev/null
	# (capture-pane drops the space each completion appended)
	[[ $got == "\$ p2pmap link add 0000:01:00.0 0000:41:00.0" ]]
	tap $? "completion in a terminal: both addresses complete as typed"
	[[ $got == "\$ p2pmap link add 0000:01:00.0 0000:41:00.0" ]] || echo "# screen: $got"
else
	tap_skip "completion in a terminal" "no tmux"
fi

tap_done
