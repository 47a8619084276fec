# iolat-snoop during the scenario: the decisions, in order, as JSON lines
# and as text.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
"$TOOLS/iolat-snoop" -j -d iolat0 >/tmp/snoop.json 2>/tmp/snoop.err &
js=$!
bg_track $js
"$TOOLS/iolat-snoop" -c '^/iolat-p/loose$' >/tmp/snoop.txt 2>&1 &
tx=$!
bg_track $tx
# Attached once each has printed its first line (the mode).
out_started() { [ -s /tmp/snoop.json ] && [ -s /tmp/snoop.txt ]; }
wait_for 60 out_started || fail "iolat-snoop not started in 60 s: $(cat /tmp/snoop.err /tmp/snoop.txt)"
loose_start iolat0
tight_start iolat0 1000
wait_for 120 grep -q '"event":"use_delay".*"cgroup":"/iolat-p/loose"' /tmp/snoop.json ||
	{ tail /tmp/snoop.json; fail "no use_delay event for loose"; }
kill -INT $js $tx
wait $js || fail "iolat-snoop -j exited $?"
wait $tx || fail "iolat-snoop exited $?"

jqe true </tmp/snoop.json >/dev/null || fail "invalid JSON line"
head -1 /tmp/snoop.json | jqe '.event == "mode" and .mode == "events" and .cgroupns == false' \
	>/dev/null || fail "the first record is not the mode: $(head -1 /tmp/snoop.json)"
first=$(sed -n 2p /tmp/snoop.json)
echo "$first" | jqe '.event == "target" and .cgroup == "/iolat-p/tight" and
	.old_us == 0 and .new_us == 1000' >/dev/null || fail "first event is not tight's target: $first"
depths=$(jq -r 'select(.event == "depth" and .cgroup == "/iolat-p/loose") |
	"\(.old)->\(.new)"' /tmp/snoop.json | head -4 | tr '\n' ' ')
[ "$depths" = "max->8 8->4 4->2 2->1 " ] || fail "loose depth steps '$depths'"
jq -e -s 'map(select(.event == "cookie" and .direction == "down")) |
	length >= 4 and all(.culprit == "/iolat-p/tight" and .cgroup == "/iolat-p")' \
	/tmp/snoop.json >/dev/null || fail "cookie events wrong"
jq -e -s 'map(select(.event == "window")) | length > 0 and
	all(.cgroup == "/iolat-p/tight" and .action != "ok" and .stat == "missed")' \
	/tmp/snoop.json >/dev/null || fail "window events wrong"
cat /tmp/snoop.txt
grep -q 'depth max -> 8 (cookie' /tmp/snoop.txt || fail "text mode lacks the first depth step"
grep -q 'induced delay ON: use_delay 0 -> 1' /tmp/snoop.txt || fail "text mode lacks use_delay on"
! grep -q '/iolat-p/tight' /tmp/snoop.txt || fail "-c did not filter out tight"

# Event loss where it happens: a reader stopped under the flood fills the
# ring buffer.  iolat-snoop says how many were lost, in its output and on
# stderr, and iolat-why warns that its findings may rest on decisions it
# never saw.
"$TOOLS/iolat-snoop" -a -j -d iolat0 >/tmp/snoop-a.json 2>/tmp/snoop-a.err &
sa=$!
bg_track $sa
wait_for 30 grep -q '"event":"throttle"' /tmp/snoop-a.json ||
	fail "iolat-snoop -a: no throttle record under the flood: $(tail -3 /tmp/snoop-a.json)"
kill -STOP $sa
sleep 10
kill -CONT $sa
# Its next read finds the ring buffer's count of drops and says so.
wait_for 30 grep -q '"event":"lost"' /tmp/snoop-a.json ||
	fail "iolat-snoop stopped 10 s under a flood reports no loss in 30 s after SIGCONT: $(jq -r .event /tmp/snoop-a.json | sort | uniq -c | tr '\n' ' ')"
kill -INT $sa
wait $sa || fail "iolat-snoop -a exited $? after SIGSTOP, SIGCONT and SIGINT"
jq -e -s 'map(select(.event == "lost")) | length > 0 and all(.lost_events_new > 0)' \
	/tmp/snoop-a.json >/dev/null ||
	fail "iolat-snoop stopped 10 s under a flood reports no loss: $(jq -r .event /tmp/snoop-a.json | sort | uniq -c | tr '\n' ' ')"
grep -q "lost [0-9]* events" /tmp/snoop-a.err || fail "the loss is not said on stderr: $(cat /tmp/snoop-a.err)"
# On exit, the causes: here every one a full ring buffer.
n=$(jq -s 'map(select(.event == "lost")) | last | .lost_events' /tmp/snoop-a.json)
grep -qx "iolat-snoop: $n events lost: $n with the ring buffer full, 0 map updates refused, 0 entries deleted between their creation and use" \
	/tmp/snoop-a.err || fail "the causes of $n lost events are not said on exit: $(tail -3 /tmp/snoop-a.err)"
"$TOOLS/iolat-why" --snoop /tmp/snoop-a.json >/tmp/why-a.txt 2>&1
grep -q "the tools lost events (iolat-snoop [1-9]" /tmp/why-a.txt ||
	fail "iolat-why does not say its findings may rest on lost decisions: $(head -5 /tmp/why-a.txt)"
note "stopped 10 s under the flood: $(jq -s 'map(select(.event == "lost")) | last | .lost_events' /tmp/snoop-a.json) events lost, said in the records, on stderr and by iolat-why"
