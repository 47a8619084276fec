# io.latency rejects malformed writes with the right errno and the kernel
# stays healthy (the runner fails the test on any splat).  Values the
# parser accepts in surprising ways are read back and printed.
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0
mm=$(majmin iolat0)
cg_create iolat-t/a
F=$CG/iolat-t/a/io.latency

# try WANT STRING: write STRING in one write(2); WANT is ok or an errno text.
n=0
try() {
	local want=$1 got
	n=$((n + 1))
	got=$( (printf '%s' "$2" >"$F") 2>&1 | sed -n 's/.*write error: //p')
	got=${got:-ok}
	note "$(printf '%-40.40s' "'$2'") -> $got"
	[ "$got" = "$want" ] || fail "writing '$2': got '$got', want '$want'"
}
inval="Invalid argument"
try "$inval" $'\n'	# empty: write(2) of 0 bytes never reaches the kernel
try "$inval" "target=100"
try "No such device" "259:999 target=100"
try "$inval" "$mm"
try "$inval" "$mm target="
try "$inval" "$mm target=abc"
try "$inval" "$mm foo=1"
try "$inval" "$mm target"
try "$inval" "$mm max"
try "$inval" "$mm target=100 foo=1"
# sscanf("%llu") stops at the first non-digit: the x is ignored.
try ok "$mm  target=100x"
[ "$(cat "$F")" = "$mm target=100" ] || fail "'target=100x' read back as '$(cat "$F")'"
try "$inval" "${mm}target=100"
try "$inval" "$(head -c 4096 /dev/urandom | tr -dc 'a-z0-9=: ' | head -c 4000)"
try ok "$mm target=100 target=200"
[ "$(cat "$F")" = "$mm target=200" ] || fail "repeated keys: last should win, read '$(cat "$F")'"
try ok "$mm target=max"
[ -z "$(cat "$F")" ] || fail "target=max left '$(cat "$F")'"
try "$inval" "$mm target=-5"
# Huge values: whatever the parser makes of them, it must read back.
r=$( (printf '%s' "$mm target=99999999999999999999" >"$F") 2>&1 | sed -n 's/.*write error: //p')
note "target=99999999999999999999 -> ${r:-ok}, reads back '$(cat "$F")'"
try ok "$mm target=max"
# The root cgroup has no io.latency at all.
[ ! -e "$CG/io.latency" ] || fail "the root cgroup has io.latency"
(printf '%s' "$mm target=100" >"$CG/io.latency") 2>/dev/null &&
	fail "writing io.latency in the root cgroup succeeded"
# Still healthy: a valid target works and IO completes.
io_latency_set iolat-t/a iolat0 1000
cg_run iolat-t/a dd if=/dev/iolat0 of=/dev/null bs=4k count=100 iflag=direct status=none ||
	fail "IO after the bad writes failed"
note "$n writes tried"
