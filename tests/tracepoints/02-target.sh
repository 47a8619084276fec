# Writing io.latency emits iolatency_target with the real cgroup path and id,
# old->new in nanoseconds, the window that follows from the target, and
# by=user; an unchanged target emits nothing.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0
cg_create iolat-t/a
trace_events iolatency_target
id=$(cg_id iolat-t/a)
# The filter on cgroup_id proves the field carries the cgroup's inode.
echo "cgroup_id == $id" >"$TRACEFS/events/iolatency/iolatency_target/filter" ||
	fail "cannot filter on cgroup_id"
io_latency_set iolat-t/a iolat0 2500
io_latency_set iolat-t/a iolat0 100000
io_latency_set iolat-t/a iolat0 100000	# unchanged: no event
echo "$(majmin iolat0) target=max" >"$CG/iolat-t/a/io.latency"
cg_create iolat-t/b
io_latency_set iolat-t/b iolat0 777	# filtered out: other cgroup
got=$(grep -o 'iolatency_target: .*' "$TRACEFS/trace")
echo "$got"
want="iolatency_target: [iolat0:/iolat-t/a] target_ns=0->2500000 win_ns=100000000 by=user
iolatency_target: [iolat0:/iolat-t/a] target_ns=2500000->100000000 win_ns=1000000000 by=user
iolatency_target: [iolat0:/iolat-t/a] target_ns=100000000->0 win_ns=100000000 by=user"
[ "$got" = "$want" ] || fail "unexpected iolatency_target events; want:
$want"
