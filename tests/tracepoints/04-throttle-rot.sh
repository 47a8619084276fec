# Rotational (mean) path on the guest's virtio-blk disk, a file on the
# host: a 20 us mean is out of reach under emulation.
. "$IOLAT_REPO/tests/lib.sh"

[ "$(cat /sys/block/vda/queue/rotational)" = 1 ] || fail "vda is not rotational"
check_throttling vda 20 mean
