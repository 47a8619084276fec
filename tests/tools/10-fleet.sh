# iolat-top over 10,000 cgroups, each with an io.latency target, where one
# group misses its target beside a throttled sibling: every row is in
# -j, the two that need a look are among the first 20 rows of the text
# view (not the idle ones whose paths sort first), and SIGINT ends it 0.
# Not a timing: the cost at this scale is make bench-scale's.
. "$IOLAT_REPO/tests/lib.sh"
need_tools
n=10000
par=iolat-f

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
mm=$(majmin iolat0)
cg_create $par
echo "+io" >"$CG/$par/cgroup.subtree_control" || fail "cannot enable io in $par"
# One mkdir for all: a fork per cgroup takes minutes under TCG.  The
# idle groups' names (a...) sort before the two that matter.
(cd "$CG/$par" && seq -f 'a%.0f' 1 $n | xargs mkdir) || fail "cannot create $n cgroups"
for i in $(seq $n); do
	echo "$mm target=$((5000 + i % 100 * 10))" >"$CG/$par/a$i/io.latency" ||
		fail "cannot set a$i's target"
done
# The protected group cannot get 1 ms from a 2 ms device; its sibling
# floods with a looser target and is throttled for it.
cg_create $par/prot
io_latency_set $par/prot iolat0 1000
cg_create $par/bulk
io_latency_set $par/bulk iolat0 50000
fio_job $par/bulk bulk iolat0 600 "${FIO_BULK[@]}"
fio_job $par/prot prot iolat0 600 "${FIO_SYNC[@]}"
note "$((n + 2)) cgroups with targets under /$par"

# The text view: the last report's first rows.
"$TOOLS/iolat-top" -b -r 20 -d iolat0 1 >/tmp/fleet.txt 2>/tmp/fleet.err &
top=$!
bg_track $top
first_rows() {
	awk '/iolat-top  interval/ { n = 0; delete r } $1 == "iolat0" { r[++n] = $2 }
		END { for (i = 1; i <= n; i++) print r[i] }' /tmp/fleet.txt
}
both_first() {
	local rows
	rows=$(first_rows)
	grep -qx "/$par/prot" <<<"$rows" && grep -qx "/$par/bulk" <<<"$rows"
}
wait_for 240 both_first || {
	kill -0 $top 2>/dev/null || fail "iolat-top died: $(cat /tmp/fleet.err)"
	fail "prot and bulk not among the first 20 rows: $(first_rows | tr '\n' ' ')"
}
note "first rows: $(first_rows | head -4 | tr '\n' ' ')"
kill -INT $top
wait $top || fail "iolat-top -b exited $? on SIGINT: $(cat /tmp/fleet.err)"

# JSON: every row, none cut.
"$TOOLS/iolat-top" -j -r 20000 -d iolat0 1 3 >/tmp/fleet.json 2>/tmp/fleet-j.err ||
	fail "iolat-top -j exited $?: $(cat /tmp/fleet-j.err)"
tail -1 /tmp/fleet.json | jqe --arg p "/$par/" --argjson want $((n + 2)) \
	'.rows_total == .rows_shown and
	 ([.cgroups[] | select((.cgroup | startswith($p)) and .target_us != null)] | length) == $want' \
	>/dev/null || fail "iolat-top -j -r 20000: not every row: $(tail -1 /tmp/fleet.json |
		jq -c --arg p "/$par/" '{rows_total, rows_shown, targets: ([.cgroups[] |
		select((.cgroup | startswith($p)) and .target_us != null)] | length)}')"
note "-j: all $((n + 2)) rows with targets, $(tail -1 /tmp/fleet.json | jq .rows_total) in all"
