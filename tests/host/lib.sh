# SPDX-License-Identifier: GPL-2.0
# Helpers for the host suite: tests of the host-side tooling itself
# (guest/run, and the tools on a kernel without the iolatency events).
# They never load anything into the host kernel.
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$REPO/build}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "# $*"; }

# expect STATUS PATTERN CMD...: CMD exits STATUS and prints PATTERN on stderr.
expect() {
	local want=$1 pat=$2 rc err
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	[ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $err"
	echo "$err" | grep -Eq -- "$pat" || fail "'$*' said '$err', want /$pat/"
	note "$* -> $rc: $(echo "$err" | grep -E -- "$pat" | head -1)"
}
