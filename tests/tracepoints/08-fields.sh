# The v2 fields and reasons no other test asserts, in one scenario on
# null_blk iolat0 with one tag (hw_queue_depth=1, no scheduler: nr_requests
# 1) and 4 ms completions.  With one tag a flood hurts tight even when the
# flooder is held at depth 1: each of tight's reads waits for loose's
# request in flight, 7-8 ms in all, so tight's 6 ms target is missed for as
# long as loose floods and met (4 ms) as soon as it stops.  That makes the
# parent's state deterministic: scaled down while loose runs, raised by
# tight's own windows once it stops.
#
# Below iolat-p: tight (target 6 ms, reads at queue depth 1), loose (no
# target, FIO_BULK), rare (target 250 ms, one direct 4 KiB read a second)
# and idle (target 200 ms, no IO).  Phases, each after a trace mark:
#  first-target  tight's target on the fresh device: iolatency_enable 0->1
#                with nr_targets=1 (the work item trails the write);
#  more-targets  rare's and idle's: no enable event (nr_targets 2, 3);
#  flood         loose floods, tight reads: the cookie goes down, tight
#                skips each step (protected: its target is scale_lat) and
#                rare its first (few_ios: its samples, 0 or 1 at that
#                point, are within 5% of the siblings', at least 1);
#  same-value    idle's target written unchanged while scaled: nothing;
#  rewrite       idle's target 200->150 ms: target by=user, then the
#                parent's reset by=target naming tight, the culprit;
#  idle-removed  once tight scaled again, idle is removed: target
#                by=offline, then reset by=offline naming tight;
#  flood-off     once tight scaled again, loose and rare stop: tight meets
#                its target and raises the cookie (window action=up);
#  easy          tight's target 100 ms: its windows meet it (met=1);
#  last-target   rare's, then tight's target=max: iolatency_enable 1->0
#                with nr_targets=0.
# Then, over every event of the trace: the formulas and invariants of
# iolatency_window, _scale_cookie, _scale_reset, _scale_skip, _target and
# _throttle that block/blk-iolatency.c guarantees (see each check).
. "$IOLAT_REPO/tests/lib.sh"

dev=iolat0
T=/tmp/fields-trace.txt		# the raw trace
N=/tmp/fields-events.txt	# one event a line: "SEGMENT EVENT [WHO] FIELD..."

nullb_create $dev completion_nsec=4000000 hw_queue_depth=1 no_sched=1
qd=$(cat /sys/block/$dev/queue/nr_requests)
[ "$qd" = 1 ] || fail "nr_requests of $dev is $qd, want 1 (hw_queue_depth=1, no_sched=1)"
for g in tight loose rare idle; do cg_create iolat-p/$g; done
tight_id=$(cg_id iolat-p/tight)
loose_id=$(cg_id iolat-p/loose)
rare_id=$(cg_id iolat-p/rare)
note "cgroup_id: tight $tight_id, loose $loose_id, rare $rare_id"

trace_events iolatency_enable iolatency_target iolatency_window \
	iolatency_scale_cookie iolatency_scale_reset iolatency_scale_skip \
	iolatency_throttle

# seen MARK ERE: an event matching ERE since trace mark MARK.
seen() { trace_since "$1" | grep -Eq -- "$2"; }
# wait_seen SECONDS MARK ERE WHAT: wait for it, or fail saying WHAT did
# not happen.
wait_seen() {
	timed_wait "$1" "$4" seen "$2" "$3" && return 0
	trace_since "$2" | grep -o 'iolatency_[a-z_]*: .*' | grep -v iolatency_throttle | tail -5
	fail "$4: not within $1 s after mark '$2'"
}
P="\[$dev:/iolat-p\]"
DOWN="iolatency_scale_cookie: $P cookie=1000000->[0-9]+ step=-"

# ---- the scenario

trace_mark first-target
io_latency_set iolat-p/tight $dev 6000
wait_seen 10 first-target "iolatency_enable: \[$dev\] " "io.latency switched on"
trace_mark more-targets
io_latency_set iolat-p/rare $dev 250000
io_latency_set iolat-p/idle $dev 200000
sleep 1		# the enable work would have run by now

trace_mark flood
cg_run iolat-p/rare bash -c "while :; do dd if=/dev/$dev of=/dev/null bs=4k count=1 \
	iflag=direct status=none; sleep 1; done" &
loose_start $dev
fio_job iolat-p/tight tight $dev 600 "${FIO_SYNC[@]}"
wait_seen 90 flood "$DOWN" "tight's first scale-down"
wait_seen 30 flood "iolatency_scale_skip: \[$dev:/iolat-p/tight\] .* reason=protected " \
	"tight skipping a scale-down (protected)"
wait_seen 30 flood "iolatency_scale_skip: \[$dev:/iolat-p/rare\] .* reason=few_ios " \
	"rare skipping a scale-down (few_ios)"

# The cookie cannot rise while loose floods (tight misses every window,
# so no window raises it and the idle timer keeps the culprit).
trace_mark same-value
io_latency_set iolat-p/idle $dev 200000
trace_mark rewrite
io_latency_set iolat-p/idle $dev 150000
wait_seen 10 rewrite "iolatency_scale_reset: $P .* by=target" "the parent's reset by idle's new target"
wait_seen 20 rewrite "$DOWN" "tight scaling down again after the reset"

trace_mark idle-removed
rmdir "$CG/iolat-p/idle" || fail "cannot remove iolat-p/idle"
wait_seen 20 idle-removed "iolatency_scale_reset: $P .* by=offline" "the parent's reset by idle's removal"
wait_seen 20 idle-removed "$DOWN" "tight scaling down again after idle's removal"

cg_kill iolat-p/rare || fail "rare's reads did not stop"
cg_kill iolat-p/loose || fail "loose's fio did not stop"
trace_mark flood-off
wait_seen 30 flood-off "iolatency_window: \[$dev:/iolat-p/tight\] met=1 action=up " \
	"tight raising the cookie once the flood stopped"

trace_mark easy
io_latency_set iolat-p/tight $dev 100000
wait_seen 20 easy "iolatency_window: \[$dev:/iolat-p/tight\] met=1 action=ok target_ns=100000000 " \
	"a met window of tight with its easy target"

cg_kill iolat-p/tight || fail "tight's fio did not stop"
io_latency_set iolat-p/rare $dev max
trace_mark last-target
io_latency_set iolat-p/tight $dev max
wait_seen 10 last-target "iolatency_enable: \[$dev\] " "io.latency switched off"
sleep 0.5
echo 0 >"$TRACEFS/tracing_on"
cp "$TRACEFS/trace" $T || fail "cannot copy the trace"
lost=$(cat "$TRACEFS"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
echo 1 >"$TRACEFS/tracing_on"
[ "$lost" = 0 ] || fail "the trace buffer overran ($lost events lost): the checks need every event"

# Each event as "SEGMENT EVENT [WHO] FIELD...", SEGMENT the last mark.
awk '/tracing_mark_write: iolat-test: / { seg = $NF; next }
     { for (i = 1; i <= NF; i++) if ($i ~ /^iolatency_[a-z_]+:$/) break
       if (i >= NF) next
       s = (seg == "" ? "start" : seg) " " substr($i, 1, length($i) - 1)
       for (j = i + 1; j <= NF; j++) s = s " " $j
       print s }' $T >$N
note "events: $(cut -d' ' -f2 $N | sort | uniq -c | tr -s ' \n' ' ')"

# ---- checks on the whole trace

# shellcheck disable=SC2016
AWKLIB='
function parse(   i, p, v) {
	delete f
	for (i = 4; i <= NF; i++)
		if ((p = index($i, "=")) > 1) {
			v = substr($i, p + 1)
			if (v ~ /^-?[0-9]+$/) v += 0	# numbers compare as numbers
			f[substr($i, 1, p - 1)] = v
		}
}
function old(k,   a) { split(f[k], a, "->"); return a[1] + 0 }
function new(k,   a) { split(f[k], a, "->"); return a[2] + 0 }
'
# every [-0] EVENT FILTER COND WHAT: COND holds for each EVENT line that
# FILTER selects (awk expressions over its fields f[], old() and new() of
# an "a->b" field); the lines it fails on are shown.  If none is selected
# the test fails here, saying so, unless -0.
every() {
	local allow0=0 rc
	[ "$1" = -0 ] && { allow0=1; shift; }
	awk -v ev="$1" -v allow0=$allow0 -v what="$4" -v dev="$dev" -v tight_id="$tight_id" \
		-v loose_id="$loose_id" "$AWKLIB"'
	$2 != ev { next }
	{ parse() }
	!('"$2"') { next }
	{ n++ }
	!('"$3"') { if (++bad <= 5) print "  " $0 }
	END {
		printf "# %s: %d of %d %s events\n", what, n - bad, n, ev
		if (n == 0 && !allow0) exit 2
		exit bad > 0
	}' $N
	rc=$?
	[ $rc != 2 ] || fail "no $1 event to check ($4)"
	return $rc
}
# has SEGMENT ERE WHAT: an event line of SEGMENT ("" for any) matches ERE.
has() {
	local got
	got=$(awk -v s="$1" 's == "" || $1 == s' $N | grep -m1 -E -- "$2")
	[ -n "$got" ] || fail "$3"
	note "$got"
}
# count SEGMENT EVENT: the events of that kind in that segment.
count() { awk -v s="$1" -v e="$2" '$1 == s && $2 == e { n++ } END { print n + 0 }' $N; }

# iolatency_enable: once on with the first target, once off with the
# last; nothing for the targets in between (nr_targets 2 and 3), idle's
# removal (3 -> 2) or rare's target=max (2 -> 1).  frozen_ns > 0.
has first-target "^first-target iolatency_enable \[$dev\] enabled=0->1 nr_targets=1 frozen_ns=[1-9][0-9]*\$" \
	"no iolatency_enable 0->1 with nr_targets=1 and frozen_ns > 0 for the first target"
has last-target "^last-target iolatency_enable \[$dev\] enabled=1->0 nr_targets=0 frozen_ns=[1-9][0-9]*\$" \
	"no iolatency_enable 1->0 with nr_targets=0 and frozen_ns > 0 when the last target went"
n=$(grep -c ' iolatency_enable ' $N)
[ "$n" = 2 ] || { grep ' iolatency_enable ' $N; fail "$n iolatency_enable events, want 2: one for a target that was not the first or last"; }
[ "$(count more-targets iolatency_enable)" = 0 ] ||
	fail "iolatency_enable for a second target on the device"

# iolatency_target: tight's first by=user; nothing for an unchanged
# target, even while the parent is scaled (and no reset either); a change
# is by=user and resets the parent after it; a removal is by=offline (new
# 0, the default window) and resets the parent after it; nobody else went
# offline.
has first-target "^first-target iolatency_target \[$dev:/iolat-p/tight\] target_ns=0->6000000 win_ns=100000000 by=user\$" \
	"no iolatency_target by=user for tight's first target"
[ "$(count same-value iolatency_target)" = 0 ] || fail "iolatency_target for an unchanged target"
[ "$(count same-value iolatency_scale_reset)" = 0 ] || fail "the parent's scaling reset by an unchanged target"
# order SEGMENT ERE1 ERE2 WHAT: in SEGMENT, a line matches ERE1 and the
# first line matching ERE2 comes after it.  (The EREs go through the
# environment: awk -v would take their backslashes for escapes.)
order() {
	A=$2 B=$3 awk -v s="$1" '$1 != s { next }
		$0 ~ ENVIRON["A"] && !ia { ia = NR }
		$0 ~ ENVIRON["B"] && !ib { ib = NR; print "# " $0 }
		END { exit !(ia && ib && ia < ib) }' $N || fail "$4"
}
order rewrite "iolatency_target \[$dev:/iolat-p/idle\] target_ns=200000000->150000000 win_ns=1000000000 by=user\$" \
	"iolatency_scale_reset $P cookie=99[0-9][0-9][0-9][0-9]->1000000 step=[1-9][0-9]* culprit_id=$tight_id scale_lat_ns=6000000 idle_ns=[0-9]+ by=target\$" \
	"no iolatency_target by=user for idle's new target followed by the parent's reset by=target from a scaled-down cookie naming tight (id $tight_id)"
order idle-removed "iolatency_target \[$dev:/iolat-p/idle\] target_ns=150000000->0 win_ns=100000000 by=offline\$" \
	"iolatency_scale_reset $P cookie=99[0-9][0-9][0-9][0-9]->1000000 step=[1-9][0-9]* culprit_id=$tight_id scale_lat_ns=6000000 idle_ns=[0-9]+ by=offline\$" \
	"no iolatency_target by=offline for idle's removal followed by the parent's reset by=offline from a scaled-down cookie naming tight (id $tight_id)"
# shellcheck disable=SC2016
every iolatency_target 'f["by"] == "offline"' '$3 == "[" dev ":/iolat-p/idle]" && new("target_ns") == 0' \
	"by=offline only for idle, the group removed, to target 0" ||
	fail "iolatency_target by=offline for a group not removed, or not to 0"

# iolatency_scale_reset: back to the default cookie; step is new - old.
every iolatency_scale_reset 1 'new("cookie") == 1000000 && f["step"] == new("cookie") - old("cookie")' \
	"reset to 1000000, step = new - old" ||
	fail "iolatency_scale_reset not to cookie 1000000, or step is not new - old"

# iolatency_scale_skip: each reason as check_scale_change() decides it.
# protected: the group's target is at most scale_lat (or there is none);
# few_ios: a looser target, and samples within thresh (5% of the
# siblings', at least 1); raced: no thresh.  protected and few_ios skip a
# scale-down: the cookie fell.
has "" "iolatency_scale_skip \[$dev:/iolat-p/tight\] cookie=[0-9]+->[0-9]+ reason=protected target_ns=6000000 scale_lat_ns=6000000 samples=[0-9]+ thresh=0\$" \
	"no protected skip by tight with target_ns = scale_lat_ns = 6000000"
every iolatency_scale_skip 'f["reason"] == "protected"' \
	'(f["scale_lat_ns"] == 0 || f["target_ns"] + 0 <= f["scale_lat_ns"] + 0) && f["thresh"] == 0 && new("cookie") < old("cookie")' \
	"protected: target <= scale_lat, thresh 0, cookie fell" ||
	fail "a protected skip whose target is looser than scale_lat, with a thresh, or not for a scale-down"
has "" "iolatency_scale_skip \[$dev:/iolat-p/rare\] cookie=[0-9]+->[0-9]+ reason=few_ios target_ns=250000000 scale_lat_ns=6000000 samples=[0-9]+ thresh=[1-9][0-9]*\$" \
	"no few_ios skip by rare (target 250 ms, scale_lat 6 ms)"
every iolatency_scale_skip 'f["reason"] == "few_ios"' \
	'f["scale_lat_ns"] > 0 && f["target_ns"] + 0 > f["scale_lat_ns"] + 0 && f["thresh"] >= 1 && f["samples"] + 0 <= f["thresh"] + 0 && new("cookie") < old("cookie")' \
	"few_ios: target > scale_lat > 0, samples <= thresh, thresh >= 1, cookie fell" ||
	fail "a few_ios skip with samples over thresh, thresh 0, a target not looser than scale_lat, or not for a scale-down"
every -0 iolatency_scale_skip 'f["reason"] == "raced"' 'f["thresh"] == 0' "raced: thresh 0" ||
	fail "a raced skip with a thresh"
note "raced skips (opportunistic, not required): $(grep -c ' iolatency_scale_skip .* reason=raced ' $N)"

# iolatency_scale_cookie: step is new - old; a window's move names the
# culprit, tight here (the only target that misses), and its target; the
# timer only raises, with no culprit.
every iolatency_scale_cookie 1 'f["step"] == new("cookie") - old("cookie") && f["step"] != 0' \
	"step = new - old, non-zero" || fail "an iolatency_scale_cookie whose step is not new - old, or 0"
every iolatency_scale_cookie 'f["by"] == "window"' 'f["culprit_id"] == tight_id && f["scale_lat_ns"] > 0' \
	"by=window: culprit tight, scale_lat > 0" ||
	fail "a scale by a window whose culprit_id is not tight's ($tight_id), or without scale_lat"
every -0 iolatency_scale_cookie 'f["by"] == "timer"' 'f["step"] > 0 && f["culprit_id"] == 0' \
	"by=timer: step > 0, no culprit" || fail "a scale by the timer that did not raise the cookie, or with a culprit"
has flood "^flood iolatency_scale_cookie $P cookie=[0-9]+->[0-9]+ step=-[1-9][0-9]* culprit_id=$tight_id " \
	"no scale-down by tight while loose flooded"
has flood-off "^flood-off iolatency_scale_cookie $P cookie=[0-9]+->[0-9]+ step=[1-9][0-9]* culprit_id=$tight_id scale_lat_ns=6000000 idle_ns=[0-9]+ by=window\$" \
	"no scale-up by tight's window once the flood stopped"

# iolatency_window: what iolatency_check_latencies() guarantees of each.
every iolatency_window 1 'f["met"] == 0 || f["win_met"] == 1' "met=1 only with win_met=1" ||
	fail "a window with met=1 although the window alone missed (win_met=0)"
every iolatency_window 1 \
	'(f["action"] ~ /^(ok|few|up|not_owner)$/ && f["met"] == 1) || (f["action"] ~ /^(down|tighter|offline)$/ && f["met"] == 0) || f["action"] == "hold"' \
	"ok/few/up/not_owner met, down/tighter/offline missed" ||
	fail "a window whose action disagrees with its verdict met"
every iolatency_window 'f["action"] ~ /^(hold|few|up|down|not_owner|tighter)$/' 'f["acc_samples"] + 0 >= f["samples"] + 0' \
	"folded windows: acc_samples >= samples" ||
	fail "a window folded into the accumulated statistic with fewer acc_samples than its own samples"
every iolatency_window 'f["action"] == "ok"' 'f["cookie"] == 1000000' "action=ok at cookie 1000000" ||
	fail "a window with action=ok while the parent's cookie was not 1000000"
every iolatency_window 1 'f["ssd"] == 1 && f["mean_ns"] == 0 && f["acc_mean_ns"] == 0' \
	"ssd=1, no means on null_blk" || fail "a window on null_blk with ssd=0 or a mean (the rotational statistic)"
every iolatency_window 1 'f["missed"] + 0 <= f["samples"] + 0 && f["acc_missed"] + 0 <= f["acc_samples"] + 0' \
	"missed <= samples, acc_missed <= acc_samples" ||
	fail "a window with more missed bios than samples (window or accumulated)"
has easy "^easy iolatency_window \[$dev:/iolat-p/tight\] met=1 action=ok target_ns=100000000 " \
	"no met window of tight with its easy 100 ms target"
has flood-off "^flood-off iolatency_window \[$dev:/iolat-p/tight\] met=1 action=up target_ns=6000000 .* win_met=1 " \
	"no window of tight with action=up once the flood stopped"

# iolatency_throttle: only bios that slept (rq_qos_wait() returns true
# only after io_schedule()), so each waited; max_depth is never 0; and
# only loose is ever scaled (tight is protected, rare a reader at queue
# depth 1, iolat-p's parent never scales).  inflight is read before the
# wait, and a bio also sleeps behind earlier sleepers below the depth:
# inflight >= depth is not guaranteed, only counted.
every iolatency_throttle 1 'f["wait_ns"] > 0' "wait_ns > 0" || fail "an iolatency_throttle with wait_ns=0"
every iolatency_throttle 1 'f["depth"] >= 1 && f["cgroup_id"] == loose_id' "depth >= 1, loose's" ||
	fail "an iolatency_throttle with depth 0, or for a group other than loose (id $loose_id)"
note "throttled bios with inflight < depth when they started waiting:" \
	"$(awk '$2 == "iolatency_throttle" { n++; split($5, d, "="); split($6, i, "="); if (i[2] + 0 < d[2] + 0) k++ }
		END { print k + 0 " of " n + 0 }' $N)"
