# iolat-top --json during the noisy-neighbour scenario on null_blk: the
# throttled group's depth and state, the protected group's target and
# window, the culprit on the parent row, and rows leaving with their
# cgroups.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
# A target set before iolat-top starts is read from io.latency.
cg_create iolat-q/idle
io_latency_set iolat-q/idle iolat0 7000
"$TOOLS/iolat-top" -j -d iolat0 1 >/tmp/top.json 2>/tmp/top.err &
top=$!
bg_track $top
# Attached, the tree read, the baseline taken: its first report.
wait_for 60 test -s /tmp/top.json || fail "iolat-top: no report in 60 s: $(cat /tmp/top.err)"
kill -0 $top 2>/dev/null || fail "iolat-top died: $(cat /tmp/top.err)"
loose_start iolat0
tight_start iolat0 1000
row() { jq -c --arg cg "$1" '.cgroups[] | select(.cgroup == $cg)'; }
# Wait for the throttled group to be pinned at depth 1 with delay on.
wait_for 120 top_loose_pinned /tmp/top.json ||
	{ tail -2 /tmp/top.json; fail "loose never showed depth 1, delayed"; }
sleep 2
last=$(tail -1 /tmp/top.json)
echo "$last" | jq -c '.cgroups[] | {cgroup, state, depth, target_us, window, children}'

tight=$(echo "$last" | row /iolat-p/tight)
[ -n "$tight" ] || fail "no row for /iolat-p/tight"
echo "$tight" | jqe '.target_us == 1000 and .window.stat == "missed" and
	.window.met == false and .window.missed_pct >= 50 and .window.samples > 0 and
	.state == "throttling" and .device == "iolat0" and .rotational == false' >/dev/null ||
	fail "tight row wrong: $tight"
loose=$(echo "$last" | row /iolat-p/loose)
echo "$loose" | jqe '.target_us == null and .depth == 1 and .use_delay >= 1 and
	.cookie < 1000000 and .throttled_bios_per_s > 0 and .iops > 0' >/dev/null ||
	fail "loose row wrong: $loose"
parent=$(echo "$last" | row /iolat-p)
echo "$parent" | jqe '.children.culprit == "/iolat-p/tight" and
	.children.cookie < 1000000 and .children.scale_downs >= 4' >/dev/null ||
	fail "parent row wrong: $parent"
# cgroup_id is the cgroup's inode.
echo "$loose" | jqe --argjson id "$(cg_id iolat-p/loose)" '.cgroup_id == $id' >/dev/null ||
	fail "cgroup_id of loose is not its inode"

echo "$last" | row /iolat-q/idle | jqe '.target_us == 7000 and .iops == 0' >/dev/null ||
	fail "no row for the target set before iolat-top started"
# Targets changed while it runs (no cgroup created, so no new walk of the
# tree) come from the iolatency_target event.
io_latency_set iolat-p/tight iolat0 3000
echo "$(majmin iolat0) target=max" >"$CG/iolat-q/idle/io.latency" ||
	fail "cannot remove the target of iolat-q/idle"
targets_changed() {
	tail -1 /tmp/top.json | jqe '[.cgroups[] | select(.cgroup == "/iolat-p/tight")][0].target_us == 3000 and
		([.cgroups[] | select(.cgroup == "/iolat-q/idle" and .target_us != null)] | length == 0)' >/dev/null
}
wait_for 10 targets_changed ||
	{ tail -1 /tmp/top.json; fail "target changes not shown"; }

# Rows vanish with their cgroups.
cg_remove iolat-p || fail "cannot remove the cgroups"
rows_gone() {
	tail -1 /tmp/top.json |
		jqe '[.cgroups[] | select(.cgroup | startswith("/iolat-p"))] | length == 0' >/dev/null
}
timed_wait 5 "the removed cgroups' rows gone" rows_gone ||
	{ tail -1 /tmp/top.json; fail "rows of removed cgroups still shown"; }
# And come back with new ones: a new cgroup with a target.
tight_start iolat0 5000 5
new_row() {
	tail -1 /tmp/top.json | jqe 'any(.cgroups[]; .cgroup == "/iolat-p/tight" and .target_us == 5000)' >/dev/null
}
wait_for 20 new_row ||
	fail "a new cgroup's row did not appear"
kill -INT $top
wait $top || fail "iolat-top exited $? on SIGINT"
jqe true </tmp/top.json >/dev/null || fail "iolat-top printed invalid JSON"
[ "$(jq -s 'map(.lost_events) | max' /tmp/top.json)" = 0 ] || fail "iolat-top lost events"
note "$(wc -l </tmp/top.json) reports"
