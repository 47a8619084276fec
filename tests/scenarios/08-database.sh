# Scenario 8, short: a database's commits beside a bulk writer on ext4.
# Not a benchmark (make bench-db is): what the tools say of it.  Both
# phases committed; with db's target the recording shows it and its
# windows, bulk held below its full depth, and each of bulk's bios that
# slept for a slot submitted by writeback's flusher, not by bulk's own
# task: with cgroup writeback a buffered writer's IO is issued (and
# throttled) in a kernel worker, charged to the writer.
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
[ -x "$TOOLS/iolat-dbload" ] || fail "iolat-dbload not built in $TOOLS: run 'make tools'"
run_scenario 8-database 10

for phase in off on; do
	tps=$(summary_col $phase 2) p50=$(summary_col $phase 3) p99=$(summary_col $phase 4)
	awk -v t="${tps:-0}" 'BEGIN { exit !(t > 0) }' || fail "phase $phase: no commit ('$tps')"
	[ "${p50:-0}" -gt 0 ] && [ "$p99" -ge "$p50" ] ||
		fail "phase $phase: p50 '$p50', p99 '$p99'"
done
note "commits a second: $(summary_col off 2) off, $(summary_col on 2) on; p99 $(summary_col off 4) and $(summary_col on 4) us"
group_check /iolat-h/db '.target_us == 5000 and .windows > 0' "target 5000us, windows ended"
group_check /iolat-h/bulk '.target_us == null and .iops > 0 and .min_depth != "max"' \
	"no target, wrote, held below its full depth"
jq -se '[.[] | select(.event == "throttle" and .cgroup == "/iolat-h/bulk")] |
	length > 0 and all(.comm | startswith("kworker/"))' "$SNOOP_REC" >/dev/null ||
	fail "bulk's throttled bios not all its writeback's: $(jq -r 'select(.event == "throttle" and
		.cgroup == "/iolat-h/bulk") | .comm' "$SNOOP_REC" | sort | uniq -c | tr -s ' \n' ' ')"
note "bulk: $(jq -s '[.[] | select(.event == "throttle" and .cgroup == "/iolat-h/bulk")] | length' \
	"$SNOOP_REC") bios slept for a slot, each submitted by a kernel worker (writeback)"
note "db's windows: $(jq -sr '[.[] | select(.event == "window" and .cgroup == "/iolat-h/db")] |
	"\(map(select(.met)) | length) of \(length) met; bios over target in the met ones: \(map(select(.met) | .missed) | add) of \(map(select(.met) | .samples) | add)"' "$SNOOP_REC")"
