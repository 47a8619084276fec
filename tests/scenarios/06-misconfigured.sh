# Scenario 6, short: each misconfiguration is iolat-why's finding, in one
# run of four devices with blkcg_debug_stats off: depth_unknown naming
# iolat0's loose (held at depth 1 since before iolat-top started), a db
# whose noisy neighbour is under another parent (nothing_to_throttle), a
# target written as 1 for 1 ms (target_not_as_meant), a group whose
# misses a tighter sibling's own (tighter_sibling_owns_scaling), one
# read in 16 over target in every window (ten_percent_rule), and two
# siblings with one target, the second never throttled for the first
# (equal_targets).
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 6-misconfigured 15

# What the findings rest on.
group_check /iolat-u/loose '.min_depth == "?"' "depth never known (blkcg_debug_stats off)"
group_check /iolat-x/db '.target_us == 1' "target 1us"
group_check /iolat-a/db '.windows > 0 and .windows_missed * 2 >= .windows' "missed half of its windows or more"
group_check /iolat-d/mid '.target_us == 3000 and .windows_missed > 0' "target 3000us, missed windows"
line=$(grep '^iolat3 /iolat-t/db' "$SCEN_OUT") || fail "no summary of /iolat-t/db's windows"
note "$line"

why_names depth_unknown /iolat-u/loose
why_expect nothing_to_throttle /iolat-a/db
why_expect target_not_as_meant /iolat-x/db
why_expect tighter_sibling_owns_scaling /iolat-d/mid
group_check /iolat-e/batch '.target_us == 3000 and .protected_skips >= 3' \
	"target 3000us, 3 scale-downs or more not followed (protected)"
why_names equal_targets /iolat-e/batch
# db's case rests on the emulated timers: its 15 fast reads complete
# in 10 ms, 8 ms under its target, and a loaded host made enough of them
# late that 43 of 71 windows missed in one run (2 of 72 in another).
# Either way the rule is checked: found when db missed at most 10% of
# its windows (protection never acted on its tail), not found when the
# controller did act on db's misses.
if rec_group /iolat-t/db | jqe '.windows >= 10 and .windows_missed * 10 <= .windows' >/dev/null; then
	note "/iolat-t/db: 10 windows or more, at most 10% missed"
	why_expect ten_percent_rule /iolat-t/db
else
	note "/iolat-t/db missed more than 10% of its windows here ($(rec_group /iolat-t/db | jq -c '{windows, windows_missed}')): the controller acted, ten_percent_rule must not be found"
	why_args
	out=$("$TOOLS/iolat-why" -j "${WHY_ARGS[@]}")
	echo "$out" | jqe 'any(.findings[]; .rule == "ten_percent_rule" and .cgroup == "/iolat-t/db") | not' \
		>/dev/null || fail "ten_percent_rule for /iolat-t/db, which missed over 10% of its windows"
fi
