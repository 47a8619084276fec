# Scenario 1, short: the protected reader did IO in both phases, its
# percentiles are sane, and the target protects it; the recording shows
# tight's target and its windows judged by misses (null_blk is
# non-rotational), and loose's IO.
. "$IOLAT_REPO/guest/scenarios/lib.sh"
need_tools
run_scenario 1-noisy-neighbour 8

for phase in off on; do
	iops=$(summary_col $phase 2) p50=$(summary_col $phase 3) p99=$(summary_col $phase 4)
	[ "${iops:-0}" -gt 0 ] || fail "phase $phase: tight did no IO ('$iops')"
	[ "${p50:-0}" -gt 0 ] && [ "$p99" -ge "$p50" ] ||
		fail "phase $phase: p50 '$p50', p99 '$p99'"
done
# Protected: with the target, tight's median latency falls by a quarter
# and its IOPS rise by a quarter at least (measured: 3588 -> 1335 us,
# 205 -> 453 IOPS); a target that throttles no one fails both.
p50_off=$(summary_col off 3) p50_on=$(summary_col on 3)
iops_off=$(summary_col off 2) iops_on=$(summary_col on 2)
note "tight: p50 $p50_off -> $p50_on us, $iops_off -> $iops_on IOPS"
[ $((p50_on * 4)) -le $((p50_off * 3)) ] ||
	fail "tight not protected: p50 $p50_on us with its target, $p50_off us without"
[ $((iops_on * 4)) -ge $((iops_off * 5)) ] ||
	fail "tight not protected: $iops_on IOPS with its target, $iops_off without"
group_check /iolat-p/tight '.target_us == 1500 and .windows > 0' "target 1500us, windows ended"
jq -se 'map(.cgroups[] | select(.cgroup == "/iolat-p/tight" and .window != null)) |
	length > 0 and all(.window.stat == "missed" and .rotational == false)' "$REC" >/dev/null ||
	fail "tight's windows are not judged by misses"
group_check /iolat-p/loose '.target_us == null and .iops > 0' "no target, did IO"
