# Non-rotational (percentile) path on null_blk: 2 ms completions, 16 tags,
# and a 1 ms target nobody can meet.  See check_throttling in lib.sh.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
[ "$(cat /sys/block/iolat0/queue/rotational)" = 0 ] || fail "null_blk is rotational?"
check_throttling iolat0 1000 missed
