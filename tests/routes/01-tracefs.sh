# tracefs by hand, no tool: the nine formats, the whole system enabled with
# one write, and filters applied in the kernel.  A filter on loose's
# cgroup_id keeps iolatency_depth to loose while a second flooding sibling,
# bulk, is scaled too; a filter on a cgroup path nobody has silences
# iolatency_throttle while the other events keep coming; a filter on a
# field the event lacks is refused.  A second trace instance without
# filters records what the filters held back.
. "$IOLAT_REPO/tests/lib.sh"

E=$TRACEFS/events/iolatency
[ -d "$E" ] || fail "no events/iolatency in tracefs: are patches/ applied?"

# Every event has a format with its fields and prints [dev:cgroup] first.
for ev in $IOLAT_EVENTS; do
	f=$E/$ev/format
	[ -r "$f" ] || fail "no format for iolatency:$ev"
	for field in devname cgroup cgroup_id $(event_fields "$ev"); do
		grep -Eq "^[[:space:]]field:[^;]* $field(\[[0-9]+\])?;" "$f" ||
			{ cat "$f"; fail "iolatency:$ev has no field $field"; }
	done
	grep -q 'field:__data_loc char\[\] cgroup;' "$f" || fail "iolatency:$ev: cgroup is not a string"
	grep -q 'field:u64 cgroup_id;' "$f" || fail "iolatency:$ev: cgroup_id is not a u64"
	grep -q '^print fmt: "\[%s:%s\] ' "$f" || fail "iolatency:$ev does not print [dev:cgroup] first"
done
n=$(find "$E" -mindepth 1 -maxdepth 1 -type d -name 'iolatency_*' | wc -l)
[ "$n" = 9 ] || fail "$n iolatency events in tracefs, want 9"
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
echo "cgroup_id == $loose_id" >"$E/iolatency_depth/filter" ||
	fail "cannot filter iolatency_depth on cgroup_id"
echo 'cgroup == "/iolat-nobody"' >"$E/iolatency_throttle/filter" ||
	fail "cannot filter iolatency_throttle on the cgroup path"
[ "$(cat "$E/iolatency_depth/filter")" = "cgroup_id == $loose_id" ] ||
	fail "iolatency_depth's filter reads back as '$(cat "$E/iolatency_depth/filter")'"

# The unfiltered view: a second instance with the same events.
I=$TRACEFS/instances/iolat-all
mkdir "$I" || fail "cannot create trace instance $I"

# By hand: one write enables the system, in each buffer.
echo 0 >"$TRACEFS/tracing_on"
echo 4096 >"$TRACEFS/buffer_size_kb"
echo 4096 >"$I/buffer_size_kb"
echo >"$TRACEFS/trace"
echo 1 >"$E/enable" || fail "cannot enable events/iolatency"
echo 1 >"$I/events/iolatency/enable" || fail "cannot enable events/iolatency in $I"
for ev in $IOLAT_EVENTS; do
	[ "$(cat "$E/$ev/enable")" = 1 ] || fail "iolatency:$ev not enabled by events/iolatency/enable"
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
grep -o 'iolatency_[a-z_]*: .*' "$TRACEFS/trace" >$T
grep -o 'iolatency_[a-z_]*: .*' "$I/trace" >$A
cg_kill iolat-p
echo 0 >"$E/enable"
echo 0 >"$I/events/iolatency/enable"
for f in $T $A; do
	note "$f: $(wc -l <"$f") lines:$(sed 's/:.*//' "$f" | sort | uniq -c | tr -s ' \n' ' ')"
done

# The cgroup_id filter: loose's depth lines, nobody else's, although the
# unfiltered instance saw bulk's.
want=$(depth_halvings iolat0)
steps() {	# FILE CGROUP: the cgroup's first depth steps in FILE
	grep -o "^iolatency_depth: \[iolat0:$2\] depth=[0-9max]*->[0-9max]*" "$1" |
		sed 's/.*depth=//' | head -n "$(echo "$want" | wc -w)" | tr '\n' ' ' | sed 's/ $//'
}
grep '^iolatency_depth:' $T | head -4
got=$(steps $T /iolat-p/loose)
[ "$got" = "$want" ] || fail "filtered: loose's depth went '$got', want '$want'"
others=$(grep '^iolatency_depth:' $T | grep -v '^iolatency_depth: \[iolat0:/iolat-p/loose\] ')
[ -z "$others" ] || fail "the cgroup_id filter let other cgroups' depth through: $others"
got=$(steps $A /iolat-p/loose)
[ "$got" = "$want" ] || fail "unfiltered: loose's depth went '$got', want '$want'"
grep '^iolatency_depth: \[iolat0:/iolat-p/bulk\]' $A | head -2
grep -q '^iolatency_depth: \[iolat0:/iolat-p/bulk\] depth=max->' $A ||
	fail "the unfiltered instance has no max->N step for bulk"

# The filter nobody matches: no iolatency_throttle at all, where the
# instance has loose's bios waiting.
! grep -q '^iolatency_throttle:' $T || fail "iolatency_throttle lines got past a filter nobody matches"
grep -m2 '^iolatency_throttle: \[iolat0:/iolat-p/loose\] depth=[0-9]* inflight=[0-9]* wait=[0-9]*us$' $A ||
	fail "the unfiltered instance has no iolatency_throttle for loose"

# The unfiltered events keep coming in the filtered buffer.
grep -m1 '^iolatency_target: \[iolat0:/iolat-p/tight\] target=0->1000us win=100ms$' $T ||
	fail "no iolatency_target for tight"
grep -m1 -E '^iolatency_window: \[iolat0:/iolat-p/tight\] missed target=1000us win=[0-9]+ms samples=[0-9]+ missed=[0-9]+ action=down cookie=[0-9]+$' $T ||
	fail "no missed window with action=down for tight"
grep -m1 -E '^iolatency_scale_cookie: \[iolat0:/iolat-p\] cookie=1000000->[0-9]+ down step=[0-9]+ culprit=/iolat-p/tight scale_lat=1000us by=window$' $T ||
	fail "no first scale-down of /iolat-p by tight"
