# Scenario 2, short: loose is throttled while tight reads, its depth is
# max again once tight is idle, within the wait, and its IOPS come back
# to near its rate alone.
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 2-work-conservation 10 IOLAT_AFTER_SECS=5 IOLAT_RECOVER_SECS=90

group_check /iolat-w/loose '.min_depth | type == "number"' "throttled below max depth"
group_check /iolat-w '.children.culprits == ["/iolat-w/tight"]' "tight the culprit"
grep -q '^depth max again [0-9]* s after tight stopped' "$SCEN_OUT" ||
	fail "loose's depth did not come back to max"
[ "$(rec_rows /iolat-w/loose | jq -rs 'last.depth')" = max ] ||
	fail "loose's last depth is not max"
# Recovered: back to 0.8 of its rate alone at least, both from io.stat
# over seconds of the same load, divided by the time that passed.  With
# tight reading, loose read 0.54-0.64 of alone (recordings; 2,172 at
# depth 5 against 5,425 alone); back at max depth 0.97.
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
