# Every event of the series exists, in its trace system (iolatency, or
# blkcg for blkcg_delay_pay), with the fields tools and filters rely on,
# and its text starts as its kind has it: "[dev:cgroup] " for a group's
# decision, "[dev] cgroup_id=N " for a per-bio event (no path), "[dev] "
# for iolatency_enable, a queue's.  Each system holds the series' events
# and no other.
. "$IOLAT_REPO/tests/lib.sh"

for sys in $IOLAT_SYSTEMS; do
	[ -d "$TRACEFS/events/$sys" ] || fail "no $sys events in tracefs: patches/ not applied"
done
# Each format read once and matched in bash: a grep per field (about 150)
# took 20 of the test's 29 s under TCG.
load() {	# event: its format into $FMT, SYSTEM:EVENT into $EV
	EV=$(event_system "$1"):$1
	local f=$TRACEFS/events/${EV%%:*}/$1/format
	[ -r "$f" ] || fail "no event $EV"
	IFS= read -r -d '' FMT <"$f" || true
	[ -n "$FMT" ] || fail "$EV's format is empty"
}
field_in() {	# field: $FMT declares it, a scalar or an array
	local re="field:[^"$'\n'"]* $1(;|\\[)"
	[[ $FMT =~ $re ]]
}
has() {		# event field...
	local ev=$1 f
	shift
	load "$ev"
	for f in "$@"; do
		field_in "$f" || fail "$EV has no field $f"
	done
}
lacks() {	# event field...: the event has none of these fields
	local ev=$1 f
	shift
	load "$ev"
	for f in "$@"; do
		! field_in "$f" || fail "$EV has a field $f"
	done
}
# fmt_starts event text: the event prints text first.
fmt_starts() { load "$1"; [[ $FMT == *"print fmt: \"$2"* ]]; }
check() {	# event field...: a group's decision
	has "$1" devname cgroup cgroup_id "${@:2}"
	fmt_starts "$1" '[%s:%s] ' || fail "$EV does not print [dev:cgroup] first"
}
check_bio() {	# event field...: a per-bio event
	has "$1" devname cgroup_id "${@:2}"
	lacks "$1" cgroup
	fmt_starts "$1" '[%s] cgroup_id=%llu ' ||
		fail "$EV does not print [dev] cgroup_id= first"
}
check iolatency_window target_ns win_ns nr_samples nr_missed mean_ns acc_samples acc_missed \
	acc_mean_ns scale_lat_ns cookie action ssd win_met met
check iolatency_target old_ns new_ns win_ns by
has iolatency_enable devname old new nr_targets frozen_ns
lacks iolatency_enable cgroup cgroup_id
fmt_starts iolatency_enable '[%s] enabled=%d->%d ' ||
	fail "iolatency:iolatency_enable does not print [dev] enabled= first"
for ev in iolatency_scale_cookie iolatency_scale_grp_clear iolatency_scale_reset; do
	check $ev culprit_id old new scale_lat_ns idle_ns by
	fmt_starts $ev '[%s:%s] cookie=%u->%u step=%d culprit_id=%llu ' ||
		fail "iolatency:$ev does not print cookie=old->new step= culprit_id="
done
check iolatency_scale_skip old new reason target_ns scale_lat_ns nr_samples thresh
# The depth is two u32 (UINT_MAX: no limit), printed as they are: no
# formatted copy of them in the record.
check iolatency_depth old new cookie nr_requests
lacks iolatency_depth depth
for f in old new; do
	[[ $FMT == *$'\tfield:u32 '$f$';\t'* ]] || fail "$EV: $f is not a u32"
done
fmt_starts iolatency_depth '[%s:%s] depth=%u->%u cookie=%u nr_requests=%u"' ||
	fail "$EV does not print depth=old->new cookie= nr_requests="
# Per-bio and queue events carry no path.
check_bio iolatency_throttle depth inflight wait_ns
check iolatency_use_delay old new delay_ns
check_bio iolatency_delay_charge lat_ns charge_ns delay_ns
# Who imposed the delay, from use_delay: by=io.latency when it is > 0.
check_bio blkcg_delay_pay comm pid use_delay delay_ns sleep_ns slept_ns capped memstall
fmt_starts blkcg_delay_pay '[%s] cgroup_id=%llu pid=%d comm=%s by=%s use_delay=%d delay_ns=%llu ' ||
	fail "$EV does not print pid= comm= by= use_delay= delay_ns= after [dev] cgroup_id="
for by in io.latency io.cost; do
	[[ $FMT == *'print fmt: '*\"$by\"* ]] || fail "$EV's print fmt has no by=$by"
done
systems_hold_series
