# The man pages in tools/man against the tools: every option --help lists
# is in the page's OPTIONS and the page lists no other; iolat-top's page
# names every text column, JSON key and Prometheus metric the output code
# writes, iolat-snoop's every column, event and JSON key, iolat-why's
# every finding and JSON key.  All taken from
# the tools themselves (--help, which needs no kernel; the output code),
# so a new option or key fails here until its page says what it is.
# Then mandoc -Tlint on each page.
. "$(dirname "$0")/lib.sh"
T=$BUILD/tools
S=$REPO/tools
M=$S/man
for tool in iolat-top iolat-snoop iolat-why; do
	[ -x "$T/$tool" ] || fail "tools not built: make tools ($T/$tool)"
done

# Options as "-d --device=DEV", one a line, sorted.  From --help: the
# lines of argp's option list (or iolat-plot's), up to the description.
help_opts() {
	"$@" --help 2>&1 | sed -nE 's/^ {2,6}(-[^ ].*)$/\1/p' |
		sed -E 's/  .*//; s/, / /g' | sort
}
# From a page: the tag line after each .TP in OPTIONS, fonts and \- undone.
man_opts() {
	awk '/^\.SH/ { in_opts = ($2 == "OPTIONS") }
	     in_opts && tag { print; tag = 0 }
	     in_opts && /^\.TP/ { tag = 1 }' "$1" |
		sed -E 's/\\f[BIRP]//g; s/\\-/-/g; s/, / /g' | sort
}
# The page as text, fonts undone: what a word check looks in.
man_text() {
	sed -E 's/\\f[BIRP]//g; s/\\-/-/g' "$1"
}
# need PAGE WHAT WORD...: each WORD appears in PAGE as a word.
need() {
	local page=$1 what=$2 w missing=
	shift 2
	[ $# -gt 0 ] || fail "found no $what in the source: the extraction is out of date"
	for w in "$@"; do
		man_text "$page" | grep -qE -- "(^|[^A-Za-z0-9_])$(sed 's|[/.]|\\&|g' <<<"$w")([^A-Za-z0-9_]|$)" ||
			missing+=" $w"
	done
	[ -z "$missing" ] || fail "${page##*/} does not describe these $what:$missing"
	note "${page##*/}: $# $what described"
}
# The column names of the header printf that starts with "DEVICE", "CGROUP".
columns() {
	awk '/"DEVICE", "CGROUP"/ { on = 1 } on { print } on && /\);/ { exit }' "$1" |
		grep -oE '"[A-Z][A-Za-z/%]*"' | tr -d '"'
}
# JSON keys: \"key\": in format strings, and the helpers' key arguments.
json_keys() {
	grep -oE '\\"[a-z_]+\\":|json_(rate|depth|str_or_null)\((f, )?"[a-z_]+"' "$1" |
		grep -oE '[a-z_]+\\?"?:?$' | grep -oE '^[a-z_]+' | sort -u
}

for tool in iolat-top iolat-snoop iolat-why iolat-plot; do
	page=$(ls "$M/$tool".[18])
	bin=$T/$tool
	[ "$tool" = iolat-plot ] && bin=$S/iolat-plot
	h=$(help_opts "$bin")
	p=$(man_opts "$page")
	[ -n "$h" ] || fail "$tool --help lists no options"
	[ "$h" = "$p" ] ||
		fail "$tool: --help and ${page##*/} OPTIONS differ (< --help, > page):
$(diff <(echo "$h") <(echo "$p") | grep '^[<>]')"
	note "$tool: $(echo "$h" | wc -l) options, the same in --help and ${page##*/}"
done

need "$M/iolat-top.8" "text columns" $(columns "$S/iolat-top-output.c")
need "$M/iolat-top.8" "JSON keys" $(json_keys "$S/iolat-top-output.c")
need "$M/iolat-top.8" "Prometheus metrics" \
	$(grep -oE '(\{ "|TYPE )iolat_[a-z_]+' "$S/iolat-top-output.c" | grep -oE 'iolat_[a-z_]+' | sort -u)
need "$M/iolat-top.8" "states" $(grep -oE 'state = "[a-z]+"' "$S/iolat-top-model.c" | cut -d'"' -f2)
need "$M/iolat-top.8" "sort keys" \
	$(awk '/top_sort_names\[TOP_SORT_NR\] = \{/ { on = 1; next } on && /\};/ { exit } on' \
		"$S/iolat-top-model.c" | grep -oE '"[a-z]+"' | tr -d '"')
need "$M/iolat-snoop.8" "text columns" $(columns "$S/iolat-snoop-output.c")
need "$M/iolat-snoop.8" "events" \
	$(awk '/type_names\[IOLAT_EV_NR\] = \{/ { on = 1; next } on && /\};/ { exit } on' \
		"$S/iolat-snoop-output.c" | grep -oE '"[a-z_]+"' | tr -d '"')
need "$M/iolat-snoop.8" "JSON keys" $(json_keys "$S/iolat-snoop-output.c")
# iolat-why's finding names, from its rules' name table.
why_rules() {
	awk '/why_rule_names\[WHY_RULE_NR\] = \{/ { on = 1; next } on && /\};/ { exit } on' \
		"$S/iolat-why-rules.c" | grep -oE '"[a-z_]+"' | tr -d '"'
}
need "$M/iolat-why.8" "findings" $(why_rules)
need "$M/iolat-why.8" "JSON keys" $(json_keys "$S/iolat-why.c")
# Each finding is a tag of the page's list, not only a word in its text.
for rule in $(why_rules); do
	grep -A1 '^\.TP' "$M/iolat-why.8" | grep -qx "\.B $rule" ||
		fail "iolat-why.8 has no .TP entry for the finding $rule"
done

command -v mandoc >/dev/null ||
	skip "options, columns, keys and metrics match; mandoc missing, pages not linted (make deps)"
for page in "$M"/*.[18]; do
	out=$(mandoc -Tlint "$page" 2>&1) || fail "mandoc -Tlint ${page##*/}:
$out"
	[ -z "$out" ] || fail "mandoc -Tlint ${page##*/} warns:
$out"
done
note "mandoc -Tlint: $(ls "$M"/*.[18] | wc -l) pages clean"
