# tools/iolat-why at the scale iolat-top is built for: 10,000 groups an
# interval.  Built from tools/ with -O2 as the Makefile builds it, run on
# recordings written here by awk:
#  - 100 parents of 100 children each; in every family c00 (target 500us)
#    misses every window and is the parent's culprit, c01-c98 (5000us)
#    miss 6 windows in 10 behind it ("tighter"), bulk (no target) is held
#    at depth 1: 9,900 groups that miss, each one's siblings to look at;
#  - over 5 intervals the findings in under 2 s of CPU (user + sys, not
#    wall time: the machine may be busy), over 60 in under 5 s; and right:
#    each c00's target out of reach, each sibling's misses owned by its
#    own family's c00, named;
#  - a line over the 64 MiB cap: an error naming the file and line, exit
#    3, within a memory limit a little above the cap;
#  - --suggest on one parent of 10,000 children (below).
. "$(dirname "$0")/lib.sh"
HOST_OPT=-O2 why_setup

# gen INTERVALS [PARENTS CHILDREN]: iolat-top -j 1 of the tree above (100
# parents of 100 children), rows as top_print_json() prints them (the
# keys of tests/host/data/gen-why.sh's rows).
gen() {
	awk -v n="$1" -v np="${2:-100}" -v nc="${3:-100}" 'BEGIN {
		t0 = 1764892800
		for (k = 1; k <= n; k++) {
			rows = 1 + np * (nc + 1)
			printf "{\"schema\":1,\"tool\":\"iolat-top\",\"time\":%d.000,\"interval_s\":1.000,\"lost_events\":0,\"rows_total\":%d,\"rows_shown\":%d,\"cgroups\":[", t0 + k, rows, rows
			printf "{\"device\":\"iolat0\",\"rotational\":false,\"cgroup\":\"/\",\"cgroup_id\":1,\"target_us\":null,\"window\":null,\"iops\":100000.0,\"read_mbps\":390.625,\"write_mbps\":0.000,\"depth\":null,\"cookie\":null,\"state\":\"unknown\",\"use_delay\":null,\"delay_charged_ms_per_s\":null,\"delay_paid_ms_per_s\":null,\"throttled_bios_per_s\":null,\"delay_charged_ms\":0.000,\"delay_paid_ms\":0.000,\"throttled_bios\":0,\"interval\":null}"
			for (p = 0; p < np; p++) {
				pid = 1000 + p * 1000
				printf ",{\"device\":\"iolat0\",\"rotational\":false,\"cgroup\":\"/svc%02d\",\"cgroup_id\":%d,\"target_us\":null,\"window\":null,\"iops\":1000.0,\"read_mbps\":3.906,\"write_mbps\":0.000,\"depth\":\"max\",\"cookie\":null,\"state\":\"ok\",\"use_delay\":0,\"delay_charged_ms_per_s\":0.000,\"delay_paid_ms_per_s\":0.000,\"throttled_bios_per_s\":0.0,\"delay_charged_ms\":0.000,\"delay_paid_ms\":0.000,\"throttled_bios\":0,\"interval\":null", p, pid
				printf ",\"children\":{\"cookie\":%d,\"culprit\":\"/svc%02d/c00\",\"culprit_id\":%d,\"scale_lat_us\":500,\"scale_downs\":%d,\"scale_ups\":0,\"timer_ups\":0,\"culprits_forgotten\":0,\"resets\":0}}", 1000000 - 2 * k, p, pid + 1, 2 * k
				for (c = 0; c < nc; c++) {
					tight = c == 0; bulk = c == nc - 1
					printf ",{\"device\":\"iolat0\",\"rotational\":false,\"cgroup\":\"/svc%02d/%s\",\"cgroup_id\":%d,", p, bulk ? "bulk" : sprintf("c%02d", c), pid + 1 + c
					if (bulk) {
						printf "\"target_us\":null,\"window\":null,\"iops\":800.0,\"read_mbps\":3.125,\"write_mbps\":0.000,\"depth\":1,\"cookie\":%d,\"state\":\"throttled\",\"use_delay\":0", 1000000 - 2 * k
					} else {
						miss = tight ? 10 : 6
						printf "\"target_us\":%d,\"window\":{\"met\":false,\"win_met\":false,\"verdict\":\"missed\",\"samples\":20,\"acc_samples\":20,\"win_ms\":100,\"idle\":false,\"action\":\"%s\",\"stat\":\"missed\",\"missed\":%d,\"missed_pct\":%.1f,\"acc_missed\":%d,\"acc_missed_pct\":%.1f}", tight ? 500 : 5000, tight ? "down" : "tighter", tight ? 12 : 4, tight ? 60 : 20, tight ? 12 : 4, tight ? 60 : 20
						printf ",\"windows\":%d,\"windows_missed\":%d,\"iops\":200.0,\"read_mbps\":0.781,\"write_mbps\":0.000,\"depth\":\"max\",\"cookie\":%d,\"state\":\"ok\",\"use_delay\":0", 10 * k, miss * k, 1000000 - 2 * k
					}
					printf ",\"delay_charged_ms_per_s\":0.000,\"delay_paid_ms_per_s\":0.000,\"throttled_bios_per_s\":%s,\"delay_charged_ms\":0.000,\"delay_paid_ms\":0.000,\"throttled_bios\":%d", bulk ? "400.0" : "0.0", bulk ? 400 * k : 0
					if (k == 1)
						printf ",\"interval\":null"
					else
						printf ",\"interval\":{\"windows\":%d,\"windows_missed\":%d,\"throttled_bios\":%d,\"throttled_wait_mean_us\":%s,\"scale_downs\":null,\"scale_ups\":null}", bulk ? 0 : 10, bulk ? 0 : miss, bulk ? 400 : 0, bulk ? "800.0" : "null"
					printf ",\"scale_skips\":{\"raced\":0,\"protected\":0,\"few_ios\":0}}"
				}
			}
			printf "]}\n"
		}
	}'
}

# run NAME INTERVALS LIMIT: iolat-why -j on the recording of INTERVALS
# within LIMIT seconds of CPU, its findings right.
run() {
	local name=$1 n=$2 limit=$3 cpu unreach tighter bad
	gen "$n" >"$tmp/$name.json" || fail "cannot write the recording"
	TIMEFORMAT='%U %S'
	{ time "$W" -j --top "$tmp/$name.json" >"$tmp/$name.out" 2>"$tmp/$name.err"; } 2>"$tmp/$name.time"
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/$name.time")
	[ -s "$tmp/$name.out" ] || fail "$name: no output: $(head -c 300 "$tmp/$name.err")"
	[ ! -s "$tmp/$name.err" ] || fail "$name: stderr: $(head -c 300 "$tmp/$name.err")"
	# the findings, one "rule cgroup others" a line
	jq -r '.findings[] | "\(.rule) \(.cgroup) \(.others | join(","))"' "$tmp/$name.out" >"$tmp/$name.f" ||
		fail "$name: not JSON: $(head -c 300 "$tmp/$name.out")"
	unreach=$(grep -Ec '^unreachable_target /svc[0-9]{2}/c00 ' "$tmp/$name.f")
	# each sibling's misses owned by its own family's c00, named
	tighter=$(grep -Ec '^tighter_sibling_owns_scaling (/svc[0-9]{2})/c(0[1-9]|[1-9][0-9]) \1/c00$' "$tmp/$name.f")
	bad=$(grep -Ev '^(unreachable_target|tighter_sibling_owns_scaling) ' "$tmp/$name.f" | head -3)
	[ "$unreach" = 100 ] && [ "$tighter" = 9800 ] && [ -z "$bad" ] ||
		fail "$name: $unreach unreachable_target of c00 (want 100), $tighter siblings owned by their c00 (want 9800); else: $bad"
	[ "$(wc -l <"$tmp/$name.f")" = 9900 ] || fail "$name: $(wc -l <"$tmp/$name.f") findings, want 9900"
	awk -v c="$cpu" -v l="$limit" 'BEGIN { exit !(c < l) }' ||
		fail "$name: $cpu s of CPU (user + sys), want under $limit s ($(du -h "$tmp/$name.json" | cut -f1) read)"
	note "$name: 10,101 groups x $n intervals ($(du -h "$tmp/$name.json" | cut -f1)): ${cpu}s CPU (< ${limit}s), 100 unreachable c00, 9800 siblings owned by their c00"
	rm -f "$tmp/$name.json" "$tmp/$name.out"
}
# suggest: --suggest on one parent of 10,000 children over 12 intervals,
# bulk held at depth 1 throughout: each of the 9,999 with a target has 11
# windows with its siblings at their lowest depth (the first interval's,
# before any depth was known: unknown), in under 2 s of CPU.  Each window
# of each group once looked at every sibling: 10.5 s here.
suggest() {
	local cpu got
	gen 12 1 10000 >"$tmp/flat.json" || fail "cannot write the recording"
	TIMEFORMAT='%U %S'
	{ time "$W" -j --suggest --top "$tmp/flat.json" >"$tmp/flat.out" 2>"$tmp/flat.err"; } 2>"$tmp/flat.time"
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/flat.time")
	[ ! -s "$tmp/flat.err" ] || fail "suggest: stderr: $(head -c 300 "$tmp/flat.err")"
	got=$(jq -r '[.groups[] | "\(.siblings_deepest.windows) \(.siblings_partly.windows) \(.siblings_free.windows) \(.siblings_unknown.windows)"]
		| group_by(.) | map("\(.[0]) x\(length)") | join(", ")' "$tmp/flat.out") ||
		fail "suggest: not JSON: $(head -c 300 "$tmp/flat.out")"
	[ "$got" = "11 0 0 1 x9999" ] ||
		fail "suggest: windows by siblings' state (deepest partly free unknown): $got, want 11 0 0 1 x9999"
	awk -v c="$cpu" 'BEGIN { exit !(c < 2) }' ||
		fail "suggest: $cpu s of CPU (user + sys) for 10,000 siblings, want under 2 s"
	note "suggest: one parent of 10,000 children x 12 intervals: ${cpu}s CPU (< 2s), 9,999 groups with 11 windows beside their siblings' lowest depth"
	rm -f "$tmp/flat.json" "$tmp/flat.out"
}
command -v jq >/dev/null || skip "no jq"
run short 5 2
run long 60 5
suggest

# A line over the cap: said with its file and line number, exit 3 (bad
# input), and the reader's buffer stops there (the address space limit is
# the cap and 64 MiB more for the program itself).
{
	printf '%s\n' '{"schema":1,"tool":"iolat-snoop","time":1764892800.1,"event":"target","device":"iolat0","cgroup":"/a","cgroup_id":2,"old_us":0,"new_us":3,"win_ms":100,"by":"user"}'
	printf '\n'
	head -c $((64 * 1024 * 1024 + 1)) /dev/zero | tr '\0' x
	printf '\n'
} >"$tmp/huge.json"
expect 3 "huge.json:3: a line longer than 64 MiB" \
	bash -c "ulimit -v $(((64 + 64) * 1024)); exec '$W' --snoop '$tmp/huge.json'"
# and the same as the last line, with no newline
head -c -1 "$tmp/huge.json" >"$tmp/huge-last.json"
expect 3 "huge-last.json:3: a line longer than 64 MiB" \
	bash -c "ulimit -v $(((64 + 64) * 1024)); exec '$W' --snoop '$tmp/huge-last.json'"
