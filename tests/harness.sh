# shellcheck shell=bash
# harness.sh, sourced by tests/run.sh (make check, make check-host) and
# tests/check-vm.sh (make check-vm): how a result is counted, so that no
# failure can disappear.
#   suite [-t SECONDS] PREFIX CMD...   a host TAP producer: its lines
#                         re-printed with PREFIX and tallied; it fails when
#                         it exits non-zero with no test failed, prints no
#                         test, or prints fewer (or more) tests than a plan
#                         ("1..N") says, or tests after its last plan, or
#                         runs past its budget (default 600 s: then it is
#                         stopped, with everything it started)
#   suite_queue ..., suites_run   the same, queued and run two at a time
#   result RC DESC        one test decided by the harness itself
#   vm KVER IOMMU TOPO SUITES [ARGS...]   one boot (tests/vm/run-vm.sh,
#                         always through tests/guest/batch.sh): each suite's
#                         tally is compared with the guest's own, and with
#                         the floor the suite declares ("# floor: N")
#   totals                the closing line: "N passed, N failed, N skipped"
# Every test producer's output goes to a file first and is read from there:
# nothing is lost in a pipe when the producer dies.
# The caller sets top (the tree) and logs (build/logs).
pass=0 fail=0 skip=0

# say_ok DESC, say_not_ok DESC, say_skip DESC: one counted line.
say_ok() { pass=$((pass + 1)); echo "ok - $1"; }
say_not_ok() { fail=$((fail + 1)); echo "not ok - $1"; }
say_skip() { skip=$((skip + 1)); echo "ok - $1"; }

result() {
	if [ "$1" = 0 ]; then say_ok "$2"; else say_not_ok "$2"; fi
}

# tally PREFIX < TAP: re-print and count the TAP lines; sets t_ok, t_not,
# t_skip and t_problem (why the stream itself is broken, or "").  A plan
# before any test announces the count; after tests it closes them.
tally() {
	local line n=0 want=
	t_ok=0 t_not=0 t_skip=0 t_problem=
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"ok "*"# SKIP"*)
			n=$((n + 1)) t_skip=$((t_skip + 1))
			say_skip "$1 ${line#ok [0-9]* - }" ;;
		"ok "*)
			n=$((n + 1)) t_ok=$((t_ok + 1))
			say_ok "$1 ${line#ok [0-9]* - }" ;;
		"not ok "*)
			n=$((n + 1)) t_not=$((t_not + 1))
			say_not_ok "$1 ${line#not ok [0-9]* - }" ;;
		1..[0-9]*)
			if [ "$n" = 0 ] && [ -z "$want" ]; then
				want=${line#1..}
				continue
			fi
			[ -n "$want" ] && [ "$want" != "${line#1..}" ] &&
				t_problem="its plans disagree ($want, ${line#1..})"
			want=${line#1..}
			[ "$n" != "$want" ] && [ -z "$t_problem" ] &&
				t_problem="it planned $want tests and ran $n"
			n=0 want= ;;
		"#"*) echo "$line" ;;
		esac
	done
	if [ -n "$want" ] && [ "$n" != "$want" ] && [ -z "$t_problem" ]; then
		t_problem="it planned $want tests and ran $n"
	elif [ -z "$want" ] && [ "$n" != 0 ] && [ -z "$t_problem" ]; then
		t_problem="no plan (1..N) closes its last $n tests: it stopped early"
	fi
	[ $((t_ok + t_not + t_skip)) = 0 ] && [ -z "$t_problem" ] &&
		t_problem="it printed no test"
	return 0
}

suite() {
	suite_queue "$@"
	suites_run
}

# suite_verdict PREFIX FILE RC BUDGET: a finished suite's output tallied,
# and the suite itself failed where its stream or its status says so.
suite_verdict() {
	tally "$1" <"$2"
	if [ "$3" = 124 ] || [ "$3" = 137 ]; then
		t_problem="it ran past its budget of $4 s and was stopped"
	fi
	[ "$3" != 0 ] && [ "$t_not" = 0 ] && [ -z "$t_problem" ] &&
		t_problem="it exited with status $3 and no test failed"
	[ -z "$t_problem" ] ||
		say_not_ok "$1 the suite itself: $t_problem"
}

# suite_queue [-t SECONDS] PREFIX CMD...: a host suite for suites_run,
# which runs the queue $P2PMAP_HOST_JOBS at a time (default 2: most host
# suites keep one core busy) and counts each, in the order queued.  Each in
# its own process group (timeout's), all of it stopped past the budget: a
# hung suite fails alone, and the run goes on.  Suites queued together
# must not write the same files.
host_jobs=0
suite_queue() {
	local budget=600
	if [ "$1" = -t ]; then
		budget=$2
		shift 2
	fi
	host_budget[host_jobs]=$budget
	host_prefix[host_jobs]=$1
	shift
	host_cmd[host_jobs]=$(printf '%q ' "$@")
	host_jobs=$((host_jobs + 1))
}

# cpu_secs FILE: the whole seconds of user and system time of the children
# line of bash's "times" output in FILE.
cpu_secs() {
	tail -1 "$1" | awk '{ split($1, u, "m"); split($2, s, "m")
		printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}

suites_run() {
	local dir i max=${P2PMAP_HOST_JOBS:-2} pids=()
	dir=$(mktemp -d)
	for ((i = 0; i < host_jobs; i++)); do
		# Running ones counted from their ".rc" files (as vm_run_all
		# counts its boots: "wait -n" returns for any child).
		while [ $((i - $(find "$dir" -name '*.rc' | wc -l))) -ge "$max" ]; do
			sleep 0.2
		done
		(
			start=$SECONDS
			eval "timeout -k 10 ${host_budget[i]} ${host_cmd[i]}" \
				>"$dir/$i.out" 2>&1
			rc=$?
			# Wall and CPU (user + system of its processes, from
			# bash's "times": its children's line; in this shell, not
			# in a pipe's, whose children are none).
			times >"$dir/$i.cpu"
			echo "$((SECONDS - start)) s (wall), $(cpu_secs "$dir/$i.cpu") s of CPU" >"$dir/$i.time"
			echo $rc >"$dir/$i.rc.tmp"
			mv "$dir/$i.rc.tmp" "$dir/$i.rc"
		) &
		pids+=($!)
	done
	# Its own children only: the caller may have others (run.sh's
	# debug kernel build), which a bare "wait" would wait for too.
	wait "${pids[@]}"
	# Each suite's wall time, for CI's budget (beside another suite).
	for ((i = 0; i < host_jobs; i++)); do
		suite_verdict "${host_prefix[i]}" "$dir/$i.out" \
			"$(cat "$dir/$i.rc" 2>/dev/null || echo lost)" "${host_budget[i]}"
		echo "# time: ${host_prefix[i]} took $(cat "$dir/$i.time" 2>/dev/null || echo "? s") of its budget of ${host_budget[i]} s"
	done
	rm -rf "$dir"
	host_jobs=0
}

# suite_file PREFIX FILE: suite over a file a producer wrote (its status
# is not known here: the caller checks it).
suite_file() {
	tally "$1" <"$2"
	[ -z "$t_problem" ] || say_not_ok "$1 the suite itself: $t_problem"
}

# floor SUITE: the least number of checks a suite declares it makes in any
# boot ("# floor: N" in tests/guest/SUITE.sh), 1 when it declares none.
floor() {
	local f
	f=$(sed -n 's/^# floor: \([0-9]*\).*/\1/p' "$top/tests/guest/$1.sh" 2>/dev/null)
	echo "${f:-1}"
}

# vm_suites PREFIX LOG SUITES: for each suite of the boot, its lines
# between "P2PMAP-SUITE: begin S" and "end S" are tallied and compared
# with the guest's tally ("# KVER IOMMU: N passed, M failed", lib.sh
# finish) and with the suite's floor; then batch.sh's own checks.  A suite
# that never ended fails (with why, where the host stopped the guest), and
# the suites after it are said not to have run because of it.
vm_suites() {
	local prefix=$1 log=$2 s got want part stuck=
	part=$(mktemp)
	for s in ${3//,/ }; do
		if [ -n "$stuck" ]; then
			say_not_ok "$prefix $s: not run: $stuck before it did not end"
			continue
		fi
		tr -d '\r' <"$log" | sed -n "/^P2PMAP-SUITE: begin $s\$/,/^P2PMAP-SUITE: end $s\$/p" >"$part"
		if ! grep -q "^P2PMAP-SUITE: end $s\$" "$part"; then
			tally "$prefix $s:" <"$part"
			why=$(tr -d '\r' <"$log" | sed -n "s/^P2PMAP-VM-HOST: suite $s //p" | head -1)
			say_not_ok "$prefix $s: the suite did not run to its end${why:+ ($why)}"
			stuck=$s
			continue
		fi
		tally "$prefix" <"$part"
		# "# floor: 0": a suite that counts nothing of its own (make
		# demo's script: its output is compared by the boot's VM_POST).
		[ "$(floor "$s")" = 0 ] && continue
		got=$((t_ok + t_not + t_skip))
		want=$(sed -n 's/^# [^ ]* [a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$part" | tail -1)
		[ -n "$want" ] && [ "$((${want% *} + ${want#* }))" = "$got" ] &&
			[ "${want#* }" = "$t_not" ]
		result $? "$prefix $s: the host counted what the guest did ($got checks, $t_not failed; guest: ${want:-no tally})"
		[ "$got" -ge "$(floor "$s")" ]
		result $? "$prefix $s: at least the suite's floor of $(floor "$s") checks ran ($got)"
	done
	# batch.sh's own checks (kmemleak, a suite's exit status, the state
	# a suite left), after the last suite.
	tr -d '\r' <"$log" | sed -n '/^P2PMAP-BATCH: checks$/,$p' >"$part"
	tally "$prefix" <"$part"
	rm -f "$part"
}

# vm KVER IOMMU TOPOLOGY SUITES [KERNEL-ARGS...]: queue one boot; the
# boots run in vm_run_all.  (P2PMAP_VM_INITRD: another initramfs than
# build/KVER/initrd.cpio; the P2PMAP_VM_* variables set when vm() is called
# are the boot's: P2PMAP_VM_BUDGETS the suites' budgets.)  SUITES ("a,b")
# run in one boot, in tests/guest/batch.sh.  VM_POST=FUNC: FUNC KVER IOMMU
# LOG runs after the boot's own checks (checks of its log).
vm_jobs=0
vm_state=
vm() {
	local i=$vm_jobs v b cost=0
	vm_jobs=$((vm_jobs + 1))
	vm_args[i]=$(printf '%q ' "$@")
	vm_env[i]=
	for v in P2PMAP_VM_KERNEL P2PMAP_VM_INITRD P2PMAP_VM_QEMU_ROOT \
		P2PMAP_VM_TIMEOUT P2PMAP_VM_BOOT_TIMEOUT P2PMAP_BIGBARS \
		P2PMAP_VM_BUDGETS; do
		[ -n "${!v:-}" ] && vm_env[i]+="$v=$(printf '%q' "${!v}") "
	done
	vm_post[i]=${VM_POST:-}
	b=${P2PMAP_VM_BUDGETS:-}
	for b in ${b//,/ }; do cost=$((cost + b)); done
	vm_cost[i]=$cost
}

# vm_log KVER IOMMU TOPOLOGY SUITES: the boot's console log.
vm_log() { echo "$logs/$1-$2-$3-$4.log"; }

# vm_boot I: boot job I (in the background, $I set too); its log, and how
# long it took in $vm_state/I.time.
vm_boot() {
	local start=$SECONDS
	eval "set -- ${vm_args[$1]}"
	local log
	log=$(vm_log "$@")
	local initrd=${P2PMAP_VM_INITRD:-$top/build/$1/initrd.cpio}
	P2PMAP_VM_BATCH=1 "$top/tests/vm/run-vm.sh" "$1" "$2" "$3" "$4" \
		"$initrd" "$log" "${@:5}"
	# A guest kernel that died before the suite started (TCG has been seen
	# to trip the 7.x kernel's boot-time code patching) gets one more try;
	# the first log is kept and the retry is said.
	if ! grep -q 'P2PMAP-VM: start' "$log"; then
		mv "$log" "$log.noboot"
		echo "# [$1 $2 $4] the guest did not boot (see $log.noboot): retried once" \
			>"$vm_state/$I.note"
		P2PMAP_VM_BATCH=1 "$top/tests/vm/run-vm.sh" "$1" "$2" "$3" "$4" \
			"$initrd" "$log" "${@:5}"
	fi
	# Wall and CPU time (QEMU's threads, the watch): a boot whose CPU is
	# far below its wall time waited (sleeps in the guest, or the other
	# lane's guest holding the cores).
	times >"$vm_state/$I.cpu"
	echo "$((SECONDS - start)) s, $(cpu_secs "$vm_state/$I.cpu") s of CPU" >"$vm_state/$I.time"
}

# vm_report: the checks of job $I's log, in the harness's counts.
vm_report() {
	eval "set -- ${vm_args[$I]}"
	local log rep
	log=$(vm_log "$@")
	cat "$vm_state/$I.note" 2>/dev/null
	vm_suites "[$1 $2]" "$log" "$4"
	grep -q '^P2PMAP-VM: done' "$log"
	result $? "[$1 $2 $4] VM ran to the end ($(cat "$vm_state/$I.time"))"
	# The first kernel report (KASAN, WARNING, lockdep, ...) is named.
	rep=$("$top/tests/vm/reports.sh" "$log")
	result $? "[$1 $2 $4] no kernel report on the console${rep:+ (first: ${rep:0:200})}"
	[ -z "${vm_post[$I]}" ] || "${vm_post[$I]}" "$1" "$2" "$log"
}

# vm_run_all: every queued boot, $P2PMAP_VM_JOBS at a time (default 2): a
# TCG guest keeps about one host core busy (measured on the 2-core
# machines: QEMU at 90-110% of one core), so two boots at once take about
# the time of one.  Started largest budget first (the long boots set the
# pace of the two lanes, the short ones fill the end); reported in the
# order they were queued, each as soon as it and those before it are
# done.  P2PMAP_VM_JOBS=1 boots one at a time.
vm_run_all() {
	local next=0 rep=0 max=${P2PMAP_VM_JOBS:-2} order i done_n pids=()
	vm_state=$(mktemp -d)
	order=($(for ((i = 0; i < vm_jobs; i++)); do
		echo "${vm_cost[i]} $i"
	done | sort -s -k1,1nr | cut -d' ' -f2))
	# Lanes are counted from the boots' own ".done" files, not with
	# "wait -n", which also returns for any other child of this shell (a
	# process substitution that ended) and would open a lane too many.
	while [ $rep -lt $vm_jobs ]; do
		done_n=$(find "$vm_state" -name '*.done' | wc -l)
		while [ $next -lt $vm_jobs ] && [ $((next - done_n)) -lt "$max" ]; do
			(
				I=${order[next]}
				eval "${vm_env[I]} vm_boot $I"
				touch "$vm_state/$I.done"
			) &
			pids+=($!)
			next=$((next + 1))
		done
		if [ -e "$vm_state/$rep.done" ]; then
			I=$rep vm_report
			rep=$((rep + 1))
			continue
		fi
		sleep 1
	done
	wait "${pids[@]}"	# its own: as suites_run
	rm -rf "$vm_state"
	vm_jobs=0
}

# amd_vm KVER TOPOLOGY SUITES [ARGS...]: an AMD-Vi VM, on QEMU 11
# ($qemu11, the trixie chroot) where the kernel allows it: 6.1 soft-locks
# on QEMU 11's AMD event log ("IOMMU GA Log overflow") and stays on 7.2.
amd_vm() {
	local k=$1
	shift
	case $k in
	6.1.*)	vm "$k" amd "$@" ;;
	*)	if [ -n "${qemu11:-}" ]; then
			P2PMAP_VM_QEMU_ROOT=$qemu11 vm "$k" amd "$@"
		else
			vm "$k" amd "$@"
		fi ;;
	esac
}

# vm_timeout BOOT-SECONDS BUDGETS: a boot's timeout: its time to start,
# then each suite's budget and the minute run-vm.sh grants past it.
vm_timeout() {
	local t=$1 b
	for b in ${2//,/ }; do t=$((t + b + 60)); done
	echo "$t"
}

# boot_rows: tests/vm/boots.tsv's rows (KERNELS IOMMUS TOPOLOGY SUITES
# BUDGETS ARGS...), comments left out.
boot_rows() { grep -v -e '^#' -e '^[[:space:]]*$' "$top/tests/vm/boots.tsv"; }

# kernel_class KVER: the table's name for a kernel (6.1, 6.12, 7, debug).
kernel_class() {
	case $1 in
	*debug*) echo debug ;;
	6.1.*)	echo 6.1 ;;
	7.*)	echo 7 ;;
	*)	echo 6.12 ;;
	esac
}

# suite_budgets CLASS SUITES: the budget of each suite ("a,b"), comma
# separated: the first row of the table that runs it on CLASS's kernels,
# else 600 s (make check-vm with a suite the table does not boot there).
suite_budgets() {
	local s out= b
	for s in ${2//,/ }; do
		b=$(boot_rows | awk -F'\t' -v c="$1" -v s="$s" '{
			n = split($1, k, ","); m = split($4, t, ","); split($5, bb, ",")
			for (i = 1; i <= n; i++) if (k[i] == c)
				for (j = 1; j <= m; j++) if (t[j] == s) { print bb[j]; exit }
		}' | head -1)
		out+=${out:+,}${b:-600}
	done
	echo "$out"
}

totals() {
	echo "$pass passed, $fail failed, $skip skipped"
}
