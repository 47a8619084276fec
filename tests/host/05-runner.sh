# tests/run on canned guest runs: a fake guest/run replays a console log,
# per-test results and an exit status, and the runner must fail the boot
# for a report at boot or after the last test, a non-zero guest exit or a
# guest that died, fail tests past the deadline, and refuse to run without
# a kernel it needs.
. "$(dirname "$0")/lib.sh"
# The cases set what they test of the caller's run (CI exports both).
unset IOLAT_STRICT_SKIPS IOLAT_DEADLINE

tmp=$(mktemp -d /tmp/iolat-runner.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fake_build() {	# DIR VARIANT-SUFFIX...: a "built" kernel for tests/run
	local d
	for d in "${@:2}"; do
		mkdir -p "$1/kbuild$d/arch/x86/boot" "$1/kbuild$d/include/config" \
			"$1/kbuild$d/include/generated"
		: >"$1/kbuild$d/arch/x86/boot/bzImage"
		echo 6.1.192-iolat >"$1/kbuild$d/include/config/kernel.release"
		echo '#define UTS_VERSION "#1 SMP"' >"$1/kbuild$d/include/generated/utsversion.h"
	done
}
fake_build "$tmp/build" ""

# The fake guest/run: takes tests/run's arguments, writes a TAP line per
# test (FAKE_RESULT: ok, or none for a guest that died first), the console
# log $FAKE_SERIAL and exits $FAKE_RC.
cat >"$tmp/guest-run" <<'FAKE'
#!/usr/bin/env bash
out= base=0 kernel=
while [ $# -gt 0 ]; do
	case $1 in
	-o) out=$2; shift 2 ;;
	-e) case $2 in
	    IOLAT_TEST_BASE=*) base=${2#*=} ;;
	    IOLAT_VARIANT=*) kernel=${2#*=} ;;
	    esac; shift 2 ;;
	--) shift; break ;;
	-q) shift ;;
	--append) [ -n "${FAKE_APPENDS:-}" ] && echo "$2" >>"$FAKE_APPENDS"; shift 2 ;;
	*) shift 2 ;;
	esac
done
shift	# tests/guest-suite
suite=$1
shift
mkdir -p "$out"
n=$base
for t in "$@"; do
	n=$((n + 1))
	# tests/guest-suite's names: TEST of SUITE, or SUITE/TEST as given.
	[[ $t == */* ]] || t=$suite/$t
	[ "$FAKE_RESULT" = ok ] && echo "ok $n ${kernel:+$kernel:}$t" >>"$out/results"
	[ "$FAKE_RESULT" = skip ] && echo "ok $n ${kernel:+$kernel:}$t # SKIP no such thing" >>"$out/results"
	echo "$t 3" >>"$out/durations"
	echo "$t" >>"$out/../boots"
done
echo "boot" >>"$out/../boots"
cp "$FAKE_SERIAL" "$out/serial.log"
exit "$FAKE_RC"
FAKE
chmod +x "$tmp/guest-run"

boot='[    0.000000] Linux version 6.1.192-iolat
[    1.000000] iolat-suite: start'
tests='[    1.100000] iolat-suite: begin harness/01-kernel
[    2.000000] iolat-suite: end harness/01-kernel'
done_='[    2.100000] iolat-suite: done
[    2.200000] sysrq: Resetting'

# run_case NAME RC RESULT SERIAL WANT_SUMMARY WANT_EXIT [PATTERN]: tests/run
# harness/01-kernel against the fake prints WANT_SUMMARY last, exits
# WANT_EXIT and (if given) prints PATTERN.
run_case() {
	local name=$1 rc=$2 res=$3 serial=$4 want=$5 want_rc=$6 pat=${7:-} got got_rc
	printf '%s\n' "$serial" >"$tmp/serial.log"
	BUILD=$tmp/build IOLAT_GUEST_RUN=$tmp/guest-run FAKE_RC=$rc FAKE_RESULT=$res \
		FAKE_SERIAL=$tmp/serial.log "$REPO/tests/run" harness/01-kernel \
		>"$tmp/$name.out" 2>&1
	got_rc=$?
	got=$(tail -1 "$tmp/$name.out")
	[ "$got" = "$want" ] && [ "$got_rc" = "$want_rc" ] ||
		fail "$name: ended '$got' exit $got_rc, want '$want' exit $want_rc: $(cat "$tmp/$name.out")"
	[ -z "$pat" ] || grep -Eq -- "$pat" "$tmp/$name.out" ||
		fail "$name: no /$pat/ in: $(cat "$tmp/$name.out")"
	note "$name: $got, exit $got_rc"
}

run_case clean 0 ok "$boot
$tests
$done_" "2 passed, 0 failed, 0 skipped" 0 '^ok 2 picked/boot$'

run_case bug-on-at-boot 0 ok '[    0.900000] kernel BUG at block/blk-cgroup.c:1347!
[    0.900100] invalid opcode: 0000 [#1] SMP'"
$boot
$tests
$done_" "1 passed, 1 failed, 0 skipped" 1 'console: .*kernel BUG at'

run_case report-inside-tests-left-to-guest 0 ok "$boot"'
[    1.010000] WARNING: possible circular locking dependency detected
[    1.020000] WARNING: inconsistent lock state'"
$tests
$done_" "2 passed, 0 failed, 0 skipped" 0
# Inside the markers the guest checks each test itself; outside them the host.
run_case lockdep-before-start 0 ok '[    0.5] WARNING: possible circular locking dependency detected
[    0.6] WARNING: inconsistent lock state'"
$boot
$tests
$done_" "1 passed, 1 failed, 0 skipped" 1 'console: .*inconsistent lock state'

run_case report-at-shutdown 0 ok "$boot
$tests
$done_"'
[    2.300000] BUG: KASAN: slab-use-after-free in blkiolatency_enable_work_fn+0x2a/0x80' \
	"1 passed, 1 failed, 0 skipped" 1 'console: .*KASAN: slab-use-after-free'

run_case guest-exit-1 1 ok "$boot
$tests
$done_" "1 passed, 1 failed, 0 skipped" 1 'not ok 2 picked/boot # guest/run exited 1'

run_case guest-died 125 none "$boot
[    1.500000] Kernel panic - not syncing: Fatal exception" \
	"0 passed, 2 failed, 0 skipped" 1 'not ok 1 harness/01-kernel # no result'

run_case no-done-marker 0 ok "$boot
$tests" "1 passed, 1 failed, 0 skipped" 1 'never reached the end'

# CI's strict skips: a skip is a failure unless it is a skip by design
# (tools/04-core on the kernel the tools were built against).
run_case skip-allowed-by-default 0 skip "$boot
$tests
$done_" "1 passed, 0 failed, 1 skipped" 0 '^ok 1 harness/01-kernel # SKIP no such thing$'
IOLAT_STRICT_SKIPS=1 run_case skip-refused 0 skip "$boot
$tests
$done_" "1 passed, 1 failed, 0 skipped" 1 \
	'^not ok 1 harness/01-kernel # a skip, and only tools/04-core on the default kernel may skip: no such thing$'
printf '%s\n' "$boot" "$tests" "$done_" >"$tmp/serial.log"
fake_build "$tmp/sbuild" "" "-debug"
for t in tools/04-core debug:tools/04-core; do
	out=$(BUILD=$tmp/sbuild IOLAT_GUEST_RUN=$tmp/guest-run FAKE_RC=0 FAKE_RESULT=skip \
		FAKE_SERIAL=$tmp/serial.log IOLAT_STRICT_SKIPS=1 "$REPO/tests/run" "$t" 2>&1)
	case $t in
	debug:*) want="1 passed, 1 failed, 0 skipped" ;;
	*) want="1 passed, 0 failed, 1 skipped" ;;
	esac
	[ "$(echo "$out" | tail -1)" = "$want" ] || fail "strict skips, $t skipped: $out"
	note "strict skips, $t skipped: $want"
done
# A host test's skip goes the same way.
mkdir -p "$tmp/repo/tests/skipper" "$tmp/repo/guest"
cp -r "$REPO/tests/run" "$tmp/repo/tests/"
cp "$REPO/guest/kver.sh" "$tmp/repo/guest/"
printf 'echo "SKIP: no gnuplot"\nexit 77\n' >"$tmp/repo/tests/skipper/01-needs-gnuplot.sh"
sed -i 's/^HOST_SUITES=(host)$/HOST_SUITES=(skipper)/' "$tmp/repo/tests/run"
out=$(BUILD=$tmp/build IOLAT_STRICT_SKIPS=1 "$tmp/repo/tests/run" skipper 2>&1)
[ "$(echo "$out" | tail -1)" = "0 passed, 1 failed, 0 skipped" ] &&
	echo "$out" | grep -q '^not ok 1 skipper/01-needs-gnuplot # a skip, and only tools/04-core on the default kernel may skip: no gnuplot$' ||
	fail "strict skips, a host test skipped: $out"
note "strict skips, a host test skipped: $(echo "$out" | tail -1)"

# Past the deadline: nothing boots, every test fails saying why.
printf '%s\n' "$boot" "$tests" "$done_" >"$tmp/serial.log"
out=$(BUILD=$tmp/build IOLAT_GUEST_RUN=$tmp/guest-run FAKE_RC=0 FAKE_RESULT=ok \
	FAKE_SERIAL=$tmp/serial.log IOLAT_DEADLINE=$(( $(date +%s) - 1 )) \
	"$REPO/tests/run" harness/01-kernel 2>&1)
[ "$(echo "$out" | tail -1)" = "0 passed, 2 failed, 0 skipped" ] &&
	echo "$out" | grep -q 'not ok 1 harness/01-kernel # not run: the run.s deadline has passed' ||
	fail "past the deadline: $out"

# A kernel the run needs and that is not built is an error, not a skip:
# the default run needs 6.12's debug kernel, a debug: suite KVER's.
expect 2 "kernel not built .*kbuild-6.12-debug.*make kernel-debug KVER=6.12" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run"
expect 2 "kernel not built .*kbuild-debug" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run" debug:harness
expect 2 "kernel not built .*kbuild-debug" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run" --variant debug

# The default run's debug subset, on the other version: culprit removal
# (in every CI run, on a debug kernel), the device and throttled-group
# ones, and the tools loading on that version's layouts.
debug_set=$("$REPO/tests/run" --help | tr -s ' \n' '  ' |
	sed -n "s/.*(make kernel), then \(.*\) on 6.12's debug kernel.*/\1/p")
for t in reliability/03-remove-throttled reliability/06-remove-device \
	reliability/07-remove-culprit tools/04-core; do
	[[ " $debug_set " == *" $t "* ]] || fail "the default debug subset lacks $t: $debug_set"
done
note "debug subset: $debug_set"

# --list names every boot's kernel.  The default run: every suite on
# 6.1, the subset on 6.12-debug, the kmemleak boot; --all adds 6.1-debug's subset, the
# port's suites on 6.12 and the unpatched kernel; --port, on KVER.
boots_of() { "$REPO/tests/run" "$@" --list | sed 's/ .*//' | tr '\n' ' '; }
got=$(boots_of)
[ "$got" = "host:host 6.1:harness 6.1:tracepoints 6.1:tools 6.1:scenarios 6.1:routes 6.1:reliability 6.12-debug:picked 6.12-debug+kmemleak:picked " ] ||
	fail "the default run's boots: $got"
got=$(boots_of --all)
[ "$got" = "host:host 6.1:harness 6.1:tracepoints 6.1:tools 6.1:scenarios 6.1:routes 6.1:reliability 6.12-debug:picked 6.12-debug+kmemleak:picked 6.1-debug:picked 6.12:harness 6.12:tracepoints 6.12:tools 6.12:reliability 6.1-unpatched:unpatched " ] ||
	fail "--all's boots: $got"
note "--all: $got"
got=$(boots_of --kver 6.12 --port)
[ "$got" = "6.12:harness 6.12:tracepoints 6.12:tools 6.12:reliability " ] ||
	fail "--kver 6.12 --port's boots: $got"
[ "$("$REPO/tests/run" --all --list | grep -c "^6.1-debug:picked .*reliability/07-remove-culprit")" = 1 ] ||
	fail "--all's 6.1-debug boot lacks the debug subset"
expect 2 "names its own suites" "$REPO/tests/run" --all tools
expect 2 "names its own suites" "$REPO/tests/run" --port --variant debug
# +kmemleak: a debug kernel's flag, its boot apart, kmemleak=on on its
# command line and its results named with it.
expect 2 "only a debug kernel takes a flag" "$REPO/tests/run" 6.12+kmemleak:harness --list
expect 2 "only a debug kernel takes a flag" "$REPO/tests/run" debug+kasan:harness --list
# Tests named one by one share one boot per kernel, whatever their suite:
# the debug subset boots the debug kernel once.  Whole suites boot each.
fake_build "$tmp/build" "-debug"
printf '%s\n' "$boot" "$tests" "$done_" >"$tmp/serial.log"
rm -f "$tmp/build/tests/boots"
out=$(BUILD=$tmp/build IOLAT_GUEST_RUN=$tmp/guest-run FAKE_RC=0 FAKE_RESULT=ok \
	FAKE_SERIAL=$tmp/serial.log "$REPO/tests/run" debug:harness/01-kernel \
	debug:tools/04-core debug:reliability/06-remove-device harness/02-btf tools 2>&1)
boots=$(grep -c '^boot$' "$tmp/build/tests/boots")
[ "$(echo "$out" | tail -1)" = "$((6 + $(ls "$REPO"/tests/tools/[0-9]*.sh | wc -l) + 1)) passed, 0 failed, 0 skipped" ] && [ "$boots" = 3 ] &&
	echo "$out" | grep -q '^ok 2 debug:tools/04-core$' &&
	echo "$out" | grep -q '^ok 3 debug:reliability/06-remove-device$' &&
	echo "$out" | grep -q '^ok 4 debug:picked/boot$' &&
	echo "$out" | grep -q '^ok 6 picked/boot$' &&
	echo "$out" | grep -q "^ok $((6 + $(ls "$REPO"/tests/tools/[0-9]*.sh | wc -l) + 1)) tools/boot$" ||
	fail "one boot per kernel for picked tests: $boots boots: $out"
note "3 picked tests on the debug kernel, 1 on the normal one and a suite: $boots boots"
# +kmemleak boots the same debug kernel apart, with kmemleak=on.
out=$(BUILD=$tmp/build IOLAT_GUEST_RUN=$tmp/guest-run FAKE_RC=0 FAKE_RESULT=ok 	FAKE_SERIAL=$tmp/serial.log FAKE_APPENDS=$tmp/appends "$REPO/tests/run" 	debug:harness/01-kernel debug+kmemleak:harness/01-kernel 2>&1)
[ "$(echo "$out" | tail -1)" = "4 passed, 0 failed, 0 skipped" ] &&
	echo "$out" | grep -q '^ok 3 debug+kmemleak:harness/01-kernel$' &&
	echo "$out" | grep -q '^ok 4 debug+kmemleak:picked/boot$' &&
	[ "$(grep -c 'kasan_multi_shot' "$tmp/appends")" = 2 ] &&
	[ "$(grep -c 'kmemleak=on' "$tmp/appends")" = 1 ] &&
	grep -q 'kmemleak=on' <(tail -1 "$tmp/appends") ||
	fail "debug+kmemleak: $out; command lines: $(cat "$tmp/appends")"
note "debug+kmemleak: a boot of its own, with kmemleak=on"
# Another kernel version: its results are named after it, its kernel is
# found in build/kbuild-KVER[-VARIANT], and the one to build is named.
fake_build "$tmp/build" "-6.12"
printf '%s\n' "$boot" "$tests" "$done_" >"$tmp/serial.log"
for how in "6.12:harness/01-kernel" "--kver 6.12 harness/01-kernel"; do
	# shellcheck disable=SC2086
	out=$(BUILD=$tmp/build IOLAT_GUEST_RUN=$tmp/guest-run FAKE_RC=0 FAKE_RESULT=ok \
		FAKE_SERIAL=$tmp/serial.log "$REPO/tests/run" $how 2>&1)
	[ "$(echo "$out" | tail -1)" = "2 passed, 0 failed, 0 skipped" ] &&
		echo "$out" | grep -q '^ok 1 6.12:harness/01-kernel$' &&
		echo "$out" | grep -q '^ok 2 6.12:picked/boot$' ||
		fail "tests/run $how: $out"
	note "tests/run $how: results named 6.12:harness/..."
done
expect 2 "kernel not built .*kbuild-6.12-debug.*make kernel-debug KVER=6.12" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run" --kver 6.12 debug:harness
expect 2 "kernel not built .*kbuild-6.12-debug.*make kernel-debug KVER=6.12" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run" 6.12-debug:harness
expect 2 "unsupported kernel version '5.4'" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run" 5.4:harness
expect 2 "unsupported kernel version '5.4'" \
	env BUILD="$tmp/build" IOLAT_GUEST_RUN="$tmp/guest-run" "$REPO/tests/run" --kver 5.4
