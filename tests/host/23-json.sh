# iolat-why's JSON reader on its own: a test program built from
# tools/iolat-json.c and tests/host/23-json.c (numbers to the bit as
# strtod() reads them, strings, errors, a line after a bigger one, an
# iolat-top row as the model gets it).
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
host_cc "$tmp/json-test" "$REPO/tests/host/23-json.c" \
	"$T/iolat-json.c" "$T/iolat-why-model.c" "$T/iolat-common.c"
"$tmp/json-test" || fail "the JSON reader test failed"
