# tools/completion/iolat.bash: completing "-" offers exactly the options
# of each tool's --help (the same list tests/host/07-man compares with
# the pages), "-s " iolat-top's sort keys, "--device=" the block devices,
# "-o " and iolat-why's "--snoop=" files; an option that takes a regex or
# a duration offers nothing.  Every installed tool is completed.
. "$(dirname "$0")/lib.sh"
T=$BUILD/tools
[ -x "$T/iolat-top" ] && [ -x "$T/iolat-snoop" ] && [ -x "$T/iolat-why" ] || fail "tools not built: make tools"
. "$REPO/tools/completion/iolat.bash" || fail "the completion does not load"
# make install copies this file as completions/TOOL for every tool it
# installs, and bash-completion sources it for that TOOL: each must be
# registered here.
for tool in $(make -s -C "$REPO/tools" -f Makefile -f - print-completed <<<'print-completed: ; @echo $(COMPLETED)'); do
	complete -p "$tool" 2>/dev/null | grep -q -- '-F _iolat ' ||
		fail "tools/completion/iolat.bash does not complete $tool, which make install gives it"
done
# comp WORD...: what completing the last WORD offers, sorted, one a line.
comp() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	_iolat
	printf '%s\n' "${COMPREPLY[@]}" | sort
}
# From --help, as tests/host/07-man reads it: option names, "=" kept.
help_names() {
	"$1" --help | sed -nE 's/^ {2,6}(-[^ ].*)$/\1/p' | sed -E 's/  .*//; s/, / /g' |
		tr ' ' '\n' | grep -- '^-' | sed -E 's/=.*/=/' | sort
}
for bin in "$T/iolat-top" "$T/iolat-snoop" "$T/iolat-why" "$REPO/tools/iolat-plot"; do
	want=$(help_names "$bin")
	got=$(comp "$bin" -)
	[ -n "$want" ] && [ "$want" = "$got" ] || fail "${bin##*/} -<TAB>: offered
$got
want
$want"
	note "${bin##*/} -<TAB>: the $(echo "$want" | wc -l) options of --help"
done
got=$(comp "$T/iolat-top" -s "")
[ "$got" = "$(printf '%s\n' delay depth iops lat path state waits)" ] || fail "iolat-top -s <TAB>: $got"
got=$(comp "$T/iolat-top" --sort = de)
[ "$got" = "$(printf '%s\n' delay depth)" ] || fail "iolat-top --sort=de<TAB>: $got"
got=$(comp "$T/iolat-snoop" --device = "")
[ "$got" = "$(ls /sys/block | sort)" ] || fail "iolat-snoop --device=<TAB>: $got, want /sys/block's"
got=$(comp "$T/iolat-why" --device = "")
[ "$got" = "$(ls /sys/block | sort)" ] || fail "iolat-why --device=<TAB>: $got, want /sys/block's"
got=$(comp "$T/iolat-why" -d "")
[ "$got" = "$(ls /sys/block | sort)" ] || fail "iolat-why -d <TAB>: $got, want /sys/block's"
got=$(comp "$T/iolat-why" --snoop = "$REPO/tools/Makef")
[ "$got" = "$REPO/tools/Makefile" ] || fail "iolat-why --snoop=<TAB>: $got"
[ -z "$(comp "$T/iolat-why" -D "")" ] || fail "iolat-why -D <TAB> offered something"
[ -z "$(comp "$T/iolat-top" -c "")" ] || fail "iolat-top -c <TAB> offered something"
got=$(comp "$REPO/tools/iolat-plot" -o "$REPO/tools/Makef")
[ "$got" = "$REPO/tools/Makefile" ] || fail "iolat-plot -o <TAB>: $got"
note "values: sort keys, devices, files, nothing for a regex or a duration"
