# Scenario 7, short: iolat-why finds, from iolat-top's and iolat-snoop's
# recordings of one run, the flapping of /iolat-f's children (2 tags: the
# cookie goes down and back up every second), the cookie of /iolat-c's
# children at its floor with tight still missing, and once tight stopped,
# loose's slow way back to depth max (slow_recovery).
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 7-scaling 8

[ -s "$SNOOP_REC" ] || fail "no iolat-snoop recording $SNOOP_REC"
group_check /iolat-f '.children.scale_downs >= 5 and .children.scale_ups >= 5' "5 scale-downs and 5 scale-ups or more"
group_check /iolat-c/loose '.min_depth == 1 and .max_use_delay >= 1' "throttled to depth 1, use_delay on"
secs=$(sed -n 's/^iolat1: loose depth max again \([0-9]*\) s after tight stopped$/\1/p' "$SCEN_OUT")
[ -n "$secs" ] || fail "loose's depth did not come back to max on iolat1"
note "loose's depth max again $secs s after tight stopped"

why_expect flapping /iolat-f
why_expect cookie_at_floor /iolat-c
why_expect slow_recovery /iolat-c
