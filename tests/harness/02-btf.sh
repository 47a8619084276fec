# BTF is there and describes the io.latency controller's private structs,
# which CO-RE tools read, and the struct iolatency_window's TP_PROTO
# passes (tp_btf programs read the window through it).
. "$IOLAT_REPO/tests/lib.sh"

[ -s /sys/kernel/btf/vmlinux ] || fail "/sys/kernel/btf/vmlinux missing or empty"
bpftool btf dump file /sys/kernel/btf/vmlinux format raw >/tmp/btf.txt ||
	fail "bpftool cannot read the kernel BTF"
for t in "STRUCT 'iolatency_grp'" "STRUCT 'blkcg_gq'" "STRUCT 'child_latency_info'" \
	"STRUCT 'iolatency_window_info'"; do
	grep -q "$t" /tmp/btf.txt || fail "kernel BTF lacks $t"
done
note "$(wc -l </tmp/btf.txt) BTF types"
