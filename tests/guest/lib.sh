#!/bin/sh
# Helpers for the guest test suites: TAP output, the p2ptest control file,
# sysfs and trace reading.  Sourced by every suite.

T_N=0
T_FAIL=0
IOMMU=$(sed -n 's/.*vm\.iommu=\([^ ]*\).*/\1/p' /proc/cmdline)
KVER=$(cat /etc/kver)
# The machine's shape (run-vm.sh's TOPOLOGY): the suites pick their
# devices by it (on epyc no edu sits on pcie.0).
TOPO=$(sed -n 's/.*vm\.topo=\([^ ]*\).*/\1/p' /proc/cmdline)
CTL=/sys/kernel/debug/p2ptest/ctl
TRACE=/sys/kernel/tracing

# vm.tstamp=1 (profiling a suite): each result follows a "# @ UPTIME" line
# (read, a builtin: no process under KASAN, where a fork costs ~0.2 s).
case " $(cat /proc/cmdline) " in *" vm.tstamp=1 "*) T_STAMP=1 ;; *) T_STAMP= ;; esac
t_stamp() {
	[ -n "$T_STAMP" ] || return 0
	read -r T_UP _ </proc/uptime
	echo "# @ $T_UP"
}

# T_PREFIX (set by batch.sh: the suite's name) starts every description.
ok() {
	t_stamp
	T_N=$((T_N + 1))
	echo "ok $T_N - ${T_PREFIX:+$T_PREFIX: }$*"
}

not_ok() {
	t_stamp
	T_N=$((T_N + 1))
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - ${T_PREFIX:+$T_PREFIX: }$*"
}

# check DESC CMD...: pass when CMD succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# expect DESC GOT WANT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (got '$2', want '$3')"
	fi
}

# has TEXT PATTERN: TEXT (any quotes in it) matches the grep PATTERN.
has() {
	printf '%s\n' "$1" | grep -q -- "$2"
}

# expect_fail DESC CMD...: pass when CMD fails.
expect_fail() {
	desc=$1
	shift
	if "$@"; then not_ok "$desc (it succeeded)"; else ok "$desc"; fi
}

# p2pt CMD...: run a p2ptest command, print its result line.
p2pt() {
	echo "$*" >"$CTL" 2>/dev/null
	cat "$CTL"
}

ID=0x010000ed		# what edu register 0x00 reads
PATTERN=12345678	# written to register 0x04, which then reads ~PATTERN
LANDED=0xedcba987
LOST=0xffffffff

peer_read() { p2pt read "$1" "$2" "${3:-raw}"; }
peer_write() { p2pt write "$1" "$2" "${3:-raw}" "$PATTERN"; }

bar0() { cut -d' ' -f1 "/sys/bus/pci/devices/$1/resource" | head -1; }

group_type() {
	cat "$(readlink -f "/sys/bus/pci/devices/$1/iommu_group")/type"
}

# link_state A B: the STATE column of "p2pmap status" for A -> B.
link_state() {
	p2pmap status | awk -v a="$1" -v b="$2" '$1 == a && $3 == b { print $4 }'
}

drv_unbind() { echo "$1" >/sys/bus/pci/drivers/p2ptest/unbind; }
drv_bind() { echo "$1" >/sys/bus/pci/drivers/p2ptest/bind; }

# Fault lines the kernel logged at address $1 (VT-d format).
dmar_faults_at() {
	dmesg | grep -c "DMAR: \[DMA .*fault addr $(printf '0x%x' "$1")"
}

# No kernel warning or bug in the log so far.
kernel_log_clean() {
	dmesg | grep -E -A12 'WARNING:|BUG:|Oops|general protection' |
		sed 's/^/# dmesg: /' | head -40
	! dmesg | grep -qE 'WARNING:|BUG:|Oops|general protection'
}

# Identity map/unmap trace events (iova == paddr) inside [$1, $1+$2): bytes.
trace_enable() {
	echo 0 >"$TRACE/tracing_on"
	echo >"$TRACE/trace"
	echo 4096 >"$TRACE/buffer_size_kb"
	echo 1 >"$TRACE/events/iommu/map/enable"
	echo 1 >"$TRACE/events/iommu/unmap/enable"
	echo 1 >"$TRACE/tracing_on"
}

# trace_identity_bytes map|unmap LO HI: bytes of identity maps (iova ==
# paddr) whose IOVA lies in [LO, HI), or of the unmaps of those IOVAs that
# followed them (a DMA API unmap of the same IOVA before or after does not
# count).
trace_identity_bytes() {
	awk -v kind="$1" -v lo=$(($2)) -v hi=$(($3)) '
	function num(s) { return s + 0 }
	/ map: / {
		iova = ""; pa = ""; sz = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^iova=/) iova = substr($i, 6)
			if ($i ~ /^paddr=/) pa = substr($i, 7)
			if ($i ~ /^size=/) sz = substr($i, 6)
		}
		if (iova == "" || num(iova) != num(pa)) next
		if (num(iova) < lo || num(iova) >= hi) next
		live[num(iova)] = 1
		mapped += sz
	}
	/ unmap: / {
		iova = ""; sz = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^iova=/) iova = substr($i, 6)
			if ($i ~ /^unmapped_size=/) sz = substr($i, 15)
		}
		if (iova == "" || !(num(iova) in live)) next
		delete live[num(iova)]
		unmapped += sz
	}
	END { print (kind == "map" ? mapped : unmapped) + 0 }
	' "$TRACE/trace"
}

finish() {
	echo "# $KVER $IOMMU: $((T_N - T_FAIL)) passed, $T_FAIL failed"
}

# wait_for FILE PATTERN [SECONDS]: poll until a line of FILE matches.
wait_for() {
	local n=$((${3:-10} * 20))
	while [ $n -gt 0 ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# bind_owned ADDR: hand a device to p2ptest-owned, which (like vfio-pci)
# manages DMA itself.
bind_owned() {
	drv_unbind "$1"
	echo p2ptest-owned >"/sys/bus/pci/devices/$1/driver_override"
	echo "$1" >/sys/bus/pci/drivers/p2ptest-owned/bind
}

unbind_owned() {
	echo "$1" >/sys/bus/pci/drivers/p2ptest-owned/unbind
	echo >"/sys/bus/pci/devices/$1/driver_override"
	drv_bind "$1"
}

# ynl_p2pmap ARGS...: the kernel's YNL cli.py on the p2pmap spec (needs an
# initramfs built with P2PMAP_WITH_PYTHON=1).  --no-schema: the guest has no
# jsonschema; specs are validated on the host (tests/spec).
ynl_p2pmap() {
	/usr/bin/python3 /ynl/cli.py --no-schema --spec /ynl/specs/p2pmap.yaml "$@"
}

# idle_netns N: N more network namespaces, a sleeping process in each (a
# container that never asks for events); their pids in $idle, for kill.
idle_netns() {
	idle=""
	for i in $(seq "$1"); do
		unshare -n sleep 3600 &
		idle="$idle $!"
	done
	sleep 2
}

# netns_count: how many network namespaces the processes are in.
netns_count() {
	for p in /proc/[0-9]*; do readlink $p/ns/net; done 2>/dev/null |
		sort -u | wc -l
}

# json_true EXPR < JSON: the Python expression EXPR holds for document d.
json_true() {
	python3 /tests/json_true.py "$1"
}

# links_in STATE: how many links "p2pmap status" shows in STATE.
links_in() {
	p2pmap status | awk -v s="$1" '$2 == "->" && $4 == s' | wc -l
}

# hp_dev ROOTPORT: the device behind a hot-plug root port, if any.
hp_dev() {
	for d in /sys/bus/pci/devices/$1/0000:[0-9a-f][0-9a-f]:00.0; do
		[ -e "$d" ] && basename "$d"
	done | head -1
}

# param NAME: vm.NAME=VALUE from the kernel command line (run-vm.sh's args).
param() { sed -n "s/.*vm\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }

# wait_until 'SHELL TEST' [SECONDS]: poll until the test holds.
wait_until() {
	local n=$((${2:-10} * 20))
	while [ $n -gt 0 ]; do
		eval "$1" && return 0
		sleep 0.05
		n=$((n - 1))
	done
	return 1
}

# spin_until 'SHELL TEST' SECONDS: wait_until without sleeping (the CPU
# never idles), for at most SECONDS of uptime.
spin_until() {
	local end=$(($(cut -d. -f1 /proc/uptime) + $2))
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $end ]; do
		eval "$1" && return 0
	done
	return 1
}

wait_for_dev() { wait_until "[ -n \"\$(hp_dev $1)\" ]" "${2:-10}"; }
wait_for_gone() { wait_until "[ ! -e /sys/bus/pci/devices/$1 ]" "${2:-10}"; }

# load_vfio [vfio_iommu_type1 PARAMS...]: VFIO for vfio-pci hand-offs: this
# kernel's modules from /modules/vfio (in load order), or nothing to load
# where VFIO is built in (the debug kernel), whose parameters are then set
# through /sys/module.
load_vfio() {
	for m in $(cat /modules/vfio/order 2>/dev/null); do
		# Loaded already (a suite before this one in the same boot).
		[ -d "/sys/module/$(basename $m .ko | tr - _)" ] && continue
		case $m in
		vfio_iommu_type1.ko) insmod /modules/vfio/$m "$@" ;;
		*) insmod /modules/vfio/$m ;;
		esac
	done
	[ -s /modules/vfio/order ] && return 0
	for p in "$@"; do
		f=/sys/module/vfio_iommu_type1/parameters/${p%%=*}
		[ -w "$f" ] && echo "${p#*=}" >"$f"
	done
	return 0
}

# vfio_take DEV...: hand the devices to a VM as a host does: VFIO loaded,
# vfio-pci bound through driver_override.  Prints the drivers they end on.
vfio_take() {
	load_vfio allow_unsafe_interrupts=1
	for d in "$@"; do
		echo vfio-pci >/sys/bus/pci/devices/$d/driver_override
		echo $d >/sys/bus/pci/drivers/vfio-pci/bind
	done
	for d in "$@"; do
		basename "$(readlink /sys/bus/pci/devices/$d/driver)"
	done | sort -u
}

# expect_warn begin WHAT | end: around a step that makes the kernel WARN on
# purpose (a negative control).  The host's report check (tests/vm/
# reports.sh) lets exactly the named WARN through between the markers;
# every other report there still fails the VM.  Each marker goes to the
# kernel log too: dmesg dumps show the window, and the console's copy
# keeps its place among the kernel's lines, where the stdout one can come
# early (a console that prints late) or be cut by a kernel line.
expect_warn() {
	echo "P2PMAP-EXPECT-WARN: $1${2:+ $2}" | tee /dev/kmsg
}

# expect_trace begin WHAT | end: around a step that makes the kernel print
# backtraces on purpose (sysrq-l).  tests/vm/reports.sh lets their lines
# ("Call Trace:", "NMI backtrace for cpu") through between the markers;
# a WARNING, BUG or any other report there still fails the VM.  To the
# kernel log too, as expect_warn's.
expect_trace() {
	echo "P2PMAP-EXPECT-TRACE: $1${2:+ $2}" | tee /dev/kmsg
}

# --- kmemleak (debug kernels: CONFIG_DEBUG_KMEMLEAK)
KMEMLEAK=/sys/kernel/debug/kmemleak

# kmemleak_clear: forget the objects allocated so far (boot-time noise),
# and stop the automatic scans (every 10 min, each minutes of CPU under
# TCG and KASAN, taken from the suites); kmemleak_check scans on demand.
kmemleak_clear() {
	[ -e $KMEMLEAK ] || return 0
	echo scan=off >$KMEMLEAK
	echo clear >$KMEMLEAK
}

# kmemleak_check NAME RANGES: scan (twice: an object is reported after it
# was seen unreferenced in two scans), then split the report: objects whose
# backtrace names module NAME, or holds an address in one of the ranges
# "LO HI" (16 hex digits) listed in file RANGES (the module's text while it was
# loaded: after rmmod its addresses no longer resolve), are printed as the
# kernel wrote them; the others only as "# kmemleak other:" lines.  Fails
# when an object of NAME was found.
kmemleak_check() {
	# A kmemleak that disabled itself (an allocation failure of its own;
	# 6.12 then purges its list) refuses the scan: that is a failure, not
	# a clean result.
	if ! echo scan 2>/dev/null >$KMEMLEAK; then
		echo "# kmemleak: the scan was refused (kmemleak disabled itself?)"
		return 1
	fi
	sleep 1
	echo scan >$KMEMLEAK || return 1
	cat $KMEMLEAK >/tmp/kmemleak.txt
	# Addresses are compared as 16-digit hex strings (awk numbers are
	# doubles, too coarse for 64-bit addresses).
	awk -v name="$1" -v rfile="${2:-/dev/null}" '
	BEGIN {
		n = 0
		while ((getline l < rfile) > 0) {
			split(l, f, " "); lo[n] = "x" f[1]; hi[n] = "x" f[2]; n++
		}
	}
	function flush() {
		if (obj == "") return
		if (mine) { printf "%s", obj; found++ }
		else {
			other++
			if (other <= 3) { sub(/\n$/, "", obj)
				gsub(/\n/, "\n# kmemleak other: ", obj)
				printf "# kmemleak other: %s\n", obj }
		}
		obj = ""; mine = 0
	}
	/^unreferenced object/ { flush() }
	{
		obj = obj $0 "\n"
		if (index($0, "[" name "]")) mine = 1
		# An unresolvable frame: "    0xffffffffc0a01234"
		if (match($0, /^ +0x[0-9a-f]+$/)) {
			a = "x" substr($0, RSTART + RLENGTH - 16)
			for (i = 0; i < n; i++) if (a >= lo[i] && a < hi[i]) mine = 1
		}
	}
	END {
		flush()
		printf "# kmemleak: %d unreferenced object(s) from %s, %d other(s)\n",
			found, name, other
		exit found > 0
	}' /tmp/kmemleak.txt
}

# module_text_range NAME: "LO HI" around the text symbols of loaded module
# NAME (from /proc/kallsyms), for kmemleak_check.  Read once per load
# address: /proc/kallsyms costs 3-4 s under TCG and KASAN (the core
# suite's 49 loads: 160 s), and the same build (srcversion) loaded again at
# the same address and size has the same text.  A hidden address (all
# zeros) is never taken as the same.
module_text_range() {
	mtr_key="$(awk -v m="$1" '$1 == m { print $2, $6 }' /proc/modules) $(cat "/sys/module/$1/srcversion" 2>/dev/null)"
	case $mtr_key in
	*" 0x0000000000000000 "*) mtr_key= ;;
	esac
	if [ -n "$mtr_key" ] && [ -s "/tmp/mtr-range.$1" ] &&
		[ "$mtr_key" = "$(cat "/tmp/mtr-key.$1" 2>/dev/null)" ]; then
		cat "/tmp/mtr-range.$1"
		return
	fi
	awk -v m="[$1]" '$4 == m && ($2 == "t" || $2 == "T") { print $1 }' \
		/proc/kallsyms | sort >/tmp/mtr.$$
	rm -f "/tmp/mtr-range.$1"
	[ -s /tmp/mtr.$$ ] &&
		printf '%s %016x\n' "$(head -1 /tmp/mtr.$$)" \
			$((0x$(tail -1 /tmp/mtr.$$) + 4096)) >"/tmp/mtr-range.$1"
	rm -f /tmp/mtr.$$
	echo "$mtr_key" >"/tmp/mtr-key.$1"
	cat "/tmp/mtr-range.$1" 2>/dev/null
}

# rmmod: the applet, but with P2PMAP_TEXT_LOG set (batch.sh) an unload of
# p2pmap first appends its text range there (kmemleak_check).  A function,
# not a wrapper in PATH: busybox sh runs its applets without a PATH lookup.
# An unload of p2ptest returns before its drivers' sysfs directories are
# gone where DEBUG_KOBJECT_RELEASE delays their release (0.1-0.5 s on the
# test bed's debug kernel, 1-4 s upstream): the next
# insmod would collide with them ("cannot create duplicate filename").
rmmod() {
	case " $* " in
	*" p2pmap "*|*" p2pmap.ko "*)
		[ -n "${P2PMAP_TEXT_LOG:-}" ] &&
			module_text_range p2pmap >>"$P2PMAP_TEXT_LOG" ;;
	esac
	command rmmod "$@" || return
	case " $* " in
	*" p2ptest "*|*" p2ptest.ko "*)
		wait_until "[ ! -e /sys/bus/pci/drivers/p2ptest ] &&
			[ ! -e /sys/bus/pci/drivers/p2ptest-owned ] &&
			[ ! -e /sys/bus/pci/drivers/p2ptest-mem ] &&
			[ ! -e /sys/module/p2ptest ]" 15 ;;
	esac
}
