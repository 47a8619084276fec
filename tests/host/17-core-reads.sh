# What the BPF programs read from the kernel, against README.md's table
# of it (after "<!-- core-reads -->" in "Supported kernels"): every struct
# field a CO-RE relocation reads and every attach point is in the table,
# and the table lists nothing the programs no longer read.  The tools run
# unchanged on 6.1 and 6.12, so a new read must be checked against both
# trees before it is added to the table; this makes sure it is not
# forgotten.  The reads come from the objects themselves: bpftool's
# min_core_btf, given the objects' own BTF as the source, keeps exactly the
# members their relocations touch.  Nothing is loaded, no vmlinux needed.
. "$(dirname "$0")/lib.sh"
T=$BUILD/tools
OBJS="$T/iolat-top.bpf.o $T/iolat-snoop.bpf.o $T/iolat-fallback.bpf.o $T/iolat-iostat.bpf.o $T/iolat-state.bpf.o"
for o in $OBJS; do
	[ -f "$o" ] || fail "tools not built: make tools ($o)"
done
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
[ -x "$BPFTOOL" ] || skip "no bpftool"
READELF=$(command -v readelf || command -v llvm-readelf) || skip "no readelf"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# struct.field, one a line, for each member a relocation reads; "enum
# NAME" for an enum whose value one reads (min_core_btf keeps all of its
# values, so which one is the table's to say).
for o in $OBJS; do
	"$BPFTOOL" gen min_core_btf "$o" "$tmp/min.btf" "$o" ||
		fail "bpftool gen min_core_btf $o failed"
	"$BPFTOOL" btf dump file "$tmp/min.btf" format raw |
		awk '/^\[[0-9]+\] (STRUCT|UNION) / { s = $3; gsub(/\047/, "", s); next }
		     /^\[[0-9]+\] ENUM(64)? / { e = $3; gsub(/\047/, "", e); print "enum " e }
		     /^\[/ { s = "" }
		     s != "" && s != "(anon)" && /^\t\047/ {
			f = $1; gsub(/\047/, "", f)
			if (f != "(anon)") print s "." f
		     }'
done >"$tmp/fields"
# Attach points: every section that is not data, BTF or relocations.
for o in $OBJS; do
	"$READELF" -SW "$o" | sed -nE 's/^ *\[ *[0-9]+\] ([^ ]+) .*/\1/p' |
		grep -vE '^(\.|license$|NULL$)'
done >"$tmp/attach"
sort -u "$tmp/fields" "$tmp/attach" >"$tmp/read"
[ "$(wc -l <"$tmp/fields")" -gt 0 ] || fail "no field read found: the extraction is out of date"
grep -q '^tp_btf/' "$tmp/attach" || fail "no attach point found: the extraction is out of date"

# The table's first column: backquoted names, several to a cell.
awk '$0 == "<!-- core-reads -->" { on = 1; next }
     on && /^$/ && rows { exit }
     on && /^\| `/ {
	rows++
	split($0, col, "|")
	s = col[2]
	while (match(s, /`[^`]*`/)) {
		print substr(s, RSTART + 1, RLENGTH - 2)
		s = substr(s, RSTART + RLENGTH)
	}
     }' "$REPO/README.md" | sort -u >"$tmp/documented"
[ -s "$tmp/documented" ] || fail "README.md has no table after <!-- core-reads -->"

missing=$(comm -23 "$tmp/read" "$tmp/documented" | tr '\n' ' ')
stale=$(comm -13 "$tmp/read" "$tmp/documented" | tr '\n' ' ')
[ -z "$missing" ] || fail "the programs read what README.md's core-reads table does not list (check it on 6.1 and 6.12, then add it): $missing"
[ -z "$stale" ] || fail "README.md's core-reads table lists what the programs no longer read: $stale"
note "$(sort -u "$tmp/fields" | wc -l) fields and $(sort -u "$tmp/attach" | wc -l) attach points read, all in README.md's table"
