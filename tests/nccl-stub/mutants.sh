#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each check of run.sh can fail: the stand-in libnccl.so.2 broken on
# purpose, one way at a time (a sed on a copy of its sources), and run.sh
# run against that build must fail the tests named.  Not part of make
# check (a minute or two); run by hand after changing run.sh.  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/nccl-stub
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tap.sh"

# mutant NAME FILE SED TESTS...: TESTS are run.sh's numbers that must fail
mutant() {
	local name=$1 file=$2 expr=$3 t bad=""
	shift 3
	rm -rf "$tmp/src"
	mkdir -p "$tmp/src/tests"
	cp -r "$here" "$tmp/src/tests/nccl-stub"
	ln -s "$top/user" "$tmp/src/user"
	sed -i "$expr" "$tmp/src/tests/nccl-stub/$file"
	if cmp -s "$here/$file" "$tmp/src/tests/nccl-stub/$file"; then
		tap 1 "$name: the sed changed nothing"
		return
	fi
	if ! make -s -C "$tmp/src/tests/nccl-stub" OUT="$tmp/out" >"$tmp/build.log" 2>&1; then
		tap 1 "$name: does not build"
		sed 's/^/# /' "$tmp/build.log" | head -5
		return
	fi
	P2PMAP_NCCL_STUB_OUT=$tmp/out "$here/run.sh" >"$tmp/$name.tap" 2>&1
	for t in "$@"; do
		grep -q "^not ok $t - " "$tmp/$name.tap" || bad+=" $t"
	done
	[ -z "$bad" ]
	tap $? "$name: run.sh fails test(s) $*${bad:+ (these passed:$bad)}"
	rm -rf "$tmp/out"
}

mutant "version 2.28.9" comm.c 's/STUB_NCCL_PATCH;$/STUB_NCCL_PATCH - 100 + 9 - 2;/' 6
mutant "an extra export" reduce.c '$a EXPORT int ncclExtra(void) { return 0; }' 2
mutant "no reduction" reduce.c 's/^\tcase ncclFloat32: PLAIN(float); break;/\tcase ncclFloat32: break;/' 7 8 9 10 11 12 13
mutant "no P2P (always SHM)" transport.c 's/^\tif (a->cq->p2p_disable)$/\tif (1)/' 17 18 22 23 24
mutant "no P2P between processes" mp.c 's/^\tif (c->p2p_disable)$/\tif (1)/' 12 13 14 15 26
mutant "NCCL_P2P_DISABLE ignored" comm.c 's/cq->p2p_disable = stub_env_int("NCCL_P2P_DISABLE", 0) != 0;/cq->p2p_disable = 0;/' 20 21 25
mutant "NCCL_CUMEM_ENABLE ignored (never cuMem)" comm.c 's/cq->cumem = stub_env_int("NCCL_CUMEM_ENABLE", 1) != 0;/cq->cumem = 0;/' 18 27
mutant "NCCL_CUMEM_ENABLE ignored between processes" mp.c 's/c->cumem = stub_env_int("NCCL_CUMEM_ENABLE", 1) != 0;/c->cumem = 1;/' 14
mutant "P2P read ignored" transport.c 's/k->read = stub_env_int("NCCL_P2P_READ_ENABLE", -2) > 0;/k->read = 0;/' 16 22
mutant "no wait for the tail" transport.c 's/if (tail != k->step)/if (0)/' 17 23
mutant "no wait for the tail between processes" mp.c 's/if (tail < step)/if (0)/' 15
mutant "no wait for the head" transport.c 's/if (k->step > head + STEPS)/if (0)/' 23
mutant "the channel line says IPC" transport.c 's|via P2P/direct pointer%s|via P2P/IPC%s|' 24
mutant "the processes' channel line says IPC" mp.c 's|c->cumem ? "CUMEM" : "IPC"|"IPC"|' 12 13 26

tap_done
