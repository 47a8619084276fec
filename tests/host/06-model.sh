# iolat-top's model, cgroup reader and outputs, without a kernel: a test
# program built from tools/ and tests/host/06-model.c, run on a fake
# cgroup tree in a temporary directory with fake map entries.
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/cg"
# fprintf and fputc counted too: with _FORTIFY_SOURCE they are other symbols.
host_cc "$tmp/model-test" -U_FORTIFY_SOURCE "$REPO/tests/host/06-model.c" \
	"$T/iolat-cgroup.c" "$T/iolat-top-model.c" "$T/iolat-top-output.c" "$T/iolat-common.c" \
	"$T/iolat-map.c" -Wl,--wrap=open,--wrap=read,--wrap=pread,--wrap=close,--wrap=fprintf,--wrap=fputc
"$tmp/model-test" "$tmp/cg" "$tmp/records.json" || fail "the model test failed"
# The JSON keys README.md documents, against the reports it wrote.
json_keys_check iolat-top "$tmp/records.json"

# The output checks of the tools themselves, where they run without a
# kernel: --help.  stdout on /dev/full fails with a message; a reader that
# went away ends it quietly, status 0, no SIGPIPE.
for tool in iolat-top iolat-snoop; do
	bin=$BUILD/tools/$tool
	if [ ! -x "$bin" ]; then
		note "$bin not built: its --help output checks skipped"
		continue
	fi
	expect 1 "cannot write the output: No space left" sh -c "exec '$bin' --help >/dev/full"
	(sleep 0.3; exec "$bin" --help) 2>"$tmp/err" | true
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] ||
		fail "$tool --help into a closed pipe: status $rc, said '$(cat "$tmp/err")', want 0 and nothing"
	note "$tool --help | (closed) -> status 0, quiet"
done
