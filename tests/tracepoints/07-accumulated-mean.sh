# The rotational path decides on the accumulated statistic (cur_stat), not
# only on the last window: each iolatency_window's acc_samples and
# acc_mean_ns must be the sample-weighted sum and mean of the windows folded
# into it since the last reset, from the events' own numbers.  Without the
# blk_rq_stat_sum() fix acc_mean_ns is always 0, every accumulated verdict
# is "met", and a window that met its target scales up even when the
# accumulated mean says the group is missing it.
#
# Calibrate: tight's window means with no target to meet, next to a
# flooding loose; then a target at their median, so that windows fall on
# both sides of it.
. "$IOLAT_REPO/tests/lib.sh"

dev=vda
[ "$(cat /sys/block/$dev/queue/rotational)" = 1 ] || fail "$dev is not rotational"
tr=/tmp/acc-trace.txt

trace_events iolatency_window
loose_start $dev 60 --iodepth=8
cg_create iolat-p/cal
io_latency_set iolat-p/cal $dev 10000000	# 10 s: met by every window
fio_job iolat-p/cal cal $dev 8 "${FIO_SYNC[@]}"
wait $! 2>/dev/null
median=$(grep -o 'iolatency_window: \[[^]]*:/iolat-p/cal\] .* mean_ns=[0-9]*' "$TRACEFS/trace" |
	sed 's/.* mean_ns=//' | sort -n | awk '{ v[NR] = $1 } END { if (NR >= 5) print v[int((NR + 1) / 2)] }')
[ -n "$median" ] || fail "fewer than 5 calibration windows"
target=$(( (median + 999) / 1000 ))
note "calibration: median window mean ${median} ns, target ${target} us"

trace_events iolatency_window
tight_start $dev "$target" 20
wait "$TIGHT_PID" 2>/dev/null
cg_kill iolat-p/loose
grep -o 'iolatency_window: \[[^]]*:/iolat-p/tight\] .*' "$TRACEFS/trace" >$tr
note "$(wc -l <$tr) windows of tight"
head -4 $tr

# key=value fields of each window into awk's f[]; the checks:
#  - folded windows (every action but ok and offline) add their samples
#    and mean to the accumulated statistic; up, down, not_owner and
#    tighter reset it after the event;
#  - acc_samples equals the sum exactly, acc_mean_ns the weighted mean
#    within 1 ns (each window's mean is rounded down);
#  - met is the window's verdict and the accumulated one;
#  - windows that met the target while the accumulated mean missed it
#    did not scale up.
awk -v target_ns=$((target * 1000)) '
{
	delete f
	for (i = 3; i <= NF; i++)
		if (split($i, kv, "=") == 2)
			f[kv[1]] = kv[2]
	a = f["action"]
	if (f["ssd"] != 0) { print "window with ssd=" f["ssd"] ": " $0; bad = 1; next }
	if (f["target_ns"] != target_ns) next
	if (a == "ok" || a == "offline") next
	n += f["samples"]; sum += f["mean_ns"] * f["samples"]; folded++
	if (f["acc_samples"] != n) {
		print "acc_samples=" f["acc_samples"] ", windows folded since the reset: " n ": " $0
		bad = 1
	} else if (n > 0) {
		want = sum / n; d = f["acc_mean_ns"] - want
		if (d > 1 || d < -1.5) {
			printf "acc_mean_ns=%s, weighted mean of the folded windows %.1f: %s\n", f["acc_mean_ns"], want, $0
			bad = 1
		}
	}
	if (f["acc_samples"] > f["samples"]) accumulated++
	verdict = (f["win_met"] == 1 && f["acc_mean_ns"] <= target_ns) ? 1 : 0
	if (f["met"] != verdict) { print "met=" f["met"] ", window and accumulated say " verdict ": " $0; bad = 1 }
	if (f["win_met"] == 1 && f["acc_mean_ns"] > target_ns) {
		acc_missed++
		if (a == "up" || a == "not_owner" || a == "few") {
			print "window met, accumulated mean missed, yet action=" a ": " $0
			bad = 1
		}
	}
	if (a == "up" || a == "down" || a == "not_owner" || a == "tighter") { n = 0; sum = 0 }
}
END {
	print "# " folded " folded windows, " accumulated " on top of earlier ones, " \
	      acc_missed " met alone but missed accumulated"
	if (folded < 5) { print "fewer than 5 folded windows"; exit 1 }
	if (accumulated < 1) { print "no window was folded onto an earlier one"; exit 1 }
	if (acc_missed < 1) { print "no window met alone while the accumulated mean missed"; exit 1 }
	exit bad
}' $tr || fail "the accumulated statistic is not what the windows add up to"
