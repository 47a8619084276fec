# tools/systemd/iolat-exporter.service: systemd-analyze verify says
# nothing about it (its ExecStart pointed at the built iolat-top, as
# make install points it at the installed one), its sandbox stays at an
# exposure of 1.5 or less (systemd-analyze security), the capabilities
# are the two iolat-top uses, and the -P file is in the one directory it
# may write.  iolat-top accepts the unit's arguments (on a host without
# the iolatency events it gets as far as the kernel check: exit 3).
. "$(dirname "$0")/lib.sh"
U=$REPO/tools/systemd/iolat-exporter.service
[ -f "$U" ] || fail "no $U"
[ -x "$BUILD/tools/iolat-top" ] || fail "tools not built: make tools"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

key() { sed -n "s/^$1=//p" "$U"; }
exec_start=$(key ExecStart)
[[ $exec_start == /usr/local/sbin/iolat-top\ * ]] ||
	fail "ExecStart is not /usr/local/sbin/iolat-top (make install rewrites that prefix): $exec_start"
read -ra args <<<"${exec_start#* }"
prom=
for ((i = 0; i < ${#args[@]}; i++)); do
	[ "${args[i]}" = -P ] && prom=${args[i + 1]}
done
[ -n "$prom" ] || fail "ExecStart has no -P FILE: $exec_start"
[[ " ${args[*]} " == *" -q "* ]] || fail "ExecStart has no -q (a report on stdout would fill the journal)"
[ "$(key ReadWritePaths)" = "-${prom%/*}" ] ||
	fail "ReadWritePaths=$(key ReadWritePaths), but -P writes in ${prom%/*}"
[ "$(key CapabilityBoundingSet)" = "CAP_BPF CAP_PERFMON" ] ||
	fail "CapabilityBoundingSet=$(key CapabilityBoundingSet), want CAP_BPF CAP_PERFMON"
[ "$(key Restart)" = on-failure ] || fail "Restart=$(key Restart), want on-failure"
note "ExecStart: iolat-top ${args[*]}; writes ${prom%/*}; CAP_BPF CAP_PERFMON"

if [ "$(id -u)" = 0 ] && ! bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	grep -q btf_trace_iolatency_window; then
	mkdir "$t/textfile"
	try=("${args[@]}")
	for ((i = 0; i < ${#try[@]}; i++)); do
		[ "${try[i]}" = "$prom" ] && try[i]=$t/textfile/iolat.prom
	done
	expect 3 "no iolatency tracepoints" "$BUILD/tools/iolat-top" "${try[@]}"
else
	note "not root, or the host has the iolatency events: the arguments not tried"
fi

command -v systemd-analyze >/dev/null ||
	skip "the unit's settings are checked; systemd-analyze missing, not verified (apt-get install systemd)"
sed "s|^ExecStart=/usr/local/sbin/|ExecStart=$BUILD/tools/|" "$U" >"$t/iolat-exporter.service"
# --man=no: the page is not installed here (tests/host/10-install checks
# the installed unit with it).
out=$(systemd-analyze verify --man=no "$t/iolat-exporter.service" 2>&1) ||
	fail "systemd-analyze verify failed: $out"
[ -z "$out" ] || fail "systemd-analyze verify warns: $out"
note "systemd-analyze verify: clean"
out=$(systemd-analyze security --offline=yes --threshold=15 "$t/iolat-exporter.service" 2>&1) ||
	fail "exposure above 1.5: $(echo "$out" | grep -E '✗|Overall')"
note "$(echo "$out" | grep -o 'Overall exposure level.*')"
