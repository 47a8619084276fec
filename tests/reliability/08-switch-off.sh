# The last target on a device goes: io.latency switches off for it and
# must leave nothing throttled behind.
#
# tight (target 1 ms) holds loose at depth 1 with use_delay on
# (throttle_start); loose's reader stops, then tight's target=max, the
# only target on the device.  iolatency_enable reports the switch 1->0.
# Nothing looks at the groups' scaling state again while the device has no
# target, so unless the switch resets it, loose keeps use_delay, and with
# it its cgroup's congestion_count: blk_cgroup_congested() stays true for
# loose's tasks, and the page cache gives them no readahead.  Checked:
# within 5 s of the switch, io.stat shows loose at depth max with no
# use_delay, and a buffered sequential read of 16 MiB in loose runs at
# least half as fast as the same read, of other blocks, in a new cgroup
# (without readahead each 4 KiB is one 2 ms request: several times
# slower).
. "$IOLAT_REPO/tests/lib.sh"

dev=iolat0
trace_events iolatency_enable iolatency_depth iolatency_use_delay
throttle_start
wait_throttle delayed 120 $dev iolat-p/loose
timed_wait 10 "loose's reader killed" cg_kill iolat-p/loose ||
	fail "loose's reader did not die"
note "io.stat of loose, idle: $(cat "$CG/iolat-p/loose/io.stat")"
trace_mark dropping the last target
echo "$(majmin $dev) target=max" >"$CG/iolat-p/tight/io.latency" ||
	fail "cannot write target=max"
switched_off() { trace_since dropping the last target | grep -q "iolatency_enable: \[$dev\] enabled=1->0 nr_targets=0 "; }
timed_wait 10 "io.latency switched off" switched_off ||
	fail "no iolatency_enable 1->0 after the last target went: $(trace_since dropping the last target | tail -3)"
trace_since dropping the last target | grep -o 'iolatency_\(enable\|depth\|use_delay\): .*'
# (measure the readahead below either way, then fail)
stale=
timed_wait 5 "loose unthrottled" is_unthrottled $dev iolat-p/loose ||
	stale="io.latency is off for $dev, yet loose keeps: $(cat "$CG/iolat-p/loose/io.stat")"

# Readahead: buffered reads of 16 MiB in loose and in a new cgroup.
cg_kill iolat-p/tight
cg_create iolat-p/fresh
echo 3 >/proc/sys/vm/drop_caches
read_ms() {	# read_ms CGROUP SKIP_MIB: ms to read 16 MiB from SKIP_MIB on
	local t0 t1
	t0=$(date +%s%N)
	cg_run "$1" dd if=/dev/$dev of=/dev/null bs=4k count=4096 \
		skip=$(($2 * 256)) status=none || fail "dd in $1 failed"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
loose_ms=$(read_ms iolat-p/loose 0)
fresh_ms=$(read_ms iolat-p/fresh 64)
note "16 MiB buffered: loose ${loose_ms} ms, a new cgroup ${fresh_ms} ms"
[ -z "$stale" ] || fail "$stale"
[ "$loose_ms" -le $((2 * fresh_ms + 200)) ] ||
	fail "loose reads without readahead: ${loose_ms} ms for what a new cgroup reads in ${fresh_ms} ms"
