# The BTF state reader (tools/iolat-state.c, bpf/iolat-state.bpf.c)
# against what the kernel says otherwise, through iolat-state-dump: the
# throttled pair (tight 1000us on a 2 ms null_blk, loose flooding).
#  - before any target: iolat0's root group, unscaled, or none;
#  - loose held at depth 1: the dump's depth and use_delay as io.stat's
#    debug keys say, read just before and after it (samples taken while
#    they changed are retried); loose following its parent's children's
#    cookie, under the default; tight's 1000us target; the parent's
#    culprit tight's cgroup id, its scale_lat 1000us; -d keeps iolat0's
#    groups, without it another disk's are there;
#  - tight stopped: the culprit forgotten (null, never another id), then
#    loose's depth max and use_delay 0, as io.stat says; iolat-snoop
#    without the events or the functions, from the state alone, logs it
#    as sampled changes: the culprit forgotten naming tight, the cookie
#    going up, loose's depth to max, each with the interval it happened
#    in, and nothing the samples cannot give.
# On the debug kernel and 6.12 the reads are relocated (tools/04-core
# checks that the layouts differ there).
. "$IOLAT_REPO/tests/lib.sh"
need_tools
D=$TOOLS/iolat-state-dump
[ -x "$D" ] || fail "iolat-state-dump not built in $TOOLS: run 'make tools'"

nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
mm=$(majmin iolat0)
debug_stats 1

# dump NAME [ARG...]: one sample into /tmp/state-NAME.json.
dump() {
	local name=$1
	shift
	"$D" "$@" >"/tmp/state-$name.json" 2>"/tmp/state-$name.err" ||
		fail "iolat-state-dump $* exited $?: $(cat "/tmp/state-$name.err")"
	[ ! -s "/tmp/state-$name.err" ] || fail "iolat-state-dump $*: $(cat "/tmp/state-$name.err")"
}
# row NAME ID: the group of cgroup ID on iolat0 in /tmp/state-NAME.json.
row() {
	jq -c --arg mm "$mm" --argjson id "$2" \
		'select(.device == $mm and .cgroup_id == $id)' "/tmp/state-$1.json"
}

# 6.1 sets io.latency up on every disk as it is added, 6.12 at the first
# target written: the root's group alone, or none.
dump idle -d iolat0
if [ -s /tmp/state-idle.json ]; then
	jqe --arg mm "$mm" '.device == $mm and .cgroup_id == 1 and .depth == "max" and
		.target_us == null and .children.culprit == null and
		.children.cookie == 1000000' </tmp/state-idle.json >/dev/null ||
		fail "before any target, not iolat0's root alone, unscaled: $(cat /tmp/state-idle.json)"
fi
note "before any target: $(grep -c . /tmp/state-idle.json) group"

loose_start iolat0
tight_start iolat0 1000
# io.stat leaves use_delay out when it is 0.
use_delay_of() { local u; u=$(iostat_key "$1" iolat0 use_delay); echo "${u:-0}"; }
pinned() {
	[ "$(iostat_key iolat-p/loose iolat0 depth)" = 1 ] &&
		[ "$(use_delay_of iolat-p/loose)" -ge 1 ]
}
wait_for 120 pinned || fail "io.stat: loose never at depth 1 with use_delay"
p=$(cg_id iolat-p) loose=$(cg_id iolat-p/loose) tight=$(cg_id iolat-p/tight)

# A sample taken while io.stat's depth and use_delay stayed the same on
# both sides of it must show them; use_delay moves every few windows,
# so a few tries.
agreed=
for try in 1 2 3 4 5; do
	d0=$(iostat_key iolat-p/loose iolat0 depth) u0=$(use_delay_of iolat-p/loose)
	dump pinned -d iolat0
	d1=$(iostat_key iolat-p/loose iolat0 depth) u1=$(use_delay_of iolat-p/loose)
	[ "$d0 $u0" = "$d1 $u1" ] || continue
	r=$(row pinned "$loose")
	[ "$(echo "$r" | jq -r '"\(.depth) \(.use_delay)"')" = "$d0 $u0" ] ||
		fail "loose: io.stat said depth $d0 use_delay $u0 before and after, the dump: $r"
	agreed="depth $d0, use_delay $u0 (try $try)"
	break
done
[ -n "$agreed" ] || fail "io.stat's depth and use_delay of loose moved during each of 5 samples"
echo "$r" | jqe --argjson p "$p" '.parent_id == $p and .online and .ssd' >/dev/null ||
	fail "loose's parent, online or ssd wrong: $r"
pr=$(row pinned "$p")
echo "$pr" | jqe --argjson t "$tight" '.children.culprit == $t and
	.children.scale_lat_us == 1000 and .children.cookie < 1000000' >/dev/null ||
	fail "the parent's children not scaled for tight ($tight): $pr"
# loose follows the cookie it last saw: the children's, or one step behind
[ $(( $(echo "$pr" | jq .children.cookie) - $(echo "$r" | jq .cookie) )) -le 4 ] ||
	fail "loose's cookie far from its parent's children's: $r / $pr"
row pinned "$tight" | jqe '.target_us == 1000 and .depth == "max"' >/dev/null ||
	fail "tight's row: $(row pinned "$tight")"
note "loose: $agreed; parent's culprit $tight (tight), cookie $(echo "$pr" | jq .children.cookie)"
# A second disk with a target (none of its own IO): -d leaves it out.
nullb_create iolat1
io_latency_set iolat-p/tight iolat1 50000
dump pinned -d iolat0
dump all
jq -r .device /tmp/state-all.json | grep -qx "$(majmin iolat1)" ||
	fail "without -d, no group on iolat1: $(jq -r .device /tmp/state-all.json | sort -u)"
[ "$(jq -r .device /tmp/state-pinned.json | sort -u)" = "$mm" ] ||
	fail "-d iolat0 gave other devices: $(jq -r .device /tmp/state-pinned.json | sort -u)"

# Tight stops: forgotten 5 s after the last scale event, then the timer.
"$TOOLS/iolat-snoop" --no-events --no-functions -j -d iolat0 >/tmp/snoop-state.json \
	2>/tmp/snoop-state.err &
snoop=$!
bg_track $snoop
wait_for 60 grep -q "Hit Ctrl-C" /tmp/snoop-state.err ||
	fail "iolat-snoop --no-events --no-functions did not start: $(cat /tmp/snoop-state.err)"
cg_kill iolat-p/tight
forgotten() {
	dump later -d iolat0
	row later "$p" | jqe --argjson t "$tight" '.children.culprit | . == null or . == $t' \
		>/dev/null || fail "the parent's culprit neither tight nor none: $(row later "$p")"
	row later "$p" | jqe '.children.culprit == null' >/dev/null
}
wait_for 60 forgotten || fail "the culprit still named 60 s after tight stopped: $(row later "$p")"
r=$(row later "$p")
echo "$r" | jqe '.children.culprit == null' >/dev/null || fail "culprit: $r"
unthrottled() {
	[ "$(iostat_key iolat-p/loose iolat0 depth)" = max ] &&
		[ "$(use_delay_of iolat-p/loose)" = 0 ]
}
wait_for 120 unthrottled || fail "io.stat: loose still throttled 120 s after tight stopped"
dump free -d iolat0
row free "$loose" | jqe '.depth == "max" and .use_delay == 0' >/dev/null ||
	fail "io.stat says loose is free, the dump: $(row free "$loose")"
note "tight stopped: culprit forgotten, loose back at depth max and use_delay 0"

kill -INT $snoop
wait $snoop || fail "iolat-snoop --no-events --no-functions exited $? on SIGINT: $(cat /tmp/snoop-state.err)"
S=/tmp/snoop-state.json
head -1 $S | jqe '.event == "mode" and .mode == "functions" and .logs == [] and
	.state == "used" and .sample_ms == 100 and
	.sampled == ["target", "cookie", "culprit_forgotten", "depth", "use_delay"]' >/dev/null ||
	fail "iolat-snoop from the state: its mode record: $(head -1 $S)"
tail -n +2 $S | jqe '.source == "sampled" and .since < .time and .time - .since < 2 and
	(.event | IN("target", "cookie", "culprit_forgotten", "depth", "use_delay"))' >/dev/null ||
	fail "iolat-snoop from the state: none, or a record not a sampled change: $(tail -n +2 $S | head -5)"
jq -e -s --argjson t "$tight" --argjson p "$p" 'any(.[]; .event == "culprit_forgotten" and
	.cgroup_id == $p and .culprit_id == $t)' $S >/dev/null ||
	fail "iolat-snoop from the state: no culprit_forgotten naming tight: $(jq -c 'select(.cgroup_id == '"$p"')' $S | head -5)"
jq -e -s --argjson p "$p" 'any(.[]; .event == "cookie" and .cgroup_id == $p and .direction == "up")' \
	$S >/dev/null || fail "iolat-snoop from the state: the parent's cookie never went up"
jq -e -s --argjson l "$loose" 'map(select(.event == "depth" and .cgroup_id == $l)) |
	length > 0 and last.new == "max"' $S >/dev/null ||
	fail "iolat-snoop from the state: loose's depth changes do not end at max: $(jq -c 'select(.event == "depth")' $S | tail -3)"
note "iolat-snoop from the state: $(tail -n +2 $S | jq -s -c 'group_by(.event) | map({(.[0].event): length}) | add')"
