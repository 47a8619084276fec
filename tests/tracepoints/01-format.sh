# Every iolatency event exists with the fields tools and filters rely on,
# and its text starts as its kind has it: "[dev:cgroup] " for a group's
# decision, "[dev] cgroup_id=N " for a per-bio event (no path), "[dev] "
# for iolatency_enable, a queue's.
. "$IOLAT_REPO/tests/lib.sh"

E=$TRACEFS/events/iolatency
[ -d "$E" ] || fail "no iolatency events in tracefs: patches/ not applied"
has() {		# event field...
	local ev=$1 f
	shift
	[ -r "$E/$ev/format" ] || fail "no event iolatency:$ev"
	for f in "$@"; do
		grep -q "field:.* $f;" "$E/$ev/format" ||
		grep -q "field:.* $f\[" "$E/$ev/format" ||
			fail "iolatency:$ev has no field $f"
	done
}
lacks() {	# event field...: per-bio and queue events carry no path
	local ev=$1 f
	shift
	for f in "$@"; do
		! grep -q "field:.* $f;" "$E/$ev/format" ||
			fail "iolatency:$ev has a field $f"
	done
}
check() {	# event field...: a group's decision
	has "$1" devname cgroup cgroup_id "${@:2}"
	grep -q 'print fmt: "\[%s:%s\] ' "$E/$1/format" ||
		fail "iolatency:$1 does not print [dev:cgroup] first"
}
check_bio() {	# event field...: a per-bio event
	has "$1" devname cgroup_id "${@:2}"
	lacks "$1" cgroup
	grep -q 'print fmt: "\[%s\] cgroup_id=%llu ' "$E/$1/format" ||
		fail "iolatency:$1 does not print [dev] cgroup_id= first"
}
check iolatency_window target_ns win_ns nr_samples nr_missed mean_ns acc_samples acc_missed \
	acc_mean_ns scale_lat_ns cookie action ssd win_met met
check iolatency_target old_ns new_ns win_ns by
has iolatency_enable devname old new nr_targets frozen_ns
lacks iolatency_enable cgroup cgroup_id
grep -q 'print fmt: "\[%s\] enabled=%d->%d ' "$E/iolatency_enable/format" ||
	fail "iolatency:iolatency_enable does not print [dev] enabled= first"
for ev in iolatency_scale_cookie iolatency_scale_grp_clear iolatency_scale_reset; do
	check $ev culprit_id old new scale_lat_ns idle_ns by
	grep -q 'print fmt: "\[%s:%s\] cookie=%u->%u step=%d culprit_id=%llu ' "$E/$ev/format" ||
		fail "iolatency:$ev does not print cookie=old->new step= culprit_id="
done
check iolatency_scale_skip old new reason target_ns scale_lat_ns nr_samples thresh
check iolatency_depth old new cookie nr_requests depth
check_bio iolatency_throttle depth inflight wait_ns
check iolatency_use_delay old new delay_ns
check_bio iolatency_delay_charge lat_ns charge_ns delay_ns
check_bio iolatency_delay_pay comm pid delay_ns sleep_ns slept_ns capped memstall
n=$(ls -d "$E"/iolatency_* | wc -l)
[ "$n" = "$IOLAT_NR_EVENTS" ] || fail "expected $IOLAT_NR_EVENTS iolatency events, found $n"
