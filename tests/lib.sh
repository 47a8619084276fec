# SPDX-License-Identifier: GPL-2.0
# Helpers for tests that run inside the guest.  Source it from bash:
#	. "$IOLAT_REPO/tests/lib.sh"
#
# A test exits 0 to pass, 1 to fail and 77 to be skipped; fail and skip say
# why on the last line they print.  Everything a test creates is named
# iolat-*, so cleanup() can remove what a failed test left behind.

set -u

CG=/sys/fs/cgroup
NULLB_CFS=/sys/kernel/config/nullb
# The debug kernels' test-only hook (patches/KVER/debug): ms a window
# check waits before its parent's lock.
CHECK_STALL=/sys/module/blk_iolatency/parameters/check_stall_ms

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }

[ "${IOLAT_GUEST:-}" = 1 ] || fail "tests run inside the guest: use tests/run"

# jqe [JQ-OPTION...] FILTER: true when stdin holds one JSON value at least
# and FILTER gives each of them one output at least, all true (false,
# null, an error, or no output at all, as of a select() that found
# nothing: not; "some row" is any(.cgroups[]; ...)).
# The guest's jq is the host's (its root is the host's /), Debian 12's
# 1.6, whose `jq -e` exits 0 when its input holds no value at all: the
# last line of a file not written yet, a row that is not there, "$var"
# empty.  A check or a wait on that passes having looked at nothing
# (tools/07-fallback's swap wait did, at its first poll), so the tests
# never call `jq -e` on its own: jqe, or `jq -e -s`/`jq -e -n`, whose
# filter runs once even on no input, on [] or null (tests/host/18-jq-checks
# checks jqe and that no test does otherwise).
jqe() {
	local filter=${!#}
	jq -e -s "${@:1:$#-1}" "length > 0 and all(.[]; [$filter] | length > 0 and all)"
}

# nullb_create NAME [attr=value...]: a null_blk device through configfs.
# Defaults suit io.latency: timer completions (irqmode=2) so latency is
# real, memory backed so data survives, 256 MiB.
nullb_create() {
	local name=$1 kv key
	shift
	[[ $name == iolat* ]] || fail "nullb_create: name must start with iolat"
	mkdir "$NULLB_CFS/$name" || fail "cannot create null_blk $name"
	for kv in size=256 memory_backed=1 irqmode=2 completion_nsec=100000 \
		  hw_queue_depth=64 blocksize=4096 "$@"; do
		key=${kv%%=*}
		echo "${kv#*=}" >"$NULLB_CFS/$name/$key" ||
			fail "null_blk $name: cannot set $kv"
	done
	echo 1 >"$NULLB_CFS/$name/power" || fail "null_blk $name: power on failed"
	local i
	for i in $(seq 50); do
		[ -b "/dev/$name" ] && return 0
		sleep 0.1
	done
	fail "null_blk $name: /dev/$name did not appear"
}

nullb_remove() {
	[ -d "$NULLB_CFS/$1" ] || return 0
	echo 0 >"$NULLB_CFS/$1/power" 2>/dev/null
	rmdir "$NULLB_CFS/$1"
}

# majmin DEV: "MAJ:MIN" of /dev/DEV.
majmin() { cat "/sys/block/$1/dev" || fail "no block device $1"; }

# cg_create PATH: a cgroup below the root, with io (and memory) enabled
# on the way down so that PATH can have io.latency.
cg_create() {
	local path=$1 cur=$CG part
	[[ $path == iolat* ]] || fail "cg_create: path must start with iolat"
	IFS=/ read -ra parts <<<"$path"
	for part in "${parts[@]}"; do
		[ -d "$cur" ] && [ "$cur" != "$CG" ] &&
			echo "+io +memory" >"$cur/cgroup.subtree_control" 2>/dev/null
		cur=$cur/$part
		[ -d "$cur" ] || mkdir "$cur" || fail "cannot create cgroup $cur"
	done
}

# cg_kill PATH: kill every task in PATH and below, and wait for them.
cg_kill() {
	local d i
	[ -d "$CG/$1" ] || return 0
	for i in $(seq 50); do
		local pids
		pids=$(find "$CG/$1" -name cgroup.procs -exec cat {} + 2>/dev/null)
		[ -z "$pids" ] && return 0
		kill -9 $pids 2>/dev/null
		sleep 0.1
	done
	echo "cg_kill: tasks left in $1" >&2
	return 1
}

# cg_remove PATH: kill its tasks and remove it and its children.
cg_remove() {
	[ -d "$CG/$1" ] || return 0
	cg_kill "$1"
	# Children before parents (-depth), many to an rmdir: a fork per
	# cgroup takes minutes under TCG with thousands of them.
	find "$CG/$1" -depth -type d -exec rmdir {} + 2>/dev/null
	[ ! -d "$CG/$1" ]
}

# cg_run PATH CMD...: run CMD inside cgroup PATH (in the background with &).
cg_run() {
	local path=$1
	shift
	bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG/$path" "$@"
}

# io_latency_set PATH DEV TARGET_US: write io.latency, failing loudly.
io_latency_set() {
	echo "$(majmin "$2") target=$3" >"$CG/$1/io.latency" ||
		fail "cannot set io.latency of $1 on $2 to $3"
}

# iostat_key PATH DEV KEY: KEY's value in PATH's io.stat line for DEV.
iostat_key() {
	local mm
	mm=$(majmin "$2")
	awk -v mm="$mm" -v key="$3" '$1 == mm {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] }
	}' "$CG/$1/io.stat"
}

# kernel_kasan: the running kernel is built with KASAN, i.e. it is the
# debug kernel (make kernel-debug: KASAN and lockdep, 3-6x slower under
# TCG), where tests that repeat rounds run fewer of them.  Asked of the
# kernel's own config, or failing that of KASAN's debugfs directory, or
# of kasan_multi_shot on the command line (tests/run boots only the
# debug kernel with it).  The files are variables for tests/host.
KERNEL_CONFIG=${KERNEL_CONFIG:-/proc/config.gz}
KERNEL_CMDLINE=${KERNEL_CMDLINE:-/proc/cmdline}
KASAN_DEBUGFS=${KASAN_DEBUGFS:-/sys/kernel/debug/kasan}
kernel_kasan() {
	if [ -r "$KERNEL_CONFIG" ]; then
		zcat "$KERNEL_CONFIG" 2>/dev/null | grep -qx 'CONFIG_KASAN=y'
		return
	fi
	[ -e "$KASAN_DEBUGFS" ] && return 0
	grep -qw kasan_multi_shot "$KERNEL_CMDLINE" 2>/dev/null
}

debug_stats() {
	echo "${1:-1}" >/sys/module/blk_cgroup/parameters/blkcg_debug_stats ||
		fail "cannot set blkcg_debug_stats"
}

# dm_linear NAME DISK: a dm-linear device over the whole of /dev/DISK;
# prints its kernel name (dm-N).  No udev in the guest: libdevmapper
# makes /dev/mapper/NAME itself (DM_DISABLE_UDEV).
dm_linear() {
	local sectors mm
	[[ $1 == iolat* ]] || fail "dm_linear: name must start with iolat"
	sectors=$(cat "/sys/block/$2/size") || fail "no block device $2"
	DM_DISABLE_UDEV=1 dmsetup create "$1" --table "0 $sectors linear /dev/$2 0" ||
		fail "cannot create dm-linear $1 over $2"
	mm=$(DM_DISABLE_UDEV=1 dmsetup info -c --noheadings --separator : -o major,minor "$1" |
		tr -d ' ') || fail "dmsetup info $1 failed"
	basename "$(readlink "/sys/dev/block/$mm")"
}

# fs_make DISK NAME [MOUNT_OPTIONS]: a fresh ext4 on /dev/DISK, mounted at
# $FS_DIR/NAME (the guest's root is read-only; /run is tmpfs); prints
# the mount point.  Inode tables and journal written now, not by a
# background thread whose IO would land in the middle of a test.
FS_DIR=/run/iolat-fs
fs_make() {
	local mnt=$FS_DIR/$2
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$1" >/dev/null ||
		fail "mkfs.ext4 on $1 failed"
	mkdir -p "$mnt" && mount -t ext4 ${3:+-o "$3"} "/dev/$1" "$mnt" ||
		fail "cannot mount $1 on $mnt${3:+ ($3)}"
	echo "$mnt"
}

# cleanup: release held window checks, remove every iolat-* cgroup,
# filesystem of fs_make, dm and null_blk device, stop tracing, drop the
# filters of the series' events (trace systems iolatency and blkcg) and
# iolat-* trace instances.
cleanup() {
	local d
	# patches/KVER/debug's hook: no window check may wait on past the test
	[ -w "$CHECK_STALL" ] && echo 0 >"$CHECK_STALL"
	for d in "$CG"/iolat*; do
		[ -d "$d" ] && cg_remove "${d#$CG/}"
	done
	# what fs_make mounted, then dm devices: each holds the disks below
	for d in "$FS_DIR"/*; do
		[ -d "$d" ] || continue
		umount "$d" 2>/dev/null || umount -l "$d" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	for d in /dev/mapper/iolat*; do
		[ -e "$d" ] && DM_DISABLE_UDEV=1 dmsetup remove "${d##*/}" 2>/dev/null
	done
	for d in "$NULLB_CFS"/iolat*; do
		[ -d "$d" ] && nullb_remove "${d##*/}"
	done
	echo 0 >/sys/kernel/tracing/tracing_on 2>/dev/null
	echo 0 >/sys/kernel/tracing/events/enable 2>/dev/null
	for d in /sys/kernel/tracing/events/{iolatency,blkcg}/*/filter; do
		[ -f "$d" ] && echo 0 >"$d" 2>/dev/null
	done
	for d in /sys/kernel/tracing/instances/iolat*; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	rm -f /tmp/iolat-*.hold /tmp/iolat-*.stop
	echo >/sys/kernel/tracing/trace 2>/dev/null
	echo 1 >/sys/kernel/tracing/tracing_on 2>/dev/null
	return 0
}

# fio_job CGROUP NAME DEV SECONDS FIO_ARG...: a time-based fio job named
# NAME on /dev/DEV, in CGROUP (created if need be), in the background: $!
# is its pid.  Its JSON report goes to /tmp/NAME.json when it ends by
# itself (fio_report reads it).
fio_job() {
	local cg=$1 name=$2 dev=$3 secs=$4
	shift 4
	cg_create "$cg"
	cg_run "$cg" fio --name="$name" --filename="/dev/$dev" --direct=1 \
		--time_based --runtime="$secs" --eta=never \
		--output-format=json --output="/tmp/$name.json" "$@" >/dev/null 2>&1 &
}

# The workloads: 4k random reads, bulk (one thread, queue depth 64) or
# synchronous (queue depth 1, the latency-sensitive kind).
FIO_BULK=(--rw=randread --bs=4k --ioengine=libaio --iodepth=64)
FIO_SYNC=(--rw=randread --bs=4k --ioengine=psync)

# fio_report NAME [LABEL]: "LABEL<tab>IOPS<tab>p50_us<tab>p99_us" of the
# reads of fio job NAME (LABEL defaults to NAME).
fio_report() {
	[ -s "/tmp/$1.json" ] || fail "fio job $1 left no report"
	jq -r --arg n "${2:-$1}" '.jobs[0].read | [$n, .iops,
		(.clat_ns.percentile["50.000000"] // 0) / 1000,
		(.clat_ns.percentile["99.000000"] // 0) / 1000] |
		"\(.[0])\t\(.[1] | floor)\t\(.[2] | floor)\t\(.[3] | floor)"' \
		"/tmp/$1.json" || fail "cannot read fio report /tmp/$1.json"
}

# The two-sibling scenario of the tests: iolat-p/tight has an io.latency
# target on DEV, iolat-p/loose has none and floods DEV.  Both are fio_jobs
# (reports in /tmp/loose.json, /tmp/tight.json); FIO_ARGs are added to
# their options.
#
# loose_start DEV [SECONDS [FIO_ARG...]]: FIO_BULK in loose.
loose_start() {
	local dev=$1 secs=${2:-600}
	shift $(($# < 2 ? $# : 2))
	fio_job iolat-p/loose loose "$dev" "$secs" "${FIO_BULK[@]}" "$@"
	LOOSE_PID=$!
}

# tight_start DEV TARGET_US [SECONDS [FIO_ARG...]]: FIO_SYNC in tight;
# TARGET_US "off" sets no target.
tight_start() {
	local dev=$1 target=$2 secs=${3:-600}
	shift $(($# < 3 ? $# : 3))
	cg_create iolat-p/tight
	[ "$target" = off ] || io_latency_set iolat-p/tight "$dev" "$target"
	fio_job iolat-p/tight tight "$dev" "$secs" "${FIO_SYNC[@]}" "$@"
	TIGHT_PID=$!
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds.  A
# wait of 10 s or more is said on stderr (the test's log): where a test's
# time goes.
wait_for() {
	local t0 end now
	t0=$(date +%s)
	end=$((t0 + $1))
	shift
	while ! "$@"; do
		now=$(date +%s)
		[ "$now" -lt "$end" ] || { echo "# waited $((now - t0)) s, in vain: $*" >&2; return 1; }
		sleep 0.2
	done
	now=$(date +%s)
	[ $((now - t0)) -lt 10 ] || echo "# waited $((now - t0)) s: $*" >&2
	return 0
}

# timed_wait SECONDS WHAT CMD...: wait_for SECONDS CMD..., noting how long
# WHAT took (also left in $WAITED, seconds); returns 1, noted, when WHAT
# did not happen in time.
timed_wait() {
	local secs=$1 what=$2 t0=$EPOCHREALTIME
	shift 2
	wait_for "$secs" "$@" || { note "$what: not within $secs s"; return 1; }
	WAITED=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	note "$what: after $WAITED s (bound $secs s)"
}

# has_line FILE ERE WHY: FILE has a line that is ERE, whole (grep -Ex):
# the first two such lines are shown and all are left in $LINES; if none
# is, the test fails saying WHY.
has_line() {
	LINES=$(grep -Ex -- "$2" "$1") || fail "$3"
	head -2 <<<"$LINES"
}

# pid_gone PID: the process has ended.  all_gone PID...: each has.
pid_gone() { ! kill -0 "$1" 2>/dev/null; }
all_gone() {
	local p
	for p in "$@"; do pid_gone "$p" || return 1; done
}

# The reliability suite: throttled groups that go away, targets dropped
# under pressure, and what is left behind.

# is_delayed DEV PATH...: io.stat says each PATH is held at depth 1 on DEV
# with induced delay on (use_delay >= 1).  is_unthrottled DEV PATH...:
# each is at depth max with use_delay 0.  Both need debug_stats.
is_delayed() {
	local dev=$1 p
	shift
	for p in "$@"; do
		[ "$(iostat_key "$p" "$dev" depth)" = 1 ] || return 1
		[ "$(iostat_key "$p" "$dev" use_delay)" -ge 1 ] 2>/dev/null || return 1
	done
}
is_unthrottled() {
	local dev=$1 p
	shift
	for p in "$@"; do
		[ "$(iostat_key "$p" "$dev" depth)" = max ] || return 1
		[ -z "$(iostat_key "$p" "$dev" use_delay)" ] || return 1
	done
}

# wait_throttle STATE SECONDS DEV PATH...: wait until each PATH is_STATE
# (delayed or unthrottled) on DEV, or fail showing their io.stat.
wait_throttle() {
	local state=$1 secs=$2 dev=$3 p st=
	shift 3
	timed_wait "$secs" "${*#iolat-p/} $state" "is_$state" "$dev" "$@" && return 0
	for p in "$@"; do st+=" $p: $(cat "$CG/$p/io.stat" 2>/dev/null);"; done
	fail "not $state within $secs s:$st"
}

# trace_mark TEXT: write TEXT into the trace, between the events around it.
# trace_since TEXT: the trace from that mark on.
trace_mark() {
	echo "iolat-test: $*" >"$TRACEFS/trace_marker" || fail "cannot write trace_marker"
}
trace_since() { sed -n "/tracing_mark_write: iolat-test: $*/,\$p" "$TRACEFS/trace"; }

# inflight_zero DEV: no request of DEV in flight (/sys/block/DEV/inflight).
inflight_zero() {
	local r w
	read -r r w <"/sys/block/$1/inflight" && [ $((r + w)) = 0 ]
}

# d_state: "tid comm wchan" of each thread in uninterruptible sleep (D).
d_state() {
	local f line rest tid
	for f in /proc/[0-9]*/task/[0-9]*/stat; do
		{ read -r line <"$f"; } 2>/dev/null || continue
		rest=${line##*) }
		[ "${rest%% *}" = D ] || continue
		tid=${line%% *}
		echo "$tid $(cat "/proc/$tid/comm" 2>/dev/null) $(cat "/proc/$tid/wchan" 2>/dev/null)"
	done
}

# proc_report PID: what PID is doing when it should have ended: its
# memory (resident, swapped out) and each thread's state, wait channel and
# kernel stack (empty on the normal kernel: its ORC unwinder gives none
# for another task there, measured 2026-12-05).
proc_report() {
	local t line rest
	grep -E '^(State|VmRSS|VmSwap):' "/proc/$1/status" 2>/dev/null | tr -s '\t ' ' '
	for t in /proc/"$1"/task/[0-9]*; do
		{ read -r line <"$t/stat"; } 2>/dev/null || continue
		rest=${line##*) }
		echo "== thread ${t##*/} $(cat "$t/comm" 2>/dev/null): state ${rest%% *}, wchan $(cat "$t/wchan" 2>/dev/null)"
		cat "$t/stack" 2>/dev/null
	done
}

# mem_summary: one line, MemAvailable and swap in use, in MiB.
mem_summary() {
	awk '/^MemAvailable:/ { a = $2 } /^SwapTotal:/ { t = $2 } /^SwapFree:/ { f = $2 }
	     END { printf "MemAvailable %d MiB, swap used %d MiB\n", a / 1024, (t - f) / 1024 }' /proc/meminfo
}

# no_stuck_tasks: no thread is in D state at each of three looks, 1 s
# apart; the stacks of those that are, if any.
no_stuck_tasks() {
	local a b c stuck tid
	a=$(d_state)
	sleep 1
	b=$(d_state)
	sleep 1
	c=$(d_state)
	stuck=$(printf '%s\n' "$a" "$b" "$c" |
		awk 'NF { n[$1]++; l[$1] = $0 } END { for (t in n) if (n[t] == 3) print l[t] }')
	[ -z "$stuck" ] && return 0
	while read -r tid _; do
		echo "== stack of $tid"
		cat "/proc/$tid/stack" 2>/dev/null
	done <<<"$stuck"
	fail "tasks stuck in D state: ${stuck//$'\n'/; }"
}

# settle DEV PARENT: end every task below cgroup PARENT, then check that
# nothing was left behind: no request of DEV in flight (within 30 s), no
# thread stuck in D state, PARENT unthrottled in io.stat, and new readers
# in a new cgroup below PARENT (four dd, 256 direct 4 KiB reads each, side
# by side) all end, each exiting 0, within 60 s, io.stat counting their
# 1024 reads.  Then PARENT and everything below it can be removed.
# (dd, not fio: fio's 2 s took 5-7 s under TCG, 32-51 s on the debug
# kernel, close to the bound; dd starts at once, as 06-remove-device has
# it.)
settle() {
	local dev=$1 parent=$2 pid pids=() i n
	cg_kill "$parent" || fail "tasks below $parent did not die"
	timed_wait 30 "no IO in flight on $dev" inflight_zero "$dev" ||
		fail "requests stuck in flight on $dev: $(cat "/sys/block/$dev/inflight")"
	no_stuck_tasks
	debug_stats 1
	is_unthrottled "$dev" "$parent" ||
		fail "io.stat of $parent not clean: $(cat "$CG/$parent/io.stat")"
	cg_create "$parent/fresh"
	for i in 1 2 3 4; do
		cg_run "$parent/fresh" dd if="/dev/$dev" of=/dev/null bs=4k count=256 \
			skip=$((i * 256)) iflag=direct status=none &
		pids+=($!)
	done
	timed_wait 60 "4 new readers in a new cgroup on $dev" all_gone "${pids[@]}" ||
		fail "new readers in $parent/fresh did not end within 60 s"
	for pid in "${pids[@]}"; do
		wait "$pid" || fail "a new reader in $parent/fresh failed"
	done
	n=$(iostat_key "$parent/fresh" "$dev" rios)
	[ "${n:-0}" -ge 1024 ] ||
		fail "the new readers in $parent/fresh read ${n:-0} blocks, want 1024"
	note "the new readers read $n blocks"
	wait_for 10 cg_remove "$parent" ||
		fail "cannot remove $parent: $(find "$CG/$parent" -type d)"
}

# siblings_start DEV: iolat-p/tight (target 1000us: out of reach of a 2 ms
# null_blk) throttles two siblings: loose (loose_start, no target) and
# calm (FIO_SYNC, target 250 ms: never missed, so calm never scales anyone
# down itself), whose target keeps io.latency on for DEV when tight's goes.
# Traces depth, use_delay, cookie and target events; returns once loose and
# calm are both at depth 1 with use_delay on.
siblings_start() {
	local dev=$1
	debug_stats 1
	trace_events iolatency_depth iolatency_use_delay iolatency_scale_cookie \
		iolatency_target
	cg_create iolat-p/calm
	io_latency_set iolat-p/calm "$dev" 250000
	fio_job iolat-p/calm calm "$dev" 600 "${FIO_SYNC[@]}"
	loose_start "$dev"
	tight_start "$dev" 1000
	wait_throttle delayed 120 "$dev" iolat-p/loose iolat-p/calm
}

# siblings_recovered DEV MARK: tight stopped counting at trace mark MARK
# (removed, or its target dropped).  Within 30 s loose and calm are back
# at depth max with use_delay 0, through depth ->max and use_delay ->0
# events at cookie 1000000 (the parent's scaling was reset), and for 3 s
# after that nothing lowers the cookie or limits a depth again.
siblings_recovered() {
	local dev=$1 mark=$2 p after=/tmp/after-mark.txt
	wait_throttle unthrottled 30 "$dev" iolat-p/loose iolat-p/calm
	sleep 3
	trace_since "$mark" >$after
	for p in loose calm; do
		grep -o "iolatency_depth: \[$dev:/iolat-p/$p\] depth=[0-9]*->$DEPTH_MAX cookie=1000000" $after ||
			fail "no depth ->max event at cookie 1000000 for $p"
		grep -o "iolatency_use_delay: \[$dev:/iolat-p/$p\] use_delay=[0-9]*->0 " $after ||
			fail "no use_delay ->0 event for $p"
	done
	awk -v max=$DEPTH_MAX '$0 ~ "iolatency_depth: .*->" max " cookie=1000000" { last = NR } { l[NR] = $0 }
	     END { for (i = last + 1; i <= NR; i++)
			if (l[i] ~ /iolatency_scale_cookie: .* step=-|iolatency_depth: .*->[0-9]/ &&
			    l[i] !~ "->" max " ") print l[i] }' \
		$after >/tmp/again.txt
	[ ! -s /tmp/again.txt ] || fail "throttled again after recovering: $(head -3 /tmp/again.txt)"
	is_unthrottled "$dev" iolat-p/loose iolat-p/calm ||
		fail "throttled again: loose: $(cat "$CG/iolat-p/loose/io.stat")"
}

TRACEFS=/sys/kernel/tracing
# iolatency_depth prints depths as they are: an unlimited one, io.stat's
# "max", is UINT_MAX.  depth_words turns it into max on stdin, so that
# steps compare with depth_halvings and io.stat.
DEPTH_MAX=4294967295
depth_words() { sed "s/\b$DEPTH_MAX\b/max/g"; }

# The twelve events of the series, in two trace systems: eleven in
# iolatency, io.latency's own decisions, and blkcg_delay_pay in blkcg, the
# payment of induced delay, which blk-cgroup makes for io.latency and
# io.cost alike.
IOLAT_EVENTS="iolatency_window iolatency_target iolatency_enable
	iolatency_scale_cookie iolatency_scale_grp_clear iolatency_scale_reset
	iolatency_scale_skip iolatency_depth iolatency_throttle
	iolatency_use_delay iolatency_delay_charge blkcg_delay_pay"
IOLAT_SYSTEMS="iolatency blkcg"

# event_system EVENT: the trace system of EVENT, as tracefs
# (events/SYSTEM/EVENT), perf, trace-cmd and bcc (SYSTEM:EVENT) name it.
event_system() {
	case $1 in
	blkcg_*) echo blkcg ;;
	*) echo iolatency ;;
	esac
}

# system_events SYSTEM: the events of IOLAT_EVENTS in trace system
# SYSTEM, one a line: all that SYSTEM holds, for tests that count them.
system_events() {
	local e
	for e in $IOLAT_EVENTS; do
		if [ "$(event_system "$e")" = "$1" ]; then echo "$e"; fi
	done
}

# systems_hold_series: tracefs has in each of IOLAT_SYSTEMS the series'
# events in it and no other.
systems_hold_series() {
	local sys got want
	for sys in $IOLAT_SYSTEMS; do
		got=$(find "$TRACEFS/events/$sys" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' |
			sort | tr '\n' ' ')
		want=$(system_events "$sys" | sort | tr '\n' ' ')
		[ "$got" = "$want" ] || fail "events/$sys in tracefs holds '$got', want '$want'"
	done
}

# trace_events EVENT...: record only these events of the series, from now
# on (each in its trace system: event_system).
trace_events() {
	local e sys
	echo 0 >"$TRACEFS/events/enable"
	echo >"$TRACEFS/trace"
	echo 4096 >"$TRACEFS/buffer_size_kb"
	for e in "$@"; do
		sys=$(event_system "$e")
		echo 1 >"$TRACEFS/events/$sys/$e/enable" ||
			fail "no tracepoint $sys:$e: are patches/ applied?"
	done
}

# cg_id PATH: the cgroup id (its directory's inode) the events carry.
cg_id() { stat -c %i "$CG/$1"; }

# check_throttling DEV TARGET_US: the tight/loose scenario on DEV, with a
# target DEV cannot meet, checked event by event against io.stat:
#  - tight's windows miss and lower the parent's cookie, tight the culprit;
#  - loose's depth halves step by step from max down to 1, in order;
#  - then use_delay turns on for loose, as io.stat says at that moment;
#  - tight stops: loose's depth climbs back to max and use_delay to 0.
# $STAT is "mean" (rotational) or "missed" (non-rotational): the window's
# verdict statistic, non-zero in a missed window (mean_ns, nr_missed).
check_throttling() {
	local dev=$1 target=$2 stat=$3 tr=/tmp/trace.txt
	local nr_requests depth_seq want d ssd tight_id tns=$(($2 * 1000))
	local nz='[1-9][0-9]*' any='[0-9]+' wstat
	case $stat in	# missed=N mean_ns=N of the window, its statistic > 0
	mean) ssd=0 wstat="missed=$any mean_ns=$nz" ;;
	missed) ssd=1 wstat="missed=$nz mean_ns=$any" ;;
	*) fail "check_throttling: STAT '$stat', want mean or missed" ;;
	esac
	debug_stats 1
	nr_requests=$(cat "/sys/block/$dev/queue/nr_requests")
	trace_events iolatency_window iolatency_scale_cookie iolatency_depth \
		iolatency_use_delay iolatency_scale_grp_clear
	loose_start "$dev"
	tight_start "$dev" "$target"
	tight_id=$(cg_id iolat-p/tight)

	# Throttled down to depth 1 and then into induced delay.
	wait_for 120 grep -q 'iolatency_use_delay: \[[^]]*:/iolat-p/loose\] use_delay=0->1' \
		"$TRACEFS/trace" || { tail -20 "$TRACEFS/trace"; fail "loose never got use_delay"; }
	# io.stat must agree with the last depth and use_delay events.  While
	# tight misses, use_delay moves every scale event, and each event is
	# written after its counter moved (and after its cgroup path is built,
	# slow under TCG), so a snapshot may fall in between.  With tight
	# stopped nothing moves until its culprit is 5 s idle, then loose
	# climbs back a step a second: compare at rest, on both sides of a
	# copy of the trace (on a slow kernel, rest may be after the climb).
	local io_depth io_use ev_depth ev_use before after i off
	cg_kill iolat-p/tight || fail "cannot stop tight"
	sleep 0.5
	for i in $(seq 60); do
		before=$(grep -o ' \(depth\|use_delay\)=[0-9a-z]*' "$CG/iolat-p/loose/io.stat")
		sleep 0.2
		cp "$TRACEFS/trace" $tr
		after=$(grep -o ' \(depth\|use_delay\)=[0-9a-z]*' "$CG/iolat-p/loose/io.stat")
		io_depth=$(echo "$after" | sed -n 's/ depth=//p')
		io_use=$(echo "$after" | sed -n 's/ use_delay=//p')
		ev_depth=$(grep -o "iolatency_depth: \[$dev:/iolat-p/loose\] depth=[0-9]*->[0-9]*" $tr |
			tail -1 | sed 's/.*->//' | depth_words)
		ev_use=$(grep -o 'iolatency_use_delay: \[[^]]*:/iolat-p/loose\] use_delay=[0-9]*->[0-9]*' $tr |
			tail -1 | sed 's/.*->//')
		[ "$before" = "$after" ] && [ "$io_depth" = "$ev_depth" ] &&
			[ "${io_use:-0}" = "${ev_use:-0}" ] && break
	done
	note "io.stat of loose:$(echo $after) (snapshot $i)"
	[ -n "$io_depth" ] || fail "no depth in io.stat of loose (blkcg_debug_stats)"
	[ "$io_depth" = "$ev_depth" ] || fail "io.stat depth=$io_depth, last event says $ev_depth"
	[ "${io_use:-0}" = "${ev_use:-0}" ] || fail "io.stat use_delay=${io_use:-0}, last event says ${ev_use:-0}"

	grep 'iolatency_window: \[[^]]*:/iolat-p/tight\]' $tr | head -3
	# A missed window (the window alone, win_met=0, and so the verdict,
	# met=0) judged by the statistic of the device's kind (ssd=), which
	# is non-zero.
	grep -Eq "iolatency_window: \[$dev:/iolat-p/tight\] met=0 action=down target_ns=$tns win_ns=[0-9]+ ssd=$ssd samples=[0-9]+ $wstat win_met=0 acc_samples=[0-9]+ acc_missed=[0-9]+ acc_mean_ns=[0-9]+ scale_lat_ns=$tns cookie=[0-9]+\$" $tr ||
		fail "no missed window with action=down, ssd=$ssd and $stat > 0 for tight"
	# A scale-down: step < 0, culprit tight (by cgroup id), its target.
	grep -Eq "iolatency_scale_cookie: \[$dev:/iolat-p\] cookie=1000000->[0-9]+ step=-[1-9][0-9]* culprit_id=$tight_id scale_lat_ns=$tns idle_ns=[0-9]+ by=window\$" $tr ||
		fail "no first scale-down of /iolat-p by /iolat-p/tight (id $tight_id)"
	# Each cookie event starts where the previous one ended.  Loose's
	# depth steps below need a cookie change each: at least two events.
	grep -o 'iolatency_scale_cookie: \[[^]]*\] cookie=[0-9]*->[0-9]*' $tr |
		sed 's/.*cookie=//' | awk -F'->' 'NR > 1 && $1 != prev { print "cookie jumped " prev " -> " $1; bad = 1 }
			{ prev = $2 }
			END { print "# " NR " scale cookie events checked"
			      if (NR < 2) { print "fewer than 2 scale cookie events"; exit 1 }
			      exit bad }' || fail "scale cookie events do not chain"

	# Loose's depth: max, then halving to 1, before use_delay came on.
	depth_seq=$(sed -n '1,/use_delay=0->1/p' $tr |
		grep -o "iolatency_depth: \[$dev:/iolat-p/loose\] depth=[0-9]*->[0-9]*" |
		sed 's/.*depth=//' | depth_words | tr '\n' ' ')
	want="max->$((nr_requests / 2)) "
	d=$((nr_requests / 2))
	while [ $d -gt 1 ]; do want+="$d->$((d / 2)) "; d=$((d / 2)); done
	note "depth steps: $depth_seq"
	[ "$depth_seq" = "$want" ] || fail "loose depth went '$depth_seq', want '$want'"

	# Work conserving: with tight gone, loose gets its depth back.
	wait_for 240 grep -q "iolatency_depth: \[$dev:/iolat-p/loose\] depth=[0-9]*->$DEPTH_MAX " \
		"$TRACEFS/trace" || { tail -5 "$TRACEFS/trace"; fail "loose's depth never came back to max"; }
	cp "$TRACEFS/trace" $tr
	grep -E "iolatency_scale_grp_clear: \[$dev:/iolat-p\] cookie=([0-9]+)->\1 step=0 culprit_id=$tight_id scale_lat_ns=$tns idle_ns=[0-9]+ by=timer\$" $tr ||
		fail "the culprit (tight, id $tight_id) was never forgotten"
	grep -Eq "iolatency_scale_cookie: \[$dev:/iolat-p\] cookie=[0-9]+->[0-9]+ step=[1-9][0-9]* .* by=timer\$" $tr ||
		fail "no timer scale-up"
	io_depth=$(iostat_key iolat-p/loose "$dev" depth)
	io_use=$(iostat_key iolat-p/loose "$dev" use_delay)
	[ "$io_depth" = max ] || fail "io.stat depth of loose is '$io_depth' after recovery"
	[ -z "$io_use" ] || fail "io.stat still shows use_delay=$io_use after recovery"
	# (no pipefail: test what grep found, not what tail did)
	off=$(grep -o "iolatency_use_delay: \[$dev:/iolat-p/loose\] use_delay=[0-9]*->0" $tr | tail -1)
	[ -n "$off" ] || fail "no event turned use_delay off"
	echo "$off"
	note "decisions (all but windows), as traced:"
	grep -v iolatency_window "$TRACEFS/trace" | grep -o '[0-9.]*: iolatency_.*' | head -60
	cg_kill iolat-p/loose
}

TOOLS=$IOLAT_REPO/build/tools
[ -n "${IOLAT_TOOLS:-}" ] && TOOLS=$IOLAT_TOOLS

# need_tools: the tools are built, or the test fails saying so.
need_tools() {
	[ -x "$TOOLS/iolat-top" ] && [ -x "$TOOLS/iolat-snoop" ] ||
		fail "tools not built in $TOOLS: run 'make tools'"
}

# expect_exit STATUS PATTERN CMD...: CMD exits STATUS, stderr matches PATTERN.
expect_exit() {
	local want=$1 pat=$2 rc
	shift 2
	"$@" >/tmp/out.txt 2>/tmp/err.txt
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat /tmp/err.txt)"
	grep -Eq -- "$pat" /tmp/err.txt ||
		fail "'$*' said '$(cat /tmp/err.txt)', want /$pat/"
}

# swap_start DEV: swap on a 1 GiB memory-backed null_blk DEV with 2 ms
# completions and 16 tags.  The caller swapoffs /dev/DEV when done.
swap_start() {
	nullb_create "$1" size=1024 completion_nsec=2000000 hw_queue_depth=16
	mkswap "/dev/$1" >/dev/null || fail "mkswap failed"
	swapon "/dev/$1" || fail "swapon failed"
}

# swap_used DEV: KiB of swap in use on /dev/DEV.
swap_used() { awk -v d="/dev/$1" '$1 == d { print $4 }' /proc/swaps; }

# hog_start CGROUP: a runaway in CGROUP, limited to memory.max=64M: a dd
# whose 192 MiB buffer cannot stay within it, filled four times over and
# over, so that it swaps for as long as it runs.  Its swap-outs are
# issued as root (its swap-ins are its own reads).  $! is the loop's pid.
# The buffer holds 0x01 bytes, from a tmpfs file made once (charged to
# the caller's cgroup, not the hog's): from 6.12 on a page of zeros
# swaps out without IO (a bit in the swap map, swpout_zero in
# /proc/vmstat), and a dd from /dev/zero hardly touched the disk there.
HOG_SRC=/dev/shm/iolat-hog-192M
hog_start() {
	cg_create "$1"
	echo 64M >"$CG/$1/memory.max" || fail "cannot set memory.max of $1"
	[ -s $HOG_SRC ] || python3 -c 'import sys
open(sys.argv[1], "wb").write(b"\x01" * (192 << 20))' $HOG_SRC ||
		fail "cannot write $HOG_SRC"
	cg_run "$1" bash -c 'exec 2>/dev/null
		while :; do cat "$0" "$0" "$0" "$0" |
			dd of=/dev/null bs=192M count=4 iflag=fullblock; done' $HOG_SRC &
}

# swap_scenario_start: swap on null_blk iolat0 (swap_start), where
# iolat-p/tight (1 ms target) reads.  iolat-p/loose has a looser 10 ms
# target, direct reads of its own (so the controller counts it among the
# siblings) and a hog (hog_start): its swap-outs charge it delay.
# The caller swapoffs /dev/iolat0 when done.
swap_scenario_start() {
	swap_start iolat0
	debug_stats 1
	cg_create iolat-p/loose
	io_latency_set iolat-p/loose iolat0 10000
	loose_start iolat0 600
	hog_start iolat-p/loose
	tight_start iolat0 1000
}

# The routes suite: the same decisions through tracefs by hand, trace-cmd,
# perf and bcc.

# event_kind EVENT: how EVENT names what it is about, which is how its
# text begins:
#  path  "[dev:/cgroup/path] ": a group's decision (devname, cgroup, a
#        __data_loc string, and u64 cgroup_id);
#  id    "[dev] cgroup_id=N ": a per-bio event, no path (devname and
#        cgroup_id only): map ids to paths with cg_id;
#  dev   "[dev] ": iolatency_enable, a queue's (devname only).
event_kind() {
	case $1 in
	iolatency_throttle|iolatency_delay_charge|blkcg_delay_pay) echo id ;;
	iolatency_enable) echo dev ;;
	iolatency_*) echo path ;;
	esac
}

# event_fields EVENT: every field of EVENT, those of its kind (devname;
# cgroup; cgroup_id) first.
event_fields() {
	case $(event_kind "$1") in
	path) printf 'devname cgroup cgroup_id ' ;;
	id) printf 'devname cgroup_id ' ;;
	dev) printf 'devname ' ;;
	esac
	case $1 in
	iolatency_window) echo target_ns win_ns nr_samples nr_missed mean_ns acc_samples \
		acc_missed acc_mean_ns scale_lat_ns cookie action ssd win_met met ;;
	iolatency_target) echo old_ns new_ns win_ns by ;;
	iolatency_enable) echo frozen_ns nr_targets old new ;;
	iolatency_scale_cookie|iolatency_scale_grp_clear|iolatency_scale_reset)
		echo culprit_id scale_lat_ns idle_ns old new by ;;
	iolatency_scale_skip) echo target_ns scale_lat_ns nr_samples thresh old new reason ;;
	iolatency_depth) echo old new cookie nr_requests ;;
	iolatency_throttle) echo wait_ns depth inflight ;;
	iolatency_use_delay) echo delay_ns old new ;;
	iolatency_delay_charge) echo lat_ns charge_ns delay_ns ;;
	blkcg_delay_pay) echo comm delay_ns sleep_ns slept_ns pid use_delay capped memstall ;;
	*) fail "event_fields: no event $1" ;;
	esac
}

# event_fmt_head EVENT: an ERE for the start of EVENT's print fmt, as its
# kind has it.
event_fmt_head() {
	case $(event_kind "$1") in
	path) echo '^print fmt: "\[%s:%s\] ' ;;
	id) echo '^print fmt: "\[%s\] cgroup_id=%llu ' ;;
	dev) echo '^print fmt: "\[%s\] enabled=%d->%d ' ;;
	esac
}

# throttle_start: the scenario of tracepoints/03-throttle-nonrot: null_blk
# iolat0 with 2 ms completions and 16 tags, iolat-p/loose flooding it,
# iolat-p/tight reading with a 1 ms target it cannot meet.  io.stat shows
# the depths (blkcg_debug_stats).
throttle_start() {
	nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
	debug_stats 1
	loose_start iolat0
	tight_start iolat0 1000
}

# top_loose_pinned FILE: the last report of iolat-top -j in FILE shows
# loose delayed at depth 1.
top_loose_pinned() {
	tail -1 "$1" | jqe 'any(.cgroups[];
		.cgroup == "/iolat-p/loose" and .state == "delayed" and .depth == 1)' >/dev/null
}

# loose_at_depth1: io.stat says loose is held at depth 1 on iolat0.
loose_at_depth1() { [ "$(iostat_key iolat-p/loose iolat0 depth)" = 1 ]; }

# depth_halvings DEV: loose's depth steps on DEV from max down to 1, as the
# events print them: "max->8 8->4 4->2 2->1" for 16 requests.
depth_halvings() {
	local d
	d=$(($(cat "/sys/block/$1/queue/nr_requests") / 2))
	printf 'max->%s' "$d"
	while [ "$d" -gt 1 ]; do
		printf ' %s->%s' "$d" $((d / 2))
		d=$((d / 2))
	done
	echo
}

# Recorders that trace for as long as their command runs (perf record, perf
# stat, trace-cmd record) run "${HOLD[@]}" NAME as that command.  It creates
# /tmp/iolat-NAME.hold when started, which these recorders do once their
# events are on, and ends at hold_release NAME (or when the recorder dies).
# shellcheck disable=SC2016
HOLD=(sh -c ': >"/tmp/iolat-$0.hold"
	while [ ! -e "/tmp/iolat-$0.stop" ] && kill -0 $PPID 2>/dev/null; do sleep 0.2; done')
hold_started() { [ -e "/tmp/iolat-$1.hold" ]; }
hold_release() { touch "/tmp/iolat-$1.stop"; }

# bg_track PID: a tracer started in the background, stopped at exit (even
# when the test fails) so that none outlives its test.
BG_PIDS=
bg_track() {
	BG_PIDS+=" $1"
	trap bg_stop EXIT
	trap 'exit 1' INT TERM
}
bg_alive() {
	local p
	for p in $BG_PIDS; do kill -0 "$p" 2>/dev/null && return 0; done
	return 1
}
bg_stop() {
	local f sig i
	for f in /tmp/iolat-*.hold; do
		[ -e "$f" ] && touch "${f%.hold}.stop"
	done
	# Gently first: a recorder whose command ended writes out and stops
	# its helpers (trace-cmd's per-CPU readers, which would otherwise go
	# on draining the ring buffer under the next test).
	for sig in - INT TERM KILL; do
		# shellcheck disable=SC2086
		[ $sig = - ] || kill -$sig $BG_PIDS 2>/dev/null
		for i in $(seq 25); do
			bg_alive || return 0
			sleep 0.2
		done
	done
	return 0
}

# tracer_wait SECONDS PID CMD...: wait until CMD succeeds, i.e. the tracer
# PID, started in the background, is tracing; 1 if PID ends first, 124
# if SECONDS pass.
tracer_wait() {
	local pid=$2 end=$(($(date +%s) + $1))
	shift 2
	until "$@"; do
		kill -0 "$pid" 2>/dev/null || return 1
		[ "$(date +%s)" -lt "$end" ] || return 124
		sleep 0.5
	done
}

# tracer_end SECONDS PID [again]: wait for the background tracer PID to
# end and return its exit status; 124 if it is still running after
# SECONDS.  With "again" (sigint_wait), SIGINT is sent again while PID
# waits in epoll 5 s after the last one; SIGINT_AGAIN counts those.
tracer_end() {
	local end=$((SECONDS + $1)) again=$((SECONDS + 5))
	SIGINT_AGAIN=0
	while kill -0 "$2" 2>/dev/null; do
		[ $SECONDS -lt $end ] || return 124
		# (ep_poll is inlined in do_epoll_wait on 6.1: either name)
		if [ "${3:-}" = again ] && [ $SECONDS -ge $again ] &&
			[[ $(cat "/proc/$2/wchan" 2>/dev/null) == @(do_epoll_wait|ep_poll) ]]; then
			kill -INT "$2" 2>/dev/null
			SIGINT_AGAIN=$((SIGINT_AGAIN + 1))
			again=$((SECONDS + 5))
		fi
		sleep 0.2
	done
	wait "$2"
}

# sigint_wait SECONDS PID: tracer_end for a tracer already sent SIGINT,
# which it sends again while PID waits in epoll 5 s after the last one.
# bpftrace 0.17 (Debian 12) leaves its poll loop only when epoll_wait()
# fails with EINTR, or when an event it prints finds the flag its handler
# set.  A SIGINT that lands while the loop is elsewhere (reading events,
# or runnable after a 100 ms timeout, which epoll_wait() returns as 0
# before it looks for signals) sets the flag, and a script that prints
# nothing per event polls on for ever (fixed in 0.19 by bpftrace commit
# 67d4bd7c7, which tests the flag on every loop).  A person presses
# Ctrl-C again.  Not sooner than 5 s: a SIGINT in its END's drain would
# cut the summary short.  Our tools act on any number of them.
sigint_wait() { tracer_end "$1" "$2" again; }

# check_decisions FILE PREFIX WHO: FILE, a tracer's text output of the
# throttle_start scenario on iolat0 where each event name follows PREFIX
# (" " for trace-cmd, "iolatency:" for perf), shows tight's target, its
# missed window (non-rotational) and the first scale-down it caused
# (culprit tight, by cgroup id), a bio of loose (by cgroup id) waiting for
# a slot, and loose's depth halving from max to 1, in order.  The cgroups
# must still exist (their ids are read).
check_decisions() {
	local f=$1 p=$2 who=$3 want got tight_id loose_id
	tight_id=$(cg_id iolat-p/tight) && loose_id=$(cg_id iolat-p/loose) ||
		fail "$who: no iolat-p/tight or iolat-p/loose to read the cgroup id of"
	grep -m1 -E "${p}iolatency_target: +\[iolat0:/iolat-p/tight\] target_ns=0->1000000 win_ns=100000000 by=user\$" "$f" ||
		fail "$who: no iolatency_target for tight"
	grep -m1 -E "${p}iolatency_window: +\[iolat0:/iolat-p/tight\] met=0 action=down target_ns=1000000 win_ns=[0-9]+ ssd=1 samples=[0-9]+ missed=[0-9]+ mean_ns=[0-9]+ win_met=0 acc_samples=[0-9]+ acc_missed=[0-9]+ acc_mean_ns=[0-9]+ scale_lat_ns=1000000 cookie=[0-9]+\$" "$f" ||
		fail "$who: no missed window with action=down for tight"
	grep -m1 -E "${p}iolatency_scale_cookie: +\[iolat0:/iolat-p\] cookie=1000000->[0-9]+ step=-[1-9][0-9]* culprit_id=$tight_id scale_lat_ns=1000000 idle_ns=[0-9]+ by=window\$" "$f" ||
		fail "$who: no first scale-down of /iolat-p by tight (cgroup_id $tight_id)"
	grep -m1 -E "${p}iolatency_throttle: +\[iolat0\] cgroup_id=$loose_id depth=[0-9]+ inflight=[0-9]+ wait_ns=[0-9]+\$" "$f" ||
		fail "$who: no bio of loose (cgroup_id $loose_id) waiting for a slot"
	want=$(depth_halvings iolat0)
	got=$(grep -oE "${p}iolatency_depth: +\[iolat0:/iolat-p/loose\] depth=[0-9]+->[0-9]+ " "$f" |
		sed 's/.*depth=//' | depth_words | head -n "$(echo "$want" | wc -w)" | tr -d ' ' | tr '\n' ' ' | sed 's/ $//')
	note "loose's depth steps: $got"
	[ "$got" = "$want" ] || fail "$who: loose's depth went '$got', want '$want'"
}
