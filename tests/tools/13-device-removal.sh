# A disk removed under running tools, and its device number given to a
# new disk.  iolat-top (-j, every refresh) and iolat-snoop (-j) run
# while a cgroup with a target on two null_blk disks reads from both;
# one disk is removed mid-run, and a new one made in its place.  Both
# tools keep running and end 0 on SIGINT; iolat-top's rows of the
# removed disk go, and when the new disk has the old one's number, its
# rows start again (unknown rates on their first interval, not the old
# disk's counters); the kernel said nothing (the runner checks dmesg).
. "$IOLAT_REPO/tests/lib.sh"
need_tools

nullb_create iolat0
nullb_create iolat1
old=$(majmin iolat1)
cg_create iolat-d/a
io_latency_set iolat-d/a iolat0 50000
io_latency_set iolat-d/a iolat1 50000
read_in() {
	cg_run iolat-d/a dd if="/dev/$1" of=/dev/null bs=4k count="$2" iflag=direct 2>/dev/null ||
		fail "dd of $1 failed"
}
read_in iolat0 200
read_in iolat1 200
# Idle cgroups, so that iolat-top reads the few with IO between walks
# (tools/12-iostat-marks) and a removed disk's records must go then too.
cg_create iolat-d/idle
(cd "$CG/iolat-d/idle" && seq -f 'g%.0f' 1 200 | xargs mkdir) || fail "cannot make 200 cgroups"

"$TOOLS/iolat-top" -j 1 >/tmp/devrm-top.json 2>/tmp/devrm-top.err &
top=$!
bg_track $top
"$TOOLS/iolat-snoop" -j >/tmp/devrm-snoop.json 2>/tmp/devrm-snoop.err &
snoop=$!
bg_track $snoop
reports() { wc -l </tmp/devrm-top.json; }
has_reports() { [ "$(reports)" -ge "$1" ]; }
wait_for 60 has_reports 2 || fail "iolat-top: no report in 60 s: $(cat /tmp/devrm-top.err)"
read_in iolat1 300
rows_of() { tail -1 /tmp/devrm-top.json | jq -c --arg d "$1" '[.cgroups[] | select(.device == $d)]'; }
[ "$(rows_of iolat1 | jq length)" -gt 0 ] || fail "no row of iolat1 before its removal"

# Removed while both tools run (its IO done: a disk in use cannot go).
nullb_remove iolat1
[ ! -e /sys/block/iolat1 ] || fail "iolat1 still there after its removal"
n=$(reports)
wait_for 60 has_reports $((n + 3)) || fail "iolat-top stopped reporting after the removal"
kill -0 $top 2>/dev/null || fail "iolat-top died when iolat1 went: $(cat /tmp/devrm-top.err)"
kill -0 $snoop 2>/dev/null || fail "iolat-snoop died when iolat1 went: $(cat /tmp/devrm-snoop.err)"
# Gone, a disk is named by its number: no row by either name.
[ "$(rows_of iolat1)" = "[]" ] && [ "$(rows_of "$old")" = "[]" ] ||
	fail "rows of the removed iolat1 ($old): $(rows_of iolat1) $(rows_of "$old")"
[ "$(tail -1 /tmp/devrm-top.json | jq '[.cgroups[] | select(.device == "iolat0")] | length')" -gt 0 ] ||
	fail "no row of iolat0 left after iolat1's removal"
note "iolat1 removed: its rows gone, iolat0's kept, both tools running"

# A new disk; null_blk gives it the first free minor, the old one's.
nullb_create iolat2
new=$(majmin iolat2)
note "the new disk iolat2 is $new, the removed iolat1 was $old"
io_latency_set iolat-d/a iolat2 50000
read_in iolat2 100
n=$(reports)
wait_for 60 has_reports $((n + 3)) || fail "iolat-top stopped reporting after iolat2 came"
rows=$(rows_of iolat2)
[ "$(jq length <<<"$rows")" -gt 0 ] || fail "no row of iolat2: $(tail -1 /tmp/devrm-top.json)"
# Its counters are its own: io.stat's for a/ on iolat2, not iolat1's.
got=$(jq -r '.[] | select(.cgroup == "/iolat-d/a") | .iostat.rios' <<<"$rows")
want=$(iostat_key iolat-d/a iolat2 rios)
[ "$got" = "$want" ] || fail "/iolat-d/a on iolat2: rios $got, io.stat $want"
if [ "$new" = "$old" ]; then
	# The first report after the number came back: no rate from the old disk's counters.
	first=$(jq -c 'select(any(.cgroups[]; .device == "iolat2" and .cgroup == "/iolat-d/a")) |
		[.cgroups[] | select(.device == "iolat2" and .cgroup == "/iolat-d/a")][0] |
		{iops, iostat}' /tmp/devrm-top.json | head -1)
	note "first row of /iolat-d/a on iolat2: $first"

	jqe '.iops == null' <<<"$first" >/dev/null ||
		fail "iolat2's first row has a rate, off the old disk's counters: $first"
	# Its counters: none yet, or the 100 reads; iolat1 had 500.
	jqe '.iostat.rios <= 100' <<<"$first" >/dev/null ||
		fail "iolat2's first row has the old disk's counters: $first"
fi

kill -INT $top $snoop
tracer_end 30 $top || fail "iolat-top: status $? on SIGINT: $(cat /tmp/devrm-top.err)"
tracer_end 30 $snoop || fail "iolat-snoop: status $? on SIGINT: $(cat /tmp/devrm-snoop.err)"
jqe true </tmp/devrm-snoop.json >/dev/null || fail "iolat-snoop's JSON is not whole: $(tail -c 300 /tmp/devrm-snoop.json)"
note "both tools ended 0 on SIGINT"
