# io is an available controller and io.latency round-trips on null_blk.
. "$IOLAT_REPO/tests/lib.sh"

grep -qw io "$CG/cgroup.controllers" || fail "io not in cgroup.controllers"
nullb_create iolat0
mm=$(majmin iolat0)
cg_create iolat-t/a
[ -f "$CG/iolat-t/a/io.latency" ] || fail "no io.latency file in a child cgroup"
[ ! -e "$CG/io.latency" ] || fail "the root cgroup has io.latency"

io_latency_set iolat-t/a iolat0 1500
got=$(cat "$CG/iolat-t/a/io.latency")
[ "$got" = "$mm target=1500" ] || fail "io.latency reads '$got', want '$mm target=1500'"

echo "$mm target=max" >"$CG/iolat-t/a/io.latency" || fail "cannot clear the target"
got=$(cat "$CG/iolat-t/a/io.latency")
[ -z "$got" ] || fail "io.latency reads '$got' after target=max, want nothing"
