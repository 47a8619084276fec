# The state reader without the events (bpf/iolat-state.bpf.c, read by
# tools/iolat-state.c), without loading anything: it builds with the
# tools' own rules; libbpf's CO-RE relocation of it against the 6.1
# guest's BTF resolves every read but the 6.12 flavour of the depth,
# which a field-existence check guards; and the struct members it reads
# are in the sources of 6.1 without the series and of 6.12.  Then the
# front-end's checks and culprit verdicts, in C (24-state.c).
#
# The relocations are computed by bpftool gen min_core_btf, which runs
# libbpf's own bpf_core_calc_relo_insn() on each against a vmlinux and,
# with -d, prints whether a candidate matched: what loading would do,
# short of the kernel.  6.12's: only where build/kbuild-6.12/vmlinux
# exists, and said as not done where it does not; the 6.12 source check
# is by member names, not types or offsets.
. "$(dirname "$0")/lib.sh"
VMLINUX61=$BUILD/kbuild/vmlinux
VMLINUX612=$BUILD/kbuild-6.12/vmlinux
SRC612=${SRC612:-/usr/src/linux-source-6.12.tar.xz}
[ -f "$VMLINUX61" ] || skip "no 6.1 guest kernel ($VMLINUX61): make kernel"
for c in clang llvm-strip make "${CC:-cc}"; do
	command -v "$c" >/dev/null || skip "no $c"
done
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}
[ -x "$BPFTOOL" ] || skip "no bpftool"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# 1. The object and its front-end, by tools/Makefile's rules and flags.
make -s -C "$REPO/tools" BUILD="$tmp" VMLINUX="$VMLINUX61" "$tmp/tools/iolat-state.o" \
	>"$tmp/make.log" 2>&1 || { cat "$tmp/make.log" >&2; fail "iolat-state does not build"; }
OBJ=$tmp/tools/iolat-state.bpf.o
note "bpf/iolat-state.bpf.c and tools/iolat-state.c build against 6.1's vmlinux.h"

# relocs VMLINUX: each relocation as libbpf resolves it against VMLINUX's
# BTF, "N ok|none KIND SPEC", SPEC as libbpf names the access
# ("struct iolatency_grp.child_lat.scale_grp").
relocs() {
	"$BPFTOOL" -d gen min_core_btf "$1" "$tmp/min.btf" "$OBJ" 2>&1 |
		awk 'match($0, /relo #[0-9]+: /) {
			n = substr($0, RSTART + 6, RLENGTH - 8) + 0
			rest = substr($0, RSTART + RLENGTH)
			if (rest ~ /^</) {
				kind[n] = rest; sub(/ .*/, "", kind[n])
				spec[n] = rest; sub(/^<[^>]*> \[[0-9]+\] /, "", spec[n])
				sub(/ \(.*/, "", spec[n])
				if (n > max) max = n
			} else if (rest ~ /^matching candidate/)
				st[n] = "ok"
			else if (rest ~ /^no matching targets found/)
				st[n] = "none"
		}
		END {
			for (i = 0; i <= max; i++)
				printf "%d %s %s %s\n", i, (i in st) ? st[i] : "?", kind[i], spec[i]
		}'
}

# check_relocs NAME VMLINUX UNRESOLVED: every relocation resolves against
# VMLINUX but those whose SPEC is UNRESOLVED's (the other kernel's
# depth), which must not, and the field-existence check guarding both
# is there.
check_relocs() {
	local name=$1 vmlinux=$2 other=$3 bad
	relocs "$vmlinux" >"$tmp/relocs.$name" || fail "bpftool gen min_core_btf $vmlinux failed"
	[ "$(wc -l <"$tmp/relocs.$name")" -gt 20 ] ||
		fail "$name: no relocations read from bpftool -d: the parsing is out of date"
	bad=$(awk '$2 == "?"' "$tmp/relocs.$name")
	[ -z "$bad" ] || fail "$name: relocations bpftool said nothing of: $bad"
	bad=$(awk -v o="$other" '{ s = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", s) }
		($2 == "none") != (s == o)' "$tmp/relocs.$name")
	[ -z "$bad" ] || fail "$name: relocations resolved where they should not be, or not where they should: $bad"
	grep -q "^[0-9]* [a-z]* <field_exists> struct iolatency_grp___new.max_depth$" \
		"$tmp/relocs.$name" || fail "$name: the depth's flavour is read without bpf_core_field_exists()"
	note "$name: $(awk '$2 == "ok"' "$tmp/relocs.$name" | wc -l) relocations resolve," \
		"$(awk '$2 == "none"' "$tmp/relocs.$name" | wc -l) unresolved, all $other (guarded)"
}

# 2. Against the 6.1 guest's BTF (the patched tree: the series adds
# child_latency_info.scale_grp_id, which must not be read).
check_relocs 6.1 "$VMLINUX61" "struct iolatency_grp___new.max_depth"
R=$tmp/relocs.6.1
for f in min_lat_nsec rq_depth.max_depth rq_wait.inflight.counter cur_win_nsec \
	window_start.counter lat_avg nr_samples ssd scale_cookie.counter pd.online \
	cur_stat.ps.total cur_stat.ps.missed cur_stat.rqs.mean cur_stat.rqs.nr_samples \
	child_lat.scale_cookie.counter child_lat.scale_lat child_lat.last_scale_event \
	child_lat.nr_samples child_lat.scale_grp; do
	grep -q "^[0-9]* ok <byte_off> struct iolatency_grp\.$f$" "$R" ||
		fail "6.1: iolatency_grp.$f is not read"
done
for f in pd use_delay.counter delay_nsec.counter online q blkcg_node.next; do
	grep -q "^[0-9]* ok <byte_off> struct blkcg_gq\.$f$" "$R" ||
		fail "6.1: blkcg_gq.$f is not read"
done
grep -q "^[0-9]* ok <byte_off> struct blkcg_policy\.plid$" "$R" ||
	fail "6.1: blkcg_policy.plid is not read"
! grep -q "scale_grp_id" "$R" || fail "6.1: the series' child_latency_info.scale_grp_id is read"
note "6.1: every field the reader needs is read, none of the series'"

# 3. 6.12's BTF, where there is one.
if [ -f "$VMLINUX612" ]; then
	check_relocs 6.12 "$VMLINUX612" "struct iolatency_grp.rq_depth.max_depth"
else
	note "6.12: relocations NOT checked: no $VMLINUX612 (make kernel KVER=6.12)"
fi

# 4. The members read, by name, in the sources without the series.  The
# pairs (struct.member) come from the object's own BTF, as in
# 17-core-reads; only the block layer's structs this reader adds.
"$BPFTOOL" gen min_core_btf "$OBJ" "$tmp/self.btf" "$OBJ" ||
	fail "bpftool gen min_core_btf $OBJ failed"
"$BPFTOOL" btf dump file "$tmp/self.btf" format raw |
	awk '/^\[[0-9]+\] (STRUCT|UNION) / { s = $3; gsub(/\047/, "", s); next }
	     /^\[/ { s = "" }
	     s != "" && s != "(anon)" && /^\t\047/ {
		f = $1; gsub(/\047/, "", f)
		if (f != "(anon)") print s "." f
	     }' |
	grep -E '^(iolatency_grp(___new)?|child_latency_info|latency_stat|percentile_stats|blk_rq_stat|rq_wait|rq_depth|blkcg_gq|blkg_policy_data|blkcg_policy)\.' |
	sed 's/___new\././' | sort -u >"$tmp/members"
[ "$(wc -l <"$tmp/members")" -gt 20 ] || fail "no members read found: the extraction is out of date"
SRCFILES="block/blk-iolatency.c block/blk-cgroup.h block/blk-rq-qos.h include/linux/blk_types.h"

# check_src NAME DIR ABSENT: each member is declared in its struct in
# DIR's sources but ABSENT, which must not be (the other kernel's depth).
check_src() {
	local name=$1 dir=$2 absent=$3 m s f missing="" present=""
	while read -r m; do
		s=${m%%.*} f=${m#*.}
		if cat $(printf "$dir/%s " $SRCFILES) |
			awk -v s="$s" '$0 ~ "^struct " s " {" { on = 1; next } on && /^};/ { on = 0 } on' |
			grep -Eq "[[:space:]*]$f(\[[^]]*\])?;"; then
			[ "$m" != "$absent" ] || present="$present $m"
		else
			[ "$m" = "$absent" ] || missing="$missing $m"
		fi
	done <"$tmp/members"
	[ -z "$missing" ] || fail "$name: members read that its sources do not declare:$missing"
	[ -z "$present" ] || fail "$name: $absent is declared there: the flavour check is wrong"
	note "$name sources: the $(wc -l <"$tmp/members") members read are declared, $absent is not"
}

# from_base TREE DIR: SRCFILES as TREE's iolat-base tag has them, into DIR.
from_base() {
	local f
	mkdir -p "$2/block" "$2/include/linux"
	for f in $SRCFILES; do
		git -C "$1" show "iolat-base:$f" >"$2/$f" || fail "cannot read $f of $1's iolat-base"
	done
}

if git -C "$BUILD/linux" rev-parse -q --verify iolat-base >/dev/null 2>&1; then
	from_base "$BUILD/linux" "$tmp/6.1"
	check_src "6.1 without the series (iolat-base)" "$tmp/6.1" iolatency_grp.max_depth
else
	note "6.1 sources: NOT checked: no $BUILD/linux with its iolat-base tag"
fi
# 6.12's from its tree when built (at once), else from the tarball (15 s).
mkdir "$tmp/6.12"
if git -C "$BUILD/linux-6.12" rev-parse -q --verify iolat-base >/dev/null 2>&1; then
	from_base "$BUILD/linux-6.12" "$tmp/6.12"
	check_src "6.12 without the series (iolat-base)" "$tmp/6.12" iolatency_grp.rq_depth
elif [ -f "$SRC612" ]; then
	tar -xJf "$SRC612" -C "$tmp/6.12" --strip-components=1 \
		$(printf "linux-source-6.12/%s " $SRCFILES) || fail "cannot extract from $SRC612"
	check_src "6.12 ($SRC612)" "$tmp/6.12" iolatency_grp.rq_depth
else
	note "6.12 sources: NOT checked: neither $BUILD/linux-6.12 nor $SRC612"
fi

# 5. The front-end, on the host: no kernel of io.latency needed.
host_cc "$tmp/state-test" -I"$tmp/tools" "$REPO/tests/host/24-state.c" "$T/iolat-state.c" \
	"$T/iolat-common.c" "$T/iolat-cgroup.c" "$T/iolat-map.c"
mkdir "$tmp/ksyms"
"$tmp/state-test" "$VMLINUX61" "$tmp/ksyms" || fail "the front-end's test failed"

# 6. iolat-state-dump's arguments, refused before it loads anything:
# exit 2 and a word on what is wrong; --help 0.
host_cc "$tmp/dump" -I"$tmp/tools" "$T/iolat-state-dump.c" "$T/iolat-state.c" \
	"$T/iolat-common.c" "$T/iolat-cgroup.c" "$T/iolat-map.c"
expect 2 "invalid interval '0'" "$tmp/dump" 0
expect 2 "invalid count 'x'" "$tmp/dump" 1 x
expect 2 "too many arguments: '3'" "$tmp/dump" 1 2 3
expect 2 "no block device 'nosuchdisk'" "$tmp/dump" -d nosuchdisk
expect 2 "unrecognized option '--bogus'" "$tmp/dump" --bogus
"$tmp/dump" --help | grep -q "^USAGE: iolat-state-dump " || fail "iolat-state-dump --help: no usage line"
