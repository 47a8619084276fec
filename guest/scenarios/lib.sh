# SPDX-License-Identifier: GPL-2.0
# Shared by the scenarios in guest/scenarios/ and by their tests
# (tests/scenarios/).  Scenarios run inside the guest: 'make scenario S=N'.
# Source it from bash, after tests/lib.sh's prerequisites (IOLAT_REPO):
#	. "$IOLAT_REPO/guest/scenarios/lib.sh"
#
# It brings tests/lib.sh (null_blk, cgroups, fio jobs, swap, and jqe, the
# JSON check that no input at all cannot pass: never `jq -e` alone, see
# there) and adds the duration knob, the iolat-top recording and jq
# summaries of a recording.
# Sourcing it only defines things; scenario_begin starts a scenario.
#
# Knobs, from the environment:
#	IOLAT_SECS	the length of each phase (each scenario has a default)
#	IOLAT_INTERVAL	iolat-top's interval in the recording (default 1 s)
#	IOLAT_OUT	where the recording goes (guest/run sets it to its run
#			directory, seen on the host); /tmp without it

if [ "${IOLAT_GUEST:-}" != 1 ]; then
	echo "${0##*/}: scenarios run inside the guest: make scenario S=N" >&2
	exit 2
fi
. "$IOLAT_REPO/tests/lib.sh"

INTERVAL=${IOLAT_INTERVAL:-1}
SCENARIO=${0##*/}
REC=${IOLAT_OUT:-/tmp}/$SCENARIO.json
SNOOP_REC=${IOLAT_OUT:-/tmp}/$SCENARIO.snoop.json

# scenario_begin DEFAULT_SECS: read the knobs, check the tools, clean up
# (background tools, cgroups, null_blk, swap) however the scenario ends.
scenario_begin() {
	SECS=${IOLAT_SECS:-$1}
	if ! [[ $SECS =~ ^[0-9]+$ ]] || [ "$SECS" -lt 5 ]; then
		fail "IOLAT_SECS='$SECS': want whole seconds, 5 or more"
	fi
	if ! [[ $INTERVAL =~ ^[0-9]+$ ]] || [ "$INTERVAL" -lt 1 ]; then
		fail "IOLAT_INTERVAL='$INTERVAL': want whole seconds, 1 or more"
	fi
	need_tools
	trap scenario_end EXIT
}

scenario_end() {
	bg_stop
	swapoff -a 2>/dev/null
	cleanup >/dev/null
}

# bg_started: the last background job ($!) is a tool that bg_stop (of
# tests/lib.sh) ends when the scenario exits, if tool_stop did not.
bg_started() {
	bg_track "$!"
	trap scenario_end EXIT
}

# tool_stop PID...: SIGINT to all at once (the tools print their summary
# on it: a bpftrace detaching its probes takes 10 s or more under TCG),
# then wait for each, 90 s at most, sending SIGINT again to one that
# missed it (sigint_wait: bpftrace 0.17 can).  Each must still be running
# at the SIGINT and end on it with status 0: a tool that died mid-scenario
# left a short recording, which the checks must not read as the whole.
tool_stop() {
	local p rc dead=
	local -A comm
	for p in "$@"; do
		comm[$p]=$(cat "/proc/$p/comm" 2>/dev/null) || dead+=" $p"
	done
	kill -INT "$@" 2>/dev/null
	for p in "$@"; do
		sigint_wait 90 "$p" >/dev/null
		rc=$?
		[ $rc = 124 ] && kill -KILL "$p" 2>/dev/null
		[[ " $dead " != *" $p "* ]] ||
			fail "a tool (pid $p) had already exited, status $rc, before its SIGINT"
		[ $rc = 0 ] || fail "${comm[$p]:-pid $p} ended with status $rc on SIGINT (124: still running after 90 s)"
	done
	return 0
}

# record_start [DEV]: iolat-top -j on DEV (every device when none) every
# $INTERVAL s into $REC, for an hour at most (record_stop ends it); with
# RECORD_SNOOP=1, iolat-snoop -j beside it into $SNOOP_REC: the decisions
# (windows that did something, scale events, depth and use_delay changes;
# not -a, whose per-bio events are many under TCG), which iolat-why's
# cookie_at_floor needs; RECORD_SNOOP=all: with -a (every window, every
# bio that slept for a slot and who submitted it).  Returns once both are
# in, so the events are attached before the workload starts.
record_start() {
	rm -f "$SNOOP_REC"
	SNOOP_PID=
	if [ "${RECORD_SNOOP:-0}" != 0 ]; then
		"$TOOLS/iolat-snoop" -j ${1:+-d "$1"} $([ "$RECORD_SNOOP" = all ] && echo -a) \
			>"$SNOOP_REC" 2>/tmp/iolat-snoop.err &
		SNOOP_PID=$!
		bg_started
		wait_for 120 grep -q 'tracing io.latency decisions' /tmp/iolat-snoop.err ||
			fail "iolat-snoop did not start: $(cat /tmp/iolat-snoop.err)"
	fi
	"$TOOLS/iolat-top" -j ${1:+-d "$1"} "$INTERVAL" $((3600 / INTERVAL)) \
		>"$REC" 2>/tmp/iolat-top.err &
	REC_PID=$!
	bg_started
	wait_for 120 test -s "$REC" ||
		fail "iolat-top did not report: $(cat /tmp/iolat-top.err)"
}

record_stop() {
	tool_stop "$REC_PID" ${SNOOP_PID:+"$SNOOP_PID"}
	note "iolat-top recording: $(wc -l <"$REC") reports in $REC"
	[ -z "$SNOOP_PID" ] ||
		note "iolat-snoop recording: $(wc -l <"$SNOOP_REC") events in $SNOOP_REC"
}

# why_args: iolat-why's arguments for the recordings: --top $REC, and
# --snoop $SNOOP_REC when there is one.
why_args() {
	WHY_ARGS=(--top "$REC")
	[ -s "$SNOOP_REC" ] && WHY_ARGS+=(--snoop "$SNOOP_REC")
	return 0
}

# why_report: what tools/iolat-why concludes from the recordings, last in
# a scenario's output.  Findings are what the scenarios are there to show:
# its exit status (1 when it finds something) never fails the scenario.
why_report() {
	why_args
	echo
	echo "== iolat-why ${WHY_ARGS[*]}"
	if [ -x "$TOOLS/iolat-why" ]; then
		"$TOOLS/iolat-why" "${WHY_ARGS[@]}" || true
	else
		echo "(iolat-why not built in $TOOLS)"
	fi
}

# wait_reads CGROUP DEV: until CGROUP has read from DEV (its io.stat line
# for DEV has rios), 30 s at most.  A group's blkg on a device, made at its
# first IO there, starts at its parent's cookie as it is then and follows
# only the moves after: start the sibling to throttle, then wait for it,
# then the group whose misses throttle it.
reads_on() { local n; n=$(iostat_key "$1" "$2" rios); [ "${n:-0}" -gt 0 ]; }
wait_reads() {
	wait_for 30 reads_on "$1" "$2" || fail "$1 does not read from $2"
}

# now: the wall clock, as iolat-top's "time".
now() { date +%s.%N; }

# iops_of CGROUP DEV SECONDS: its IOPS over about the next SECONDS, from
# io.stat, divided by the time that really passed: under TCG with a
# busy guest, sleep 4 has taken 6.5 to 9 s.
iops_of() {
	local r0 w0 r1 w1 t0 t1
	r0=$(iostat_key "$1" "$2" rios); w0=$(iostat_key "$1" "$2" wios); t0=$(now)
	sleep "$3"
	r1=$(iostat_key "$1" "$2" rios); w1=$(iostat_key "$1" "$2" wios); t1=$(now)
	awk -v n=$(( ${r1:-0} + ${w1:-0} - ${r0:-0} - ${w0:-0} )) -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%d\n", n / (t1 - t0) }'
}

# procs_at_least CGROUP N: CGROUP has N processes or more.  A job of 32
# fio processes takes seconds to start under TCG; a rate measured before
# they all run is a fraction of the steady one.
procs_at_least() { [ "$(grep -c . "$CG/$1/cgroup.procs")" -ge "$2" ]; }

# vmstat_key KEY: KEY's value in /proc/vmstat (pswpout: pages swapped out);
# fails when the kernel does not count it (CONFIG_VM_EVENT_COUNTERS=n).
vmstat_key() {
	awk -v k="$1" '$1 == k { print $2; found = 1 } END { exit !found }' /proc/vmstat
}

# A database host: /iolat-h/db commits small SQLite transactions
# (iolat-dbload: WAL, synchronous=FULL, an fsync a commit) while
# /iolat-h/bulk writes new files, both on one ext4 (data=ordered) on
# null_blk iolat0 (1 ms completions, 8 tags).
#
# db_host_setup: the disk, its filesystem ($DB_MNT) and the two cgroups.
# bulk's memory is limited, so that its own dirty pages throttle it and
# its writeback starts early, as a batch job's in a container.
db_host_setup() {
	nullb_create iolat0 completion_nsec=1000000 hw_queue_depth=8 size=1024
	DB_MNT=$(fs_make iolat0 db)
	mkdir -p "$DB_MNT/db" "$DB_MNT/bulk" || fail "cannot make directories in $DB_MNT"
	cg_create iolat-h/db
	cg_create iolat-h/bulk
	echo 256M >"$CG/iolat-h/bulk/memory.max" || fail "cannot limit bulk's memory"
}

# bulk_start buffered|direct: bulk writes 32 MiB files one after another,
# through the page cache or around it, removing the one before last: new
# blocks each time, which data=ordered ties to the journal's commits.
bulk_start() {
	local flag=
	case $1 in
	buffered) ;;
	direct) flag=oflag=direct ;;
	*) fail "bulk_start: '$1': want buffered or direct" ;;
	esac
	cg_run iolat-h/bulk bash -c '
		i=0
		while :; do
			dd if=/dev/zero of="$0/f$i" bs=1M count=32 '"$flag"' 2>/dev/null || exit 1
			rm -f "$0/f$((i - 2))"
			i=$((i + 1))
		done' "$DB_MNT/bulk" &
	BULK_PID=$!
	bg_track $BULK_PID
}

# bulk_stop: bulk killed, its files removed, everything written out.
bulk_stop() {
	cg_kill iolat-h/bulk
	{ wait "$BULK_PID"; } 2>/dev/null	# no "Killed" from the shell
	rm -f "$DB_MNT"/bulk/*
	sync
}

# db_commits NAME SECONDS [wal|delete]: iolat-dbload in /iolat-h/db for
# SECONDS on a database of its own, in WAL mode (default: its fsyncs wait
# for its own writes) or with a rollback journal (each also waits for a
# commit of ext4's journal); its JSON summary in /tmp/db-NAME.json.
db_commits() {
	cg_run iolat-h/db "$TOOLS/iolat-dbload" -s "$2" -m "${3:-wal}" \
		"$DB_MNT/db/$1.sqlite" >"/tmp/db-$1.json" || fail "iolat-dbload failed ($1)"
}

# What follows reads a recording: $REC, or the file in REC when called
# from a test.  Times are iolat-top's "time" (wall clock, as now()).
#
# rec_rows CGROUP [FROM [TO]]: the rows of CGROUP, one JSON object a line,
# with the report's time added as "t", between FROM and TO if given.
rec_rows() {
	jq -c --arg cg "$1" --argjson from "${2:-0}" --argjson to "${3:-1e12}" \
		'.time as $t | select($t >= $from and $t <= $to) |
		 .cgroups[] | select(.cgroup == $cg) | . + {t: $t}' "$REC"
}

# rec_avg CGROUP FIELD [FROM [TO]]: FIELD's mean over CGROUP's rows ("-"
# when there is none).
rec_avg() {
	rec_rows "$1" "${3:-0}" "${4:-1e12}" |
		jq -rs --arg f "$2" 'map(.[$f]) | if length == 0 then "-"
			else add / length | floor end'
}

# The jq definitions of the summaries: a row's depth as a number ("max"
# as infinite), and one summary per (device, cgroup) over a recording.
REC_JQ='
def depthnum: if . == "max" then infinite else . end;
def groups: [.[] | .time as $t | .cgroups[] | . + {t: $t}] |
	group_by([.device, .cgroup]) | map({
	cgroup: .[0].cgroup,
	target_us: (map(.target_us | select(. != null)) | last),
	iops: (map(.iops) | add / length | floor),
	min_depth: (map(.depth | select(. != null)) |
		if length == 0 then "?" else min_by(depthnum) end),
	max_use_delay: (map(.use_delay) | max),
	charged_ms: (map(.delay_charged_ms) | max),
	paid_ms: (map(.delay_paid_ms) | max),
	windows: (map(.windows // 0) | max),
	windows_missed: (map(.windows_missed // 0) | max),
	states: (map(.state) | unique | join(",")),
	protected_skips: (map(.scale_skips.protected // 0) | max),
	children: (map(.children | select(. != null)) | if length == 0 then null
		else {min_cookie: (map(.cookie) | min),
		      culprits: (map(.culprit | select(. != null)) | unique),
		      scale_downs: (map(.scale_downs) | max),
		      scale_ups: (map(.scale_ups) | max),
		      timer_ups: (map(.timer_ups) | max)} end)
	});
'

# rec_groups [CGROUP_PREFIX]: those summaries, one JSON object a line.
rec_groups() {
	jq -cs --arg p "${1:-/}" "$REC_JQ"' groups[] | select(.cgroup | startswith($p))' "$REC"
}

# rec_group CGROUP: CGROUP's summary ("null" when it has no row).
rec_group() {
	jq -cs --arg cg "$1" "$REC_JQ"' groups | map(select(.cgroup == $cg)) | .[0]' "$REC"
}

# rec_table [CGROUP_PREFIX]: the summaries as a table.
rec_table() {
	{
		printf 'CGROUP\tTARGET\tIOPS\tMIN_DEPTH\tUSE_DELAY\tCHARGED_MS\tPAID_MS\tMISSED_WINDOWS\tSTATES\n'
		rec_groups "${1:-/}" | jq -r '[.cgroup,
			(if .target_us then "\(.target_us)us" else "-" end),
			.iops, .min_depth, .max_use_delay,
			(.charged_ms | floor), (.paid_ms | floor),
			(if .windows > 0 then "\(.windows_missed)/\(.windows)" else "-" end),
			.states] | @tsv'
	} | column -t -s "$(printf '\t')"
}

# rec_parents [CGROUP_PREFIX]: each parent whose children's cookie moved,
# by whom, how often.
rec_parents() {
	{
		printf 'PARENT\tLOWEST_COOKIE\tDOWNS\tUPS\tTIMER_UPS\tCULPRITS\n'
		rec_groups "${1:-/}" | jq -r 'select(.children != null) | .children as $c |
			[.cgroup, $c.min_cookie, $c.scale_downs, $c.scale_ups,
			 $c.timer_ups, ($c.culprits | join(",") | if . == "" then "-" else . end)] | @tsv'
	} | column -t -s "$(printf '\t')"
}

# For tests/scenarios.
#
# run_scenario NAME SECS [VAR=VALUE...]: run scenario NAME with
# IOLAT_SECS=SECS and the other knobs given; its output goes to
# /tmp/NAME.out ($SCEN_OUT) and is shown.  Fails if the scenario does.
# REC is then its recording, and SNOOP_REC its iolat-snoop one if it made
# one, checked: JSON lines, one at least (an empty recording is not a
# recording), no event lost.
run_scenario() {
	local name=$1 secs=$2 rc
	shift 2
	SCEN_OUT=/tmp/$name.out
	REC=${IOLAT_OUT:-/tmp}/$name.json
	SNOOP_REC=${IOLAT_OUT:-/tmp}/$name.snoop.json
	rm -f "$SNOOP_REC"
	env IOLAT_SECS="$secs" "$@" "$IOLAT_REPO/guest/scenarios/$name" >"$SCEN_OUT" 2>&1
	rc=$?
	cat "$SCEN_OUT"
	[ $rc = 0 ] || fail "scenario $name exited $rc"
	jqe 'type == "object"' <"$REC" >/dev/null ||
		fail "recording $REC is not JSON lines, or none"
	[ "$(jq -s 'map(.lost_events) | max' "$REC")" = 0 ] ||
		fail "iolat-top lost events in $REC"
	if [ -s "$SNOOP_REC" ]; then
		jqe 'type == "object"' <"$SNOOP_REC" >/dev/null ||
			fail "recording $SNOOP_REC is not JSON lines, or none"
		[ "$(jq -s 'map(select(.event == "lost")) | length' "$SNOOP_REC")" = 0 ] ||
			fail "iolat-snoop lost events in $SNOOP_REC"
	fi
}

# summary_col LABEL N: field N of the summary line whose first
# tab-separated field is LABEL.
summary_col() {
	awk -F'\t' -v l="$1" -v n="$2" '$1 == l { print $n; exit }' "$SCEN_OUT"
}

# group_check CGROUP JQ_EXPR WHAT: CGROUP's summary (rec_group) passes
# JQ_EXPR, or the test fails saying WHAT.  No summary (no row of CGROUP in
# REC: rec_group's null; or REC not read) fails whatever JQ_EXPR says:
# null passes '.children == null', and no value at all jq 1.6's -e.
group_check() {
	local g
	g=$(rec_group "$1")
	[[ -n $g && $g != null ]] || fail "$1: $3: no row of $1 in $REC"
	echo "$g" | jqe "$2" >/dev/null || fail "$1: $3: $g"
	note "$1: $3"
}

# why_found JSON: "rule cgroup, ..." of iolat-why -j's findings.
why_found() {
	echo "$1" | jq -r '[.findings[] | .rule + " " + (.cgroup // "-")] | join(", ")'
}

# why_match RULE CGROUP FILTER WHAT: tools/iolat-why, on the last
# recordings (REC, and SNOOP_REC if there is one), exits 1 (its status
# for findings) with a finding for which FILTER ($r the rule, $c the
# cgroup) holds; WHAT says how it names CGROUP.
why_match() {
	local out rc
	why_args
	out=$("$TOOLS/iolat-why" -j "${WHY_ARGS[@]}")
	rc=$?
	[ "$rc" = 1 ] || fail "iolat-why ${WHY_ARGS[*]} exited $rc, want 1 (findings): $out"
	echo "$out" | jqe --arg r "$1" --arg c "$2" "any(.findings[]; $3)" >/dev/null ||
		fail "iolat-why found no $1 $4 $2, but: $(why_found "$out")"
	note "iolat-why: $1 $4 $2"
}

# why_expect RULE CGROUP: iolat-why finds RULE for CGROUP.
why_expect() { why_match "$1" "$2" '.rule == $r and .cgroup == $c' for; }

# why_names RULE CGROUP: as why_expect, for a finding about several groups
# (depth_unknown: one a device): CGROUP is the one it is about or among
# the others it names.
why_names() {
	why_match "$1" "$2" '.rule == $r and (.cgroup == $c or any(.others[]; . == $c))' naming
}

# why_none [TO [RULE...]]: tools/iolat-why finds nothing (exit 0) in the
# last recordings, cut after time TO (iolat-top's "time") when given; a
# finding of one of RULEs is noted, not failed (exit 1 with those alone).
why_none() {
	local to=${1:-1e12} out rc args=(--top /tmp/why-none.top.json) allowed
	[ $# -eq 0 ] || shift
	allowed=$(printf '%s\n' "$@" | jq -R . | jq -sc .)
	jq -c --argjson to "$to" 'select(.time <= $to)' "$REC" >/tmp/why-none.top.json ||
		fail "cannot cut $REC at $to"
	if [ -s "$SNOOP_REC" ]; then
		jq -c --argjson to "$to" 'select(.time <= $to)' "$SNOOP_REC" \
			>/tmp/why-none.snoop.json || fail "cannot cut $SNOOP_REC at $to"
		args+=(--snoop /tmp/why-none.snoop.json)
	fi
	out=$("$TOOLS/iolat-why" -j "${args[@]}")
	rc=$?
	if [ "$rc" = 1 ] && [ $# -gt 0 ] &&
		echo "$out" | jqe --argjson ok "$allowed" 'all(.findings[]; .rule as $r | $ok | index($r))' \
			>/dev/null; then
		note "iolat-why: only $(why_found "$out"), allowed here"
		return
	fi
	[ "$rc" = 0 ] || fail "iolat-why exited $rc, want 0 (no finding): $(why_found "$out")"
	note "iolat-why: no finding in $(jq -r '"\(.rows) rows, \(.events) events over \(.span_s) s"' <<<"$out")"
}
