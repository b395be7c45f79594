# bash completion for tracetap(1). The command list comes from `tracetap --help`, so commands
# added later complete without editing this file.
_tracetap()
{
	local cur prev words cword
	_init_completion || return

	if ((cword == 1)); then
		local cmds
		cmds=$("${words[0]}" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} on && NF {print $1}')
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return
	fi

	case ${words[1]} in
	decode)
		case $prev in
		--format) COMPREPLY=($(compgen -W "threadx nuttx qnx" -- "$cur")); return ;;
		--to) COMPREPLY=($(compgen -W "jsonl trx perfetto ftrace" -- "$cur")); return ;;
		-o | --output) _filedir; return ;;
		esac
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--format --json --no-color --elf --address --pointer
				--base --tick-hz --time-wrap --time-dir --format-opt --follow --traceprinter
				--to --output --help" -- "$cur"))
		else
			_filedir
		fi
		;;
	probes)
		COMPREPLY=($(compgen -W "--json --all --help" -- "$cur"))
		;;
	tail | record | targets | status | export | captures | top)
		case $prev in
		-o | --output) _filedir; return ;;
		--ca) _filedir '@(pem|crt)'; return ;;
		--format | -f) COMPREPLY=($(compgen -W "jsonl trx perfetto ftrace" -- "$cur")); return ;;
		esac
		# Each command's own options, from its help ("  --name ARG   what it does").
		local opts
		opts=$("${words[0]}" "${words[1]}" --help 2>/dev/null | awk '/^options:/ {on = 1; next} /^$/ {on = 0} on {print $1}')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		;;
	esac
}
complete -F _tracetap tracetap
