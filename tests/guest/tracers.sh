#!/bin/sh
# floor: 4
# The test bed itself: suites switch tracers and trace events on and off
# (container, faults, faultinject, the IOMMU map trace of lib.sh), and
# each switch used to patch __schedule and try_to_wake_up while the other
# CPU ran them; under TCG a CPU then executed the int3 of a finished patch
# ("Oops: int3" in __schedule: make check of stop 48, in the container
# suite).  run-vm.sh turns the scheduler's events on at boot, tests/vm/init
# filters them out of the buffer.  This switches the function and
# function_graph tracers vm.toggles=N times (default 50) while four shells
# keep both CPUs switching: without the boot's events it dies within a few
# switches (2 boots of 2 on 6.12, 400 asked).
. ./lib.sh

n=$(param toggles)
n=${n:-50}
for e in sched_switch sched_wakeup sched_wakeup_new; do
	grep -qx "sched:$e" "$TRACE/set_event" || not_ok "sched:$e is on from boot"
done
check "the scheduler's events are on from boot" \
	sh -c "[ \$(grep -c '^sched:sched_' $TRACE/set_event) = 3 ]"
check "... and filtered out of the buffer" \
	grep -qx 'common_pid < 0' "$TRACE/events/sched/sched_switch/filter"

for i in 1 2 3 4; do (while :; do echo x | cat >/dev/null; done) & done
echo netlink_broadcast >"$TRACE/set_ftrace_filter"
i=0 errs=0
while [ $i -lt "$n" ]; do
	for t in function_graph nop function nop; do
		echo $t >"$TRACE/current_tracer" || errs=$((errs + 1))
	done
	i=$((i + 1))
done
kill $(jobs -p) 2>/dev/null
wait 2>/dev/null
echo >"$TRACE/set_ftrace_filter"
expect "function and function_graph switched on and off $n times each under load" \
	"$i $errs" "$n 0"
check "... and the scheduler's events are still on, filtered" \
	sh -c "[ \$(grep -c '^sched:sched_' $TRACE/set_event) = 3 ] &&
		grep -qx 'common_pid < 0' $TRACE/events/sched/sched_switch/filter"
finish
