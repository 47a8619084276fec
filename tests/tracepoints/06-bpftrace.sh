# The bpftrace scripts of tracepoints/ run on the real events and print
# what the swap scenario produces: scale-downs by tight, loose's depth
# steps, delay slept by dd, missed windows, time at depth 1.
. "$IOLAT_REPO/tests/lib.sh"

B=$IOLAT_REPO/tracepoints
scripts="iolat-scale iolat-depth iolat-delay-hist iolat-window iolat-depth1 iolat-culprit"
secs=75
pids=
for s in $scripts; do
	BPFTRACE_STRLEN=64 bpftrace "$B/$s.bt" $secs >/tmp/$s.out 2>&1 &
	pids+=" $!"
done
for s in $scripts; do
	wait_for 180 grep -q '^Tracing' /tmp/$s.out || { cat /tmp/$s.out; fail "$s did not start"; }
done
sleep 3
trap 'swapoff /dev/iolat0 2>/dev/null' EXIT
swap_scenario_start
wait $pids	# the scripts end on their own after $secs s
for s in $scripts; do echo "== $s"; cat /tmp/$s.out; done
for s in $scripts; do
	! grep -qi 'error' /tmp/$s.out || fail "$s reported an error"
done
grep -q '/iolat-p/tight' /tmp/iolat-culprit.out || fail "iolat-culprit: tight not named"
grep -q 'iolat0 *\/iolat-p\/loose *max->' /tmp/iolat-depth.out || fail "iolat-depth: no max->N for loose"
grep -q '/iolat-p/loose *2->1' /tmp/iolat-depth.out || fail "iolat-depth: no 2->1 for loose"
grep -q '/iolat-p' /tmp/iolat-scale.out || fail "iolat-scale: no parent"
grep -q 'dd' /tmp/iolat-delay-hist.out || fail "iolat-delay-hist: dd not shown"
grep -q '\[' /tmp/iolat-delay-hist.out || fail "iolat-delay-hist: no histogram"
grep -q '/iolat-p/tight' /tmp/iolat-window.out || fail "iolat-window: tight not shown"
grep -q "at1_since_ms\[iolat0, /iolat-p/loose\]" /tmp/iolat-depth1.out || fail "iolat-depth1: loose not shown at depth 1"
cg_kill iolat-p
