#!/bin/sh
# floor: 19 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Races: several netlink clients at once (link add/del, policy set, faults
# reset, status/list dumps) while other processes unbind/bind devices,
# remove/rescan them, hot-plug/unplug one through the QEMU monitor (numa2
# topology) and report IOMMU fault bursts.  Seeded (vm.seed=N replays the
# choices of every worker; the interleaving is the scheduler's), bounded
# by vm.race_ops iterations per worker and a vm.race_secs wall-clock cap.
# Then everything is quiesced and checked:
#   - for every ordered pair of edus, what the IOMMU translates
#     (p2ptest xlatem) equals what p2pmap says (status: mapped), and every
#     configured link whose sides are bound and admitted is mapped;
#   - /sys/kernel/p2pmap/links names the same links as the netlink dump;
#   - no DMA-API reservation is left behind in a target's BAR range for a
#     link that is not mapped (p2ptest nodes; skipped until p2ptest has it);
#   - after rmmod p2pmap nothing is identity-mapped and nothing reserved;
#   - the kernel log is clean;
#   - no dump the CLI printed was half a dump (see check_status below).
. ./lib.sh
trap '' PIPE

OPS=$(param race_ops); OPS=${OPS:-400}
SECS=$(param race_secs); SECS=${SECS:-50}
SEED=$(param seed); SEED=${SEED:-1}
# The stand-in driver's GPU-like allocation at probe, in MiB (p2ptest's
# default, 256, unless vm.probe_mib says): every bind in the races pays it,
# and the debug kernel pays it many times over.
MIB=$(param probe_mib); MIB=${MIB:-256}
echo "# races: seed $SEED, at most $OPS iterations per worker and $SECS s (replay with vm.seed=$SEED)"

# Node 0 (pcie.0 and host bridge 0x20) is never removed; node 1's host
# bridge (0x40) is removed and rescanned; 00:1c.0 takes hot-plugged edus.
E0="0000:00:10.0 0000:00:11.0 0000:00:12.0 0000:00:13.0"
EFIX="$E0 0000:21:00.0 0000:22:00.0"
EREM="0000:41:00.0 0000:42:00.0"
EALL="$EFIX $EREM"
RP=0000:00:1c.0
HPSTATE=/tmp/race.hp		# the hot-plugged device's address, if any
HPID=/tmp/race.hpid		# its QEMU id, for the quiesce (the worker's
				# counter lives in the worker's subshell)
W=/tmp/race
rm -rf $W
mkdir -p $W

insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest	# boot order: before
insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=$MIB	# the GPU-like driver

# rnd N: R = a pseudo-random number in 0..N-1 (an LCG per worker).
rnd() {
	S=$(((S * 1103515245 + 12345) & 0x7fffffff))
	R=$(((S >> 8) % $1))
}
# pick WORDS...: P = one of the words.
pick() {
	rnd $#
	shift $R
	P=$1
}

# The anchor links: every pair from a pcie.0 edu to a device that is never
# removed (20 links), added first, in this order.  p2prot (tests/race)
# rotates them, hundreds of times a second: it deletes the anchor at the
# front of p2pmap's list and adds it again, which puts it at the back.  So at any moment the anchors, in dump order,
# are a contiguous run of the cyclic order A0..A19 (all 20, or 19 while one
# is between its del and its add).  A half dump breaks that: when a link
# before the point where the kernel's dump resumes is deleted, the next
# dump part starts one link late (one is skipped) and the rotated anchor
# shows up again at the back (twice).  The kernel marks such a dump
# NLM_F_DUMP_INTR; the CLI must retry it.
# add A B: set-up adds, with the CLI's own code in one static binary
# (tests/failnth, nothing armed) where there is one: a dynamically linked
# CLI run costs seconds under KASAN and TCG.
add() {
	if command -v failnth >/dev/null; then
		failnth 0 link-add $1 $2 >/dev/null 2>&1
	else
		p2pmap link add $1 $2 >/dev/null 2>&1
	fi
}
ANCHORS=
for a in $E0; do for b in $EFIX; do
	[ $a = $b ] && continue
	ANCHORS="$ANCHORS $a>$b"
	add $a $b
done; done
NANCH=$(echo $ANCHORS | wc -w)
# Churned links: from the other devices, to anything.
CHURN=
for a in 0000:21:00.0 0000:22:00.0 $EREM; do for b in $EALL; do
	[ $a = $b ] || CHURN="$CHURN $a>$b"
done; done
for l in $CHURN; do
	rnd 2
	[ $R = 1 ] && add ${l%>*} ${l#*>}
done
nconf=$(p2pmap status | awk '$2 == "->"' | wc -l)
echo "# $nconf links configured, $NANCH of them anchors"
check "races: the set-up added every anchor" [ "$nconf" -ge "$NANCH" ]

# check_status FILE: 0 if the status output in FILE is a whole dump: no
# link twice, the anchors a contiguous run of their cyclic order, at most
# one missing.  Prints why not.
check_status() {
	awk -v anchors="$ANCHORS" '
	BEGIN { n = split(anchors, a, " "); for (i = 1; i <= n; i++) idx[a[i]] = i - 1 }
	$2 == "->" {
		k = $1 ">" $3
		if (seen[k]++) { print "link " k " twice"; bad = 1 }
		if (k in idx) seq[m++] = idx[k]
	}
	END {
		if (m < n - 1) { print m " of " n " anchors"; bad = 1 }
		for (i = 1; i < m; i++)
			if (seq[i] != (seq[i - 1] + 1) % n) {
				print "anchor " seq[i] " after " seq[i - 1]; bad = 1
			}
		exit bad
	}' "$1"
}

# check_list FILE: every device never removed is listed once, tracked.
check_list() {
	for d in $EFIX; do
		c=$(awk -v d=$d '$1 == d && $7 == "yes"' "$1" | wc -l)
		[ "$c" = 1 ] || { echo "$d listed tracked $c times"; return 1; }
	done
}

START=$(date +%s)
DEADLINE=$((START + SECS))
# more: the worker may go on (iterations, wall clock, stop file).
more() {
	[ $I -lt "$OPS" ] && [ ! -e $W/stop ] && [ "$(date +%s)" -lt $DEADLINE ]
}
# count KIND: one more operation of KIND done by this worker.
count() { eval "C_$1=\$((\${C_$1:-0} + 1))"; }
# worker NAME SEEDOFFSET BODY: run BODY until more() says stop, then write
# this worker's counts to $W/NAME.count.
worker() {
	(
		S=$((SEED * 31 + $2)) I=0 WN=$1
		while more; do
			$3
			I=$((I + 1))
		done
		set | sed -n "s/^\(C_[a-z_]*=\)'*\([0-9]*\)'*$/\1\2/p" >$W/$1.count
	) &
	eval "PID_$1=$!"
	PIDS="$PIDS $!"
}

w_link() {
	pick $CHURN
	# A link the module took prints its state line, and is kept even when
	# that is not mapped (exit 1 then: a side unbound, not admitted).
	case $(p2pmap link add ${P%>*} ${P#*>} 2>/dev/null) in
	"link ${P%>*} -> ${P#*>}: "*) count link_add ;;
	*) count link_add_refused ;;
	esac
	pick $CHURN
	p2pmap link del ${P%>*} ${P#*>} >/dev/null 2>&1 && count link_del
}

w_policy() {
	rnd 3
	case $R in
	0) p2pmap policy set --numa 0 >/dev/null && count policy_set ;;
	1) p2pmap policy set --drivers p2ptest,nvidia >/dev/null && count policy_set ;;
	2) p2pmap policy set --numa "" --drivers p2ptest >/dev/null && count policy_set ;;
	esac
	rnd 4
	[ $R = 0 ] && p2pmap faults reset >/dev/null && count faults_reset
}

# status and list dumps: every output must be whole, or a clear error.
# dump1 reads list and status in turn, dump2 status only.  Some reads hold
# p2prot's rotations (the other workers go on): under the debug kernel one
# rotation is quicker than a whole status read or a list's device dump,
# which then never complete (CI saw status=0, then list=0).  Held: dump2's
# every second status, dump1's every second list (its first read).
w_dump() {
	R=0
	[ "$WN" = dump1 ] && [ $((I % 2)) = 0 ] && R=2
	quiet=
	[ "$WN" = dump2 ] && [ $((I % 2)) = 1 ] && quiet=1
	[ "$WN" = dump1 ] && [ $((I % 4)) = 0 ] && quiet=1
	[ -n "$quiet" ] && touch $W/pause
	if [ $R = 2 ]; then
		f=$W/list.$WN
		p2pmap list >$f 2>&1
		rc=$?
		rm -f $W/pause
		[ $rc = 0 ] && count list
		[ $rc = 0 ] && [ -n "$quiet" ] && count list_rotations_held
		if [ $rc = 0 ] && ! why=$(check_list $f); then
			count half_list
			echo "# HALF DUMP (list): $why"
			cp $f $W/half.list.$WN.$I
		fi
	else
		f=$W/status.$WN
		p2pmap status >$f 2>&1
		rc=$?
		rm -f $W/pause
		[ $rc = 0 ] && count status
		[ $rc = 0 ] && [ -n "$quiet" ] && count status_rotations_held
		if [ $rc = 0 ] && ! why=$(check_status $f); then
			count half_status
			echo "# HALF DUMP (status): $why"
			cp $f $W/half.status.$WN.$I
		fi
	fi
	if [ $rc != 0 ]; then
		if grep -q 'kept changing\|interrupted by changes' $f; then
			count dump_gave_up
		else
			count dump_error
			sed 's/^/# dump error: /' $f | head -3
		fi
	fi
}

w_bind() {
	pick $EALL $(cat $HPSTATE 2>/dev/null)
	[ -e /sys/bus/pci/devices/$P ] || return
	if [ -e /sys/bus/pci/devices/$P/driver ]; then
		drv_unbind $P 2>/dev/null && count unbind
	else
		drv_bind $P 2>/dev/null && count bind
	fi
}

w_remove() {
	pick $EREM
	if [ -e /sys/bus/pci/devices/$P ]; then
		echo 1 >/sys/bus/pci/devices/$P/remove 2>/dev/null && count remove
	else
		echo 1 >/sys/bus/pci/rescan && count rescan
	fi
}

w_fault() {
	pick $EALL
	a=$P
	pick $EALL
	[ $a = $P ] && return
	bar=$(bar0 $P 2>/dev/null) || return
	echo "fault $a $bar 200 read" >$CTL 2>/dev/null && count fault_burst
}

HP_N=0
w_hotplug() {
	HP_N=$((HP_N + 1))
	echo rhp$HP_N >$HPID
	echo "P2PMAP-HOST: device_add edu,id=rhp$HP_N,bus=rphp,dma_mask=0xffffffffffffffff"
	# The request rides on the console, where a kernel line can cut it in
	# two: one more request (a new id) before it counts as lost.
	if ! wait_for_dev $RP 20; then
		count hotplug_retry
		HP_N=$((HP_N + 1))
		echo rhp$HP_N >$HPID
		echo "P2PMAP-HOST: device_add edu,id=rhp$HP_N,bus=rphp,dma_mask=0xffffffffffffffff"
	fi
	if wait_for_dev $RP 20; then
		count hotplug_add
		hp=$(hp_dev $RP)
		echo $hp >$HPSTATE
		p2pmap link add 0000:00:10.0 $hp >/dev/null 2>&1
		p2pmap link add $hp 0000:00:11.0 >/dev/null 2>&1
		# Let the others race with it for a while (a poll, not a sleep).
		t=$(($(date +%s) + 2))
		wait_until "[ -e $W/stop ] || [ \$(date +%s) -ge $t ]" 3
		rm -f $HPSTATE
		echo "P2PMAP-HOST: device_del rhp$HP_N"
		# An ACPI eject unbinds the driver (which frees its probe-time
		# buffers: slow under KASAN) before the device goes.
		if wait_for_gone $hp 60; then count hotplug_del; else count hotplug_stuck; fi
	else
		count hotplug_timeout
	fi
}

PIDS=
worker link1 1 w_link
worker link2 2 w_link
p2prot -p $W/pause $W/stop $SECS $ANCHORS >$W/rotate.out 2>&1 &
PID_rotate=$!
worker policy 4 w_policy
worker dump1 5 w_dump
worker dump2 6 w_dump
worker bind 7 w_bind
worker remove 8 w_remove
worker fault 9 w_fault
# vm.hotplug=off (acpi=noirq on the debug kernel: no ACPI hot-plug): the
# remove worker's sysfs remove/rescan still adds and deletes devices.
HOTPLUG=hotplug_add
if [ "$(param hotplug)" = off ]; then
	HOTPLUG=
	echo "# races: no hot-plug worker (vm.hotplug=off)"
else
	worker hotplug 10 w_hotplug
fi
# The clients are bounded by iterations; once the first of them is done
# (or the clock runs out) everyone stops.
wait $PID_link1
touch $W/stop
for p in $PIDS $PID_rotate; do wait $p; done
sed 's/^/# /' $W/rotate.out
rot=$(sed -n 's/.*rotations=\([0-9]*\).*/\1/p' $W/rotate.out)
echo "C_anchor_rotate=${rot:-0}" >$W/rotate.count
echo "# races: workers done after $(($(date +%s) - START)) s"

# ---- quiesce: everything back, bound, admitted ----------------------------
if [ -n "$(hp_dev $RP)" ]; then
	echo "P2PMAP-HOST: device_del $(cat $HPID)"
	check "quiesce: the hot-plugged edu is gone" wait_for_gone "$(hp_dev $RP)" 60
fi
echo 1 >/sys/bus/pci/rescan
check "quiesce: every edu is present again" \
	wait_until "for d in $EALL; do [ -e /sys/bus/pci/devices/\$d ] || exit 1; done" 20
for d in $EALL; do
	[ -e /sys/bus/pci/devices/$d/driver ] || drv_bind $d 2>/dev/null
done
p2pmap policy set --numa "" --drivers p2ptest >/dev/null

# ---- counts -------------------------------------------------------------
cat $W/*.count | sed 's/=/ /; s/^C_//' |
	awk '{ c[$1] += $2 } END { for (k in c) printf "%s=%d\n", k, c[k] }' |
	sort >$W/counts
echo "# operations: $(tr '\n' ' ' <$W/counts)"
cnt() { sed -n "s/^$1=//p" $W/counts | grep . || echo 0; }
total=$(awk -F= '{ s += $2 } END { print s }' $W/counts)
# vm.race_min: the least number of operations that shows the workers and
# the rotator really raced (default 150; the debug kernel's boot, at about
# a fifth of the speed, sets its own in tests/vm/boots.tsv).
MIN=$(param race_min); MIN=${MIN:-150}
check "races: more than $MIN operations done ($total)" [ "$total" -gt "$MIN" ]
missing=$(for k in link_add anchor_rotate policy_set status list unbind remove \
	fault_burst $HOTPLUG; do [ "$(cnt $k)" -gt 0 ] || printf '%s ' $k; done)
expect "races: every kind of operation ran (missing: ${missing:-none})" "$missing" ""
expect "races: no hot-plugged device got stuck or never appeared" \
	"$(cnt hotplug_stuck) $(cnt hotplug_timeout)" "0 0"
expect "races: no status output was half a dump ($(cnt status) printed, $(cnt status_rotations_held) of them with the rotations held, $(cnt dump_gave_up) gave up with a clear error)" \
	"$(cnt half_status)" 0
expect "races: no list output was half a dump ($(cnt list) printed, $(cnt list_rotations_held) of them with the rotations held)" \
	"$(cnt half_list)" 0
expect "races: no dump failed other than by giving up cleanly" "$(cnt dump_error)" 0
check "races: the rotated anchors were always added back" \
	sh -c "! grep -q lost= $W/rotate.out"
for f in $W/half.*; do
	[ -e "$f" ] && sed "s|^|# $(basename $f): |" "$f" | head -40
done

# ---- invariants ---------------------------------------------------------
p2pmap status >$W/final 2>&1
awk '$2 == "->" { print $1 ">" $3, $4 }' $W/final >$W/links
check "final status is a whole dump" check_status $W/final
nsys=$(ls /sys/kernel/p2pmap/links | wc -l)
expect "/sys/kernel/p2pmap/links has every configured link" "$nsys" "$(wc -l <$W/links)"
# xlate1 A B: 1 if A's domain translates B's BAR0 to itself (p2ptest
# xlatem takes 7 devices at most: one pair at a time).
xlate1() { p2pt xlatem $1 $2 | cut -c1; }
VIOL=0 n=0
for a in $EALL; do for b in $EALL; do
	[ $a = $b ] && continue
	g=$(xlate1 $a $b)
	n=$((n + 1))
	st=$(awk -v k="$a>$b" '$1 == k { print $2 }' $W/links)
	says=0
	[ "$st" = mapped ] && says=1
	want=0
	[ -n "$st" ] && [ -e /sys/bus/pci/devices/$a/driver ] &&
		[ -e /sys/bus/pci/devices/$b/driver ] && want=1
	if [ "$g" != $says ] || [ $says != $want ]; then
		VIOL=$((VIOL + 1))
		echo "# VIOLATION $a -> $b: translated=$g p2pmap=${st:-no link} expected mapped=$want"
	fi
done; done
expect "p2pmap's view equals the IOMMU's for all $n ordered pairs, every bound link mapped" "$VIOL" 0

# Reservations: across host bridges, a target's BAR range holds exactly one
# node in the initiator's DMA API allocator (p2ptest nodes) while a link
# maps it (p2pmap's: the BAR's own, or the piece of the other bridge's
# window reserved before the driver probed), and at most that one
# otherwise (reservations outlive mappings while the initiator is bound);
# none is left after rmmod.  Under the same host bridge the kernel itself
# reserved the window.
bridge() { readlink -f /sys/bus/pci/devices/$1 | cut -d/ -f4; }
nodes_in() { p2pt nodes "$1" "$(bar0 "$2")" 0x100000 | cut -d' ' -f1; }
HAVE_NODES=0
echo "nodes 0000:00:10.0 0x0 0x1000" >"$CTL" 2>/dev/null && HAVE_NODES=1
expect "p2ptest's nodes probe works (the reservation checks need it)" \
	$HAVE_NODES 1
if [ $HAVE_NODES = 1 ]; then
	bad=0
	for a in $EALL; do for b in $EALL; do
		[ $a = $b ] || [ "$(bridge $a)" = "$(bridge $b)" ] && continue
		want='nodes=[01]'
		[ "$(awk -v k="$a>$b" '$1 == k { print $2 }' $W/links)" = mapped ] &&
			want=nodes=1
		got=$(nodes_in $a $b)
		case $got in $want) ;; *) bad=$((bad + 1)); echo "# RESERVATION $a in $b's BAR: $got, want $want"
			b0=$(bar0 $b)
			echo "# around it: $(p2pt nodes $a $((b0 - 0x1000000)) 0x2000000)" ;; esac
	done; done
	expect "one reservation in another host bridge's BAR for each mapped link, at most one otherwise" "$bad" 0
fi

check "no kernel WARNING or BUG in the log" kernel_log_clean
rmmod p2pmap
check "rmmod p2pmap after the races" [ ! -e /sys/module/p2pmap ]
got=$(for a in $EALL; do for b in $EALL; do
	[ $a = $b ] || xlate1 $a $b; done; done | tr -d '0\n')
expect "after rmmod nothing is identity-mapped between any two edus" "$got" ""
if [ $HAVE_NODES = 1 ]; then
	leak=0
	for a in $EALL; do for b in $EALL; do
		[ $a = $b ] || [ "$(bridge $a)" = "$(bridge $b)" ] && continue
		got=$(nodes_in $a $b)
		[ "$got" = nodes=0 ] || { leak=$((leak + 1)); echo "# LEAK after rmmod: $a in $b's BAR: $got"; }
	done; done
	expect "after rmmod no reservation is left in another host bridge's BAR" "$leak" 0
fi
check "no kernel WARNING or BUG after rmmod" kernel_log_clean

finish
