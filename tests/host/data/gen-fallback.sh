#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Writes the canned recordings of iolat-top's io.stat mode (a kernel
# without the iolatency events, or --no-events) for tests/host/14-why:
# fallback-NAME.top.json, one report a second, each line key by key as
# top_print_json() in tools/iolat-top-output.c prints it in that mode
# ("mode":"iostat", lost_events and every events-only key null).  A
# tight group with a 1 ms target beside a loose one without, on a
# non-rotational null_blk:
#   unreachable  blkcg_debug_stats on; tight misses every window in
#                progress (9 of 10 bios over target) while loose is
#                scaled to depth 1 and delayed
#   nodebug      the same workload, blkcg_debug_stats off: rates only
#   healthy      debug on; tight meets its target, loose at depth max
# Run it again after a change to iolat-top's JSON.
set -eu
cd "$(dirname "$0")"
T0=1764892800

# row CGROUP ID TARGET IOPS DEPTH STATE USE_DELAY DEBUG: DEBUG is the
# iostat_debug object or null; TARGET, DEPTH, USE_DELAY as JSON values.
row() {
	printf '{"device":"iolat0","rotational":false,"cgroup":"%s","cgroup_id":%s,"target_us":%s,"window":null,"iops":%s,"read_mbps":%s,"write_mbps":0.000,"depth":%s,"cookie":null,"state":"%s","use_delay":%s,"delay_charged_ms_per_s":null,"delay_paid_ms_per_s":null,"throttled_bios_per_s":null,"delay_charged_ms":null,"delay_paid_ms":null,"throttled_bios":null,"io_pressure_some_pct":%s,"io_pressure_full_pct":%s,"iostat_debug":%s,"interval":null}' \
		"$1" "$2" "$3" "$4" "$(awk -v i="$4" 'BEGIN { printf "%.3f", i * 4096 / 1e6 }')" \
		"$5" "$6" "$7" "$8" "$9" "${10}"
}
debug() { # MISSED TOTAL DELAY_MS
	printf '{"delay_ms":%s,"avg_lat_us":null,"win_ms":null,"missed":%s,"total":%s}' "$3" "$1" "$2"
}
report() { # SECS DEBUG_STATS ROWS...
	local t=$1 dbg=$2 sep= r
	shift 2
	printf '{"schema":1,"tool":"iolat-top","time":%s.000,"mode":"iostat","mode_reason":"this kernel has no iolatency tracepoints","debug_stats":%s,"interval_s":1.000,"lost_events":null,"rows_total":%d,"rows_shown":%d,"cgroups":[' \
		"$((T0 + t))" "$dbg" $# $#
	for r in "$@"; do
		printf '%s%s' "$sep" "$r"
		sep=,
	done
	printf ']}\n'
}

# unreachable: loose scaled 4, 2, then 1 and delayed from the 3rd second
out=fallback-unreachable.top.json
: >"$out"
for s in $(seq 1 20); do
	case $s in 1) d=4 st=throttled ud=0 dl=0.000 ;; 2) d=2 st=throttled ud=0 dl=0.000 ;;
		*) d=1 st=delayed ud=$((s < 8 ? s - 2 : 5)) dl=12.500 ;; esac
	report "$s" true \
		"$(row /iolat-p 300 null $((620 + s)) '"max"' unthrottled 0 null null "$(debug 0 0 0.000)")" \
		"$(row /iolat-p/loose 302 null $((600 - 5 * (s < 10 ? s : 10))) "$d" "$st" "$ud" 4.10 0.00 "$(debug 0 12 "$dl")")" \
		"$(row /iolat-p/tight 301 1000 $((20 + s % 3)) '"max"' unthrottled 0 61.20 58.90 "$(debug 9 10 0.000)")" >>"$out"
done

# nodebug: the same workload as io.stat shows it without debug stats
out=fallback-nodebug.top.json
: >"$out"
for s in $(seq 1 20); do
	report "$s" false \
		"$(row /iolat-p 300 null $((620 + s)) null unknown null null null null)" \
		"$(row /iolat-p/loose 302 null $((600 - 5 * (s < 10 ? s : 10))) null unknown null 4.10 0.00 null)" \
		"$(row /iolat-p/tight 301 1000 $((20 + s % 3)) null unknown null 61.20 58.90 null)" >>"$out"
done

# healthy: tight within its target, nobody throttled
out=fallback-healthy.top.json
: >"$out"
for s in $(seq 1 20); do
	report "$s" true \
		"$(row /iolat-p 300 null $((900 + s)) '"max"' unthrottled 0 null null "$(debug 0 0 0.000)")" \
		"$(row /iolat-p/loose 302 null 700 '"max"' unthrottled 0 0.50 0.00 "$(debug 0 60 0.000)")" \
		"$(row /iolat-p/tight 301 1000 $((200 + s % 3)) '"max"' unthrottled 0 1.20 0.40 "$(debug $((s % 2)) 20 0.000)")" >>"$out"
done
