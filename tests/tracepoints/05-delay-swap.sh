# Induced delay, the case io.latency was built for: a group under a
# memory limit swaps on the device a tighter sibling needs.  Its swap IO
# is issued as root, so it cannot be queued behind a depth limit; instead
# each swap bio charges the group delay (its target minus the bio's
# latency), and the group's tasks sleep it off on return to user space,
# at most 250 ms at a time.  Checked through iolatency_delay_charge,
# blkcg_delay_pay (trace system blkcg: blk-cgroup's payment, which says
# whose delay it is, by=io.latency with use_delay > 0 here, io.cost's
# otherwise) and iolatency_use_delay.  The per-bio events (charge, pay)
# name loose by its cgroup id, not its path.
. "$IOLAT_REPO/tests/lib.sh"

trace_events iolatency_delay_charge blkcg_delay_pay iolatency_use_delay
swap_scenario_start
trap 'swapoff /dev/iolat0 2>/dev/null' EXIT
id=$(cg_id iolat-p/loose)
LOOSE="\[iolat0\] cgroup_id=$id"
BY='by=io.latency use_delay=[1-9][0-9]*'	# io.latency's delay, use_delay on
note "loose's cgroup_id: $id"

wait_for 120 grep -q "blkcg_delay_pay: $LOOSE pid=[0-9]* comm=dd $BY " \
	"$TRACEFS/trace" || { tail -5 "$TRACEFS/trace"; fail "dd never paid induced delay"; }
sleep 3
cp "$TRACEFS/trace" /tmp/trace.txt
swapped=$(swap_used iolat0)
note "swap in use: ${swapped} KiB; io.stat of loose: $(cat "$CG/iolat-p/loose/io.stat")"
grep -q 'iolatency_use_delay: \[iolat0:/iolat-p/loose\] use_delay=0->1' /tmp/trace.txt ||
	fail "use_delay never came on for loose"

# Each charge is the target minus the bio's latency, to the nanosecond.
grep -o "iolatency_delay_charge: $LOOSE lat_ns=[0-9]* charge_ns=[0-9]* delay_ns=[0-9]*" /tmp/trace.txt |
	head -3
n=$(grep -c "iolatency_delay_charge: $LOOSE " /tmp/trace.txt)
[ "$n" -gt 0 ] || fail "no delay charged to loose"
# (awk counts the charges it checked: none checked is a failure too)
grep -o "iolatency_delay_charge: $LOOSE lat_ns=[0-9]* charge_ns=[0-9]*" /tmp/trace.txt |
	sed 's/.*lat_ns=\([0-9]*\) charge_ns=\([0-9]*\)/\1 \2/' |
	awk '{ n++; s = $1 + $2; if (s != 10000000) { print "bad charge: lat " $1 "ns charge " $2 "ns"; bad = 1 } }
	     END { print "# " n + 0 " charges checked"
		   if (n == 0) { print "no charge line to check"; exit 1 }
		   exit bad }' || fail "charges do not add up to the 10 ms target"

# Payments: dd, in loose, never more than the 250 ms cap per sleep, and
# capped=1 exactly when it owed more.
grep -o 'blkcg_delay_pay: .*' /tmp/trace.txt | head -3
grep -o "blkcg_delay_pay: $LOOSE pid=[0-9]* comm=dd $BY delay_ns=[0-9]* sleep_ns=[0-9]* capped=[01]" /tmp/trace.txt |
	sed 's/.*delay_ns=\([0-9]*\) sleep_ns=\([0-9]*\) capped=\([01]\)/\1 \2 \3/' |
	awk '{ n++; want = $1 < 250000000 ? $1 : 250000000
	       if ($2 != want) { print "owed " $1 "ns, slept for " $2 "ns"; bad = 1 }
	       if ($3 != ($1 > 250000000)) { print "owed " $1 "ns, capped=" $3; bad = 1 } }
	     END { print "# " n + 0 " payments by dd checked"
		   if (n == 0) { print "no payment by dd to check"; exit 1 }
		   exit bad }' || fail "a sleep is not min(owed, 250 ms), or capped is not owed > 250 ms"
if grep -q 'sleep_ns=250000000 capped=1 ' /tmp/trace.txt; then note "some sleeps were capped at 250 ms"; fi
pays=$(grep 'blkcg_delay_pay:' /tmp/trace.txt)
[ -n "$pays" ] || fail "no blkcg_delay_pay event in the trace copy"
! grep -v "blkcg_delay_pay: $LOOSE " <<<"$pays" ||
	fail "a group other than loose (cgroup_id $id) paid delay"
# All of it io.latency's (io.cost is not on): by=io.latency, use_delay on.
! grep -v " $BY delay_ns=" <<<"$pays" ||
	fail "a payment not by io.latency with use_delay on"

# The protected reader keeps going while loose swaps: 50 IOPS at least
# (measured: 443); a reader stalled behind the swap storm does a few.
r1=$(iostat_key iolat-p/tight iolat0 rios)
sleep 2
r2=$(iostat_key iolat-p/tight iolat0 rios)
note "tight reader: $(( (r2 - r1) / 2 )) IOPS while loose swaps"
[ $((r2 - r1)) -ge 100 ] || fail "the protected reader stalled: $((r2 - r1)) reads in 2 s"
cg_kill iolat-p
