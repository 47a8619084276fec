# A group's latency samples are kept per CPU; the window check sums them
# and resets them.  Over online CPUs only (as before fixes/0008), the
# samples on a CPU taken offline mid-window are missed by their window
# and counted again in a later one, once the CPU is back.
#
# On null_blk completing inline (irqmode=0), so each read's sample lands
# on the CPU that issued it: one read on CPU 0 starts a window, 50 reads
# pinned to CPU 1 follow, CPU 1 goes offline, and once the window (1 s,
# for a 100 ms target) is over, one more read on CPU 0 ends it: that
# window must count CPU 1's 50 samples (51 on 6.1, 50 on 6.12: whether
# the read that ends a window counts in it).  CPU 1 back online, the next
# window (one read on CPU 0 again) must not count the 50 again.  A window check
# happens only at a completion, and nothing else reads the device, so
# how long the offlining takes does not matter.
. "$IOLAT_REPO/tests/lib.sh"

cpu1=/sys/devices/system/cpu/cpu1/online
[ -w "$cpu1" ] || fail "CPU 1 cannot be taken offline here ($cpu1)"
[ "$(cat "$cpu1")" = 1 ] || fail "CPU 1 is offline before the test"
trap 'echo 1 >"$cpu1" 2>/dev/null' EXIT

nullb_create iolat0 irqmode=0
cg_create iolat-c/a
io_latency_set iolat-c/a iolat0 100000
trace_events iolatency_window

# read CPU: one direct 4 KiB read in iolat-c/a, on CPU.
read_on() {
	cg_run iolat-c/a taskset -c "$1" dd if=/dev/iolat0 of=/dev/null bs=4k count="${2:-1}" \
		iflag=direct status=none || fail "reads on CPU $1 failed"
}
win_re='iolatency_window: \[iolat0:/iolat-c/a\]'
# last_window_samples: the samples of iolat-c/a's last window.
last_window_samples() {
	grep -o "$win_re .* samples=[0-9]*" "$TRACEFS/trace" |
		tail -1 | sed 's/.* samples=//'
}
# end_window: wait out the window, then one read on CPU 0 ends it.
end_window() {
	local n
	n=$(grep -c "$win_re" "$TRACEFS/trace")
	sleep 1.2
	read_on 0
	[ "$(grep -c "$win_re" "$TRACEFS/trace")" -gt "$n" ] ||
		fail "no window event for iolat-c/a after its window"
}

end_window		# a fresh window from here
read_on 1 50
echo 0 >"$cpu1" || fail "cannot take CPU 1 offline"
end_window
got=$(last_window_samples)
note "the window with 50 samples on CPU 1, then offline: samples=$got"
[ "${got:-0}" -ge 50 ] || fail "the window counted $got samples, want 50 or more: CPU 1's 50 lost"

echo 1 >"$cpu1" || fail "cannot bring CPU 1 back"
end_window
got=$(last_window_samples)
note "the next window, CPU 1 back: samples=$got"
[ "${got:-99}" -le 2 ] || fail "the next window counted $got samples, want 2 at most: CPU 1's 50 counted again"
