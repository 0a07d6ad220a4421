#!/bin/sh
# make bench, inside the VM: p2pmap's identity mappings against the NVIDIA
# driver's way (dma_map_resource) for the same 64 GiB BARs, and what
# p2pmap adds to a device bind, a device removal and a fault.  Prints a
# report; asserts nothing.  Every "ratio" line compares two numbers taken
# in this same boot.
#
# Two parts, by the kernel command line:
#   (default)      bigbar topology: the mesh, link add vs dma_map_resource
#                  (1 MiB edu BAR0 and 64 GiB BAR2), DEL_DEVICE of every
#                  edu and ivshmem function, cost per fault.
#   bench.part=iova  gpus4+pxb topology: the IOVA guard with 100,000 live
#                  IOVAs in the initiator's allocator vs none; an event's
#                  cost with 200 more network namespaces vs none.
#   bench.part=early  epyc topology (the host's shape): what the early
#                  reservations take of a GPU's IOVA space, and what they
#                  add to a bind of a driver that allocates like a GPU's.
# In-kernel times come from the kernel's function_graph tracer limited to
# the functions named (set_ftrace_filter): entry and exit of just those,
# the same hooks on both sides of a ratio.  Medians: TCG guests stall.
. ./lib.sh

PART=$(sed -n 's/.*bench\.part=\([^ ]*\).*/\1/p' /proc/cmdline)

# ratio WHAT A B UNIT GOAL: "BENCH: WHAT: A vs B: ratio A/B (goal <= GOAL)",
# MISSED when over; GOAL "-": no goal was set.
ratio() {
	awk -v w="$1" -v a="$2" -v b="$3" -v u="$4" -v g="$5" 'BEGIN {
		if (b + 0 <= 0 || a == "" || a + 0 < 0) {
			printf "BENCH: %s: %s vs %s %s: ratio n/a: MISSED (not measured)\n", w, a, b, u
			exit
		}
		r = a / b
		gs = g == "-" ? "no goal set" : "goal <= " g
		printf "BENCH: %s: %.1f %s vs %.1f %s: ratio %.2f (%s)%s\n", w, a, u, b, u, r, gs,
			(g != "-" && r > g + 0) ? " MISSED" : ""
	}'
}

# --- function_graph timing ----------------------------------------------

# fg_start FUNC...: trace entry and exit of FUNC... only.  Names this
# kernel cannot trace (inlined, notrace) are left out, and said so.
fg_start() {
	echo 0 >"$TRACE/tracing_on"
	echo nop >"$TRACE/current_tracer"
	echo >"$TRACE/set_ftrace_filter"
	for f; do
		if grep -q "^$f\( \|$\)" "$TRACE/available_filter_functions"; then
			echo "$f" >>"$TRACE/set_ftrace_filter"
		else
			echo "BENCH:   (not traceable on this kernel: $f)"
		fi
	done
	echo 8192 >"$TRACE/buffer_size_kb"
	echo function_graph >"$TRACE/current_tracer"
	echo 1 >"$TRACE/options/funcgraph-tail"
	echo 0 >"$TRACE/options/funcgraph-irqs"
	echo >"$TRACE/trace"
	echo 1 >"$TRACE/tracing_on"
}

# fg_stop: "FUNC MICROSECONDS" per traced call into /tmp/fg.dur.
fg_stop() {
	echo 0 >"$TRACE/tracing_on"
	awk '/\|/ {
		i = index($0, "|"); d = substr($0, 1, i - 1); f = substr($0, i + 1)
		if (!match(d, /[0-9.]+ us/))
			next
		v = substr(d, RSTART, RLENGTH - 3)
		sub(/^ +/, "", f); sub(/^} \/\* /, "", f); sub(/ \*\/.*$/, "", f)
		sub(/\(\);.*$/, "", f); sub(/ \[[^]]*\]$/, "", f)
		print f, v
	}' "$TRACE/trace" >/tmp/fg.dur
	echo nop >"$TRACE/current_tracer"
	echo >"$TRACE/set_ftrace_filter"
}

# fg_stat FUNC [SKIP]: "CALLS MEDIAN MEAN" (us) of FUNC's traced calls,
# the first SKIP left out.
fg_stat() {
	awk -v f="$1" -v s="${2:-0}" '$1 == f && ++n > s { print $2 }' /tmp/fg.dur |
		sort -n | awk '{ v[NR] = $1; t += $1 } END {
		if (!NR) { print 0, -1, -1; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%d %.1f %.1f\n", NR, m, t / NR }'
}

med() { fg_stat "$@" | cut -d' ' -f2; }

# fg_sum FUNC: "TOTAL-US CALLS" of FUNC's traced calls.
fg_sum() {
	awk -v f="$1" '$1 == f { t += $2; n++ } END { printf "%.1f %d\n", t, n }' \
		/tmp/fg.dur
}

# fg_show FUNC...: one report line per function.
fg_show() {
	for f; do
		set -- $(fg_stat "$f")
		[ "$1" -gt 0 ] &&
			echo "BENCH:     $f: median $2 us, mean $3 us, $1 calls"
	done
	return 0
}

# --- 1: link add vs dma_map_resource of the same BAR ----------------------

# bench_link NAME I T BAR COUNT: p2pmap's in-kernel link add/del of T in I
# against dma_map_resource/dma_unmap_resource of the same BAR, 5 x COUNT
# times each, alternating in chunks of COUNT (the host's load drifts), in
# one trace.  Then where p2pmap's time goes (a second trace).
bench_link() {
	name=$1 i=$2 t=$3 bar=$4 count=$5
	p2pmap link add "$i" "$t" >/dev/null	# first add: range made, guard
	p2pmap link del "$i" "$t" >/dev/null
	fg_start p2pmap_nl_link_add p2pmap_nl_link_del dma_map_resource \
		dma_unmap_resource
	for c in 1 2 3 4 5; do
		user=$(p2pbench pair "$i" "$t" "$count")
		res=$(p2pt benchmap "$i" "$t" "$bar" "$count")
	done
	fg_stop
	echo "BENCH:   $name, $i -> $t: CLI: $user"
	echo "BENCH:   $name: dma_map_resource (ktime in p2ptest): $res"
	fg_show p2pmap_nl_link_add dma_map_resource p2pmap_nl_link_del \
		dma_unmap_resource
	dmr=$(med dma_map_resource)
	ratio "link add vs dma_map_resource, in-kernel, $name" \
		"$(med p2pmap_nl_link_add)" "$dmr" us 1.0
	ratio "link del vs dma_unmap_resource, in-kernel, $name" \
		"$(med p2pmap_nl_link_del)" "$(med dma_unmap_resource)" us -
	echo "BENCH:   $name: where a link add's time goes (nested calls traced, so a little more):"
	fg_start p2pmap_nl_link_add p2pmap_nl_may_change p2pmap_link_create \
		p2pmap_link_sync p2pmap_link_map p2pmap_range_untranslated \
		iommu_map p2pmap_link_set_state p2pmap_ntf_link p2pmap_nl_done
	p2pbench pair "$i" "$t" $((5 * count)) >/dev/null
	fg_stop
	fg_show p2pmap_nl_link_add p2pmap_nl_may_change p2pmap_link_create \
		p2pmap_link_sync p2pmap_link_map p2pmap_range_untranslated \
		iommu_map p2pmap_link_set_state p2pmap_ntf_link p2pmap_nl_done
	ratio "the mapping alone (p2pmap_link_map) vs dma_map_resource, $name" \
		"$(med p2pmap_link_map)" "$dmr" us 1.0
	echo "BENCH:   $name: iommu_iova_to_phys calls per link add (the pre-map emptiness check):"
	fg_start iommu_iova_to_phys
	p2pbench pair "$i" "$t" 3 >/dev/null
	fg_stop
	set -- $(fg_stat iommu_iova_to_phys)
	echo "BENCH:     $(($1 / 3)) per add+del, median $2 us each"
}

# --- 2: the IOVA guard, empty allocator vs 100,000 live IOVAs --------------

# guard_rounds N: N times link add A E (timed in the kernel), del, then
# unbind + bind A so that p2pmap gives its reservation back (kept while A
# stays bound) and the next add runs the guard again.
guard_rounds() {
	fg_start p2pmap_nl_link_add p2pmap_iova_reserve
	n=0
	while [ $n -lt "$1" ]; do
		p2pmap link add $A $E >/dev/null || echo "BENCH:   link add $A $E failed"
		p2pmap link del $A $E >/dev/null
		drv_unbind $A
		drv_bind $A
		n=$((n + 1))
	done
	fg_stop
}

bench_iova() {
	A=0000:00:10.0 E=0000:41:00.0
	if [ ! -e /sys/bus/pci/devices/$E ]; then
		echo "BENCH: no device behind a second host bridge: no IOVA guard bench"
		return
	fi
	# Without the GPU-like allocation at probe: with reserve=none it
	# would take E's BAR in A's allocator, and every add would be refused.
	insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=0
	# reserve=none: with the early reservations (the default) a link
	# into E's host-bridge window finds p2pmap's window node and never
	# runs the guard; the guard is what reserve=none, and a BAR outside
	# every reserved window, rely on.
	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest reserve=none
	ebar=$(bar0 $E)
	echo "BENCH: kernel $KVER, IOMMU $IOMMU, IOVA guard: $A -> $E (another host bridge)"
	# Three times: 7 rounds empty, fill, 7 rounds full, free.
	: >/tmp/g.empty
	: >/tmp/g.full
	for c in 1 2 3; do
		guard_rounds 7
		cat /tmp/fg.dur >>/tmp/g.empty
		res=$(p2pt ifill $A 100000 $((ebar - 1)))
		case $res in
		allocated=100000*) ;;
		*) echo "BENCH: IOVA guard: ifill failed ($res): MISSED (not measured)"; return ;;
		esac
		guard_rounds 7
		cat /tmp/fg.dur >>/tmp/g.full
		fr=$(p2pt ifree $A)
	done
	echo "BENCH:   last ifill $A 100000 below E's BAR0: $res; ifree: $fr"
	cp /tmp/g.empty /tmp/fg.dur
	echo "BENCH:   empty allocator:"
	fg_show p2pmap_iova_reserve p2pmap_nl_link_add
	e_g=$(med p2pmap_iova_reserve) e_l=$(med p2pmap_nl_link_add)
	cp /tmp/g.full /tmp/fg.dur
	echo "BENCH:   100,000 live IOVAs:"
	fg_show p2pmap_iova_reserve p2pmap_nl_link_add
	f_g=$(med p2pmap_iova_reserve) f_l=$(med p2pmap_nl_link_add)
	ratio "IOVA guard (p2pmap_iova_reserve), 100000 live IOVAs vs empty" \
		"$f_g" "$e_g" us 2
	ratio "link add with the guard, 100000 live IOVAs vs empty" \
		"$f_l" "$e_l" us 2
}

# --- 3: an event's cost, 1 network namespace vs 200 ---------------------

# ev_rounds N: N times link add A B, link del A B, with the work item that
# sends each event timed in the kernel (one event per run here: each is
# sent before the next request comes).
ev_rounds() {
	fg_start p2pmap_ntf_work_fn
	n=0
	while [ $n -lt "$1" ]; do
		p2pmap link add $A $B >/dev/null
		p2pmap link del $A $B >/dev/null
		sleep 0.05
		n=$((n + 1))
	done
	fg_stop
}

# A monitor on the host, then 200 network namespaces without a listener
# (containers that never asked for events): an event must cost what it
# costs with none (issue 34, item 5).  Alternating, for the host's drift.
bench_events() {
	A=0000:00:10.0 B=0000:00:11.0
	p2pmap monitor >/dev/null 2>&1 &
	mon=$!
	sleep 1
	echo "BENCH: kernel $KVER, IOMMU $IOMMU, events with a monitor on the host:"
	: >/tmp/ev.one
	: >/tmp/ev.many
	for c in 1 2 3; do
		ev_rounds 10
		cat /tmp/fg.dur >>/tmp/ev.one
		idle_netns 200
		nets=$(netns_count)
		ev_rounds 10
		cat /tmp/fg.dur >>/tmp/ev.many
		kill $idle
		wait $idle 2>/dev/null
	done
	kill $mon
	cp /tmp/ev.one /tmp/fg.dur
	echo "BENCH:   1 network namespace:"
	fg_show p2pmap_ntf_work_fn
	one=$(med p2pmap_ntf_work_fn)
	cp /tmp/ev.many /tmp/fg.dur
	echo "BENCH:   $nets network namespaces, the monitor in one:"
	fg_show p2pmap_ntf_work_fn
	many=$(med p2pmap_ntf_work_fn)
	ratio "an event sent (p2pmap_ntf_work_fn), $nets network namespaces vs 1" \
		"$many" "$one" us 1.5
}

# --- the early reservations on the host's shape (epyc) -------------------

# bytes_below4g DEV: bytes of DEV's IOVA tree nodes below 4 GiB.
bytes_below4g() {
	t=0
	for r in $(p2pt nodes $1 0 0x100000000 | cut -d' ' -f2-); do
		lo=${r%-*} hi=${r#*-}
		[ $((hi)) -ge $((0x100000000)) ] && hi=0xffffffff
		t=$((t + hi - lo + 1))
	done
	echo $t
}
# bind_us DEV: median of three means of 5 unbind+binds, in us.
bind_us() {
	for r in 1 2 3; do
		p2pbench bind $1 p2ptest 5 | sed -n 's/.*: \([0-9.]*\) us$/\1/p'
	done | sort -n | sed -n 2p
}
bench_early() {
	A=0000:21:00.0
	if [ "$TOPO" != epyc ]; then
		echo "BENCH: not the epyc topology: no early-reservation bench"
		return
	fi
	echo "BENCH: kernel $KVER, IOMMU $IOMMU, early reservations: $A (node 0, host bridge 0x20; three other host bridges and pcie.0)"
	# IOVA space: the driver allocates nothing here, so the tree holds
	# only reservations: dma-iommu's (its own bridge's windows, the MSI
	# range), then p2pmap's besides.
	insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=0
	own=$(bytes_below4g $A)
	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
	drv_unbind $A
	drv_bind $A
	both=$(bytes_below4g $A)
	p2pt nodes $A 0 0x100000000 | sed 's/^/BENCH:   below 4 GiB, with p2pmap: /'
	all=$(p2pmap info --json | json_true 'print(d["windows_reserved_bytes"]) or True')
	ndev=$(ls /sys/kernel/p2pmap/devices | wc -l)
	echo "$own $both $all" | awk '{
		printf "BENCH:   %s below 4 GiB: dma-iommu reserves %.1f MiB, p2pmap %.1f MiB more (%.2f%% of the 32-bit space)\n", "'$A'", $1 / 1048576, ($2 - $1) / 1048576, ($2 - $1) * 100 / 4294967296
		printf "BENCH:   windows reserved by p2pmap, every bound device together (info): %.1f GiB\n", $3 / 1073741824 }'
	rmmod p2pmap
	rmmod p2ptest
	# A bind with the GPU-like allocation (256 MiB at probe, below 4 GiB
	# first): without p2pmap, then with it, alternating three times.
	insmod /modules/p2ptest/p2ptest.ko
	echo "BENCH:   probe without p2pmap: $(p2pt probeinfo $A)"
	: >/tmp/b.without
	: >/tmp/b.with
	for pass in 1 2 3; do
		bind_us $A >>/tmp/b.without
		insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
		bind_us $A >>/tmp/b.with
		rmmod p2pmap
	done
	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
	drv_unbind $A
	drv_bind $A
	echo "BENCH:   probe with p2pmap: $(p2pt probeinfo $A)"
	rmmod p2pmap
	echo "BENCH:   unbind+bind, us: without $(tr '\n' ' ' </tmp/b.without)| with $(tr '\n' ' ' </tmp/b.with)"
	ratio "bind of a GPU-like driver (256 MiB at probe), p2pmap reserving the other host bridges' windows vs not loaded" \
		"$(sort -n /tmp/b.with | sed -n 2p)" "$(sort -n /tmp/b.without | sed -n 2p)" us -
}

case $PART in
iova)
	bench_iova
	bench_events
	echo "BENCH: done"
	exit 0 ;;
early)
	bench_early
	echo "BENCH: done"
	exit 0 ;;
esac

# --- the bigbar part ------------------------------------------------------

insmod /modules/p2ptest/p2ptest.ko
T=$(for d in /sys/bus/pci/drivers/p2ptest-mem/0000:*; do basename $d; done)
n=$(echo $T | wc -w)
echo "BENCH: kernel $KVER, IOMMU $IOMMU, $n targets with a 64 GiB BAR2"

echo "BENCH: unbind+bind of an edu without p2pmap:"
p2pbench bind 0000:00:10.0 p2ptest 20 | sed 's/^/BENCH:   /'

insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest,p2ptest-mem
echo "BENCH: ... with p2pmap loaded, tracking it, no link:"
p2pbench bind 0000:00:10.0 p2ptest 20 | sed 's/^/BENCH:   /'
p2pmap link add 0000:00:10.0 0000:00:11.0 >/dev/null
p2pmap link add 0000:00:11.0 0000:00:10.0 >/dev/null
echo "BENCH: ... with a link each way to remap at every bind:"
p2pbench bind 0000:00:10.0 p2ptest 20 | sed 's/^/BENCH:   /'
p2pmap link del 0000:00:10.0 0000:00:11.0 >/dev/null
p2pmap link del 0000:00:11.0 0000:00:10.0 >/dev/null

echo "BENCH: p2pmap, full mesh of links among the first N targets (BAR2, 64 GiB each):"
p2pbench mesh $T >/tmp/mesh.out 2>&1
sed 's/^/BENCH:   /' /tmp/mesh.out

echo "BENCH: dma_map_resource of the same BAR (the NVIDIA driver's way), mean of 20:"
set -- $T
res=$(p2pt benchmap $1 $2 2 20)
echo "BENCH:   $res"
# Ratios at N = 8: p2pmap's time per link less the netlink round trip
# (which dma_map_resource, called in the kernel, does not pay).
rtt=$(sed -n 's/.*round trip (INFO_GET): \([0-9.]*\) us/\1/p' /tmp/mesh.out)
echo "$res $(grep '^8 ' /tmp/mesh.out)" | awk -v rtt="$rtt" '{
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^map_ns=/) map = substr($i, 8) / 1000
		if ($i ~ /^unmap_ns=/) unmap = substr($i, 10) / 1000
		if ($i ~ /^entries=/) ent = substr($i, 9)
	}
	add = $(NF - 2) - rtt; del = $(NF - 1) - rtt
	printf "BENCH: at N=8: map %.1f us/link (p2pmap, netlink excluded) vs %.1f us (dma_map_resource): ratio %.2f\n", add, map, add / map
	printf "BENCH: at N=8: unmap %.1f us/link vs %.1f us: ratio %.2f\n", del, unmap, del / unmap
	printf "BENCH: entries per 64 GiB BAR: p2pmap %s, dma_map_resource %s\n", $NF, ent
}'

# 1: in-kernel link add against dma_map_resource, same BAR, same boot.
A=0000:00:10.0 B=0000:00:11.0
echo "BENCH: link add vs dma_map_resource, in-kernel (function_graph), medians of 50:"
bench_link "edu BAR0 1 MiB" $A $B 0 10
set -- $T
bench_link "BAR2 64 GiB" "$1" "$2" 2 10

# 4 and 3, alternating p2pmap loaded (tracking every function, no links)
# and not loaded, three times each way:
# 4: cost per fault through report_iommu_fault(): 100k bursts of A into B's
#    BAR0 (p2pmap's io_page_fault probe counts them when loaded).
# 3: DEL_DEVICE (sysfs remove) of every edu and ivshmem function, each
#    round followed by a rescan (timed too).
faults() {
	for r in 1 2 3; do
		p2pt faulttime $A $(($(bar0 $B) + 0x10)) 100000 read |
			sed -n 's/.*per_fault_ns=\([0-9]*\).*/\1/p'
	done
}
D=$(for d in /sys/bus/pci/devices/*; do
	case "$(cat $d/vendor):$(cat $d/device)" in
	0x1234:0x11e8|0x1af4:0x1110) basename $d ;;
	esac
done)
nd=$(echo $D | wc -w)
nt=$(ls /sys/kernel/p2pmap/devices | wc -l)
rmmod p2pmap
echo "BENCH: faults (bursts of 100000, $A into $B's BAR0) and sysfs remove + rescan of $nd functions (edus, ivshmem), alternating:"
: >/tmp/f.without
: >/tmp/f.with
: >/tmp/rm.without
: >/tmp/rm.with
for pass in 1 2 3; do
	faults >>/tmp/f.without
	p2pbench remove 3 $D >/tmp/rm.out 2>&1
	sed "s/^/BENCH:   without p2pmap: /" /tmp/rm.out
	grep '^round' /tmp/rm.out >>/tmp/rm.without
	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest,p2ptest-mem
	faults >>/tmp/f.with
	p2pbench remove 3 $D >/tmp/rm.out 2>&1
	sed "s/^/BENCH:   with p2pmap, tracking: /" /tmp/rm.out
	grep '^round' /tmp/rm.out >>/tmp/rm.with
	rmmod p2pmap
done
# rmed FILE [FIELD]: median of a field (default 1) of FILE's lines.
rmed() {
	awk -v f="${2:-1}" '{ print $f }' "$1" | sort -n | awk '{ v[NR] = $1 } END {
		if (!NR) { print -1; exit }
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# spread FILE FIELD: "min-max" of a field.
spread() {
	awk -v f="$2" 'NR == 1 || $f < lo { lo = $f } NR == 1 || $f > hi { hi = $f }
		END { printf "%s-%s", lo, hi }' "$1"
}
fw=$(rmed /tmp/f.with) fo=$(rmed /tmp/f.without)
echo "BENCH:   report_iommu_fault(), medians of 9 bursts: with p2pmap ($nt devices" \
	"tracked) $fw ns/fault (bursts $(spread /tmp/f.with 1)), without $fo ns/fault" \
	"($(spread /tmp/f.without 1)): the probe costs $((fw - fo)) ns/fault"
ratio "cost per fault, with p2pmap vs without" "$fw" "$fo" ns/fault -

# p2pmap's own share, in the kernel: its bus notifier during one removal
# of every D, then during the rescan, traced (loaded, tracking, no links).
NOTIFY="p2pmap_bus_notify p2pmap_dev_leave p2pmap_dev_untrack \
	p2pmap_dev_track p2pmap_dev_bind p2pmap_fault_index_rebuild \
	p2pmap_sysfs_dev_add p2pmap_ntf_dev"
insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest,p2ptest-mem
fg_start $NOTIFY
for d in $D; do echo 1 >/sys/bus/pci/devices/$d/remove; done
fg_stop
echo "BENCH:   traced: p2pmap's notifier during the removal of the $nd:"
for f in $NOTIFY; do
	set -- $(fg_sum $f)
	[ "$2" -gt 0 ] && echo "BENCH:     $f: $(awk -v t=$1 -v n=$nd 'BEGIN { printf "%.1f", t / n }') us/device, $2 calls"
done
rm_notify=$(fg_sum p2pmap_bus_notify | awk -v n=$nd '{ printf "%.1f", $1 / n }')
fg_start $NOTIFY
echo 1 >/sys/bus/pci/rescan
fg_stop
echo "BENCH:   traced: p2pmap's notifier during the rescan:"
for f in $NOTIFY; do
	set -- $(fg_sum $f)
	[ "$2" -gt 0 ] && echo "BENCH:     $f: $(awk -v t=$1 -v n=$nd 'BEGIN { printf "%.1f", t / n }') us/device, $2 calls"
done
rmmod p2pmap

echo "BENCH:   sysfs remove, wall clock: per device, rounds $(spread /tmp/rm.without 4) us without," \
	"$(spread /tmp/rm.with 4) us with p2pmap (TCG: noisy)"
ratio "DEL_DEVICE (sysfs remove) per device, wall clock, p2pmap tracking vs not loaded" \
	"$(rmed /tmp/rm.with 4)" "$(rmed /tmp/rm.without 4)" us 1.1
rmw=$(rmed /tmp/rm.without 4)
ratio "DEL_DEVICE per device, not loaded + p2pmap's traced notifier time vs not loaded" \
	"$(awk -v a="$rmw" -v b="$rm_notify" 'BEGIN { print a + b }')" "$rmw" us 1.1
ratio "rescan (ADD_DEVICE + bind) per device, p2pmap tracking vs not loaded" \
	"$(rmed /tmp/rm.with 7)" "$(rmed /tmp/rm.without 7)" us -
echo "BENCH: done"
