# fio completes a short job on null_blk and reports the IO it did.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0
fio --name=smoke --filename=/dev/iolat0 --direct=1 --rw=randread --bs=4k \
	--ioengine=libaio --iodepth=4 --size=16m --io_size=8m \
	--output-format=json --eta=never >/tmp/fio.json ||
	fail "fio failed: $(tail -3 /tmp/fio.json)"
bytes=$(jq '.jobs[0].read.io_bytes' /tmp/fio.json)
iops=$(jq '.jobs[0].read.iops' /tmp/fio.json)
note "read $bytes bytes at $iops IOPS"
[ "$bytes" = $((8 << 20)) ] || fail "fio read $bytes bytes, want $((8 << 20))"
