# Scenario 5, short.  (a) An unreachable target: tight misses nearly every
# window, batch is pinned at depth 1 with use_delay on and reads far less.
# (b) Of two swapping hogs, the one with no target is throttled too but
# never charged nor pays; the one with a target is charged.  iolat-snoop
# and the bpftrace programs say the same (the programs not with
# IOLAT_BPFTRACE=0, as in the default run: tracepoints/06 runs the
# scripts).
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
bt=${IOLAT_BPFTRACE:-1}
run_scenario 5-misbehaviour 12 IOLAT_BPFTRACE="$bt"
out=${IOLAT_OUT:-/tmp}/5-misbehaviour

group_check /iolat-m/tight '.windows > 0 and .windows_missed * 10 >= .windows * 9' "missed 90% of windows or more"
group_check /iolat-m '.children.culprits == ["/iolat-m/tight"]' "tight the culprit"
group_check /iolat-m/batch '.min_depth == 1 and .max_use_delay >= 1' "pinned at depth 1, use_delay on"
alone=$(sed -n 's/^batch IOPS: \([0-9]*\) alone, \([0-9]*\) with.*/\1/p' "$SCEN_OUT")
pinned=$(sed -n 's/^batch IOPS: \([0-9]*\) alone, \([0-9]*\) with.*/\2/p' "$SCEN_OUT")
[ -n "$alone" ] && [ $((pinned * 4)) -le $((alone * 3)) ] ||
	fail "batch read $pinned IOPS pinned, $alone alone: want at most 75%"

group_check /iolat-h/hog-none '.target_us == null and .max_use_delay >= 1' "no target, use_delay on"
group_check /iolat-h/hog-none '.charged_ms == 0 and .paid_ms == 0' "never charged, never paid"
group_check /iolat-h/hog-loose '.target_us == 10000 and .charged_ms > 0' "target 10000us, charged"

grep -q '/iolat-m/batch  *use_delay  *induced delay ON' "$out.snoop.txt" ||
	fail "iolat-snoop: no use_delay ON for batch"
grep -q '/iolat-h/hog-none  *use_delay  *induced delay ON' "$out.snoop.txt" ||
	fail "iolat-snoop: no use_delay ON for hog-none"
! grep -q '/iolat-h/hog-none  *delay_pay' "$out.snoop.txt" ||
	fail "iolat-snoop: hog-none paid delay"
if [ "$bt" != 0 ]; then
	grep -q '/iolat-m/batch' "$out.depth1.txt" || fail "iolat-depth1.bt: batch not shown"
	grep -q '@charged_us\[/iolat-h/hog-loose\]: [1-9]' "$out.charges.txt" ||
		fail "bpftrace: no delay charged to hog-loose"
	! grep -q '@charged_us\[/iolat-h/hog-none\]' "$out.charges.txt" ||
		fail "bpftrace: delay charged to hog-none"
	grep -q '@use_delay_on\[/iolat-h/hog-none\]' "$out.charges.txt" ||
		fail "bpftrace: use_delay never on for hog-none"
else
	note "IOLAT_BPFTRACE=0: the bpftrace programs not run"
fi
why_expect unreachable_target /iolat-m/tight
why_expect no_charge_without_target /iolat-h/hog-none
