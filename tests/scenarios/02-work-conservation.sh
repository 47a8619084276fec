# Scenario 2, short: loose is throttled while tight reads, its depth is
# max again once tight is idle, within the wait, and its IOPS come back
# to near its rate alone.  Tight's target is 4000us here, not the
# scenario's 3000: at 3000 (2 ms completions, and TCG's own latency on
# top) some runs held loose at depth 2-5, 0.19-0.23 of its rate alone,
# with 58-79% of the cookie's moves reversing: flapping, which iolat-why
# then rightly finds, in a test that needs a healthy protected run.  At
# 3500 and 4000, two runs each: depth 5-11, 37-39% reversing at 4000.
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 2-work-conservation 10 IOLAT_TARGET_US=4000 IOLAT_AFTER_SECS=5 IOLAT_RECOVER_SECS=90

group_check /iolat-w/loose '.min_depth | type == "number"' "throttled below max depth"
group_check /iolat-w '.children.culprits == ["/iolat-w/tight"]' "tight the culprit"
grep -q '^depth max again [0-9]* s after tight stopped' "$SCEN_OUT" ||
	fail "loose's depth did not come back to max"
[ "$(rec_rows /iolat-w/loose | jq -rs 'last.depth')" = max ] ||
	fail "loose's last depth is not max"
# Recovered: back to 0.8 of its rate alone at least, both from io.stat
# over seconds of the same load, divided by the time that passed.  With
# tight reading, loose read 0.61-0.75 of alone (iolat-top's rates, four
# runs at 3500-4000us); back at max depth 0.89-1.36 (TCG's pace drifts:
# the scenario measures up to three times more when short).  The depth
# checks above are what fail a loose still held.
alone=$(summary_col alone 2) during=$(summary_col contention 2) after=$(summary_col after 2)
note "loose IOPS: $alone alone, $during during contention, $after after"
[ "${alone:-0}" -gt 0 ] || fail "no IOPS of loose alone"
[ "${after:-0}" -gt 0 ] && [ $((after * 10)) -ge $((alone * 8)) ] ||
	fail "loose's IOPS after ($after) under 0.8 of its rate alone ($alone)"

# The healthy protected run: while tight read, the controller did its
# work (tight the culprit, loose throttled and released, tight missing now
# and then): iolat-why finds nothing there, in iolat-top's and
# iolat-snoop's recordings from the start to the report in which tight's
# last window is counted.  (What follows, the recovery, may be
# slow_recovery when it takes 10 s or more: printed, not asserted.)  Under
# TCG tight's met windows may have 1-3% of their bios over target in a
# run where it rarely misses: what ten_percent_rule says from 1% on, true
# of such a run, so noted; any other finding fails.
[ -s "$SNOOP_REC" ] || fail "no iolat-snoop recording $SNOOP_REC"
t_last=$(rec_rows /iolat-w/tight | jq -s '(map(.windows // 0) | max) as $m |
	map(select((.windows // 0) == $m)) | first.t')
[ "$t_last" != null ] || fail "no window of tight in the recording"
why_none "$t_last" ten_percent_rule
