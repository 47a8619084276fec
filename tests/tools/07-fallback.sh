# iolat-top's io.stat mode against its events mode, over the same seconds
# of the noisy-neighbour scenario on null_blk (tight with a 1 ms target,
# loose flooding the device): with --no-events it shows what a kernel
# without the series shows - io.stat, io.latency, io.pressure - and
# reports the rest as unknown (null), never 0 or ok.  Checked with
# blkcg_debug_stats off, then on; prints a comparison of the two modes.
# Four iolat-tops over the same seconds, started once: the events, the io.stat
# mode with --no-functions (a kernel that inlines the controller's
# functions: no BPF), the io.stat mode with blkcg_add_delay and
# blkcg_maybe_throttle_current attached - both with --no-state, the
# io.stat mode as it is where the state reader cannot run - and the
# io.stat mode with --no-functions and the state reader (io.latency's
# own state through BTF, a sample a refresh): DEPTH, use_delay, COOKIE
# and the parent's culprit known with debug stats off too, agreeing with
# the events and with io.stat's debug keys, the culprit after its parent
# as the events put it; what a sample cannot tell still unknown.  The
# noisy neighbour charges no delay (loose's bios are its own, not
# root-issued): there the functions must say 0, as the events do.  Then
# the swap scenario of tracepoints/05-delay-swap, which does charge it:
# the functions' delay charged and paid against the events', iolat-snoop
# --no-events's charge and sleep records, and iolat-why -D --no-events on
# them.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

row() { jq -c --arg cg "$1" '.cgroups[] | select(.cgroup == $cg)'; }
# Keys only the events fill: null in every io.stat-mode row without the
# functions (--no-functions).
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
	echo "== $1: events | io.stat mode"
	# One jq (two a cell took 40 s under TCG), on the last
	# reports (no process substitution: the guest has no /dev/fd).
	tail -1 /tmp/fb-events.json >/tmp/cmp-ev.json
	tail -1 /tmp/fb-iostat.json >/tmp/cmp-fb.json
	tail -1 /tmp/fb-state.json >/tmp/cmp-st.json
	jq -n -r --slurpfile ev /tmp/cmp-ev.json \
		--slurpfile fb /tmp/cmp-fb.json \
		--slurpfile st /tmp/cmp-st.json '
		def row($r; $cg): [$r[0].cgroups[] | select(.cgroup == $cg)][0] // {};
		def pad($n): tostring | if length < $n then . + (" " * ($n - length)) else . end;
		def iops: .iops | floor? // "null";
		(("/iolat-p", "/iolat-p/loose", "/iolat-p/tight") as $cg |
		row($ev; $cg) as $e | row($fb; $cg) as $f |
		"\($cg | pad(16)) state \($e.state | pad(11)) | \($f.state | pad(11)) depth \($e.depth | pad(4)) | \($f.depth | pad(4)) use_delay \($e.use_delay | pad(4)) | \($f.use_delay | pad(4)) IOPS \($e | iops | pad(6)) | \($f | iops | pad(6)) win \((if $e.window then "\($e.window.missed_pct // $e.window.mean_us)" else "-" end) | pad(14)) | \((if $f.iostat_debug then "\($f.iostat_debug.missed)/\($f.iostat_debug.total)" else "null" end) | pad(14)) PSI some \($f.io_pressure_some_pct)"),
		"   what only the events showed: \(row($ev; "/iolat-p").children | {cookie, culprit, scale_downs} | tojson), loose \(row($ev; "/iolat-p/loose") | {cookie, throttled_bios_per_s, delay_charged_ms_per_s, interval: .interval.limited_pct} | tojson)",
		"   with the state: \(row($st; "/iolat-p").children | {cookie, culprit, culprit_status} | tojson), loose \(row($st; "/iolat-p/loose") | {depth, use_delay, cookie, state, sample} | tojson), tight \(row($st; "/iolat-p/tight") | {depth, cookie, state, sample} | tojson)"' ||
		fail "cannot compare the last reports"
}

# The four iolat-tops run once, across both debug-stats phases (the
# io.stat mode reads blkcg_debug_stats each refresh), into /tmp/fb-*.live;
# each phase checks its own reports, copied to /tmp/fb-*.json.  The two
# that patch blkcg_maybe_throttle_current's text - the events' tool
# through its tracepoints' jump labels, the functions' through fentry -
# attach and detach one at a time, and with loose frozen: under TCG a
# vCPU can go on executing the INT3 of a patch already finished (README,
# "The guest"); seen here as a soft lockup when the four started
# together, and with one tool alone while loose, delayed, called the
# function on every return to user space.
loose_frozen() { grep -qx 'frozen 1' "$CG/iolat-p/loose/cgroup.events"; }
# freeze_loose WHY / thaw_loose: loose's tasks stopped (none in the
# function) and going again.
freeze_loose() {
	echo 1 >"$CG/iolat-p/loose/cgroup.freeze" || fail "cannot freeze loose ($1)"
	wait_for 60 loose_frozen || fail "loose not frozen 60 s after cgroup.freeze ($1)"
}
thaw_loose() { echo 0 >"$CG/iolat-p/loose/cgroup.freeze" || fail "cannot thaw loose"; }
# attached FILE TEXT PID: TEXT in FILE (a tool's stderr), or PID gone.
attached() { grep -q "$2" "$1" || pid_gone "$3"; }
FOUR=(events iostat fn state)
declare -A TOP
# top_start NAME IOLAT-TOP-ARG...: one of them, and its first report.
top_start() {
	local name=$1
	shift
	"$TOOLS/iolat-top" "$@" -j -d iolat0 1 >/tmp/fb-$name.live 2>/tmp/fb-$name.err &
	TOP[$name]=$!
	bg_track $!
}
reported() { [ -s "/tmp/fb-$1.live" ] || pid_gone "${TOP[$1]}"; }
top_started() {
	wait_for 120 reported "$1" && ! pid_gone "${TOP[$1]}" ||
		fail "iolat-top ($1) did not report: $(cat /tmp/fb-$1.err)"
}
debug_stats 0
freeze_loose "attach"
top_start events
top_started events
top_start fn --no-events --no-state
top_started fn
thaw_loose
top_start iostat --no-events --no-functions --no-state
top_start state --no-events --no-functions
top_started iostat
top_started state
# Throttled again after the pause (tight's cookie may have recovered
# meanwhile): the state sees loose at depth 1 and tight throttling.
throttled_again() {
	tail -1 /tmp/fb-state.live | jqe '([.cgroups[] | select(.cgroup == "/iolat-p/loose" and .depth == 1)] | length == 1) and
		([.cgroups[] | select(.cgroup == "/iolat-p/tight" and .state == "throttling")] | length == 1)' >/dev/null 2>&1
}
timed_wait 120 "loose at depth 1 again, tight throttling" throttled_again ||
	fail "not throttled again 120 s after loose's thaw: $(tail -1 /tmp/fb-state.live | head -c 2000)"
# lines FILE: reports so far.
lines() { local n=0 l; while IFS= read -r l; do n=$((n + 1)); done <"$1"; echo $n; }
declare -A MARK
# phase N: N more reports of each after the mark (reports from the one
# after the mark on: one may have straddled a switch), copied to
# /tmp/fb-NAME.json.
all_past() { local t; for t in "${FOUR[@]}"; do [ "$(lines "/tmp/fb-$t.live")" -ge $(( ${MARK[$t]} + $1 + 1 )) ] || return 1; done; }
phase() {
	local t
	for t in "${FOUR[@]}"; do MARK[$t]=$(lines "/tmp/fb-$t.live"); done
	wait_for $(( $1 * 10 + 60 )) all_past "$1" || fail "fewer than $1 reports of each in $(( $1 * 10 + 60 )) s"
	for t in "${FOUR[@]}"; do
		pid_gone "${TOP[$t]}" && fail "iolat-top ($t) died: $(cat /tmp/fb-$t.err)"
		tail -n +$(( ${MARK[$t]} + 2 )) "/tmp/fb-$t.live" >"/tmp/fb-$t.json"
	done
	cat /tmp/fb-iostat.json /tmp/fb-fn.json /tmp/fb-state.json | jqe true >/dev/null ||
		fail "--no-events printed invalid JSON"
}
# four_stop: those without BPF text first, then (loose frozen, left so)
# the functions', then the events', each waited for; each exits 0 on
# SIGINT.
four_stop() {
	local t p
	for t in iostat state fn events; do
		[ "$t" != fn ] || freeze_loose "detach"
		p=${TOP[$t]}
		kill -INT "$p"
		wait_for 30 pid_gone "$p" || fail "iolat-top ($t) did not end on SIGINT"
		wait "$p" || fail "iolat-top ($t) exited $? on SIGINT: $(cat /tmp/fb-$t.err)"
	done
}

# state_checks LABEL: the io.stat mode with the state reader says so
# (stderr, state_reader) where --no-state says it is off; its last report
# has loose's depth 1, use_delay and cookie, tight throttling with its
# cookie, the parent's children's cookie below the default and tight as
# their culprit (by path and id, as the events name it), the parent and
# tight the first two rows as the events order them; what a sample
# cannot tell (windows, scalings, waits, the interval) null.
SAMPLE_UNKNOWN='.window == null and .interval == null and .throttled_bios == null and
	.throttled_bios_per_s == null and .delay_charged_ms == null and .delay_paid_ms == null and
	(has("scale_skips") | not) and
	((has("children") | not) or (.children.scale_downs == null and
		.children.scale_ups == null and .children.last_scale == null))'
state_checks() {
	local st ev tight sl sp ep
	grep -q "io.latency's state: read through the kernel's BTF" /tmp/fb-state.err ||
		fail "$1: the state reader not used: $(cat /tmp/fb-state.err)"
	grep -q "io.latency's state: not read .*: off (--no-state)" /tmp/fb-iostat.err ||
		fail "$1: --no-state not said: $(cat /tmp/fb-iostat.err)"
	st=$(tail -1 /tmp/fb-state.json)
	ev=$(tail -1 /tmp/fb-events.json)
	tight=$(cg_id iolat-p/tight)
	echo "$st" | jqe '.mode == "iostat" and .mode_reason == "--no-events" and
		.state_reader == "used" and .sample_ms == 100 and .lost_events == null' >/dev/null ||
		fail "$1: state's record head: $(echo "$st" | head -c 400)"
	tail -1 /tmp/fb-iostat.json | jqe '.state_reader == "off (--no-state)"' >/dev/null ||
		fail "$1: --no-state's record head: $(tail -1 /tmp/fb-iostat.json | head -c 400)"
	echo "$st" | jqe "[.cgroups[] | select(($SAMPLE_UNKNOWN) | not)] | length == 0" >/dev/null ||
		fail "$1: with the state, a count or a window not null: $st"
	sl=$(echo "$st" | row /iolat-p/loose)
	echo "$sl" | jqe '.depth == 1 and .use_delay != null and .cookie < 1000000 and
		.sample.inflight != null and .sample.acc_samples != null and
		(.state == "delayed" or .state == "throttled")' >/dev/null ||
		fail "$1: loose with the state: $sl"
	# The interval's samples, every 100 ms at most over 1 s: loose held
	# low the whole time (as the events' interval says it, where they
	# know its depth: not when it has not moved since they started),
	# tight never.
	echo "$sl" | jqe '.sample.interval.samples >= 5 and .sample.interval.depth_min == 1 and
		.sample.interval.limited_pct == 100' >/dev/null ||
		fail "$1: loose's interval with the state: $(echo "$sl" | jq -c .sample)"
	echo "$ev" | row /iolat-p/loose | jqe '.interval == null or
		((.interval.depth_min == null or .interval.depth_min == 1) and
		 (.interval.limited_pct == null or .interval.limited_pct >= 95))' >/dev/null ||
		fail "$1: loose's interval with the events: $(echo "$ev" | row /iolat-p/loose | jq -c .interval)"
	echo "$st" | row /iolat-p/tight | jqe '.depth == "max" and .cookie != null and
		.state == "throttling" and .target_us == 1000 and
		.sample.interval.samples >= 5 and .sample.interval.depth_min == "max" and
		.sample.interval.limited_pct == 0' >/dev/null ||
		fail "$1: tight with the state: $(echo "$st" | row /iolat-p/tight)"
	sp=$(echo "$st" | row /iolat-p)
	ep=$(echo "$ev" | row /iolat-p)
	# The events know the parent's children only after a scaling since
	# their start: a run that begins with loose already at depth 1 may
	# have none (the parent's row then has io.stat's figures only).
	ep=$(echo "${ep:-null}" | jq -c '.children // null')
	[ "$ep" != null ] || note "$1: the events saw no scaling during the run"
	echo "$sp" | jqe --argjson t "$tight" --argjson e "$ep" '.children.cookie < 1000000 and
		.children.culprit == "/iolat-p/tight" and .children.culprit_id == $t and
		.children.culprit_status == "named" and .children.scale_lat_us == 1000 and
		($e == null or (.children.culprit == $e.culprit and
			.children.culprit_id == $e.culprit_id and $e.cookie < 1000000))' >/dev/null ||
		fail "$1: the parent's children with the state: $(echo "$sp" | jq -c .children), events' children: $ep"
	# loose follows the cookie it last saw: the children's, or a step or two behind
	[ $(( $(echo "$sp" | jq .children.cookie) - $(echo "$sl" | jq .cookie) )) -le 4 ] ||
		fail "$1: loose's cookie far from its parent's children's: $sl / $sp"
	echo "$st" | jqe '[.cgroups[].cgroup] | .[0] == "/iolat-p" and .[1] == "/iolat-p/tight"' >/dev/null ||
		fail "$1: with the state, not the parent then its culprit first: $(echo "$st" | jq -c '[.cgroups[].cgroup]')"
	[ "$ep" = null ] ||
		echo "$ev" | jqe '[.cgroups[].cgroup] | index("/iolat-p/tight") == index("/iolat-p") + 1' >/dev/null ||
		fail "$1: the events do not put the culprit after its parent: $(echo "$ev" | jq -c '[.cgroups[].cgroup]')"
	note "$1, state: loose $(echo "$sl" | jq -c '{depth, use_delay, cookie, state, sample}'), parent $(echo "$sp" | jq -c '.children | {cookie, culprit, culprit_status}')"
}

# functions_checks LABEL: the io.stat mode with the functions attached
# says so (stderr, functions, lost_events); its rows are the io.stat
# mode's with the delay charged and paid known, 0 where the events say 0.
EVENTS_ONLY_BUT_DELAY='.window == null and .cookie == null and .interval == null and
	.throttled_bios == null and .throttled_bios_per_s == null and
	.delay_charged_ms != null and .delay_paid_ms != null and
	(has("children") | not) and (has("scale_skips") | not) and .state != "ok" and
	.state != "throttling"'
functions_checks() {
	local fn ev cg f e
	grep -q "functions: blkcg_add_delay attached; blkcg_maybe_throttle_current attached" \
		/tmp/fb-fn.err || fail "$1: stderr does not name the functions attached: $(cat /tmp/fb-fn.err)"
	fn=$(tail -1 /tmp/fb-fn.json)
	ev=$(tail -1 /tmp/fb-events.json)
	echo "$fn" | jqe '.mode == "iostat" and .mode_reason == "--no-events" and
		.functions.blkcg_add_delay == "attached" and
		.functions.blkcg_maybe_throttle_current == "attached" and .lost_events == 0' >/dev/null ||
		fail "$1: functions' record head wrong: $(echo "$fn" | head -c 400); stderr: $(cat /tmp/fb-fn.err)"
	echo "$fn" | jqe "[.cgroups[] | select(($EVENTS_ONLY_BUT_DELAY) | not)] | length == 0" >/dev/null ||
		fail "$1: with the functions, a row is wrong: $fn"
	# No charge in the noisy neighbour: 0 with the functions as with the events.
	for cg in /iolat-p/loose /iolat-p/tight; do
		f=$(echo "$fn" | row "$cg")
		e=$(echo "$ev" | row "$cg")
		echo "$f" | jqe --argjson e "$e" '(.delay_charged_ms > 0) == ($e.delay_charged_ms > 0) and
			(.delay_paid_ms > 0) == ($e.delay_paid_ms > 0) and .delay_charged_ms == 0 and
			.delay_paid_ms == 0 and .delay_charged_ms_per_s == 0' >/dev/null ||
			fail "$1: $cg's delay with the functions $(echo "$f" | jq -c '{delay_charged_ms, delay_paid_ms}'), events $(echo "$e" | jq -c '{delay_charged_ms, delay_paid_ms}')"
	done
	note "$1, functions attached: loose $(echo "$fn" | row /iolat-p/loose | jq -c '{delay_charged_ms, delay_paid_ms, delay_charged_ms_per_s}') (events: $(echo "$ev" | row /iolat-p/loose | jq -c '{delay_charged_ms, delay_paid_ms}'))"
}

# ---- blkcg_debug_stats off: rates, targets and PSI only ----
phase 6
grep -q "no-events: io.stat mode.*blkcg_debug_stats off.*echo 1 >" /tmp/fb-iostat.err ||
	fail "--no-events did not say its mode and debug stats on stderr: $(cat /tmp/fb-iostat.err)"
last=$(tail -1 /tmp/fb-iostat.json)
echo "$last" | jqe '.mode == "iostat" and .mode_reason == "--no-events" and
	.debug_stats == false and .lost_events == null' >/dev/null ||
	fail "debug off: record head wrong: $(echo "$last" | head -c 300)"
echo "$last" | jqe "[.cgroups[] | select(($EVENTS_ONLY) | not)] | length == 0" >/dev/null ||
	fail "debug off: an events-only key is not null: $last"
echo "$last" | row /iolat-p/loose | jqe '.depth == null and .use_delay == null and
	.state == "unknown" and .iostat_debug == null and .iops > 0' >/dev/null ||
	fail "debug off: loose: $(echo "$last" | row /iolat-p/loose)"
echo "$last" | row /iolat-p/tight | jqe '.target_us == 1000 and .iops > 0' >/dev/null ||
	fail "debug off: tight: $(echo "$last" | row /iolat-p/tight)"
state_checks "blkcg_debug_stats off"
# Without debug stats the state's depth is the only one: io.stat has none.
tail -1 /tmp/fb-state.json | row /iolat-p/loose | jqe '.iostat_debug == null' >/dev/null ||
	fail "debug off: io.stat's debug keys with the state: $(tail -1 /tmp/fb-state.json | row /iolat-p/loose)"
# PSI where the kernel has it (CONFIG_PSI, psi not 0)
if cat "$CG/iolat-p/tight/io.pressure" >/dev/null 2>&1; then
	echo "$last" | row /iolat-p/tight | jqe '.io_pressure_some_pct >= 0 and .io_pressure_full_pct >= 0' >/dev/null ||
		fail "io.pressure readable, PSI null: $(echo "$last" | row /iolat-p/tight)"
else
	echo "$last" | row /iolat-p/tight | jqe '.io_pressure_some_pct == null' >/dev/null ||
		fail "no io.pressure, PSI not null"
	note "no PSI in this kernel: io_pressure_* null, as they should be"
fi
ev=$(tail -1 /tmp/fb-events.json)
echo "$ev" | jqe '.mode == "events" and .mode_reason == null and .lost_events == 0' >/dev/null ||
	fail "events mode record head wrong: $(echo "$ev" | head -c 300)"
# (its depth may be null: pinned at 1 before it started, no event since)
echo "$ev" | row /iolat-p/loose | jqe '.iops > 0' >/dev/null ||
	fail "events mode: no loose row: $ev"
compare "blkcg_debug_stats off"
functions_checks "blkcg_debug_stats off"
# Its iolat-why: nearly everything unchecked, depth_unknown said.
"$TOOLS/iolat-why" -j --top /tmp/fb-iostat.json >/tmp/fb-why.json
jqe '(.unchecked | index("unreachable_target")) and (.unchecked | index("flapping")) and
	([.findings[].rule] - ["depth_unknown", "target_not_as_meant"] | length == 0)' </tmp/fb-why.json >/dev/null ||
	fail "iolat-why on the debug-off recording: $(cat /tmp/fb-why.json)"
note "iolat-why, debug off: unchecked $(jq -c .unchecked /tmp/fb-why.json), found $(jq -c '[.findings[].rule]' /tmp/fb-why.json)"
# On the state's recording: depths known, so no depth_unknown; the
# groups' accumulated windows and the culprit sampled (io.stat's debug
# keys off), so unreachable_target, nothing_to_throttle and
# tighter_sibling_owns_scaling checked; flapping still needs the events.
"$TOOLS/iolat-why" -j --top /tmp/fb-state.json >/tmp/fb-why-state.json
jqe '(.unchecked | index("unreachable_target") | not) and
	(.unchecked | index("nothing_to_throttle") | not) and
	(.unchecked | index("tighter_sibling_owns_scaling") | not) and (.unchecked | index("flapping")) and
	([.findings[].rule] | index("depth_unknown") | not)' </tmp/fb-why-state.json >/dev/null ||
	fail "iolat-why on the state's debug-off recording: $(cat /tmp/fb-why-state.json)"
note "iolat-why, debug off, the state: unchecked $(jq -c .unchecked /tmp/fb-why-state.json), found $(jq -c '[.findings[].rule]' /tmp/fb-why-state.json)"

# ---- blkcg_debug_stats on: depth, use_delay, io.stat's window ----
debug_stats 1
phase 6
four_stop
last=$(tail -1 /tmp/fb-iostat.json)
echo "$last" | jqe '.mode == "iostat" and .debug_stats == true' >/dev/null ||
	fail "debug on: record head wrong"
echo "$last" | jqe "[.cgroups[] | select(($EVENTS_ONLY) | not)] | length == 0" >/dev/null ||
	fail "debug on: an events-only key is not null: $last"
ev=$(tail -1 /tmp/fb-events.json)
# The same depth and use_delay as the events say, from io.stat.
fl=$(echo "$last" | row /iolat-p/loose)
el=$(echo "$ev" | row /iolat-p/loose)
echo "$fl" | jqe --argjson e "$el" '.depth == $e.depth and .depth == 1 and
	.state == "delayed" and .use_delay >= 1 and .iostat_debug.total != null' >/dev/null ||
	fail "debug on: loose differs from the events' view: io.stat $fl, events $el"
echo "$last" | row /iolat-p/tight | jqe '.iostat_debug.total != null and
	.iostat_debug.missed != null and .iostat_debug.avg_lat_us == null and .depth == "max" and
	.state == "unthrottled"' >/dev/null ||
	fail "debug on: tight: $(echo "$last" | row /iolat-p/tight)"
# IOPS over the same seconds: the same io.stat, so close.
fi_=$(echo "$fl" | jq .iops)
ei=$(echo "$el" | jq .iops)
awk -v a="$fi_" -v b="$ei" 'BEGIN { exit !(a > 0 && b > 0 && a / b > 0.5 && a / b < 2) }' ||
	fail "loose IOPS: io.stat mode $fi_, events mode $ei"
state_checks "blkcg_debug_stats on"
# The state's depth and use_delay as io.stat's debug keys say them (the
# --no-state run's, over the same seconds), and the events'.
sl=$(tail -1 /tmp/fb-state.json | row /iolat-p/loose)
echo "$sl" | jqe --argjson f "$fl" --argjson e "$el" '.depth == $f.depth and .depth == $e.depth and
	.state == "delayed" and $f.state == "delayed" and .use_delay >= 1 and
	.iostat_debug.total != null' >/dev/null ||
	fail "debug on: loose with the state differs from io.stat's debug keys or the events: state $sl, io.stat $fl, events $el"
tail -1 /tmp/fb-state.json | row /iolat-p/tight | jqe '.iostat_debug.missed != null and
	.depth == "max"' >/dev/null ||
	fail "debug on: tight with the state: $(tail -1 /tmp/fb-state.json | row /iolat-p/tight)"
compare "blkcg_debug_stats on"
functions_checks "blkcg_debug_stats on"
"$TOOLS/iolat-why" -j --top /tmp/fb-iostat.json >/tmp/fb-why.json
jqe '(.unchecked | index("unreachable_target") | not) and (.unchecked | index("flapping"))' \
	</tmp/fb-why.json >/dev/null || fail "iolat-why on the debug-on recording: $(cat /tmp/fb-why.json)"
note "iolat-why, debug on: unchecked $(jq -c .unchecked /tmp/fb-why.json), found $(jq -c '[.findings[].rule]' /tmp/fb-why.json)"
# The text view says the mode, once a header, and the functions.
"$TOOLS/iolat-top" --no-events --no-functions --no-state -b -d iolat0 1 1 >/tmp/fb-text.out 2>/dev/null ||
	fail "iolat-top --no-events --no-functions --no-state -b exited $?"
grep -q "mode: io.stat only (--no-events)" /tmp/fb-text.out || fail "text header: $(head -3 /tmp/fb-text.out)"
grep -q "functions: blkcg_add_delay not attached: off (--no-functions); blkcg_maybe_throttle_current not attached: off (--no-functions)" \
	/tmp/fb-text.out || fail "text header, --no-functions: $(head -3 /tmp/fb-text.out)"
grep -E '^iolat0 +/iolat-p/loose ' /tmp/fb-text.out
"$TOOLS/iolat-top" --no-events --no-state -b -d iolat0 1 1 >/tmp/fb-text.out 2>/dev/null ||
	fail "iolat-top --no-events --no-state -b exited $?"
grep -q "mode: io.stat + functions (--no-events)" /tmp/fb-text.out &&
	grep -q "^  functions: blkcg_add_delay attached; blkcg_maybe_throttle_current attached$" /tmp/fb-text.out &&
	grep -q "without the events: ACCLAT VERDICT ACTION MINDEP LIMIT% COOKIE WAIT/s WAITus MISSED" /tmp/fb-text.out ||
	fail "text header with the functions: $(head -4 /tmp/fb-text.out)"
head -3 /tmp/fb-text.out
grep -E '^iolat0 +/iolat-p/loose ' /tmp/fb-text.out
# With the state (and the functions): DEPTH and COOKIE numbers, tight
# throttling, the parent's line naming tight, its counts unknown.  Loose
# thawed once the functions are attached, frozen again before they are
# detached; the frame read is the last one printed, once one shows
# throttling again (a frame is one write).
"$TOOLS/iolat-top" --no-events -b -d iolat0 1 >/tmp/fb-text.live 2>/tmp/fb-text.err &
p=$!
bg_track $p
wait_for 60 attached /tmp/fb-text.err "blkcg_maybe_throttle_current attached" $p ||
	fail "iolat-top --no-events -b (state) did not attach the functions: $(cat /tmp/fb-text.err)"
thaw_loose
# last_frame: from the last header line of /tmp/fb-text.live on.
last_frame() {
	awk '/^[0-9:.]+  iolat-top  interval/ { n = 0 } { l[n++] = $0 } END { for (i = 0; i < n; i++) print l[i] }' \
		/tmp/fb-text.live
}
# cols: DEVICE CGROUP TARGETus WINLAT ACCLAT SAMP VERDICT ACTION IOPS MB/s DEPTH MINDEP LIMIT% COOKIE STATE
text_throttling() {
	last_frame >/tmp/fb-text.out
	awk '$1 == "iolat0" && $2 == "/iolat-p/loose" && $11 == "1" && $12 == "1" && $13 == "100" { f = 1 } END { exit !f }' /tmp/fb-text.out &&
		awk '$1 == "iolat0" && $2 == "/iolat-p/tight" && $15 == "throttling" { f = 1 } END { exit !f }' /tmp/fb-text.out
}
timed_wait 120 "the text view with the state: loose at depth 1 all interval, tight throttling" text_throttling ||
	fail "the text view with the state: not throttled 120 s after loose's thaw: $(cat /tmp/fb-text.out)"
freeze_loose "detach"
kill -INT $p
wait_for 30 pid_gone $p || fail "iolat-top --no-events -b (state) did not end on SIGINT"
wait $p || fail "iolat-top --no-events -b (state) exited $?: $(cat /tmp/fb-text.err)"
thaw_loose
grep -q "mode: io.stat + functions + state (--no-events)" /tmp/fb-text.out &&
	grep -q "without the events: VERDICT ACTION WAIT/s WAITus MISSED unknown (?); DEPTH ACCLAT COOKIE and culprits as sampled at the refresh, MINDEP LIMIT% over samples every 100 ms at most" /tmp/fb-text.out ||
	fail "text header with the state: $(head -5 /tmp/fb-text.out)"
awk '$1 == "iolat0" && $2 == "/iolat-p/loose" { found = 1; exit !($11 == "1" && $14 ~ /^[0-9]+$/ && $12 == "1" && $13 == "100" && $7 == "?") }
     END { if (!found) exit 1 }' /tmp/fb-text.out ||
	fail "text with the state: loose's DEPTH 1, COOKIE a number, MINDEP 1 and LIMIT% 100 sampled, VERDICT ?: $(grep -E '^iolat0 +/iolat-p/loose ' /tmp/fb-text.out)"
awk '$1 == "iolat0" && $2 == "/iolat-p/tight" { found = 1; exit !($14 ~ /^[0-9]+$/ && $15 == "throttling") }
     END { if (!found) exit 1 }' /tmp/fb-text.out ||
	fail "text with the state: tight's COOKIE, throttling: $(grep -E '^iolat0 +/iolat-p/tight ' /tmp/fb-text.out)"
grep -qE "^ +\`- children's cookie [0-9]+ \(-[0-9]+\), scaled for /iolat-p/tight, \? down / \? up$" /tmp/fb-text.out ||
	fail "text with the state: the parent's line: $(grep -A1 -E '^iolat0 +/iolat-p ' /tmp/fb-text.out)"
grep -A1 -E '^iolat0 +/iolat-p ' /tmp/fb-text.out
# iolat-snoop without the events, the functions and the state: nothing
# to log, exit 3, saying why.  (With the state: tools/14-state.)
expect_exit 3 "neither of the controller's functions can be traced: blkcg_add_delay not attached: off \(--no-functions\).*state is not read: off \(--no-state\)" \
	"$TOOLS/iolat-snoop" --no-events --no-functions --no-state 1
note "iolat-snoop --no-events --no-functions --no-state: $(cat /tmp/err.txt)"

# ---- the swap scenario: delay charged and slept ----
cg_remove iolat-p || fail "cannot remove iolat-p"
nullb_remove iolat0
swap_scenario_start
fbt= evt= fbs=
# The three tools that patch blkcg_maybe_throttle_current's text (the
# functions' two through fentry, the events' iolat-top through its
# tracepoint's jump label) attach, and detach, one at a time: under TCG,
# two patching it at once, with every throttled task calling it, left a
# vCPU executing an INT3 that was no longer in memory (README, "The
# guest"; seen here as a soft lockup, one run in two, when the two
# iolat-tops attached together).
# stop_tools: iolat-snoop, then the functions' iolat-top, then the
# events', each waited for, whichever have not been: on every way out,
# so a failure leaves none attached for the next test.
stop_tools() {
	local p
	for p in $fbs $fbt $evt; do
		kill -INT $p 2>/dev/null
		wait_for 30 pid_gone $p
	done
}
trap 'stop_tools; echo 0 >"$CG/iolat-p/loose/cgroup.freeze" 2>/dev/null; swapoff /dev/iolat0 2>/dev/null' EXIT
reporting() { [ -s "$1" ] || pid_gone "$2"; }
# Attached with loose frozen too: its tasks do not call the function.
# The state walked once a refresh here (--sample-ms 1000), as iolat-snoop
# walks it every 100 ms beside it: with both walking every 100 ms, two
# runs in six never had loose delayed (tight met its target, the cookie
# held; the storm, it seems, short of the guest's CPU under TCG).
freeze_loose "swap: attach"
"$TOOLS/iolat-top" --no-events --sample-ms 1000 -j -d iolat0 1 >/tmp/fb-swap.json 2>/tmp/fb-swap.err &
fbt=$!
wait_for 60 attached /tmp/fb-swap.err "blkcg_maybe_throttle_current attached" $fbt ||
	fail "iolat-top --no-events did not attach the functions: $(cat /tmp/fb-swap.err)"
"$TOOLS/iolat-top" -j -d iolat0 1 >/tmp/ev-swap.json 2>/tmp/ev-swap.err &
evt=$!
wait_for 120 reporting /tmp/ev-swap.json $evt && ! pid_gone $evt ||
	fail "iolat-top did not report: $(cat /tmp/ev-swap.err)"
"$TOOLS/iolat-snoop" --no-events -a -j -d iolat0 >/tmp/fb-snoop.json 2>/tmp/fb-snoop.err &
fbs=$!
wait_for 60 attached /tmp/fb-snoop.err "Hit Ctrl-C" $fbs ||
	fail "iolat-snoop --no-events did not start: $(cat /tmp/fb-snoop.err)"
thaw_loose
# loose_paying FILE: FILE's last report has loose charged and paying
# delay.  Both tools' before the 5 s below: the events' BPF takes longer
# to load, and loose is charged only once the controller has scaled it
# down, and pays later still.
loose_paying() {
	tail -1 "$1" | row /iolat-p/loose |
		jqe '.delay_charged_ms > 0 and .delay_paid_ms > 0' >/dev/null 2>&1
}
both_paying() { loose_paying /tmp/fb-swap.json && loose_paying /tmp/ev-swap.json; }
timed_wait 150 "loose charged and paying delay, by the functions and the events" both_paying || {
	tail -1 /tmp/fb-swap.json | row /iolat-p/loose
	tail -1 /tmp/ev-swap.json | row /iolat-p/loose
	fail "the functions and the events never both showed loose charged and paying delay: $(cat /tmp/fb-swap.err /tmp/ev-swap.err)"
}
# The totals over the same charges: each tool's totals with loose frozen
# (cgroup.freeze: its hog and readers stopped, nothing more charged or
# slept there) before and after 5 s of swapping.  Reports nearest in
# time, the tools' intervals being apart, once gave 495 ms charged
# against 323 ms: a burst of swap-outs inside one tool's interval and
# not the other's.
# quiet LABEL: loose frozen, then two more reports from each tool (its
# in-flight swap-outs charged by then); each tool's loose row then, in
# $Q_FN and $Q_EV.
quiet() {
	local a b
	freeze_loose "swap: $1"
	a=$(lines /tmp/fb-swap.json) b=$(lines /tmp/ev-swap.json)
	two_more() {
		[ "$(lines /tmp/fb-swap.json)" -ge $((a + 2)) ] &&
			[ "$(lines /tmp/ev-swap.json)" -ge $((b + 2)) ]
	}
	wait_for 30 two_more || fail "swap: the tools did not report twice in 30 s with loose frozen ($1)"
	Q_FN=$(tail -1 /tmp/fb-swap.json | row /iolat-p/loose)
	Q_EV=$(tail -1 /tmp/ev-swap.json | row /iolat-p/loose)
}
quiet before
fn0=$Q_FN ev0=$Q_EV
thaw_loose
sleep 5
quiet after
fn1=$Q_FN ev1=$Q_EV
# Detached with loose still frozen: its tasks do not call the function.
kill -INT $fbs
p=$fbs fbs=
wait $p || fail "iolat-snoop --no-events exited $?: $(cat /tmp/fb-snoop.err)"
kill -INT $fbt
p=$fbt fbt=
wait $p || fail "iolat-top --no-events exited $?: $(cat /tmp/fb-swap.err)"
kill -INT $evt
p=$evt evt=
wait $p || fail "iolat-top exited $?: $(cat /tmp/ev-swap.err)"
thaw_loose
grep -q "functions: blkcg_add_delay attached; blkcg_maybe_throttle_current attached" /tmp/fb-swap.err ||
	fail "swap: stderr does not name the functions: $(cat /tmp/fb-swap.err)"
fn=$(tail -1 /tmp/fb-swap.json)
fl=$(echo "$fn" | row /iolat-p/loose)
# Since the start, so never falling: a row that lost its counts (its map
# entry taken for stale, say) would show a smaller total later.
series() {
	jq -r --arg cg /iolat-p/loose '.cgroups[] | select(.cgroup == $cg) |
		"\(.delay_charged_ms) \(.delay_paid_ms)"' "$1"
}
for f in /tmp/fb-swap.json /tmp/ev-swap.json; do
	series $f | awk '$1 == "null" || $2 == "null" { print "null at " NR; bad = 1 }
		NR > 1 && ($1 + 0 < c || $2 + 0 < p) { print "fell at " NR ": " c " " p " -> " $0; bad = 1 }
		{ c = $1 + 0; p = $2 + 0 }
		END { if (NR == 0) { print "no row for loose"; bad = 1 }; exit bad }' ||
		fail "swap: $f: loose's delay charged and paid since the start, per report: $(series $f | tr '\n' ' ')"
done
echo "$fn" | jqe '.functions.blkcg_add_delay == "attached" and
	.functions.blkcg_maybe_throttle_current == "attached" and .lost_events == 0' >/dev/null ||
	fail "swap: record head: $(echo "$fn" | head -c 400); stderr: $(cat /tmp/fb-swap.err)"
echo "$fl" | jqe '.delay_charged_ms > 0 and .delay_paid_ms > 0 and
	.delay_charged_ms_per_s != null and .delay_paid_ms_per_s != null and
	.throttled_bios == null and .window == null' >/dev/null || fail "swap: loose, functions: $fl"
echo "$fn" | row /iolat-p/tight | jqe '.delay_charged_ms == 0' >/dev/null ||
	fail "swap: tight charged delay: $(echo "$fn" | row /iolat-p/tight)"
# The same charges as the events' (blkcg_add_delay is called where
# iolatency_delay_charge fires), the same sleeps (by the task's io cgroup
# here, the blkg paid for there: both loose), between the two quiet
# moments.
span=$(jq -n -c --argjson f0 "$fn0" --argjson f1 "$fn1" --argjson e0 "$ev0" --argjson e1 "$ev1" '
	{fn: {charged: ($f1.delay_charged_ms - $f0.delay_charged_ms),
	      paid: ($f1.delay_paid_ms - $f0.delay_paid_ms)},
	 ev: {charged: ($e1.delay_charged_ms - $e0.delay_charged_ms),
	      paid: ($e1.delay_paid_ms - $e0.delay_paid_ms)},
	 last_fn: ($f1 | {delay_charged_ms, delay_paid_ms, use_delay, depth}),
	 last_ev: ($e1 | {delay_charged_ms, delay_paid_ms, use_delay, depth})}') ||
	fail "swap: loose's rows at the quiet moments: $fn0 $fn1 $ev0 $ev1"
echo "== swap: loose, functions | events, over 5 s between two freezes: $span"
# Within 0.9-1.11 (measured between the freezes: charged equal to the
# microsecond, 346.605 ms both; paid 0.4% apart).  A double count or a
# half, or a tenth more or less, is outside.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && a / b >= 0.9 && a / b <= 1.11) }'; }
ratio "$(echo "$span" | jq .fn.charged)" "$(echo "$span" | jq .ev.charged)" ||
	fail "swap: delay charged to loose over the same seconds: functions $(echo "$span" | jq .fn.charged) ms, events $(echo "$span" | jq .ev.charged) ms"
ratio "$(echo "$span" | jq .fn.paid)" "$(echo "$span" | jq .ev.paid)" ||
	fail "swap: delay paid by loose over the same seconds: functions $(echo "$span" | jq .fn.paid) ms, events $(echo "$span" | jq .ev.paid) ms"
# iolat-snoop --no-events -a: its mode first, then loose's charges (each
# the 10 ms target minus a bio's latency) and sleeps, and the state's
# sampled changes (tools/14-state checks those); none of the events'.
jqe true </tmp/fb-snoop.json >/dev/null || fail "iolat-snoop --no-events printed invalid JSON"
head -1 /tmp/fb-snoop.json | jqe '.schema == 2 and .tool == "iolat-snoop" and .event == "mode" and
	.mode == "functions" and .mode_reason == "--no-events" and .logs == ["charge", "sleep"] and
	.functions.blkcg_add_delay == "attached" and (.cannot_see | index("window"))' >/dev/null ||
	fail "iolat-snoop --no-events: first record: $(head -1 /tmp/fb-snoop.json)"
jq -e -s 'map(select(.event == "charge" and .cgroup == "/iolat-p/loose")) | length > 0 and
	all(.charge_us >= 0 and .charge_us <= 10000 and .schema == 2) and any(.charge_us > 0)' \
	/tmp/fb-snoop.json >/dev/null ||
	fail "iolat-snoop --no-events: loose's charges wrong or none"
jq -e -s 'map(select(.event == "sleep" and .cgroup == "/iolat-p/loose")) | length > 0 and
	all(.slept_us > 0 and .slept_us < 2000000 and .pid > 0)' /tmp/fb-snoop.json >/dev/null ||
	fail "iolat-snoop --no-events: loose's sleeps wrong or none"
jq -e -s 'map(select((.event | IN("mode", "charge", "sleep", "lost")) or .source == "sampled" | not)) |
	length == 0' \
	/tmp/fb-snoop.json >/dev/null || fail "iolat-snoop --no-events: a record of the events' kinds"
note "iolat-snoop --no-events: $(jq -s -c 'group_by(.event) | map({(.[0].event): length}) | add' /tmp/fb-snoop.json), sleepers $(jq -r -s 'map(select(.event == "sleep") | .comm) | unique | join(" ")' /tmp/fb-snoop.json)"
# iolat-why -D on both tools without the events: no_charge_without_target
# is checkable (charges seen, use_delay from io.stat), the rest that needs
# the events is listed unchecked.
"$TOOLS/iolat-why" -j --no-events -d iolat0 -D 8 >/tmp/fb-why-live.json 2>/tmp/fb-why-live.err
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "iolat-why -D --no-events exited $rc: $(cat /tmp/fb-why-live.err)"
jqe '.events > 0 and .rows > 0 and (.unchecked | index("flapping")) and
	(.unchecked | index("no_charge_without_target") | not)' </tmp/fb-why-live.json >/dev/null ||
	fail "iolat-why -D --no-events: $(cat /tmp/fb-why-live.json)"
note "iolat-why -D --no-events: status $rc, unchecked $(jq -c .unchecked /tmp/fb-why-live.json), found $(jq -c '[.findings[].rule]' /tmp/fb-why-live.json)"
cg_kill iolat-p
swapoff /dev/iolat0 || fail "swapoff failed"
debug_stats 0
