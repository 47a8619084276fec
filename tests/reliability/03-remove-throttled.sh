# Cgroups removed while throttled leave nothing behind.
#
# (1) The throttled group goes: in throttle_start's scenario, once loose is
#     held at depth 1 with use_delay on, its fio is killed and loose is
#     removed.  The removal resets the parent's scaling (iolatency_pd_offline
#     clears it for the siblings), so tight's next missed window scales down
#     from 1000000 again.  The parent and tight show no throttling in
#     io.stat; with tight stopped too (settle): no request left in flight
#     on the device, no task stuck in D state, new readers in a new
#     cgroup do IO and end, and tight and the parent can be removed.
# (2) The protected group goes: tight throttles loose (no target) and calm
#     (target 250 ms) to depth 1 with use_delay on (siblings_start), then
#     tight is killed and removed.  The culprit is forgotten at once:
#     loose and calm get depth max and use_delay 0 back within 30 s
#     (siblings_recovered), and the same checks follow (settle).
# On the debug kernel (CI's debug subset), (1) only: (2) removes a
# culprit, which reliability/07 does there too, mid-IO; (2) took about
# 150 s of this test's 400 s under KASAN.
. "$IOLAT_REPO/tests/lib.sh"

dev=iolat0
trace_events iolatency_depth iolatency_use_delay iolatency_scale_cookie
throttle_start
tight_id=$(cg_id iolat-p/tight)
wait_throttle delayed 120 $dev iolat-p/loose
note "io.stat of loose: $(cat "$CG/iolat-p/loose/io.stat")"
timed_wait 10 "loose's fio killed" cg_kill iolat-p/loose ||
	fail "loose's tasks did not die: $(cat "$CG/iolat-p/loose/cgroup.procs")"
trace_mark loose removed
timed_wait 10 "loose removed" cg_remove iolat-p/loose ||
	fail "cannot remove loose: $(cat "$CG/iolat-p/loose/cgroup.procs")"
rescaled() {
	trace_since loose removed |
		grep -q "iolatency_scale_cookie: \[$dev:/iolat-p\] cookie=1000000->[0-9]* step=-[0-9]* culprit_id=$tight_id "
}
timed_wait 20 "tight scaling down from 1000000 again" rescaled ||
	fail "no fresh scale-down after loose went: $(trace_since loose removed | tail -3)"
for p in iolat-p iolat-p/tight; do
	note "io.stat of $p: $(cat "$CG/$p/io.stat")"
	is_unthrottled $dev $p || fail "$p shows throttling after loose went"
done
settle $dev iolat-p

# (2) The protected group goes.
if kernel_kasan; then
	note "(2) left to reliability/07 on the debug kernel"
	exit 0
fi
siblings_start $dev
cg_kill iolat-p/tight || fail "tight's fio did not die"
trace_mark tight removed
timed_wait 10 "tight removed" cg_remove iolat-p/tight || fail "cannot remove tight"
siblings_recovered $dev "tight removed"
settle $dev iolat-p
