# iolat-top's io.stat mode against its events mode, over the same seconds
# of the noisy-neighbour scenario on null_blk (tight with a 1 ms target,
# loose flooding the device): with --no-events it shows what a kernel
# without the series shows - io.stat, io.latency, io.pressure - and
# reports the rest as unknown (null), never 0 or ok.  Run twice, with
# blkcg_debug_stats off and on; prints a comparison of the two modes.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

row() { jq -c --arg cg "$1" '.cgroups[] | select(.cgroup == $cg)'; }
# Keys only the events fill: null in every io.stat-mode row.
EVENTS_ONLY='.window == null and .cookie == null and .interval == null and
	.delay_charged_ms == null and .delay_paid_ms == null and .throttled_bios == null and
	.delay_charged_ms_per_s == null and .delay_paid_ms_per_s == null and
	.throttled_bios_per_s == null and (has("children") | not) and
	(has("scale_skips") | not) and .state != "ok" and .state != "throttling"'

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
loose_start iolat0
tight_start iolat0 1000
# Throttling under way: loose pinned at depth 1, as 02-top waits for it.
debug_stats 1
loose_at_1() { [ "$(iostat_key iolat-p/loose iolat0 depth)" = 1 ]; }
wait_for 120 loose_at_1 || fail "loose never reached depth 1"

# compare LABEL: both modes side by side, from the last report of each.
compare() {
	local ev fb cg
	ev=$(tail -1 /tmp/fb-events.json)
	fb=$(tail -1 /tmp/fb-iostat.json)
	echo "== $1: events | io.stat mode"
	for cg in /iolat-p /iolat-p/loose /iolat-p/tight; do
		printf '%-16s state %-11s | %-11s depth %-4s | %-4s use_delay %-4s | %-4s IOPS %-6s | %-6s win %-14s | %-14s PSI some %-5s\n' \
			"$cg" \
			"$(echo "$ev" | row "$cg" | jq -r .state)" "$(echo "$fb" | row "$cg" | jq -r .state)" \
			"$(echo "$ev" | row "$cg" | jq -r .depth)" "$(echo "$fb" | row "$cg" | jq -r .depth)" \
			"$(echo "$ev" | row "$cg" | jq -r .use_delay)" "$(echo "$fb" | row "$cg" | jq -r .use_delay)" \
			"$(echo "$ev" | row "$cg" | jq -r '.iops | floor? // "null"')" \
			"$(echo "$fb" | row "$cg" | jq -r '.iops | floor? // "null"')" \
			"$(echo "$ev" | row "$cg" | jq -r 'if .window then "\(.window.missed_pct // .window.mean_us)" else "-" end')" \
			"$(echo "$fb" | row "$cg" | jq -r 'if .iostat_debug then "\(.iostat_debug.missed)/\(.iostat_debug.total)" else "null" end')" \
			"$(echo "$fb" | row "$cg" | jq -r .io_pressure_some_pct)"
	done
	echo "   what only the events showed: $(echo "$ev" | row /iolat-p | jq -c '.children | {cookie, culprit, scale_downs}'), loose $(echo "$ev" | row /iolat-p/loose | jq -c '{cookie, throttled_bios_per_s, delay_charged_ms_per_s, interval: .interval.limited_pct}')"
}

# run SECS: both modes at once, over the same seconds.
run() {
	"$TOOLS/iolat-top" -j -d iolat0 1 "$1" >/tmp/fb-events.json 2>/tmp/fb-events.err &
	local ev=$!
	"$TOOLS/iolat-top" --no-events -j -d iolat0 1 "$1" >/tmp/fb-iostat.json 2>/tmp/fb-iostat.err &
	local fb=$!
	wait $ev || fail "iolat-top (events) exited $?: $(cat /tmp/fb-events.err)"
	wait $fb || fail "iolat-top --no-events exited $?: $(cat /tmp/fb-iostat.err)"
	[ "$(wc -l </tmp/fb-iostat.json)" = "$1" ] || fail "--no-events: $(wc -l </tmp/fb-iostat.json) reports, want $1"
	jq -e . /tmp/fb-iostat.json >/dev/null || fail "--no-events printed invalid JSON"
}

# ---- blkcg_debug_stats off: rates, targets and PSI only ----
debug_stats 0
run 6
grep -q "no-events: io.stat mode.*blkcg_debug_stats off.*echo 1 >" /tmp/fb-iostat.err ||
	fail "--no-events did not say its mode and debug stats on stderr: $(cat /tmp/fb-iostat.err)"
last=$(tail -1 /tmp/fb-iostat.json)
echo "$last" | jq -e '.mode == "iostat" and .mode_reason == "--no-events" and
	.debug_stats == false and .lost_events == null' >/dev/null ||
	fail "debug off: record head wrong: $(echo "$last" | head -c 300)"
echo "$last" | jq -e "[.cgroups[] | select(($EVENTS_ONLY) | not)] | length == 0" >/dev/null ||
	fail "debug off: an events-only key is not null: $last"
echo "$last" | row /iolat-p/loose | jq -e '.depth == null and .use_delay == null and
	.state == "unknown" and .iostat_debug == null and .iops > 0' >/dev/null ||
	fail "debug off: loose: $(echo "$last" | row /iolat-p/loose)"
echo "$last" | row /iolat-p/tight | jq -e '.target_us == 1000 and .iops > 0' >/dev/null ||
	fail "debug off: tight: $(echo "$last" | row /iolat-p/tight)"
# PSI where the kernel has it (CONFIG_PSI, psi not 0)
if cat "$CG/iolat-p/tight/io.pressure" >/dev/null 2>&1; then
	echo "$last" | row /iolat-p/tight | jq -e '.io_pressure_some_pct >= 0 and .io_pressure_full_pct >= 0' >/dev/null ||
		fail "io.pressure readable, PSI null: $(echo "$last" | row /iolat-p/tight)"
else
	echo "$last" | row /iolat-p/tight | jq -e '.io_pressure_some_pct == null' >/dev/null ||
		fail "no io.pressure, PSI not null"
	note "no PSI in this kernel: io_pressure_* null, as they should be"
fi
ev=$(tail -1 /tmp/fb-events.json)
echo "$ev" | jq -e '.mode == "events" and .mode_reason == null and .lost_events == 0' >/dev/null ||
	fail "events mode record head wrong: $(echo "$ev" | head -c 300)"
# (its depth may be null: pinned at 1 before it started, no event since)
echo "$ev" | row /iolat-p/loose | jq -e '.iops > 0' >/dev/null ||
	fail "events mode: no loose row: $ev"
compare "blkcg_debug_stats off"
# Its iolat-why: nearly everything unchecked, depth_unknown said.
"$TOOLS/iolat-why" -j --top /tmp/fb-iostat.json >/tmp/fb-why.json
jq -e '(.unchecked | index("unreachable_target")) and (.unchecked | index("flapping")) and
	([.findings[].rule] - ["depth_unknown", "target_not_as_meant"] | length == 0)' /tmp/fb-why.json >/dev/null ||
	fail "iolat-why on the debug-off recording: $(cat /tmp/fb-why.json)"
note "iolat-why, debug off: unchecked $(jq -c .unchecked /tmp/fb-why.json), found $(jq -c '[.findings[].rule]' /tmp/fb-why.json)"

# ---- blkcg_debug_stats on: depth, use_delay, io.stat's window ----
debug_stats 1
run 8
last=$(tail -1 /tmp/fb-iostat.json)
echo "$last" | jq -e '.mode == "iostat" and .debug_stats == true' >/dev/null ||
	fail "debug on: record head wrong"
echo "$last" | jq -e "[.cgroups[] | select(($EVENTS_ONLY) | not)] | length == 0" >/dev/null ||
	fail "debug on: an events-only key is not null: $last"
ev=$(tail -1 /tmp/fb-events.json)
# The same depth and use_delay as the events say, from io.stat.
fl=$(echo "$last" | row /iolat-p/loose)
el=$(echo "$ev" | row /iolat-p/loose)
echo "$fl" | jq -e --argjson e "$el" '.depth == $e.depth and .depth == 1 and
	.state == "delayed" and .use_delay >= 1 and .iostat_debug.total != null' >/dev/null ||
	fail "debug on: loose differs from the events' view: io.stat $fl, events $el"
echo "$last" | row /iolat-p/tight | jq -e '.iostat_debug.total != null and
	.iostat_debug.missed != null and .iostat_debug.avg_lat_us == null and .depth == "max" and
	.state == "unthrottled"' >/dev/null ||
	fail "debug on: tight: $(echo "$last" | row /iolat-p/tight)"
# IOPS over the same seconds: the same io.stat, so close.
fi_=$(echo "$fl" | jq .iops)
ei=$(echo "$el" | jq .iops)
awk -v a="$fi_" -v b="$ei" 'BEGIN { exit !(a > 0 && b > 0 && a / b > 0.5 && a / b < 2) }' ||
	fail "loose IOPS: io.stat mode $fi_, events mode $ei"
compare "blkcg_debug_stats on"
"$TOOLS/iolat-why" -j --top /tmp/fb-iostat.json >/tmp/fb-why.json
jq -e '(.unchecked | index("unreachable_target") | not) and (.unchecked | index("flapping"))' \
	/tmp/fb-why.json >/dev/null || fail "iolat-why on the debug-on recording: $(cat /tmp/fb-why.json)"
note "iolat-why, debug on: unchecked $(jq -c .unchecked /tmp/fb-why.json), found $(jq -c '[.findings[].rule]' /tmp/fb-why.json)"
# The text view says the mode, once a header.
"$TOOLS/iolat-top" --no-events -b -d iolat0 1 1 >/tmp/fb-text.out 2>/dev/null ||
	fail "iolat-top --no-events -b exited $?"
grep -q "mode: io.stat only (--no-events)" /tmp/fb-text.out || fail "text header: $(head -3 /tmp/fb-text.out)"
grep -E '^iolat0 +/iolat-p/loose ' /tmp/fb-text.out
debug_stats 0
