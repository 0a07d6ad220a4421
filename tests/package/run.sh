#!/bin/bash
# package/run.sh: "make deb", lintian, then the packages installed with
# apt-get on this machine, used, and purged, as TAP lines.  Needs root;
# meant for the CI machine (fresh, disposable), after tests/install/run.sh.
#
# Checks: both packages build; lintian reports no error (nor warning) on
# them; apt-get install ./p2pmap-dkms_*.deb ./p2pmap_*.deb has DKMS build
# the module for every kernel tests/kernels.sh lists, the same source as
# the module the VM suites load (build/KVER/kmod, same srcversion); the CLI,
# man pages, completion and units are in place, systemd-analyze verify is
# clean on the units, none is enabled; apt-get purge leaves the files under
# /usr /etc /lib/modules /var/lib/dkms as they were before (dkms's signing
# key and __pycache__ aside, as in install/run.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
logs=$top/build/logs
mkdir -p "$logs"
log=$logs/package.log
version=$(cat "$top/VERSION")
debs=$top/build/deb
. "$top/tests/tap.sh"

if [ "$(id -u)" -ne 0 ]; then
	tap 1 "Debian packages: needs root"
	tap_done
	exit
fi
if dpkg-query -W -f='${Status}' p2pmap p2pmap-dkms 2>/dev/null | grep -q installed ||
   [ -e /usr/sbin/p2pmap ] || dkms status -m p2pmap 2>/dev/null | grep -q .; then
	tap 1 "Debian packages: p2pmap is already installed on this machine (make uninstall or apt-get purge p2pmap p2pmap-dkms, then make check)"
	tap_done
	exit
fi

make -C "$top" deb >"$log" 2>&1
tap $? "make deb (log: build/logs/package.log)"
dkms_deb=$debs/p2pmap-dkms_${version}_all.deb
cli_deb=$(ls "$debs"/p2pmap_"${version}"_*.deb 2>/dev/null | head -1)
[ -f "$dkms_deb" ] && [ -n "$cli_deb" ]
tap $? "p2pmap-dkms_${version}_all.deb and p2pmap_${version}_*.deb built"
[ "$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)" = "$version" ]
tap $? "debian/changelog's version is VERSION's ($version)"

out=$(lintian --fail-on error,warning "$debs"/p2pmap_"${version}"_*.changes 2>&1)
rc=$?
echo "$out" | grep -v 'root privileges' | sed 's/^/# lintian: /'
tap $rc "lintian: no error or warning on the packages"

. "$top/tests/fs-snapshot.sh"
before=$(mktemp) after=$(mktemp)
trap 'rm -f "$before" "$after"' EXIT
snapshot >"$before"
kernels=$("$top/tests/kernels.sh")

DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	"$dkms_deb" "$cli_deb" >>"$log" 2>&1
tap $? "apt-get install ./p2pmap-dkms_*.deb ./p2pmap_*.deb"

for k in $kernels; do
	ko=$(ls /lib/modules/"$k"/updates/dkms/p2pmap.ko* 2>/dev/null | head -1)
	[ -n "$ko" ] && [ "$(modinfo -F version "$ko")" = "$version" ]
	tap $? "DKMS built p2pmap $version for $k (${ko:-no module})"
	vm=$top/build/$k/kmod/p2pmap.ko
	if [ -f "$vm" ] && [ -n "$ko" ]; then
		[ "$(modinfo -F srcversion "$ko")" = "$(modinfo -F srcversion "$vm")" ]
		tap $? "... from the source of the module the VM suites load for $k (srcversion)"
	else
		tap_skip "... the module the VM suites load for $k" "build/$k/kmod/p2pmap.ko not built"
	fi
done

out=$(/usr/sbin/p2pmap --version 2>&1 | head -1)
[ "$out" = "p2pmap $version" ]
tap $? "/usr/sbin/p2pmap from the package says 'p2pmap $version' ($out)"
missing=
for m in "$top"/man/*.[1-8]; do
	m=${m##*/}
	[ -f "/usr/share/man/man${m##*.}/$m.gz" ] || missing+=" $m"
done
[ -z "$missing" ] && [ -f /usr/share/bash-completion/completions/p2pmap ] &&
	[ -f /usr/share/doc/p2pmap/JSON.md.gz ] && [ -f /usr/share/doc/p2pmap/METRICS.md ]
tap $? "man pages, completion, JSON.md and METRICS.md installed${missing:+ (missing man pages:$missing)}"
promtool check rules /usr/share/p2pmap/prometheus/p2pmap.rules.yml >/dev/null 2>&1 &&
	python3 -c 'import json; json.load(open("/usr/share/p2pmap/grafana/p2pmap.json"))'
tap $? "the alerting rules (promtool check rules clean) and the Grafana dashboard installed in /usr/share/p2pmap"
hs=/usr/share/p2pmap/proxmox/p2pmap-hookscript
[ -x "$hs" ] && "$hs" 100 post-stop && grep -qx 'exec /usr/sbin/p2pmap proxmox-hook "$@"' "$hs"
tap $? "Proxmox VE's hookscript installed in /usr/share/p2pmap/proxmox, executable, running /usr/sbin/p2pmap"

units="p2pmap-check.service p2pmap-metrics.service p2pmap-metrics.timer p2pmap-nfd.service p2pmap-nfd.timer"
missing=
for u in $units; do [ -f /lib/systemd/system/$u ] || missing+=" $u"; done
[ -z "$missing" ]
tap $? "systemd units installed${missing:+ (missing:$missing)}"
out=$(cd /lib/systemd/system && systemd-analyze verify $units 2>&1)
rc=$?
[ -z "$out" ] || echo "$out" | sed 's/^/# systemd-analyze: /'
[ $rc = 0 ] && [ -z "$out" ]
tap $? "systemd-analyze verify: the units are clean"
# "static": a unit without [Install] (the metrics service, which its timer
# starts) cannot be enabled at all.
enabled=
for u in $units; do
	case $(systemctl is-enabled $u 2>/dev/null) in
	disabled|static) ;;
	*) enabled+=" $u:$(systemctl is-enabled $u 2>/dev/null)" ;;
	esac
done
[ -z "$enabled" ]
tap $? "no unit is enabled by the packages${enabled:+ (enabled:$enabled)}"

DEBIAN_FRONTEND=noninteractive apt-get purge -y -q p2pmap p2pmap-dkms >>"$log" 2>&1
tap $? "apt-get purge p2pmap p2pmap-dkms"
for k in $kernels; do
	! modinfo -k "$k" p2pmap >/dev/null 2>&1
	tap $? "after the purge modinfo -k $k finds no p2pmap"
done
[ -z "$(dkms status -m p2pmap 2>/dev/null)" ]
tap $? "after the purge DKMS knows no p2pmap"
snapshot >"$after"
diff -u "$before" "$after" >/dev/null
tap $? "after the purge the files under /usr /etc /lib/modules /var/lib/dkms are as before"
diff "$before" "$after" | grep '^[<>]' | head -20 | sed 's/^</# removed:/; s/^>/# left:/'
tap_done
