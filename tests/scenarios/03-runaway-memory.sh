# Scenario 3, short: the protected reader completed IO with io.latency off
# and on, while the hog swapped; with it on, the hog's swap IO charged it
# induced delay and its tasks slept some of it off.
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 3-runaway-memory 12

for phase in off on; do
	iops=$(summary_col $phase 2) swap=$(summary_col $phase 5)
	[ "${iops:-0}" -gt 0 ] || fail "phase $phase: db did no IO ('$iops')"
	# Unthrottled, the runaway must really swap while db reads.
	[ $phase = on ] || awk -v s="$swap" 'BEGIN { exit !(s > 0) }' ||
		fail "phase off: the hog swapped out '$swap' MiB/s during db's run"
	note "phase $phase: db $iops IOPS, hog swapped out $swap MiB/s"
done
group_check /iolat-r/hog '.target_us == 10000 and .max_use_delay >= 1' "target 10000us, use_delay on"
group_check /iolat-r/hog '.charged_ms > 0 and .paid_ms > 0' "charged delay and paid some"
group_check /iolat-r/db '.target_us == 1000 and .windows_missed > 0' "db missed its target"
why_expect unreachable_target /iolat-r/db
