#!/bin/sh
# floor: 35 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Fault injection (debug kernel: FAILSLAB, FAIL_PAGE_ALLOC, fail-nth,
# kmemleak).  For each operation, N = 1, 2, 3, ...: the N-th allocation
# that p2pmap's own code makes during that one operation fails
# (/proc/thread-self/fail-nth, armed by tests/failnth in the task that makes
# the syscall; the stack-trace filter, when the kernel has it, limits the
# count to allocations with p2pmap's code on the stack), until the
# operation completes without reaching the N-th.  After each: the state
# p2pmap reports (netlink status and /sys/kernel/p2pmap) equals what the
# IOMMU translates (p2ptest xlatem), it is what the outcome implies (a
# failed link add keeps nothing, a bind maps or says why not, ...), no
# DMA-API reservation is left in the target's BAR range (p2ptest nodes;
# skipped until p2ptest has it), and the failure was reported (the request
# failed with a message, or the kernel log says what failed); then it is
# undone.  A "p2pmap monitor" listens all along, so events are allocated.
# At the end kmemleak must hold no object allocated from p2pmap's code.
#   operations: link add, link del (netlink); bind, unbind (sysfs, the bus
#   notifier); rescan (device add: tracking, sysfs entries), remove;
#   insmod with configured links (replay, sysfs, genetlink registration).
. ./lib.sh
trap '' PIPE

NTH=/proc/thread-self/fail-nth
DBG=/sys/kernel/debug
# The debug kernel's suite (tests/run.sh boots it nowhere else): without
# fail-nth there is nothing to walk, and that is a failure.
if [ ! -e $NTH ] || [ ! -d $DBG/failslab ]; then
	not_ok "this kernel has fail-nth and failslab (CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	finish
	exit 0
fi
MAXN=$(sed -n 's/.*vm\.maxn=\([0-9]*\).*/\1/p' /proc/cmdline)
MAXN=${MAXN:-400}
# vm.fi=la,ld,b,u,r,m,i: which walks (default all): link add, link del,
# bind, unbind, rescan, remove, insmod.
FI=$(sed -n 's/.*vm\.fi=\([a-z,]*\).*/\1/p' /proc/cmdline)
FI=,${FI:-la,ld,b,u,r,m,i},
want() { case $FI in *,$1,*) return 0 ;; esac; return 1; }

A=0000:00:10.0		# initiator, on pcie.0
T=0000:41:00.0		# target, behind its own host bridge: the IOVA guard
			# reserves its BAR in A's allocator (reserve_iova)
# Removed and rescanned: a pcie.0 device (a rescan that re-adds a device
# behind the pxb host bridge runs into an ACPI _PRT loop timeout of ~30 s
# on the debug kernel).
R=0000:00:13.0
KO=/modules/p2pmap/p2pmap.ko
W=/tmp/fi
rm -rf $W
mkdir -p $W
KLOG=$W/klog		# the whole kernel log (dmesg is cleared per step)

# Fail GFP_KERNEL allocations too (ignore-gfp-wait=Y would skip them), and
# order-0 pages; say which failed, with the stack.
for f in failslab fail_page_alloc; do
	[ -d $DBG/$f ] || continue
	echo N >$DBG/$f/ignore-gfp-wait
	[ -e $DBG/$f/ignore-gfp-highmem ] && echo N >$DBG/$f/ignore-gfp-highmem
	[ -e $DBG/$f/min-order ] && echo 0 >$DBG/$f/min-order
	echo 2 >$DBG/$f/verbose
done
FILTER=0
[ -e $DBG/failslab/require-start ] && FILTER=1
# kmemleak allocates its record of every object from inside the slab
# allocator (__GFP_NOWARN; it copes with failure): left out, or every point
# of p2pmap's would come with a twin that tests kmemleak.
REJECT=$(failnth sym kmemleak_alloc 2>/dev/null)
# filter LO HI: only injection points with code in [LO, HI) on the stack
# (and none of kmemleak_alloc's).
filter() {
	[ $FILTER = 1 ] || return 0
	lo=$1 hi=$2
	for f in $DBG/fail*/; do
		[ -e $f/require-start ] || continue
		echo 0 >$f/require-start	# keep start <= end meanwhile
		echo "$hi" >$f/require-end
		echo "$lo" >$f/require-start
		if [ -n "$REJECT" ] && [ "$lo" != 0 ]; then
			echo 0 >$f/reject-start
			echo "${REJECT#* }" >$f/reject-end
			echo "${REJECT% *}" >$f/reject-start
		else
			echo 0 >$f/reject-start
			echo 0 >$f/reject-end
		fi
		echo 32 >$f/stacktrace-depth
	done
}
# Any module's code: a module that is being loaded has no sections file yet.
MODAREA="0xffffffffa0000000 0xffffffffff000000"

echo clear >$DBG/kmemleak 2>/dev/null
for m in $(cat /modules/vfio/order 2>/dev/null); do insmod /modules/vfio/$m; done
# Without the GPU-like allocation at probe: the walks are about p2pmap's
# own allocations failing (early.sh covers the IOVA layout).
insmod /modules/p2ptest/p2ptest.ko probe_dma_mib=0
dmesg -c >>$KLOG

load() { insmod $KO drivers=p2ptest "$@"; }
load
# The p2pmap code span of this load (module text moves at each load).
p2prange() { failnth range p2pmap $KO; }
REF_SOURCES=$(cat /sys/kernel/p2pmap/fault_sources)
if [ $FILTER = 1 ]; then
	echo "# stack-trace filter: p2pmap's code ($(p2prange)), module area for insmod; kmemleak_alloc rejected (${REJECT:-not found})"
else
	echo "# no stack-trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER): every injection point of the task counts"
fi
MON_PID=
monitor_start() { p2pmap monitor >>$W/monitor.log 2>&1 & MON_PID=$!; }
monitor_stop() { [ -n "$MON_PID" ] && kill $MON_PID 2>/dev/null; wait $MON_PID 2>/dev/null; MON_PID=; }
monitor_start

# The reservation-leak checks read A's allocator through p2ptest's nodes:
# a probe that fails would turn every one of them off, so it is a failure.
HAVE_NODES=0
echo "nodes $A 0x0 0x1000" >"$CTL" 2>/dev/null && HAVE_NODES=1
expect "p2ptest's nodes probe works (the reservation-leak checks need it)" \
	$HAVE_NODES 1
TBAR=$(bar0 $T)

# ---- what to look at after each step -----------------------------------
st_nl() { p2pmap status 2>/dev/null | awk -v a="$1" -v b="$2" '$1 == a && $3 == b { print $4 }'; }
# Each step reads these several times: with "read", a builtin, not a
# process (a fork and exec cost about 50 ms under KASAN and TCG).
# st_fs A T: ST = the link's state in sysfs ("" when it has none).
st_fs() { ST=; { read -r ST </sys/kernel/p2pmap/links/$1-$2/state; } 2>/dev/null; true; }
xl() { echo "xlate $1 $2" >"$CTL" 2>/dev/null; X=; read -r X <"$CTL"; }	# X; 0x0: untranslated
num() { printf '%d' "$1" 2>/dev/null || echo "?$1"; }	# hex, without $(( )): a bad word would end the shell
nodes() { echo "nodes $1 $2 0x100000" >"$CTL" 2>/dev/null; ND=; read -r ND _ <"$CTL"; }	# ND=nodes=N
tracked() { [ -e /sys/kernel/p2pmap/devices/$1 ]; }

# BAD WHY: one inconsistency of this step.
BAD=
bad() { BAD="$BAD; $*"; }

# link_consistent A T [BAR]: p2pmap's view (/sys/kernel/p2pmap, and the
# netlink dump when NETLINK=1: an exec of the CLI costs seconds under KASAN
# and TCG, so once per walk) agrees with the IOMMU's, and a reservation
# exists while the link is mapped (one node: the range's own or a piece of
# the window reserved early), at most that one otherwise (reservations
# outlive mappings while the initiator is bound).  Sets ST.
NETLINK=0
link_consistent() {
	bar=${3:-$TBAR}
	st_fs $1 $2
	if [ $NETLINK = 1 ]; then
		nl=$(st_nl $1 $2)
		[ "$ST" = "$nl" ] || bad "sysfs says '$ST', netlink '$nl'"
	fi
	xl $1 $bar
	x=$X
	if [ "$ST" = mapped ]; then
		[ "$(num $x)" = "$(num $bar)" ] || bad "mapped but $bar translates to $x"
	else
		[ "$(num $x)" = 0 ] || bad "'$ST' but $bar translates to $x"
	fi
	if [ $HAVE_NODES = 1 ]; then
		nodes $1 $bar
		nd=$ND
		want='nodes=[01]'
		[ "$ST" = mapped ] && want=nodes=1
		case $nd in $want) ;; *) bad "reservation: $nd in $bar, want $want" ;; esac
	fi
}

# ---- the walk ------------------------------------------------------------
# The allocator's own frames (and the hooks): an injection point is named
# by the first caller outside them.
ALLOC_RE='^(dump_stack|should_fail|__should_fail|fail_dump|should_failslab|slab_pre_alloc|kmem_cache_alloc|__kmem_cache_alloc|__kmalloc|kmalloc|kmemdup|kstrdup|kvasprintf|kasprintf|kvmalloc|__kvmalloc|kasan|__alloc_pages|alloc_pages|__folio_alloc|folio_alloc|alloc_frozen|__alloc_frozen|get_free_pages|__get_free_pages|get_zeroed_page|prepare_alloc_pages|__alloc_skb|alloc_skb|kmalloc_reserve|iommu_alloc_page|__iommu_alloc_pages|alloc_iova_mem|kmem_cache_zalloc|kzalloc|krealloc|__do_krealloc|___slab_alloc|__slab_alloc|new_slab|allocate_slab|alloc_slab_page|stack_depot|__stack_depot|idr_|radix_tree_node_alloc|xas_alloc|xas_create|xas_store|xa_)'

# point FILE: name the injection point from the fault-injection report in
# FILE: "HOOK:INNER<-P2PFN" (the innermost caller that is not allocator
# code, and the p2pmap function it was reached from), "?" when there is
# no report (__GFP_NOWARN: fail_dump() stays quiet).
point() {
	awk -v alloc_re="$ALLOC_RE" '
	/FAULT_INJECTION: forcing a failure/ { on = 1; next }
	on && /^.*name (fail[a-z_]*)/ { for (i = 1; i <= NF; i++) if ($i == "name") { t = $(i + 1); sub(",", "", t) } next }
	on && /\] +\? / { next }	# an unreliable frame
	on && /\+0x[0-9a-f]*\/0x/ {
		for (i = 1; i <= NF; i++) if ($i ~ /\+0x/) { f = $i; sub(/\+.*/, "", f) }
		if (f ~ alloc_re) next
		if (!inner) inner = f
		if (!p && $0 ~ /\[p2pmap\]/) p = f
		if (/entry_SYSCALL|do_syscall/) on = 0
	}
	END { if (!inner) print "?"; else printf "%s:%s<-%s\n", t, inner, p ? p : "?" }' "$1"
}

# trace_points OP ARG...: the injection points that OP (a step's OP: failnth,
# given 1000000 to inject nothing) hits, in order, from a kprobe on
# should_fail_ex (where fail-nth counts) with a stack trace of each call
# in OP's task: the calls the stack-trace filter lets through
# (within the first 32 frames code in the module area, and no
# kmemleak_alloc), named as point() names them (a frame of p2pmap's init
# code, freed when the trace is read, matches any name: "*"), with 1 for a
# __GFP_NOWARN call, its call site (the return address of the innermost
# module frame: LO HI, the range a stack-trace filter aims at it alone)
# and its rank under that filter (how many of the points counted with it
# came up to this one).  Writes "N NAME NOWARN LO HI RANK" lines to
# $W/tpoints and OP's own line to $W/tpoints.op (its hit= count).
trace_points() {
	tr=$TRACE
	echo 0 >$tr/tracing_on
	echo >$tr/trace
	echo 8192 >$tr/buffer_size_kb
	echo 'p:p2pfi/fail should_fail_ex flags=%dx:x32' >>$tr/kprobe_events
	echo 1 >$tr/options/sym-offset
	echo 1 >$tr/options/sym-addr
	# An optimized probe (a jump) loses the stack above the hook's
	# caller: int3 probes unwind from their pt_regs.
	opt=$(cat /proc/sys/debug/kprobes-optimization)
	echo 0 >/proc/sys/debug/kprobes-optimization
	# Only OP's task: failnth, the one running.  (A filter on the event,
	# not set_event_pid or event-fork: those patch the scheduler's
	# tracepoints, and under TCG such a live patch of __schedule once
	# ended in an int3 oops.)
	echo 'comm == "failnth"' >$tr/events/p2pfi/fail/filter
	echo stacktrace >$tr/events/p2pfi/fail/trigger
	echo 1 >$tr/events/p2pfi/fail/enable
	echo 1 >$tr/tracing_on
	"$@" >$W/tpoints.op
	echo 0 >$tr/tracing_on
	cat $tr/trace >$W/trace
	echo 0 >$tr/events/p2pfi/fail/enable
	echo '!stacktrace' >$tr/events/p2pfi/fail/trigger
	echo 0 >$tr/events/p2pfi/fail/filter
	echo '-:p2pfi/fail' >>$tr/kprobe_events
	echo 0 >$tr/options/sym-offset
	echo 0 >$tr/options/sym-addr
	echo $opt >/proc/sys/debug/kprobes-optimization
	echo >$tr/trace
	awk -v alloc_re="$ALLOC_RE" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	# An address + 1, in hex (awk numbers are doubles: no 64-bit sums).
	function inc(s,   i, c, d) {
		for (i = length(s); i > 0; i--) {
			d = index("0123456789abcdef", substr(s, i, 1))
			if (d < 16) return substr(s, 1, i - 1) substr("0123456789abcdef", d + 1, 1) substr(s, i + 1)
			s = substr(s, 1, i - 1) "0" substr(s, i + 1)
		}
		return s
	}
	function done() {
		if (have && !rej && !irq) {
			# rank: how many counted calls (those with this
			# address in their first 32 frames) up to this one.
			for (x in seen) if (!(x in cnt)) cnt[x] = 0
			for (x in seen) cnt[x]++
			if (mod) printf "%d %s:%s<-%s %d 0x%s 0x%s %d\n", ++n, t, inner ? inner : "?", p ? p : "?", nowarn, site, inc(site), cnt[site]
		}
		have = 0
		for (x in seen) delete seen[x]
	}
	/entries-in-buffer\/entries-written/ { split($3, e, "/"); if (e[1] != e[2]) lost = 1 }
	/: fail: \(should_fail_ex/ {
		done()
		have = 1; lead = 1; depth = 0; mod = rej = irq = 0; inner = p = t = site = ""; on = 1
		g = $0; sub(/.*flags=/, "", g)
		nowarn = hex(g) % 2		# FAULT_NOWARN
		next
	}
	have && /^ => / {
		fr = $2; a = $NF
		# The kprobe frames up to the probed should_fail_ex;
		# then the hook that called it names the kind.
		if (lead) { if (fr ~ /^should_fail_ex\+/) lead = 0; next }
		if (!t) t = fr ~ /^should_failslab\+/ ? "failslab" : fr ~ /alloc_page/ ? "fail_page_alloc" : fr
		# Interrupt context (fail-nth counts only in task context;
		# the int3 probe shows every event in NMI context).
		if (fr ~ /^(asm_sysvec_|sysvec_|asm_common_interrupt|common_interrupt|__irq_exit_rcu|irq_exit_rcu|handle_softirqs|__do_softirq|run_ksoftirqd)/) irq = 1
		if (++depth <= 32) {
			if (a ~ /^<ffffffff[a-e][0-9a-f]+>$/) {
				mod = 1
				x = substr(a, 2, 16)
				seen[x] = 1
				if (site == "") site = x	# the innermost: the call site
			}
			if (fr ~ /^kmemleak_alloc\+/) rej = 1
		}
		if (!on) next
		f = fr; sub(/\+.*/, "", f)
		if (f ~ /^0x/) { if (a ~ /^<ffffffff[a-e]/) { f = "*"; if (!p) p = f } else next }
		if (f ~ alloc_re) next
		if (!inner) inner = f
		if (!p && $0 ~ /\[p2pmap\]/) p = f
		if (f ~ /entry_SYSCALL|do_syscall/) on = 0
	}
	END { done(); if (lost) print "0 trace-lost-events 0 0 0 0" }' $W/trace >$W/tpoints
}

# reported FILE: the kernel log of the step says what failed (p2pmap, or the
# kobject core about p2pmap's sysfs entries; not, say, ACPI).
reported() {
	grep -v 'FAULT_INJECTION\|^.*name fail\|CPU:\|Hardware name\|Call Trace\|<TASK>\|</TASK>\|+0x\|^ *\[ *[0-9.]*\] *$' "$1" |
		grep -iE 'p2pmap|kobject|kernfs' | grep -qiE 'out of memory|failed|error|cannot|-12|nomem'
}

# kernel_copes POINT: an allocation inside a kernel function that p2pmap
# calls, which the function absorbs by design without telling its caller:
#   alloc_workqueue: the lockdep name of the workqueue (lockdep builds
#   only; it falls back to the workqueue's name).
#   ctrl_build_family_msg, genl_ctrl_event: genetlink's notice of a new
#   family to nlctrl's listeners; genl_register_family ignores its loss.
kernel_copes() {
	case $1 in
	*:alloc_workqueue\<-*) return 0 ;;
	*:ctrl_build_family_msg\<-*|*:genl_ctrl_event*\<-*) return 0 ;;
	esac
	return 1
}

# step N: the operation (walk's NAME SETUP OP VERIFY UNDO) with its N-th
# injection point failing, checked and undone; PT names the point.  Returns
# 1 if the operation never reached it: then it ran whole, uninjected (OP's
# hit= says how many points it passed), and is checked as such.
step() {
	$setup
	filter $rng
	dmesg -c >>$KLOG
	out=$($op $1)
	rc=$?
	filter 0 0xffffffffffffffff
	dmesg -c >$W/step
	cat $W/step >>$KLOG
	# failnth's one line: "... consumed=C [hit=H] ret=E msg=TEXT".
	case $out in
	*consumed=*) c=${out##*consumed=}; c=${c%%[!0-9-]*} ;;
	*) c= ;;
	esac
	case $out in
	*msg=*) msg=${out##*msg=} ;;
	*) msg= ;;
	esac
	BAD=
	if [ "$c" != 1 ]; then
		NETLINK=1
		$verify $rc
		NETLINK=0
		[ $rc = 0 ] || bad "it failed with nothing injected: $msg"
		h=$(echo "$out" | sed -n 's/.* hit=\([0-9]*\).*/\1/p')
		expect "$name: uninjected (it passed ${h:-?} injection points) it completes, consistent${BAD}" "$BAD" ""
		$undo
		return 1
	fi
	walked=$((walked + 1))
	PT=$(point $W/step)
	if [ -n "$DEBUG_POINTS" ]; then
		DEBUG_POINTS=$((DEBUG_POINTS - 1))
		[ $DEBUG_POINTS = 0 ] && DEBUG_POINTS=
		grep -A30 FAULT_INJECTION $W/step | head -30 | sed 's/^/#   raw: /'
	fi
	$verify $rc
	how="failed: $msg"
	if [ $rc = 0 ]; then
		absorbed=$((absorbed + 1))
		if ! grep -q 'FAULT_INJECTION' $W/step; then
			# fail_dump() stays quiet for __GFP_NOWARN: an
			# allocation whose caller copes (kmemleak's and
			# KASAN's metadata, fallbacks).
			how="succeeded: a __GFP_NOWARN allocation, its caller copes"
			nowarn=$((nowarn + 1))
		elif reported $W/step; then
			how="succeeded, the kernel log says what failed"
		elif kernel_copes "$PT"; then
			how="succeeded: the kernel's own code copes, p2pmap never sees it"
		else
			how="succeeded, nothing reported"
			silent=$((silent + 1))
			echo "# SILENT $name n=$1 $PT"
		fi
	else
		failed=$((failed + 1))
	fi
	if [ -n "$BAD" ]; then
		bads=$((bads + 1))
		echo "# INCONSISTENT $name n=$1 $PT ($how)${BAD}"
		sed -n '/FAULT_INJECTION/,$p' $W/step | grep -v '^ *$' | head -30 | sed 's/^/#   /'
	else
		echo "# $name n=$1 $PT: $how; consistent"
	fi
	$undo
	return 0
}

walk_start() {
	name=$1 setup=$2 op=$3 verify=$4 undo=$5
	walked=0 bads=0 silent=0 failed=0 absorbed=0 nowarn=0
	rng=$MODAREA
	[ $6 = p2pmap ] && rng=$(p2prange)	# the module stays loaded
}

# walk_end DESC FLOOR: the walk's verdicts; FLOOR points at least (what
# the operation reached when this was written, less a margin: a walk that
# reaches fewer lost its points, e.g. to a filter aimed wrong).
walk_end() {
	echo "# $name: $walked injection points hit$1 ($failed failed the operation, $absorbed absorbed: $nowarn __GFP_NOWARN, $silent without a word)"
	eval "HIT_$(echo $name | tr -c 'a-zA-Z0-9\n' _)=$walked"
	check "$name: at least $2 injection points walked ($walked)" \
		test "$walked" -ge "$2"
	expect "$name: state consistent after each of the $walked injected failures" $bads 0
	expect "$name: no injected failure absorbed without a word" $silent 0
	TOTAL_BAD=$((TOTAL_BAD + bads))
	TOTAL_SILENT=$((TOTAL_SILENT + silent))
}

# walk NAME SETUP OP VERIFY UNDO RANGE FLOOR: every point, N = 1.. until
# the operation no longer reaches the N-th.
#   SETUP and UNDO run without injection; OP N runs failnth and prints its
#   line; VERIFY RC sets BAD for an inconsistent state; RANGE: p2pmap |
#   module (the stack-trace filter's span); FLOOR: the least number of
#   points the walk must reach.
TOTAL_BAD=0 TOTAL_SILENT=0 DEBUG_POINTS=
walk() {
	walk_start "$@"
	n=1
	while [ $n -le $MAXN ] && step $n; do
		n=$((n + 1))
	done
	[ $n -le $MAXN ] || not_ok "$name: the walk ended at vm.maxn=$MAXN points"
	walk_end "" "$7"
}

# walk_sites NAME SETUP OP VERIFY UNDO RANGE FLOOR: by call site instead
# of every point, where every point costs too much (the insmod walk);
# FLOOR: the least number of call sites walked.  An
# uninjected OP is traced first (trace_points): its points in order,
# named.  Then the first point of each name fails (the kernel's own
# __GFP_NOWARN ones taken as one name), each checked as walk checks them;
# the call sites no walked point turned out to be are listed.
walk_sites() {
	walk_start "$@"
	$setup
	filter $rng
	dmesg -c >>$KLOG
	trace_points $op 1000000
	filter 0 0xffffffffffffffff
	dmesg -c >>$KLOG
	$undo
	if grep -q ' trace-lost-events ' $W/tpoints; then
		not_ok "$name: the trace lost events (its ring buffer is too small)"
		sed -i '/ trace-lost-events /d' $W/tpoints
	fi
	total=$(wc -l <$W/tpoints)
	h=$(sed -n 's/.* hit=\([0-9]*\).*/\1/p' $W/tpoints.op)
	# The kernel's own __GFP_NOWARN allocations under p2pmap's calls
	# (kmemleak's and KASAN's records, radix-tree preloads: their callers
	# cope, p2pmap never sees them) are one site: the first of them.
	awk '!seen[$2 " " $3]++' $W/tpoints >$W/tall
	awk '$3 == 1 && $2 !~ /:p2pmap_/ { if (nw++) next } { print }' $W/tall >$W/tsites
	sites=$(wc -l <$W/tsites)
	echo "# $name: the traced run hit $total injection points (fail-nth counted $h) at $(wc -l <$W/tall) call sites; $sites to walk (the kernel's own __GFP_NOWARN ones as one)"
	sed 's/^/#   site: /' $W/tsites
	# The trace and fail-nth count the same run's points; they may part
	# by a few (per-CPU caches refilled by __GFP_NOWARN allocations
	# the trace leaves out): more than that is a trace that misses
	# points, whose sites the walk would never aim at.
	d=$((total > ${h:-0} ? total - ${h:-0} : ${h:-0} - total))
	check "$name: the trace and fail-nth agree on the points ($total traced, ${h:-none} counted)" \
		test "$total" -gt 0 -a -n "$h" -a "$d" -le $(( ${h:-0} / 20 > 3 ? ${h:-0} / 20 : 3 ))
	# Points of two runs differ (per-CPU caches refilled or not by
	# __GFP_NOWARN allocations: a few hundred points in, by dozens), so a
	# site is not aimed at by its index: the stack-trace filter takes
	# only the points with the site's return address on the stack, and
	# the site is the RANK-th of those (give or take 1).  A site counts as
	# walked when a walked point is it (a neighbour tried for one site may
	# be another).  At most $budget points in all (vm.fi_budget).
	budget=$(param fi_budget)
	budget=${budget:-36}
	: >$W/twalked
	while read -r ws_n ws_name ws_nowarn ws_lo ws_hi ws_rank <&3; do
		ws_want=$ws_name
		[ $ws_nowarn = 1 ] && ws_want='?'
		grep -qxF "$ws_want" $W/twalked && continue
		rng="$ws_lo $ws_hi"
		for ws_d in 0 1 -1; do
			ws_k=$((ws_rank + ws_d))
			[ $ws_k -ge 1 ] && [ $walked -lt $budget ] || continue
			step $ws_k || break
			echo "$PT" >>$W/twalked
			case $PT in $ws_want) break ;; esac
		done
	done 3<$W/tsites
	rng=$MODAREA
	if step 1000000; then not_ok "$name: the run reached its 1000000th point"; fi
	missed=0
	while read -r ws_n ws_name ws_nowarn ws_lo ws_hi ws_rank; do
		ws_want=$ws_name
		[ $ws_nowarn = 1 ] && ws_want='?'
		found=0
		while read -r w; do
			case $w in $ws_want) found=1; break ;; esac
		done <$W/twalked
		[ $found = 1 ] && continue
		missed=$((missed + 1))
		echo "#   not walked: $ws_name (point $ws_n of the trace, #$ws_rank under $ws_lo)"
	done <$W/tsites
	echo "# $name: $((sites - missed)) of the $sites call sites walked in $walked points"
	check "$name: at least $7 call sites walked ($((sites - missed)) of $sites)" \
		test $((sites - missed)) -ge "$7"
	walk_end " (by call site, of $total)" "$7"
}

# -- link add: A and T bound, no link -------------------------------------
la_setup() { failnth 0 link-del $A $T >/dev/null 2>&1; true; }
la_op() { failnth $1 link-add $A $T; }
la_verify() {
	link_consistent $A $T
	if [ $1 = 0 ]; then
		[ "$ST" = mapped ] || bad "link add succeeded but the link is '$ST'"
	else
		[ -z "$ST" ] || bad "link add failed but the link is kept ('$ST')"
	fi
}
la_undo() { failnth 0 link-del $A $T >/dev/null 2>&1; true; }
want la && walk "link add" la_setup la_op la_verify la_undo p2pmap 30

# -- link del: a mapped link ---------------------------------------------
ld_setup() { failnth 0 link-add $A $T >/dev/null 2>&1; st_fs $A $T; [ "$ST" = mapped ]; }
ld_op() { failnth $1 link-del $A $T; }
ld_verify() {
	link_consistent $A $T
	if [ $1 = 0 ]; then
		[ -z "$ST" ] || bad "link del succeeded but the link is '$ST'"
	else
		[ "$ST" = mapped ] || bad "link del failed but the link is '$ST'"
	fi
}
ld_undo() { failnth 0 link-del $A $T >/dev/null 2>&1; true; }
want ld && walk "link del" ld_setup ld_op ld_verify ld_undo p2pmap 4

# -- bind: link A -> T configured, A unbound ------------------------------
failnth 0 link-add $A $T >/dev/null 2>&1
b_setup() {
	[ -e /sys/bus/pci/devices/$A/driver ] && drv_unbind $A
	st_fs $A $T
	[ "$ST" = pending ]
}
b_op() { failnth $1 write /sys/bus/pci/drivers/p2ptest/bind $A; }
b_verify() {
	[ -e /sys/bus/pci/devices/$A/driver ] || bad "A is not bound"
	link_consistent $A $T
	case $ST in
	mapped) ;;
	error)	r=$(cat /sys/kernel/p2pmap/links/$A-$T/reason)
		[ -n "$r" ] || bad "link in error without a reason"
		echo "#   (link $A -> $T left in error: $r)" ;;
	*)	bad "after bind the link is '$ST'" ;;
	esac
	[ "$(cat /sys/kernel/p2pmap/devices/$A/state 2>/dev/null)" = bound ] ||
		bad "p2pmap says A is '$(cat /sys/kernel/p2pmap/devices/$A/state 2>/dev/null)'"
}
b_undo() { true; }
want b && walk "bind" b_setup b_op b_verify b_undo p2pmap 20
[ -e /sys/bus/pci/devices/$A/driver ] || drv_bind $A

# -- unbind: A bound, link mapped -----------------------------------------
u_setup() {
	[ -e /sys/bus/pci/devices/$A/driver ] || drv_bind $A
	failnth 0 link-add $A $T >/dev/null 2>&1
	st_fs $A $T
	[ "$ST" = mapped ] || { failnth 0 link-del $A $T >/dev/null; failnth 0 link-add $A $T >/dev/null; }
	st_fs $A $T
	[ "$ST" = mapped ]
}
u_op() { failnth $1 write /sys/bus/pci/drivers/p2ptest/unbind $A; }
u_verify() {
	[ -e /sys/bus/pci/devices/$A/driver ] && bad "A is still bound"
	link_consistent $A $T
	[ "$ST" = pending ] || bad "after unbind the link is '$ST'"
}
u_undo() { true; }
want u && walk "unbind" u_setup u_op u_verify u_undo p2pmap 5
u_setup >/dev/null

failnth 0 link-add $A $R >/dev/null 2>&1
RBAR=$(bar0 $R)
# -- rescan: R removed, link A -> R configured ----------------------------
r_setup() {
	[ -e /sys/bus/pci/devices/$R ] && echo 1 >/sys/bus/pci/devices/$R/remove
	st_fs $A $R
	[ ! -e /sys/bus/pci/devices/$R ] && [ "$ST" = pending ]
}
r_op() { failnth $1 write /sys/bus/pci/rescan 1; }
r_verify() {
	[ -e /sys/bus/pci/devices/$R/driver ] || bad "T did not come back bound"
	tracked $R || bad "T is present and bound but p2pmap does not track it"
	link_consistent $A $R "$(bar0 $R)"
	case $ST in
	mapped) ;;
	error)	echo "#   (link $A -> $R left in error: $(cat /sys/kernel/p2pmap/links/$A-$R/reason))" ;;
	*)	bad "T is back but the link is '$ST' ($(cat /sys/kernel/p2pmap/links/$A-$R/reason 2>/dev/null))" ;;
	esac
}
r_undo() { true; }
want r && walk "rescan (device add)" r_setup r_op r_verify r_undo p2pmap 50
[ -e /sys/bus/pci/devices/$R ] || echo 1 >/sys/bus/pci/rescan
wait_until "[ -e /sys/bus/pci/devices/$R/driver ]" 10

# -- remove: R present, link mapped ---------------------------------------
m_setup() {
	[ -e /sys/bus/pci/devices/$R ] || echo 1 >/sys/bus/pci/rescan
	wait_until "[ -e /sys/bus/pci/devices/$R/driver ]" 10
	RBAR=$(bar0 $R)
	st_fs $A $R
	[ "$ST" = mapped ]
}
m_op() { failnth $1 write /sys/bus/pci/devices/$R/remove 1; }
m_verify() {
	[ -e /sys/bus/pci/devices/$R ] && bad "T is still there"
	tracked $R && bad "T is gone but p2pmap still tracks it"
	link_consistent $A $R "$RBAR"
	[ "$ST" = pending ] || bad "after removal the link is '$ST'"
}
m_undo() { true; }
want m && walk "remove" m_setup m_op m_verify m_undo p2pmap 12
m_setup >/dev/null

# -- insmod with configured links: both bound -----------------------------
monitor_stop
p2pmap link del $A $T >/dev/null 2>&1
rmmod p2pmap
i_setup() {
	[ -e /sys/module/p2pmap ] && rmmod p2pmap
	[ ! -e /sys/module/p2pmap ]
}
i_op() { failnth $1 insmod $KO "drivers=p2ptest links=$A>$T,$T>$A"; }
# lost_dev D: the step's failure took D's entry, and the log says so (it is
# tracked again at its next bind event).
lost_dev() { grep -q "p2pmap: $1: not tracked: out of memory" $W/step; }
# oom_error I T: link I -> T is in error for want of memory, and says so.
oom_error() {
	[ "$ST" = error ] && grep -q 'out of memory' /sys/kernel/p2pmap/links/$1-$2/reason
}
i_verify() {
	if [ $1 = 0 ] && grep -qE 'p2pmap: [a-z_]+: .*out of memory' $W/step; then
		# A parameter (or a links= entry) lost to the failure: skipped
		# and said, never admitting more (a lost drivers= admits
		# nothing, a lost links= entry configures nothing): the state
		# is what the IOMMU shows, and info reports the loss.
		link_consistent $A $T
		st_at=$ST
		link_consistent $T $A "$(bar0 $A)"
		if grep -q 'p2pmap: drivers: ' $W/step; then
			case "$st_at $ST" in
			*mapped*) bad "drivers= was lost, yet a link is mapped" ;;
			esac
		fi
		p2pmap info | grep -q '^module parameter problems at load: [1-9].*out of memory' ||
			bad "a parameter was lost but p2pmap info does not say so"
		return
	fi
	if [ $1 != 0 ]; then
		[ -e /sys/module/p2pmap ] && bad "insmod failed but the module is there"
		[ -e /sys/kernel/p2pmap ] && bad "insmod failed but /sys/kernel/p2pmap is there"
		xl $A $TBAR
		[ "$(num $X)" = 0 ] || bad "insmod failed but A -> T translates"
		xl $T "$(bar0 $A)"
		[ "$(num $X)" = 0 ] || bad "insmod failed but T -> A translates"
		if [ $HAVE_NODES = 1 ]; then
			nodes $A $TBAR
			[ "$ND" = nodes=0 ] || bad "insmod failed but A holds $ND in T's BAR"
		fi
		return
	fi
	# A side whose entry the failure took leaves its links unmapped; a
	# mapping the failure stopped leaves its link in error, saying so.
	link_consistent $A $T
	[ "$ST" = mapped ] || lost_dev $A || lost_dev $T || oom_error $A $T ||
		bad "loaded, A -> T is '$ST' ($(cat /sys/kernel/p2pmap/links/$A-$T/reason 2>/dev/null))"
	link_consistent $T $A "$(bar0 $A)"
	[ "$ST" = mapped ] || lost_dev $A || lost_dev $T || oom_error $T $A ||
		bad "loaded, T -> A is '$ST' ($(cat /sys/kernel/p2pmap/links/$T-$A/reason 2>/dev/null))"
	for d in $ENDPOINTS; do
		# A device whose entry the failure took is said so and
		# tracked again at its next bind event.
		tracked $d || lost_dev $d ||
			bad "loaded, but $d is not tracked, and nothing says so"
	done
	# A fault source the failure took is left out and said so (a
	# warning: the counts it would give are lost).
	s=$(cat /sys/kernel/p2pmap/fault_sources)
	for src in $REF_SOURCES; do
		case " $s " in *" $src "*) continue ;; esac
		case $src in
		tracepoint) grep -q 'p2pmap: io_page_fault tracepoint unavailable (-12)' $W/step ;;
		*)	grep -q 'p2pmap: fault log probe unavailable (-12)' $W/step ;;
		esac || bad "loaded without fault source '$src', and nothing says so"
	done
	for src in $s; do
		case " $REF_SOURCES " in *" $src "*) ;; *) bad "loaded with fault source '$src', not in '$REF_SOURCES'" ;; esac
	done
}
i_undo() { [ -e /sys/module/p2pmap ] && rmmod p2pmap; true; }
# Every point of it (vm.fi_insmod=all, by hand: about 700 points, ~9 s
# each with upstream's 1-4 s kobject release delay: a KASAN module load,
# and a rmmod that waits for DEBUG_KOBJECT_RELEASE's delayed releases), or
# one per call site.
if want i; then
	# The functions p2pmap tracks (header type 0, single or
	# multi-function): read once, not at each step (two processes per
	# device and step, ~0.2 s each under KASAN and TCG: a third of a step).
	ENDPOINTS=
	for d in /sys/bus/pci/devices/*; do
		case $(od -An -tx1 -j14 -N1 $d/config | tr -d ' ') in
		00|80) ENDPOINTS="$ENDPOINTS ${d##*/}" ;;
		esac
	done
	check "insmod: the functions p2pmap tracks are found ($(echo $ENDPOINTS | wc -w))" \
		test -n "$ENDPOINTS"
	if [ "$(param fi_insmod)" = all ]; then
		walk "insmod links=A>T,T>A" i_setup i_op i_verify i_undo module 150
	else
		walk_sites "insmod links=A>T,T>A" i_setup i_op i_verify i_undo module 15
	fi
fi

# ---- the end: nothing mapped, nothing leaked -----------------------------
[ -e /sys/module/p2pmap ] && rmmod p2pmap
xl $A $TBAR
expect "after rmmod nothing maps A -> T" "$(num $X)" 0
dmesg -c >>$KLOG
if [ -e $DBG/kmemleak ]; then
	# kmemleak reports objects at least 5 s old.
	wait_until "[ \$(cut -d. -f1 /proc/uptime) -ge \$(($(cut -d. -f1 /proc/uptime) + 6)) ]" 8
	# A kmemleak that disabled itself (an allocation failure of its own:
	# 6.12 then purges its list) refuses the scan: a failure, not a pass.
	check "kmemleak scans (it has not disabled itself)" \
		sh -c "echo scan >$DBG/kmemleak && echo scan >$DBG/kmemleak"
	cat $DBG/kmemleak >$W/leaks
	# p2pmap's frames: by name while it was loaded, or (unloaded) as bare
	# addresses in the module area: no other module is ever unloaded here.
	awk '/^unreferenced object/ { if (o != "" && hit) print o; o = $0; hit = 0; next }
	     { o = o "\n" $0 }
	     /\[p2pmap\]|p2pmap_|\[<ffffffff[a-f][0-9a-f]+>\] 0xffffffff[a-f]/ { hit = 1 }
	     END { if (o != "" && hit) print o }' $W/leaks >$W/p2pleaks
	nleak=$(grep -c '^unreferenced object' $W/p2pleaks)
	echo "# kmemleak: $(grep -c '^unreferenced object' $W/leaks) unreferenced objects, $nleak from p2pmap's code"
	head -60 $W/p2pleaks | sed 's/^/# kmemleak: /'
	expect "kmemleak: no object allocated from p2pmap's code is left" "$nleak" 0
else
	not_ok "kmemleak is there to check ($DBG/kmemleak): the debug kernel has it"
fi
dmesg >>$KLOG
grep -E -A12 'WARNING:|BUG:|Oops|general protection' $KLOG | head -40 | sed 's/^/# dmesg: /'
check "no kernel WARNING or BUG in the log" sh -c "! grep -qE 'WARNING:|BUG:|Oops|general protection' $KLOG"
echo "# injection points hit: link add $HIT_link_add, link del $HIT_link_del, bind $HIT_bind, unbind $HIT_unbind, rescan $HIT_rescan__device_add_, remove $HIT_remove, insmod $HIT_insmod_links_A_T_T_A"
finish
