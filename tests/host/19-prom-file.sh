# iolat-top -P's file writes without a kernel: a test program built from
# tools/iolat-top-output.c and tests/host/19-prom-file.c, with write()
# and fsync() wrapped to fail on demand, in a temporary directory.
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
host_cc "$tmp/prom-test" "$REPO/tests/host/19-prom-file.c" \
	"$T/iolat-cgroup.c" "$T/iolat-top-model.c" "$T/iolat-top-output.c" \
	"$T/iolat-common.c" "$T/iolat-map.c" -Wl,--wrap=write,--wrap=fsync
"$tmp/prom-test" "$tmp" || fail "the -P file test failed"
