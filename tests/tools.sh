#!/bin/bash
# tools.sh [ynl]: print the path of checkpatch.pl, extracting it (with the
# data files it reads) from Debian's linux-source-6.12 tarball the first
# time.  With "ynl": print instead the path of the extracted YNL tool
# (build/tools/tools/net/ynl, holding cli.py and lib/); the netlink schemas
# it validates specs against are extracted with it, to
# build/tools/Documentation/netlink/*.yaml.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/tools
tarball() { ls /usr/src/linux-source-6.12.tar.xz; }
if [ "${1:-}" = ynl ]; then
	if [ ! -f "$dir/tools/net/ynl/cli.py" ] ||
	   [ ! -f "$dir/Documentation/netlink/genetlink-c.yaml" ]; then
		mkdir -p "$dir"
		tar -xJf "$(tarball)" -C "$dir" --strip-components=1 \
			--wildcards --no-wildcards-match-slash \
			linux-source-6.12/tools/net/ynl/cli.py \
			'linux-source-6.12/tools/net/ynl/lib/*.py' \
			'linux-source-6.12/Documentation/netlink/*.yaml'
	fi
	echo "$dir/tools/net/ynl"
	exit 0
fi
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$dir"
	tar -xJf "$(tarball)" -C "$dir" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
fi
echo "$dir/scripts/checkpatch.pl"
