#!/bin/bash
# mkinitramfs.sh OUT KVER NAME=MODDIR... : a busybox initramfs for one kernel.
#
# It holds busybox, the p2pmap CLI with the shared libraries it needs,
# pci.ids, the guest test scripts (tests/guest) and the kernel modules built
# for KVER: every MODDIR/*.ko is copied to /modules/NAME/.
#
# With P2PMAP_WITH_PYTHON=1 in the environment it also holds a minimal
# Python 3 (the host's /usr/bin/python3.11, the stdlib modules and PyYAML
# that the kernel's YNL cli.py imports, found with modulefinder and
# -X importtime) and YNL: /ynl/cli.py, /ynl/lib/, /ynl/specs/p2pmap.yaml,
# /ynl/schemas/*.yaml (tests/guest/lib.sh: ynl_p2pmap).
set -euo pipefail
out=$1 kver=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,modules,usr/share/misc}
chmod 755 "$root"
chmod 1777 "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
for app in $(busybox --list); do
	[ "$app" = busybox ] && continue
	ln -sf busybox "$root/bin/$app"
done

# The CLI and every shared object it links (ldd lists the loader too).
cp "$top/user/p2pmap" "$root/bin/p2pmap"
for lib in $(ldd "$top/user/p2pmap" | grep -o '/[^ ]*'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cp /usr/share/misc/pci.ids "$root/usr/share/misc/pci.ids"

# The netlink fuzzer (tests/fuzz), linked statically.
make -s -C "$top/tests/fuzz"
cp "$top/tests/fuzz/p2pfuzz" "$root/bin/p2pfuzz"

# copy_libs FILE...: the shared objects FILE... link, at their host paths.
copy_libs() {
	local lib
	for lib in $(ldd "$@" 2>/dev/null | grep -o '/[^ ]*' | sort -u); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# add_python: python3.11 with the modules ynl needs, and ynl with our spec.
add_python() {
	local py=/usr/bin/python3.11 ynl f pyc
	ynl=$("$top/tests/tools.sh" ynl)
	mkdir -p "$root/usr/bin" "$root/ynl/specs" "$root/ynl/schemas"
	cp "$py" "$root/usr/bin/python3.11"
	ln -sf python3.11 "$root/usr/bin/python3"
	copy_libs "$py"
	cp -r "$ynl/cli.py" "$ynl/lib" "$root/ynl/"
	cp "$ynl"/../../../Documentation/netlink/*.yaml "$root/ynl/schemas/"
	cp "$top/Documentation/netlink/specs/p2pmap.yaml" "$root/ynl/specs/"
	# The module files: modulefinder's static closure of cli.py (it also
	# sees imports made only on some paths), plus what a real start-up
	# imports (site, the codecs).  jsonschema is left out: the guest runs
	# cli.py with --no-schema.
	"$py" - "$ynl" <<-'PYEOF' >"$root/tmp/pyfiles"
	import modulefinder, os, subprocess, sys
	ynl = sys.argv[1]
	skip = ['jsonschema', 'tkinter', 'unittest', 'pydoc', 'doctest',
	        'email', 'http', 'urllib', 'xml', 'ssl', 'asyncio', 'lib2to3',
	        'multiprocessing', 'pdb', '_pydecimal', 'decimal', 'sqlite3',
	        'distutils', 'ctypes', 'concurrent', 'bz2', 'lzma', '_bz2',
	        '_lzma', 'hashlib', '_hashlib']
	mf = modulefinder.ModuleFinder(path=[ynl] + sys.path, excludes=skip)
	mf.run_script(os.path.join(ynl, 'cli.py'))
	names = set(mf.modules)
	out = subprocess.run([sys.executable, '-X', 'importtime',
	                      os.path.join(ynl, 'cli.py'), '--no-schema',
	                      '--spec', '/dev/null', '--list-ops'],
	                     capture_output=True, text=True).stderr
	for line in out.splitlines():
	    if line.startswith('import time:') and '|' in line:
	        names.add(line.split('|')[2].strip())
	import importlib.util
	for n in sorted(names):
	    try:
	        spec = importlib.util.find_spec(n)
	    except Exception:
	        continue
	    if spec and spec.origin and spec.origin.startswith('/usr/lib/python3'):
	        print(spec.origin)
	PYEOF
	for f in $(cat "$root/tmp/pyfiles") /usr/lib/python3.11/os.py \
		 /usr/lib/python3.11/encodings/{utf_8,latin_1,ascii}.py; do
		mkdir -p "$root$(dirname "$f")"
		cp "$f" "$root$f"
		case $f in
		*.py)	pyc=$(dirname "$f")/__pycache__/$(basename "$f" .py).cpython-311.pyc
			if [ -f "$pyc" ]; then
				mkdir -p "$root$(dirname "$pyc")"
				cp "$pyc" "$root$pyc"
			fi ;;
		*.so)	copy_libs "$f" ;;
		esac
	done
	mkdir -p "$root/usr/lib/python3.11/lib-dynload"
	rm -f "$root/tmp/pyfiles"
}

for spec in "$@"; do
	name=${spec%%=*} dir=${spec#*=}
	mkdir -p "$root/modules/$name"
	for ko in "$dir"/*.ko; do
		strip --strip-debug -o "$root/modules/$name/$(basename "$ko")" "$ko"
	done
done

if [ "${P2PMAP_WITH_PYTHON:-0}" = 1 ]; then
	add_python
fi

# The CLI's netlink client (user/netlink), shared by the test tools below.
user_inc="-I$top/user/netlink"
user_obj="$top/user/obj/netlink"

# The benchmark client (tests/bench), built from the CLI's netlink code.
gcc -O2 -Wall -Werror $user_inc -I"$top/include/uapi" \
	$(pkg-config --cflags libnl-genl-3.0) -o "$root/bin/p2pbench" \
	"$top/tests/bench/p2pbench.c" "$user_obj/nl.o" "$user_obj/link.o" \
	"$user_obj/info.o" $(pkg-config --libs libnl-genl-3.0)

# The fault-injection helper (tests/failnth): arms /proc/thread-self/fail-nth
# in the task that makes the syscall, built from the CLI's netlink code.
# Static: under KASAN and TCG the dynamic loader costs a second per run.
gcc -O2 -Wall -Werror -static $user_inc -I"$top/include/uapi" \
	$(pkg-config --cflags libnl-genl-3.0) -o "$root/bin/failnth" \
	"$top/tests/failnth/failnth.c" "$user_obj/nl.o" "$user_obj/link.o" \
	$(pkg-config --static --libs libnl-genl-3.0)

# The link rotator of the race suite (tests/race), from the same code.
gcc -O2 -Wall -Werror $user_inc -I"$top/include/uapi" \
	$(pkg-config --cflags libnl-genl-3.0) -o "$root/bin/p2prot" \
	"$top/tests/race/p2prot.c" "$user_obj/nl.o" "$user_obj/link.o" \
	$(pkg-config --libs libnl-genl-3.0)

# kmod's modprobe/depmod (busybox's lack softdep): boot-order tests.
mkdir -p "$root/usr/bin" "$root/usr/sbin"
cp /usr/bin/kmod "$root/usr/bin/kmod"
copy_libs /usr/bin/kmod
for t in modprobe depmod; do ln -sf ../bin/kmod "$root/usr/sbin/$t"; done

# VFIO for the tenant tests: this kernel's own modules (decompressed, in
# load order; none, and an empty order file, where VFIO is built in) and a
# static program that claims a group as QEMU would.  P2PMAP_MODULES_DIR:
# where this kernel's modules are, if not /lib/modules/KVER (the 7.x
# kernel's, unpacked into the trixie chroot by tests/newer-kernel.sh);
# else P2PMAP_KROOT/lib/modules/KVER where P2PMAP_KROOT is set (make demo's
# kernel, unpacked by tests/kernel-unpack.sh).
kroot=${P2PMAP_KROOT:-/}
kroot=${kroot%/}
mkdir -p "$root/modules/vfio"
: >"$root/modules/vfio/order"
for m in virt/lib/irqbypass drivers/vfio/vfio drivers/vfio/vfio_virqfd \
	 drivers/vfio/vfio_iommu_type1 drivers/vfio/pci/vfio-pci-core \
	 drivers/vfio/pci/vfio-pci; do
	f=${P2PMAP_MODULES_DIR:-$kroot/lib/modules/$kver}/kernel/$m.ko
	if [ -e "$f" ]; then
		cp "$f" "$root/modules/vfio/"
	elif [ -e "$f.xz" ]; then
		xz -dc "$f.xz" >"$root/modules/vfio/$(basename "$f")"
	else
		continue
	fi
	basename "$f" >>"$root/modules/vfio/order"
done
gcc -static -O2 -Wall -Werror -o "$root/bin/vfio_claim" \
	"$top/tests/vfio/vfio_claim.c"
# Small static helpers of the guest suites (tests/guest-tools/NAME.c -> /bin/NAME).
for t in "$top"/tests/guest-tools/*.c; do
	gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/$(basename "$t" .c)" "$t"
done

cp -r "$top/tests/guest" "$root/tests"
cp "$top/tests/vm/init" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/tmp:/bin/sh" >>"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
echo "nogroup:x:65534:" >>"$root/etc/group"
echo "$kver" >"$root/etc/kver"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$out"
