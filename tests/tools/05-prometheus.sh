# iolat-top -P: Prometheus metrics during the noisy-neighbour scenario.
# The file passes promtool, carries the throttled group's depth and delay
# and the protected group's target, is never seen half-written, and
# node_exporter's textfile collector serves it on 127.0.0.1.
. "$IOLAT_REPO/tests/lib.sh"
need_tools
command -v promtool >/dev/null || fail "promtool missing: make deps"
command -v prometheus-node-exporter >/dev/null || fail "prometheus-node-exporter missing: make deps"

# Bad input first: a directory it cannot write, and a directory as FILE.
expect_exit 2 'cannot write /usr/iolat.prom .*Read-only' "$TOOLS/iolat-top" -P /usr/iolat.prom 1 1
expect_exit 2 'is a directory' "$TOOLS/iolat-top" -P /tmp 1 1

prom=/tmp/prom
mkdir -p $prom
nullb_create iolat0 completion_nsec=2000000 hw_queue_depth=16
"$TOOLS/iolat-top" -q -P $prom/iolat.prom -d iolat0 0.5 >/tmp/top.out 2>&1 &
top=$!
bg_track $top
loose_start iolat0
tight_start iolat0 1000
metric() {	# NAME CGROUP: the value of NAME for CGROUP on iolat0
	awk -v m="$1{device=\"iolat0\",cgroup=\"$2\"}" '$1 == m { print $2 }' $prom/iolat.prom
}
wait_for 120 sh -c "grep -q '^iolat_use_delay{device=\"iolat0\",cgroup=\"/iolat-p/loose\"} [1-9]' $prom/iolat.prom" ||
	{ cat $prom/iolat.prom; fail "loose never showed use_delay in the metrics"; }
kill -0 $top || fail "iolat-top died: $(cat /tmp/top.out)"
[ ! -s /tmp/top.out ] || fail "-q printed: $(head -3 /tmp/top.out)"

# Readers only ever see whole files: each read ends with the last metric.
# Read by bash itself, no process a read: two per read took about 25 s
# of 100 reads under TCG.
last_re='^iolat_lost_events_total [0-9]+$'
for i in {1..100}; do
	last=
	while IFS= read -r line; do last=$line; done <$prom/iolat.prom
	[[ $last =~ $last_re ]] || fail "read $i saw a partial file: '$last'"
done
# -A: the file being written is .iolat.prom.XXXXXX.
ls -A $prom | grep -v '^iolat\.prom$' | grep -v '^\.iolat\.prom\.......$' && fail "stray files in $prom"
[ "$(stat -c %a $prom/iolat.prom)" = 644 ] || fail "iolat.prom is $(stat -c %a $prom/iolat.prom), not 644"

# cat, not cp: coreutils 9 cp skips a file renamed over while it copies.
cat $prom/iolat.prom >/tmp/snap.prom
promtool check metrics </tmp/snap.prom || fail "promtool rejects the metrics"
grep 'cgroup="/iolat-p' /tmp/snap.prom | head -30
[ "$(metric iolat_depth /iolat-p/loose)" = 1 ] || fail "loose depth is not 1"
[ "$(metric iolat_target_seconds /iolat-p/tight)" = 0.001 ] || fail "tight target is not 0.001 s"
awk '$1 ~ /^iolat_window_missed_ratio\{.*cgroup="\/iolat-p\/tight"/ && $2 > 0.5 { ok = 1 } END { exit !ok }' \
	/tmp/snap.prom || fail "tight's missed ratio is not above 0.5"
awk '$1 ~ /^iolat_scale_downs_total\{.*cgroup="\/iolat-p"\}/ && $2 >= 4 { ok = 1 } END { exit !ok }' \
	/tmp/snap.prom || fail "fewer than 4 scale-downs on /iolat-p"
awk '$1 ~ /^iolat_throttled_bios_total\{.*cgroup="\/iolat-p\/loose"/ && $2 > 0 { ok = 1 } END { exit !ok }' \
	/tmp/snap.prom || fail "no throttled bios counted for loose"
grep -q '^# TYPE iolat_delay_charged_seconds_total counter$' /tmp/snap.prom ||
	fail "no delay counter"

# End to end: node_exporter's textfile collector, on loopback only.
ip link set lo up
prometheus-node-exporter --web.listen-address=127.0.0.1:19100 \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory=$prom >/tmp/ne.log 2>&1 &
ne=$!
bg_track $ne
wait_for 30 curl -sf -o /tmp/scrape.txt http://127.0.0.1:19100/metrics ||
	{ cat /tmp/ne.log; fail "node_exporter did not answer"; }
kill $ne
grep '^iolat_depth{cgroup="/iolat-p/loose",device="iolat0"} 1$' /tmp/scrape.txt ||
	{ grep iolat_ /tmp/scrape.txt | head; fail "scrape lacks loose's depth"; }
grep -q '^iolat_target_seconds{cgroup="/iolat-p/tight",device="iolat0"} 0.001$' /tmp/scrape.txt ||
	fail "scrape lacks tight's target"
grep -q '^node_textfile_scrape_error 0$' /tmp/scrape.txt ||
	fail "node_exporter could not read the file: $(grep textfile /tmp/scrape.txt)"

kill -INT $top
wait $top || fail "iolat-top exited $? on SIGINT"
ls -A $prom | grep -v '^iolat\.prom$' && fail "a temporary file was left behind"
exit 0
