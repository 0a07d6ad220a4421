#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap config check" on modprobe.d files: the shared table of parameter
# cases (tests/guest/param-cases.tsv, which the module itself is held to in
# the guests' core suite), then what only a file has: line numbers,
# continuation lines, quotes, comments, other modules, unknown parameters.
# Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
p2pmap=$top/user/p2pmap
cases=$top/tests/guest/param-cases.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1
tap $? "p2pmap builds"

check() {	# check FILE: out, rc
	"$p2pmap" config check "$1" >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/rc"
}

n=0 bad=0
while IFS=$'\t' read -r args want; do
	case $args in ''|'#'*) continue ;; esac
	n=$((n + 1))
	printf 'options p2pmap %s\n' "$args" >"$tmp/case.conf"
	check "$tmp/case.conf"
	if [ "$want" = ok ]; then
		[ "$(cat "$tmp/rc")" = 0 ] && ! grep -q "^$tmp/case.conf:" "$tmp/out"
	else
		[ "$(cat "$tmp/rc")" = 1 ] &&
			[ "$(grep "^$tmp/case.conf:" "$tmp/out")" = "$tmp/case.conf:1: $want" ]
	fi || { bad=$((bad + 1)); echo "# $args: want \"$want\""; sed 's/^/#   /' "$tmp/out"; }
done <"$cases"
[ "$n" -ge 40 ] && [ "$bad" = 0 ]
tap $? "the $n cases of the shared table: the module's own words ($bad differ)"

cat >"$tmp/a.conf" <<'CONF'
# p2pmap: written by hand
softdep nvidia pre: p2pmap
options nvidia NVreg_DmaRemapPeerMmio=1
options p2pmap drivers=nvidia \
	links=0000:01:00.0>0000:41:00.0,0000:41:00.0>0000:01:00.0
  # options p2pmap links=zz
options p2pmap "links=01:00.0>zz" linkz=0000:01:00.0>0000:41:00.0
options p2pmap dmar-log="maybe"
CONF
check "$tmp/a.conf"
[ "$(cat "$tmp/rc")" = 1 ]
tap $? "problems: exit 1"
grep -qxF "$tmp/a.conf:7: links: \"01:00.0>zz\" skipped: the target is not a PCI address [DDDD:]BB:DD.F" "$tmp/out"
tap $? "a quoted parameter, named with its line (after a continued line and a comment)"
grep -qxF "$tmp/a.conf:7: unknown parameter \"linkz\": the module ignores it" "$tmp/out"
tap $? "an unknown parameter (a typo the module would silently ignore)"
grep -qxF "$tmp/a.conf:8: dmar_log=\"maybe\" is not a boolean: kept Y" "$tmp/out"
tap $? "'-' and '_' alike in names; quotes around a value dropped"
grep -qxF "config check: $tmp/a.conf: 3 problems: the module would skip them" "$tmp/out" &&
	[ "$(grep -c "^$tmp/a.conf:" "$tmp/out")" = 3 ]
tap $? "other modules' lines and comments are left alone; a summary line"

printf 'options p2pmap links=0000:01:00.0>0000:41:00.0/0x1,01:00.0>41:00.0\noptions p2pmap links=0000:41:00.0>0000:01:00.0\n' >"$tmp/b.conf"
check "$tmp/b.conf"
[ "$(cat "$tmp/rc")" = 0 ] &&
	grep -qxF "$tmp/b.conf:1: note: links: 0000:01:00.0>0000:41:00.0 given twice, ignored" "$tmp/out" &&
	grep -qxF "config check: $tmp/b.conf: ok (2 links)" "$tmp/out"
tap $? "links over two lines add up; a duplicate is a note, not a problem"
printf 'options p2pmap links=0000:01:00.0>0000:41:00.0\noptions p2pmap links\n' >"$tmp/c.conf"
check "$tmp/c.conf"
grep -qxF "$tmp/c.conf:2: note: links given again without a value: the 1 entries before are dropped" "$tmp/out" &&
	grep -qxF "config check: $tmp/c.conf: ok (0 links)" "$tmp/out"
tap $? "links given again without a value: the module drops the earlier ones, said so"
printf '# nothing\nblacklist foo\n' >"$tmp/d.conf"
check "$tmp/d.conf"
[ "$(cat "$tmp/rc")" = 0 ] && grep -q 'no "options p2pmap" line' "$tmp/out"
tap $? "no options line: ok, said so"
check "$tmp/missing.conf"
[ "$(cat "$tmp/rc")" = 1 ] && grep -q "missing.conf: No such file" "$tmp/err"
tap $? "a missing file: exit 1, said so"
"$p2pmap" config check --file "$tmp/b.conf" >/dev/null
tap $? "--file PATH works too"
"$p2pmap" config check a b >/dev/null 2>&1
[ $? = 2 ]
tap $? "a usage error: exit 2"

# A file in a modprobe.d (here ROOT/etc/modprobe.d): the softdep kmod will
# use, as "p2pmap doctor" judges it.  Proxmox VE's admin guide
# (qm-pci-passthrough.adoc) leaves "softdep nvidia pre: vfio-pci" in
# nvidia.conf, which kmod reads before p2pmap.conf, and it uses only that.
px=$tmp/px/etc/modprobe.d
mkdir -p "$px"
printf 'softdep nvidia pre: vfio-pci\n' >"$px/nvidia.conf"
printf 'softdep nvidia pre: p2pmap\noptions p2pmap drivers=nvidia links=0000:01:00.0>0000:41:00.0\n' >"$px/p2pmap.conf"
check "$px/p2pmap.conf"
[ "$(cat "$tmp/rc")" = 1 ] &&
	grep -qxF "config check: softdep nvidia: kmod uses only the first softdep line for nvidia it reads, \"softdep nvidia pre: vfio-pci\" (/etc/modprobe.d/nvidia.conf line 1), and ignores \"softdep nvidia pre: p2pmap\" (/etc/modprobe.d/p2pmap.conf line 1): at boot nvidia can probe before p2pmap loads, and its DMA allocations can take a peer's BAR addresses (that link then cannot map)" "$tmp/out" &&
	grep -qxF "  fix: p2pmap config save (it writes /etc/modprobe.d/00-p2pmap-softdep.conf, which kmod reads first, with p2pmap and the modules of every softdep line for nvidia)" "$tmp/out"
tap $? "softdep hidden by Proxmox's nvidia.conf (read first): exit 1, the line named, the fix"
printf '# kept from /etc/modprobe.d/nvidia.conf line 1: pre: vfio-pci\nsoftdep nvidia pre: p2pmap vfio-pci\n' >"$px/00-p2pmap-softdep.conf"
check "$px/p2pmap.conf"
[ "$(cat "$tmp/rc")" = 0 ] &&
	grep -qxF "config check: softdep nvidia: ok: \"softdep nvidia pre: p2pmap vfio-pci\" (/etc/modprobe.d/00-p2pmap-softdep.conf line 2) is the first softdep line for nvidia that kmod reads, the only one it uses: modprobe loads p2pmap before nvidia, which then probes with the peers' windows reserved" "$tmp/out"
tap $? "softdep: config save's merged line, read first: ok"
printf 'softdep nvidia pre: vfio-pci nvidia-peermem\n' >"$px/nvidia.conf"
check "$px/p2pmap.conf"
[ "$(cat "$tmp/rc")" = 1 ] &&
	grep -qxF "config check: softdep nvidia: \"softdep nvidia pre: p2pmap vfio-pci\" (/etc/modprobe.d/00-p2pmap-softdep.conf line 2) is the softdep line kmod uses for nvidia, and it lacks what another line names: nvidia-peermem (/etc/modprobe.d/nvidia.conf line 1); kmod ignores those lines, so at boot nvidia loads without them" "$tmp/out"
tap $? "softdep: a stale merge named (exit 1)"

tap_done
