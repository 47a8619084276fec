# make install's tools, run from where it put them: a DESTDIR under /tmp
# (the repository is read-only here), with the exporter unit's capabilities
# only (CAP_BPF and CAP_PERFMON; tools/systemd/iolat-exporter.service),
# and refused without CAP_PERFMON, which the unit must therefore keep.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

D=/tmp/iolat-inst
rm -rf "$D"
make -s -C "$IOLAT_REPO" install DESTDIR="$D" BUILD="$(dirname "$TOOLS")" >/tmp/inst.log 2>&1 ||
	fail "make install DESTDIR=$D: $(cat /tmp/inst.log)"
S=$D/usr/local/sbin
for t in iolat-top iolat-snoop iolat-why; do
	[ -x "$S/$t" ] || fail "make install left no $S/$t"
	cmp -s "$S/$t" "$TOOLS/$t" || fail "$S/$t is not the built $t"
done
[ -x "$D/usr/local/bin/iolat-plot" ] || fail "make install left no bin/iolat-plot"

nullb_create iolat0
cg_create iolat-i/tight
io_latency_set iolat-i/tight iolat0 1000
cg_run iolat-i/tight dd if=/dev/iolat0 of=/dev/null bs=4k iflag=direct count=2000 status=none &
# The unit's privileges: root's uid, only CAP_BPF and CAP_PERFMON.
setpriv --inh-caps=-all --bounding-set=-all,+bpf,+perfmon -- \
	"$S/iolat-top" -q -P /tmp/iolat.prom -d iolat0 1 2 >/tmp/top.out 2>&1 ||
	fail "installed iolat-top with CAP_BPF and CAP_PERFMON only: $(cat /tmp/top.out)"
grep -q '^iolat_target_seconds{device="iolat0",cgroup="/iolat-i/tight"} 0.001$' /tmp/iolat.prom ||
	fail "the installed exporter wrote no target for iolat-i/tight: $(head -c 600 /tmp/iolat.prom)"
note "with CAP_BPF and CAP_PERFMON: $(grep -c '^iolat_' /tmp/iolat.prom) metric lines"
if setpriv --inh-caps=-all --bounding-set=-all,+bpf -- \
		"$S/iolat-top" -q -P /tmp/x.prom 1 1 >/tmp/top.out 2>&1; then
	fail "iolat-top loaded its programs without CAP_PERFMON"
fi
grep -q "Operation not permitted" /tmp/top.out ||
	fail "without CAP_PERFMON: not the expected refusal: $(tail -2 /tmp/top.out)"
# iolat-why runs the iolat-snoop and iolat-top installed beside it.
PATH=/usr/bin:/bin "$S/iolat-why" -D 2 >/tmp/why.out 2>&1
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "installed iolat-why -D 2 exited $rc: $(cat /tmp/why.out)"
grep -q "iolat-top rows" /tmp/why.out || fail "installed iolat-why read no iolat-top output: $(cat /tmp/why.out)"
wait
make -s -C "$IOLAT_REPO" uninstall DESTDIR="$D" BUILD="$(dirname "$TOOLS")" >/tmp/inst.log 2>&1 ||
	fail "make uninstall: $(cat /tmp/inst.log)"
left=$(find "$D" -type f | head -3)
[ -z "$left" ] || fail "make uninstall left: $left"
