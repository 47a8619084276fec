# iolat-snoop's records without a kernel: a test program built from
# tools/iolat-snoop-output.c and tests/host/12-snoop.c feeds fake events
# to its text and JSON writers, and batches of records to its ring
# buffer callback.
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
host_cc "$tmp/snoop-test" "$REPO/tests/host/12-snoop.c" \
	"$T/iolat-snoop-output.c" "$T/iolat-snoop-state.c" "$T/iolat-common.c"
"$tmp/snoop-test" "$tmp/records.json" || fail "the snoop test failed"
if command -v jq >/dev/null; then
	jq -e . "$tmp/records.json" >/dev/null || fail "a JSON record does not parse: $(cat "$tmp/records.json")"
	note "$(wc -l <"$tmp/records.json") JSON records parse"
fi
# The JSON keys README.md documents, against the records it wrote.
json_keys_check iolat-snoop "$tmp/records.json"
