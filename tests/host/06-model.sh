# iolat-top's model, cgroup reader and outputs, without a kernel: a test
# program built from tools/ and tests/host/06-model.c, run on a fake
# cgroup tree in a temporary directory with fake map entries.
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cg"
T=$REPO/tools
"${CC:-cc}" -g -O1 -Wall -Wextra -Wno-unused-parameter -Werror -std=gnu11 \
	-I"$T" -I"$REPO/bpf" -o "$tmp/model-test" "$REPO/tests/host/06-model.c" \
	"$T/iolat-cgroup.c" "$T/iolat-top-model.c" "$T/iolat-top-output.c" \
	"$T/iolat-common.c" -lbpf -lm 2>&1 || fail "the test program does not build"
"$tmp/model-test" "$tmp/cg" || fail "the model test failed"
