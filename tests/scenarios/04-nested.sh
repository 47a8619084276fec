# Scenario 4, short: the cookie moved in /iolat-n (for web) and in
# /iolat-n/web (for a), never in /iolat-n/batch; b and batch were
# throttled, a (the culprit) and c and d (below batch) never were.
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 4-nested 15

group_check /iolat-n/web '.children.culprits == ["/iolat-n/web/a"] and
	.children.scale_downs >= 1' "children scaled down for a"
group_check /iolat-n '.children.culprits == ["/iolat-n/web"] and
	.children.scale_downs >= 1' "children scaled down for web"
group_check /iolat-n/batch '.children == null' "children's cookie never moved"
for g in web/b batch; do
	group_check "/iolat-n/$g" '.min_depth | type == "number"' "throttled below max depth"
done
for g in web/a batch/c batch/d; do
	group_check "/iolat-n/$g" '.min_depth == "max"' "never throttled"
done
grep -q '^/iolat-n/batch: children.s cookie never moved' "$SCEN_OUT" ||
	fail "the summary does not say batch's cookie never moved"
