#!/bin/bash
# tools.sh: print the path of checkpatch.pl, extracting it (with the data
# files it reads) from Debian's linux-source-6.12 tarball the first time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/tools
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-6.12.tar.xz)
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch
fi
echo "$dir/scripts/checkpatch.pl"
