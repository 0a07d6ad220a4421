#!/bin/sh
# debian-mirror.sh: print the Debian archive this machine's apt already
# uses, so that no mirror's host name is written into the project.
#
# Reads deb822 files (/etc/apt/sources.list.d/*.sources) and one-line
# files (*.list, /etc/apt/sources.list); takes the first "deb" source whose
# suites include the main archive's (not -security, not -updates, not
# -backports) and that carries Debian's "main" component.  Prints nothing and
# exits 1 if there is none: the caller says so and stops.
set -u
etc=${P2PMAP_APT_ETC:-/etc/apt}
for f in "$etc"/sources.list.d/*.sources; do
	[ -r "$f" ] || continue
	# One stanza per blank-line-separated block.
	awk '
	function flush() {
		if (types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ &&
		    uris != "" && suites ~ /(^| )[a-z]+( |$)/ && !done) {
			split(uris, u, " "); print u[1]; done = 1
		}
		types = uris = suites = comps = ""
	}
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	{
		key = tolower($1); sub(/:$/, "", key)
		val = $0; sub(/^[^:]*:[ \t]*/, "", val)
		if (key == "types") types = val
		else if (key == "uris") uris = val
		else if (key == "suites") suites = val
		else if (key == "components") comps = val
		else if (key == "enabled" && tolower(val) == "no") types = ""
	}
	END { flush() }' "$f" | head -n 1 | grep . && exit 0
done
for f in "$etc"/sources.list "$etc"/sources.list.d/*.list; do
	[ -r "$f" ] || continue
	# deb [options] URI SUITE COMPONENT...
	awk '$1 == "deb" {
		i = 2
		if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
		uri = $i; suite = $(i + 1)
		if (suite ~ /^[a-z]+$/) {
			for (j = i + 2; j <= NF; j++)
				if ($j == "main") { print uri; exit }
		}
	}' "$f" | head -n 1 | grep . && exit 0
done
exit 1
