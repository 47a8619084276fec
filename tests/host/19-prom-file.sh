# iolat-top -P's file writes without a kernel: a test program built from
# tools/iolat-top-output.c and tests/host/19-prom-file.c, with write()
# and fsync() wrapped to fail on demand, in a temporary directory.
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
T=$REPO/tools
"${CC:-cc}" -g -O1 -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 \
	-I"$T" -I"$REPO/bpf" -o "$tmp/prom-test" "$REPO/tests/host/19-prom-file.c" \
	"$T/iolat-cgroup.c" "$T/iolat-top-model.c" "$T/iolat-top-output.c" \
	"$T/iolat-common.c" "$T/iolat-map.c" -lbpf -lm \
	-Wl,--wrap=write,--wrap=fsync 2>&1 ||
	fail "the test program does not build"
"$tmp/prom-test" "$tmp" || fail "the -P file test failed"
