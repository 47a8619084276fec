# A culprit removed with its own bios in flight is forgotten, and never
# comes back as a ghost.
#
# Each round: iolat-c/vN (target 10 us, two dd readers) misses and
# becomes the culprit that scales its parent down, next to iolat-c/loose
# (no target, four dd readers).  Then vN's readers move to iolat-c/park,
# still mid-IO, and vN is removed at once.
# Its bios complete after or while it goes offline: a window check already
# past blkcg_iolatency_done_bio()'s target check could make the dying group
# scale_grp again after iolatency_clear_scaling() forgot it.  Upstream
# only compares that pointer, so the parent is left with a ghost culprit
# that no live group matches: the next vN's misses scale the parent down
# in the ghost's name, so vN never becomes the culprit, and the idle timer
# cannot forget a culprit whose siblings keep scaling.  (A looser sibling
# with a target of its own would not do here: the group whose scale event
# restarted the 500 ms hold is first past it at every window, so a tighter
# newcomer only ever sees "hold".)  The series' events used
# to print its path: a use-after-free.
#
# Checked: every vN becomes the culprit (so no ghost holds the parent),
# is forgotten (by its offline's scale_reset, or by the idle timer while
# its readers moved out), and no scale event names vN once it is offline.
#
# Left to chance the race never happened (50 rounds).  The debug kernels
# carry a test-only hook (patches/KVER/debug, check_stall_ms): while it
# is set, a window check, its window summed and its target seen, waits
# before the parent's lock.  On a blocking null_blk that completes in
# ->queue_rq() (blocking=1 irqmode=0) each round sets it once vN is the
# culprit, waits until one of vN's checks is held, removes vN, waits for
# it to go offline and releases the check: with the fix it finds its
# group offline (iolatency_window action=offline); the kernel without
# the fix, built by hand with the hook, failed here: the check came
# back, scaled the parent down as v1 (target_ns=0, scale_lat_ns=0), a
# ghost.  A KASAN kernel without the hook fails: it would leave the race
# to chance.  Elsewhere (the normal kernels) the rounds remove the
# culprit mid-IO without the hook, and on the debug ones the suite's
# KASAN check covers a group used after it was freed.
#
# IOLAT_CULPRIT_ROUNDS: rounds; by default 3 on the normal kernel (about
# 10 s each under TCG) and 2 on the debug kernel.
. "$IOLAT_REPO/tests/lib.sh"

dev=iolat0
rounds=${IOLAT_CULPRIT_ROUNDS:-3}
if [ -z "${IOLAT_CULPRIT_ROUNDS:-}" ] && kernel_kasan; then
	rounds=2
fi
if [ -e "$CHECK_STALL" ]; then
	held=1
	nullb_create $dev blocking=1 irqmode=0
elif kernel_kasan; then
	fail "a KASAN kernel without $CHECK_STALL (patches/KVER/debug): the race would be left to chance"
else
	held=0
	nullb_create $dev
fi
note "$rounds rounds$(kernel_kasan && echo ', KASAN kernel')$([ $held = 1 ] && echo ", a window check held across each removal")"
tr=/tmp/culprit-trace.txt

wchans() {	# wchans PID...: "PID:WCHAN ..."
	local p
	for p; do
		printf '%s:%s ' "$p" "$(cat "/proc/$p/wchan" 2>/dev/null)"
	done
}
held_check() { [[ $(wchans "$@") == *:*iolatency* ]]; }	# held_check PID...

readers() {	# readers CGROUP N: N readers of 4 KiB direct reads, forever
	local i
	for i in $(seq "$2"); do
		cg_run "$1" bash -c "while dd if=/dev/$dev of=/dev/null bs=4k \
			iflag=direct status=none; do :; done" &
	done
}

trace_events iolatency_window iolatency_target iolatency_scale_cookie \
	iolatency_scale_reset iolatency_scale_grp_clear
cg_create iolat-c/park
cg_create iolat-c/loose
readers iolat-c/loose 4

declare -a ids
for r in $(seq "$rounds"); do
	v=iolat-c/v$r
	cg_create $v
	io_latency_set $v $dev 10
	ids[r]=$(cg_id $v)
	readers $v 2
	culprit() {
		grep -q "iolatency_scale_cookie: \[$dev:/iolat-c\] .* culprit_id=${ids[r]} " "$TRACEFS/trace"
	}
	wait_for 30 culprit || {
		grep 'iolatency_scale_cookie:' "$TRACEFS/trace" | tail -3
		fail "round $r: v$r (id ${ids[r]}) never became the culprit"
	}
	if [ $held = 1 ]; then
		# at most 60 s: released below once vN is offline
		echo 60000 >"$CHECK_STALL" || fail "cannot set $CHECK_STALL"
		wait_for 10 held_check $(cat "$CG/$v/cgroup.procs") ||
			fail "round $r: no reader of v$r waits in a held window check: $(wchans $(cat "$CG/$v/cgroup.procs"))"
	fi
	parked=$(echo $(cat "$CG/$v/cgroup.procs"))
	for p in $parked; do
		echo "$p" >"$CG/iolat-c/park/cgroup.procs" 2>/dev/null
	done
	wait_for 10 rmdir "$CG/$v" 2>/dev/null || fail "round $r: cannot remove v$r: $(cat "$CG/$v/cgroup.procs")"
	# a held reader leaves only once released
	[ $held = 1 ] || cg_kill iolat-c/park
	# The group goes offline after rmdir returns, once an RCU grace period
	# and a work item have passed: seconds on the debug kernel.
	offline() {
		grep -q "iolatency_target: \[$dev:/iolat-c/v$r\] target_ns=10000->0 .* by=offline" \
			"$TRACEFS/trace"
	}
	wait_for 60 offline || fail "round $r: v$r not offline 60 s after its removal"
	if [ $held = 1 ]; then
		held_check $parked ||
			fail "round $r: v$r's held window check ended before its offline: $(wchans $parked)"
		echo 0 >"$CHECK_STALL"
		# Only the vN have targets: a window check that ends after
		# vN's offline is vN's, held across it.  With the fix it finds
		# the group offline (action=offline); without, it scales the
		# parent down in the dying group's name: a ghost, below.
		came_back() {
			sed -n "/iolatency_target: \[$dev:\/iolat-c\/v$r\] .* by=offline/,\$p" "$TRACEFS/trace" |
				grep -q 'iolatency_window: '
		}
		wait_for 10 came_back ||
			fail "round $r: no held window check of v$r came back after its offline (its readers: $parked)"
		cg_kill iolat-c/park
	fi
	note "round $r: v$r (id ${ids[r]}) culprit, removed, offline$([ $held = 1 ] && echo ', a held check came back to it')"
done
sleep 1
cg_kill iolat-c/loose
cp "$TRACEFS/trace" $tr

# Per removed group: from the moment it went offline (its target event
# by=offline), no scale event may name it: a ghost.  Before that it was
# forgotten either by that offline (a scale_reset by=offline naming it,
# within the next 20 lines) or, when no scale event came for 5 s while
# its readers moved out (seconds on the debug kernel), by the idle timer
# (a scale_grp_clear by=timer naming it): both are counted.  One pass
# over the trace for all rounds: on the debug kernel the trace of 50
# rounds is large enough that a grep per round outlasted the test.
# Prints per round "r offline_line reset timer ghosts", then "ghost r
# LINE" for the first three ghost events of each round.
culprit_rounds() {
	awk -v dev="$dev" -v idlist="${ids[*]}" '
	BEGIN {
		n = split(idlist, id, " ")
		for (r = 1; r <= n; r++) round[id[r]] = r
	}
	/ iolatency_target: / && / target_ns=10000->0 / && / by=offline/ {
		if (match($0, "\[" dev ":/iolat-c/v[0-9]+\]")) {
			r = substr($0, RSTART + length(dev) + 12, RLENGTH - length(dev) - 13) + 0
			if (r in id && !(r in off)) off[r] = NR
		}
		next
	}
	!match($0, / culprit_id=[0-9]+ /) { next }
	{
		r = round[substr($0, RSTART + 12, RLENGTH - 13)]
		if (r == "") next
		parent = index($0, "[" dev ":/iolat-c]") > 0
	}
	/ iolatency_scale_reset: / && / by=offline/ {
		if (parent && (r in off) && NR - off[r] <= 20) reset[r] = 1
		next
	}
	/ iolatency_scale_grp_clear: / && / by=timer/ && parent && !(r in off) { timer[r] = 1; next }
	/ iolatency_scale_(cookie|grp_clear): / && (r in off) {
		if (ghosts[r]++ < 3) print "ghost", r, $0
	}
	END {
		for (r = 1; r <= n; r++)
			print r, off[r] + 0, reset[r] + 0, timer[r] + 0, ghosts[r] + 0
	}' "$tr"
}
culprit_rounds >/tmp/culprit-rounds.txt
ghosts=0 by_offline=0 by_timer=0
while read -r r line reset timer n; do
	[ "$r" = ghost ] && continue
	id=${ids[r]}
	[ "$line" != 0 ] || fail "round $r: no iolatency_target by=offline for v$r"
	if [ "$reset" = 1 ]; then
		by_offline=$((by_offline + 1))
	elif [ "$timer" = 1 ]; then
		by_timer=$((by_timer + 1))
	else
		fail "round $r: v$r (id $id) went offline as culprit and no reset or timer forgot it"
	fi
	[ "$n" = 0 ] || {
		ghosts=$((ghosts + 1))
		note "v$r (id $id) offline, still culprit in $n scale events:"
		awk -v r="$r" '$1 == "ghost" && $2 == r { $1 = $2 = ""; print }' /tmp/culprit-rounds.txt
	}
done </tmp/culprit-rounds.txt
note "culprits forgotten by their offline: $by_offline, by the idle timer before it: $by_timer"
offline=$(grep -c 'iolatency_window: .* action=offline ' $tr)
note "$rounds culprits removed mid-IO; $offline windows found their group offline under the lock"
[ "$ghosts" = 0 ] || fail "$ghosts removed groups came back as culprits"
[ $held = 0 ] || [ "$offline" -ge "$rounds" ] ||
	fail "$offline held window checks found their group offline in $rounds rounds"
