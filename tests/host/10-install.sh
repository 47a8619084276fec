# make install and make uninstall, from the top level, into temporary
# directories: the exact list of files and their modes under
# DESTDIR/usr/local, the unit's ExecStart following PREFIX, the
# installed binaries the built ones; then uninstall leaves no file.
# With PREFIX a real directory, the installed tools print their help,
# man finds the pages, and systemd-analyze verify passes the installed
# unit with its man: link.  (Running them on the iolatency events is
# the guest's job.)
. "$(dirname "$0")/lib.sh"
T=$BUILD/tools
for tool in iolat-top iolat-snoop iolat-why; do
	[ -x "$T/$tool" ] || fail "tools not built: make tools ($T/$tool)"
done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

make_() { make -s -C "$REPO" BUILD="$BUILD" "$@" >"$t/make.log" 2>&1 || fail "make $*: $(cat "$t/make.log")"; }
files() { (cd "$1" && find . ! -type d -printf '%m %p\n' | sed 's| \./| |' | LC_ALL=C sort -k2); }

make_ install DESTDIR="$t/root"
want="755 usr/local/bin/iolat-plot
644 usr/local/lib/systemd/system/iolat-exporter.service
755 usr/local/sbin/iolat-snoop
755 usr/local/sbin/iolat-top
755 usr/local/sbin/iolat-why
644 usr/local/share/bash-completion/completions/iolat-plot
644 usr/local/share/bash-completion/completions/iolat-snoop
644 usr/local/share/bash-completion/completions/iolat-top
644 usr/local/share/bash-completion/completions/iolat-why
644 usr/local/share/iolat/iolat-alerts.yml
644 usr/local/share/man/man1/iolat-plot.1
644 usr/local/share/man/man8/iolat-snoop.8
644 usr/local/share/man/man8/iolat-top.8
644 usr/local/share/man/man8/iolat-why.8"
got=$(files "$t/root")
[ "$got" = "$want" ] || fail "installed files differ (< want, > got):
$(diff <(echo "$want") <(echo "$got") | grep '^[<>]')"
note "make install DESTDIR=: $(echo "$got" | wc -l) files, modes as wanted"
for tool in iolat-top iolat-snoop iolat-why; do
	cmp -s "$T/$tool" "$t/root/usr/local/sbin/$tool" || fail "installed $tool is not the built one"
done
grep -qx 'ExecStart=/usr/local/sbin/iolat-top .*' "$t/root/usr/local/lib/systemd/system/iolat-exporter.service" ||
	fail "the installed unit's ExecStart: $(grep ExecStart= "$t/root/usr/local/lib/systemd/system/iolat-exporter.service")"

make_ uninstall DESTDIR="$t/root"
left=$(files "$t/root")
[ -z "$left" ] || fail "make uninstall left: $left"
[ ! -e "$t/root/usr/local/share/iolat" ] || fail "make uninstall left share/iolat"
note "make uninstall: no file left, share/iolat removed"

# A prefix of our own, no DESTDIR: ExecStart follows it and the result runs.
p=$t/prefix
make_ install PREFIX="$p"
exec_start=$(sed -n 's/^ExecStart=//p' "$p/lib/systemd/system/iolat-exporter.service")
[[ $exec_start == "$p/sbin/iolat-top "* ]] || fail "with PREFIX=$p, ExecStart=$exec_start"
"$p/sbin/iolat-top" --help | grep -q -- '--prometheus=FILE' || fail "the installed iolat-top --help"
"$p/sbin/iolat-snoop" --help | grep -q -- '--all' || fail "the installed iolat-snoop --help"
"$p/sbin/iolat-why" --help | grep -q -- '--snoop=FILE' || fail "the installed iolat-why --help"
# iolat-why -D runs the iolat-snoop installed beside it, not one in $PATH:
# on the host's kernel that one says it cannot trace (status 3).
PATH=/usr/bin:/bin expect 3 "no iolatency tracepoints" "$p/sbin/iolat-why" -D 1
"$p/bin/iolat-plot" --help | grep -q '^usage: iolat-plot' || fail "the installed iolat-plot --help"
if command -v man >/dev/null; then
	for page in iolat-top.8 iolat-snoop.8 iolat-why.8 iolat-plot.1; do
		[ "$(MANPATH=$p/share/man man -w "${page%.*}" 2>/dev/null)" = "$p/share/man/man${page##*.}/$page" ] ||
			fail "man -w ${page%.*} does not find $p/share/man/man${page##*.}/$page"
	done
	note "man finds the 4 installed pages"
fi
if command -v systemd-analyze >/dev/null; then
	out=$(MANPATH=$p/share/man systemd-analyze verify "$p/lib/systemd/system/iolat-exporter.service" 2>&1) ||
		fail "systemd-analyze verify of the installed unit: $out"
	[ -z "$out" ] || fail "systemd-analyze verify of the installed unit warns: $out"
	note "systemd-analyze verify: the installed unit, its binary and man page, clean"
fi
make_ uninstall PREFIX="$p"
left=$(files "$p")
[ -z "$left" ] || fail "make uninstall PREFIX=$p left: $left"
note "PREFIX=$p: installed, run, verified, uninstalled"
