# tracefs by hand, no tool: the twelve formats, each of the two trace
# systems (iolatency, blkcg) enabled with one write, and filters applied in
# the kernel.  A filter on loose's cgroup_id keeps iolatency_depth to loose
# while a second flooding sibling, bulk, is scaled too; a filter on a
# cgroup path nobody has silences iolatency_target, and one on a cgroup id
# nobody has (0) silences iolatency_throttle, while the other events keep
# coming; a filter on a field the event lacks is refused, a cgroup path on
# a per-bio event too (they carry only the id).  A second trace instance
# without filters records what the filters held back.
. "$IOLAT_REPO/tests/lib.sh"

E=$TRACEFS/events/iolatency
for sys in $IOLAT_SYSTEMS; do
	[ -d "$TRACEFS/events/$sys" ] || fail "no events/$sys in tracefs: are patches/ applied?"
done

# Every event has a format with its fields and prints what it is about
# first: [dev:cgroup] for a group's decision, [dev] cgroup_id=N for a
# per-bio event, [dev] for iolatency_enable (event_kind in lib.sh).
for ev in $IOLAT_EVENTS; do
	sys=$(event_system "$ev")
	f=$TRACEFS/events/$sys/$ev/format
	kind=$(event_kind "$ev")
	[ -r "$f" ] || fail "no format for $sys:$ev"
	for field in $(event_fields "$ev"); do
		grep -Eq "^[[:space:]]field:[^;]* $field(\[[0-9]+\])?;" "$f" ||
			{ cat "$f"; fail "$sys:$ev has no field $field"; }
	done
	if [ "$kind" = path ]; then
		grep -q 'field:__data_loc char\[\] cgroup;' "$f" || fail "$sys:$ev: cgroup is not a string"
	else
		! grep -q 'field:__data_loc char\[\] cgroup;' "$f" || fail "$sys:$ev ($kind) has a cgroup path"
	fi
	if [ "$kind" = dev ]; then
		! grep -q ' cgroup_id;' "$f" || fail "$sys:$ev has a cgroup_id"
	else
		grep -q 'field:u64 cgroup_id;' "$f" || fail "$sys:$ev: cgroup_id is not a u64"
	fi
	grep -Eq "$(event_fmt_head "$ev")" "$f" ||
		{ grep '^print fmt' "$f"; fail "$sys:$ev ($kind) does not print what it is about first"; }
done
# Each system holds the series' events in it and no other: eleven in
# iolatency, blkcg_delay_pay in blkcg.
systems_hold_series
grep -A3 'field:u32 new;' "$E/iolatency_depth/format"

# The cgroups exist before the workload so that the filters can name them.
cg_create iolat-p/loose
cg_create iolat-p/bulk
cg_create iolat-p/tight
loose_id=$(cg_id iolat-p/loose)
bulk_id=$(cg_id iolat-p/bulk)
note "cgroup_id: loose $loose_id, bulk $bulk_id"

# Filters.  A field the event does not have is refused, and the filter file
# says why.
if echo 'no_such_field == 1' >"$E/iolatency_target/filter" 2>/dev/null; then
	fail "a filter on a field iolatency_target lacks was accepted"
fi
grep -q 'Field not found' "$E/iolatency_target/filter" ||
	{ cat "$E/iolatency_target/filter"; fail "the filter file does not say the field is unknown"; }
echo 0 >"$E/iolatency_target/filter" || fail "cannot clear a filter"
# Per-bio events have no cgroup path to filter on.
if echo 'cgroup == "/iolat-p/loose"' >"$E/iolatency_throttle/filter" 2>/dev/null; then
	fail "a filter on a cgroup path was accepted for iolatency_throttle, which has none"
fi
echo 0 >"$E/iolatency_throttle/filter" || fail "cannot clear a filter"
echo "cgroup_id == $loose_id" >"$E/iolatency_depth/filter" ||
	fail "cannot filter iolatency_depth on cgroup_id"
echo 'cgroup == "/iolat-nobody"' >"$E/iolatency_target/filter" ||
	fail "cannot filter iolatency_target on the cgroup path"
echo 'cgroup_id == 0' >"$E/iolatency_throttle/filter" ||
	fail "cannot filter iolatency_throttle on cgroup_id"
[ "$(cat "$E/iolatency_depth/filter")" = "cgroup_id == $loose_id" ] ||
	fail "iolatency_depth's filter reads back as '$(cat "$E/iolatency_depth/filter")'"

# The unfiltered view: a second instance with the same events.
I=$TRACEFS/instances/iolat-all
mkdir "$I" || fail "cannot create trace instance $I"

# By hand: one write enables a system, in each buffer.
echo 0 >"$TRACEFS/tracing_on"
echo 4096 >"$TRACEFS/buffer_size_kb"
echo 4096 >"$I/buffer_size_kb"
echo >"$TRACEFS/trace"
for sys in $IOLAT_SYSTEMS; do
	echo 1 >"$TRACEFS/events/$sys/enable" || fail "cannot enable events/$sys"
	echo 1 >"$I/events/$sys/enable" || fail "cannot enable events/$sys in $I"
done
for ev in $IOLAT_EVENTS; do
	sys=$(event_system "$ev")
	[ "$(cat "$TRACEFS/events/$sys/$ev/enable")" = 1 ] ||
		fail "$sys:$ev not enabled by events/$sys/enable"
	[ "$(cat "$I/events/$sys/$ev/enable")" = 1 ] ||
		fail "$sys:$ev not enabled by events/$sys/enable in $I"
done
echo 1 >"$TRACEFS/tracing_on"

throttle_start
cg_run iolat-p/bulk fio --name=bulk --filename=/dev/iolat0 --direct=1 \
	--rw=randread --bs=4k --ioengine=libaio --iodepth=16 \
	--time_based --runtime=600 --eta=never --output=/tmp/bulk.fio >/dev/null 2>&1 &

# Until loose is at depth 1 and bulk has been scaled too.
scaled() {
	grep -q 'iolatency_depth: \[iolat0:/iolat-p/loose\] depth=2->1 ' "$TRACEFS/trace" &&
		grep -q 'iolatency_depth: \[iolat0:/iolat-p/bulk\] depth=' "$I/trace"
}
wait_for 120 scaled || {
	tail -5 "$TRACEFS/trace"; tail -5 "$I/trace"
	fail "loose never reached depth 1 with bulk scaled"
}
sleep 1
echo 0 >"$TRACEFS/tracing_on"
echo 0 >"$I/tracing_on"
T=/tmp/iolat-trace.txt
A=/tmp/iolat-all.txt
grep -o '\(iolatency\|blkcg\)_[a-z_]*: .*' "$TRACEFS/trace" >$T
grep -o '\(iolatency\|blkcg\)_[a-z_]*: .*' "$I/trace" >$A
cg_kill iolat-p
for sys in $IOLAT_SYSTEMS; do
	echo 0 >"$TRACEFS/events/$sys/enable"
	echo 0 >"$I/events/$sys/enable"
done
for f in $T $A; do
	note "$f: $(wc -l <"$f") lines:$(sed 's/:.*//' "$f" | sort | uniq -c | tr -s ' \n' ' ')"
done

# The cgroup_id filter: loose's depth lines, nobody else's, although the
# unfiltered instance saw bulk's.
want=$(depth_halvings iolat0)
steps() {	# FILE CGROUP: the cgroup's first depth steps in FILE
	grep -o "^iolatency_depth: \[iolat0:$2\] depth=[0-9]*->[0-9]*" "$1" |
		sed 's/.*depth=//' | depth_words | head -n "$(echo "$want" | wc -w)" | tr '\n' ' ' | sed 's/ $//'
}
grep '^iolatency_depth:' $T | head -4
got=$(steps $T /iolat-p/loose)
[ "$got" = "$want" ] || fail "filtered: loose's depth went '$got', want '$want'"
others=$(grep '^iolatency_depth:' $T | grep -v '^iolatency_depth: \[iolat0:/iolat-p/loose\] ')
[ -z "$others" ] || fail "the cgroup_id filter let other cgroups' depth through: $others"
got=$(steps $A /iolat-p/loose)
[ "$got" = "$want" ] || fail "unfiltered: loose's depth went '$got', want '$want'"
grep '^iolatency_depth: \[iolat0:/iolat-p/bulk\]' $A | head -2
grep -q "^iolatency_depth: \[iolat0:/iolat-p/bulk\] depth=$DEPTH_MAX->" $A ||
	fail "the unfiltered instance has no max->N step for bulk"

# The filters nobody matches: no iolatency_throttle (id 0) nor
# iolatency_target (path /iolat-nobody) at all, where the instance has
# loose's bios waiting and tight's target.
! grep -q '^iolatency_throttle:' $T || fail "iolatency_throttle lines got past a filter nobody matches"
grep -m2 "^iolatency_throttle: \[iolat0\] cgroup_id=$loose_id depth=[0-9]* inflight=[0-9]* wait_ns=[0-9]*\$" $A ||
	fail "the unfiltered instance has no iolatency_throttle for loose (cgroup_id $loose_id)"
! grep -q '^iolatency_target:' $T || fail "iolatency_target lines got past a filter nobody matches"
grep -m1 '^iolatency_target: \[iolat0:/iolat-p/tight\] target_ns=0->1000000 win_ns=100000000 by=user$' $A ||
	fail "the unfiltered instance has no iolatency_target for tight"

# The unfiltered events keep coming in the filtered buffer.
tight_id=$(cg_id iolat-p/tight)
grep -m1 -E '^iolatency_window: \[iolat0:/iolat-p/tight\] met=0 action=down target_ns=1000000 win_ns=[0-9]+ ssd=1 samples=[0-9]+ missed=[0-9]+ mean_ns=[0-9]+ win_met=0 acc_samples=[0-9]+ acc_missed=[0-9]+ acc_mean_ns=[0-9]+ scale_lat_ns=1000000 cookie=[0-9]+$' $T ||
	fail "no missed window with action=down for tight"
grep -m1 -E "^iolatency_scale_cookie: \[iolat0:/iolat-p\] cookie=1000000->[0-9]+ step=-[1-9][0-9]* culprit_id=$tight_id scale_lat_ns=1000000 idle_ns=[0-9]+ by=window\$" $T ||
	fail "no first scale-down of /iolat-p by tight (cgroup_id $tight_id)"
