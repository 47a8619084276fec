# tools/iolat-why without a kernel: built from tools/ and run on the
# canned recordings in tests/host/data.  Two kinds, both read:
#  - why-*.json: JSON schema 1, as iolat-snoop -j and iolat-top -j print
#    today, written by data/gen-why.sh (checked below: "schema":1 and
#    "tool" on every line, and only keys README.md documents);
#  - real-*.top.json: iolat-top -j as the scenarios suite recorded it in
#    the guest before schema 1 (no "schema", "tool", "interval"; actions
#    as numbers with action_name), kept as recorded so that reading old
#    recordings stays tested.
# Each misbehaving case must give exactly its findings, the healthy
# protected run none at all; then lost events, bad input, bad usage and a
# full stdout, with their exit statuses; -d one device of two; the live
# mode (-D) on fake tools.
. "$(dirname "$0")/lib.sh"
why_setup

# rules ARGS...: the rules iolat-why -j finds, sorted, on one line in
# $got; its exit status in $rc.
rules() {
	"$W" -j "$@" >"$tmp/json" 2>"$tmp/err"
	rc=$?
	got=$(grep -o '"rule":"[a-z_]*"' "$tmp/json" | sed 's/"rule":"//; s/"$//' | sort |
		tr '\n' ' ' | sed 's/ $//')
}

# case NAME SOURCES WANT...: the recording why-NAME (SOURCES: snoop, top
# or both) gives exactly the rules WANT, exit status 1 (0 when none).
case_is() {
	local name=$1 src=$2 got want args=() status=1
	shift 2
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//')
	[ -z "$want" ] && status=0
	case $src in
	snoop|both) args+=(--snoop "$D/why-$name.snoop.json") ;;
	esac
	case $src in
	top|both) args+=(--top "$D/why-$name.top.json") ;;
	esac
	rules "${args[@]}"
	[ "$got" = "$want" ] ||
		fail "why-$name ($src): found '$got', want '$want' ($(cat "$tmp/err"))"
	[ "$rc" = "$status" ] || fail "why-$name ($src): exit status $rc, want $status"
	note "why-$name ($src): ${got:-no finding}, status $rc"
}

# Which recording is which: the generated ones are schema 1 throughout,
# with the keys README.md documents and no other; the real ones predate
# the schema.
for f in "$D"/why-*.json; do
	case $f in *.snoop.json) tool=iolat-snoop ;; *) tool=iolat-top ;; esac
	n=$(grep -c . "$f")
	v=$(grep -c "^{\"schema\":1,\"tool\":\"$tool\"," "$f")
	[ "$n" = "$v" ] || fail "${f##*/}: $v of $n lines start with schema 1 and tool $tool"
done
for f in "$D"/real-*.top.json; do
	! grep -q '"schema"' "$f" || fail "${f##*/} is to stay a pre-schema recording"
	grep -q '"action_name"' "$f" || fail "${f##*/}: no action_name, as before schema 1"
done
note "why-*.json: schema 1 on every line; real-*.top.json: pre-schema"
if command -v jq >/dev/null; then
	for tool in iolat-snoop iolat-top; do
		[ $tool = iolat-snoop ] && ext=snoop || ext=top
		cat "$D"/why-*.$ext.json >"$tmp/all.json"
		extra=$(comm -13 <(json_keys $tool) <(json_written $tool "$tmp/all.json"))
		[ -z "$extra" ] || fail "why-*.$ext.json have keys README.md does not list for $tool: $(echo $extra)"
		note "why-*.$ext.json: all $(json_written $tool "$tmp/all.json" | wc -l) keys are $tool's schema-1 keys"
	done
else
	note "no jq: the recordings' keys not checked against README.md"
fi

# The healthy protected run: the controller at work (scale-downs, ups
# every 500 ms, a sibling halved, a swapper charged and paying, a tail of
# one bio in a few windows): no finding, from either recording or both.
case_is healthy both
case_is healthy snoop
case_is healthy top
# Scenario 2's contention as iolat-top samples it: a group protected at
# its p90 has bios over target in windows that met it.  A quarter of
# windows missed (counted exactly, whatever the samples show): io.latency
# acts for it, no finding.  3 of 99 missed with 2.3% of the met windows'
# bios over target: the tail io.latency does not see, said from 1% on.
case_is protected top
case_is smalltail top ten_percent_rule

# Each misbehaviour, with what else the same recording really shows.
case_is unreachable both unreachable_target cookie_at_floor
case_is unreachable top unreachable_target
case_is swap both unreachable_target cookie_at_floor no_charge_without_target \
	tighter_sibling_owns_scaling
case_is swap top unreachable_target no_charge_without_target tighter_sibling_owns_scaling
case_is floor both unreachable_target cookie_at_floor slow_recovery
case_is floor snoop unreachable_target cookie_at_floor slow_recovery
case_is floor top unreachable_target slow_recovery
case_is flapping both flapping
case_is flapping snoop flapping
case_is flapping top flapping
# One step down, two up, more than once a second: not flapping.
case_is sawtooth snoop
case_is recovery both slow_recovery
case_is recovery snoop slow_recovery
case_is tail both ten_percent_rule
case_is tail snoop ten_percent_rule
case_is tail top ten_percent_rule
# A group with no sibling: its scale-downs take its parent's cookie to the
# floor with nobody to throttle, which is nothing_to_throttle's finding
# alone (cookie_at_floor speaks of siblings throttled as far as they go).
case_is nothing both nothing_to_throttle
case_is nothing snoop nothing_to_throttle
# A sibling idle since its scale-downs keeps its low depth in every record
# (it changes on the group's next bio): the cookie back at its default in
# 4 s is the recovery, not the idle group's stale depth.
case_is idle both
case_is idle snoop
case_is idle top
# Buffered writeback at depth 1, its bios waiting for their slots: not
# root-issued (only REQ_META and REQ_SWAP bios are), so a target would
# charge it nothing either.
case_is writeback top
# Two siblings with one target: the kernel leaves the other at depth max at
# each scale-down ("protected" skips), which equal_targets says, and not
# nothing_to_throttle (the other is not looser, but it does IO).
case_is equal both equal_targets
case_is equal snoop equal_targets
case_is equal top equal_targets
case_is tighter snoop tighter_sibling_owns_scaling
# scenario 6's iolat2 from iolat-top alone: the rows name the culprit, whose
# target says who owned the scaling in mid's "hold" windows.  mid misses
# because tight's scaling holds it too, not because its target is out of
# reach: tighter_sibling_owns_scaling alone for mid.
case_is owned top tighter_sibling_owns_scaling unreachable_target depth_unknown
case_is unknown top depth_unknown
case_is ghost both ghost_culprit
case_is ghost top ghost_culprit
case_is target both target_not_as_meant
# /db's target on dm-0, a dm-linear device over nullb0: never acted on.
case_is biodev top target_on_bio_device
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
grep -qF "\"command\":\"echo \\\"\$(cat /sys/block/nullb0/dev) target=5000\\\" > ${cg2:-/sys/fs/cgroup}/db/io.latency\"" \
	"$tmp/json" || fail "why-biodev: not the disk below's command: $(cat "$tmp/json")"
# /svc removed (id 100, its windows missed) and started again (id 200,
# healthy): two cgroups.  The finding is the old one's, with its id in
# -j and beside its path in text, where the two paths collide.
case_is restart top unreachable_target
grep -q '"rule":"unreachable_target","device":"iolat0","cgroup":"/svc","cgroup_id":100,' "$tmp/json" ||
	fail "why-restart: not the old /svc's (id 100): $(head -c 400 "$tmp/json")"
grep -q '"cgroup_id":200' "$tmp/json" && fail "why-restart: the new /svc (id 200) blamed: $(cat "$tmp/json")"
"$W" --top "$D/why-restart.top.json" | tr '\n' ' ' | tr -s ' ' >"$tmp/out"
grep -q "unreachable_target: iolat0 /svc (cgroup id 100) /svc (cgroup id 100)'s target 1000us" "$tmp/out" ||
	fail "why-restart: the old /svc not told apart in text: $(cat "$tmp/out")"
grep -q "cgroup id 200" "$tmp/out" && fail "why-restart: the new /svc named: $(cat "$tmp/out")"
note "why-restart: the removed /svc's finding (id 100), the new /svc's none"

# Real recordings: iolat-top -j as the scenarios suite recorded it in the
# guest (v2 kernel, 12 s phases; build/tests/scenarios/*.json, copied as
# real-*.top.json).  Scenario 2's protected reader met its target with
# its neighbour held back and released: no finding.
real() { # SCENARIO WANT...
	local name=$1 want
	shift
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//')
	rules --top "$D/real-$name.top.json"
	got=$("$W" -j --top "$D/real-$name.top.json" | grep -o '"rule":"[a-z_]*","device":"[^"]*","cgroup":"[^"]*"' |
		sed 's/"rule":"\([a-z_]*\)","device":"[^"]*","cgroup":"\([^"]*\)"/\1:\2/' | sort |
		tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || fail "real-$name: found '$got', want '$want'"
	note "real-$name: ${got:-no finding}"
}
real 1-noisy-neighbour flapping:/iolat-p
real 2-work-conservation
real 3-runaway-memory unreachable_target:/iolat-r/db
real 4-nested unreachable_target:/iolat-n/web unreachable_target:/iolat-n/web/a
real 5-misbehaviour unreachable_target:/iolat-m/tight unreachable_target:/iolat-h/tight \
	tighter_sibling_owns_scaling:/iolat-h/hog-loose no_charge_without_target:/iolat-h/hog-none

# The numbers the findings quote (in -j, where no line is wrapped).
expect_text() { # NAME PATTERN: the findings of why-NAME (both) say PATTERN
	"$W" -j --snoop "$D/why-$1.snoop.json" --top "$D/why-$1.top.json" >"$tmp/out" 2>&1
	grep -Eq -- "$2" "$tmp/out" || fail "why-$1: no /$2/ in: $(cat "$tmp/out")"
	note "why-$1 says: $(grep -Eo -- "$2" "$tmp/out" | head -1)"
}
expect_text unreachable "missed 197 of 197 windows"
expect_text unreachable "/iolat-m/batch: depth 1, use_delay up to 13"
# The command writes under this system's cgroup2 mount, found when run.
expect_text unreachable "target=max\\\\\" > ${cg2:-/sys/fs/cgroup}/iolat-m/tight/io.latency"
expect_text unreachable "at its floor \(999968\)"
expect_text swap "0ms charged, 0ms paid; writing 18.2 MB/s while delayed"
expect_text flapping "[0-9]+ scale-downs and [0-9]+ scale-ups"
expect_text flapping "what it costs /iolat-p/loose: its depth changed [0-9]+ times"
expect_text recovery "culprit forgotten 5.0s later; 16 cookie steps"
expect_text floor "at its floor \(999992\): 6 further scale-downs"
expect_text floor "culprit forgotten 5.2s later; 8 cookie steps up on the idle timer"
expect_text tail "share of bios over target per window: [0-9.]+% \([0-9]+/40\)"
expect_text tail "6.9% of the bios of the windows that met the target were over it \(p94 and above\)"
expect_text tail "io.latency acted for it in 0 of 148 windows"
expect_text nothing "IO elsewhere in the tree: /iolat-b"
expect_text ghost "cgroup id 1801"
expect_text equal "/iolat-e/batch \\(target 5000us\\) did not follow 16 of them"

# Lost events, from iolat-snoop's "lost" records and iolat-top's
# lost_events (why-healthy has 3 and 5): said, in the text and in -j,
# with no finding made of them; a recording without them says 0.
"$W" --snoop "$D/why-healthy.snoop.json" --top "$D/why-healthy.top.json" >"$tmp/out" 2>&1
grep -q "lost events (iolat-snoop 3, iolat-top 5)" "$tmp/out" ||
	fail "why-healthy's lost events not said: $(cat "$tmp/out")"
rules --snoop "$D/why-healthy.snoop.json" --top "$D/why-healthy.top.json"
grep -q '"snoop_lost_events":3,"top_lost_events":5,' "$tmp/json" && [ -z "$got" ] && [ "$rc" = 0 ] ||
	fail "why-healthy -j: lost events or findings: $(head -c 200 "$tmp/json"), status $rc"
rules --snoop "$D/why-swap.snoop.json"
grep -q '"snoop_lost_events":0,"top_lost_events":0,' "$tmp/json" ||
	fail "why-swap -j: lost events: $(head -c 200 "$tmp/json")"
"$W" --snoop "$D/why-swap.snoop.json" | grep -q lost && fail "why-swap speaks of lost events"
note "lost events said (iolat-snoop 3, iolat-top 5), in text and -j; none when none"

# iolat-top's io.stat mode (a kernel without the events): the rules that
# need the events are listed as unchecked, in -j and in text, and not
# run; those io.stat can feed are.  The recordings (gen-fallback.sh) use
# only keys README.md lists for iolat-top, and iolat-snoop's (its records
# of the controller's functions) only those listed for iolat-snoop.
for f in "$D"/fallback-*.top.json; do
	extra=$(comm -13 <(json_keys iolat-top) <(json_written iolat-top "$f"))
	[ -z "$extra" ] || fail "${f##*/} has keys README.md does not list: $(echo $extra)"
done
for f in "$D"/fallback-*.snoop.json; do
	extra=$(comm -13 <(json_keys iolat-snoop) <(json_written iolat-snoop "$f"))
	[ -z "$extra" ] || fail "${f##*/} has keys README.md does not list: $(echo $extra)"
done
events_only="ten_percent_rule no_charge_without_target flapping slow_recovery cookie_at_floor tighter_sibling_owns_scaling ghost_culprit equal_targets"
# fallback NAME WANT-RULES WANT-UNCHECKED [ARGS...]: iolat-why on
# fallback-NAME.top.json, or on ARGS when given
fallback() {
	local uc name=$1 want=$2 want_uc=$3
	shift 3
	[ $# -gt 0 ] || set -- --top "$D/fallback-$name.top.json"
	rules "$@"
	uc=$(grep -o '"unchecked":\[[^]]*\]' "$tmp/json" | sed 's/^"unchecked"://' | grep -o '"[a-z_]*"' | tr -d '"' |
		sort | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$want" ] || fail "fallback-$name: found '$got', want '$want' ($(cat "$tmp/err"))"
	[ "$uc" = "$(printf '%s\n' $want_uc | sort | tr '\n' ' ' | sed 's/ $//')" ] ||
		fail "fallback-$name: unchecked '$uc', want '$want_uc'"
	[ "$rc" = "$([ -n "$want" ] && echo 1 || echo 0)" ] || fail "fallback-$name: exit status $rc"
	note "fallback-$name: ${got:-no finding} (status $rc); unchecked: $uc"
}
# debug stats on: io.stat's missed/total and depths feed unreachable_target
fallback unreachable unreachable_target "$events_only"
fallback healthy "" "$events_only"
# debug stats off: rates only; depth_unknown is true, and says why
fallback nodebug depth_unknown "$events_only unreachable_target nothing_to_throttle"
# The controller's functions traced (blkcg_add_delay: the charges) and
# io.stat's use_delay: no_charge_without_target is checked, and found for
# the delayed group without a target; without the functions it is not.
fallback_fn=${events_only/no_charge_without_target /}
fallback swap no_charge_without_target "$fallback_fn"
fallback swap-nofn "" "$events_only"
# The state reader's sample, debug stats off: depths and use_delay known,
# so no depth_unknown, and each group's accumulated windows (acc_samples,
# acc_missed) stand for its windows: unreachable_target and
# nothing_to_throttle are checked, and the first found for tight (its
# text below); with the charges, no_charge_without_target is checked,
# and found.
# The culprit each sample names: mid's misses while the parent's culprit
# had the tighter target are that culprit's, not mid's target out of
# reach (tighter_sibling_owns_scaling is checked with the samples).
events_only_state=${events_only/tighter_sibling_owns_scaling /}
events_only_state=${events_only_state/ghost_culprit /}
events_only_state=${events_only_state/cookie_at_floor /}
fallback_fn_state=${fallback_fn/tighter_sibling_owns_scaling /}
fallback_fn_state=${fallback_fn_state/ghost_culprit /}
fallback swap-state no_charge_without_target "${fallback_fn_state/cookie_at_floor /}"
fallback state-owned "cookie_at_floor tighter_sibling_owns_scaling unreachable_target" "$events_only_state"
grep -q '"rule":"unreachable_target","device":"iolat0","cgroup":"/iolat-o/tight"' "$tmp/json" &&
	grep -q '"rule":"tighter_sibling_owns_scaling","device":"iolat0","cgroup":"/iolat-o/mid"' "$tmp/json" ||
	fail "fallback-state-owned: want tight out of reach, mid owned: $(grep -o '"rule":"[a-z_]*","device":"[^"]*","cgroup":"[^"]*"' "$tmp/json")"
# (Its cookie holds at 999984 while tight misses: nr_requests 8's floor,
# 1000000 - 2 x 8, as cookie_at_floor says.)
fallback state "cookie_at_floor unreachable_target" "$events_only_state"
# The children's cookie the same in two samples while the culprit missed
# in between: scale-downs at the floor (3 such intervals make the
# finding), beside tight out of reach.
fallback state-floor "cookie_at_floor unreachable_target" "$events_only_state"
grep -q '"rule":"cookie_at_floor","device":"iolat0","cgroup":"/iolat-f"' "$tmp/json" ||
	fail "fallback-state-floor: not /iolat-f's floor: $(cat "$tmp/json")"
# A parent's culprit the samples find no live child for, 20 s long: a
# ghost (its id unknown: the state reader has the address only); the
# rule is checked on every state recording.
fallback state-ghost ghost_culprit "$events_only_state"
grep -q '"rule":"ghost_culprit","device":"iolat0","cgroup":"/iolat-g"' "$tmp/json" ||
	fail "fallback-state-ghost: not /iolat-g's ghost: $(cat "$tmp/json")"
# The charges from iolat-snoop's records instead (charge in its "logs").
fallback swap-snoop no_charge_without_target "$fallback_fn" \
	--snoop "$D/fallback-swap.snoop.json" --top "$D/fallback-swap-nofn.top.json"
# iolat-snoop's records alone: no use_delay, no windows, no depth to check by.
fallback swap-snoop-only "" "$events_only unreachable_target nothing_to_throttle" \
	--snoop "$D/fallback-swap.snoop.json"
grep -q '"events":95,' "$tmp/json" || fail "fallback-swap.snoop.json: not its 95 charges and sleeps read: $(head -c 100 "$tmp/json")"
expect_text_in() { # FILE PATTERN: iolat-why's text on iolat-top recording FILE
	# the text is wrapped: one line, single spaces
	"$W" --top "$D/$1" 2>&1 | tr '\n' ' ' | tr -s ' ' >"$tmp/out"
	grep -Eq -- "$2" "$tmp/out" || fail "$1: no /$2/ in: $(cat "$tmp/out")"
	note "$1: \"$(grep -Eo -- "$2" "$tmp/out" | head -1)\""
}
expect_text_in fallback-healthy.top.json "without the iolatency events \(io.stat mode\), so these were not"
expect_text_in fallback-nodebug.top.json "blkcg_debug_stats was off"
expect_text_in fallback-nodebug.top.json "iolat-top ran without the events, so nothing else tells them"
expect_text_in fallback-unreachable.top.json "still 18 of 18 in io.stat's windows in progress"
expect_text_in fallback-state.top.json "still 18 of 18 in the state reader's samples of its accumulated windows"
expect_text_in fallback-swap.top.json "0ms charged, 0ms paid; writing 8.0 MB/s while delayed .*; depth down to 1; sibling /iolat-h/hog-loose, target 10000us, was charged 760ms"
expect_text_in fallback-swap.top.json "iolat-top ran without the iolatency events \(io.stat mode, delay from the controller's functions\), so these were not checked: ten_percent_rule, flapping"
"$W" --snoop "$D/fallback-swap.snoop.json" 2>&1 | tr '\n' ' ' | tr -s ' ' >"$tmp/out"
grep -q "iolat-snoop ran without the iolatency events (the controller's functions), so these were not checked: .*(no iolat-top recording: neither windows nor depths)" "$tmp/out" ||
	fail "iolat-snoop's fallback records alone: $(cat "$tmp/out")"
note "iolat-snoop's fallback records alone: \"$(grep -o "iolat-snoop ran without[^:]*" "$tmp/out")\""
# iolat-snoop's sampled changes (without the events) are no events: a
# recording of them alone, the cookie going down and up ten times, still
# says what was not checked, and finds no flapping from them.
{
	echo '{"schema":2,"tool":"iolat-snoop","time":1764763200.000000,"event":"mode","mode":"functions","cgroupns":false,"mode_reason":"--no-events","functions":{"blkcg_add_delay":"off (--no-functions)","blkcg_maybe_throttle_current":"off (--no-functions)"},"logs":[],"state":"used","sample_ms":100,"sampled":["target","cookie","culprit_forgotten","depth","use_delay"],"cannot_see":["window","throttle","delay_charge","delay_pay","enable","scale_reset","scale_skip"]}'
	for i in $(seq 1 10); do
		printf '{"schema":2,"tool":"iolat-snoop","time":1764763%03d.100000,"event":"cookie","device":"nullb0","cgroup":"/p","cgroup_id":10,"source":"sampled","since":1764763%03d.000000,"old":1000000,"new":999996,"direction":"down","culprit":"/p/tight","culprit_id":43,"scale_lat_us":1000}\n' $((200 + i)) $((200 + i))
		printf '{"schema":2,"tool":"iolat-snoop","time":1764763%03d.600000,"event":"cookie","device":"nullb0","cgroup":"/p","cgroup_id":10,"source":"sampled","since":1764763%03d.500000,"old":999996,"new":1000000,"direction":"up","culprit":"/p/tight","culprit_id":43,"scale_lat_us":1000}\n' $((200 + i)) $((200 + i))
	done
} >"$tmp/sampled.snoop.json"
rules --snoop "$tmp/sampled.snoop.json"
[ -z "$got" ] && [ "$rc" = 0 ] && grep -q '"unchecked":\[[^]]*"flapping"' "$tmp/json" ||
	fail "sampled changes alone: findings '$got' (status $rc), or flapping not unchecked: $(head -c 400 "$tmp/json")"
note "iolat-snoop's sampled changes alone: no finding, flapping unchecked"
# With the events nothing is unchecked, and nothing is said of it.
rules --snoop "$D/why-unreachable.snoop.json" --top "$D/why-unreachable.top.json"
grep -q '"unchecked":\[\],' "$tmp/json" || fail "events: unchecked not empty: $(head -c 300 "$tmp/json")"
"$W" --top "$D/why-unreachable.top.json" | grep -q "not checked" && fail "events recording says 'not checked'"
note "events recordings: nothing unchecked"

# Keys the tools may add or rename around the ones read, and a schema
# field: ignored.  A recording cut short mid-line: the rest is used.
sed 's/^{/{"schema":"iolat-snoop\/2","unknown_key":[1,{"x":null}],/' \
	"$D/why-unreachable.snoop.json" >"$tmp/extra.json"
head -c -40 "$D/why-unreachable.top.json" >"$tmp/cut.json"
rules --snoop "$tmp/extra.json" --top "$tmp/cut.json"
[ "$got" = "cookie_at_floor unreachable_target" ] ||
	fail "unknown keys, schema, a cut last line: found '$got'"
grep -q "the last line is cut short" "$tmp/err" || fail "a cut last line is not reported"
note "unknown keys and a schema field ignored, a cut last line reported and skipped"

# Bad input (3), bad usage (2), an output that cannot be written (4).
printf '{"time":1,"event":"window"' >"$tmp/bad.json"
printf '{"time":1}\n{"time":2}\n' >"$tmp/alien.json"
: >"$tmp/empty.json"
printf '%s\nnot json\n%s\n' "$(head -1 "$D/why-healthy.snoop.json")" \
	"$(head -1 "$D/why-healthy.snoop.json")" >"$tmp/mid.json"
expect 3 "mid.json:2: not an iolat-snoop -j or iolat-top -j line" "$W" --snoop "$tmp/mid.json"
expect 3 "neither an iolat-snoop" "$W" --top "$tmp/alien.json"
expect 3 "has no iolat-snoop -j or iolat-top -j records" "$W" --snoop "$tmp/empty.json"
expect 3 "cannot open .*nonexistent" "$W" --snoop "$tmp/nonexistent"
expect 3 "cut short" "$W" --snoop "$tmp/bad.json"
expect 2 "give recordings" "$W"
expect 2 "not with --snoop" "$W" -D 5 --snoop "$tmp/empty.json"
expect 2 "unrecognized positional" "$W" --snoop x y
expect 4 "cannot write the output" sh -c "exec '$W' --snoop '$D/why-target.snoop.json' >/dev/full"
"$W" --help >"$tmp/help" || fail "--help exited $?"
for r in unreachable_target ten_percent_rule no_charge_without_target flapping \
	slow_recovery nothing_to_throttle cookie_at_floor tighter_sibling_owns_scaling \
	depth_unknown ghost_culprit target_not_as_meant target_on_bio_device equal_targets \
	"EXIT STATUS"; do
	grep -q "$r" "$tmp/help" || fail "--help does not mention $r"
done
note "--help names every finding and the exit statuses"
"$W" --snoop - <"$D/why-target.snoop.json" >/dev/null; rc=$?
[ "$rc" = 1 ] || fail "--snoop - (stdin): status $rc, want 1"
note "stdin read"

# -d/--device DEV, as iolat-top's and iolat-snoop's: one device of a
# recording of two (why-tail's on nullb0 and why-unreachable's on nullb1,
# merged in time order as one iolat-top prints both).  Its findings and
# only what was recorded of it: the rows counted are its own.
sed 's/"device":"iolat0"/"device":"nullb0"/g' "$D/why-tail.top.json" >"$tmp/nullb0.top.json"
sed 's/"device":"iolat0"/"device":"nullb1"/g' "$D/why-unreachable.top.json" >"$tmp/nullb1.top.json"
cat "$tmp/nullb0.top.json" "$tmp/nullb1.top.json" |
	awk '{ match($0, /"time":[0-9.]+/); print substr($0, RSTART + 7, RLENGTH - 7) "\t" $0 }' |
	sort -s -n -k1,1 | cut -f2- >"$tmp/two.top.json"
devices() { grep -o '"device":"[^"]*"' "$tmp/json" | cut -d'"' -f4 | sort -u | tr '\n' ' ' | sed 's/ $//'; }
rows() { grep -o '"rows":[0-9]*' "$tmp/json"; }
rules --top "$tmp/two.top.json"
[ "$got" = "ten_percent_rule unreachable_target" ] && [ "$(devices)" = "nullb0 nullb1" ] ||
	fail "two devices: found '$got' on '$(devices)' ($(cat "$tmp/err"))"
rules --top "$tmp/nullb0.top.json"
alone=$(rows)
rules -d nullb0 --top "$tmp/two.top.json"
[ "$got" = ten_percent_rule ] && [ "$(devices)" = nullb0 ] && [ "$rc" = 1 ] ||
	fail "-d nullb0: found '$got' on '$(devices)', status $rc ($(cat "$tmp/err"))"
[ "$(rows)" = "$alone" ] || fail "-d nullb0 analysed $(rows), nullb0's recording alone has $alone"
note "-d nullb0 of two devices: $got on $(devices), $(rows) as its recording alone"
rules --device /dev/nullb1 --top "$tmp/two.top.json"
[ "$got" = unreachable_target ] && [ "$(devices)" = nullb1 ] ||
	fail "--device /dev/nullb1: found '$got' on '$(devices)' ($(cat "$tmp/err"))"
note "--device /dev/nullb1: $got on $(devices)"
# A device gone when the tool named it is recorded as MAJ:MIN.
sed 's/"device":"iolat0"/"device":"259:3"/g' "$D/why-tail.top.json" >"$tmp/gone.top.json"
rules -d 259:3 --top "$tmp/gone.top.json"
[ "$got" = ten_percent_rule ] || fail "-d 259:3 on a recording naming 259:3: found '$got' ($(cat "$tmp/err"))"
note "-d 259:3: $got, as recorded"
# A device the recordings do not name: said, with those they do; nothing
# to read (3), not "no finding".
expect 3 "no record of device nullb9 in the recordings \(they name nullb0, nullb1\)" \
	"$W" -d /dev/nullb9 --top "$tmp/two.top.json"
expect 3 "no record of device nullb9" "$W" -d nullb9 --snoop "$D/why-target.snoop.json"

# Live (-D): the same path with iolat-snoop and iolat-top as children,
# here fakes beside the binary that print a recording and check the
# arguments they were given; their "cannot trace" (3) is iolat-why's.
mkdir "$tmp/bin"
cp "$W" "$tmp/bin/iolat-why"
cat >"$tmp/bin/iolat-snoop" <<EOS
#!/bin/sh
[ "\$*" = "\${SNOOP_ARGS:--a -j -d iolat0 2}" ] || { echo "iolat-snoop: args '\$*'" >&2; exit 2; }
[ -n "\${FAKE_EXIT:-}" ] && { echo "iolat-snoop: no iolatency tracepoints" >&2; exit \$FAKE_EXIT; }
exec cat "\${SNOOP_FILE:-$D/why-swap.snoop.json}"
EOS
cat >"$tmp/bin/iolat-top" <<EOS
#!/bin/sh
[ "\$*" = "\${TOP_ARGS:--j -d iolat0 1 2}" ] || { echo "iolat-top: args '\$*'" >&2; exit 2; }
[ -n "\${FAKE_TOP_EXIT:-}" ] && { echo "iolat-top: no io.latency" >&2; exit \$FAKE_TOP_EXIT; }
exec cat "\${TOP_FILE:-$D/why-swap.top.json}"
EOS
chmod +x "$tmp/bin/iolat-snoop" "$tmp/bin/iolat-top"
W=$tmp/bin/iolat-why
live4="cookie_at_floor no_charge_without_target tighter_sibling_owns_scaling unreachable_target"
rules -d iolat0 -D 2
[ "$got" = "$live4" ] && [ "$rc" = 1 ] && [ ! -s "$tmp/err" ] ||
	fail "live on fake tools: found '$got', status $rc: $(cat "$tmp/err")"
note "live on fake tools: $got, status $rc"
# -d SECONDS, as before -D: a number of digits only is no disk's name,
# so it is still the duration, with a word on the new option.
rules --device iolat0 -d 2
[ "$got" = "$live4" ] && [ "$rc" = 1 ] && grep -q -- "-D/--duration" "$tmp/err" ||
	fail "live, -d 2: found '$got', status $rc: $(cat "$tmp/err")"
note "live, -d 2: $got; said: $(cat "$tmp/err")"
# MAJ:MIN goes to the tools, which resolve it; their rows name the disk.
SNOOP_ARGS="-a -j -d 8:0 2" TOP_ARGS="-j -d 8:0 1 2" rules -d 8:0 -D 2
[ "$got" = "$live4" ] || fail "live, -d 8:0: found '$got', status $rc: $(cat "$tmp/err")"
note "live, -d 8:0: the tools' findings kept"
# iolat-snoop cannot trace (no events, no function to fall back on):
# iolat-top's rows alone, said; both cannot: nothing to read (3).
FAKE_EXIT=3 rules -d iolat0 -D 2
[ "$got" = "no_charge_without_target tighter_sibling_owns_scaling unreachable_target" ] &&
	[ "$rc" = 1 ] && grep -q "iolat-snoop cannot trace on this kernel (above): the findings rest on iolat-top alone" "$tmp/err" ||
	fail "live, iolat-snoop exit 3: found '$got', status $rc: $(cat "$tmp/err")"
note "live, iolat-snoop cannot trace: iolat-top's findings ($got), said"
FAKE_EXIT=3 FAKE_TOP_EXIT=3 expect 3 "no iolatency tracepoints" "$W" -d iolat0 -D 2
# --no-events goes to both tools; their fallback records are read.
SNOOP_ARGS="-a -j --no-events -d iolat0 2" TOP_ARGS="-j --no-events -d iolat0 1 2" \
	SNOOP_FILE=$D/fallback-swap.snoop.json TOP_FILE=$D/fallback-swap-nofn.top.json \
	rules --no-events -d iolat0 -D 2
[ "$got" = no_charge_without_target ] && [ "$rc" = 1 ] && ! grep -q '"no_charge_without_target"\]' "$tmp/json" ||
	fail "live --no-events: found '$got', status $rc: $(cat "$tmp/err") $(head -c 300 "$tmp/json")"
note "live --no-events: both tools given it; $got found from their fallback records"
expect 2 "for the tools run live" "$W" --no-events --snoop "$D/why-swap.snoop.json"
rm "$tmp/bin/iolat-snoop"
PATH=/usr/bin:/bin expect 3 "cannot run iolat-snoop" "$W" -d iolat0 -D 2
