#!/bin/bash
# test-sync.sh: TAP tests of tests/spec/check-sync.py.  The real header and
# spec must agree; copies with one mutation each must not.  Works on
# temporary copies only.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
hdr=$top/include/uapi/linux/p2pmap.h
spec=$top/Documentation/netlink/specs/p2pmap.yaml
py=${PYTHON:-/usr/bin/python3}
check="$py $top/tests/spec/check-sync.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/tap.sh"


# agrees H Y: check-sync accepts the pair.
agrees() { $check "$1" "$2" >"$tmp/out" 2>&1; }

# mutant DESC FILE SED-SCRIPT|PYTHON: a copy of FILE edited (the header
# with sed, the spec by a Python statement on its loaded YAML "y") is
# rejected, with a message.  The edit must change the file.
mutant() {
	local desc=$1 file=$2 edit=$3 h=$hdr y=$spec copy
	copy=$tmp/$(basename "$file")
	if [ "$file" = "$hdr" ]; then
		sed -e "$edit" "$file" >"$copy"
		h=$copy
	else
		$py -c 'import sys, yaml
y = yaml.safe_load(open(sys.argv[1]))
def attrs(s): return next(a for a in y["attribute-sets"] if a["name"] == s)["attributes"]
def attr(s, n): return next(a for a in attrs(s) if a["name"] == n)
ops = y["operations"]["list"]
exec(sys.argv[2])
yaml.safe_dump(y, open(sys.argv[3], "w"), sort_keys=False)' "$file" "$edit" "$copy"
		y=$copy
	fi
	if cmp -s "$file" "$copy" || [ ! -s "$copy" ]; then
		tap 1 "$desc (the edit did not apply)"
		return
	fi
	if agrees "$h" "$y"; then
		tap 1 "$desc (accepted)"
	else
		sed 's/^/# /' "$tmp/out"
		grep -q mismatch "$tmp/out"
		tap $? "$desc"
	fi
	rm -f "$copy"
}

echo "1..6"
agrees "$hdr" "$spec"
r=$?
[ $r = 0 ] || sed 's/^/# /' "$tmp/out"
tap $r "the header and the spec agree"
mutant "header: an attribute renamed is caught" "$hdr" \
	's/P2PMAP_A_LINK_REASON,/P2PMAP_A_LINK_WHY,/'
mutant "header: an enum value inserted (values shift) is caught" "$hdr" \
	's/^\(\tP2PMAP_LINK_MAPPED,\)/\tP2PMAP_LINK_PARTIAL,\n\1/'
mutant "spec: an attribute removed is caught" "$spec" \
	'attrs("range").remove(attr("range", "pages"))'
mutant "spec: an attribute type changed is caught" "$spec" \
	'attr("dev", "numa-node")["type"] = "u32"'
mutant "spec: an operation removed is caught" "$spec" \
	'ops.remove(next(o for o in ops if o["name"] == "info-get"))'
tap_done
