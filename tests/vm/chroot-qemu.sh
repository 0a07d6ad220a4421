#!/bin/sh
# chroot-qemu.sh ROOT BUILD QEMU-ARGS...: runs ROOT's qemu-system-x86_64
# (the chroot of tests/newer-kernel.sh) with BUILD (the project's build/
# folder: kernels, initramfs, logs, monitor sockets, disk images) visible
# at the same path inside.  Meant to run under "unshare --mount
# --propagation private" (tests/vm/run-vm.sh): the bind mount lives in that
# mount namespace only and goes away with QEMU, so nothing stays mounted in
# the chroot (rm -rf build can never reach through it).
set -e
root=$1 build=$2
shift 2
mkdir -p "$root$build"
mount --bind "$build" "$root$build"
exec chroot "$root" /usr/bin/qemu-system-x86_64 "$@"
