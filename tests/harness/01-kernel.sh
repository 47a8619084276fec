# The guest runs the kernel that was just built, not some other one.
. "$IOLAT_REPO/tests/lib.sh"

[ -n "${IOLAT_KERNEL_RELEASE:-}" ] || fail "tests/run did not pass the expected release"
note "expect $IOLAT_KERNEL_RELEASE #$IOLAT_KERNEL_VERSION"
note "have   $(uname -r) $(uname -v)"
[ "$(uname -r)" = "$IOLAT_KERNEL_RELEASE" ] ||
	fail "uname -r is $(uname -r), built $IOLAT_KERNEL_RELEASE"
[ "$(uname -v)" = "$IOLAT_KERNEL_VERSION" ] ||
	fail "uname -v is '$(uname -v)', built '$IOLAT_KERNEL_VERSION'"
# The guest's root is the host's, read-only: a write must fail.
if touch /usr/iolat-write-test 2>/dev/null; then
	rm -f /usr/iolat-write-test
	fail "the root file system is writable"
fi
# A debug kernel has every checker the suites count on: a config that
# lost one would leave its reports unmade and every test passing.
if [ "${IOLAT_KERNEL_VARIANT:-}" = debug ]; then
	# One zcat: each took seconds under KASAN.
	config=$(zcat /proc/config.gz) || fail "no /proc/config.gz to check the debug kernel's config"
	for c in KASAN UBSAN DEBUG_KMEMLEAK PROVE_LOCKING DEBUG_OBJECTS DETECT_HUNG_TASK; do
		grep -qx "CONFIG_$c=y" <<<"$config" || fail "debug kernel without CONFIG_$c"
	done
	# The hard lockup detector where TCG can run one: 6.12's buddy
	# detector (guest/debug-6.12.config); 6.1's needs a PMU.
	if [ "${IOLAT_KVER:-6.1}" != 6.1 ]; then
		grep -qx "CONFIG_HARDLOCKUP_DETECTOR_BUDDY=y" <<<"$config" ||
			fail "debug kernel without the buddy hard lockup detector"
		[ "$(cat /proc/sys/kernel/nmi_watchdog)" = 1 ] ||
			fail "the hard lockup detector is off: nmi_watchdog $(cat /proc/sys/kernel/nmi_watchdog)"
		note "hard lockup detector: buddy, on"
	fi
	# kmemleak: off unless asked for (guest/debug.config), on when asked.
	if grep -qw 'kmemleak=on' /proc/cmdline; then
		head -c 1 /sys/kernel/debug/kmemleak >/dev/null ||
			fail "booted with kmemleak=on, and kmemleak cannot be read"
		note "kmemleak on"
	fi
	note "debug kernel: KASAN, UBSAN, kmemleak built, lockdep, debug objects, hung tasks"
fi
