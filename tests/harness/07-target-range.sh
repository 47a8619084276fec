# io.latency targets at the edges of what fits: every value up to the
# largest whose nanoseconds fit in a u64 (18446744073709551 us) is kept
# exactly; every larger one fails with ERANGE and leaves the old target
# in place (6.1 wrapped them: 18446744073709552 became a 384 ns target
# that read back as 0); anything but digits fails with EINVAL.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0
mm=$(majmin iolat0)
cg_create iolat-t/a
F=$CG/iolat-t/a/io.latency
erange="Numerical result out of range"
einval="Invalid argument"

# try_write STRING: one write(2) of STRING; prints ok or the errno's text.
try_write() {
	local err
	err=$( (printf '%s' "$1" >"$F") 2>&1) && { echo ok; return; }
	echo "${err##*write error: }"
}
# accept VALUE READBACK: target=VALUE is taken and reads back as READBACK.
accept() {
	local got
	got=$(try_write "$mm target=$1")
	[ "$got" = ok ] || fail "target=$1 rejected: $got"
	[ "$(cat "$F")" = "$mm target=$2" ] || fail "target=$1 reads back '$(cat "$F")', want target=$2"
	note "target=$1 -> $(cat "$F")"
}
# reject ERRNO VALUE: target=VALUE fails with ERRNO, the target stays 1234.
reject() {
	local got
	accept 1234 1234
	got=$(try_write "$mm target=$2")
	[ "$got" = "$1" ] || fail "target=$2: got '$got', want '$1' (reads back '$(cat "$F")')"
	[ "$(cat "$F")" = "$mm target=1234" ] ||
		fail "rejected target=$2 changed the target to '$(cat "$F")'"
	note "target=$2 -> $got, target still 1234"
}

accept 1 1
accept 18446744073709551 18446744073709551		# largest that fits
accept 00000000000000000000000001000 1000		# leading zeros, 29 digits
reject "$erange" 18446744073709552			# smallest that does not
reject "$erange" 18446744073709551615			# U64_MAX us
reject "$erange" 18446744073709551616			# U64_MAX + 1
reject "$erange" 99999999999999999999999		# 23 digits
reject "$einval" 100x
reject "$einval" 0x100
reject "$einval" "100$(printf '\t')target=5"
reject "$einval" MAX
reject "$einval" -1
# The last word wins, and a rejected word rejects the whole write.
accept "1234 target=2000" 2000
reject "$erange" "2000 target=18446744073709552"
# max (with the newline echo adds) removes the target; 0 does too.
echo "$mm target=max" >"$F" || fail "target=max with a newline rejected"
[ -z "$(cat "$F")" ] || fail "target=max left '$(cat "$F")'"
accept 1234 1234
printf '%s' "$mm target=0" >"$F" || fail "target=0 rejected"
[ -z "$(cat "$F")" ] || fail "target=0 left '$(cat "$F")'"
# The largest target is a target like any other: IO still completes.
accept 18446744073709551 18446744073709551
cg_run iolat-t/a dd if=/dev/iolat0 of=/dev/null bs=4k count=100 iflag=direct status=none ||
	fail "IO under the largest target failed"

# The window is 16 times the target, within 100 ms and 1 s: a target of
# 2^60 ns and more wrapped in the shift before the clamp (fixes/0003), so
# 1152921504606847 us (2^60 + 24 ns) got the 100 ms window.  io.stat
# shows the window (win=, ms) on a rotational disk with debug stats on.
debug_stats 1
vmm=$(majmin vda)
for t in 1000 50000 1152921504606847 18446744073709551; do
	case $t in 1000) want=100 ;; 50000) want=800 ;; *) want=1000 ;; esac
	echo "$vmm target=$t" >"$F" || fail "target=$t on vda rejected"
	win=$(iostat_key iolat-t/a vda win)
	[ "$win" = "$want" ] || fail "target=$t us on vda: window '$win' ms, want $want"
	note "target=$t us on vda: window $win ms"
done
echo "$vmm target=0" >"$F"
debug_stats 0
