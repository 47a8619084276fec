# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the scripts that build, check or boot a kernel: which kernel
# versions the series is ported to, and where each one's series, source
# tree and objects live.  6.1, the default, keeps the directories it had
# before 6.12 came (build/linux, build/kbuild[-VARIANT]) so that trees
# and ccache entries built before stay valid; the others have the
# version in their names (build/linux-6.12, build/kbuild-6.12[-VARIANT]).
#
# Needs REPO and BUILD set.

KVERS=(6.1 6.12)
KVER_DEFAULT=6.1
# The debug kernel of the default run (tests/run with no suites, make
# test, CI): the other version's, so that every run boots both, and the
# tool binaries built from 6.1's BTF load on 6.12's layouts and debug's.
KVER_DEBUG=6.12

# kver_check KVER: return 1, saying so, unless KVER is one of KVERS.
kver_check() {
	local k
	for k in "${KVERS[@]}"; do
		[ "$1" = "$k" ] && return 0
	done
	echo "unsupported kernel version '$1': want one of ${KVERS[*]}" >&2
	return 1
}

# kver_tag KVER: "" for the default version, "-KVER" for the others.
kver_tag() {
	[ "$1" = "$KVER_DEFAULT" ] || echo "-$1"
}

# kver_patches KVER: the directory of KVER's series (its "series" file
# names the patches in order; a variant's test-only patches are in
# VARIANT/, listed by VARIANT/series).
kver_patches() {
	echo "$REPO/patches/$1"
}

# series_names SERIES_FILE: the patches it names, in order, relative to
# its directory (comments and blank lines left out).
series_names() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"
}

# kver_tarball KVER: Debian's linux-source-KVER tarball.
kver_tarball() {
	echo "/usr/src/linux-source-$1.tar.xz"
}

# kver_src KVER: the scratch git tree with KVER's source and series.
kver_src() {
	echo "$BUILD/linux$(kver_tag "$1")"
}

# kver_base KVER: a checkout of KVER's pristine source (tag iolat-base of
# kver_src's tree, as a git worktree beside it), made if missing: what
# check-notrace compares the series against and what the "unpatched"
# variant builds.
kver_base() {
	local src base
	src=$(kver_src "$1")
	base=$src-base
	if [ ! -d "$base" ]; then
		git -C "$src" worktree add -q --detach "$base" iolat-base >&2 || return 1
	fi
	git -C "$base" checkout -q --detach iolat-base >&2 || return 1
	echo "$base"
}

# kver_obj KVER [VARIANT]: the object directory (O=) of KVER's kernel,
# built with guest/VARIANT.config when VARIANT is given.
kver_obj() {
	echo "$BUILD/kbuild$(kver_tag "$1")${2:+-$2}"
}

# kver_make KVER [VARIANT]: the make command that builds that kernel.
kver_make() {
	local kv=
	[ "$1" = "$KVER_DEFAULT" ] || kv=" KVER=$1"
	echo "make kernel${2:+-$2}$kv"
}
