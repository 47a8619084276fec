# iolat-why --suggest on canned recordings (tests/host/data/gen-why.sh):
# the target each group's windows allow, from the windows that closed
# while its siblings sat at the lowest depth they reached.
#  - why-rotational: a rotational disk's windows are judged by their mean,
#    so the suggestion is the 90th percentile of those windows' means,
#    rounded up to two figures; checked against the same percentile taken
#    here from the recording with jq;
#  - why-healthy: tight's 1500us met there (within reach); swapper has
#    too few such windows to say;
#  - why-unreachable: tight's 100us missed there (out of reach);
#  - no group with a target: said, status 0.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
why_setup

# group JSON CGROUP: CGROUP's object of a --suggest -j output
group() { jq -c --arg c "$2" '.groups[] | select(.cgroup == $c)' "$1"; }

"$W" --suggest -j --snoop "$D/why-rotational.snoop.json" >"$tmp/rot.json"
rc=$?
[ "$rc" = 0 ] || fail "--suggest exited $rc"
jq -e '.mode == "suggest" and (.groups | length) == 1' "$tmp/rot.json" >/dev/null ||
	fail "why-rotational: not one group: $(cat "$tmp/rot.json")"
g=$(group "$tmp/rot.json" /iolat-v/db)
# The windows after bulk's depth reached 1 (its lowest), their means'
# 90th percentile (nearest rank) and that rounded up to two figures.
want=$(jq -s '
	(map(select(.event == "depth" and .cgroup == "/iolat-v/bulk" and .new == 1)) | first.time) as $t1 |
	[.[] | select(.event == "window" and .cgroup == "/iolat-v/db" and .time > $t1) | .mean_us] |
	sort | .[((length * 9 + 9) / 10 | floor) - 1] |
	. as $v | (if $v >= 1000 then 100 elif $v >= 100 then 10 else 1 end) as $u |
	(($v + $u - 1) / $u | floor) * $u' "$D/why-rotational.snoop.json")
[ -n "$want" ] && [ "$want" != null ] || fail "why-rotational: no window after bulk reached depth 1"
echo "$g" | jq -e --argjson w "$want" '.rotational and .basis == "window_means" and
	.suggested_us == $w and .siblings_deepest.missed == 0 and
	.siblings_deepest.windows >= 100 and .siblings_partly.missed == .siblings_partly.windows and
	.target_within_reach == null' >/dev/null ||
	fail "why-rotational: want ${want}us from the deepest windows' means: $g"
note "why-rotational: /iolat-v/db ${want}us, from $(echo "$g" | jq .siblings_deepest.windows) windows"
"$W" --suggest --snoop "$D/why-rotational.snoop.json" >"$tmp/rot.txt" ||
	fail "--suggest (text) exited $?"
grep -q "suggest: ${want}us: 9 in 10 of its window means" "$tmp/rot.txt" ||
	fail "why-rotational text: $(cat "$tmp/rot.txt")"

"$W" --suggest -j --snoop "$D/why-healthy.snoop.json" >"$tmp/ok.json" || fail "exited $?"
group "$tmp/ok.json" /iolat-p/tight | jq -e '(.rotational | not) and .basis == "windows_missed" and
	.target_within_reach == true and .suggested_us == null and .siblings_deepest.windows >= 10 and
	.siblings_deepest.missed * 10 <= .siblings_deepest.windows' >/dev/null ||
	fail "why-healthy: tight not within reach: $(cat "$tmp/ok.json")"
group "$tmp/ok.json" /iolat-p/swapper | jq -e '.basis == null and .siblings_deepest.windows < 10' \
	>/dev/null || fail "why-healthy: swapper said something from few windows: $(cat "$tmp/ok.json")"
note "why-healthy: tight's 1500us within reach; swapper too few windows"

"$W" --suggest -j --snoop "$D/why-unreachable.snoop.json" >"$tmp/far.json" || fail "exited $?"
group "$tmp/far.json" /iolat-m/tight | jq -e '.basis == "windows_missed" and
	.target_within_reach == false and .siblings_deepest.missed * 10 > .siblings_deepest.windows' \
	>/dev/null || fail "why-unreachable: tight not out of reach: $(cat "$tmp/far.json")"
"$W" --suggest --snoop "$D/why-unreachable.snoop.json" | tr '\n' ' ' | tr -s ' ' |
	grep -q "suggest: 100us is out of reach" || fail "why-unreachable: text does not say out of reach"
note "why-unreachable: tight's 100us out of reach"

# No target anywhere: said, not a silent empty list.
printf '{"schema":1,"tool":"iolat-top","time":1764892801.000,"interval_s":1.000,"lost_events":0,"rows_total":0,"rows_shown":0,"cgroups":[]}\n' \
	>"$tmp/none.json"
out=$("$W" --suggest --top "$tmp/none.json")
rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "no group with a target.*nothing to suggest" ||
	fail "no target: exit $rc, '$out'"
"$W" --help 2>&1 | grep -q -- "--suggest" || fail "--help does not mention --suggest"
note "no target: said; --help names --suggest"
