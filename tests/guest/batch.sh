#!/bin/sh
# The suites of one boot: vm.suites=core,faults,... on the kernel command
# line (tests/vm/run-vm.sh with P2PMAP_VM_BATCH=1; tests/run.sh boots every
# VM this way, one suite per boot on the Debian kernels, several on the
# debug kernel: tests/vm/boots.tsv).  Each suite's TAP descriptions start
# with the suite's name (T_PREFIX, lib.sh), and its lines sit between
# "P2PMAP-SUITE: begin S" and "P2PMAP-SUITE: end S": the host compares what
# it counted there with the suite's own tally (tests/harness.sh).
# vm.budgets=N,...: each suite's budget in seconds; a suite past it is
# stopped and fails (run-vm.sh stops the guest a minute later if the suite
# is stuck where no signal reaches it).
# After each suite p2pmap and p2ptest are unloaded (an unload that fails
# is a failure: the next boot or suite would run on the old module
# instance), and the machine is put back as the boot left it: every module
# loaded since unloaded, the edus on no driver and without
# driver_override, removed devices rescanned, the tenants suite's modprobe
# files gone, tracing as at boot, the kernel log emptied (suites count lines in
# dmesg).  Where another suite follows, the machine's state (modules,
# each PCI device's driver, override and group domain type, modprobe.d,
# processes, mounts, p2pmap's sysfs) is then compared with the boot's,
# and a difference fails naming the suite that left it.  These failures
# are reported after "P2PMAP-BATCH: checks", with the kmemleak check.
# kmemleak (debug kernel): cleared before the first suite, so that boot
# noise does not count; checked after the last one, once every p2pmap has
# been unloaded: an unreferenced object with p2pmap in its backtrace fails,
# and so does a kmemleak that can no longer scan (it disables itself after
# an allocation failure of its own).
. ./lib.sh

suites=$(sed -n 's/.*vm\.suites=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')

# lib.sh's rmmod records p2pmap's text addresses in $P2PMAP_TEXT_LOG before
# each unload: the backtraces of objects it leaked name its functions by
# address only once it is gone.  Only where kmemleak is: reading kallsyms
# costs each unload 3-4 s under TCG (the core suite's 49 loads: 160 s).
if [ -e "$KMEMLEAK" ]; then
	export P2PMAP_TEXT_LOG=/tmp/p2pmap-text
	: >$P2PMAP_TEXT_LOG
fi

is_loaded() { grep -q "^$1 " /proc/modules; }

# unload MODULE: rmmod, a second try after a second (a release still
# running); what stays loaded is recorded as a failure of the suite.
problems=/tmp/batch-problems
: >$problems
unload() {
	is_loaded "$1" || return 0
	rmmod "$1" 2>/dev/null && return 0
	sleep 1
	rmmod "$1" && return 0
	echo "$2: $1 did not unload after the suite" >>$problems
}

# modules: what is loaded, one name a line (the boot's are kept).
modules() { cut -d' ' -f1 /proc/modules | sort; }

# unload_since_boot SUITE: every module loaded after the boot, dependants
# first (a pass unloads what nothing uses any more); what stays loaded is
# the fingerprint's to report, with what rmmod said here.
unload_since_boot() {
	for pass in 1 2 3 4 5; do
		left=$(modules | grep -vxF -f /tmp/boot-modules)
		[ -n "$left" ] || return 0
		for m in $left; do
			rmmod "$m" 2>/tmp/rmmod-err || [ $pass != 5 ] ||
				echo "# after $1: rmmod $m: $(cat /tmp/rmmod-err)"
		done
	done
}

reset_machine() {
	unload p2pmap "$1"
	unload p2ptest "$1"
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1234 ] || continue
		[ -e "$d/driver" ] && echo "${d##*/}" >"$d/driver/unbind"
		[ -e "$d/driver_override" ] && echo >"$d/driver_override"
	done
	unload_since_boot "$1"	# vfio-pci and its kin, once no device is on it
	echo 1 >/sys/bus/pci/rescan
	rm -rf /etc/modprobe.d/p2pmap.conf /etc/modprobe.d/00-p2pmap-softdep.conf \
		"/lib/modules/$(uname -r)/extra"
	cat /tmp/boot-tracing_on >"$TRACE/tracing_on" 2>/dev/null
	# every event a suite left on, but the sched events on from boot
	# (tests/vm/run-vm.sh: switching those off would patch __schedule)
	grep -v '^sched:sched_\(switch\|wakeup\|wakeup_new\)$' "$TRACE/set_event" 2>/dev/null |
		while read -r e; do echo "!$e" >>"$TRACE/set_event"; done
	echo >"$TRACE/trace" 2>/dev/null
	dmesg -c >/dev/null
}

# processes: the user processes alive, by name, but this shell and what
# it runs (a suite's "p2pmap monitor" left running is state too).
processes() {
	for f in /proc/[0-9]*/stat; do
		read -r l <"$f" 2>/dev/null && echo "$l"
	done | awk -v me=$$ '{
		pid = $1; comm = $2
		sub(/^[^)]*\) /, "")
		ppid[pid] = $2; name[pid] = comm
	} END {
		for (p in ppid) {
			# the watcher of busybox timeout outlives a suite by
			# up to a second.
			if (p == 1 || p == 2 || ppid[p] == 2 || ppid[p] == 0 ||
			    name[p] == "(timeout)")
				continue
			q = p
			while (q != "" && q != me && q != 1) q = ppid[q]
			if (q != me) print "process " name[p]
		}
	}' | sort
}

# fingerprint: the machine's state a suite could leave behind.
fingerprint() {
	modules | sed 's/^/module /'
	for d in /sys/bus/pci/devices/*; do
		drv=none
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		echo "pci ${d##*/} driver=$drv override=$(cat "$d/driver_override" 2>/dev/null)" \
			"domain=$(cat "$d/iommu_group/type" 2>/dev/null)"
	done
	for f in /etc/modprobe.d/* /lib/modules/*/extra; do
		[ -e "$f" ] && echo "file $f"
	done
	ls /sys/kernel/p2pmap 2>/dev/null | sed 's/^/p2pmap-sysfs /'
	cut -d' ' -f2,3 /proc/mounts | sort | sed 's/^/mount /'
	processes
	echo "tracing_on $(cat "$TRACE/tracing_on" 2>/dev/null)"
}

# budget I: the I-th suite's budget (vm.budgets), 600 s where none is given.
budget() {
	b=$(param budgets | awk -F, -v n="$1" '{ print $n }')
	echo "${b:-600}"
}

# (A first line that names no module: busybox grep -f with an empty file
# matches every line.)
{ echo "# the boot's modules"; modules; } >/tmp/boot-modules
cat "$TRACE/tracing_on" >/tmp/boot-tracing_on 2>/dev/null
fingerprint >/tmp/boot-state
set -- $suites
kmemleak_clear
i=0
for s in $suites; do
	i=$((i + 1))
	b=$(budget $i)
	t0=$(cut -d. -f1 /proc/uptime)
	echo "P2PMAP-SUITE: begin $s"
	# No pipe: the suite's lines must reach the console when written,
	# in order with the kernel's (expect_warn markers, P2PMAP-HOST).
	T_PREFIX=$s timeout "$b" sh "/tests/$s.sh" 2>&1
	rc=$?
	t=$(($(cut -d. -f1 /proc/uptime) - t0))
	if [ $rc != 0 ] && [ $t -ge "$b" ]; then
		T_PREFIX=$s
		not_ok "ran past its budget of $b s (guest time): stopped"
		echo "$s: ran past its budget of $b s" >>$problems
	elif [ $rc != 0 ]; then
		echo "$s: the suite exited with status $rc" >>$problems
	fi
	reset_machine "$s"
	if [ $i -lt $# ]; then
		fingerprint >/tmp/state
		if ! cmp -s /tmp/boot-state /tmp/state; then
			echo "$s: left the machine unlike the boot left it (- boot, + after $s): $(
				diff /tmp/boot-state /tmp/state | grep '^[-+][^-+]' |
				tr '\n' ';' | sed 's/;$//; s/;/; /g')" >>$problems
		fi
	fi
	# The guest's clock: what each suite of a batch costs (TCG's guest
	# time runs close to the host's).
	echo "# time: $s took $t s (guest uptime)"
	echo "P2PMAP-SUITE: end $s"
done

echo "P2PMAP-BATCH: checks"
T_PREFIX=batch
while IFS= read -r p; do
	not_ok "$p"
done <$problems
check "every suite exited 0 within its budget, left p2pmap and p2ptest unloadable and, where another followed, the machine as the boot left it" \
	test ! -s $problems
if [ -e "$KMEMLEAK" ]; then
	echo "# kmemleak: $(wc -l <$P2PMAP_TEXT_LOG) p2pmap unload(s) recorded"
	check "kmemleak: no unreferenced object from p2pmap after its unloads" \
		kmemleak_check p2pmap $P2PMAP_TEXT_LOG
fi
finish
