#!/bin/bash
# kernels.sh: the installed kernels the tests use, one per line: those with
# both an image in /boot and a build tree whose release matches it (Debian
# can install headers of another ABI next to an image).
for img in /boot/vmlinuz-*; do
	k=${img#/boot/vmlinuz-}
	[ -e "/lib/modules/$k/build/Makefile" ] || continue
	echo "$k"
done | sort -V
