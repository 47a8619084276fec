# The protected group's target dropped ("MAJ:MIN target=max") while it
# throttles its siblings.
#
# (1) tight's is the only target on the device (throttle_start).  Once
#     loose is held at depth 1 with use_delay on, tight's target=max:
#     io.latency reads back without the device, and loose is let go at
#     once: the requests in flight on the device go from the 2 that loose
#     (depth 1) and tight (queue depth 1) may have (in most of 30 looks,
#     0.1 s apart: a look may catch a hand-over, never most of them) to 6
#     or more.  With no target left, io.latency is off for the device
#     (enable_cnt 0, the queue frozen to flip it), and nothing resets
#     loose's state: io.stat may keep saying depth=1 use_delay=N although
#     nothing throttles loose
#     (noted, not asserted: it depends on whether a loose bio got in
#     between the write and the freeze).  Once a target is set again
#     (tight idle), loose is back at depth max, use_delay 0 within 30 s.
# (2) Another group keeps a target (siblings_start: loose, and calm with
#     250 ms).  tight's target=max while tight keeps reading: an
#     iolatency_target 1000->0 event, and loose and calm are back at depth
#     max, use_delay 0 within 30 s (siblings_recovered).
# Each part ends with settle: nothing in flight, nothing stuck, new
# readers in a new cgroup read and end.
. "$IOLAT_REPO/tests/lib.sh"

dev=iolat0

# drop_target: tight's target=max; io.latency reads back empty.
drop_target() {
	echo "$(majmin $dev) target=max" >"$CG/iolat-p/tight/io.latency" ||
		fail "cannot write target=max"
	local got
	got=$(cat "$CG/iolat-p/tight/io.latency")
	[ -z "$got" ] || fail "io.latency of tight reads '$got' after target=max"
}
# inflight_looks N: the requests in flight on $dev at N looks, 0.1 s
# apart, one a line.
inflight_looks() {
	local i r w
	for i in $(seq "$1"); do
		read -r r w <"/sys/block/$dev/inflight"
		echo $((r + w))
		sleep 0.1
	done
}

# (1) The only target goes.
throttle_start
wait_throttle delayed 120 $dev iolat-p/loose
# Held at depth 1, loose and tight have at most 2 requests in flight.  A
# look may catch loose's next request issued while its last one, already
# done for io.latency, is still counted in flight: that is a moment, so
# most looks (20 of 30) must see at most 2.  Loose held at depth 2 would
# show 3 in most; let go, 6 or more in all.
looks=$(inflight_looks 30)
held=$(awk '$1 <= 2' <<<"$looks" | wc -l)
note "requests in flight with loose throttled, 30 looks 0.1 s apart:" $looks "($held at most 2)"
[ "$held" -ge 20 ] ||
	fail "loose not held at depth 1: at most 2 requests in flight in only $held of 30 looks:" $looks
drop_target
sleep 1
after=$(inflight_looks 10 | sort -n | tail -1)
note "requests in flight on $dev: at most $after over 1 s after target=max"
[ "$after" -ge 6 ] || fail "loose still held after the last target went: $after requests in flight"
if is_delayed $dev iolat-p/loose; then
	note "NOTE: io.latency is off for $dev now and loose's io.stat is left as it was:" \
		"$(cat "$CG/iolat-p/loose/io.stat")"
else
	note "loose's io.latency state was reset before io.latency went off:" \
		"$(cat "$CG/iolat-p/loose/io.stat")"
fi
cg_kill iolat-p/tight || fail "tight's fio did not die"
io_latency_set iolat-p/tight $dev 1000
wait_throttle unthrottled 30 $dev iolat-p/loose
settle $dev iolat-p

# (2) Another target stays.
siblings_start $dev
trace_mark target max
drop_target
trace_since target max | grep "iolatency_target: \[$dev:/iolat-p/tight\] target_ns=1000000->0 win_ns=100000000 by=user$" ||
	fail "no iolatency_target event for tight's target=max"
siblings_recovered $dev "target max"
pid_gone "$TIGHT_PID" && fail "tight's fio ended"
settle $dev iolat-p
