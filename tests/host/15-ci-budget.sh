# .ci/run's time report, with a fake make on PATH that only sleeps: every
# phase's length, the total and "budget: N s of 4500", also when a phase
# fails (the exit status stays the failure's); .ci/budget warns when a
# run is over 75 minutes and not when it is within.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/iolat-budget.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# .ci/budget alone: the line, and the warning only past 4500 s.
out=$("$REPO/.ci/budget" 4563) || fail ".ci/budget 4563 exited $?"
grep -qx 'budget: 4563 s of 4500' <<<"$out" || fail ".ci/budget 4563 said: $out"
grep -q '^WARNING: over the 75-minute budget by 63 s' <<<"$out" ||
	fail ".ci/budget 4563 gave no warning: $out"
out=$("$REPO/.ci/budget" 4500) || fail ".ci/budget 4500 exited $?"
[ "$out" = 'budget: 4500 s of 4500' ] || fail ".ci/budget 4500 said: $out"
expect 2 'usage' "$REPO/.ci/budget"
expect 2 'usage' "$REPO/.ci/budget" 12m
note ".ci/budget: warns at 4563 s, not at 4500 s"

# .ci/run with a fake make: each target takes 1 s; FAKE_FAIL fails one.
mkdir "$tmp/bin"
cat >"$tmp/bin/make" <<'FAKE'
#!/bin/sh
echo "fake make $*"
sleep 1
[ "$1" != "${FAKE_FAIL:-}" ]
FAKE
chmod +x "$tmp/bin/make"
phases="deps kernel kernel-debug check-patches check-notrace tools test"

PATH=$tmp/bin:$PATH "$REPO/.ci/run" >"$tmp/ok.txt" 2>&1 || fail ".ci/run with make passing exited $?: $(cat "$tmp/ok.txt")"
cat "$tmp/ok.txt"
for p in $phases; do
	grep -Eqx "== $p done in [0-9]+ s" "$tmp/ok.txt" || fail "no length printed for phase $p"
done
grep -Eqx '== end: [0-9]+ s in all' "$tmp/ok.txt" || fail "no total printed"
grep -Eqx 'budget: [0-9]+ s of 4500' "$tmp/ok.txt" || fail "no budget line"
! grep -q WARNING "$tmp/ok.txt" || fail "a warning for a run of seconds"

FAKE_FAIL=tools PATH=$tmp/bin:$PATH "$REPO/.ci/run" >"$tmp/fail.txt" 2>&1
rc=$?
[ $rc = 1 ] || fail ".ci/run with 'make tools' failing exited $rc, want 1"
grep -Eqx '== tools failed \(exit 1\) in [0-9]+ s' "$tmp/fail.txt" ||
	fail "no length for the failed phase: $(cat "$tmp/fail.txt")"
grep -Eqx 'budget: [0-9]+ s of 4500' "$tmp/fail.txt" || fail "no budget line after a failed phase"
! grep -q 'fake make test' "$tmp/fail.txt" || fail "the run went on past the failed phase"
note ".ci/run: every phase's length, the total and the budget; after a failure too"

# .ci/run 6.12, the port's job: its kernel, checks and suites, with
# KVER=6.12 on every make that builds or checks a kernel, and no debug
# kernel; the default kernel or an unknown one is refused.
PATH=$tmp/bin:$PATH "$REPO/.ci/run" 6.12 >"$tmp/port.txt" 2>&1 ||
	fail ".ci/run 6.12 exited $?: $(cat "$tmp/port.txt")"
for p in deps kernel check-patches check-notrace tools test; do
	grep -Eqx "== $p done in [0-9]+ s" "$tmp/port.txt" || fail ".ci/run 6.12: no length for phase $p"
done
for m in 'kernel KVER=6.12' 'check-patches KVER=6.12' 'check-notrace KVER=6.12' 'test-port KVER=6.12'; do
	grep -qx "fake make $m" "$tmp/port.txt" || fail ".ci/run 6.12 did not run make $m: $(cat "$tmp/port.txt")"
done
! grep -q 'kernel-debug\|fake make test$' "$tmp/port.txt" || fail ".ci/run 6.12 ran the 6.1 job's targets"
grep -Eqx 'budget: [0-9]+ s of 4500' "$tmp/port.txt" || fail ".ci/run 6.12: no budget line"
PATH=$tmp/bin:$PATH expect 2 'default kernel' "$REPO/.ci/run" 6.1
PATH=$tmp/bin:$PATH expect 2 "unsupported kernel version '5.4'" "$REPO/.ci/run" 5.4
note ".ci/run 6.12: kernel, checks, tools and test-port with KVER=6.12"
