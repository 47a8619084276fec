# Non-rotational (percentile) path on null_blk: 2 ms completions, 16 tags
# on each of two hardware queues (a multi-queue device, as NVMe is: one
# rq_qos and one nr_requests for the queue, whatever its hardware
# queues), and a 1 ms target nobody can meet.  See check_throttling in
# lib.sh.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16 submit_queues=2
[ "$(cat /sys/block/iolat0/queue/rotational)" = 0 ] || fail "null_blk is rotational?"
# Two submission queues and null_blk's poll queues (1 on 6.1).
polls=$(cat "$NULLB_CFS/iolat0/poll_queues" 2>/dev/null || echo 0)
hctx=$(ls -d /sys/block/iolat0/mq/[0-9]* | wc -l)
[ "$hctx" = $((2 + polls)) ] ||
	fail "iolat0 has $hctx hardware queues, not 2 submission queues and $polls poll"
note "iolat0: $hctx hardware queues, $polls of them poll"
check_throttling iolat0 1000 missed
