# SPDX-License-Identifier: GPL-2.0
# bash completion for p2pmap(8): subcommands, their options, PCI addresses
# (from /sys/bus/pci/devices) for link add and faults reset, the configured
# links (from /sys/kernel/p2pmap/links) for link del, this Proxmox VE
# node's guests (from /etc/pve/local) for proxmox-hook.
# Install as /usr/share/bash-completion/completions/p2pmap.
# Needs nothing from the bash-completion package.
#
# A PCI address has colons, and ':' is in COMP_WORDBREAKS: bash hands a
# completion function "0000", ":", "01", ... as separate words.  The words
# are therefore taken from COMP_LINE (split at white space only), and what
# is offered is cut back to the part after the current word's last ':',
# which is all bash replaces.

# PCI addresses as p2pmap takes them; the directory may be overridden (tests).
_p2pmap_pci_addrs()
{
	local d dir=${P2PMAP_COMPLETION_PCI_DIR:-/sys/bus/pci/devices}

	for d in "$dir"/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

# The configured links, "INITIATOR TARGET" per line (tests: the directory).
_p2pmap_links()
{
	local d l dir=${P2PMAP_COMPLETION_LINKS_DIR:-/sys/kernel/p2pmap/links}

	for d in "$dir"/*-*; do
		[ -e "$d" ] || continue
		l=${d##*/}
		# "DDDD:BB:DD.F-DDDD:BB:DD.F": the domain may have more digits.
		printf '%s %s\n' "${l%-*}" "${l##*-}"
	done
}

# This Proxmox VE node's VMIDs (tests: the directory holding qemu-server/
# and lxc/).
_p2pmap_pve_guests()
{
	local f dir=${P2PMAP_COMPLETION_PVE_DIR:-/etc/pve/local}

	for f in "$dir"/qemu-server/*.conf "$dir"/lxc/*.conf; do
		[ -e "$f" ] || continue
		f=${f##*/}
		printf '%s\n' "${f%.conf}"
	done
}

# link del's next address: an initiator, then a target of that initiator.
_p2pmap_link_del_addrs()
{
	local first=$1 i t

	while read -r i t; do
		if [ -z "$first" ]; then
			printf '%s\n' "$i"
		elif [ "$i" = "$first" ]; then
			printf '%s\n' "$t"
		fi
	done < <(_p2pmap_links) | sort -u
}

_p2pmap()
{
	local line=${COMP_LINE:0:COMP_POINT} words cword cur prev
	local cmd='' sub='' first='' i nargs=0 w opts=''
	local cmds='list link status faults monitor check info policy config verify nccl-check env doctor proxmox-hook metrics help'

	read -ra words <<<"$line"
	[[ -z $line || $line == *[[:space:]] ]] && words+=("")
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
	prev=${words[cword - 1]:-}

	# The subcommand: the first word that is not a global option.
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		if [ -z "$cmd" ]; then
			case $w in -*) continue ;; esac
			cmd=$w
		elif [ -z "$sub" ]; then
			case $w in -*) ;; *) sub=$w ;; esac
		else
			case $w in
			-*) ;;
			*) [ $nargs = 0 ] && first=$w; nargs=$((nargs + 1)) ;;
			esac
		fi
	done

	COMPREPLY=()
	if [ -z "$cmd" ]; then
		case $cur in
		-*) opts='-j --json --no-check --version --help' ;;
		*) opts=$cmds ;;
		esac
		_p2pmap_reply "$opts" "$cur"
		return 0
	fi

	# Options that take a value.
	case $prev in
	--bars) _p2pmap_reply '0x1 0x2 0x3 0x3f' "$cur"; return 0 ;;
	--driver)
		_p2pmap_reply "$(ls /sys/bus/pci/drivers 2>/dev/null)" "$cur"
		return 0 ;;
	--file|--output|--verify) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
	--numa|--count|--timeout|--devices|--paths|--size|--drivers|--vendors|--classes)
		return 0 ;;
	esac

	case $cmd in
	list) opts='--all --gpus --driver -d --json' ;;
	link)
		case $sub in
		'') opts='add del delete show list flush auto' ;;
		show|list) opts='--json' ;;
		flush) opts='--dry-run --force' ;;
		add|del|delete)
			[ "$sub" = delete ] && sub=del
			if [[ $cur == -* ]]; then
				opts='--both --dry-run --force'
				[ "$sub" = add ] && opts='--both --bars'
			elif [ $nargs -lt 2 ] && [ "$sub" = del ] &&
			     [ -n "$(_p2pmap_links)" ]; then
				opts=$(_p2pmap_link_del_addrs "$first")
			elif [ $nargs -lt 2 ]; then
				opts=$(_p2pmap_pci_addrs)
			fi ;;
		auto) opts='--numa --driver --dry-run -v --verbose' ;;
		esac ;;
	status|info) opts='--json' ;;
	faults)
		case $sub in
		'') opts='--watch --gpus --driver -d --json reset' ;;
		reset) [ $nargs -lt 1 ] && opts=$(_p2pmap_pci_addrs) ;;
		*) opts='--watch --gpus --driver -d --json' ;;
		esac ;;
	monitor) opts='--json --count --timeout' ;;
	check) opts='--wait --refresh-caches' ;;
	help)
		if [[ $cur == -* ]]; then opts='--table'
		elif [ -z "$sub" ]; then opts=$cmds; fi ;;
	policy)
		case $sub in
		'') opts='show set --json' ;;
		show) opts='--json' ;;
		set) opts='--drivers --vendors --classes --numa --dry-run --force --json' ;;
		esac ;;
	config)
		case $sub in
		'') opts='save show check apply' ;;
		save) opts='--file --dry-run --force' ;;
		show|check) opts='--file' ;;
		apply) opts='--file --dry-run --force' ;;
		esac ;;
	verify)
		case $prev in
		--nccl) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
		--unit) return 0 ;;
		esac
		opts='--devices --paths --size --timeout --vllm-cache --sglang-cache --bandwidth --collective --nccl --unit --json' ;;
	metrics) opts='--output --config' ;;
	nccl-check)
		if [[ $cur == -* ]]; then opts='--verify --json'
		else COMPREPLY=($(compgen -f -- "$cur")); return 0; fi ;;
	doctor)
		case $prev in
		--env-file|--root|--dmesg) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
		--unit|--pid|--gpus|--driver) return 0 ;;
		*) opts='--unit --pid --env-file --dmesg --gpus --driver --root --json' ;;
		esac ;;
	proxmox-hook)
		# VMID PHASE, as Proxmox passes them: this node's guests.
		case $prev in
		--root) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
		--wait) return 0 ;;
		esac
		if [[ $cur == -* ]]; then
			opts='--wait --root'
		elif [ -z "$sub" ]; then
			opts=$(_p2pmap_pve_guests)
		elif [ $nargs = 0 ]; then
			opts='pre-start post-start pre-stop post-stop'
		fi ;;
	env)
		case $prev in
		--verify|--root|--output) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
		--format) opts='shell systemd nfd' ;;
		--devices) return 0 ;;
		*) opts='--verify --devices --format --output --root --json' ;;
		esac ;;
	esac
	_p2pmap_reply "$opts" "$cur"
	return 0
}

# COMPREPLY: the words of @1 that start with @2, cut back to what bash
# replaces (the part after the last ':' of @2, when ':' breaks words).
_p2pmap_reply()
{
	local cur=$2 colon

	COMPREPLY=($(compgen -W "$1" -- "$cur"))
	if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
		colon=${cur%"${cur##*:}"}
		COMPREPLY=("${COMPREPLY[@]#"$colon"}")
	fi
}

complete -F _p2pmap p2pmap
