# On a kernel without the iolatency tracepoints (the host's own, which is
# only asked, never loaded into), the tools say so, point at patches/ and
# exit 3.
. "$(dirname "$0")/lib.sh"
T=$BUILD/tools
[ -x "$T/iolat-top" ] && [ -x "$T/iolat-snoop" ] || fail "tools not built: make tools"
[ "$(id -u)" = 0 ] || skip "needs root to get past the root check"
[ -r /sys/kernel/btf/vmlinux ] || skip "the host kernel has no BTF"
if bpftool btf dump file /sys/kernel/btf/vmlinux format raw | grep -q "btf_trace_iolatency_window"; then
	skip "the host kernel has the iolatency events"
fi
expect 3 "no iolatency tracepoints.*patches/" "$T/iolat-top" 1 1
expect 3 "no iolatency tracepoints.*patches/" "$T/iolat-snoop" 1
# iolat-why -D runs the two as its children: their "cannot trace" is its own.
if [ -x "$T/iolat-why" ]; then
	expect 3 "no iolatency tracepoints.*patches/" "$T/iolat-why" -D 1
else
	note "$T/iolat-why not built: its live check skipped"
fi
