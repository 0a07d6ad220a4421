#!/bin/sh
# floor: 60 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# The CLI inside a container (issue 25): "unshare -U -n -r" gives it what an
# unprivileged LXC container has (its own user and network namespaces, root
# only there).  With p2pmap on the host and the 12 directions of the four
# edus mapped, every read-only command answers there as on the host (fault
# addresses withheld), monitor gets the events, every state change is
# refused (exit 5, "run the command on the host") and changes nothing;
# netns_reads=N refuses the reads with its reason; without the module the
# CLI says to load it on the host, never to install DKMS in the container.
. ./lib.sh

A=0000:00:10.0 B=0000:00:11.0 C=0000:00:12.0 D=0000:00:13.0
# CT: how the container is entered; a privileged LXC container keeps the
# initial user namespace (root there), with a network namespace of its own.
CT="unshare -U -n -r"
ct() { $CT "$@"; }
# in_ct CMD...: run CMD in a container, stdout in /tmp/ct.out, stderr in
# /tmp/ct.err, the exit status in $rc.
in_ct() {
	ct "$@" >/tmp/ct.out 2>/tmp/ct.err
	rc=$?
	sed 's/^/# ct stderr: /' /tmp/ct.err | head -5
}
in_host() {
	"$@" >/tmp/host.out 2>/tmp/host.err
	hrc=$?
}
same() { cmp -s /tmp/ct.out /tmp/host.out || { diff /tmp/host.out /tmp/ct.out | head -8 | sed 's/^/# /'; false; }; }
# state: what every state change could have touched, as the host sees it.
state() {
	p2pmap status --json
	p2pmap policy --json
	p2pmap faults --json
	p2pt xlatem $A $B $C $D
}

insmod /modules/p2ptest/p2ptest.ko
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
p2pmap link auto >/dev/null
expect "set-up: the 12 directions mapped" "$(links_in mapped)" 12
barb=$(awk '{ print $1; exit }' /sys/bus/pci/devices/$B/resource)

check "the container has its own network namespace" \
	sh -c "[ \"\$(readlink /proc/self/ns/net)\" != \"\$(unshare -U -n -r readlink /proc/self/ns/net)\" ]"
check "... and is root only in its own user namespace" \
	sh -c "unshare -U -n -r cat /proc/self/uid_map | grep -qv '^ *0 *0 *4294967295'"

# --- reads: as on the host
for cmd in "status" "status --json" "info" "policy" "policy --json" "list" \
	"link show" "faults"; do
	in_ct p2pmap $cmd
	in_host p2pmap $cmd
	expect "container: p2pmap $cmd exits 0" "$rc" 0
	check "... and prints what the host prints" same
done
in_ct p2pmap check
expect "container: p2pmap check exits 0 (every link mapped, no fault)" "$rc" 0

# --- the doctor in a container
in_ct p2pmap doctor --gpus 1234:11e8 --driver p2ptest
sed -n '/^\(fail\|warn\|skip\)/s/^/# ct doctor: /p' /tmp/ct.out | head -20
check "container: doctor says the module is loaded (on the host)" \
	grep -q "^ok    p2pmap.loaded" /tmp/ct.out
check "... the links mapped" grep -q "^ok    link.$A>$B" /tmp/ct.out
check "... the host-only checks skipped: run on the host" \
	grep -q "^skip  p2pmap.dkms: run on the host" /tmp/ct.out
check "... and ends with what to run on the host" \
	grep -q "^ok    container: " /tmp/ct.out
check "... and names the CUDA driver the container has (none in this guest)" \
	grep -q "^warn  cuda.driver: no CUDA driver in this container (libcuda.so.1: " /tmp/ct.out

# --- faults: counts, no address
p2pt fault $A $((barb + 0x10)) 3 read >/dev/null
in_ct p2pmap faults --json
expect "container: faults --json exits 0" "$rc" 0
check "... A's fault count, and no address (a container's root is no reader of them)" \
	json_true "[x for x in d['devices'] if x['address'] == '$A'][0]['faults'] >= 3 and all(x['last_addr'] is None and all(p['last_addr'] is None for p in x['peers']) for x in d['devices'])" </tmp/ct.out
p2pmap faults --json >/tmp/host.out
check "... where the host's root sees A's last fault address" \
	json_true "[x for x in d['devices'] if x['address'] == '$A'][0]['last_addr'] is not None" </tmp/host.out
in_ct p2pmap check
expect "... and check there sees the faulting pair (exit 1)" "$rc" 1

# --- state changes: refused, nothing changed (C -> D left out, for
# link auto to try)
p2pmap link del $C $D >/dev/null
state >/tmp/state-before
refused() {
	desc=$1
	shift
	in_ct p2pmap "$@"
	expect "container: p2pmap $desc exits 5" "$rc" 5
	check "... saying to run it on the host" \
		grep -q "run the command on the host" /tmp/ct.err
}
refused "link del A B" link del $A $B --force
refused "link add (with a new BAR mask)" link add --bars 0x1 $A $C
refused "link flush" link flush --force
check "... at its first refusal" \
	test "$(grep -c 'run the command on the host' /tmp/ct.err)" -eq 1
refused "link auto (C -> D missing)" link auto
refused "faults reset" faults reset
refused "policy set" policy set --drivers p2ptest --vendors 1234 --force
printf 'options p2pmap drivers=p2ptest links=%s>%s\n' $C $D >/tmp/ct-p2pmap.conf
refused "config apply" config apply --file /tmp/ct-p2pmap.conf
CT="unshare -n"
refused "link del A B, from a privileged container" link del $A $B --force
refused "faults reset, from a privileged container" faults reset
CT="unshare -U -n -r"
state >/tmp/state-after
check "the state is unchanged (links, policy, faults, the IOMMU's view)" \
	cmp -s /tmp/state-before /tmp/state-after
p2pmap link add $C $D >/dev/null

# --- events
ct p2pmap monitor --count 2 --timeout 30 >/tmp/ct-mon.out 2>&1 &
mon=$!
sleep 0.5
p2pmap link del $A $C >/dev/null
p2pt fault $A $((barb + 0x20)) 1 read >/dev/null
wait $mon
expect "container: monitor got the host's events" "$?" 0
sed 's/^/# ct monitor: /' /tmp/ct-mon.out
check "... the link's deletion" grep -q "$A.*$C" /tmp/ct-mon.out
check "... a fault, without its address" \
	sh -c "grep fault /tmp/ct-mon.out | grep -qv 0x"
p2pmap link add $A $C >/dev/null

# --- which namespaces get events (issue 34, item 5).  The kernel tells a
# module only whether some namespace listens (genl_has_listeners() reads
# one bitmap for all), so a monitor on the host used to have every event
# copied into every namespace.  Now a namespace gets them once a listener
# there registered (P2PMAP_CMD_EVENTS_LISTEN, which the CLI's monitor
# sends), until its socket closes.  Copies are counted with the
# function_graph tracer: netlink_broadcast_filtered() calls under p2pmap's
# event functions, one per copy (where a kernel inlines it into
# netlink_broadcast(), the calls of that).
ev_roots="p2pmap_ntf_work_fn p2pmap_ntf_dev p2pmap_ntf_link p2pmap_ntf_fault"
# The debug kernel has no function tracer (tests/vm/debug.config): there
# the copies are not counted; every Debian kernel counts them.
case $KVER in
*-p2pmap-debug) fg=no ;;
*) fg=yes ;;
esac
# copies: run "link del A C; link add A C" with a monitor on the host; sets
# ev (the events it printed) and nb (netlink_broadcast() calls under
# p2pmap's event functions meanwhile).
copies() {
	p2pmap monitor --timeout 5 >/tmp/cp-mon.out 2>&1 &
	cmon=$!
	sleep 1
	if [ $fg = no ]; then
		p2pmap link del $A $C >/dev/null
		p2pmap link add $A $C >/dev/null
		wait $cmon
		ev=$(grep -c "$A" /tmp/cp-mon.out)
		echo "# $ev events, copies not counted on $KVER ($1)"
		return
	fi
	echo 0 >"$TRACE/tracing_on"
	echo nop >"$TRACE/current_tracer"
	echo >"$TRACE/set_ftrace_filter"
	echo >"$TRACE/set_graph_function"
	for f in $ev_roots netlink_broadcast netlink_broadcast_filtered; do
		echo "$f" >>"$TRACE/set_ftrace_filter" 2>/dev/null
	done
	for f in $ev_roots; do
		echo "$f" >>"$TRACE/set_graph_function" 2>/dev/null
	done
	echo function_graph >"$TRACE/current_tracer"
	echo 0 >"$TRACE/options/funcgraph-tail"
	echo >"$TRACE/trace"
	echo 1 >"$TRACE/tracing_on"
	p2pmap link del $A $C >/dev/null
	p2pmap link add $A $C >/dev/null
	sleep 1
	echo 0 >"$TRACE/tracing_on"
	cp "$TRACE/trace" /tmp/cp.trace
	echo nop >"$TRACE/current_tracer"
	echo >"$TRACE/set_ftrace_filter"
	echo >"$TRACE/set_graph_function"
	wait $cmon
	ev=$(grep -c "$A" /tmp/cp-mon.out)
	nb=$(grep -c "netlink_broadcast_filtered()" /tmp/cp.trace)
	[ "$nb" -gt 0 ] || nb=$(grep -c "netlink_broadcast()" /tmp/cp.trace)
	echo "# $ev events, $nb copies ($1)"
}
idle_netns 20
nets=$(netns_count)
check "set-up: 20 more network namespaces ($nets in all)" test "$nets" -ge 21
[ $fg = no ] ||
	check "... and the function_graph tracer sees p2pmap's event functions" \
		grep -q "p2pmap_ntf_link" "$TRACE/available_filter_functions"
copies "20 namespaces without a listener"
check "a monitor on the host got the events" test "$ev" -ge 2
[ $fg = no ] ||
	expect "... each copied once, into the host's namespace only ($nb copies)" \
		"$nb" "$ev"
expect "no namespace registered for events" \
	"$(cat /sys/kernel/p2pmap/event_namespaces)" 0
$CT p2pmap monitor --timeout 30 >/tmp/ct-mon2.out 2>&1 &
mon=$!
wait_until '[ "$(cat /sys/kernel/p2pmap/event_namespaces)" = 1 ]' 10
expect "a monitor in a container registers its namespace" \
	"$(cat /sys/kernel/p2pmap/event_namespaces)" 1
copies "a monitor in one of 21 namespaces"
[ $fg = no ] ||
	expect "... then each event is copied there too, and nowhere else" \
		"$nb" "$((2 * ev))"
check "... and the container's monitor got them" grep -q "$A.*$C" /tmp/ct-mon2.out
kill $mon
wait $mon 2>/dev/null
wait_until '[ "$(cat /sys/kernel/p2pmap/event_namespaces)" = 0 ]' 10
expect "its monitor gone, the namespace's registration is gone" \
	"$(cat /sys/kernel/p2pmap/event_namespaces)" 0
# A client that joins the group without registering gets nothing in a
# container (on the host it needs no registration): the kernel's ynl.
# evlisten NAME CMD...: ynl subscribed for 12 s through CMD ("ct" or
# "env"), output in /tmp/NAME.ynl, while the host changes a link.
evlisten() {
	local name=$1 pid
	shift
	"$@" /usr/bin/python3 /ynl/cli.py --no-schema \
		--spec /ynl/specs/p2pmap.yaml --subscribe events --sleep 12 \
		>/tmp/$name.ynl 2>&1 &
	pid=$!
	# its socket (port id: its pid) exists once the spec is read; the
	# join follows at once
	wait_until "awk -v p=$pid '\$2 == 16 && \$3 == p { f = 1 } END { exit !f }' /proc/$pid/net/netlink" 30
	sleep 2
	p2pmap link del $A $C >/dev/null
	p2pmap link add $A $C >/dev/null
	wait $pid
	sed 's/^/# ynl: /' /tmp/$name.ynl | head -4
}
evlisten host env
check "ynl on the host, not registered, gets the events" \
	grep -q "link-del-ntf" /tmp/host.ynl
evlisten ct $CT
check "ynl in a container, not registered, gets none" \
	sh -c "grep -q '^\[\]' /tmp/ct.ynl && ! grep -q ntf /tmp/ct.ynl"
kill $idle
wait $idle 2>/dev/null

# --- netns_reads=N
echo N >/sys/module/p2pmap/parameters/netns_reads
in_ct p2pmap status
expect "netns_reads=N: status in a container exits 5" "$rc" 5
check "... with the reason" grep -q "refuses reads from other network namespaces" /tmp/ct.err
check "... and no data" sh -c "! grep -q $A /tmp/ct.out"
in_host p2pmap status
expect "... the host still reads" "$hrc" 0
ct p2pmap monitor --count 1 --timeout 3 >/tmp/ct-mon.out 2>&1 &
mon=$!
sleep 0.5
p2pmap link del $A $C >/dev/null
p2pmap link add $A $C >/dev/null
wait $mon
check "... no event reaches the container" sh -c "! grep -q '$A' /tmp/ct-mon.out"
sed 's/^/# ct monitor: /' /tmp/ct-mon.out
check "... its monitor says why" \
	grep -q "refuses reads from other network namespaces" /tmp/ct-mon.out
# /sys/kernel is not namespaced (LXC and Docker show it read-only): the
# same promise there, for every device and link file (issue 34, item 3).
n=0 all=0
for f in /sys/kernel/p2pmap/devices/*/* /sys/kernel/p2pmap/links/*/*; do
	all=$((all + 1))
	ct cat "$f" >/dev/null 2>&1 || continue
	n=$((n + 1))
	echo "# readable in a container with netns_reads=N: $f"
done
expect "netns_reads=N: none of the $all device and link files in sysfs reads in a container" "$n" 0
check "... the host still reads them" cat /sys/kernel/p2pmap/devices/$A/faults
echo Y >/sys/module/p2pmap/parameters/netns_reads
check "netns_reads=Y: a container reads the fault counts in sysfs" \
	ct cat /sys/kernel/p2pmap/devices/$A/faults
in_ct p2pmap status
expect "netns_reads=Y again: status in a container exits 0" "$rc" 0

# --- without the module, unloaded while a container's monitor is
# registered: its registration goes with the module (kmemleak, KASAN)
$CT p2pmap monitor --timeout 60 >/tmp/ct-mon.out 2>&1 &
mon=$!
wait_until '[ "$(cat /sys/kernel/p2pmap/event_namespaces)" = 1 ]' 10
expect "a container's monitor registered before the unload" \
	"$(cat /sys/kernel/p2pmap/event_namespaces)" 1
rmmod p2pmap
kill $mon
wait $mon 2>/dev/null
in_ct p2pmap status
expect "p2pmap unloaded: status in a container exits 4" "$rc" 4
check "... says to load it on the host" grep -q "load it on the host" /tmp/ct.err
check "... never to install it there" sh -c "! grep -q 'install it' /tmp/ct.err"
rmmod p2ptest
finish
