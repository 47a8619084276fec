# The queue and the tree change under a throttled group: nr_requests,
# the scheduler, and io taken out of the parent's subtree_control.
#
# tight (target 1 ms) holds loose at depth 1 with use_delay on.  While it
# does:
# - nr_requests 16 -> 8 -> 16 and the scheduler none -> mq-deadline ->
#   none: each freezes the queue, which waits for every bio that entered
#   it, loose's sleeping for a depth slot too.  Each write must return
#   within 60 s, and loose be held again after it.
# - io out of iolat-p's subtree_control: loose's and tight's io css go
#   offline (pd_offline clears their targets and scaling), their bios go
#   to iolat-p's blkg, which has no target.  iolat-p's reads (tight's
#   and loose's: io.stat counts the subtree) must at least double: held,
#   loose gets a slot of one and sleeps its delay; free, it has 16.
# - io back in: the children start afresh, no target, at depth max and
#   without use_delay.
. "$IOLAT_REPO/tests/lib.sh"

dev=iolat0
q=/sys/block/$dev/queue
trace_events iolatency_enable iolatency_depth iolatency_use_delay
throttle_start
wait_throttle delayed 120 $dev iolat-p/loose

# queue_set FILE VALUE: write a queue attribute in the background, and
# fail unless the write returns within 60 s (a freeze that never ends
# leaves the writer in D state, where no timeout could kill it).
queue_set() {
	local pid
	trace_mark "$1=$2"
	sh -c "echo $2 >$q/$1" &
	pid=$!
	timed_wait 60 "$1=$2 written" pid_gone "$pid" ||
		fail "writing $2 to $1 under a throttled group did not return in 60 s"
	wait "$pid" || fail "writing $2 to $1 failed"
	grep -qw "\[$2\]\|^$2$" "$q/$1" || fail "$1 is $(cat "$q/$1") after writing $2"
}
for change in "nr_requests 8" "nr_requests 16" "scheduler mq-deadline" "scheduler none"; do
	if [ "${change% *}" = scheduler ] && ! grep -qw "${change#* }" "$q/scheduler"; then
		fail "no ${change#* } scheduler here: $(cat "$q/scheduler")"
	fi
	# shellcheck disable=SC2086
	queue_set $change
	wait_throttle delayed 60 $dev iolat-p/loose
	note "after $change: loose $(grep "$(majmin $dev)" "$CG/iolat-p/loose/io.stat" |
		grep -o 'use_delay=[^ ]*\|depth=[^ ]*' | tr '\n' ' ')"
done

# subtree_rate: iolat-p's reads a second over 4 s (its io.stat has its
# subtree's; loose's own goes with the controller).
subtree_rate() {
	local a b
	a=$(iostat_key iolat-p $dev rios)
	sleep 4
	b=$(iostat_key iolat-p $dev rios)
	echo $(((b - a) / 4))
}
held=$(subtree_rate)
trace_mark "io out of subtree_control"
echo "-io" >"$CG/iolat-p/cgroup.subtree_control" ||
	fail "cannot take io out of iolat-p's subtree_control"
[ ! -e "$CG/iolat-p/loose/io.latency" ] || fail "loose keeps io.latency without the io controller"
sleep 2
free=$(subtree_rate)
note "iolat-p read ${held} IOPS with loose held, ${free} IOPS with io out of the subtree"
[ "$held" -gt 0 ] || fail "iolat-p read nothing while loose was held: the measure is wrong"
[ "$free" -ge $((2 * held)) ] ||
	fail "loose not released with io out of the subtree: iolat-p ${held} IOPS held, ${free} after"

trace_mark "io back"
echo "+io" >"$CG/iolat-p/cgroup.subtree_control" ||
	fail "cannot put io back into iolat-p's subtree_control"
for g in loose tight; do
	! grep -q "^$(majmin $dev) " "$CG/iolat-p/$g/io.latency" ||
		fail "$g has a target again after io came back: $(cat "$CG/iolat-p/$g/io.latency")"
done
wait_throttle unthrottled 10 $dev iolat-p/loose iolat-p/tight
trace_since "nr_requests=8" | grep -o 'iolat-test: .*\|iolatency_\(enable\|depth\|use_delay\): .*' | tail -40
