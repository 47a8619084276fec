# The cgroup tree's walk on trees past what a small one shows: a chain
# deeper than PATH_MAX, a wide tree, RLIMIT_NOFILE 64, directories that
# cannot be opened.  A test program built from tools/iolat-cgroup.c and
# tests/host/21-walk.c, run on a fake tree in a temporary directory.
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
# A chain past PATH_MAX: rm -rf walks it by descriptors.
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cg" "$tmp/flat"
host_cc "$tmp/walk-test" "$REPO/tests/host/21-walk.c" \
	"$T/iolat-cgroup.c" "$T/iolat-common.c" "$T/iolat-map.c" -Wl,--wrap=openat,--wrap=close
"$tmp/walk-test" "$tmp/cg" || fail "the walk test failed"
# What a refresh of iolat-top pays for 10,000 cgroups: counted, timed.
"$tmp/walk-test" "$tmp/flat" 10000 || fail "the flat walk failed"
