# guest/run refuses bad input, and turns a panic or a hang into exit 125
# with a reason, never a pass.
. "$(dirname "$0")/lib.sh"
R=$REPO/guest/run

expect 2 "no command given" "$R"
expect 2 "is not built: run 'make kernel'" "$R" -k /nonexistent/bzImage true
expect 2 "bad timeout" "$R" -t 0 true
expect 2 "unknown option" "$R" --bogus true
expect 2 "bad --env" "$R" -e NOEQUALS true
expect 2 "kbuild-nosuch.* is not built" "$R" --variant nosuch true
# Other kernel versions: their own build directories, named in the hint.
expect 2 "kbuild-6.12/.* is not built: run 'make kernel KVER=6.12'" \
	env BUILD=/nonexistent "$R" --kver 6.12 true
expect 2 "kbuild-6.12-debug/.* is not built: run 'make kernel-debug KVER=6.12'" \
	env BUILD=/nonexistent "$R" --kver 6.12 --variant debug true
expect 2 "unsupported kernel version '5.4'" "$R" --kver 5.4 true
# The command's own status comes back.
"$R" -q -t 120 -o "$BUILD/tests/host/run-status" -- sh -c 'exit 7'
rc=$?
[ $rc = 7 ] || fail "guest command exit 7 came back as $rc"
expect 125 "panicked" "$R" -q -t 120 -o "$BUILD/tests/host/run-panic" -- \
	sh -c 'echo c >/proc/sysrq-trigger; sleep 60'
expect 125 "timed out after 20 s" "$R" -q -t 20 -o "$BUILD/tests/host/run-hang" -- sleep 600
