# How long recovery takes, in the worst case.  tracepoints/03-throttle-nonrot
# (check_throttling) checks the way down (loose's depth halving step by step
# to 1, then use_delay) and that loose gets depth max back once tight stops,
# but not how long that takes.  Here, in throttle_start's scenario, tight
# reads until the scale cookie of /iolat-p's children is at its floor
# (1000000 - 2 x nr_requests, where scaling down stops: the deepest hole),
# then stops.  From the trace, the way back must take at most 60 s and be
# only this: 5 s after the last scale-down the idle timer forgets the
# culprit; each timer tick (1 s, while loose does IO) then raises the cookie
# one step, the steps chaining up to 1000000; loose turns each into
# use_delay - 1 until it is 0, then depth + 1, and the cookie back at
# 1000000 into depth max.  So use_delay only falls and reaches 0 no later
# than the depth leaves 1, and the depth only rises.  The timeline is
# printed.
. "$IOLAT_REPO/tests/lib.sh"

bound=60
dev=iolat0
trace_events iolatency_target iolatency_scale_cookie iolatency_scale_grp_clear \
	iolatency_depth iolatency_use_delay
throttle_start
tight_id=$(cg_id iolat-p/tight)
qd=$(cat /sys/block/$dev/queue/nr_requests)
floor=$((1000000 - 2 * qd))

timed_wait 120 "the cookie at its floor $floor" grep -q \
	"iolatency_scale_cookie: \[$dev:/iolat-p\] cookie=[0-9]*->$floor step=-" "$TRACEFS/trace" ||
	fail "the cookie did not reach $floor:" \
		"$(grep -o 'iolatency_scale_cookie: .*' "$TRACEFS/trace" | tail -2)"
is_delayed $dev iolat-p/loose ||
	fail "loose not at depth 1 with use_delay: $(cat "$CG/iolat-p/loose/io.stat")"
use=$(iostat_key iolat-p/loose $dev use_delay)
cg_kill iolat-p/tight || fail "cannot stop tight"
trace_mark pressure off

back() { trace_since pressure off | grep -q "iolatency_depth: \[$dev:/iolat-p/loose\] depth=[0-9]*->$DEPTH_MAX "; }
timed_wait $((bound + 30)) "loose back at depth max" back ||
	fail "loose's depth not back within $((bound + 30)) s: $(trace_since pressure off | tail -3)"
sleep 1
is_unthrottled $dev iolat-p/loose ||
	fail "io.stat of loose after recovery: $(cat "$CG/iolat-p/loose/io.stat")"
cg_kill iolat-p/loose

# rel FILE: each event as "SECONDS TEXT", seconds since the first one.
rel() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
	       if (i > NF) next
	       t = substr($i, 1, length($i) - 1)
	       if (!n++) t0 = t
	       printf "%.2f %s\n", t - t0, substr($0, index($0, $i) + length($i) + 1) }' "$1"
}
# at FILE ERE: the time of the first event of FILE matching ERE.
at() { grep -m1 -E "$2" "$1" | cut -d' ' -f1; }
cp "$TRACEFS/trace" /tmp/trace.txt
awk '/iolatency_target: .* target_ns=0->1000000 / { on = 1 } on
     /tracing_mark_write: iolat-test: pressure off/ { exit }' /tmp/trace.txt >/tmp/down.txt
rel /tmp/down.txt >/tmp/down.rel
trace_since pressure off >/tmp/up.txt
rel /tmp/up.txt >/tmp/up.rel
L="\[$dev:/iolat-p/loose\]"

note "way down, from tight's target: loose at depth 1 after" \
	"$(at /tmp/down.rel "iolatency_depth: $L depth=2->1 ") s, use_delay on after" \
	"$(at /tmp/down.rel "iolatency_use_delay: $L use_delay=0->1 ") s, cookie at $floor after" \
	"$(at /tmp/down.rel "cookie=[0-9]+->$floor step=-") s in" \
	"$(grep -c 'iolatency_scale_cookie:' /tmp/down.rel) steps; use_delay then $use"
note "way back:"
grep -v 'iolatency_target:' /tmp/up.rel | head -80

# The culprit (tight, by cgroup id) is forgotten first, after 5 s without
# scaling, the cookie left where it was (step 0).
clear=$(grep -m1 -E "iolatency_scale_grp_clear: \[$dev:/iolat-p\] cookie=([0-9]+)->\1 step=0 culprit_id=$tight_id " /tmp/up.rel) ||
	fail "the idle timer never forgot tight (cgroup_id $tight_id)"
idle=$(echo "$clear" | sed -n 's/.* idle_ns=\([0-9]*\) .*/\1/p')
[ "${idle:-0}" -ge 5000000000 ] || fail "culprit forgotten after ${idle}ns idle, want >= 5 s: $clear"
idle=$((idle / 1000000))	# ms, for the summary
t_clear=${clear%% *}

# The cookie: only timer steps up (step > 0), after that, chaining up to
# 1000000.
sed -n 's/^\([0-9.]*\) iolatency_scale_cookie: .* cookie=\([0-9]*\)->\([0-9]*\) step=\(-*[0-9]*\) .* by=\([a-z]*\).*/\1 \2 \3 \4 \5/p' \
	/tmp/up.rel | awk '{ $4 = $4 + 0 > 0 ? "up" : "down"; print }' >/tmp/cookie.txt
[ -s /tmp/cookie.txt ] || fail "no cookie steps after tight stopped"
awk -v c="$t_clear" -v fl="$floor" '
	$4 != "up" || $5 != "timer" { print "not a timer step up: " $0; bad = 1 }
	$3 + 0 <= $2 + 0 { print "step does not raise the cookie: " $0; bad = 1 }
	$1 + 0 < c + 0 { print "before the culprit was forgotten: " $0; bad = 1 }
	NR == 1 && $2 != fl { print "first step not from the floor " fl ": " $0; bad = 1 }
	NR > 1 && $2 != prev { print "steps do not chain: " prev " then " $0; bad = 1 }
	{ prev = $3 }
	END { if (prev != 1000000) { print "cookie ends at " prev; bad = 1 }; exit bad }' \
	/tmp/cookie.txt || fail "the cookie did not climb back step by step"
steps=$(wc -l </tmp/cookie.txt)

# loose: use_delay only falls, to 0; the depth only rises, to max; and
# use_delay is 0 by the time the depth leaves 1.
sed -n "s|^\([0-9.]*\) iolatency_use_delay: $L use_delay=\([0-9]*\)->\([0-9]*\) .*|\1 \2 \3|p" \
	/tmp/up.rel >/tmp/use.txt
sed -n "s|^\([0-9.]*\) iolatency_depth: $L depth=\([0-9]*\)->\([0-9]*\) .*|\1 \2 \3|p" \
	/tmp/up.rel | depth_words >/tmp/depth.txt
awk '$3 >= $2 { print "use_delay rose: " $0; bad = 1 } { last = $3 }
     END { if (last != "0") { print "use_delay ends at " last; bad = 1 }; exit bad }' \
	/tmp/use.txt || fail "use_delay did not fall to 0 step by step"
awk 'function n(d) { return d == "max" ? 1e12 : d + 0 }
     n($3) <= n($2) { print "depth fell: " $0; bad = 1 } { last = $3 }
     END { if (last != "max") { print "depth ends at " last; bad = 1 }; exit bad }' \
	/tmp/depth.txt || fail "the depth did not rise back to max"
t_use0=$(awk '$3 == 0 { print $1; exit }' /tmp/use.txt)
t_leave=$(head -1 /tmp/depth.txt | cut -d' ' -f1)
t_max=$(tail -1 /tmp/depth.txt | cut -d' ' -f1)
awk -v a="$t_use0" -v b="$t_leave" 'BEGIN { exit !(a <= b) }' ||
	fail "depth left 1 at +${t_leave}s, before use_delay was 0 (+${t_use0}s)"

note "recovery: culprit forgotten at +${t_clear}s (idle ${idle}ms)," \
	"$steps timer steps from $floor to 1000000 from +$(head -1 /tmp/cookie.txt | cut -d' ' -f1)s," \
	"use_delay $use->0 at +${t_use0}s, depth 1->$(head -1 /tmp/depth.txt | cut -d' ' -f3)" \
	"at +${t_leave}s, max at +${t_max}s in $(wc -l </tmp/depth.txt) steps" \
	"(expected about 5 + $((2 * qd)) s; bound $bound s)"
awk -v t="$t_max" -v b=$bound 'BEGIN { exit !(t <= b) }' ||
	fail "recovery took ${t_max}s, over the ${bound}s bound"
