# tests/kernel-log-check finds every kind of kernel report the suites can
# provoke, each on its own and after another, and nothing in a clean log.
. "$(dirname "$0")/lib.sh"
C=$REPO/tests/kernel-log-check

# A clean boot and test log: messages that look alarming to a careless
# pattern (the words "bug", "warning", "error", "fault") must not count.
clean=$(cat <<'LOG'
[    0.000000] Linux version 6.1.192-iolat (iolat@localhost) (gcc (Debian 12.2.0-14+deb12u1) 12.2.0) #1 SMP
[    0.012000] x86/fpu: x87 FPU will use FXSAVE
[    0.250000] Spectre V2 : Mitigation: Retpolines
[    1.100000] null_blk: disk iolat0 created
[    1.200000] 9pnet: Installing 9P2000 support
[    2.000000] iolat-suite: start
[    2.100000] iolat-suite: begin harness/01-kernel
[    3.000000] Adding 1048572k swap on /dev/iolat0.  Priority:-2 extents:1 across:1048572k SS
[    3.100000] debugfs: Directory 'iolat0' with parent 'block' already present!
[    3.200000] fio[213]: segfault-free run, no page fault handler errors
[    4.000000] iolat-suite: end harness/01-kernel
LOG
)
echo "$clean" | "$C" >/tmp/iolat-klc.out
rc=$?
[ $rc = 0 ] || fail "a clean log counted as a report ($rc): $(cat /tmp/iolat-klc.out)"

n=0
# expect_report TEXT...: each line, inside the clean log, is found.
expect_report() {
	local line out
	for line in "$@"; do
		n=$((n + 1))
		out=$(printf '%s\n%s\n%s\n' "$clean" "[    5.000000] $line" "[    5.1] iolat-suite: done" | "$C")
		[ $? = 1 ] || fail "not found: '$line'"
		echo "$out" | grep -qF -- "$line" || fail "'$line' found but not printed: $out"
	done
}
expect_report \
	'kernel BUG at block/blk-iolatency.c:707!' \
	'invalid opcode: 0000 [#1] PREEMPT SMP KASAN' \
	'general protection fault, probably for non-canonical address 0xdffffc0000000003: 0000 [#1] SMP KASAN' \
	'BUG: kernel NULL pointer dereference, address: 0000000000000008' \
	'BUG: unable to handle page fault for address: ffffffffffffffe8' \
	'Oops: 0000 [#1] SMP' \
	'WARNING: CPU: 1 PID: 42 at block/blk-iolatency.c:590 iolatency_pd_offline+0x52/0x60' \
	'BUG: KASAN: slab-use-after-free in blkiolatency_enable_work_fn+0x2a/0x80' \
	'BUG: KASAN: use-after-free in __mutex_lock+0x1041/0x13a0' \
	'UBSAN: shift-out-of-bounds in block/blk-iolatency.c:283:19' \
	'WARNING: possible circular locking dependency detected' \
	'WARNING: possible recursive locking detected' \
	'WARNING: inconsistent lock state' \
	'WARNING: suspicious RCU usage' \
	'WARNING: bad unlock balance detected!' \
	'list_del corruption. prev->next should be ffff888003f0a000, but was dead000000000100' \
	'INFO: task fio:231 blocked for more than 60 seconds.' \
	'watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [kworker/0:1:12]' \
	'rcu: INFO: rcu_preempt self-detected stall on CPU' \
	'Kernel panic - not syncing: Fatal exception'
note "$n kinds of report found"

# A second report after a first (lockdep and KASAN report the first and
# may stay quiet after it; what they do print must all be seen).
two=$(printf '%s\n' "$clean" \
	'[    6.0] WARNING: possible circular locking dependency detected' \
	'[    6.1] -> #1 (&q->rq_qos_mutex){+.+.}-{3:3}:' \
	'[    7.0] BUG: KASAN: slab-use-after-free in iolatency_pd_offline+0x2a/0x80' | "$C")
[ "$(echo "$two" | wc -l)" = 2 ] || fail "two reports, $(echo "$two" | wc -l) lines found: $two"

# Files as arguments, and an unreadable one is an error, not a clean log.
printf '%s\n' "$clean" >/tmp/iolat-klc.log
"$C" /tmp/iolat-klc.log || fail "a clean file counted as a report"
"$C" /nonexistent/log 2>/dev/null
[ $? = 2 ] || fail "an unreadable log was not an error"
rm -f /tmp/iolat-klc.log /tmp/iolat-klc.out
