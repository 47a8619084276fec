# BTF is there and describes the io.latency controller's private structs,
# which CO-RE tools read, and the struct iolatency_window's TP_PROTO
# passes (tp_btf programs read the window through it).
. "$IOLAT_REPO/tests/lib.sh"

[ -s /sys/kernel/btf/vmlinux ] || fail "/sys/kernel/btf/vmlinux missing or empty"
bpftool btf dump file /sys/kernel/btf/vmlinux format raw >/tmp/btf.txt ||
	fail "bpftool cannot read the kernel BTF"
# One pass over the dump (one a struct took most of the test's 65 s on
# the debug kernel).
found=$(awk -v want="iolatency_grp blkcg_gq child_latency_info iolatency_window_info" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) wanted["\047" w[i] "\047"] = w[i] }
	/^\[/ { types++; if ($2 == "STRUCT" && ($3 in wanted)) seen[wanted[$3]] = 1 }
	END { for (s in seen) printf "%s ", s; print types }' /tmp/btf.txt)
for t in iolatency_grp blkcg_gq child_latency_info iolatency_window_info; do
	[[ " $found " == *" $t "* ]] || fail "kernel BTF lacks STRUCT '$t'"
done
note "${found##* } BTF types"
