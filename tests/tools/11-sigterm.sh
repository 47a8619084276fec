# SIGTERM, which systemd and kill send, ends each tool as SIGINT does:
# status 0, its last record whole, -P's file whole with no temporary file
# left beside it, and its BPF programs gone from the kernel.  A tool that
# died of the signal would leave a cut record, a .prom.XXXXXX file, or
# (on an error path that skipped the detach) programs still attached.
. "$IOLAT_REPO/tests/lib.sh"
need_tools
command -v bpftool >/dev/null || skip "no bpftool to count the kernel's BPF programs"

nullb_create iolat0 completion_nsec=200000 irqmode=2 hw_queue_depth=16
cg_create iolat-t/tight
io_latency_set iolat-t/tight iolat0 1000
fio_job iolat-t/tight tight iolat0 600 "${FIO_SYNC[@]}"
bg_track $!
mkdir -p /tmp/iolat-term
rm -f /tmp/iolat-term/*

progs() { bpftool -j prog show | jq length; }
base=$(progs) || fail "bpftool cannot list the BPF programs"

# term NAME READY CMD...: CMD in the background, SIGTERM once READY
# holds and a second went by, then its status, which must be 0.
term() {
	local name=$1 ready=$2 pid rc
	shift 2
	"$@" >"/tmp/iolat-term/$name.out" 2>"/tmp/iolat-term/$name.err" &
	pid=$!
	bg_track $pid
	wait_for 120 "$ready" || fail "$name: not ready in 120 s: $(cat "/tmp/iolat-term/$name.err")"
	sleep 1
	# Its programs are seen, so that the count after means something.
	[ "$(progs)" -gt "$base" ] || fail "$name: bpftool sees none of its BPF programs"
	kill -TERM $pid
	tracer_end 30 $pid
	rc=$?
	[ $rc = 0 ] || fail "$name: status $rc on SIGTERM (124: still running 30 s after it): $(cat "/tmp/iolat-term/$name.err")"
	note "$name: ended 0 on SIGTERM"
}
out_has() { [ -s "/tmp/iolat-term/$1.out" ]; }
top_json() { out_has top-json; }
top_text() { out_has top-text; }
snoop_json() { grep -q 'tracing io.latency decisions' /tmp/iolat-term/snoop-json.err; }
prom() { [ -s /tmp/iolat-term/iolat.prom ]; }

term top-text top_text "$TOOLS/iolat-top" -b -d iolat0 1
term top-json top_json "$TOOLS/iolat-top" -j -d iolat0 1
tail -1 /tmp/iolat-term/top-json.out | jqe '.tool == "iolat-top"' >/dev/null ||
	fail "iolat-top -j: the last record is not whole: $(tail -c 200 /tmp/iolat-term/top-json.out)"
term snoop-json snoop_json "$TOOLS/iolat-snoop" -j -a -d iolat0
[ ! -s /tmp/iolat-term/snoop-json.out ] || tail -1 /tmp/iolat-term/snoop-json.out | jqe . >/dev/null ||
	fail "iolat-snoop -j: the last record is not whole: $(tail -c 200 /tmp/iolat-term/snoop-json.out)"
term prom prom "$TOOLS/iolat-top" -q -P /tmp/iolat-term/iolat.prom 1
tail -1 /tmp/iolat-term/iolat.prom | grep -q '^iolat_lost_events_total [0-9]*$' ||
	fail "-P: the file is not whole: $(tail -1 /tmp/iolat-term/iolat.prom)"
left=$(ls -A /tmp/iolat-term | grep -v -e '\.out$' -e '\.err$' -e '^iolat\.prom$')
[ -z "$left" ] || fail "-P left files beside its own: $left"

now=$(progs)
[ "$now" = "$base" ] || fail "BPF programs: $base before the tools, $now after them"
note "BPF programs: $base before, $now after"
