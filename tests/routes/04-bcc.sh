# bcc: tplist-bpfcc shows each event's fields; trace-bpfcc one-liners
# print loose's depth steps and the scale-downs naming tight (by cgroup
# id); argdist-bpfcc counts scale events by direction (new > old) and
# loose's depths (a filter on cgroup_id), and draws a histogram of the
# bios' waits for a depth slot (wait_ns/1000, in us).
# bcc compiles its programs in the guest, slowly under emulation: the
# scenario starts only once both tools are tracing.
. "$IOLAT_REPO/tests/lib.sh"

for t in tplist-bpfcc trace-bpfcc argdist-bpfcc; do
	command -v $t >/dev/null || fail "$t not installed (bpfcc-tools, guest/install-deps)"
done
# bcc reads the formats under debugfs, and compiles against the kernel's
# headers: /lib/modules/$(uname -r)/build, else /sys/kernel/kheaders.tar.xz
# (CONFIG_IKHEADERS), which it extracts to $TMPDIR/kheaders-$(uname -r)
# (tools starting together race for that safely: the loser drops its copy).
for ev in iolatency_depth blkcg_delay_pay; do
	[ -r "/sys/kernel/debug/tracing/events/$(event_system $ev)/$ev/format" ] ||
		fail "no $(event_system $ev) formats under /sys/kernel/debug/tracing, where bcc reads them"
done
[ -d "/lib/modules/$(uname -r)/build" ] || [ -r /sys/kernel/kheaders.tar.xz ] ||
	fail "no kernel headers for bcc: no /lib/modules/$(uname -r)/build nor /sys/kernel/kheaders.tar.xz"

# tplist: every event, with its fields, and in each system the series'
# events and no other.
: >/tmp/iolat-tplist.txt
for sys in $IOLAT_SYSTEMS; do
	tplist-bpfcc -v "$sys:*" >>/tmp/iolat-tplist.txt 2>&1
done
sed -n '/^iolatency:iolatency_depth$/,/^[^ ]/p' /tmp/iolat-tplist.txt
for ev in $IOLAT_EVENTS; do
	tp=$(event_system "$ev"):$ev
	fields=$(sed -n "/^$tp\$/,/^[^ ]/{/^    /p}" /tmp/iolat-tplist.txt)
	[ -n "$fields" ] || { cat /tmp/iolat-tplist.txt; fail "tplist-bpfcc -v does not show $tp"; }
	for f in $(event_fields "$ev"); do
		echo "$fields" | grep -Eq "^    [^;]* $f(\[[0-9]+\])?;\$" ||
			fail "tplist-bpfcc -v: $tp has no field $f"
	done
	[ "$(event_kind "$ev")" != path ] ||
		echo "$fields" | grep -qx '    __data_loc char\[\] cgroup;' ||
		fail "tplist-bpfcc -v: $tp's cgroup is not a __data_loc string"
done
# iolatency_depth's depth is its two u32, old and new: no formatted copy.
! sed -n '/^iolatency:iolatency_depth$/,/^[^ ]/{/^    /p}' /tmp/iolat-tplist.txt |
	grep -Eq '^    [^;]* depth(\[[0-9]+\])?;$' ||
	fail "tplist-bpfcc -v: iolatency:iolatency_depth has a depth field"
for sys in $IOLAT_SYSTEMS; do
	n=$(grep -c "^$sys:" /tmp/iolat-tplist.txt)
	want=$(system_events "$sys" | wc -l)
	[ "$n" = "$want" ] || fail "tplist-bpfcc lists $n $sys events, want $want"
done

cg_create iolat-p/loose
cg_create iolat-p/tight
id=$(cg_id iolat-p/loose)
tight_id=$(cg_id iolat-p/tight)

# trace-bpfcc: the __data_loc string cgroup is at the offset in the low 16
# bits of data_loc_cgroup, from the start of args.  The culprit is an id.
# The depths are the u32 old and new, UINT_MAX (4294967295) for no limit.
cgroup='((char *)args + (args->data_loc_cgroup & 0xffff))'
PYTHONUNBUFFERED=1 trace-bpfcc -t \
	"t:iolatency:iolatency_depth \"[%s] depth=%u->%u cookie=%u\", $cgroup, args->old, args->new, args->cookie" \
	"t:iolatency:iolatency_scale_cookie (args->new < args->old) \"[%s] cookie=%u->%u culprit_id=%llu\", $cgroup, args->old, args->new, args->culprit_id" \
	>/tmp/iolat-trace.out 2>&1 &
tr=$!
bg_track $tr
PYTHONUNBUFFERED=1 argdist-bpfcc -c -i 5 \
	-C 't:iolatency:iolatency_scale_cookie():u8:args->new > args->old#scale events by direction' \
	-C "t:iolatency:iolatency_depth():u32:args->new:args->cgroup_id == $id#loose's new depths" \
	-H 't:iolatency:iolatency_throttle():u64:args->wait_ns/1000#wait_us' \
	>/tmp/iolat-argdist.out 2>&1 &
ad=$!
bg_track $ad
# Both compile side by side: one deadline of 240 s for the two (78 s
# seen), so that the test's bounds stay under the runner's 600 s.
attach_end=$((SECONDS + 240))
tracer_wait 240 $tr grep -q '^TIME ' /tmp/iolat-trace.out ||
	{ cat /tmp/iolat-trace.out; fail "trace-bpfcc is not tracing after $SECONDS s"; }
# argdist prints nothing before its first interval has passed.
left=$((attach_end - SECONDS))
tracer_wait $((left > 10 ? left : 10)) $ad grep -q '^\[[0-9:]*\]$' /tmp/iolat-argdist.out ||
	{ cat /tmp/iolat-argdist.out; fail "argdist-bpfcc is not tracing after $SECONDS s"; }
note "bcc tools tracing after $SECONDS s"
sleep 1

throttle_start
wait_for 120 loose_at_depth1 || fail "loose never reached depth 1 (io.stat: $(cat "$CG/iolat-p/loose/io.stat"))"
wait_for 30 grep -q '\[/iolat-p/loose\] depth=2->1 ' /tmp/iolat-trace.out ||
	{ cat /tmp/iolat-trace.out; fail "trace-bpfcc did not print loose's 2->1"; }
# The next argdist interval, cumulative, holds it all.
n=$(grep -c '^\[[0-9:]*\]$' /tmp/iolat-argdist.out)
intervals() { [ "$(grep -c '^\[[0-9:]*\]$' /tmp/iolat-argdist.out)" -gt "$n" ]; }
wait_for 30 intervals || fail "argdist-bpfcc stopped printing"
kill $tr $ad
tracer_end 30 $tr
tracer_end 30 $ad
cg_kill iolat-p

# trace-bpfcc, ordered by its timestamp column, a depth of UINT_MAX
# written max, as depth_halvings has it.
head -3 /tmp/iolat-trace.out
sort -s -n -k1,1 /tmp/iolat-trace.out | grep -E ' iolatency_(depth|scale_cookie) ' |
	depth_words >/tmp/iolat-trace.txt
head -8 /tmp/iolat-trace.txt
want=$(depth_halvings iolat0)
got=$(grep -oE ' iolatency_depth +\[/iolat-p/loose\] depth=[0-9max]+->[0-9max]+ ' /tmp/iolat-trace.txt |
	sed 's/.*depth=//' | head -n "$(echo "$want" | wc -w)" | tr -d ' ' | tr '\n' ' ' | sed 's/ $//')
note "loose's depth steps: $got"
[ "$got" = "$want" ] || fail "trace-bpfcc: loose's depth went '$got', want '$want'"
grep -qE " iolatency_scale_cookie +\[/iolat-p\] cookie=1000000->[0-9]+ culprit_id=$tight_id\$" /tmp/iolat-trace.txt ||
	fail "trace-bpfcc: no first scale-down of /iolat-p by tight (cgroup_id $tight_id)"
cookies=$(grep -E ' iolatency_scale_cookie ' /tmp/iolat-trace.txt)
[ -n "$cookies" ] || fail "trace-bpfcc: no iolatency_scale_cookie line"
sed -n 's/.* cookie=\([0-9]*\)->\([0-9]*\) .*/\1 \2/p' <<<"$cookies" |
	awk '$2 + 0 >= $1 + 0 { print "not a scale-down: " $1 "->" $2; bad = 1 } { n++ }
	     END { exit bad || n == 0 }' ||
	fail "trace-bpfcc: the (args->new < args->old) predicate let a scale-up through"

# argdist: its last, cumulative, interval.
awk '/^\[[0-9:]*\]$/ { last = "" } { last = last $0 "\n" } END { printf "%s", last }' \
	/tmp/iolat-argdist.out >/tmp/iolat-argdist.txt
cat /tmp/iolat-argdist.txt
grep -q "^scale events by direction" /tmp/iolat-argdist.txt || fail "argdist: no scale event counts"
grep -Eq '^[[:space:]]+[1-9][0-9]* +args->new > args->old = 0$' /tmp/iolat-argdist.txt ||
	fail "argdist: no scale-down counted"
for d in $want; do
	d=${d#*->}
	grep -Eq "^[[:space:]]+[1-9][0-9]* +args->new = $d\$" /tmp/iolat-argdist.txt ||
		fail "argdist: loose's depth $d not counted"
done
grep -Eq '^ +wait_us +: count +distribution' /tmp/iolat-argdist.txt ||
	fail "argdist: no wait_us histogram"
grep -Eq '^ +[0-9]+ -> [0-9]+ +: [1-9][0-9]* +\|' /tmp/iolat-argdist.txt ||
	fail "argdist: the wait_us histogram is empty"
# The rows under the wait_us header ("LOW -> HIGH : COUNT |***|"): at
# least one bucket of them has a non-zero count.
awk '/^ +wait_us +: count +distribution/ { in_h = 1; next }
     in_h && /^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|.*\|$/ {
	rows++
	split($0, f, ":"); c = f[2] + 0
	if (c > 0) { nonzero++; waits += c }
	next
     }
     { in_h = 0 }
     END { printf "# wait_us histogram: %d buckets, %d with a count, %d waits\n", rows, nonzero, waits
	   exit !(nonzero > 0) }' /tmp/iolat-argdist.txt ||
	fail "argdist: no bucket of the wait_us histogram has a count"
