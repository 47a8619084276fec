# Stress: for IOLAT_STRESS_SECS (default 30; 600 for a hunt) s,
# IOLAT_STRESS_CGROUPS (default 40; 100 or more for a hunt) cgroups
# iolat-s/gN come and go on a null_blk device (1 ms completions, 16
# tags), at most 20 at a time, each with a random
# io.latency target (200-5199us, so some out of reach; a tenth "max"), a
# quarter with a child gN/c (half of those with a target of their own)
# where their IO runs.  Short fio runs (1-5 s, random queue depth, 70%
# reads) start in up to 6 groups at a time; some are killed, some groups
# are removed with theirs running, targets are rewritten.  iolat-top -j 1,
# iolat-snoop -j and bpftrace's tracepoints/iolat-scale.bt watch it all.
# Then: once fio is gone no task stays in D state and nothing is in
# flight; every group can be removed; the three tools are still running
# and each exits 0 on SIGINT; iolat-top's last report, 3 reports after the
# removals, has no /iolat-s/g* row; its reports and iolat-snoop's lines
# all parse as JSON, one object a line; bpftrace printed its summary; and
# settle.  The suite runner fails the test on any oops or hung task.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

secs=${IOLAT_STRESS_SECS:-30}
# 40: under TCG, with the three tools attached, a cgroup made with its
# target takes about a second, and the creations bound the loop: 100 held
# it 132 s for its 30.
ncg=${IOLAT_STRESS_CGROUPS:-40}
[[ $secs =~ ^[1-9][0-9]*$ ]] || fail "IOLAT_STRESS_SECS='$secs': want whole seconds"
[[ $ncg =~ ^[1-9][0-9]*$ ]] || fail "IOLAT_STRESS_CGROUPS='$ncg': want a number"
max_live=20
max_fio=6
dev=iolat0
TOP=/tmp/stress-top.json
SNOOP=/tmp/stress-snoop.json
BT=/tmp/stress-bt.out

nullb_create $dev completion_nsec=1000000 hw_queue_depth=16
mm=$(majmin $dev)
debug_stats 1
cg_create iolat-s

declare -A PID
# tool NAME OUT CMD...: CMD in the background, its output in OUT, its
# errors in /tmp/stress-NAME.err; stopped at exit, whatever happens.
tool() {
	local name=$1 out=$2
	shift 2
	"$@" >"$out" 2>"/tmp/stress-$name.err" &
	PID[$name]=$!
	bg_track $!
}
export BPFTRACE_STRLEN=64
tool iolat-top $TOP "$TOOLS/iolat-top" -j 1
tool iolat-snoop $SNOOP "$TOOLS/iolat-snoop" -j
tool bpftrace $BT bpftrace "$IOLAT_REPO/tracepoints/iolat-scale.bt"
tracer_wait 120 "${PID[iolat-top]}" test -s $TOP ||
	fail "iolat-top did not report: $(cat /tmp/stress-iolat-top.err)"
tracer_wait 120 "${PID[iolat-snoop]}" grep -q 'tracing io.latency decisions' \
	/tmp/stress-iolat-snoop.err ||
	fail "iolat-snoop did not start: $(cat /tmp/stress-iolat-snoop.err)"
tracer_wait 180 "${PID[bpftrace]}" grep -q '^Tracing' $BT ||
	fail "bpftrace did not start: $(cat $BT /tmp/stress-bpftrace.err)"
note "tools attached"

live=()
declare -A fpid nested
created=0 removed=0 removed_busy=0 nested_n=0 runs=0 killed=0 writes=0 peak=0

# pick: a random live group, in $G (no subshell: $RANDOM must advance).
pick() { G=${live[RANDOM % ${#live[@]}]}; }
# leaf G: where G's IO runs, in $LEAF.
leaf() { LEAF=iolat-s/$1${nested[$1]:+/c}; }
set_target() {	# PATH
	local t=$((200 + RANDOM % 5000))
	[ $((RANDOM % 10)) = 0 ] && t=max
	echo "$mm target=$t" >"$CG/$1/io.latency" || fail "cannot set io.latency of $1 to $t"
	writes=$((writes + 1))
}
create() {
	local g=g$((created + 1))
	cg_create "iolat-s/$g"
	set_target "iolat-s/$g"
	if [ $((RANDOM % 4)) = 0 ]; then
		cg_create "iolat-s/$g/c"
		nested[$g]=1
		nested_n=$((nested_n + 1))
		[ $((RANDOM % 2)) = 0 ] && set_target "iolat-s/$g/c"
	fi
	live+=("$g")
	created=$((created + 1))
	[ ${#live[@]} -gt $peak ] && peak=${#live[@]}
}
running() { [ -n "${fpid[$1]:-}" ] && ! pid_gone "${fpid[$1]}"; }
nrunning() {
	local g
	N=0
	for g in "${!fpid[@]}"; do running "$g" && N=$((N + 1)); done
}
start_fio() {	# G
	running "$1" && return 0
	leaf "$1"
	fio_job "$LEAF" "s-$1" $dev $((1 + RANDOM % 5)) --rw=randrw --rwmixread=70 \
		--size=32m --bs=4k --ioengine=libaio --iodepth=$((1 + RANDOM % 32))
	fpid[$1]=$!
	runs=$((runs + 1))
}
stop_fio() {	# G
	running "$1" || return 0
	cg_kill "iolat-s/$1" || fail "fio in iolat-s/$1 did not die"
	killed=$((killed + 1))
}
remove() {	# G
	local i
	running "$1" && removed_busy=$((removed_busy + 1))
	wait_for 10 cg_remove "iolat-s/$1" ||
		fail "cannot remove iolat-s/$1: $(find "$CG/iolat-s/$1")"
	for i in "${!live[@]}"; do
		[ "${live[i]}" = "$1" ] && unset 'live[i]'
	done
	live=("${live[@]}")
	unset "fpid[$1]" "nested[$1]"
	removed=$((removed + 1))
}

# ncg creations spread over secs seconds; one random action per round.
start=$SECONDS
while [ $((SECONDS - start)) -lt "$secs" ] || [ $created -lt "$ncg" ]; do
	due=$((ncg * (SECONDS - start + 1) / secs))
	[ $due -gt "$ncg" ] && due=$ncg
	while [ $created -lt $due ]; do
		if [ ${#live[@]} -ge $max_live ]; then
			pick
			remove "$G"
		fi
		create
	done
	if [ ${#live[@]} = 0 ]; then
		sleep 0.1
		continue
	fi
	pick
	case $((RANDOM % 5)) in
	0) [ ${#live[@]} -gt 3 ] && remove "$G" ;;
	1) leaf "$G"; set_target "$LEAF" ;;
	2|3) nrunning; [ $N -lt $max_fio ] && start_fio "$G" ;;
	4) stop_fio "$G" ;;
	esac
	sleep 0.1
done
held=$((SECONDS - start))
note "held ${held}s: $created cgroups created ($nested_n with a child), peak $peak at once," \
	"$writes io.latency writes, $runs fio runs ($killed killed)"

cg_kill iolat-s || fail "fio below iolat-s did not die"
no_stuck_tasks
timed_wait 30 "no IO in flight on $dev" inflight_zero $dev ||
	fail "requests stuck in flight on $dev: $(cat /sys/block/$dev/inflight)"
for g in "${live[@]}"; do remove "$g"; done
note "$removed cgroups removed ($removed_busy with fio running)"
left=$(find "$CG/iolat-s" -mindepth 1 -maxdepth 1 -name 'g*')
[ -z "$left" ] || fail "groups left: $left"
[ "$removed" = "$created" ] || fail "created $created groups, removed $removed"

n0=$(wc -l <$TOP)
three_more() { [ "$(wc -l <$TOP)" -ge $((n0 + 3)) ]; }
timed_wait 30 "3 iolat-top reports after the removals" three_more ||
	fail "iolat-top stopped reporting: $(tail -3 /tmp/stress-iolat-top.err)"
for t in iolat-top iolat-snoop bpftrace; do
	pid_gone "${PID[$t]}" && fail "$t died during the stress"
done
for t in iolat-top iolat-snoop bpftrace; do kill -INT "${PID[$t]}"; done
for t in iolat-top iolat-snoop bpftrace; do
	# Our tools must end on the one SIGINT; bpftrace 0.17 may miss it.
	if [ $t = bpftrace ]; then sigint_wait 60 "${PID[$t]}"; else tracer_end 60 "${PID[$t]}"; fi
	rc=$?
	[ $rc = 0 ] || fail "$t exited $rc on SIGINT (124: still running after 60 s)"
done

jq -c . $TOP >/dev/null || fail "iolat-top printed invalid JSON"
tail -1 $TOP | jqe '[.cgroups[] | select(.cgroup | startswith("/iolat-s/g"))] | length == 0' >/dev/null ||
	fail "iolat-top's last report shows removed cgroups:" \
		"$(tail -1 $TOP | jq -c '[.cgroups[].cgroup]')"
seen=$(jq -s '[.[].cgroups[] | select(.cgroup | startswith("/iolat-s/g")) | .cgroup] | unique | length' $TOP)
[ "$seen" -gt 0 ] || fail "iolat-top never showed an /iolat-s/g* row"
note "iolat-top: $(wc -l <$TOP) reports, $seen of the groups shown," \
	"lost $(jq -s 'map(.lost_events) | max' $TOP) events"

# (iolatency_enable is a device's, the one event with a null cgroup; a
# "lost" record, events the ring buffer could not take, has none either,
# nor the first, "mode")
jq -c 'select(type == "object" and .schema == 2 and (.event | type) == "string" and
	((.cgroup | type) == "string" or (.event == "enable" and .cgroup == null) or
	 (.event == "lost" and (.lost_events_new | type) == "number") or
	 (.event == "mode" and .mode == "events")))' \
	$SNOOP >/tmp/snoop-ok.json || fail "iolat-snoop's output does not parse as JSON"
n=$(wc -l <$SNOOP)
[ "$n" -gt 0 ] || fail "iolat-snoop printed nothing"
[ "$(wc -l </tmp/snoop-ok.json)" = "$n" ] ||
	fail "$n lines from iolat-snoop, $(wc -l </tmp/snoop-ok.json) event objects"
jq -e -n '[inputs | select((.cgroup // "") | startswith("/iolat-s/g"))] | length > 0' $SNOOP >/dev/null ||
	fail "iolat-snoop saw no /iolat-s/g* event"
note "iolat-snoop: $n events: $(jq -r .event $SNOOP | sort | uniq -c |
	awk '{ printf "%s%s=%s", (NR > 1 ? ", " : ""), $2, $1 }')"
cat /tmp/stress-iolat-snoop.err

cat $BT /tmp/stress-bpftrace.err
grep -q 'Scale events by trigger' $BT || fail "bpftrace printed no summary on SIGINT"
! grep -qi error $BT /tmp/stress-bpftrace.err || fail "bpftrace reported an error"

settle $dev iolat-s
