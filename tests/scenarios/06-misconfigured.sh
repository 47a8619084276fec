# Scenario 6, short: each misconfiguration is iolat-why's finding, in one
# run of four devices with blkcg_debug_stats off: depth_unknown naming
# iolat0's loose (held at depth 1 since before iolat-top started), a db
# whose noisy neighbour is under another parent (nothing_to_throttle), a
# target written as 1 for 1 ms (target_not_as_meant), a group whose
# misses a tighter sibling's own (tighter_sibling_owns_scaling), and one
# read in 16 over target in every window (ten_percent_rule).
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 6-misconfigured 15

# What the findings rest on.
group_check /iolat-u/loose '.min_depth == "?"' "depth never known (blkcg_debug_stats off)"
group_check /iolat-x/db '.target_us == 1' "target 1us"
group_check /iolat-a/db '.windows > 0 and .windows_missed * 2 >= .windows' "missed half of its windows or more"
group_check /iolat-d/mid '.target_us == 3000 and .windows_missed > 0' "target 3000us, missed windows"
group_check /iolat-t/db '.windows >= 10 and .windows_missed * 10 <= .windows' "10 windows or more, at most 10% missed"
line=$(grep '^iolat3 /iolat-t/db' "$SCEN_OUT") || fail "no summary of /iolat-t/db's windows"
note "$line"

why_names depth_unknown /iolat-u/loose
why_expect nothing_to_throttle /iolat-a/db
why_expect target_not_as_meant /iolat-x/db
why_expect tighter_sibling_owns_scaling /iolat-d/mid
why_expect ten_percent_rule /iolat-t/db
