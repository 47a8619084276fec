# bpftrace attaches to a block tracepoint and counts the IO we issue.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0
dev=$(majmin iolat0)
major=${dev%:*} minor=${dev#*:}
# block_rq_complete's dev is MKDEV(major, minor) = major << 20 | minor.
devt=$(( (major << 20) | minor ))
bpftrace -e "tracepoint:block:block_rq_complete /args->dev == $devt/ { @n++; }
	     interval:s:1 { if (@n >= 200) { exit(); } }" >/tmp/bt.out 2>&1 &
bt=$!
# Start the IO only once the probes are attached.
for i in $(seq 120); do
	grep -q Attaching /tmp/bt.out && break
	kill -0 $bt 2>/dev/null || { cat /tmp/bt.out; fail "bpftrace exited early"; }
	sleep 0.5
done
sleep 2
dd if=/dev/iolat0 of=/dev/null bs=4k count=200 iflag=direct status=none ||
	fail "dd on /dev/iolat0 failed"
for i in $(seq 60); do kill -0 $bt 2>/dev/null || break; sleep 0.5; done
kill -INT $bt 2>/dev/null
wait $bt
cat /tmp/bt.out
n=$(sed -n 's/^@n: //p' /tmp/bt.out)
[ -n "$n" ] || fail "bpftrace printed no count"
[ "$n" -ge 200 ] || fail "bpftrace counted $n completions, dd issued 200"
