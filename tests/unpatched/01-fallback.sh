# On a kernel without the series (make kernel-unpatched: the same source
# and configuration, no patch), where the io.stat mode is the only one:
# iolat-top, iolat-snoop and iolat-why pick it themselves, say why, and
# show the noisy neighbour and the swap scenario as tools/07-fallback's
# --no-events runs show them on the patched kernel.  That the two modes
# are the same code is what makes 07-fallback's comparison stand for a
# distribution kernel; this checks the "same" on a kernel that really
# lacks the events (no tracepoint, no BTF of them, and the controller's
# functions as that build compiles them).  The state reader (io.latency's
# own state through BTF) runs here as there: depth, use_delay, cookies
# and the parent's culprit from it; with --no-state, the cookie unknown
# and tight unthrottled, as io.stat alone says.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

for sys in $IOLAT_SYSTEMS; do
	[ ! -d "$TRACEFS/events/$sys" ] ||
		fail "this kernel has the $sys events: the unpatched suite wants make kernel-unpatched"
done
row() { jq -c --arg cg "$1" '.cgroups[] | select(.cgroup == $cg)'; }
reason="this kernel has no iolatency tracepoints"

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
loose_start iolat0
tight_start iolat0 1000
debug_stats 1
loose_at_1() { [ "$(iostat_key iolat-p/loose iolat0 depth)" = 1 ]; }
wait_for 120 loose_at_1 || fail "loose never reached depth 1 (io.stat: $(grep iolat0 "$CG/iolat-p/loose/io.stat"))"

# ---- iolat-top, no option: the io.stat mode, and why ----
"$TOOLS/iolat-top" -j -d iolat0 1 6 >/tmp/up-top.json 2>/tmp/up-top.err ||
	fail "iolat-top exited $?: $(cat /tmp/up-top.err)"
cat /tmp/up-top.err
grep -q "$reason: io.stat mode" /tmp/up-top.err || fail "iolat-top did not say its mode and why"
[ "$(wc -l </tmp/up-top.json)" = 6 ] || fail "$(wc -l </tmp/up-top.json) reports, want 6"
last=$(tail -1 /tmp/up-top.json)
echo "$last" | jqe --arg r "$reason" '.mode == "iostat" and .mode_reason == $r and
	.debug_stats == true and .state_reader == "used"' >/dev/null ||
	fail "record head: $(echo "$last" | head -c 400)"
fns=$(echo "$last" | jq -c .functions)
note "controller functions on this kernel: $fns"
loose=$(echo "$last" | row /iolat-p/loose)
echo "$loose" | jqe '.depth == 1 and .state == "delayed" and .use_delay >= 1 and
	.iops > 0 and .window == null and .cookie < 1000000 and .throttled_bios == null' >/dev/null ||
	fail "loose: $loose"
echo "$last" | row /iolat-p/tight | jqe '.target_us == 1000 and .depth == "max" and
	.state == "throttling" and .iostat_debug.total != null and .iops > 0' >/dev/null ||
	fail "tight: $(echo "$last" | row /iolat-p/tight)"
echo "$last" | row /iolat-p | jqe --argjson t "$(cg_id iolat-p/tight)" '.children.culprit_id == $t and
	.children.cookie < 1000000 and .children.scale_downs == null' >/dev/null ||
	fail "the parent's children: $(echo "$last" | row /iolat-p | jq -c .children)"
# --no-state: the io.stat mode of a kernel the reader cannot read.
"$TOOLS/iolat-top" --no-state -j -d iolat0 1 2 >/tmp/up-nostate.json 2>/tmp/up-nostate.err ||
	fail "iolat-top --no-state exited $?: $(cat /tmp/up-nostate.err)"
last=$(tail -1 /tmp/up-nostate.json)
echo "$last" | row /iolat-p/loose | jqe '.depth == 1 and .cookie == null' >/dev/null ||
	fail "--no-state: loose: $(echo "$last" | row /iolat-p/loose)"
echo "$last" | row /iolat-p/tight | jqe '.state == "unthrottled"' >/dev/null ||
	fail "--no-state: tight: $(echo "$last" | row /iolat-p/tight)"
"$TOOLS/iolat-top" -b -d iolat0 1 1 >/tmp/up-text.out 2>/dev/null || fail "iolat-top -b exited $?"
grep -q "mode: io.stat" /tmp/up-text.out || fail "text header: $(head -3 /tmp/up-text.out)"
head -3 /tmp/up-text.out
grep -E '^iolat0 +/iolat-p/(loose|tight) ' /tmp/up-text.out

# ---- the swap scenario: delay charged and slept, by the functions ----
cg_remove iolat-p || fail "cannot remove iolat-p"
nullb_remove iolat0
swap_scenario_start
trap 'swapoff /dev/iolat0 2>/dev/null' EXIT
"$TOOLS/iolat-top" -j -d iolat0 1 >/tmp/up-swap.json 2>/tmp/up-swap.err &
top=$!
"$TOOLS/iolat-snoop" -a -j -d iolat0 >/tmp/up-snoop.json 2>/tmp/up-snoop.err &
snoop=$!
charged_and_paid() {
	tail -1 /tmp/up-swap.json | row /iolat-p/loose |
		jqe '.delay_charged_ms > 0 and .delay_paid_ms > 0' >/dev/null 2>&1
}
if echo "$fns" | jqe '.blkcg_add_delay == "attached" and
	.blkcg_maybe_throttle_current == "attached"' >/dev/null; then
	timed_wait 150 "loose charged and paying delay" charged_and_paid || {
		kill -INT $top $snoop
		fail "loose never showed delay charged and paid: $(tail -1 /tmp/up-swap.json | row /iolat-p/loose)"
	}
	sleep 3
else
	note "the functions are not both attachable here: delay stays unknown"
	sleep 10
fi
kill -INT $top $snoop
wait $top || fail "iolat-top exited $?: $(cat /tmp/up-swap.err)"
wait $snoop
rc=$?
if echo "$fns" | jqe '.blkcg_add_delay == "attached" or
	.blkcg_maybe_throttle_current == "attached"' >/dev/null; then
	[ "$rc" = 0 ] || fail "iolat-snoop exited $rc: $(cat /tmp/up-snoop.err)"
	head -1 /tmp/up-snoop.json | jqe --arg r "$reason" '.event == "mode" and
		.mode == "functions" and .mode_reason == $r' >/dev/null ||
		fail "iolat-snoop's first record: $(head -1 /tmp/up-snoop.json)"
	note "iolat-snoop: $(jq -s -c 'group_by(.event) | map({(.[0].event): length}) | add' /tmp/up-snoop.json)"
else
	[ "$rc" = 3 ] || fail "iolat-snoop with nothing to trace exited $rc, want 3"
fi
tail -1 /tmp/up-swap.json | row /iolat-p/loose |
	jq -c '{delay_charged_ms, delay_paid_ms, delay_charged_ms_per_s, use_delay, depth, io_pressure_some_pct}'

# ---- iolat-why, live: what it can check here, and what not ----
"$TOOLS/iolat-why" -j -d iolat0 -D 8 >/tmp/up-why.json 2>/tmp/up-why.err
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "iolat-why -D exited $rc: $(cat /tmp/up-why.err)"
# flapping needs the events; with the state reader the window rules,
# the culprit's and the floor's are checked
jqe '.rows > 0 and (.unchecked | index("flapping")) and (.unchecked | index("unreachable_target") | not) and
	(.unchecked | index("cookie_at_floor") | not)' \
	</tmp/up-why.json >/dev/null || fail "iolat-why: $(cat /tmp/up-why.json)"
note "iolat-why: status $rc, unchecked $(jq -c .unchecked /tmp/up-why.json), found $(jq -c '[.findings[].rule]' /tmp/up-why.json)"
cg_kill iolat-p
swapoff /dev/iolat0 || fail "swapoff failed"
debug_stats 0
