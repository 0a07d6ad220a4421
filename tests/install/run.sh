#!/bin/bash
# install/run.sh: "make install" then "make uninstall" on this machine, as
# TAP lines.  Needs root; meant for the CI machine (fresh, disposable).
#
# It lists every file and symlink under /usr /etc /lib/modules /var/lib/dkms
# before, installs (CLI, man pages, bash completion, the module through DKMS
# for every kernel tests/kernels.sh lists), checks what landed, uninstalls,
# and checks the list is the same as before.  Directories are not compared.
# Two things are left out of the comparison on purpose:
#   /var/lib/dkms/mok.{key,pub}  dkms's own module-signing key, made by the
#       first signed DKMS build on a machine; it belongs to dkms (it may be
#       enrolled as a MOK), so uninstalling p2pmap must not delete it;
#   */__pycache__/*  written by whatever runs Python meanwhile.
# Where p2pmap is already installed, or without root, it fails: it would
# remove that installation at the end, and make check must run it (make
# uninstall first; make check-host leaves it out).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
logs=$top/build/logs
mkdir -p "$logs"
log=$logs/install.log
version=$(cat "$top/VERSION")
prefix=/usr
. "$top/tests/tap.sh"

if [ "$(id -u)" -ne 0 ]; then
	tap 1 "make install / make uninstall: needs root"
	tap_done
	exit
fi
if [ -e "$prefix/sbin/p2pmap" ] || [ -e "/usr/src/p2pmap-$version" ] ||
   dkms status -m p2pmap 2>/dev/null | grep -q .; then
	tap 1 "make install / make uninstall: p2pmap is already installed on this machine (make uninstall, then make check)"
	tap_done
	exit
fi

. "$top/tests/fs-snapshot.sh"
before=$(mktemp) after=$(mktemp) conf=$(mktemp)
trap 'rm -f "$before" "$after" "$conf"' EXIT
# A boot configuration with a typo: make install must say so.
echo 'options p2pmap links=0000:01:00.0>zz' >"$conf"
snapshot >"$before"
kernels=$("$top/tests/kernels.sh")

make -C "$top" install MODPROBE_CONF="$conf" >"$log" 2>&1
tap $? "make install (log: build/logs/install.log)"
grep -qF "$conf:1: links: \"0000:01:00.0>zz\" skipped" "$log" &&
	grep -q "the module will skip what is named above" "$log"
tap $? "make install checks the boot configuration and names its problem"

out=$("$prefix/sbin/p2pmap" --version 2>&1 | head -1)
[ "$out" = "p2pmap $version" ]
tap $? "$prefix/sbin/p2pmap is installed and says 'p2pmap $version' ($out)"

mans=$(cd "$top" && ls man/*.[1-8] 2>/dev/null)
if [ -n "$mans" ]; then
	missing=
	for m in $mans; do
		f=$prefix/share/man/man${m##*.}/${m##*/}
		[ -f "$f" ] || missing+=" $f"
	done
	[ -z "$missing" ]
	tap $? "man pages installed: $(echo $mans)${missing:+ (missing:$missing)}"
else
	tap_skip "man pages installed" "no man/ pages in the tree"
fi

if [ -f "$top/completion/p2pmap.bash" ]; then
	[ -f "$prefix/share/bash-completion/completions/p2pmap" ]
	tap $? "bash completion installed"
else
	tap_skip "bash completion installed" "no completion/p2pmap.bash in the tree"
fi
missing=
for u in "$top"/systemd/*.service "$top"/systemd/*.timer; do
	[ -f "/lib/systemd/system/${u##*/}" ] || missing+=" ${u##*/}"
done
[ -z "$missing" ]
tap $? "systemd units installed in /lib/systemd/system${missing:+ (missing:$missing)}"
[ -f "$prefix/share/p2pmap/prometheus/p2pmap.rules.yml" ] &&
	[ -f "$prefix/share/p2pmap/grafana/p2pmap.json" ]
tap $? "alerting rules and Grafana dashboard installed in $prefix/share/p2pmap"
hs=$prefix/share/p2pmap/proxmox/p2pmap-hookscript
[ -x "$hs" ] && "$hs" 100 post-stop && grep -qx "exec $prefix/sbin/p2pmap proxmox-hook \"\$@\"" "$hs"
tap $? "Proxmox VE's hookscript installed in $prefix/share/p2pmap/proxmox, executable, running $prefix/sbin/p2pmap"

grep -qx "PACKAGE_VERSION=\"$version\"" "/usr/src/p2pmap-$version/dkms.conf"
tap $? "/usr/src/p2pmap-$version/dkms.conf says PACKAGE_VERSION=\"$version\""

for k in $kernels; do
	ko=$(ls /lib/modules/"$k"/updates/dkms/p2pmap.ko* 2>/dev/null)
	[ -n "$ko" ]
	tap $? "p2pmap.ko for $k in /lib/modules/$k/updates/dkms (${ko##*/})"
	v=$(modinfo -k "$k" -F version p2pmap 2>/dev/null)
	[ "$v" = "$version" ]
	tap $? "modinfo -k $k p2pmap: version $version (got '$v')"
done

# The in-use guard: with the module loaded (P2PMAP_LOADED stands in for
# /sys/module/p2pmap), make uninstall asks "p2pmap link flush" first (a
# stand-in CLI here that records its arguments and refuses as the real one
# does while a GPU of a mapped link is in use) and removes nothing when it
# refuses; DRY_RUN=1 and FORCE=1 reach it as --dry-run and --force.
fake=$(mktemp -d)
trap 'rm -f "$before" "$after" "$conf"; rm -rf "$fake"' EXIT
mkdir "$fake/loaded"
printf '#!/bin/sh\necho "$*" >>"%s/args"\nexit ${FAKE_RC:-1}\n' "$fake" >"$fake/p2pmap"
chmod +x "$fake/p2pmap"
snapshot >"$fake/installed"
guard() {
	make -C "$top" uninstall UNINSTALL_CLI="$fake/p2pmap" \
		P2PMAP_LOADED="$fake/loaded" "$@" >>"$log" 2>&1
}
! guard && snapshot | cmp -s - "$fake/installed" &&
	[ "$(tail -1 "$fake/args")" = "link flush" ] &&
	tail -5 "$log" | grep -q '^uninstall: refused, nothing removed'
tap $? "make uninstall refuses, removing nothing, when link flush refuses (a GPU in use)"
FAKE_RC=0 guard DRY_RUN=1 && snapshot | cmp -s - "$fake/installed" &&
	[ "$(tail -1 "$fake/args")" = "link flush --dry-run" ] &&
	grep -q '^would run: modprobe -r p2pmap' "$log"
tap $? "make uninstall DRY_RUN=1 runs link flush --dry-run and removes nothing"
FAKE_RC=0 guard DRY_RUN=1 FORCE=1 &&
	[ "$(tail -1 "$fake/args")" = "link flush --dry-run --force" ]
tap $? "make uninstall FORCE=1 passes --force to link flush"

make -C "$top" uninstall >>"$log" 2>&1
tap $? "make uninstall"

for k in $kernels; do
	! modinfo -k "$k" p2pmap >/dev/null 2>&1
	tap $? "modinfo -k $k no longer finds p2pmap"
done

snapshot >"$after"
diff -u "$before" "$after" >/dev/null
tap $? "the files under /usr /etc /lib/modules /var/lib/dkms are as before"
diff "$before" "$after" | grep '^[<>]' | sed 's/^</# removed:/; s/^>/# left:/'
tap_done
