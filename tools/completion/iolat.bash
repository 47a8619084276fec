# SPDX-License-Identifier: GPL-2.0
#
# bash completion for iolat-top, iolat-snoop, iolat-why and iolat-plot.
# Nothing is listed here: the options come from the tool's own --help
# (which needs no root and no kernel), the sort keys from the message
# iolat-top gives for a wrong one, so the completion follows the tool it
# completes.

# The tool's options, one a line, as "-d --device=DEV" or "-o FILE".
_iolat_options()
{
	"$1" --help 2>/dev/null | sed -nE 's/^ {2,6}(-[^ ].*)$/\1/p' |
		sed -E 's/  .*//; s/, / /g'
}

_iolat()
{
	local tool=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local prev= opts line word arg takes=
	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# "--sort=d" comes as "--sort" "=" "d" ('=' breaks words).
	if [ "$prev" = = ] && [ "$COMP_CWORD" -gt 1 ]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [ "$cur" = = ]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]} cur=
	fi
	opts=$(_iolat_options "$tool")

	# What prev takes: argp's "--device=DEV", iolat-plot's "-o FILE".
	while read -r line; do
		arg=${line##* }
		case $arg in
		*=*) arg=${arg#*=} ;;
		-*) arg= ;;
		esac
		for word in $line; do
			[[ $word == -* && ${word%%=*} == "$prev" ]] && takes=$arg
		done
	done <<<"$opts"

	COMPREPLY=()
	case $takes in
	'') ;;
	DEV)
		mapfile -t COMPREPLY < <(compgen -W "$(ls /sys/block 2>/dev/null)" -- "$cur")
		return ;;
	KEY)
		# "... want state, path, lat, iops, depth, delay or waits"
		mapfile -t COMPREPLY < <(compgen -W "$("$tool" -s '?' 2>&1 >/dev/null |
			sed -n 's/.*want //p' | sed 's/,/ /g; s/ or / /')" -- "$cur")
		return ;;
	FILE|OUT.png|RECORDING)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	*)
		return ;;	# a regex, a number, a title: nothing to offer
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(sed -E 's/=[^ ]*/=/g; s/ [A-Z][^ ]*//g' <<<"$opts")" -- "$cur")
		[[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
	elif [ "${tool##*/}" = iolat-plot ]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}
complete -F _iolat iolat-top iolat-snoop iolat-why iolat-plot
