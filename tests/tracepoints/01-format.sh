# Every iolatency event exists with the fields tools and filters rely on.
. "$IOLAT_REPO/tests/lib.sh"

E=$TRACEFS/events/iolatency
[ -d "$E" ] || fail "no iolatency events in tracefs: patches/ not applied"
check() {	# event field...
	local ev=$1 f
	shift
	[ -r "$E/$ev/format" ] || fail "no event iolatency:$ev"
	for f in devname cgroup cgroup_id "$@"; do
		grep -q "field:.* $f;" "$E/$ev/format" ||
		grep -q "field:.* $f\[" "$E/$ev/format" ||
			fail "iolatency:$ev has no field $f"
	done
	grep -q 'print fmt: "\[%s:%s\]' "$E/$ev/format" ||
		fail "iolatency:$ev does not print [dev:cgroup] first"
}
check iolatency_window target_us win_ms nr_samples mean_us nr_missed met action cookie ssd
check iolatency_target old_us new_us win_ms
check iolatency_scale_cookie culprit old new up step scale_lat_us timer
check iolatency_scale_grp_clear culprit idle_ms cookie
check iolatency_depth old new cookie nr_requests
check iolatency_throttle depth inflight wait_us
check iolatency_use_delay old new delay_us
check iolatency_delay_charge req_us charge_us delay_us
check iolatency_delay_pay comm pid delay_us sleep_us slept_us capped memdelay
n=$(ls -d "$E"/iolatency_* | wc -l)
[ "$n" = 9 ] || fail "expected 9 iolatency events, found $n"
