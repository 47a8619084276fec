# iolat-why on recordings with hostile cgroup names: whoever holds a
# delegated subtree names its cgroups, and iolat-why's output is read on a
# terminal, parsed as JSON and its commands pasted as root.  The names
# come as the tools wrote them before schema 2 (bytes, controls as
# \u00NN) and after (escaped text, \xNN).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
why_setup
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cg2=${cg2:-/sys/fs/cgroup}

# bad_bytes FILE: lines with a byte no terminal should get raw (C0 but
# newline, DEL, C1) or of no UTF-8 character.
bad_bytes() {
	LC_ALL=C grep -naP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || echo "$1: not UTF-8"
}

# case NAME SCHEMA JSON_NAME RAW_NAME ESCAPED: why-unreachable's tight
# group renamed (JSON_NAME as the recording writes it, RAW_NAME its bytes
# as printf reads them, ESCAPED as iolat-why must print it).
case_() {
	local name=$1 schema=$2 json=$3 raw esc=$5 f cmd dir
	raw=$(printf "$4")
	for f in snoop top; do
		sed "s|\"schema\":1,|\"schema\":$schema,|; s|/iolat-m/tight|/iolat-m/$json|g" \
			"$D/why-unreachable.$f.json" >"$tmp/$name.$f.json"
	done
	(cd "$tmp" && "$W" --snoop "$name.snoop.json" --top "$name.top.json" >"$name.txt" 2>"$name.err")
	[ -z "$(bad_bytes "$tmp/$name.txt")" ] ||
		fail "$name: text output has raw control or invalid bytes: $(bad_bytes "$tmp/$name.txt" | cat -v | head -3)"
	grep -qF -- "/iolat-m/$esc" "$tmp/$name.txt" ||
		fail "$name: text does not name /iolat-m/$esc: $(cat -v "$tmp/$name.txt" | head -5)"
	(cd "$tmp" && "$W" -j --snoop "$name.snoop.json" --top "$name.top.json" >"$name.json" 2>/dev/null)
	[ -z "$(bad_bytes "$tmp/$name.json")" ] || fail "$name: JSON output has raw or invalid bytes"
	jq -e --arg c "/iolat-m/$esc" '[.findings[] | select(.cgroup == $c)] | length > 0' \
		"$tmp/$name.json" >/dev/null || fail "$name: JSON cgroup is not /iolat-m/$esc"
	cmd=$(jq -r --arg c "/iolat-m/$esc" '.findings[] | select(.cgroup == $c and .command != "") | .command' \
		"$tmp/$name.json" | head -1)
	[ -n "$cmd" ] || fail "$name: no command"
	case $cmd in *"$cg2/"*) ;; *) fail "$name: the command is not under this system's cgroup2 mount $cg2: $cmd" ;; esac
	# Pasted as root, against a copy of the tree: it writes the real
	# path's io.latency, and runs nothing the name holds.
	dir=$tmp/cg/iolat-m/$raw
	mkdir -p "$dir" || fail "$name: mkdir"
	(cd "$tmp" && bash -c "${cmd//"$cg2"/$tmp/cg}" 2>/dev/null)
	[ -z "$(ls "$tmp" | grep PWN)" ] || fail "$name: pasting the command ran the name: $(ls "$tmp" | grep PWN)"
	grep -q "target=max" "$dir/io.latency" 2>/dev/null ||
		fail "$name: the command did not write the real path's io.latency: $cmd"
	note "$name: text and JSON escaped, the command quoted: $(echo "$cmd" | cut -c1-120)"
}

# Schema 1: the bytes themselves, JSON's \u escapes for controls.
case_ s1 1 't`touch PWN1`$(touch PWN2)\\u001b[31m\\u0007\\u0085x'"'"'q' \
	't`touch PWN1`$(touch PWN2)\033[31m\007\302\205x'"'"'q' \
	't`touch PWN1`$(touch PWN2)\x1b[31m\x07\xc2\x85x'"'"'q'
# Schema 2: the tools' escape, bytes of no UTF-8 character among them.
case_ s2 2 't\\\\xff\\\\x1b$(touch PWN3) \\\\\\\\back' \
	't\377\033$(touch PWN3) \\back' \
	't\xff\x1b$(touch PWN3) \\back'
# Schema 2 with a raw control, as a crafted recording may have: escaped.
case_ s2raw 2 'raw\\u001b]0;title\\u0007' 'raw\033]0;title\007' 'raw\x1b]0;title\x07'

# A recording made inside a cgroup namespace: its paths start at that
# namespace's root, which iolat-why says, and the commands at this
# system's mount.  iolat-snoop's first record says it (events mode here).
{ echo '{"schema":2,"tool":"iolat-snoop","time":1.0,"event":"mode","mode":"events","cgroupns":true}'
  cat "$D/why-unreachable.snoop.json"; } >"$tmp/ns.snoop.json"
"$W" --snoop "$tmp/ns.snoop.json" --top "$D/why-unreachable.top.json" >"$tmp/ns.txt" 2>"$tmp/ns.err"
grep -q "made inside a cgroup namespace" "$tmp/ns.err" ||
	fail "a recording from a cgroup namespace not said: $(cat "$tmp/ns.err")"
grep -q "unreachable_target" "$tmp/ns.txt" ||
	fail "an events-mode mode record taken for the functions: $(head -3 "$tmp/ns.txt")"
"$W" --snoop "$D/why-unreachable.snoop.json" --top "$D/why-unreachable.top.json" >/dev/null 2>"$tmp/ns.err"
! grep -q "cgroup namespace" "$tmp/ns.err" || fail "said of a recording made outside one"
note "a recording made inside a cgroup namespace: said, with the mount the commands use"
