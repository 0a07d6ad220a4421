#!/bin/sh
# floor: 3 (checks in its smallest boot: tests/harness.sh fails a boot below it)
# Randomized, seeded, bounded stress with an invariant checker (issue 4).
# Operations: link add/del, unbind/bind, hand-off to vfio-pci and back,
# remove/rescan, counter reset, module reload (links passed back through
# the "links" parameter).  After every step the checker compares, for every
# ordered pair of devices, what the IOMMU really translates (p2ptest xlatem:
# iommu_iova_to_phys() on the initiator's current domain) with what the
# policy allows, and with p2pmap's own account ("p2pmap status").
# vm.seed=N on the kernel command line replays a run.
. ./lib.sh
trap '' PIPE

# The four edus on pcie.0, or on epyc node 0's four (two host bridges;
# node 1's stay on p2ptest, unlinked).
case $TOPO in
epyc)	DEVS="0000:21:00.0 0000:22:00.0 0000:41:00.0 0000:42:00.0" ;;
*)	DEVS="0000:00:10.0 0000:00:11.0 0000:00:12.0 0000:00:13.0" ;;
esac
OPS=$(sed -n 's/.*vm\.ops=\([0-9]*\).*/\1/p' /proc/cmdline)
OPS=${OPS:-1000}
SEED=$(sed -n 's/.*vm\.seed=\([0-9]*\).*/\1/p' /proc/cmdline)
SEED=${SEED:-1}
SEED0=$SEED
echo "# stress: seed $SEED, $OPS operations (replay with vm.seed=$SEED)"

load_vfio
# On epyc the boot order (the softdep): p2pmap reserves the other host
# bridges' windows before the probe-time allocation (256 MiB) could take
# them.  On pcie.0 the peers' BARs lie in the GPUs' own bridge's windows,
# which dma-iommu keeps out anyway.
case $TOPO in
epyc)	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest
	insmod /modules/p2ptest/p2ptest.ko ;;
*)	insmod /modules/p2ptest/p2ptest.ko
	insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest ;;
esac

# rnd N: R = a pseudo-random number in 0..N-1 (an LCG: same seed, same run)
rnd() {
	SEED=$(((SEED * 1103515245 + 12345) & 0x7fffffff))
	R=$(((SEED >> 8) % $1))
}
set -- $DEVS
D0=$1 D1=$2 D2=$3 D3=$4

# The model: S_i in p2ptest|unbound|vfio|removed, L_i_j in 0|1, LOADED.
LOADED=1
for i in 0 1 2 3; do
	eval "S_$i=p2ptest"
	for j in 0 1 2 3; do eval "L_${i}_$j=0"; done
done

links_param() {
	out=
	for i in 0 1 2 3; do for j in 0 1 2 3; do
		[ "$(eval echo \$L_${i}_$j)" = 1 ] &&
			eval "out=\"\$out\${out:+,}\$D$i>\$D$j\""
	done; done
	echo "$out"
}

op() {
	rnd 100
	pick=$R
	rnd 4; i=$R
	rnd 3; j=$(((i + 1 + R) % 4))
	eval "a=\$D$i b=\$D$j"
	eval "si=\$S_$i"
	if [ $pick -lt 30 ]; then
		OPNAME="link add $i>$j"
		# A link the module took prints its state, and is kept even
		# when that is not mapped (a side unbound or on vfio-pci:
		# exit 1 then); a refused one prints nothing.
		if [ $LOADED = 1 ]; then
			out=$(p2pmap link add $a $b 2>/dev/null)
			case $out in
			"link $a -> $b: "*) eval "L_${i}_$j=1" ;;
			esac
		fi
	elif [ $pick -lt 50 ]; then
		OPNAME="link del $i>$j"
		[ $LOADED = 1 ] && p2pmap link del $a $b >/dev/null 2>&1
		eval "L_${i}_$j=0"
	elif [ $pick -lt 65 ]; then
		OPNAME="unbind/bind $i ($si)"
		case $si in
		p2ptest) drv_unbind $a; eval "S_$i=unbound" ;;
		unbound) drv_bind $a; eval "S_$i=p2ptest" ;;
		esac
	elif [ $pick -lt 78 ]; then
		OPNAME="vfio hand-off $i ($si)"
		case $si in
		p2ptest)
			drv_unbind $a
			echo vfio-pci >/sys/bus/pci/devices/$a/driver_override
			echo $a >/sys/bus/pci/drivers/vfio-pci/bind
			eval "S_$i=vfio" ;;
		vfio)
			echo $a >/sys/bus/pci/drivers/vfio-pci/unbind
			echo >/sys/bus/pci/devices/$a/driver_override
			drv_bind $a
			eval "S_$i=p2ptest" ;;
		esac
	elif [ $pick -lt 88 ]; then
		OPNAME="remove $i ($si) / rescan"
		if [ "$si" = removed ]; then
			echo 1 >/sys/bus/pci/rescan
			for k in 0 1 2 3; do
				[ "$(eval echo \$S_$k)" = removed ] &&
					eval "S_$k=p2ptest"
			done
		else
			echo 1 >/sys/bus/pci/devices/$a/remove
			eval "S_$i=removed"
		fi
	elif [ $pick -lt 94 ]; then
		OPNAME="faults reset"
		[ $LOADED = 1 ] && p2pmap faults reset >/dev/null
	else
		OPNAME="module reload"
		# On epyc a GPU bound while p2pmap is away allocates in the
		# other host bridges' windows (a late load: its cross-bridge
		# links then end in error, as they must; early.sh tests that):
		# there the reload is one step, unload then load, as a
		# package upgrade does it.
		if [ $LOADED = 1 ] && [ "$TOPO" = epyc ]; then
			rmmod p2pmap
			insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest \
				"links=$(links_param)"
		elif [ $LOADED = 1 ]; then
			rmmod p2pmap
			LOADED=0
		else
			insmod /modules/p2pmap/p2pmap.ko drivers=p2ptest \
				"links=$(links_param)"
			LOADED=1
		fi
	fi
}

# check: the invariant, for every ordered pair; count violations.
VIOL=0
check_all() {
	got=$(p2pt xlatem $DEVS)
	mapped=
	[ $LOADED = 1 ] && mapped=" $(p2pmap status 2>/dev/null |
		awk '$2 == "->" && $4 == "mapped" { printf "%s>%s ", $1, $3 }')"
	n=0
	for i in 0 1 2 3; do for j in 0 1 2 3; do
		[ $i = $j ] && continue
		g=${got:$n:1}
		n=$((n + 1))
		[ "$g" = - ] && continue
		eval "si=\$S_$i sj=\$S_$j l=\$L_${i}_$j"
		want=0
		[ $LOADED = 1 ] && [ $l = 1 ] && [ $si = p2ptest ] &&
			[ $sj = p2ptest ] && want=1
		if [ "$g" != $want ]; then
			VIOL=$((VIOL + 1))
			echo "# VIOLATION step $step ($OPNAME): $i->$j translated=$g allowed=$want ($si/$sj link=$l)"
		fi
		eval "pair=\"\$D$i>\$D$j\""
		case "$mapped" in
		*" $pair "*) says=1 ;;
		*) says=0 ;;
		esac
		if [ $says != $want ]; then
			VIOL=$((VIOL + 1))
			echo "# VIOLATION step $step ($OPNAME): $i->$j p2pmap says mapped=$says, allowed=$want"
		fi
	done; done
}

step=0
start=$(date +%s)
while [ $step -lt "$OPS" ]; do
	step=$((step + 1))
	op
	check_all
	[ $VIOL -gt 20 ] && break
done
echo "# stress: $step operations in $(($(date +%s) - start)) s, $VIOL violations (seed $SEED0)"
expect "stress: $OPS operations done" "$step" "$OPS"
expect "stress: no invariant violation (seed $SEED0)" "$VIOL" 0
check "no kernel WARNING or BUG in the log" kernel_log_clean

finish
