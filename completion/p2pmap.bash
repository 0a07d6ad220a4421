# SPDX-License-Identifier: GPL-2.0
# bash completion for p2pmap(8): subcommands, their options, PCI addresses
# (from /sys/bus/pci/devices) for link add/del and faults reset.
# Install as /usr/share/bash-completion/completions/p2pmap.
# Needs nothing from the bash-completion package.

# PCI addresses as p2pmap takes them; the directory may be overridden (tests).
_p2pmap_pci_addrs()
{
	local d dir=${P2PMAP_COMPLETION_PCI_DIR:-/sys/bus/pci/devices}

	for d in "$dir"/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done
}

_p2pmap()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd='' sub='' i nargs=0 w opts=''
	local cmds='list link status faults monitor check info policy config verify metrics help'

	# The subcommand: the first word that is not a global option.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -z "$cmd" ]; then
			case $w in -*) continue ;; esac
			cmd=$w
		elif [ -z "$sub" ]; then
			case $w in -*) ;; *) sub=$w ;; esac
		else
			case $w in -*) ;; *) nargs=$((nargs + 1)) ;; esac
		fi
	done

	COMPREPLY=()
	if [ -z "$cmd" ]; then
		case $cur in
		-*) opts='--no-check --version --help' ;;
		*) opts=$cmds ;;
		esac
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi

	# Options that take a value.
	case $prev in
	--bars) COMPREPLY=($(compgen -W '0x1 0x2 0x3 0x3f' -- "$cur")); return 0 ;;
	--driver)
		COMPREPLY=($(compgen -W "$(ls /sys/bus/pci/drivers 2>/dev/null)" -- "$cur"))
		return 0 ;;
	--file|--output) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
	--numa|--count|--timeout|--devices|--size|--drivers|--vendors|--classes)
		return 0 ;;
	esac

	case $cmd in
	list) opts='--all --json' ;;
	link)
		case $sub in
		'') opts='add del auto' ;;
		add|del)
			if [[ $cur == -* ]]; then
				opts='--both'
				[ "$sub" = add ] && opts='--both --bars'
			elif [ $nargs -lt 2 ]; then
				opts=$(_p2pmap_pci_addrs)
			fi ;;
		auto) opts='--numa --driver --dry-run' ;;
		esac ;;
	status|info) opts='--json' ;;
	faults)
		case $sub in
		'') opts='--watch --json reset' ;;
		reset) [ $nargs -lt 1 ] && opts=$(_p2pmap_pci_addrs) ;;
		*) opts='--watch --json' ;;
		esac ;;
	monitor) opts='--json --count --timeout' ;;
	check|help) ;;
	policy)
		case $sub in
		'') opts='show set --json' ;;
		show) opts='--json' ;;
		set) opts='--drivers --vendors --classes --numa --json' ;;
		esac ;;
	config)
		case $sub in
		'') opts='save show check' ;;
		save|show|check) opts='--file' ;;
		esac ;;
	verify) opts='--devices --size --timeout --vllm-cache --sglang-cache --json' ;;
	metrics) opts='--output' ;;
	esac
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	return 0
}

complete -F _p2pmap p2pmap
