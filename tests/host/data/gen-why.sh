#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Writes the canned recordings of tests/host/14-why: why-NAME.snoop.json
# (iolat-snoop -a -j) and why-NAME.top.json (iolat-top -j 1), one pair per
# case, into this directory.  Each line is printed key by key as
# snoop_print_json() and snoop_report_lost() in tools/iolat-snoop-output.c
# and top_print_json() in tools/iolat-top-output.c print it today: JSON
# schema 1 ("schema":1,"tool":..., depths "max", actions by name, use_delay
# null while unknown, rows_total/rows_shown, the interval object, "lost"
# records).  The recordings made before schema 1 are the real-*.top.json
# files, kept as they were recorded; this script does not write them.
# The timelines follow the
# kernel's rules (blk-iolatency.c): windows of 100 ms, a scale event at most
# every 500 ms, the cookie's step nr_requests/4 down and 1 up, its floor
# 1000000 - 2 * nr_requests, a sibling's depth halved on each step down
# and max again at the default cookie, use_delay once at depth 1.
# Run it again after a change to either tool's JSON.
set -eu
cd "$(dirname "$0")"
T0=1764892800

# ---- iolat-snoop -j, as snoop_print_json() ----
OUT=/dev/null
t() { awk -v a="$T0" -v b="$1" 'BEGIN { printf "%.6f", a + b }'; }
pre() { # SECS EVENT CGROUP ID
	printf '{"schema":1,"tool":"iolat-snoop","time":%s,"event":"%s","device":"iolat0","cgroup":"%s","cgroup_id":%s' \
		"$(t "$1")" "$2" "$3" "$4" >>"$OUT"
}
# window SECS CGROUP ID MET WIN_MET TARGET SAMPLES MISSED ACTION COOKIE SCALE_LAT
window() {
	local verdict=missed
	[ "$4" = true ] && verdict=met
	[ "$9" = offline ] && verdict=offline
	pre "$1" window "$2" "$3"
	printf ',"met":%s,"win_met":%s,"verdict":"%s","target_us":%s,"win_ms":100,"samples":%s,"acc_samples":%s,"stat":"missed","missed":%s,"acc_missed":%s,"action":"%s","cookie":%s,"scale_lat_us":%s}\n' \
		"$4" "$5" "$verdict" "$6" "$7" "$7" "$8" "$8" "$9" "${10}" "${11}" >>"$OUT"
}
# window_mean SECS CGROUP ID MET TARGET SAMPLES MEAN ACTION COOKIE SCALE_LAT:
# a rotational device's window, judged by its mean
window_mean() {
	local verdict=missed
	[ "$4" = true ] && verdict=met
	pre "$1" window "$2" "$3"
	printf ',"met":%s,"win_met":%s,"verdict":"%s","target_us":%s,"win_ms":100,"samples":%s,"acc_samples":%s,"stat":"mean","mean_us":%s,"acc_mean_us":%s,"action":"%s","cookie":%s,"scale_lat_us":%s}\n' \
		"$4" "$4" "$verdict" "$5" "$6" "$6" "$7" "$7" "$8" "$9" "${10}" >>"$OUT"
}
# target SECS CGROUP ID OLD NEW BY
target() {
	pre "$1" target "$2" "$3"
	printf ',"old_us":%s,"new_us":%s,"win_ms":100,"by":"%s"}\n' "$4" "$5" "$6" >>"$OUT"
}
# scale SECS EVENT PARENT ID OLD NEW CULPRIT CULPRIT_ID SCALE_LAT IDLE_MS BY
scale() {
	local dir=none
	[ "$6" -lt "$5" ] && dir=down
	[ "$6" -gt "$5" ] && dir=up
	pre "$1" "$2" "$3" "$4"
	printf ',"old":%s,"new":%s,"direction":"%s","step":%s' "$5" "$6" "$dir" $(($6 - $5)) >>"$OUT"
	[ "$2" = culprit_forgotten ] && printf ',"cookie":%s' "$6" >>"$OUT"
	if [ "$7" = null ]; then printf ',"culprit":null' >>"$OUT"
	else printf ',"culprit":"%s"' "$7" >>"$OUT"; fi
	local id=$8
	[ "$id" = 0 ] && id=null
	printf ',"culprit_id":%s,"scale_lat_us":%s,"idle_ms":%s,"by":"%s"}\n' "$id" "$9" "${10}" "${11}" >>"$OUT"
}
# depth SECS CGROUP ID OLD NEW COOKIE NR (max: "max", as json_depth())
depth() {
	local o=$4 n=$5
	[ "$o" = max ] && o='"max"'
	[ "$n" = max ] && n='"max"'
	pre "$1" depth "$2" "$3"
	printf ',"old":%s,"new":%s,"cookie":%s,"nr_requests":%s}\n' "$o" "$n" "$6" "$7" >>"$OUT"
}
# use_delay SECS CGROUP ID OLD NEW DELAY_US
use_delay() {
	pre "$1" use_delay "$2" "$3"
	printf ',"old":%s,"new":%s,"delay_us":%s}\n' "$4" "$5" "$6" >>"$OUT"
}
# charge SECS CGROUP ID LAT CHARGE DELAY
charge() {
	pre "$1" delay_charge "$2" "$3"
	printf ',"lat_us":%s,"charge_us":%s,"delay_us":%s}\n' "$4" "$5" "$6" >>"$OUT"
}
# pay SECS CGROUP ID PID DELAY SLEEP SLEPT
pay() {
	pre "$1" delay_pay "$2" "$3"
	printf ',"pid":%s,"comm":"fio","delay_us":%s,"sleep_us":%s,"slept_us":%s,"capped":false,"memstall":true}\n' \
		"$4" "$5" "$6" "$7" >>"$OUT"
}
# throttle SECS CGROUP ID DEPTH WAIT_US [PID [COMM]]: a bio that waited for a slot
throttle() {
	pre "$1" throttle "$2" "$3"
	printf ',"depth":%s,"inflight":%s,"wait_us":%s,"pid":%s,"comm":"%s"}\n' "$4" "$4" "$5" \
		"${6:-4242}" "${7:-fio}" >>"$OUT"
}
# skip SECS CGROUP ID OLD NEW REASON TARGET SCALE_LAT: a group that did not
# follow its parent's scale-down (iolatency_scale_skip)
skip() {
	pre "$1" scale_skip "$2" "$3"
	printf ',"old":%s,"new":%s,"reason":"%s","target_us":%s,"scale_lat_us":%s,"samples":40,"thresh":2}\n' \
		"$4" "$5" "$6" "$7" "$8" >>"$OUT"
}
# lost SECS LOST NEW: events the BPF side could not record, as
# snoop_report_lost(): since the start, and since the last such record
lost() {
	printf '{"schema":1,"tool":"iolat-snoop","time":%s,"event":"lost","lost_events":%s,"lost_events_new":%s}\n' \
		"$(t "$1")" "$2" "$3" >>"$OUT"
}

# ---- iolat-top -j, as top_print_json() ----
ROWS= NROWS=0
# A row's counters at the previous interval, for its "interval" object
# (null at a row's first interval, as top_model_compute() has no
# previous one): "windows missed throttled downs ups" by cgroup.
declare -A PREV
# top_begin: a new interval's rows; top_end SECS [LOST]: print it
top_begin() { ROWS= NROWS=0; }
top_end() {
	printf '{"schema":1,"tool":"iolat-top","time":%s,"interval_s":1.000,"lost_events":%s,"rows_total":%s,"rows_shown":%s,"cgroups":[%s]}\n' \
		"$(awk -v a="$T0" -v b="$1" 'BEGIN { printf "%.3f", a + b }')" "${2:-0}" "$NROWS" "$NROWS" \
		"$ROWS" >>"$OUT"
}
# winobj MET WIN_MET SAMPLES MISSED ACTION_NR ACTION (ACTION_NR: unused
# since schema 1 names the action)
winobj() {
	local verdict=missed
	[ "$1" = true ] && verdict=met
	[ "$6" = offline ] && verdict=offline
	awk -v met="$1" -v wm="$2" -v v="$verdict" -v s="$3" -v m="$4" -v an="$5" -v a="$6" 'BEGIN {
		pct = s ? 100 * m / s : 0
		printf "{\"met\":%s,\"win_met\":%s,\"verdict\":\"%s\",\"samples\":%d,\"acc_samples\":%d,\"win_ms\":100,\"idle\":false,\"action\":\"%s\",\"stat\":\"missed\",\"missed\":%d,\"missed_pct\":%.1f,\"acc_missed\":%d,\"acc_missed_pct\":%.1f}", met, wm, v, s, s, a, m, pct, m, pct }'
}
# children COOKIE CULPRIT CULPRIT_ID SCALE_LAT DOWNS UPS TIMER_UPS FORGOTTEN RESETS
children() {
	local c=null
	[ "$2" != null ] && c="\"$2\""
	printf '{"cookie":%s,"culprit":%s' "$1" "$c"
	if [ "$3" = null ]; then printf ',"culprit_id":null,"scale_lat_us":null'
	else printf ',"culprit_id":%s,"scale_lat_us":%s' "$3" "$4"; fi
	printf ',"scale_downs":%s,"scale_ups":%s,"timer_ups":%s,"culprits_forgotten":%s,"resets":%s}' \
		"$5" "$6" "$7" "$8" "$9"
}
# row CGROUP ID TARGET WINDOW WINDOWS WMISSED IOPS RMBPS WMBPS DEPTH COOKIE
#     STATE USE_DELAY CHG_RATE PAID_RATE WAITS CHG PAID THROTTLED GROUP CHILDREN
# (TARGET, COOKIE: null for none; WINDOW: winobj or null; DEPTH: N, max
# or null; USE_DELAY: null while unknown; GROUP: 1 when the BPF side has
# a group entry; CHILDREN: the children object or -)
row() {
	local r d=${10} w=0 wm=0 downs=0 ups=0 now pw pwm pt pd pu
	[ "$d" = max ] && d='"max"'
	[ "$4" != null ] && w=$5 wm=$6
	[[ ${21} =~ \"scale_downs\":([0-9]+),\"scale_ups\":([0-9]+) ]] &&
		downs=${BASH_REMATCH[1]} ups=${BASH_REMATCH[2]}
	r=$(printf '{"device":"%s","rotational":false,%s,"cgroup":"%s","cgroup_id":%s,"target_us":%s,"window":%s' \
		"${DEV:-iolat0}" "${DEV_QUEUE:-\"bio_based\":false}" "$1" "$2" "$3" "$4")
	[ "$4" != null ] && r+=$(printf ',"windows":%s,"windows_missed":%s' "$5" "$6")
	r+=$(printf ',"iops":%s,"read_mbps":%s,"write_mbps":%s,"depth":%s,"cookie":%s,"state":"%s","use_delay":%s' \
		"$7" "$8" "$9" "$d" "${11}" "${12}" "${13}")
	r+=$(printf ',"delay_charged_ms_per_s":%s,"delay_paid_ms_per_s":%s,"throttled_bios_per_s":%s,"delay_charged_ms":%s,"delay_paid_ms":%s,"throttled_bios":%s' \
		"${14}" "${15}" "${16}" "${17}" "${18}" "${19}")
	# as interval_of(): the counters' differences, unknown if one went back
	now="$w $wm ${19} $downs $ups"
	read -r pw pwm pt pd pu <<<"${PREV[$1]:-x}"
	if [ "$pw" = x ] || [ "$w" -lt "$pw" ] || [ "$wm" -lt "$pwm" ] || [ "${19}" -lt "$pt" ] ||
	   [ "$downs" -lt "$pd" ] || [ "$ups" -lt "$pu" ]; then
		r+=',"interval":null'
	else
		r+=$(printf ',"interval":{"windows":%s,"windows_missed":%s,"throttled_bios":%s' \
			$((w - pw)) $((wm - pwm)) $((${19} - pt)))
		if [ $((${19} - pt)) -gt 0 ]; then r+=',"throttled_wait_mean_us":800.0'
		else r+=',"throttled_wait_mean_us":null'; fi
		if [ "${21}" != - ]; then
			r+=$(printf ',"scale_downs":%s,"scale_ups":%s}' $((downs - pd)) $((ups - pu)))
		else
			r+=',"scale_downs":null,"scale_ups":null}'
		fi
	fi
	PREV[$1]=$now
	[ "${20}" = 1 ] && r+=",\"scale_skips\":{\"raced\":0,\"protected\":${PROTECTED:-0},\"few_ios\":0}"
	[ "${21}" != - ] && r+=",\"children\":${21}"
	r+='}'
	ROWS+=${ROWS:+,}$r
	NROWS=$((NROWS + 1))
}

# The cookie's moves for nr_requests @1: step down from @2, step up from @2.
cookie_down() {
	local qd=$1 c=$2 diff=$((1000000 - $2))
	if [ $diff -gt "$qd" ]; then
		[ $diff -lt $((2 * qd)) ] && c=$((c - 1))
	else
		c=$((c - qd / 4))
	fi
	echo $c
}
cookie_up() {
	local c=$(($2 + 1))
	[ $c -gt 1000000 ] && c=1000000
	echo $c
}
half() { [ "$1" = max ] && { echo $(($2 / 2)); return; }; local d=$(($1 / 2)); [ $d -lt 1 ] && d=1; echo $d; }

# ---- the cases' common shapes ----
# tick I: the I-th window of 100 ms: the caller's $ms and $sec (3 decimals)
tick() { ms=$(($1 * 100)); sec=$(awk -v m=$ms 'BEGIN { printf "%.3f", m / 1000 }'); }
# snoop_file CASE, top_file CASE: what follows goes to why-CASE.snoop.json
# or why-CASE.top.json, written anew (iolat-top's with no previous rows)
snoop_file() { OUT=why-$1.snoop.json; : >"$OUT"; }
top_file() { OUT=why-$1.top.json; : >"$OUT"; PREV=(); }
# move_cookie down|up NR: the caller's children's $cookie a step, for NR
# requests; the one before in $prev
move_cookie() {
	prev=$cookie
	if [ "$1" = down ]; then cookie=$(cookie_down "$2" "$cookie")
	else cookie=$(cookie_up "$2" "$cookie"); fi
}
# window_scale down|up NR PARENT ID CULPRIT CULPRIT_ID SCALE_LAT IDLE_MS:
# the move, and its scale event at $sec, made by a window
window_scale() {
	move_cookie "$1" "$2"
	scale "$sec" cookie "$3" "$4" "$prev" "$cookie" "$5" "$6" "$7" "$8" window
}
# follow down|up CGROUP ID DEPTH_VAR NR: a sibling's depth event after the
# move at $sec, and the caller's DEPTH_VAR set to the new depth: halved on
# a step down; one more on a step up, max again at the default cookie
follow() {
	local -n depth_of=$4
	local new
	if [ "$1" = down ]; then new=$(half "$depth_of" "$5")
	elif [ "$cookie" = 1000000 ]; then new=max
	else new=$((depth_of + 1)); fi
	depth "$sec" "$2" "$3" "$depth_of" "$new" "$cookie" "$5"
	depth_of=$new
}
# depth_state DEPTH, delay_state USE_DELAY: a limited row's state
depth_state() { if [ "$1" = max ]; then echo ok; else echo throttled; fi; }
delay_state() { if [ "$1" -gt 0 ]; then echo delayed; else echo throttled; fi; }
# root_row IOPS RMBPS WMBPS: the root cgroup, from io.stat alone
root_row() {
	row / 1 null null 0 0 "$1" "$2" "$3" null null unknown null null null null 0.000 0.000 0 0 -
}
# free_row CGROUP ID IOPS RMBPS WMBPS [CHILDREN]: no target and never
# limited: a parent (CHILDREN: the children object) or a bystander
free_row() {
	row "$1" "$2" null null 0 0 "$3" "$4" "$5" max null ok 0 0.000 0.000 0.0 0.000 0.000 0 0 "${6:--}"
}
# target_row CGROUP ID TARGET WINOBJ WINDOWS MISSED IOPS RMBPS COOKIE STATE:
# a reader with a target, at depth max, never charged nor throttled
target_row() {
	row "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" 0.000 max "$9" "${10}" 0 0.000 0.000 0.0 0.000 0.000 0 1 -
}
# limited_row CGROUP ID IOPS RMBPS WMBPS DEPTH COOKIE STATE USE_DELAY RATE:
# a sibling with no target, never charged, RATE bios throttled a second
# (RATE * $sec since the start)
limited_row() {
	row "$1" "$2" null null 0 0 "$3" "$4" "$5" "$6" "$7" "$8" "$9" 0.000 0.000 "${10}" 0.000 0.000 \
		$((sec * ${10%.0})) 1 -
}

# ---- the cases ----

# healthy: /iolat-p/tight (1500us) protected from /iolat-p/loose: the
# controller at work, no misbehaviour.  tight misses when loose has depth
# enough, loose is halved, tight meets its target and raises the cookie
# every 500ms until it misses again: a slow cycle.  /iolat-p/swapper (a
# loose 10 ms target) follows the scale-downs, is charged for its swap-outs
# and pays.  3 iolat-snoop events are lost at 15 s, 5 of iolat-top's at
# 20 s.  30 s, 16 requests.
healthy() {
	local i ms sec cookie=1000000 dl=max ds=max
	local downs=0 ups=0 last=-1 w=0 wm=0 prev tm
	snoop_file healthy
	target 0.4 /iolat-p/tight 1101 0 1500 user
	target 0.4 /iolat-p/swapper 1103 0 10000 user
	for ((i = 5; i < 300; i++)); do
		tick $i
		# a miss when loose has 8 or more slots, else met; every 0.5 s at most a move
		if [ "$dl" = max ] || [ "$dl" -ge 10 ]; then
			miss=1
		else
			miss=0
		fi
		if [ $((ms - last)) -lt 500 ] && [ $last -ge 0 ]; then act=hold
		elif [ $miss = 1 ]; then act=down
		else act=up; fi
		if [ $act = down ]; then
			window_scale down 16 /iolat-p 1100 /iolat-p/tight 1101 1500 500; last=$ms; downs=$((downs + 1))
			follow down /iolat-p/loose 1102 dl 16
			follow down /iolat-p/swapper 1103 ds 16
		elif [ $act = up ]; then
			window_scale up 16 /iolat-p 1100 /iolat-p/tight 1101 1500 500; last=$ms; ups=$((ups + 1))
			follow up /iolat-p/loose 1102 dl 16
			follow up /iolat-p/swapper 1103 ds 16
		fi
		# tight: 30 bios a window, none over target when met (one in a few)
		if [ $miss = 1 ]; then
			window "$sec" /iolat-p/tight 1101 false false 1500 30 9 $act $cookie 1500
			wm=$((wm + 1))
		else
			[ $act = down ] && act=hold
			m=0; [ $((i % 7)) = 0 ] && m=1
			window "$sec" /iolat-p/tight 1101 true true 1500 30 $m $act $cookie 1500
		fi
		w=$((w + 1))
		[ $((i % 10)) = 3 ] && window "$sec" /iolat-p/swapper 1103 true true 10000 12 0 not_owner $cookie 1500
		if [ $((i % 10)) = 6 ]; then
			charge "$sec" /iolat-p/swapper 1103 900 9100 30000
			pay "$sec" /iolat-p/swapper 1103 412 30000 30000 30100
			throttle "$sec" /iolat-p/loose 1102 "${dl/max/16}" 800
		fi
		if [ $((i % 10)) = 9 ]; then
			tm[$((i / 10))]="$w $wm $cookie $dl $ds $downs $ups"
		fi
		# a burst the BPF side could not record: said, and nothing found
		[ $i = 150 ] && lost 15.050 3 3
	done
	top_file healthy
	for ((sec = 1; sec < 30; sec++)); do
		read -r w wm cookie dl ds downs ups <<<"${tm[$sec]:-${tm[$((sec - 1))]}}"
		top_begin
		root_row 9450.0 36.914 9.100
		free_row /iolat-p 1100 9450.0 36.914 9.100 \
			"$(children $cookie /iolat-p/tight 1101 1500 $downs $ups 0 0 0)"
		st=ok; [ $cookie -lt 1000000 ] && st=throttling
		limited_row /iolat-p/loose 1102 $((5000 + ${dl/max/16} * 100)).0 20.000 0.000 $dl $cookie \
			$(depth_state $dl) 0 10.0
		row /iolat-p/swapper 1103 10000 "$(winobj true true 12 0 4 not_owner)" $((sec * 10 + 5)) 0 \
			1200.0 4.700 9.100 $ds $cookie $(depth_state $ds) 0 \
			9.100 30.100 0.0 $((sec * 9)).100 $((sec * 30)).100 0 1 -
		target_row /iolat-p/tight 1101 1500 "$(winobj true true 30 0 1 hold)" "$w" "$wm" 300.0 1.172 \
			$cookie $st
		top_end $sec $([ $sec -ge 20 ] && echo 5 || echo 0)
	done
}

# unreachable: scenario 5 (a).  /iolat-m/tight asks 100us of a 2 ms
# device beside /iolat-m/batch (no target, QD64): every window misses,
# batch is halved to depth 1, use_delay climbs, the cookie reaches its
# floor and further scale-downs change nothing.  20 s, 16 requests.
unreachable() {
	local -a t_w tm
	local i ms sec cookie=1000000 db=max ud=0 last=-1 w=0 downs=0 act prev
	snoop_file unreachable
	target 0.2 /iolat-m/tight 922 0 100 user
	for ((i = 3; i < 200; i++)); do
		tick $i
		act=hold
		if [ $last -lt 0 ] || [ $((ms - last)) -ge 500 ]; then
			act=down; last=$ms
			move_cookie down 16
			if [ $cookie != $prev ]; then
				downs=$((downs + 1))
				scale "$sec" cookie /iolat-m 920 $prev $cookie /iolat-m/tight 922 100 500 window
				if [ "$db" != 1 ]; then
					follow down /iolat-m/batch 921 db 16
				else
					use_delay "$sec" /iolat-m/batch 921 $ud $((ud + 1)) 0; ud=$((ud + 1))
				fi
			fi
		fi
		window "$sec" /iolat-m/tight 922 false false 100 $((i % 5 + 20)) $((i % 5 + 20)) $act $cookie 100
		w=$((w + 1))
		[ $((i % 10)) = 0 ] && t_w[$((i / 10))]="$w $cookie $db $ud $downs"
	done
	top_file unreachable
	for ((sec = 1; sec < 20; sec++)); do
		read -r w cookie db ud downs <<<"${t_w[$sec]}"
		top_begin
		root_row 1221.0 4.770 0.000
		free_row /iolat-m 920 1221.0 4.770 0.000 \
			"$(children $cookie /iolat-m/tight 922 100 $downs 0 0 0 0)"
		limited_row /iolat-m/batch 921 $((6277 / (${db/max/16}) + 900)).0 3.600 0.000 $db $cookie \
			$(delay_state $ud) $ud 880.0
		target_row /iolat-m/tight 922 100 "$(winobj false false 22 22 1 hold)" "$w" "$w" 299.0 1.168 \
			$cookie throttling
		top_end $sec
	done
}

# swap: scenario 5 (b).  Beside /iolat-h/tight (100us), two swapping
# hogs at depth 1 with use_delay on: /iolat-h/hog-loose (10000us) is
# charged for its swap-outs and sleeps, /iolat-h/hog-none (no target) is
# charged nothing.  hog-loose's own misses change nothing: tight's tighter
# target owns the scaling.  20 s, 16 requests.
swap() {
	local -a t_w tm
	local i ms sec cookie=1000000 dn=max dl=max udn=0 udl=0 last=-1 w=0 wl=0 wlm=0 downs=0 prev chg=0 paid=0
	snoop_file swap
	target 0.1 /iolat-h/tight 930 0 100 user
	target 0.3 /iolat-h/hog-loose 932 0 10000 user
	for ((i = 5; i < 200; i++)); do
		tick $i
		act=hold
		if [ $last -lt 0 ] || [ $((ms - last)) -ge 500 ]; then
			act=down; last=$ms
			move_cookie down 16
			if [ $cookie != $prev ]; then
				downs=$((downs + 1))
				scale "$sec" cookie /iolat-h 929 $prev $cookie /iolat-h/tight 930 100 500 window
				if [ "$dn" != 1 ]; then
					follow down /iolat-h/hog-none 931 dn 16
					follow down /iolat-h/hog-loose 932 dl 16
				else
					use_delay "$sec" /iolat-h/hog-none 931 $udn $((udn + 1)) 0; udn=$((udn + 1))
					use_delay "$sec" /iolat-h/hog-loose 932 $udl $((udl + 1)) 2955640; udl=$((udl + 1))
				fi
			fi
		fi
		window "$sec" /iolat-h/tight 930 false false 100 8 8 $act $cookie 100
		w=$((w + 1))
		if [ $((i % 2)) = 0 ]; then
			if [ $((i % 4)) = 0 ]; then
				window "$sec" /iolat-h/hog-loose 932 false false 10000 40 9 tighter $cookie 100
				wlm=$((wlm + 1))
			else
				window "$sec" /iolat-h/hog-loose 932 true true 10000 40 1 not_owner $cookie 100
			fi
			wl=$((wl + 1))
		fi
		if [ "$dl" = 1 ] && [ $((i % 3)) = 0 ]; then
			charge "$sec" /iolat-h/hog-loose 932 1800 8200 2955640
			chg=$((chg + 8))
			[ $((i % 6)) = 0 ] && { pay "$sec" /iolat-h/hog-loose 932 288 1901700 250000 251300; paid=$((paid + 251)); }
		fi
		[ $((i % 10)) = 0 ] && t_w[$((i / 10))]="$w $wl $wlm $cookie $dn $udn $udl $downs $chg $paid"
	done
	top_file swap
	for ((sec = 1; sec < 20; sec++)); do
		read -r w wl wlm cookie dn udn udl downs chg paid <<<"${t_w[$sec]:-${t_w[$((sec + 1))]}}"
		top_begin
		root_row 5798.0 22.648 36.000
		free_row /iolat-h 929 5798.0 22.648 36.000 \
			"$(children $cookie /iolat-h/tight 930 100 $downs 0 0 0 0)"
		row /iolat-h/hog-loose 932 10000 "$(winobj false false 40 9 6 tighter)" "$wl" "$wlm" 2806.0 1.500 17.800 \
			$dn $cookie $(delay_state $udl) $udl 24.000 753.000 40.0 $chg.000 $paid.000 $((sec * 40)) 1 -
		limited_row /iolat-h/hog-none 931 2685.0 1.400 18.200 $dn $cookie \
			$(delay_state $udn) $udn 45.0
		target_row /iolat-h/tight 930 100 "$(winobj false false 8 8 1 hold)" "$w" "$w" 153.0 0.598 \
			$cookie throttling
		top_end $sec
	done
}

# floor: scenario 7's iolat1.  /iolat-c/tight (1000us) on a 2 ms device
# with 4 requests misses every window beside /iolat-c/loose (QD64): 8
# scale-downs take the cookie to its floor, 999992, loose to depth 1 and
# use_delay 6, and 6 more misses at the floor change nothing.  tight's
# last window is at 7.1 s; 5 s later the parent forgets it, the timer
# raises the cookie a step a second, loose pays back its use_delay and is
# at depth max again 8 steps later, 20.4 s in: 13 s after the last
# scale-down.  25 s.
floor_case() {
	local -a t_w
	local i ms sec cookie=1000000 dl=max ud=0 last=-1 w=0 downs=0 timer=0 forgot=0 act prev n
	snoop_file floor
	target 0.2 /iolat-c/tight 2002 0 1000 user
	for ((i = 3; i < 72; i++)); do
		tick $i
		act=hold
		if [ $last -lt 0 ] || [ $((ms - last)) -ge 500 ]; then
			act=down; last=$ms
			move_cookie down 4
			if [ $cookie != $prev ]; then
				downs=$((downs + 1))
				scale "$sec" cookie /iolat-c 2000 $prev $cookie /iolat-c/tight 2002 1000 500 window
				if [ "$dl" != 1 ]; then
					follow down /iolat-c/loose 2001 dl 4
				else
					use_delay "$sec" /iolat-c/loose 2001 $ud $((ud + 1)) 0; ud=$((ud + 1))
				fi
			fi
		fi
		window "$sec" /iolat-c/tight 2002 false false 1000 $((i % 3 + 12)) $((i % 3 + 12)) $act $cookie 1000
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $cookie $dl $ud $downs $timer $forgot"
	done
	# the last miss at 7.1 s; forgotten 5 s later, then a step a second
	scale 12.3 culprit_forgotten /iolat-c 2000 $cookie $cookie /iolat-c/tight 2002 1000 5200 timer
	forgot=1
	t_w[12]="$w $cookie $dl $ud $downs $timer $forgot"
	for ((sec = 13; sec < 25; sec++)); do
		if [ $cookie != 1000000 ]; then
			move_cookie up 4; timer=$((timer + 1))
			scale "$sec.400" cookie /iolat-c 2000 $prev $cookie null null 1000 1000 timer
			if [ $cookie = 1000000 ]; then
				depth "$sec.410" /iolat-c/loose 2001 $dl max $cookie 4; dl=max
				[ $ud -gt 0 ] && { use_delay "$sec.410" /iolat-c/loose 2001 $ud 0 0; ud=0; }
			elif [ $ud -gt 0 ]; then
				use_delay "$sec.410" /iolat-c/loose 2001 $ud $((ud - 1)) 0; ud=$((ud - 1))
			else
				n=$((dl + 1)); depth "$sec.410" /iolat-c/loose 2001 $dl $n $cookie 4; dl=$n
			fi
		fi
		t_w[$sec]="$w $cookie $dl $ud $downs $timer $forgot"
	done
	top_file floor
	for ((sec = 1; sec < 25; sec++)); do
		[ -n "${t_w[$sec]:-}" ] && read -r w cookie dl ud downs timer forgot <<<"${t_w[$sec]}"
		top_begin
		free_row /iolat-c 2000 1100.0 4.297 0.000 \
			"$(children $cookie /iolat-c/tight 2002 1000 $downs $timer $timer $forgot 0)"
		limited_row /iolat-c/loose 2001 $((900 / ${dl/max/4} + 400)).0 3.500 0.000 $dl $cookie \
			$( [ "$dl" = max ] && echo ok || delay_state $ud) $ud 400.0
		if [ $sec -le 7 ]; then
			target_row /iolat-c/tight 2002 1000 "$(winobj false false 13 13 1 hold)" "$w" "$w" 130.0 0.508 \
				$cookie throttling
		fi
		top_end $sec
	done
}

# flapping: the demo (scenario 1).  /iolat-p/tight (1500us) misses as
# soon as /iolat-p/loose gets a slot back and meets its target as soon as
# loose loses it: a scale-down and a scale-up every second, loose's depth
# going up and down with them.  20 s, 4 requests.
flapping() {
	local -a t_w tm
	local i ms sec cookie=1000000 dl=max w=0 wm=0 downs=0 ups=0 prev act miss
	snoop_file flapping
	target 0.2 /iolat-p/tight 1201 0 1500 user
	for ((i = 5; i < 200; i++)); do
		tick $i
		act=hold; miss=0
		case $((i % 10)) in
		0) act=down; miss=1 ;;
		5) act=up ;;
		1|2) miss=1 ;;
		esac
		if [ $act = down ]; then
			window_scale down 4 /iolat-p 1200 /iolat-p/tight 1201 1500 500; downs=$((downs + 1))
			follow down /iolat-p/loose 1202 dl 4
		elif [ $act = up ]; then
			window_scale up 4 /iolat-p 1200 /iolat-p/tight 1201 1500 500; ups=$((ups + 1))
			follow up /iolat-p/loose 1202 dl 4
		fi
		if [ $miss = 1 ]; then
			window "$sec" /iolat-p/tight 1201 false false 1500 20 6 $act $cookie 1500; wm=$((wm + 1))
		else
			window "$sec" /iolat-p/tight 1201 true true 1500 20 0 $act $cookie 1500
		fi
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $wm $cookie $dl $downs $ups"
	done
	top_file flapping
	for ((sec = 1; sec < 20; sec++)); do
		read -r w wm cookie dl downs ups <<<"${t_w[$sec]}"
		top_begin
		free_row /iolat-p 1200 3100.0 12.109 0.000 \
			"$(children $cookie /iolat-p/tight 1201 1500 $downs $ups 0 0 0)"
		limited_row /iolat-p/loose 1202 $((700 * ${dl/max/4})).0 10.000 0.000 $dl $cookie \
			$(depth_state $dl) 0 300.0
		target_row /iolat-p/tight 1201 1500 "$(winobj true true 20 0 3 up)" "$w" "$wm" 400.0 1.563 \
			$cookie throttling
		top_end $sec
	done
}

# sawtooth: scenario 2's contention at the edge of tight's target, as
# iolat-snoop records it (3000us, 16 requests).  A miss takes loose down
# a step; tight meets its target in the windows after, each 500 ms raises
# the cookie one step, and it misses again after two: down, up, up, down.
# More than one change of direction a second, but most moves follow one
# the same way: the controller probing, not flapping.  20 s.
sawtooth() {
	local i ms sec cookie=1000000 dl=max prev act
	snoop_file sawtooth
	target 0.2 /iolat-w/tight 1301 0 3000 user
	for ((i = 15; i < 215; i++)); do
		tick $i
		case $((i % 15)) in
		0) act=down ;;
		5|10) act=up ;;
		*) act=hold ;;
		esac
		if [ $act = down ]; then
			window_scale down 16 /iolat-w 1300 /iolat-w/tight 1301 3000 500
			follow down /iolat-w/loose 1302 dl 16
			window "$sec" /iolat-w/tight 1301 false false 3000 12 4 down $cookie 3000
		else
			[ $act = up ] && window_scale up 16 /iolat-w 1300 /iolat-w/tight 1301 3000 500 &&
				follow up /iolat-w/loose 1302 dl 16
			window "$sec" /iolat-w/tight 1301 true true 3000 12 0 $act $cookie 3000
		fi
	done
}

# recovery: scenario 2.  /iolat-w/tight (3000us) reads for 8 s beside
# /iolat-w/loose and stops; the parent forgets it 5 s after the last
# scale event, then the timer raises the cookie a step a second, and
# loose's depth is max again 15 s after the last scale-down.  30 s, 16
# requests.
recovery() {
	local -a t_w tm
	local i ms sec cookie=1000000 dl=max w=0 wm=0 downs=0 ups=0 timer=0 forgot=0 prev act last=-1
	snoop_file recovery
	target 0.2 /iolat-w/tight 1301 0 3000 user
	for ((i = 5; i < 80; i++)); do
		tick $i
		act=hold
		if [ $((i % 20)) = 5 ]; then
			act=down; window_scale down 16 /iolat-w 1300 /iolat-w/tight 1301 3000 500; downs=$((downs + 1)); last=$ms
			follow down /iolat-w/loose 1302 dl 16
			window "$sec" /iolat-w/tight 1301 false false 3000 12 4 down $cookie 3000; wm=$((wm + 1))
		else
			window "$sec" /iolat-w/tight 1301 true true 3000 12 0 hold $cookie 3000
		fi
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $wm $cookie $dl $downs $ups $timer $forgot"
	done
	# tight stopped at 8 s; its last scale-down was at 6.5 s
	scale 11.5 culprit_forgotten /iolat-w 1300 $cookie $cookie /iolat-w/tight 1301 3000 5000 timer
	forgot=1
	for ((sec = 12; sec < 30; sec++)); do
		[ $cookie = 1000000 ] && break
		move_cookie up 16; timer=$((timer + 1))
		scale "$sec.400" cookie /iolat-w 1300 $prev $cookie null null 3000 1000 timer
		if [ $cookie = 1000000 ]; then n=max; else n=$((dl + 1)); fi
		depth "$sec.410" /iolat-w/loose 1302 $dl $n $cookie 16; dl=$n
		t_w[$sec]="$w $wm $cookie $dl $downs $ups $timer $forgot"
	done
	top_file recovery
	for ((sec = 1; sec < 30; sec++)); do
		[ -n "${t_w[$sec]:-}" ] && read -r w wm cookie dl downs ups timer forgot <<<"${t_w[$sec]}"
		top_begin
		free_row /iolat-w 1300 4100.0 16.016 0.000 \
			"$(children $cookie null null null $downs $timer $timer $forgot 0)"
		limited_row /iolat-w/loose 1302 $((250 * ${dl/max/16})).0 10.000 0.000 $dl $cookie \
			$(depth_state $dl) 0 50.0
		if [ $sec -le 8 ]; then
			target_row /iolat-w/tight 1301 3000 "$(winobj true true 12 0 1 hold)" "$w" "$wm" 120.0 0.469 \
				$cookie throttling
		fi
		top_end $sec
	done
}

# tail: the 10% rule.  /iolat-t/db (2000us) on a non-rotational device
# has 2 or 3 of its 40 bios a window over target (6.9% of them): under
# 10%, so every window meets it and nobody is throttled (action ok:
# iolat-snoop -a), while its p94 is over the target.
tail_case() {
	local -a t_w tm
	local i ms sec m w=0
	snoop_file tail
	target 0.1 /iolat-t/db 1401 0 2000 user
	for ((i = 2; i < 150; i++)); do
		tick $i
		m=$((i % 4 == 0 ? 2 : 3))
		window "$sec" /iolat-t/db 1401 true true 2000 40 $m ok 1000000 0
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $m"
	done
	top_file tail
	for ((sec = 1; sec < 15; sec++)); do
		read -r w m <<<"${t_w[$sec]}"
		top_begin
		free_row /iolat-t/batch 1402 5200.0 20.313 0.000
		target_row /iolat-t/db 1401 2000 "$(winobj true true 40 $m 0 ok)" "$w" 0 400.0 1.563 \
			null ok
		top_end $sec
	done
}

# protected NAME MISSED OVER: scenario 2's contention as iolat-top
# samples it, 11 s: /iolat-w/tight (3000us) protected from /iolat-w/loose,
# the cookie of /iolat-w's children going down (a step of 8, 32 requests)
# and back up (2 a step).  The windows iolat-top shows all met, with OVER
# (one number an interval) of their 32 bios over target; tight's counters
# say MISSED of its 99 windows missed:
#  - protected (MISSED 25, 2 or 3 bios over in 9 of 11 windows, 6.3% of
#    the met windows' bios): no finding, the controller acts for tight in
#    a quarter of its windows, however the windows iolat-top showed look;
#  - smalltail (MISSED 3, 1 or 2 over in 6 of 11, as in a CI run of
#    scenario 2: 2.3%): ten_percent_rule, it rarely acts, and 2.3% of
#    the bios of the windows that met are over target (p98 and above).
protected() {
	local -a downs=(0 1 1 1 2 2 2 3 3 4 4 4) ups=(0 0 2 4 5 7 8 9 11 12 14 16)
	local -a over
	local sec cookie dl st
	read -ra over <<<"0 $3"
	top_file "$1"
	for ((sec = 1; sec <= 11; sec++)); do
		cookie=$((1000000 - 8 * ${downs[$sec]} + 2 * ${ups[$sec]}))
		[ $cookie -gt 1000000 ] && cookie=1000000
		dl=$((16 - (1000000 - cookie)))
		[ $cookie = 1000000 ] && dl=max
		st=ok; [ $cookie -lt 1000000 ] && st=throttling
		top_begin
		free_row /iolat-w 1350 4100.0 16.016 0.000 \
			"$(children $cookie /iolat-w/tight 1351 3000 ${downs[$sec]} ${ups[$sec]} 0 0 0)"
		limited_row /iolat-w/loose 1352 $((3800 + ${dl/max/16} * 20)).0 15.000 0.000 $dl $cookie \
			$(depth_state $dl) 0 200.0
		target_row /iolat-w/tight 1351 3000 "$(winobj true true 32 ${over[$sec]} 3 up)" \
			$((sec * 9)) $(($2 * sec / 11)) 300.0 1.172 $cookie $st
		top_end $sec
	done
}

# nothing: /iolat-a/db (1000us) alone under /iolat-a misses every window;
# the noisy reader is /iolat-b/noisy, elsewhere in the tree.  The cookie
# of /iolat-a's children goes down with nobody to throttle.  6 s.
nothing() {
	local -a t_w tm
	local i ms sec cookie=1000000 last=-1 w=0 downs=0 prev act
	snoop_file nothing
	target 0.1 /iolat-a/db 1501 0 1000 user
	for ((i = 2; i < 150; i++)); do
		tick $i
		act=hold
		if [ $last -lt 0 ] || [ $((ms - last)) -ge 500 ]; then
			act=down; last=$ms; downs=$((downs + 1))
			move_cookie down 16
			# at the floor a scale-down moves nothing and traces no cookie event
			[ $cookie != $prev ] &&
				scale "$sec" cookie /iolat-a 1500 $prev $cookie /iolat-a/db 1501 1000 500 window
		fi
		window "$sec" /iolat-a/db 1501 false false 1000 15 12 $act $cookie 1000
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $cookie $downs"
	done
	top_file nothing
	for ((sec = 1; sec < 15; sec++)); do
		read -r w cookie downs <<<"${t_w[$sec]}"
		top_begin
		root_row 6300.0 24.609 0.000
		free_row /iolat-a 1500 150.0 0.586 0.000 \
			"$(children $cookie /iolat-a/db 1501 1000 $downs 0 0 0 0)"
		target_row /iolat-a/db 1501 1000 "$(winobj false false 15 12 1 hold)" "$w" "$w" 150.0 0.586 \
			$cookie throttling
		free_row /iolat-b 1510 6150.0 24.023 0.000
		free_row /iolat-b/noisy 1511 6150.0 24.023 0.000
		top_end $sec
	done
}

# tighter: scenario 4's pattern.  /iolat-n/a (2000us) misses one window
# in five and owns the scaling; /iolat-n/b (10000us) misses more, but
# each of its misses finds a tighter sibling owning the scaling.  The
# noisy /iolat-n/c is halved.  5 s, 64 requests.
tighter() {
	local -a t_w tm
	local i ms sec cookie=1000000 dc=max prev w=0 wm=0
	snoop_file tighter
	target 0.1 /iolat-n/a 1601 0 2000 user
	target 0.1 /iolat-n/b 1602 0 10000 user
	for ((i = 2; i < 35; i++)); do
		tick $i
		if [ $((i % 5)) = 0 ]; then
			window_scale down 64 /iolat-n 1600 /iolat-n/a 1601 2000 500
			follow down /iolat-n/c 1603 dc 64
			window "$sec" /iolat-n/a 1601 false false 2000 10 4 down $cookie 2000
		else
			window "$sec" /iolat-n/a 1601 true true 2000 10 0 hold $cookie 2000
		fi
		if [ $((i % 5)) = 4 ]; then
			window "$sec" /iolat-n/b 1602 true true 10000 25 0 hold $cookie 2000
		else
			window "$sec" /iolat-n/b 1602 false false 10000 25 8 tighter $cookie 2000
			wm=$((wm + 1))
		fi
		w=$((w + 1))
	done
}

# owned: scenario 6's iolat2 as iolat-top records it (one tag, blkcg_debug_stats
# off).  /iolat-d/tight (500us) starts at 1 s: two scale-downs name it the
# culprit and take the cookie to its floor, /iolat-d/loose to depth 1;
# /iolat-d/mid (3000us) starts at 2 s and misses every window, behind a
# cookie that no longer moves: its windows hold (or "tighter") while
# tight owns the scaling.  Nothing says the depth of the others.  15 s.
owned() {
	local sec cookie=1000000 downs=0 dl=null ud=null st act
	top_file owned
	for ((sec = 1; sec < 15; sec++)); do
		[ $sec = 1 ] && { cookie=999999; downs=1; dl=1; }
		[ $sec = 2 ] && { cookie=999998; downs=2; ud=1; }
		top_begin
		row /iolat-d 2100 null null 0 0 1500.0 5.859 0.000 null null unknown null 0.000 0.000 0.0 0.000 0.000 0 0 \
			"$(children $cookie /iolat-d/tight 2101 500 $downs 0 0 0 0)"
		st=unknown; [ "$dl" != null ] && st=throttled; [ "$ud" != null ] && st=delayed
		row /iolat-d/loose 2103 null null 0 0 1100.0 4.297 0.000 $dl $cookie $st $ud \
			0.000 0.000 400.0 0.000 0.000 $((sec * 400)) 1 -
		row /iolat-d/tight 2101 500 "$(winobj false false 3 3 1 down)" $((sec * 10)) $((sec * 10)) \
			30.0 0.117 0.000 null $cookie throttling null 0.000 0.000 0.0 0.000 0.000 0 1 -
		if [ $sec -ge 2 ]; then
			act=hold; [ $((sec % 4)) = 0 ] && act=tighter
			row /iolat-d/mid 2102 3000 "$(winobj false false 20 14 1 $act)" $(((sec - 1) * 10)) \
				$(((sec - 1) * 10)) 200.0 0.781 0.000 null $cookie unknown null 0.000 0.000 0.0 \
				0.000 0.000 0 1 -
		fi
		top_end $sec
	done
}

# unknown: blkcg_debug_stats off, iolat-top alone: /iolat-u/web's and
# /iolat-u/batch's depth never changed while it ran, so it is unknown.
unknown() {
	local -a t_w tm
	local sec
	top_file unknown
	for ((sec = 1; sec < 10; sec++)); do
		top_begin
		row /iolat-u 1700 null null 0 0 2600.0 10.156 0.000 null null unknown null 0.000 0.000 0.0 0.000 0.000 0 0 -
		row /iolat-u/batch 1702 null null 0 0 2400.0 9.375 0.000 null null unknown null 0.000 0.000 0.0 0.000 0.000 0 0 -
		row /iolat-u/web 1701 5000 "$(winobj true true 20 0 0 ok)" $((sec * 10)) 0 200.0 0.781 0.000 null \
			1000000 unknown null 0.000 0.000 0.0 0.000 0.000 0 1 -
		top_end $sec
	done
}

# ghost: a kernel without the series' fixes.  /iolat-g/a (500us), the
# culprit, is removed at 3 s; /iolat-g/b has the same target, so its
# misses scale the children down and the culprit stays a: cookie events
# and iolat-top's rows name a cgroup that is gone.  12 s, 64 requests.
ghost() {
	local -a t_w tm
	local i ms sec cookie=1000000 dc=max prev cul
	snoop_file ghost
	target 0.1 /iolat-g/a 1801 0 500 user
	target 0.1 /iolat-g/b 1802 0 500 user
	for ((i = 2; i < 120; i++)); do
		tick $i
		[ $i = 30 ] && target 3.0 /iolat-g/a 1801 500 0 offline
		cul=/iolat-g/a; [ $i -ge 30 ] && cul=null
		if [ $((i % 20)) = 0 ]; then
			window_scale down 64 /iolat-g 1800 $cul 1801 500 2000
			follow down /iolat-g/c 1803 dc 64
			if [ $i -lt 30 ]; then
				window "$sec" /iolat-g/a 1801 false false 500 10 5 down $cookie 500
			else
				window "$sec" /iolat-g/b 1802 false false 500 10 5 down $cookie 500
			fi
		fi
		[ $i -lt 30 ] && [ $((i % 20)) != 0 ] &&
			window "$sec" /iolat-g/a 1801 true true 500 10 0 hold $cookie 500
		[ $((i % 20)) != 0 ] && window "$sec" /iolat-g/b 1802 true true 500 10 0 hold $cookie 500
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$cookie $dc"
	done
	top_file ghost
	for ((sec = 1; sec < 12; sec++)); do
		read -r cookie dc <<<"${t_w[$sec]}"
		top_begin
		cul=/iolat-g/a; [ $sec -ge 3 ] && cul=null
		free_row /iolat-g 1800 3000.0 11.719 0.000 \
			"$(children $cookie $cul 1801 500 $((sec / 2)) 0 0 0 0)"
		row /iolat-g/b 1802 500 "$(winobj true true 10 0 1 hold)" $((sec * 10)) $((sec / 2)) 100.0 0.391 0.000 max \
			$cookie ok 0 0.000 0.000 0.0 0.000 0.000 0 1 -
		limited_row /iolat-g/c 1803 2800.0 10.938 0.000 $dc $cookie throttled 0 0.0
		top_end $sec
	done
}

# target: "target=3" written for 3 ms: 3us.  A few windows only.
target_typo() {
	local -a t_w tm
	local i sec
	snoop_file target
	target 0.1 /iolat-x/db 1901 0 3 user
	for ((i = 2; i < 8; i++)); do
		sec=0.$i
		window "$sec" /iolat-x/db 1901 false false 3 10 10 hold 1000000 3
	done
	top_file target
	top_begin
	target_row /iolat-x/db 1901 3 "$(winobj false false 10 10 1 hold)" 6 6 100.0 0.391 null ok
	top_end 1
}

# restart: /svc (target 1000us, cgroup id 100) misses every window with
# /batch held at depth 1 for it, and is removed at 10 s; a new /svc (id
# 200, the service started again) meets every window from 11 s and /batch
# gets its depth back.  iolat-top alone, 20 s.
restart() {
	local sec
	top_file restart
	for ((sec = 1; sec <= 20; sec++)); do
		top_begin
		root_row 2600.0 10.156 0.000
		if [ $sec -le 10 ]; then
			row /svc 100 1000 "$(winobj false false 20 10 0 down)" $((sec * 10)) $((sec * 10)) 200.0 0.781 0.000 max \
				999990 ok 0 0.000 0.000 0.0 0.000 0.000 0 1 -
			if [ $sec = 1 ]; then limited_row /batch 300 2400.0 9.375 0.000 max 999990 ok 0 0.0
			else limited_row /batch 300 2400.0 9.375 0.000 1 999990 throttled 0 400.0; fi
		else
			row /svc 200 1000 "$(winobj true true 20 0 0 ok)" $(((sec - 10) * 10)) 0 200.0 0.781 0.000 max \
				1000000 ok 0 0.000 0.000 0.0 0.000 0.000 0 1 -
			limited_row /batch 300 2400.0 9.375 0.000 max 1000000 ok 0 0.0
		fi
		top_end $sec
	done
}

# biodev: /db's target (5000us) is on dm-0, a dm-linear device over
# nullb0: /db reads 400 a second through it, and no window ever opens.
biodev() {
	local sec
	top_file biodev
	for ((sec = 1; sec <= 10; sec++)); do
		top_begin
		DEV=dm-0 DEV_QUEUE='"bio_based":true,"below":["nullb0"]'
		root_row 400.0 1.563 0.000
		row /db 2001 5000 null 0 0 400.0 1.563 0.000 null null unknown null null null null \
			0.000 0.000 0 0 -
		DEV= DEV_QUEUE=
		top_end $sec
	done
}

# idle: a recovery that is quick for the siblings still doing IO.
# /iolat-i/tight (2000us) misses twice at 0.5 and 1 s: /iolat-i/loose and
# /iolat-i/idle are halved to 4.  idle stops reading at 1.2 s; tight meets
# its target from then on and raises the cookie every 500 ms, back at the
# default at 5 s, when loose is at depth max again.  idle's depth stays 4
# in every record: a group's depth follows the cookie only on its next
# bio, and it has none.  tight stops at 8 s; 20 s, 16 requests.
idle() {
	local -a t_w
	local i ms sec cookie=1000000 dl=max di=max w=0 wm=0 downs=0 ups=0 prev act last=-1
	snoop_file idle
	target 0.2 /iolat-i/tight 1901 0 2000 user
	for ((i = 5; i < 80; i++)); do
		tick $i
		act=hold
		if [ $i = 5 ] || [ $i = 10 ]; then
			act=down; last=$ms; downs=$((downs + 1))
			window_scale down 16 /iolat-i 1900 /iolat-i/tight 1901 2000 500
			follow down /iolat-i/loose 1902 dl 16
			follow down /iolat-i/idle 1903 di 16
			window "$sec" /iolat-i/tight 1901 false false 2000 20 6 down $cookie 2000
			wm=$((wm + 1))
		else
			if [ $cookie != 1000000 ] && [ $((ms - last)) -ge 500 ]; then
				act=up; last=$ms; ups=$((ups + 1))
				window_scale up 16 /iolat-i 1900 /iolat-i/tight 1901 2000 500
				follow up /iolat-i/loose 1902 dl 16
			fi
			window "$sec" /iolat-i/tight 1901 true true 2000 20 0 $act $cookie 2000
		fi
		[ $i -le 12 ] && throttle "$sec" /iolat-i/idle 1903 "${di/max/16}" 600
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $wm $cookie $dl $di $downs $ups"
	done
	top_file idle
	for ((sec = 1; sec <= 20; sec++)); do
		[ -n "${t_w[$sec]:-}" ] && read -r w wm cookie dl di downs ups <<<"${t_w[$sec]}"
		top_begin
		free_row /iolat-i 1900 2600.0 10.156 0.000 \
			"$(children $cookie /iolat-i/tight 1901 2000 $downs $ups 0 0 0)"
		limited_row /iolat-i/loose 1902 $((100 * ${dl/max/16})).0 6.250 0.000 $dl $cookie \
			$(depth_state $dl) 0 10.0
		if [ $sec -le 1 ]; then
			limited_row /iolat-i/idle 1903 400.0 1.563 0.000 $di $cookie $(depth_state $di) 0 8.0
		else
			row /iolat-i/idle 1903 null null 0 0 0.0 0.000 0.000 $di $cookie $(depth_state $di) 0 \
				0.000 0.000 0.0 0.000 0.000 8 1 -
		fi
		if [ $sec -le 8 ]; then
			target_row /iolat-i/tight 1901 2000 "$(winobj true true 20 0 1 hold)" "$w" "$wm" 200.0 \
				0.781 $cookie ok
		fi
		top_end $sec
	done
}

# equal: two siblings with one target.  /iolat-e/db (5000us) misses every
# other window beside /iolat-e/batch, also 5000us, reading hard: each of
# db's scale-downs (every 500 ms) finds batch's target as tight as its own
# and leaves it at depth max (a "protected" skip).  10 s, 16 requests.
equal() {
	local -a t_w
	local i ms sec cookie=1000000 w=0 wm=0 downs=0 skips=0 prev act last=-1
	snoop_file equal
	target 0.1 /iolat-e/db 2301 0 5000 user
	target 0.1 /iolat-e/batch 2302 0 5000 user
	for ((i = 2; i < 100; i++)); do
		tick $i
		act=hold
		if [ $((i % 2)) = 0 ]; then
			if [ $((ms - last)) -ge 500 ]; then
				act=down; last=$ms; downs=$((downs + 1))
				window_scale down 16 /iolat-e 2300 /iolat-e/db 2301 5000 500
				skip "$sec" /iolat-e/batch 2302 $prev $cookie protected 5000 5000
				skips=$((skips + 1))
			fi
			window "$sec" /iolat-e/db 2301 false false 5000 20 8 $act $cookie 5000
			wm=$((wm + 1))
		else
			window "$sec" /iolat-e/db 2301 true true 5000 20 0 hold $cookie 5000
		fi
		window "$sec" /iolat-e/batch 2302 true true 5000 60 0 not_owner $cookie 5000
		w=$((w + 1))
		[ $((i % 10)) = 9 ] && t_w[$((i / 10))]="$w $wm $cookie $downs $skips"
	done
	top_file equal
	for ((sec = 1; sec < 10; sec++)); do
		read -r w wm cookie downs skips <<<"${t_w[$sec]}"
		top_begin
		free_row /iolat-e 2300 2600.0 10.156 0.000 \
			"$(children $cookie /iolat-e/db 2301 5000 $downs 0 0 0 0)"
		PROTECTED=$skips row /iolat-e/batch 2302 5000 "$(winobj true true 60 0 1 not_owner)" \
			$((sec * 10)) 0 2400.0 9.375 0.000 max $cookie ok 0 0.000 0.000 0.0 0.000 0.000 0 1 -
		target_row /iolat-e/db 2301 5000 "$(winobj false false 20 8 1 hold)" "$w" "$wm" 200.0 \
			0.781 $cookie throttling
		top_end $sec
	done
}

# rotational: for --suggest.  /iolat-v/db (3000us) on a rotational disk
# beside /iolat-v/bulk (no target): its window means 5000-7900us while
# bulk has depth max, four scale-downs take bulk to depth 1 by 2.4 s, and
# from then on db's means are 1800-2699us (1800 + 137 i mod 900), all met.
# 14 s, 16 requests.
rotational() {
	local i ms sec cookie=1000000 db=max prev last=-1 mean
	snoop_file rotational
	target 0.1 /iolat-v/db 2401 0 3000 user
	for ((i = 2; i < 140; i++)); do
		tick $i
		if [ "$db" != 1 ]; then
			mean=$((5000 + (i * 290) % 3000))
			act=hold
			if [ $((ms - last)) -ge 500 ] || [ $last -lt 0 ]; then
				act=down; last=$ms
				window_scale down 16 /iolat-v 2400 /iolat-v/db 2401 3000 500
				follow down /iolat-v/bulk 2402 db 16
			fi
			window_mean "$sec" /iolat-v/db 2401 false 3000 10 $mean $act $cookie 3000
		else
			mean=$((1800 + (i * 137) % 900))
			window_mean "$sec" /iolat-v/db 2401 true 3000 10 $mean hold $cookie 3000
		fi
		throttle "$sec" /iolat-v/bulk 2402 "${db/max/16}" 900
	done
}

# writeback: scenario 8's bulk writer as iolat-top records it.
# /iolat-wb/db (5000us) met its target in all but one window in ten;
# /iolat-wb/bulk, a buffered writer with no target, is at depth 1 with
# use_delay 2, writing 40 MB/s of writeback, nearly every bio of which
# waits for its slot: none is issued as root (REQ_META or REQ_SWAP), so
# none would be charged with a target either.  10 s, 16 requests.
writeback() {
	local sec
	top_file writeback
	for ((sec = 1; sec <= 10; sec++)); do
		top_begin
		root_row 480.0 1.500 40.000
		free_row /iolat-wb 2200 480.0 1.500 40.000 \
			"$(children 999992 /iolat-wb/db 2201 5000 $((sec + 7)) 0 0 0 0)"
		limited_row /iolat-wb/bulk 2202 80.0 0.000 40.000 1 999992 delayed 2 76.0
		target_row /iolat-wb/db 2201 5000 "$(winobj true true 40 0 1 hold)" $((sec * 10)) $sec \
			400.0 1.500 999992 throttling
		top_end $sec
	done
}

healthy
unreachable
swap
floor_case
flapping
sawtooth
recovery
tail_case
protected protected 25 "2 0 3 2 2 3 0 2 3 2 3"
protected smalltail 3 "1 0 2 0 1 0 1 2 0 0 1"
nothing
tighter
owned
unknown
ghost
target_typo
restart
biodev
idle
writeback
equal
rotational
