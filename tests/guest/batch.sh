#!/bin/sh
# The suites of one boot: vm.suites=core,faults,... on the kernel command
# line (tests/vm/run-vm.sh with P2PMAP_VM_BATCH=1; tests/run.sh boots every
# VM this way).  Each suite's TAP descriptions start with the suite's name
# (T_PREFIX, lib.sh), and its lines sit between "P2PMAP-SUITE: begin S"
# and "P2PMAP-SUITE: end S": the host compares what it counted there with
# the suite's own tally (tests/harness.sh).
# Between suites the machine is put back as a boot leaves it: p2pmap and
# p2ptest unloaded, the edus on no driver and without driver_override,
# removed devices rescanned, the tenants suite's modprobe files gone,
# tracing off, the kernel log emptied (suites count lines in dmesg).  An
# unload that fails is a failure (the next suite would run on the old
# module instance and its parameters), and so is a suite that exits
# non-zero: both are reported after "P2PMAP-BATCH: checks", with the
# kmemleak check.
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

reset_machine() {
	unload p2pmap "$1"
	unload p2ptest "$1"
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1234 ] || continue
		[ -e "$d/driver" ] && echo "${d##*/}" >"$d/driver/unbind"
		[ -e "$d/driver_override" ] && echo >"$d/driver_override"
	done
	echo 1 >/sys/bus/pci/rescan
	rm -rf /etc/modprobe.d/p2pmap.conf /etc/modprobe.d/00-p2pmap-softdep.conf \
		"/lib/modules/$(uname -r)/extra"
	echo 0 >"$TRACE/tracing_on" 2>/dev/null
	echo 0 >"$TRACE/events/enable" 2>/dev/null
	echo >"$TRACE/trace" 2>/dev/null
	dmesg -c >/dev/null
}

kmemleak_clear
for s in $suites; do
	t0=$(cut -d. -f1 /proc/uptime)
	echo "P2PMAP-SUITE: begin $s"
	# No pipe: the suite's lines must reach the console when written,
	# in order with the kernel's (expect_warn markers, P2PMAP-HOST).
	T_PREFIX=$s sh "/tests/$s.sh" 2>&1 ||
		echo "$s: the suite exited with status $?" >>$problems
	reset_machine "$s"
	# The guest's clock: what each suite of a batch costs (TCG's guest
	# time runs close to the host's).
	echo "# time: $s took $(($(cut -d. -f1 /proc/uptime) - t0)) s (guest uptime)"
	echo "P2PMAP-SUITE: end $s"
done

echo "P2PMAP-BATCH: checks"
T_PREFIX=batch
while IFS= read -r p; do
	not_ok "$p"
done <$problems
check "every suite exited 0 and left p2pmap and p2ptest unloadable" \
	test ! -s $problems
if [ -e "$KMEMLEAK" ]; then
	echo "# kmemleak: $(wc -l <$P2PMAP_TEXT_LOG) p2pmap unload(s) recorded"
	check "kmemleak: no unreferenced object from p2pmap after its unloads" \
		kmemleak_check p2pmap $P2PMAP_TEXT_LOG
fi
finish
