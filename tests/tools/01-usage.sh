# Bad arguments exit 2 with a reason; --help works; a non-root user gets
# exit 3 and is told why.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

for t in iolat-top iolat-snoop; do
	"$TOOLS/$t" --help >/tmp/help.txt 2>&1 || fail "$t --help failed"
	grep -q "USAGE: $t" /tmp/help.txt || fail "$t --help has no USAGE line"
	grep -q "EXAMPLES" /tmp/help.txt || fail "$t --help has no EXAMPLES"
	expect_exit 2 "unrecognized option|invalid option" "$TOOLS/$t" --bogus
	expect_exit 2 "invalid option" "$TOOLS/$t" -1
	expect_exit 2 "no block device" "$TOOLS/$t" -d nosuchdisk
	expect_exit 2 "no block device" "$TOOLS/$t" -d 259:999
	expect_exit 2 "invalid regex" "$TOOLS/$t" -c '('
	for bad in 0 abc 1e9 0x ''; do
		expect_exit 2 "invalid interval" "$TOOLS/$t" "$bad"
	done
	expect_exit 3 "must be run as root" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$TOOLS/$t" 1
done
expect_exit 2 "invalid count" "$TOOLS/iolat-top" 1 0
expect_exit 2 "invalid count" "$TOOLS/iolat-top" 1 x
expect_exit 2 "unrecognized positional" "$TOOLS/iolat-top" 1 1 1
expect_exit 2 "unrecognized positional" "$TOOLS/iolat-snoop" 1 1
expect_exit 2 "invalid sort key" "$TOOLS/iolat-top" -s bogus
expect_exit 2 "invalid rows" "$TOOLS/iolat-top" -r 0
