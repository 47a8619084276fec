# A target on a bio-based device, then on the disk below it.  io.latency
# is an rq_qos policy: a dm-linear device over null_blk takes a target in
# io.latency like any disk, the group's reads go through it, and no window
# ever opens there.  iolat-top marks its rows bio_based with the disk
# below and says so on stderr; iolat-why finds target_on_bio_device with
# the command that sets the target on that disk.  Run, the command puts
# the target where it works: windows open on the disk below, for the same
# group (dm passes the group's bios down as the group's), and with the
# target off dm-linear the finding is gone.
. "$IOLAT_REPO/tests/lib.sh"
need_tools
command -v dmsetup >/dev/null || skip "no dmsetup"
[ -e /sys/module/dm_mod ] || skip "this kernel has no device mapper"

nullb_create iolat0 completion_nsec=1000000
dm=$(dm_linear iolat-lin iolat0)
[ -e "/sys/block/$dm/slaves/iolat0" ] || fail "$dm is not stacked on iolat0"
[ ! -e "/sys/block/$dm/mq" ] || fail "$dm has a request queue: not the bio-based case"
cg_create iolat-b/db
io_latency_set iolat-b/db "$dm" 5000
grep -q "^$(majmin "$dm") target=5000" "$CG/iolat-b/db/io.latency" ||
	fail "the kernel did not take the target on $dm: $(cat "$CG/iolat-b/db/io.latency")"

# record NAME DEV: iolat-snoop -a -j and iolat-top -j 1 while iolat-b/db
# reads DEV at queue depth 1 for 8 s, into /tmp/bd-NAME.{snoop,top}.json
# and their stderr; both must end 0 on SIGINT.
record() {
	local name=$1 dev=$2 top snoop rc
	"$TOOLS/iolat-snoop" -a -j >"/tmp/bd-$name.snoop.json" 2>"/tmp/bd-$name.snoop.err" &
	snoop=$!
	bg_track $snoop
	"$TOOLS/iolat-top" -j 1 >"/tmp/bd-$name.top.json" 2>"/tmp/bd-$name.top.err" &
	top=$!
	bg_track $top
	tracer_wait 60 $snoop grep -q . "/tmp/bd-$name.snoop.json" ||
		fail "iolat-snoop did not start: $(cat "/tmp/bd-$name.snoop.err")"
	tracer_wait 60 $top grep -q . "/tmp/bd-$name.top.json" ||
		fail "iolat-top did not start: $(cat "/tmp/bd-$name.top.err")"
	fio_job iolat-b/db "bd-$name" "$dev" 8 "${FIO_SYNC[@]}"
	wait $! || fail "fio on $dev failed"
	sleep 2	# a last report with the reads in
	kill -INT $snoop $top
	tracer_end 30 $snoop; rc=$?
	[ $rc = 0 ] || fail "iolat-snoop exited $rc: $(cat "/tmp/bd-$name.snoop.err")"
	tracer_end 30 $top; rc=$?
	[ $rc = 0 ] || fail "iolat-top exited $rc: $(cat "/tmp/bd-$name.top.err")"
}

# windows NAME DEV: iolat-snoop's window events of iolat-b/db on DEV.
windows() {
	jq -s --arg d "$2" '[.[] | select(.event == "window" and .device == $d and
		.cgroup == "/iolat-b/db")] | length' "/tmp/bd-$1.snoop.json"
}
# why NAME: iolat-why -j on both recordings, into /tmp/bd-NAME.why.json.
why() {
	"$TOOLS/iolat-why" -j --snoop "/tmp/bd-$1.snoop.json" --top "/tmp/bd-$1.top.json" \
		>"/tmp/bd-$1.why.json" 2>"/tmp/bd-$1.why.err"
	[ $? -le 1 ] || fail "iolat-why failed: $(cat "/tmp/bd-$1.why.err")"
}

record dm "$dm"
reads=$(iostat_key iolat-b/db "$dm" rios)
[ "${reads:-0}" -ge 100 ] || fail "iolat-b/db read ${reads:-0} times through $dm"
n=$(windows dm "$dm")
[ "$n" = 0 ] || fail "$n windows on the bio-based $dm"
n=$(windows dm iolat0)
[ "$n" = 0 ] || fail "$n windows on iolat0, which has no target yet"
note "target on $dm: $reads reads through it, no window"
jqe --arg d "$dm" 'any(.cgroups[]; .device == $d and .cgroup == "/iolat-b/db" and
	.target_us == 5000 and .bio_based == true and .below == ["iolat0"])' </tmp/bd-dm.top.json ||
	fail "no iolat-top row of /iolat-b/db on $dm marked bio_based, below iolat0: $(tail -1 /tmp/bd-dm.top.json)"
grep -q "^iolat-top: $dm ([0-9]*:[0-9]*) is bio-based: .* set it on iolat0\$" /tmp/bd-dm.top.err ||
	fail "iolat-top did not say $dm is bio-based: $(cat /tmp/bd-dm.top.err)"
why dm
jqe --arg d "$dm" '[.findings[] | select(.rule == "target_on_bio_device")] |
	length == 1 and .[0].device == $d and .[0].cgroup == "/iolat-b/db" and
	(.[0].command | test("/sys/block/iolat0/dev\\) target=5000"))' </tmp/bd-dm.why.json ||
	fail "iolat-why: not target_on_bio_device naming iolat0: $(cat /tmp/bd-dm.why.json)"
note "iolat-top: $dm bio_based, below iolat0; iolat-why: target_on_bio_device"

# The command as iolat-why gives it, and the target off dm-linear.
cmd=$(jq -r '.findings[] | select(.rule == "target_on_bio_device") | .command' /tmp/bd-dm.why.json)
bash -c "$cmd" || fail "iolat-why's command failed: $cmd"
echo "$(majmin "$dm") target=max" >"$CG/iolat-b/db/io.latency" ||
	fail "cannot remove the target on $dm"
grep -q "^$(majmin iolat0) target=5000" "$CG/iolat-b/db/io.latency" ||
	fail "the command did not set the target on iolat0: $(cat "$CG/iolat-b/db/io.latency")"
record disk "$dm"
n=$(windows disk iolat0)
[ "$n" -ge 10 ] || fail "only $n windows on iolat0 for the reads through $dm"
why disk
jqe '[.findings[] | select(.rule == "target_on_bio_device")] | length == 0' </tmp/bd-disk.why.json ||
	fail "iolat-why: target_on_bio_device with no target on $dm: $(cat /tmp/bd-disk.why.json)"
note "target on iolat0, reads still through $dm: $n windows there, no finding"
