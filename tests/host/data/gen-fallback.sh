#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Writes the canned recordings of iolat-top's io.stat mode (a kernel
# without the iolatency events, or --no-events) for tests/host/14-why:
# fallback-NAME.top.json, one report a second, each line key by key as
# top_print_json() in tools/iolat-top-output.c prints it in that mode
# ("mode":"iostat", the "functions" it traced, every events-only key
# null, the delay charged and paid null unless their function is
# attached), and fallback-swap.snoop.json as iolat-snoop -a -j prints
# it there (snoop_print_mode()'s "mode" record, then "charge" and
# "sleep" records).  A tight group with a 1 ms target beside a loose
# one without, on a non-rotational null_blk:
#   unreachable  blkcg_debug_stats on; tight misses every window in
#                progress (9 of 10 bios over target) while loose is
#                scaled to depth 1 and delayed
#   nodebug      the same workload, blkcg_debug_stats off: rates only
#   healthy      debug on; tight meets its target, loose at depth max
# (neither function attached in these three: a kernel that inlines
# them).  Then, as scenario 5 (b) on such a kernel: tight reads with a
# 1 ms target, hog-loose swaps with a 10 ms target and is charged delay
# and sleeps it off, hog-none swaps without a target, delayed, never
# charged:
#   swap         debug on, both functions attached
#   swap-nofn    the same, neither attached: the delay unknown
#   swap.snoop   iolat-snoop -a: the charges and sleeps of hog-loose
# And with the state reader (io.latency's own state through BTF), debug
# stats off: depths, use_delay, cookies and the parent's culprit from its
# sample, no window:
#   state        the unreachable workload, neither function attached
#   swap-state   the swap, both attached
# Run it again after a change to iolat-top's or iolat-snoop's JSON.
set -eu
cd "$(dirname "$0")"
T0=1764892800
INLINED='{"blkcg_add_delay":"not in /proc/kallsyms (inlined)","blkcg_maybe_throttle_current":"not in /proc/kallsyms (inlined)"}'
ATTACHED='{"blkcg_add_delay":"attached","blkcg_maybe_throttle_current":"attached"}'
FUNCS=$INLINED
DZ=null		# the delay's keys in a row without its own: 0.000 when attached
STATE=		# set: the state reader was used (state_reader, each row's sample)

# row CGROUP ID TARGET IOPS DEPTH STATE USE_DELAY PSI_SOME PSI_FULL DEBUG
#     [WRITE_MBPS CHG/s PAID/s CHARGED PAID]: DEBUG is the iostat_debug
# object or null; TARGET, DEPTH, USE_DELAY, the delay's as JSON values
# (null: its function not attached).
row() {
	printf '{"device":"iolat0","rotational":false,"cgroup":"%s","cgroup_id":%s,"target_us":%s,"window":null,"iops":%s,"read_mbps":%s,"write_mbps":%s,"depth":%s,"cookie":null,"state":"%s","use_delay":%s,"delay_charged_ms_per_s":%s,"delay_paid_ms_per_s":%s,"throttled_bios_per_s":null,"delay_charged_ms":%s,"delay_paid_ms":%s,"throttled_bios":null,"io_pressure_some_pct":%s,"io_pressure_full_pct":%s,"iostat_debug":%s,"interval":null}' \
		"$1" "$2" "$3" "$4" "$(awk -v i="$4" 'BEGIN { printf "%.3f", i * 4096 / 1e6 }')" \
		"${11:-0.000}" "$5" "$6" "$7" "${12:-$DZ}" "${13:-$DZ}" "${14:-$DZ}" "${15:-$DZ}" \
		"$8" "$9" "${10}"
}
debug() { # MISSED TOTAL DELAY_MS
	printf '{"delay_ms":%s,"avg_lat_us":null,"win_ms":null,"missed":%s,"total":%s}' "$3" "$1" "$2"
}
sample() { # INFLIGHT DELAY_MS ACC_SAMPLES ACC_MISSED: the state reader's, non-rotational
	printf '{"inflight":%s,"delay_ms":%s,"win_ms":100,"lat_avg_us":null,"acc_samples":%s,"acc_missed":%s,"acc_mean_us":null}' \
		"$1" "$2" "$3" "$4"
}
# children COOKIE CULPRIT ID: a parent's, from the state reader's sample
# (its counts null: a sample counts nothing)
children() {	# COOKIE CULPRIT ID [SCALE_LAT_US]
	printf '{"cookie":%s,"culprit":"%s","culprit_id":%s,"scale_lat_us":%s,"culprit_status":"named","scale_downs":null,"scale_ups":null,"timer_ups":null,"culprits_forgotten":null,"resets":null,"last_scale":null,"last_scale_by":null}' \
		"$1" "$2" "$3" "${4:-1000}"
}
# children_gone COOKIE: a parent's whose culprit is no live child (the
# state reader has its address, not its id)
children_gone() {
	printf '{"cookie":%s,"culprit":null,"culprit_id":null,"scale_lat_us":1000,"culprit_status":"gone","scale_downs":null,"scale_ups":null,"timer_ups":null,"culprits_forgotten":null,"resets":null,"last_scale":null,"last_scale_by":null}' \
		"$1"
}
# srow COOKIE SAMPLE CHILDREN ROW-ARGS...: row() with the state reader's
# cookie and sample, and a parent's children ("": none)
srow() {
	local cookie=$1 smp=$2 ch=$3 r
	shift 3
	r=$(row "$@")
	r=${r/\"cookie\":null/\"cookie\":$cookie}
	r=${r%\"interval\":null\}}
	printf '%s"sample":%s,"interval":null%s}' "$r" "$smp" "${ch:+,\"children\":$ch}"
}
report() { # SECS DEBUG_STATS ROWS...: FUNCS the functions object
	local t=$1 dbg=$2 sep= r lost=null
	shift 2
	[ "$FUNCS" = "$INLINED" ] || lost=0
	printf '{"schema":1,"tool":"iolat-top","time":%s.000,"mode":"iostat","mode_reason":"this kernel has no iolatency tracepoints","debug_stats":%s,"functions":%s%s,"interval_s":1.000,"lost_events":%s,"rows_total":%d,"rows_shown":%d,"cgroups":[' \
		"$((T0 + t))" "$dbg" "$FUNCS" "${STATE:+,\"state_reader\":\"used\"}" "$lost" $# $#
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

# swap: hog-loose (10 ms target) charged 40 ms a second, sleeping 30 ms
# of it; hog-none (no target) delayed at depth 1, writing 8 MB/s of
# swap, never charged; tight within its target.  With and without the
# functions.
swap() { # FILE FUNCS
	local out=$1 s c p rate prate ch pa
	FUNCS=$2
	DZ=0.000
	[ "$FUNCS" = "$INLINED" ] && DZ=null
	: >"$out"
	for s in $(seq 1 20); do
		c=$((40 * (s - 1))).000 p=$((30 * (s - 1))).000 rate=40.000 prate=30.000
		ch=0.000 pa=0.000
		[ "$s" = 1 ] && rate=0.000 prate=0.000
		if [ "$FUNCS" = "$INLINED" ]; then
			c=null p=null rate=null prate=null ch=null pa=null
		fi
		report "$s" true \
			"$(row /iolat-h 929 null $((400 + s)) '"max"' unthrottled 0 null null "$(debug 0 0 0.000)")" \
			"$(row /iolat-h/tight 930 1000 $((150 + s % 3)) '"max"' unthrottled 0 2.10 0.80 "$(debug $((s % 2)) 20 0.000)")" \
			"$(row /iolat-h/hog-loose 932 10000 120 1 delayed 2 30.50 12.00 "$(debug 0 30 45.000)" 6.000 "$rate" "$prate" "$c" "$p")" \
			"$(row /iolat-h/hog-none 933 null 110 1 delayed 3 35.00 15.00 "$(debug 0 25 0.000)" 8.000 "$ch" "$ch" "$ch" "$pa")" >>"$out"
	done
}
swap fallback-swap.top.json "$ATTACHED"
swap fallback-swap-nofn.top.json "$INLINED"

# state: the unreachable workload, debug stats off, with the state
# reader: loose at depth 1 and delayed, tight throttling its siblings
# (the parent names it), the cookie at 999984; no window, no count, but
# tight's accumulated windows, missing, a new sample each second.
STATE=1 FUNCS=$INLINED DZ=null
out=fallback-state.top.json
: >"$out"
for s in $(seq 1 20); do
	case $s in 1) d=4 st=throttled ud=0 dl=0.000 ;; 2) d=2 st=throttled ud=0 dl=0.000 ;;
		*) d=1 st=delayed ud=$((s < 8 ? s - 2 : 5)) dl=12.500 ;; esac
	report "$s" false \
		"$(srow 1000000 "$(sample 0 0.000 0 0)" "$(children 999984 /iolat-p/tight 301)" \
			/iolat-p 300 null $((620 + s)) '"max"' ok 0 null null null)" \
		"$(srow 999984 "$(sample 16 0.000 $((18 + s % 4)) $((17 + s % 4)))" "" \
			/iolat-p/tight 301 1000 $((20 + s % 3)) '"max"' throttling 0 61.20 58.90 null)" \
		"$(srow 999984 "$(sample 1 "$dl" 0 0)" "" \
			/iolat-p/loose 302 null $((600 - 5 * (s < 10 ? s : 10))) "$d" "$st" "$ud" 4.10 0.00 null)" >>"$out"
done

# state-owned: debug stats off, the state reader: tight (500us) out of
# reach and its parent's culprit, mid (5000us) missing too behind it,
# bulk (no target) held at depth 1 from the 3rd second.  Mid's misses are
# tight's scaling holding it (the culprit a sample names has the tighter
# target), not mid's own target out of reach.
STATE=1 FUNCS=$INLINED DZ=null
out=fallback-state-owned.top.json
: >"$out"
for s in $(seq 1 20); do
	case $s in 1) d=4 ;; 2) d=2 ;; *) d=1 ;; esac
	report "$s" false \
		"$(srow 1000000 "$(sample 0 0.000 0 0)" "$(children 999984 /iolat-o/tight 401 500)" \
			/iolat-o 400 null $((620 + s)) '"max"' ok 0 null null null)" \
		"$(srow 999984 "$(sample 8 0.000 $((18 + s % 4)) $((17 + s % 4)))" "" \
			/iolat-o/tight 401 500 $((20 + s % 3)) '"max"' throttling 0 61.20 58.90 null)" \
		"$(srow 999984 "$(sample 4 0.000 $((30 + s % 5)) $((12 + s % 5)))" "" \
			/iolat-o/mid 402 5000 $((120 + s % 3)) '"max"' ok 0 20.00 5.00 null)" \
		"$(srow 999984 "$(sample 1 0.000 0 0)" "" \
			/iolat-o/bulk 403 null $((600 - 5 * (s < 10 ? s : 10))) "$d" throttled 0 4.10 0.00 null)" >>"$out"
done

# state-ghost: the state reader, debug stats off: the parent's culprit
# is a group that is no live child (removed, and never forgotten: the
# race fixes/0005 closes), its children's cookie held at 999968 for 20 s,
# loose at depth 2 and meeting nothing of its own.
STATE=1 FUNCS=$INLINED DZ=null
out=fallback-state-ghost.top.json
: >"$out"
for s in $(seq 1 20); do
	report "$s" false \
		"$(srow 1000000 "$(sample 0 0.000 0 0)" "$(children_gone 999968)" \
			/iolat-g 500 null $((300 + s)) '"max"' ok 0 null null null)" \
		"$(srow 999968 "$(sample 2 0.000 0 0)" "" \
			/iolat-g/loose 502 null 280 2 throttled 0 3.00 0.00 null)" >>"$out"
done

# state-floor: the state reader, debug stats off: tight (1000us) misses
# every window and stays its parent's culprit; the children's cookie goes
# down 999984, 999968, 999952, then sits at its floor 999936 from the 4th
# second while tight keeps missing: every scale-down after changes nothing.
# loose is at depth 1 from then on.
STATE=1 FUNCS=$INLINED DZ=null
out=fallback-state-floor.top.json
: >"$out"
for s in $(seq 1 20); do
	case $s in 1) ck=999984 d=8 ;; 2) ck=999968 d=4 ;; 3) ck=999952 d=2 ;; *) ck=999936 d=1 ;; esac
	report "$s" false \
		"$(srow 1000000 "$(sample 0 0.000 0 0)" "$(children "$ck" /iolat-f/tight 601)" \
			/iolat-f 600 null $((620 + s)) '"max"' ok 0 null null null)" \
		"$(srow "$ck" "$(sample 8 0.000 $((18 + s % 4)) $((17 + s % 4)))" "" \
			/iolat-f/tight 601 1000 $((20 + s % 3)) '"max"' throttling 0 61.20 58.90 null)" \
		"$(srow "$ck" "$(sample 1 0.000 0 0)" "" \
			/iolat-f/loose 602 null $((600 - 5 * (s < 10 ? s : 10))) "$d" throttled 0 4.10 0.00 null)" >>"$out"
done

# swap-state: the swap, debug stats off, the functions attached and the
# state reader: hog-none delayed at depth 1 (use_delay from the sample),
# never charged; hog-loose charged and paying.
FUNCS=$ATTACHED DZ=0.000
out=fallback-swap-state.top.json
: >"$out"
for s in $(seq 1 20); do
	c=$((40 * (s - 1))).000 p=$((30 * (s - 1))).000 rate=40.000 prate=30.000
	[ "$s" = 1 ] && rate=0.000 prate=0.000
	report "$s" false \
		"$(srow 1000000 "$(sample 0 0.000 0 0)" "" \
			/iolat-h 929 null $((400 + s)) '"max"' ok 0 null null null)" \
		"$(srow 1000000 "$(sample 2 0.000 20 1)" "" \
			/iolat-h/tight 930 1000 $((150 + s % 3)) '"max"' ok 0 2.10 0.80 null)" \
		"$(srow 1000000 "$(sample 4 45.000 0 0)" "" \
			/iolat-h/hog-loose 932 10000 120 1 delayed 2 30.50 12.00 null 6.000 "$rate" "$prate" "$c" "$p")" \
		"$(srow 1000000 "$(sample 3 0.000 0 0)" "" \
			/iolat-h/hog-none 933 null 110 1 delayed 3 35.00 15.00 null 8.000 0.000 0.000 0.000 0.000)" >>"$out"
done
STATE=

# iolat-snoop -a -j on the same kernel: the mode, then hog-loose's
# charges (4 a second, 10 ms each) and dd's sleeps (30 ms a second).
out=fallback-swap.snoop.json
{
	printf '{"schema":1,"tool":"iolat-snoop","time":%s.000000,"event":"mode","mode":"functions","mode_reason":"this kernel has no iolatency tracepoints","functions":%s,"logs":["charge","sleep"],"cannot_see":["window","target","cookie","culprit_forgotten","depth","throttle","use_delay","delay_charge","delay_pay","enable","scale_reset","scale_skip"]}\n' \
		"$T0" "$ATTACHED"
	for s in $(seq 1 19); do
		for q in 1 3 5 7; do
			printf '{"schema":1,"tool":"iolat-snoop","time":%s.%s00000,"event":"charge","device":"iolat0","cgroup":"/iolat-h/hog-loose","cgroup_id":932,"charge_us":10000,"delay_us":%s}\n' \
				"$((T0 + s))" "$q" "$((10000 * (q + 1) / 2))"
		done
		printf '{"schema":1,"tool":"iolat-snoop","time":%s.900000,"event":"sleep","device":"iolat0","cgroup":"/iolat-h/hog-loose","cgroup_id":932,"pid":4242,"comm":"dd","slept_us":30000}\n' \
			"$((T0 + s))"
	done
} >"$out"
