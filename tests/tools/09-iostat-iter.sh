# iolat-top's io.stat counters from the BPF cgroup iterator (one walk a
# refresh) against each cgroup's io.stat file (--iostat-files), at rest
# after reads and writes in two cgroups on null_blk: each row's
# cumulative counters (JSON's iostat: rbytes, wbytes, rios, wios, dbytes,
# dios) the same both ways and the same as io.stat says; the iterator
# loaded (nothing about it on stderr, iostat_source "iterator" or
# "marked").  Then
# with blkcg_debug_stats on, the debug keys still there (read from the
# files of the rows that need them); and io.pressure read for the rows
# shown (-r 1: the row printed has its PSI) and, with -P, for every row.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

# The walk alone first: no debug keys, so no io.stat file is read.
debug_stats 0
nullb_create iolat0
mm=$(majmin iolat0)
cgs="iolat-i/a iolat-i/b iolat-i/c"
for cg in $cgs; do
	cg_create "$cg"
	io_latency_set "$cg" iolat0 50000
done
# a reads, b writes and reads, c does nothing: a row with no io.stat line.
cg_run iolat-i/a dd if=/dev/iolat0 of=/dev/null bs=4k count=3000 iflag=direct 2>/dev/null ||
	fail "dd in iolat-i/a failed"
cg_run iolat-i/b dd if=/dev/zero of=/dev/iolat0 bs=64k count=300 oflag=direct 2>/dev/null ||
	fail "dd in iolat-i/b failed"
cg_run iolat-i/b dd if=/dev/iolat0 of=/dev/null bs=16k count=500 skip=100 iflag=direct \
	2>/dev/null || fail "the second dd in iolat-i/b failed"
for cg in iolat-i $cgs; do
	note "$cg/io.stat: $(grep "^$mm " "$CG/$cg/io.stat")"
done

# top NAME ARG...: one report of iolat-top -j -d iolat0 (1 s) into
# /tmp/iter-NAME.json, its stderr in /tmp/iter-NAME.err.
top() {
	local name=$1
	shift
	"$TOOLS/iolat-top" -j -d iolat0 "$@" 1 1 >"/tmp/iter-$name.json" 2>"/tmp/iter-$name.err" ||
		fail "iolat-top $* exited $?: $(cat "/tmp/iter-$name.err")"
	[ "$(wc -l <"/tmp/iter-$name.json")" = 1 ] ||
		fail "iolat-top $*: $(wc -l <"/tmp/iter-$name.json") reports, want 1"
}
# counters NAME: each row's device, cgroup and iostat, sorted.
counters() {
	jq -c '[.cgroups[] | {device, cgroup, iostat}] | sort_by(.device, .cgroup) | .[]' \
		"/tmp/iter-$1.json"
}
# iterator_used NAME: the report came from a walk (iterator, or marked:
# the walk before it, with the cgroups a bio marked since re-read), and
# stderr says nothing of the iterator (not loaded, or a walk that failed).
iterator_used() {
	! grep -i 'iterator\|walks' "/tmp/iter-$1.err" ||
		fail "iolat-top ($1) says the iterator was not used: $(cat "/tmp/iter-$1.err")"
	jqe '.iostat_source == "iterator" or .iostat_source == "marked"' \
		<"/tmp/iter-$1.json" >/dev/null ||
		fail "iolat-top ($1): iostat_source $(jq -c .iostat_source "/tmp/iter-$1.json"), want iterator or marked"
}

top iter
top files --iostat-files
iterator_used iter
jqe '.iostat_source == "files"' </tmp/iter-files.json >/dev/null ||
	fail "--iostat-files: iostat_source $(jq -c .iostat_source /tmp/iter-files.json), want files"
counters iter >/tmp/iter-iter.counters
counters files >/tmp/iter-files.counters
cat /tmp/iter-iter.counters
diff /tmp/iter-files.counters /tmp/iter-iter.counters >/tmp/iter.diff ||
	fail "the iterator's counters differ from the files' (< files, > iterator): $(cat /tmp/iter.diff)"
# Every cgroup with a row, the parent too (its io.stat sums its children).
for cg in iolat-i $cgs; do
	jqe --arg cg "/$cg" 'any(.cgroups[]; .cgroup == $cg and .device == "iolat0")' \
		</tmp/iter-iter.json >/dev/null || fail "no row for /$cg"
done
# And what io.stat itself says, key by key (c has no line: 0).
for cg in iolat-i $cgs; do
	for key in rbytes wbytes rios wios dbytes dios; do
		want=$(iostat_key "$cg" iolat0 "$key")
		got=$(jq -r --arg cg "/$cg" --arg k "$key" \
			'.cgroups[] | select(.cgroup == $cg) | .iostat[$k]' /tmp/iter-iter.json)
		[ "$got" = "${want:-0}" ] || fail "/$cg $key: iterator $got, io.stat ${want:-0}"
	done
done
# Not all zero: a read, b wrote and read, the parent has both.
jqe '[.cgroups[] | select(.cgroup == "/iolat-i/a")][0].iostat |
	.rios > 0 and .rbytes == 4096 * .rios and .wios == 0' </tmp/iter-iter.json >/dev/null ||
	fail "a's reads: $(grep '"/iolat-i/a"' /tmp/iter-iter.counters)"
jqe '[.cgroups[] | select(.cgroup == "/iolat-i/b")][0].iostat | .wios > 0 and .rios > 0' \
	</tmp/iter-iter.json >/dev/null || fail "b's IO: $(grep '"/iolat-i/b"' /tmp/iter-iter.counters)"
jqe '[.cgroups[] | select(.cgroup == "/iolat-i/c")][0].iostat | .rios == 0 and .wios == 0' \
	</tmp/iter-iter.json >/dev/null || fail "c's IO: $(grep '"/iolat-i/c"' /tmp/iter-iter.counters)"
note "the iterator's counters are the files': $(wc -l </tmp/iter-iter.counters) rows"

# blkcg_debug_stats on: the keys only the files have, in the walk's
# report too, as in the files' (at rest: nothing changes them).
debug_stats 1
top dbg-iter
top dbg-files --iostat-files
debug_stats 0
iterator_used dbg-iter
jq -c '[.cgroups[] | {cgroup, depth, iostat_debug}] | sort_by(.cgroup) | .[]' \
	/tmp/iter-dbg-iter.json >/tmp/iter-dbg-iter.keys
jq -c '[.cgroups[] | {cgroup, depth, iostat_debug}] | sort_by(.cgroup) | .[]' \
	/tmp/iter-dbg-files.json >/tmp/iter-dbg-files.keys
cat /tmp/iter-dbg-iter.keys
jqe 'all(.cgroups[]; .iostat_debug != null and .depth == "max")' </tmp/iter-dbg-iter.json \
	>/dev/null || fail "debug stats on: a row without iostat_debug or depth with the iterator"
diff /tmp/iter-dbg-files.keys /tmp/iter-dbg-iter.keys >/tmp/iter.diff ||
	fail "debug stats: the iterator's report differs from the files' (< files, > iterator): $(cat /tmp/iter.diff)"

# io.pressure for the rows shown: -r 1 prints one row, with its PSI
# (the guest's kernels have CONFIG_PSI, on by default).
cat "$CG/iolat-i/io.pressure" >/dev/null 2>&1 ||
	fail "no io.pressure to read in this kernel (CONFIG_PSI, psi=1)"
top r1 -r 1
iterator_used r1
jqe '.rows_shown == 1 and .rows_total >= 4 and (.cgroups | length == 1) and
	.cgroups[0].io_pressure_some_pct != null and .cgroups[0].io_pressure_full_pct != null' \
	</tmp/iter-r1.json >/dev/null || fail "-r 1: the row printed has no PSI: $(cat /tmp/iter-r1.json)"
jqe 'all(.cgroups[]; .io_pressure_some_pct != null)' </tmp/iter-iter.json >/dev/null ||
	fail "a row printed without PSI: $(jq -c '[.cgroups[] | {cgroup, io_pressure_some_pct}]' /tmp/iter-iter.json)"
# -P: every row's, whatever is shown.
"$TOOLS/iolat-top" -q -P /tmp/iter.prom -d iolat0 -r 1 1 1 2>/tmp/iter-prom.err ||
	fail "iolat-top -q -P exited $?: $(cat /tmp/iter-prom.err)"
for cg in iolat-i $cgs; do
	grep -q "^iolat_io_pressure_some_ratio{cgroup=\"/$cg\"} " /tmp/iter.prom ||
		fail "-P -r 1: no PSI for /$cg: $(grep io_pressure_some /tmp/iter.prom)"
done
note "PSI: the row shown with -r 1, every row with -P"
