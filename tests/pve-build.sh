#!/bin/bash
# pve-build.sh: p2pmap.ko built against Proxmox VE's kernels, as TAP lines.
# The trees (tests/pve-trees.sh) approximate Proxmox's 6.17 (VE 9.1) and 7.0
# (VE 9.2) with Proxmox's real export list in Module.symvers; each tree's
# pve-buildcheck.sh builds with W=1 and strict modpost and fails on a failed
# build, any warning, or a symbol Proxmox does not export.  Then:
#   - the compile-time probes' results must be tests/pve/expected-probes'
#     column for that kernel, and Documentation/known-limits.md's table must say
#     the same, so what users read is what was built
#   - negative controls: a scratch copy calling iommu_get_dma_domain()
#     (declared in <linux/iommu.h>, not exported) must fail the build
#     check, and an edited probe table must fail the comparison
#   - "dkms build" for the newest tree, set up as a host's
#     /lib/modules/REL/build
# The module is built from what "make dkms-src" copies, the tree DKMS gets.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/tap.sh"
logs=$top/build/logs
expected=$top/tests/pve/expected-probes
mkdir -p "$logs"
start=$SECONDS

trees=$("$top/tests/pve-trees.sh" 2>"$logs/pve-trees.log")
tap $? "the Proxmox VE build-check trees are unpacked in build/pve/"
[ -n "$trees" ] || { sed 's/^/# /' "$logs/pve-trees.log"; tap_done; exit; }

# scratch: a fresh copy of the module's sources (the build writes into it).
scratch() {
	local d
	d=$(mktemp -d "$top/build/pve/scratch.XXXXXX") &&
		make -s -C "$top" dkms-src DKMS_SRC="$d" >/dev/null && echo "$d"
}

# probes_built < LOG: "SERIES PROBE yes|no" from pve-buildcheck.sh's output.
probes_built() {
	sed -n -e "s/^#define P2PMAP_HAVE_\([A-Z0-9_]*\) 1$/$1 \1 yes/p" \
		-e "s|^/\* P2PMAP_HAVE_\([A-Z0-9_]*\): not available \*/$|$1 \1 no|p" |
		awk '{ print $1, tolower($2), $3 }' | sort
}

# probes_table FILE: "SERIES PROBE yes|no" for every column of the table.
probes_table() {
	awk '/^#/ || NF == 0 { next }
	     $1 == "probe" { for (i = 2; i <= NF; i++) s[i] = $i; next }
	     { for (i = 2; i <= NF; i++) print s[i], $1, $i }' "$1" | sort
}

# probes_readme: the same from the probe table of Documentation/
# known-limits.md (once the README's Known limits): its header names each
# kernel by series ("| probe | 6.17 (VE 9.1) |").  No table found prints
# nothing, which is not what expected-probes says: the check fails.
probes_readme() {
	awk -F'|' '/^# Known limits/ { kl = 1; next } /^#+ / { kl = 0 }
	     kl && $2 ~ /^ *probe *$/ {
		for (i = 3; i < NF; i++) { split($i, w, " "); s[i] = w[1] }
		n = NF; next }
	     kl && n && /^ *\| *`[a-z0-9_]*` *\|/ {
		gsub(/[` ]/, "", $2)
		for (i = 3; i < n; i++) if (s[i] ~ /^[0-9]+\.[0-9]+$/) {
			v = $i; gsub(/ /, "", v); print s[i], $2, v } }
	     n && NF == 0 { n = 0 }' "${P2PMAP_KNOWN_LIMITS:-$top/Documentation/known-limits.md}" | sort
}

built=$(mktemp)
trap 'rm -f "$built"' EXIT
last_series='' last_dir=''
while read -r series dir; do
	d=$(scratch) || { tap 1 "a scratch copy of the module for $series"; continue; }
	JOBS=2 "$dir/pve-buildcheck.sh" "$d/kmod" "$d/out" >"$logs/pve-$series.log" 2>&1
	tap $? "p2pmap builds against Proxmox VE's $series (W=1, strict modpost against Proxmox's Module.symvers): no warning, no unresolved symbol"
	sed 's/^/# /' "$logs/pve-$series.log"
	got=$(probes_built "$series" <"$logs/pve-$series.log")
	echo "$got" >>"$built"
	want=$(probes_table "$expected" | grep "^$series ")
	[ -n "$got" ] && [ "$got" = "$want" ]
	tap $? "the probes on $series are tests/pve/expected-probes' $series column"
	[ "$got" = "$want" ] || diff <(echo "$want") <(echo "$got") | sed 's/^/# expected-probes vs built: /'
	rm -rf "$d"
	last_series=$series last_dir=$dir
done <<<"$trees"

[ "$(probes_readme)" = "$(probes_table "$expected")" ]
tap $? "Documentation/known-limits.md's probe table says what tests/pve/expected-probes says"
diff <(probes_table "$expected") <(probes_readme) | sed 's/^/# expected-probes vs known-limits.md: /'

# Negative control 1: a symbol Proxmox's kernel does not export.  modpost
# must refuse it, and the check must say so by name.
bad=iommu_get_dma_domain
if d=$(scratch); then
	cat >>"$d/kmod/iova_guard.c" <<-EOF
	/* Injected by tests/pve-build.sh: $bad() is not exported. */
	struct iommu_domain *p2pmap_bad_symbol(struct device *dev);
	struct iommu_domain *p2pmap_bad_symbol(struct device *dev)
	{
		return $bad(dev);
	}
	EOF
	JOBS=2 "$last_dir/pve-buildcheck.sh" "$d/kmod" "$d/out" \
		>"$logs/pve-$last_series-badsym.log" 2>&1
	rc=$?
	! cut -f2 "$last_dir/Module.symvers" | grep -qx "$bad" && [ "$rc" != 0 ] &&
		grep -q "\"$bad\" .* undefined" "$logs/pve-$last_series-badsym.log"
	tap $? "negative control: a call to $bad() (not exported by Proxmox VE's $last_series) fails its build check"
	grep -E "$bad|^build rc" "$logs/pve-$last_series-badsym.log" | sed 's/^/# /'
	rm -rf "$d"
else
	tap 1 "a scratch copy of the module for the negative control"
fi

# DKMS as on a Proxmox VE host: the newest tree as /lib/modules/REL/build
# (a link, REL the release it approximates), the tree "make dkms-src"
# makes, a private DKMS tree (never /var/lib/dkms), no signing.
rel=$(sed -n '1s/.*(\([^)]*-pve\)).*/\1/p' "$last_dir/PVE-BUILDCHECK.md")
dk=$top/build/pve/dkms
version=$(cat "$top/VERSION")
rm -rf "$dk"
mkdir -p "$dk/tree" "$dk/install" "$dk/modules/$rel"
ln -s "$last_dir" "$dk/modules/$rel/build"
dkms_() {
	sign_file=/nonexistent dkms --dkmstree "$dk/tree" \
		--sourcetree "$dk/src" --installtree "$dk/install" "$@"
}
{ make -s -C "$top" dkms-src DKMS_SRC="$dk/src/p2pmap-$version" &&
  dkms_ add -m p2pmap -v "$version" &&
  dkms_ build -m p2pmap -v "$version" -k "$rel" \
	--kernelsourcedir "$dk/modules/$rel/build"; } >"$logs/pve-dkms.log" 2>&1 &&
	ls "$dk/tree/p2pmap/$version/$rel"/*/module/p2pmap.ko* >/dev/null 2>&1
tap $? "dkms build for $rel with the Proxmox VE $last_series tree as its /lib/modules/$rel/build"
grep -E '^make|rror' "$logs/pve-dkms.log" | sed 's/^/# /'

# Negative control 2: the table with one result changed must not match.
flipped=$(mktemp)
awk '$1 == "iommu_pt_mmio_plain" { $2 = $2 == "yes" ? "no" : "yes" } 1' \
	"$expected" >"$flipped"
! cmp -s <(probes_table "$flipped") "$built" && cmp -s <(probes_table "$expected") "$built"
tap $? "negative control: the probe table with iommu_pt_mmio_plain changed in its first column does not match the builds"
diff <(probes_table "$flipped") "$built" | sed 's/^/# edited table vs built: /'
rm -f "$flipped"
echo "# pve-build.sh took $((SECONDS - start)) s"
tap_done
