# tools/completion/iolat.bash: completing "-" offers exactly the options
# of each tool's --help (the same list tests/host/07-man compares with
# the pages), "-s " iolat-top's sort keys, "--device=" the block devices,
# "-o " files; an option that takes a regex offers nothing.
. "$(dirname "$0")/lib.sh"
T=$BUILD/tools
[ -x "$T/iolat-top" ] && [ -x "$T/iolat-snoop" ] || fail "tools not built: make tools"
. "$REPO/tools/completion/iolat.bash" || fail "the completion does not load"
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
for bin in "$T/iolat-top" "$T/iolat-snoop" "$REPO/tools/iolat-plot"; do
	want=$(help_names "$bin")
	got=$(comp "$bin" -)
	[ -n "$want" ] && [ "$want" = "$got" ] || fail "${bin##*/} -<TAB>: offered
$got
want
$want"
	note "${bin##*/} -<TAB>: the $(echo "$want" | wc -l) options of --help"
done
got=$(comp "$T/iolat-top" -s "")
[ "$got" = "$(printf '%s\n' delay depth iops lat path waits)" ] || fail "iolat-top -s <TAB>: $got"
got=$(comp "$T/iolat-top" --sort = de)
[ "$got" = "$(printf '%s\n' delay depth)" ] || fail "iolat-top --sort=de<TAB>: $got"
got=$(comp "$T/iolat-snoop" --device = "")
[ "$got" = "$(ls /sys/block | sort)" ] || fail "iolat-snoop --device=<TAB>: $got, want /sys/block's"
[ -z "$(comp "$T/iolat-top" -c "")" ] || fail "iolat-top -c <TAB> offered something"
got=$(comp "$REPO/tools/iolat-plot" -o "$REPO/tools/Makef")
[ "$got" = "$REPO/tools/Makefile" ] || fail "iolat-plot -o <TAB>: $got"
note "values: sort keys, devices, files, nothing for a regex"
