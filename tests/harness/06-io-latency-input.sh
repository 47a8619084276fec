# io.latency rejects malformed writes with the right errno, a rejected
# write leaves the target set before it in place, and the kernel stays
# healthy (the runner fails the test on any splat).  Values too large to
# fit are harness/07-target-range's.
#
# The parsing: kernfs refuses a write of more than a page (the cgroup
# files' atomic_write_len, PAGE_SIZE) with E2BIG before anything reads it;
# blkcg_conf_open_bdev() wants "MAJ:MIN" and then white space (isspace: a
# tab will do), else EINVAL, and ENODEV for no such disk (or a partition:
# null_blk has none, so that is not tried); iolatency_set_limit() splits
# the rest at each ' ' (only), wants "target=" and then "max" or a decimal
# number (kstrtou64: digits only, one trailing newline allowed), else
# EINVAL.  It sets the target only once every piece has parsed.  On the
# debug kernel one write per branch of that (the others are marked also).
. "$IOLAT_REPO/tests/lib.sh"

nullb_create iolat0
nullb_create iolat1
mm=$(majmin iolat0)
mm1=$(majmin iolat1)
cg_create iolat-t/a
F=$CG/iolat-t/a/io.latency

# A write takes no process under a page without a newline (bash's
# printf), else one, dd, and nothing else execs: the shell's own string
# handling, printf -v and read instead of wc and cat.
# Each process is an exec over the 9p root, and on the debug kernel
# (KASAN, lockdep) under TCG those were nearly all of the test's time:
# 236 s there against 21 s on the normal kernel, at about ten processes
# a write.

# write1 STRING: write STRING to $F in a single write(2); $WROTE is the
# errno's text, or ok.  Under a page and without a newline, bash's
# printf: its output is buffered and flushed once, in one write of a
# buffer of st_blksize (a page here), and a failed write is "printf:
# write error: TEXT".  bash line-buffers its stdout, so a newline would
# end a write (seen: "target=100\n253:1 target=200" taken as two).
# Else dd: one block of exactly its length, whatever that is (the
# here-string adds a newline that dd, reading one block of the string's
# length, leaves unread).  dd for every write took 152-181 s of the
# debug kernel's run, a second an exec.
write1() {
	local LC_ALL=C
	local len=${#1} err
	[ "$len" -gt 0 ] || fail "write1: nothing to write"
	if [ "$len" -lt 4096 ] && [[ $1 != *$'\n'* ]]; then
		if err=$({ printf '%s' "$1" >"$F"; } 2>&1); then
			WROTE=ok
		else
			case $err in
			*"write error: "*) WROTE=${err##*write error: } ;;
			*) WROTE="printf failed: $err" ;;
			esac
		fi
	elif err=$(dd of="$F" bs="$len" count=1 iflag=fullblock conv=notrunc \
			status=none 2>&1 <<<"$1"); then
		WROTE=ok
	else
		case $err in
		*"error writing"*) WROTE=${err##*: } ;;
		*) WROTE="dd failed: $err" ;;
		esac
	fi
}
# show STRING: $SHOWN is STRING with tabs and newlines made visible, cut
# to 40.
show() {
	local s=${1//$'\t'/\\t}
	s=${s//$'\n'/\\n}
	printf -v SHOWN '%-40.40s' "'$s'"
}
# read_f: $GOT is what $F reads, its trailing newline dropped.
read_f() {
	[ -r "$F" ] || fail "cannot read $F"
	GOT=
	IFS= read -r -d '' GOT <"$F"
	GOT=${GOT%$'\n'}
}

# try WANT STRING: write STRING in one write(2); WANT is ok or an errno text.
n=0
try() {
	n=$((n + 1))
	write1 "$2"
	show "$2"
	note "$SHOWN -> $WROTE"
	[ "$WROTE" = "$1" ] || fail "writing $SHOWN: got '$WROTE', want '$1'"
}
# reads WANT: io.latency reads WANT ("" for no target).
reads() {
	read_f
	[ "$GOT" = "$1" ] || fail "io.latency reads '$GOT', want '$1'"
}
# The target every rejected write must leave in place.
KEEP="$mm target=1234"
keep() { try ok "$KEEP" && reads "$KEEP"; }
# rejected WANT STRING: try, and the target set before is still there.
rejected() {
	try "$1" "$2"
	read_f
	[ "$GOT" = "$KEEP" ] ||
		fail "rejected $SHOWN changed io.latency: reads '$GOT', want '$KEEP'"
}

# also CMD...: a write that takes a branch of the parsing that another
# write here takes too (each kept for the bug it once showed or might).
# On the debug kernel (kernel_kasan) these are left out: there the test
# is for KASAN and lockdep, which see the same code on the same branch,
# and each write costs seconds under TCG; every branch is still taken
# there (no MAJ:MIN, no such disk, no white space after it, a piece with
# no '=', a key other than target, a value kstrtou64 refuses, a good
# piece then a bad one, more than a page, exactly a page, a tab after
# MAJ:MIN, repeated keys, 0 and max).  The normal kernel runs them all.
skipped=0
if kernel_kasan; then
	also() { skipped=$((skipped + 1)); }
	note "KASAN kernel: the writes marked 'also' are left out"
else
	also() { "$@"; }
fi

inval="Invalid argument"
keep
also rejected "$inval" $'\n'	# empty: write(2) of 0 bytes never reaches the kernel
rejected "$inval" "target=100"
rejected "No such device" "259:999 target=100"
rejected "$inval" "$mm"
also rejected "$inval" "$mm target="
rejected "$inval" "$mm target=abc"
rejected "$inval" "$mm foo=1"
rejected "$inval" "$mm target"
also rejected "$inval" "$mm max"
rejected "$inval" "$mm target=100 foo=1"
also rejected "$inval" "${mm}target=100"
also rejected "$inval" "$mm target=-5"
# A key of more than 15 characters: %15[^=] stops at 15, short of the '='.
also rejected "$inval" "$mm targettargettarget=100"
also rejected "$inval" "$mm aaaaaaaaaaaaaaaaaaaaaaaatarget=100"
# "max" only in lower case.
also rejected "$inval" "$mm target=MAX"
also rejected "$inval" "$mm target=Max"
# Two devices in one write: the second MAJ:MIN is a piece with no '='.
also rejected "$inval" "$mm target=100 $mm1 target=200"
also rejected "$inval" "$mm target=100 $mm target=200"
# A tab inside a key: the key is "target\t".
also rejected "$inval" "$mm target"$'\t'"=100"
# Garbage: 4000 bytes (one write, under a page) of letters, digits, '=',
# ':' and spaces, from a letter on (not MAJ:MIN: EINVAL, never ENODEV).
chars='abcdefghijklmnopqrstuvwxyz0123456789=: '
g=x
while [ ${#g} -lt 4000 ]; do g+=${chars:RANDOM % ${#chars}:1}; done
[ ${#g} = 4000 ] || fail "the garbage is ${#g} bytes, not 4000"
also rejected "$inval" "$g"
# More than a page: kernfs refuses it whole (E2BIG), unread, though it
# parses: "MAJ:MIN target=4321 target=4321 ..." (the last one wins), its
# last value padded with leading zeros to the length wanted.  The same
# write of exactly a page is taken.
page=$mm
while [ $((${#page} + 12)) -le 4096 ]; do page+=" target=4321"; done
r=$((4096 - ${#page}))	# 0 to 11 bytes short of a page
page=${page% target=4321}
printf -v long '%s target=%0*d' "$page" $((5 + r)) 4321
printf -v page '%s target=%0*d' "$page" $((4 + r)) 4321
[ ${#page} = 4096 ] && [ ${#long} = 4097 ] ||
	fail "writes of ${#page} and ${#long} bytes, not 4096 and 4097"
rejected "Argument list too long" "$long"
try ok "$page"
reads "$mm target=4321"
keep

# A value is digits and nothing else: 6.1's sscanf("%llu") took "100x"
# as 100, and "%20s" stopped at a tab or newline inside a piece, so the
# digits before it counted and the rest was lost (with tabs between two
# pairs only the first counted; of two lines each naming a device, the
# second line's target landed on the first line's device).
also rejected "$inval" "$mm target=100x"
also rejected "$inval" "$mm"$'\t'"target=100"$'\t'"target=200"
also rejected "$inval" "$mm target=100"$'\n'"$mm1 target=200"
# A tab between MAJ:MIN and the key is white space enough.
try ok "$mm"$'\t'"target=100"
reads "$mm target=100"
keep
try ok "$mm target=100 target=200"
reads "$mm target=200"	# repeated keys: the last wins
keep
# target=0 is target=max: the target goes, io.latency reads back empty.
try ok "$mm target=0"
reads ""
keep
try ok "$mm target=max"
reads ""
keep

# Values too large to fit: harness/07-target-range.

# The root cgroup has no io.latency at all.
[ ! -e "$CG/io.latency" ] || fail "the root cgroup has io.latency"
(printf '%s' "$mm target=100" >"$CG/io.latency") 2>/dev/null &&
	fail "writing io.latency in the root cgroup succeeded"
# Still healthy: a valid target works and IO completes.
io_latency_set iolat-t/a iolat0 1000
reads "$mm target=1000"
cg_run iolat-t/a dd if=/dev/iolat0 of=/dev/null bs=4k count=100 iflag=direct status=none ||
	fail "IO after the bad writes failed"
note "$n writes tried, $skipped left out (also, on the debug kernel)"
