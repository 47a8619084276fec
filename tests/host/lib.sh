# SPDX-License-Identifier: GPL-2.0
# Helpers for the host suite: tests of the host-side tooling itself
# (guest/run, and the tools on a kernel without the iolatency events).
# They never load anything into the host kernel.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$REPO/build}
fail() { echo "FAIL: $*" >&2; exit 1; }
T=$REPO/tools
# iolat-why's sources, for the tests that build it.
WHY_SRCS=("$T/iolat-why.c" "$T/iolat-why-model.c" "$T/iolat-why-rules.c" "$T/iolat-why-suggest.c"
	"$T/iolat-json.c"
	"$T/iolat-common.c" "$T/iolat-cgroup.c" "$T/iolat-map.c")
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }

# why_setup: iolat-why built from tools/ as $W (HOST_OPT as host_cc
# takes it), in $tmp, a directory removed on exit; the canned recordings
# in $D.
why_setup() {
	command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
	tmp=$(mktemp -d) || fail "mktemp"
	trap 'rm -rf "$tmp"' EXIT
	D=$REPO/tests/host/data
	W=$tmp/iolat-why
	host_cc "$W" "${WHY_SRCS[@]}"
}

# expect STATUS PATTERN CMD...: CMD exits STATUS and prints PATTERN on stderr.
expect() {
	local want=$1 pat=$2 rc err
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $err"
	echo "$err" | grep -Eq -- "$pat" || fail "'$*' said '$err', want /$pat/"
	note "$* -> $rc: $(echo "$err" | grep -E -- "$pat" | head -1)"
}

# json_keys TOOL: the keys README.md's "JSON records" lists for TOOL, from
# the table after its "<!-- json-keys TOOL -->" line: for iolat-top one
# path a line (cgroups[].window.met), for iolat-snoop "EVENT KEY" lines.
# Backquoted words are keys; words in parentheses are values, not keys.
json_keys() {
	awk -v tool="$1" '
		$0 == "<!-- json-keys " tool " -->" { on = 1; next }
		on && /^$/ && rows { exit }
		on && /^\| `/ {
			rows++
			split($0, col, "|")
			n = 0
			s = col[2]
			while (match(s, /`[^`]*`/)) {
				first[++n] = substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
			if (tool == "iolat-top") {
				for (i = 1; i <= n; i++) print first[i]
				next
			}
			s = col[3]
			gsub(/\([^)]*\)/, "", s)
			while (match(s, /`[^`]*`/)) {
				for (i = 1; i <= n; i++)
					print first[i], substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$REPO/README.md" | sort -u
}

# json_written TOOL RECORDS: the same of the JSON lines in RECORDS.
json_written() {
	if [ "$1" = iolat-top ]; then
		jq -r '[paths | map(if type == "number" then "[]" else . end) | join(".")] | .[]' "$2" |
			sed 's/\.\[\]/[]/g'
	else
		jq -r '.event as $e | keys_unsorted[] | "\($e) \(.)"' "$2"
	fi | sort -u
}

# json_keys_check TOOL RECORDS: every key README.md lists for TOOL is in
# RECORDS (the tool's real writers' output), and every key there is listed.
json_keys_check() {
	local doc written missing extra
	command -v jq >/dev/null || { note "no jq: $1's JSON keys not checked"; return 0; }
	doc=$(json_keys "$1")
	written=$(json_written "$1" "$2") || fail "$1's records do not parse"
	[ -n "$doc" ] || fail "README.md lists no JSON keys for $1 (<!-- json-keys $1 -->)"
	missing=$(comm -23 <(echo "$doc") <(echo "$written"))
	extra=$(comm -13 <(echo "$doc") <(echo "$written"))
	[ -z "$missing" ] || fail "$1: README.md lists keys its JSON never has: $(echo $missing)"
	[ -z "$extra" ] || fail "$1: its JSON has keys README.md does not list: $(echo $extra)"
	note "$1: the $(echo "$doc" | wc -l) keys README.md lists are the keys of its JSON"
}

# host_cc OUT ARG...: a program built from ARGs (sources of tools/ and
# tests/host/, linker options) with the tools' warnings as errors, or
# fail.  HOST_OPT: the optimisation, -g -O1 unless set.
host_cc() {
	local out=$1
	shift
	"${CC:-cc}" ${HOST_OPT:--g -O1} -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 \
		-I"$T" -I"$REPO/bpf" -o "$out" "$@" -lbpf -lm 2>&1 ||
		fail "${out##*/} does not build"
}
