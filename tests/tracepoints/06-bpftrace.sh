# The bpftrace scripts of tracepoints/ run on the real events and print
# what the swap scenario produces: scale-downs by tight, loose's depth
# steps, delay slept by dd, missed windows, time at depth 1.
#
# bpftrace starts slowly under emulation, each script at its own pace, so
# the scripts run with no time limit of their own (no argument: $1 is 0)
# and the test waits for each to say it is tracing, within one generous
# limit for all.  Then the scenario runs until the scripts have printed
# the lines checked below that they print as events come (a scale-down by
# tight, loose's last depth step, a missed window) and dd has paid delay
# (blkcg_delay_pay through tracefs too: iolat-delay-hist prints only
# at exit), then SIGINT ends them all and each prints its summary, as
# after Ctrl-C.
. "$IOLAT_REPO/tests/lib.sh"

B=$IOLAT_REPO/tracepoints
scripts="iolat-scale iolat-depth iolat-delay-hist iolat-window iolat-depth1 iolat-culprit"
# The three bounds add up to 540 s, under the runner's 600 s a test:
# past that the runner would kill the test without saying which step hung.
start=240	# s for all six to compile and attach, side by side (55 s seen)
run=180		# s at most for the scenario to show what is checked
declare -A PID
for s in $scripts; do
	BPFTRACE_STRLEN=64 bpftrace "$B/$s.bt" >/tmp/$s.out 2>&1 &
	PID[$s]=$!
	bg_track $!
done
# bg_track's EXIT trap stops the scripts if the test fails before SIGINT.
trap 'bg_stop; swapoff /dev/iolat0 2>/dev/null' EXIT
# bpftrace prints "Attaching N probes..." once the script is compiled;
# the script's BEGIN prints "Tracing ..." once every probe is attached.
deadline=$((SECONDS + start))
for s in $scripts; do
	for line in '^Attaching [0-9]+ probes?' '^Tracing '; do
		tracer_wait $((deadline - SECONDS)) "${PID[$s]}" grep -Eq "$line" /tmp/$s.out
		rc=$?
		[ $rc = 0 ] || { cat /tmp/$s.out
			fail "$s: no /$line/ (tracer_wait $rc: 1 it ended, 124 not within $start s)"; }
	done
done
note "all scripts tracing after $SECONDS s (bound $start s)"

# Every line checked is of the shape its script prints (see each script's
# header): a line of its own per event, or a map entry of its summary.
T='[0-9][0-9]:[0-9][0-9]:[0-9][0-9]'	# time("%H:%M:%S ")
trace_events blkcg_delay_pay
swap_scenario_start
tid=$(cg_id iolat-p/tight)
culprit_line="$T iolat0 +/iolat-p +/iolat-p/tight +$tid +1000us ([0-9]+)->([0-9]+)"
last_step_line="$T iolat0 +/iolat-p/loose +2->1 +[0-9]+"
window_line="$T iolat0 +/iolat-p/tight +ssd [0-9]+/[0-9]+ bios over 1000us = [0-9]+\.[0-9]% \(limit 10% = [0-9]+\) win=[0-9]+ms action=down"
# seen: what the scenario must show, with what is still missing in $MISSING.
seen() {
	MISSING=
	grep -Eqx "$culprit_line" /tmp/iolat-culprit.out || MISSING+=" scale-down-by-tight"
	grep -Eqx "$last_step_line" /tmp/iolat-depth.out || MISSING+=" loose-depth-2->1"
	grep -Eqx "$window_line" /tmp/iolat-window.out || MISSING+=" missed-window"
	grep -q 'blkcg_delay_pay: \[iolat0\] cgroup_id=[0-9]* pid=[0-9]* comm=dd by=io.latency use_delay=[1-9][0-9]* ' \
		"$TRACEFS/trace" || MISSING+=" dd-paid-delay"
	[ -z "$MISSING" ]
}
timed_wait $run "the scenario shown to the scripts" seen ||
	fail "within $run s of the scenario, still missing:$MISSING"
EXIT_BOUND=${IOLAT_BPFTRACE_EXIT_BOUND:-120}
# The scenario has shown what the scripts must print: end its tasks
# before the scripts' summaries, so that nothing changes under them (loose
# stays at depth 1: no window of tight's is left to scale it up) and the
# six exits (summaries, detaching) do not compete with a swapping hog.
cg_kill iolat-p || fail "the scenario's tasks did not die"
note "at SIGINT: $(mem_summary); the scripts' swapped-out KiB:$(for s in $scripts; do
	printf ' %s' "$(awk '/^VmSwap:/ { print $2 }' "/proc/${PID[$s]}/status" 2>/dev/null)"; done)"
# bpftrace 0.17 can miss a SIGINT (sigint_wait says how, and sends it
# again): in one CI run (stop 26) iolat-delay-hist was still running
# 240 s after its one SIGINT, with nothing printed after BEGIN's line.
# Otherwise all six end within 2 s (eight runs on 2026-12-05, no swap in
# use at SIGINT).  One deadline for all six; each one's exit time is
# printed, and a script still running then has its threads' states and
# wait channels printed (proc_report).
t_int=$EPOCHREALTIME
end=$((SECONDS + EXIT_BOUND))
for s in $scripts; do kill -INT "${PID[$s]}" 2>/dev/null; done
for s in $scripts; do
	sigint_wait $((end - SECONDS)) "${PID[$s]}"
	rc=$?
	again=
	[ "$SIGINT_AGAIN" = 0 ] || again=", SIGINT sent again $SIGINT_AGAIN times"
	note "$s ended $(awk -v a="$t_int" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s after SIGINT (exit $rc$again)"
	[ $rc = 124 ] && { proc_report "${PID[$s]}"; note "$(mem_summary)"; }
	[ $rc = 0 ] || { cat /tmp/$s.out; fail "$s exited $rc on SIGINT (124: still running $EXIT_BOUND s after SIGINT)"; }
done
for s in $scripts; do echo "== $s"; cat /tmp/$s.out; done
for s in $scripts; do
	! grep -qi 'error' /tmp/$s.out || fail "$s reported an error"
done

# out SCRIPT ERE WHY: SCRIPT printed a line that is ERE (has_line).
out() { has_line "/tmp/$1.out" "$2" "$1: $3"; }

# iolat-culprit: a line per scale-down, "TIME DEVICE PARENT CULPRIT
# CULPRIT_ID SCALE_LAT OLD->NEW" (the event names the culprit by id, the
# script its path, learnt from tight's target event), and the scale-downs
# counted per culprit id, mapped to tight's path.
out iolat-culprit "$culprit_line" "no scale-down line naming tight (id $tid, scale_lat 1000us)"
# (each line a scale-down: the cookie fell)
awk '{ split($NF, c, "->"); if (c[2] + 0 >= c[1] + 0) { print "not a scale-down: " $0; bad = 1 } }
     END { exit bad }' <<<"$LINES" || fail "iolat-culprit: a line for a cookie that did not fall"
out iolat-culprit "@downs\[iolat0, $tid\]: [1-9][0-9]*" "no scale-downs counted for tight (id $tid)"
out iolat-culprit "@culprit\[$tid\]: /iolat-p/tight" "id $tid not mapped to /iolat-p/tight"

# iolat-depth: "TIME DEVICE CGROUP OLD->NEW COOKIE", loose's first halving
# from max and its last one, to 1.
want=$(depth_halvings iolat0)
first=${want%% *}
out iolat-depth "$T iolat0 +/iolat-p/loose +$first +[0-9]+" "no $first line for loose (steps $want)"
out iolat-depth "$last_step_line" "no 2->1 line for loose"

# iolat-scale: scale-downs of /iolat-p counted, by a window.
out iolat-scale '@down\[iolat0, /iolat-p\]: [1-9][0-9]*' "no scale-down counted for /iolat-p"
out iolat-scale '  window: [1-9][0-9]* down, [0-9]+ up' "no scale-down by a window"
out iolat-scale '  timer:  [0-9]+ down, [0-9]+ up' "no count of the timer's scale events"

# iolat-delay-hist: a histogram keyed "@slept_us[dd, PID]:", its bucket
# lines "[LOW, HIGH)   COUNT |@@@|", at least one with a count.
awk '/^@slept_us\[dd, [0-9]+]: ?$/ { keys++; in_dd = 1; next }
     in_dd && /^(\(\.\.\., 0\)|\[[0-9]+[KMGT]?]|\[[0-9]+[KMGT]?, [0-9]+[KMGT]?\)) +[0-9]+ \|@* *\|$/ {
	buckets++
	for (i = 2; i <= NF; i++) if ($i ~ /^\|/) break
	if ($(i - 1) + 0 > 0) { nonzero++; slept += $(i - 1) }
	next
     }
     { in_dd = 0 }
     END { printf "# %d histograms of dd, %d bucket lines, %d with a count (%d sleeps)\n",
		  keys, buckets, nonzero, slept
	   exit !(nonzero > 0) }' /tmp/iolat-delay-hist.out ||
	fail "iolat-delay-hist: no histogram of dd's sleeps with a non-zero bucket"

# iolat-window: a line per missed window of tight (non-rotational: the
# share of bios over target), one of them scaling down; missed counted.
out iolat-window "$window_line" "no missed window of tight with action=down"
out iolat-window '@missed\[iolat0, /iolat-p/tight\]: [1-9][0-9]*' "no missed windows counted for tight"

# iolat-depth1: loose is still at depth 1 when the scripts stop.
out iolat-depth1 'Still at depth 1 at [0-9]+ ms, since \(ms\):' "no summary"
out iolat-depth1 '@at1_since_ms\[iolat0, /iolat-p/loose\]: [0-9]+' "loose not shown at depth 1"
