# trace-cmd: lists the twelve events, system by system (iolatency and
# blkcg), and their formats, records the throttling scenario with
# "trace-cmd record -e iolatency -e blkcg" and prints the decisions with
# "trace-cmd report": tight's missed windows, the scale-down it causes,
# loose's depth halving to 1 and its bios waiting.  (Event filters are
# tested through tracefs in 01-tracefs.)
. "$IOLAT_REPO/tests/lib.sh"

command -v trace-cmd >/dev/null ||
	fail "trace-cmd is not installed (guest/install-deps lists it: make deps)"
DAT=/tmp/iolat.dat

# Each system lists the series' events in it and no other.
for sys in $IOLAT_SYSTEMS; do
	trace-cmd list -e "$sys" >/tmp/iolat-list.txt 2>&1 ||
		{ cat /tmp/iolat-list.txt; fail "trace-cmd list -e $sys failed"; }
	cat /tmp/iolat-list.txt
	want=$(system_events "$sys")
	for ev in $want; do
		grep -qx "$sys:$ev" /tmp/iolat-list.txt || fail "trace-cmd list -e $sys does not list $sys:$ev"
	done
	n=$(grep -c "^$sys:" /tmp/iolat-list.txt)
	[ "$n" = "$(echo "$want" | wc -l)" ] ||
		fail "trace-cmd list -e $sys lists $n events, want $(echo "$want" | wc -l)"
done
# iolatency_depth's depth is two u32 (UINT_MAX: no limit), printed as
# they are, with no formatted copy in the record.
trace-cmd list -e iolatency:iolatency_depth -F --full >/tmp/iolat-format.txt 2>&1
grep -q 'field:u64 cgroup_id;' /tmp/iolat-format.txt &&
	grep -q 'field:u32 old;' /tmp/iolat-format.txt &&
	grep -q 'field:u32 new;' /tmp/iolat-format.txt &&
	grep -q '^print fmt: "\[%s:%s\] depth=%u->%u ' /tmp/iolat-format.txt ||
	{ cat /tmp/iolat-format.txt; fail "trace-cmd list -F: not iolatency_depth's format"; }
! grep -q 'field:[^;]* depth[[;]' /tmp/iolat-format.txt ||
	{ cat /tmp/iolat-format.txt; fail "trace-cmd list -F: iolatency_depth has a depth field"; }

# Record while "${HOLD[@]}" runs: tracing is on before it starts.
trace-cmd record -b 4096 -e iolatency -e blkcg -o $DAT "${HOLD[@]}" trace-cmd \
	>/tmp/iolat-record.txt 2>&1 &
rec=$!
bg_track $rec
tracer_wait 60 $rec hold_started trace-cmd ||
	{ cat /tmp/iolat-record.txt; fail "trace-cmd record did not start"; }
sleep 1
throttle_start
wait_for 120 loose_at_depth1 || fail "loose never reached depth 1 (io.stat: $(cat "$CG/iolat-p/loose/io.stat"))"
sleep 2
hold_release trace-cmd
tracer_end 120 $rec
rc=$?
cg_kill iolat-p
tail -n 12 /tmp/iolat-record.txt
[ "$rc" = 0 ] || fail "trace-cmd record exited $rc"
[ -s $DAT ] || fail "trace-cmd record wrote no $DAT"

trace-cmd report --check-events -i $DAT ||
	fail "trace-cmd report cannot parse the formats recorded in $DAT"
trace-cmd report -i $DAT >/tmp/iolat-report.txt 2>/tmp/iolat-report.err ||
	{ cat /tmp/iolat-report.err; fail "trace-cmd report failed"; }
R=/tmp/iolat-report.txt
note "report: $(grep -c ' iolatency_' $R) events, $(grep -c 'EVENTS DROPPED' $R) drop notices"
grep ' iolatency_' $R | grep -v iolatency_throttle | head -12

check_decisions $R " " "trace-cmd report"

