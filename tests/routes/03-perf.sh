# perf: "perf list" shows the twelve events (iolatency:* and
# blkcg:blkcg_delay_pay); "perf record -e 'iolatency:*' -a" around the
# throttling scenario (with -e blkcg:blkcg_delay_pay, so that perf parses
# the series' whole set of formats; the checks are of the iolatency
# events) and "perf script" print the decisions (tight's missed windows,
# the scale-down naming tight, loose's depth halving to 1); "perf stat"
# counts, with kernel filters, the scale events by a window (by == 0:
# tight's scale-downs; a kernel filter compares a field with a constant,
# not old with new) and loose's depth changes.
. "$IOLAT_REPO/tests/lib.sh"

# Debian 12's linux-perf installs the real binary as /usr/bin/perf, which
# runs on any kernel.  Older Debian releases put a wrapper script there that
# runs perf_<major.minor> of the running kernel, and says it is missing for
# a self-built kernel: then take a versioned binary ourselves.
# IOLAT_PERF overrides.
PERF=${IOLAT_PERF:-}
if [ -z "$PERF" ]; then
	for p in /usr/bin/perf $(ls -r /usr/bin/perf_[0-9]* 2>/dev/null); do
		"$p" version 2>/dev/null | grep -q '^perf version' && { PERF=$p; break; }
	done
fi
[ -n "$PERF" ] || fail "no working perf: /usr/bin/perf and /usr/bin/perf_* do not run (install linux-perf, or set IOLAT_PERF)"
note "$PERF: $("$PERF" version)"
DATA=/tmp/iolat-perf.data
STAT=/tmp/iolat-perf.stat

# Each system shows the series' events in it and no other.
for sys in $IOLAT_SYSTEMS; do
	"$PERF" --no-pager list "$sys:*" >/tmp/iolat-list.txt 2>&1
	cat /tmp/iolat-list.txt
	want=$(system_events "$sys")
	for ev in $want; do
		grep -Eq "^ +$sys:$ev +\[Tracepoint event\]" /tmp/iolat-list.txt ||
			fail "perf list does not show $sys:$ev"
	done
	n=$(grep -c "$sys:[a-z_]* *\[Tracepoint event\]" /tmp/iolat-list.txt)
	[ "$n" = "$(echo "$want" | wc -l)" ] ||
		fail "perf list shows $n $sys events, want $(echo "$want" | wc -l)"
done

# Record and count while "${HOLD[@]}" runs: perf enables the events
# (system wide, -a) before it starts the command.
cg_create iolat-p/loose
id=$(cg_id iolat-p/loose)
"$PERF" record -a -B -N -e 'iolatency:*' -e blkcg:blkcg_delay_pay -o $DATA -- "${HOLD[@]}" record \
	>/tmp/iolat-record.txt 2>&1 &
rec=$!
bg_track $rec
"$PERF" stat -a -x, -o $STAT \
	-e iolatency:iolatency_scale_cookie --filter 'by == 0' \
	-e iolatency:iolatency_depth --filter "cgroup_id == $id" \
	-e iolatency:iolatency_window \
	-- "${HOLD[@]}" stat >/tmp/iolat-stat.txt 2>&1 &
stat=$!
bg_track $stat
tracer_wait 60 $rec hold_started record ||
	{ cat /tmp/iolat-record.txt; fail "perf record did not start"; }
tracer_wait 60 $stat hold_started stat ||
	{ cat /tmp/iolat-stat.txt; fail "perf stat did not start"; }
sleep 1
throttle_start
wait_for 120 loose_at_depth1 || fail "loose never reached depth 1 (io.stat: $(cat "$CG/iolat-p/loose/io.stat"))"
sleep 2
# perf stat ends first, so that perf record saw all it counted.
hold_release stat
tracer_end 60 $stat
rc=$?
cat /tmp/iolat-stat.txt $STAT
[ "$rc" = 0 ] || fail "perf stat exited $rc"
hold_release record
tracer_end 120 $rec
rc=$?
cg_kill iolat-p
cat /tmp/iolat-record.txt
[ "$rc" = 0 ] || fail "perf record exited $rc"
# (-B: no build-id pass, so perf does not count the samples here.)
grep -q 'perf record: Captured and wrote' /tmp/iolat-record.txt && [ -s $DATA ] ||
	fail "perf record wrote no $DATA"

# perf script prints each decision as the kernel formats it.
"$PERF" script -i $DATA >/tmp/iolat-script.txt 2>/tmp/iolat-script.err ||
	{ cat /tmp/iolat-script.err; fail "perf script failed"; }
S=/tmp/iolat-script.txt
note "perf script: $(wc -l <$S) lines"
grep -v iolatency_throttle $S | head -12
check_decisions $S iolatency: "perf script"
want=$(depth_halvings iolat0)

# perf stat, CSV: count,unit,event,...
count() { awk -F, -v ev="$1" '$3 == ev { print $1 }' $STAT; }
scales=$(count iolatency:iolatency_scale_cookie)
depths=$(count iolatency:iolatency_depth)
windows=$(count iolatency:iolatency_window)
note "perf stat: $scales scale events by a window, $depths depth changes of loose, $windows windows"
[[ $scales =~ ^[0-9]+$ ]] && [ "$scales" -gt 0 ] || fail "perf stat counted '$scales' scale events by a window"
[[ $depths =~ ^[0-9]+$ ]] && [ "$depths" -ge "$(echo "$want" | wc -w)" ] ||
	fail "perf stat counted '$depths' depth changes of loose, want at least $(echo "$want" | wc -w)"
[[ $windows =~ ^[0-9]+$ ]] && [ "$windows" -gt 0 ] || fail "perf stat counted '$windows' windows"
# perf record's span holds perf stat's: perf script shows no fewer.
# (a scale-down: step < 0; by=window: what "by == 0" let through)
sd=$(grep -c 'iolatency:iolatency_scale_cookie: .* step=-[1-9][0-9]* .* by=window$' $S)
sw=$(grep -c 'iolatency:iolatency_scale_cookie: .* by=window$' $S)
sl=$(grep -c 'iolatency:iolatency_depth: *\[iolat0:/iolat-p/loose\]' $S)
note "perf script: $sw scale events by a window, $sd of them scale-downs, $sl depth changes of loose"
[ "$sd" -gt 0 ] || fail "perf script shows no scale-down by a window"
[ "$scales" -le "$sw" ] || fail "perf stat counted $scales scale events by a window, perf script shows only $sw"
[ "$depths" -le "$sl" ] || fail "perf stat counted $depths depth changes of loose, perf script shows only $sl"
