#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "p2pmap proxmox-hook" and proxmox/p2pmap-hookscript, called as Proxmox
# VE calls a guest's hookscript: "SCRIPT VMID PHASE" (pve-guest-common
# src/PVE/GuestHelpers.pm exec_hookscript()), against a node's files under
# --root written in Proxmox's formats (/etc/pve/local -> nodes/NODE, a VM's
# qemu-server/ID.conf with hostpciN as a slot, an address and a PCI
# mapping of /etc/pve/mapping/pci.cfg, a snapshot and [PENDING]; a
# container's lxc/ID.conf with devN and lxc.mount.entry) and p2pmap's
# links as /sys/kernel/p2pmap/links shows them.  A container's check asks
# this machine's module (none here: check exits 4).  Prints TAP.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# P2PMAP_HOOK_BIN: another build (to show a test fails on old code).
p2pmap=${P2PMAP_HOOK_BIN:-$top/user/p2pmap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The build machine may be a container (user/host/container.h): not here.
mkdir -p "$tmp/hostroot"
export P2PMAP_CONTAINER_ROOT=$tmp/hostroot

. "$top/tests/tap.sh"

# The script as make install writes it, its CLI this build's.
script=$tmp/snippets/p2pmap-hookscript
mkdir -p "$tmp/snippets"
make -s -C "$top/user" p2pmap >"$tmp/build.log" 2>&1 &&
	sed "s|@SBINDIR@/p2pmap|$p2pmap|" "$top/proxmox/p2pmap-hookscript" >"$script" &&
	chmod 0755 "$script" && grep -q "^exec $p2pmap proxmox-hook " "$script"
tap $? "p2pmap builds; proxmox/p2pmap-hookscript is there, execs proxmox-hook"

put() {	# put FILE TEXT
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}
link() {	# link ROOT FROM-TO STATE
	put "$1/sys/kernel/p2pmap/links/$2/state" "$3"
	put "$1/sys/kernel/p2pmap/links/$2/reason" ""
	put "$1/sys/kernel/p2pmap/links/$2/faults" 0
}

# node DIR: node pve1 of the host in Documentation/proxmox.md: CT 101
# "sglang" has node 0's GPUs (/dev/nvidia0..3, devN and lxc.mount.entry),
# VM 200 "snp-vm" node 1's (81:00 as a slot, a mapping with a ";" list,
# e1:00.0 by address); a snapshot and the pending section name 41:00.0,
# which the VM does not start with.  CT 102 and VM 300 have no GPU; VM 400
# is on node pve2.  p2pmap is loaded, the container's four GPUs linked
# both ways.
node() {
	local d=$1 a b
	rm -rf "$d"
	mkdir -p "$d/etc/pve/nodes/pve1/qemu-server" "$d/etc/pve/nodes/pve1/lxc" \
		"$d/etc/pve/nodes/pve2/qemu-server" "$d/etc/pve/mapping" \
		"$d/sys/kernel/p2pmap/links"
	ln -s nodes/pve1 "$d/etc/pve/local"
	ln -s nodes/pve1/qemu-server "$d/etc/pve/qemu-server"
	ln -s nodes/pve1/lxc "$d/etc/pve/lxc"
	put "$d/sys/kernel/p2pmap/version" 0.1.0
	for a in nvidia0 nvidia1 nvidia2 nvidia3 nvidiactl nvidia-uvm nvidia-uvm-tools; do
		put "$d/dev/$a" ""
	done
	put "$d/etc/pve/nodes/pve1/lxc/101.conf" "#SGLang, TP=4
arch: amd64
cores: 64
dev0: /dev/nvidia0,gid=44,mode=0666
dev1: /dev/nvidia1
hostname: sglang
memory: 262144
rootfs: local-lvm:vm-101-disk-0,size=200G
unprivileged: 1
hookscript: local:snippets/p2pmap-hookscript
lxc.cgroup2.devices.allow: c 195:* rwm
lxc.cgroup2.devices.allow: c 511:* rwm
lxc.mount.entry: /dev/nvidia2 dev/nvidia2 none bind,optional,create=file
lxc.mount.entry = /dev/nvidia3 dev/nvidia3 none bind,optional,create=file
lxc.mount.entry: /dev/nvidiactl dev/nvidiactl none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm dev/nvidia-uvm none bind,optional,create=file
lxc.mount.entry: /dev/nvidia-uvm-tools dev/nvidia-uvm-tools none bind,optional,create=file"
	put "$d/etc/pve/nodes/pve1/lxc/102.conf" "arch: amd64
hostname: web
hookscript: local:snippets/p2pmap-hookscript
rootfs: local-lvm:vm-102-disk-0,size=8G"
	put "$d/etc/pve/nodes/pve1/qemu-server/200.conf" "#confidential worker%3A node 1
amd-sev: type=snp
bios: ovmf
hookscript: local:snippets/p2pmap-hookscript
hostpci0: 81:00,pcie=1
hostpci1: mapping=node1-gpus,pcie=1
hostpci2: 0000:e1:00.0,pcie=1,x-vga=0
machine: q35
name: snp-vm

[PENDING]
hostpci3: 0000:41:00.0

[before-upgrade]
hostpci3: 0000:41:00.0"
	put "$d/etc/pve/nodes/pve1/qemu-server/300.conf" "name: plain
hookscript: local:snippets/p2pmap-hookscript
scsi0: local-lvm:vm-300-disk-0,size=32G"
	put "$d/etc/pve/nodes/pve2/qemu-server/400.conf" "name: other-node
hostpci0: 0000:01:00.0"
	put "$d/etc/pve/mapping/pci.cfg" "node1-gpus
	description two GPUs of node 1
	map node=pve1,path=0000:a1:00.0;0000:c1:00.0,id=10de:2bb5,iommugroup=21
	map node=pve2,path=0000:61:00.0,id=10de:2bb5"
	for a in 0000:01:00.0 0000:21:00.0 0000:41:00.0 0000:61:00.0; do
		for b in 0000:01:00.0 0000:21:00.0 0000:41:00.0 0000:61:00.0; do
			[ "$a" = "$b" ] || link "$d" "$a-$b" mapped
		done
	done
}

# hook NAME VMID PHASE [ARGS...]: the script, as Proxmox runs it, on the
# node under $root; out, err, rc and seconds in $tmp/NAME.*.
hook() {
	local name=$1 t0
	shift
	t0=$(date +%s%N)
	"$script" "$@" --root "$root" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	echo $((($(date +%s%N) - t0) / 1000000)) >"$tmp/$name.ms"
}
rc() { cat "$tmp/$1.rc"; }
has() { grep -qxF -- "$2" "$tmp/$1.$3"; }	# has NAME LINE out|err
quiet() { [ ! -s "$tmp/$1.out" ] && [ ! -s "$tmp/$1.err" ]; }
show() { sed 's/^/# /' "$tmp/$1.out" "$tmp/$1.err"; }

root=$tmp/pve
node "$root"

# The VM whose GPUs no link touches: it starts, the task log says why.
hook vm-ok 200 pre-start
[ "$(rc vm-ok)" = 0 ] &&
	has vm-ok 'p2pmap: VM 200 "snp-vm": no p2pmap link touches its 4 PCI device(s)' out
tap $? "VM 200 pre-start, links only among the container's GPUs: exit 0, said"
[ "$(rc vm-ok)" = 0 ] || show vm-ok

# A link both ways into its hostpci0, a slot ("81:00": every function).
link "$root" 0000:01:00.0-0000:81:00.0 mapped
link "$root" 0000:81:00.0-0000:01:00.0 pending
hook vm-slot 200 pre-start
[ "$(rc vm-slot)" = 1 ] &&
	has vm-slot 'p2pmap: VM 200 "snp-vm" not started: 2 p2pmap link(s) touch its devices, which qemu-server would take from the host'"'"'s driver for it (a VM'"'"'s GPU is never a peer of the host'"'"'s GPUs):' err &&
	has vm-slot '  link 0000:01:00.0 -> 0000:81:00.0 (mapped): 0000:81:00.0 is its hostpci0' err &&
	has vm-slot '  link 0000:81:00.0 -> 0000:01:00.0 (pending): 0000:81:00.0 is its hostpci0' err &&
	has vm-slot 'fix: p2pmap link del 0000:01:00.0 0000:81:00.0 --both; p2pmap config save' err &&
	has vm-slot '     or, if a container has that GPU and the VM is not to take it: qm set 200 --delete hostpci0' err
tap $? "VM 200 pre-start, a link each way at its hostpci0: refused (exit 1), the links and their fix named"
[ "$(rc vm-slot)" = 1 ] || show vm-slot

# The slot's second function, and a device of its PCI mapping.
node "$root"
link "$root" 0000:01:00.0-0000:81:00.1 mapped
link "$root" 0000:21:00.0-0000:c1:00.0 mapped
hook vm-map 200 pre-start
[ "$(rc vm-map)" = 1 ] &&
	has vm-map '  link 0000:01:00.0 -> 0000:81:00.1 (mapped): 0000:81:00.1 is its hostpci0' err &&
	has vm-map '  link 0000:21:00.0 -> 0000:c1:00.0 (mapped): 0000:c1:00.0 is its hostpci1 mapping node1-gpus' err &&
	has vm-map 'fix: p2pmap link del 0000:01:00.0 0000:81:00.1; p2pmap link del 0000:21:00.0 0000:c1:00.0; p2pmap config save' err &&
	has vm-map '     or, if a container has that GPU and the VM is not to take it: qm set 200 --delete hostpci0,hostpci1' err
tap $? "VM 200 pre-start: a link at function 81:00.1 of its slot and one at a device of its PCI mapping: refused"
[ "$(rc vm-map)" = 1 ] || show vm-map

# By address, the link's initiator the VM's.
node "$root"
link "$root" 0000:e1:00.0-0000:61:00.0 blocked
hook vm-addr 200 pre-start
[ "$(rc vm-addr)" = 1 ] &&
	has vm-addr '  link 0000:e1:00.0 -> 0000:61:00.0 (blocked): 0000:e1:00.0 is its hostpci2' err
tap $? "VM 200 pre-start: a link whose initiator is its hostpci2 (an address), blocked: refused all the same"
[ "$(rc vm-addr)" = 1 ] || show vm-addr

# The pending section and the snapshot name 41:00.0, which CT 101's links
# touch: qemu-server applied pending changes before pre-start, and a VM
# resumed keeps its devices; neither is the VM's now.
node "$root"
hook vm-pend 200 pre-start
[ "$(rc vm-pend)" = 0 ] && ! grep -q "0000:41:00.0" "$tmp/vm-pend.err" &&
	has vm-pend 'p2pmap: VM 200 "snp-vm": no p2pmap link touches its 4 PCI device(s)' out
tap $? "VM 200 pre-start: its [PENDING] and snapshot hostpci3 (a linked GPU) are not what it starts with: exit 0"

# Without the module, no link: the VM starts.
node "$root"
link "$root" 0000:01:00.0-0000:81:00.0 mapped
mv "$root/sys/kernel/p2pmap" "$root/sys/kernel/p2pmap.unloaded"
hook vm-nomod 200 pre-start
[ "$(rc vm-nomod)" = 0 ] &&
	has vm-nomod 'p2pmap: VM 200 "snp-vm": no p2pmap link touches its 4 PCI device(s)' out
tap $? "VM 200 pre-start, p2pmap not loaded (its links directory gone): exit 0"
# A module whose links cannot be read: not known, so not started.
mv "$root/sys/kernel/p2pmap.unloaded" "$root/sys/kernel/p2pmap"
rm -rf "$root/sys/kernel/p2pmap/links"
hook vm-unread 200 pre-start
[ "$(rc vm-unread)" = 1 ] &&
	grep -q '^p2pmap: VM 200 "snp-vm" not started: p2pmap'"'"'s links cannot be read (.*/sys/kernel/p2pmap/links: No such file or directory), so whether one touches its devices is not known$' "$tmp/vm-unread.err"
tap $? "VM 200 pre-start, p2pmap loaded but its links unreadable: refused, said why"

# The other phases: nothing, whatever the links (the hook runs at each).
node "$root"
link "$root" 0000:01:00.0-0000:81:00.0 mapped
bad=
for ph in post-start pre-stop post-stop; do
	for id in 200 101; do
		hook ph "$id" "$ph"
		[ "$(rc ph)" = 0 ] && quiet ph || bad="$bad $id:$ph"
	done
done
# (pre-start, the same guests and links: it speaks)
hook ph 200 pre-start
[ "$(rc ph)" = 1 ] || bad="$bad 200:pre-start-refused"
hook ph 101 pre-start --wait 0
grep -q "p2pmap check --wait 0" "$tmp/ph.out" || bad="$bad 101:pre-start-checked"
[ -z "$bad" ]
tap $? "post-start, pre-stop, post-stop of VM 200 (linked) and CT 101: exit 0, nothing printed (pre-start: refused, checked)${bad:+ (not:$bad)}"
hook ph 200 pre-migrate
[ "$(rc ph)" = 0 ] && [ ! -s "$tmp/ph.out" ] &&
	has ph 'p2pmap: proxmox-hook: phase "pre-migrate" is not one p2pmap knows: nothing done' err
tap $? "a phase Proxmox may add later: exit 0, named on stderr"

# Guests without GPUs: exit 0 at once, nothing said (every start runs it).
hook vm-none 300 pre-start
hook ct-none 102 pre-start
# (a guest with GPUs is spoken of: VM 200)
hook vm-some 200 pre-start
[ "$(rc vm-none)$(rc ct-none)" = 00 ] && quiet vm-none && quiet ct-none &&
	[ "$(cat "$tmp/ct-none.ms")" -lt 1000 ] && ! quiet vm-some
tap $? "VM 300 and CT 102 without GPUs, pre-start: exit 0 at once, nothing printed ($(cat "$tmp/ct-none.ms") ms)"

# The container: check --wait, then it starts whatever check said.  Here
# no module is loaded: check waits the whole --wait, then exits 4.
rm "$root/dev/nvidia-uvm-tools"
hook ct 101 pre-start --wait 1
[ "$(rc ct)" = 0 ] &&
	has ct 'p2pmap: CT 101 "sglang" has /dev/nvidia0 and more: p2pmap check --wait 1' out &&
	has ct 'p2pmap: warning: CT 101 "sglang": /dev/nvidia-uvm-tools (lxc.mount.entry) is not on the host: the container starts without it, and CUDA there needs it; create it on the host before the container starts' out &&
	[ "$(grep -c 'is not on the host' "$tmp/ct.out")" = 1 ]
tap $? "CT 101 pre-start: check --wait run, a node it is given and the host lacks named, exit 0"
[ "$(rc ct)" = 0 ] || show ct
if [ ! -d /sys/module/p2pmap ]; then
	has ct 'p2pmap: CT 101 starts anyway: check exited 4 (p2pmap not loaded); the server in it decides (p2pmap check, p2pmap env)' out &&
		[ "$(cat "$tmp/ct.ms")" -ge 1000 ]
	tap $? "CT 101 pre-start, p2pmap not loaded on this machine: check waited --wait 1 ($(cat "$tmp/ct.ms") ms), exit 4 said, the container starts"
else
	tap_skip "CT 101 pre-start without the module" "p2pmap is loaded on this machine"
fi

# Arguments: Proxmox's two and no other form.
bad=
"$p2pmap" proxmox-hook 200 2>"$tmp/a.err"
[ $? = 2 ] && grep -q '^p2pmap: proxmox-hook takes VMID and PHASE, as Proxmox passes them; usage: p2pmap proxmox-hook VMID PHASE' "$tmp/a.err" || bad="$bad one-argument"
for id in 99 abc 1000000000 0200; do
	"$p2pmap" proxmox-hook "$id" pre-start 2>"$tmp/a.err"
	[ $? = 2 ] && grep -qxF "p2pmap: proxmox-hook: \"$id\" is not a VMID (100 to 999999999)" "$tmp/a.err" || bad="$bad $id"
done
"$p2pmap" proxmox-hook 101 pre-start --wait soon 2>"$tmp/a.err"
[ $? = 2 ] && grep -q 'proxmox-hook: --wait takes seconds' "$tmp/a.err" || bad="$bad --wait"
[ -z "$bad" ]
tap $? "not VMID PHASE, a VMID out of pve-vmid's range, a bad --wait: exit 2, said${bad:+ (not:$bad)}"

# A guest of another node, a node whose pmxcfs is not mounted, no /etc/pve.
hook other 400 pre-start
[ "$(rc other)" = 2 ] &&
	has other 'p2pmap: proxmox-hook: node pve1 has no guest 400 (no qemu-server/400.conf, no lxc/400.conf)' err
tap $? "a VMID of another node's guest: exit 2, said"
rm "$root/etc/pve/local"
hook unmounted 200 pre-start
[ "$(rc unmounted)" = 1 ] && grep -q 'is not served by pmxcfs (no /etc/pve/local): guest 200 not read$' "$tmp/unmounted.err"
tap $? "/etc/pve without pmxcfs: exit 1, said"

# Exactly as Proxmox runs it, no --root: this machine is no Proxmox node.
if [ ! -e /etc/pve ]; then
	"$script" 200 pre-start >"$tmp/real.out" 2>"$tmp/real.err"
	r1=$?
	"$script" 200 post-stop >>"$tmp/real.out" 2>>"$tmp/real.err"
	r2=$?
	[ "$r1$r2" = 20 ] && grep -qxF 'p2pmap: proxmox-hook: no /etc/pve: not a Proxmox VE node' "$tmp/real.err"
	tap $? "SCRIPT VMID PHASE on this machine (no /etc/pve): pre-start exit 2, said; post-stop exit 0"
else
	tap_skip "SCRIPT VMID PHASE on this machine" "it has /etc/pve"
fi

# make install: the script where the documentation says, executable (as
# pve-guest-common's check_hookscript() wants: -f and -x, through a link
# in a snippets directory), naming the CLI installed.
make -s -C "$top" install DESTDIR="$tmp/dest" PREFIX=/usr >"$tmp/install.log" 2>&1
inst=$tmp/dest/usr/share/p2pmap/proxmox/p2pmap-hookscript
mkdir -p "$tmp/dest/var/lib/vz/snippets"
ln -s "$inst" "$tmp/dest/var/lib/vz/snippets/p2pmap-hookscript"
s=$tmp/dest/var/lib/vz/snippets/p2pmap-hookscript
[ -f "$s" ] && [ -x "$s" ] && head -1 "$inst" | grep -qx '#!/bin/sh' &&
	grep -qx 'exec /usr/sbin/p2pmap proxmox-hook "$@"' "$inst" &&
	grep -qx 'usr/share/p2pmap' "$top/debian/p2pmap.install"
tap $? "make install: /usr/share/p2pmap/proxmox/p2pmap-hookscript (the p2pmap package's), executable through a link in snippets/, execs /usr/sbin/p2pmap"

# Documentation/proxmox.md's hookscript lines are what the hook prints.
doc=${P2PMAP_PVE_DOC:-$top/Documentation/proxmox.md}
node "$root"
link "$root" 0000:01:00.0-0000:81:00.0 mapped
link "$root" 0000:81:00.0-0000:01:00.0 mapped
hook doc 200 pre-start
# (its code block is a list item's, indented 12)
sed -n 's/^            \(\(p2pmap: \|  link \|fix: \|     or, \).*\)/\1/p' "$doc" >"$tmp/doc.txt"
missing=$(grep -vxFf "$tmp/doc.err" "$tmp/doc.txt")
[ -s "$tmp/doc.txt" ] && [ -z "$missing" ]
tap $? "Documentation/proxmox.md shows the refusal the hook really prints ($(wc -l <"$tmp/doc.txt") lines)"
[ -z "$missing" ] || echo "$missing" | sed 's/^/# not printed: /'

tap_done
