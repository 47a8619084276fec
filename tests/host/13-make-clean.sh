# make clean removes the tools' build, and nothing the kernel builds
# (build/kbuild*, build/linux*: an hour each), wherever BUILD points,
# an absolute path or one relative to the top directory.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || skip "no make"
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# fake_build DIR: a build directory with tools and a kernel tree.
fake_build() {
	mkdir -p "$1/tools" "$1/kbuild" "$1/linux"
	touch "$1/tools/iolat-top" "$1/kbuild/vmlinux" "$1/linux/Makefile"
}

for how in absolute relative; do
	b=$tmp/$how
	fake_build "$b"
	arg=$b
	[ $how = relative ] && arg=$(realpath --relative-to="$REPO" "$b")
	out=$(make -C "$REPO" clean BUILD="$arg" 2>&1) || fail "make clean BUILD=$arg failed: $out"
	[ ! -e "$b/tools" ] || fail "make clean BUILD=$arg ($how) left $b/tools: $(ls "$b/tools")"
	[ -e "$b/kbuild/vmlinux" ] && [ -e "$b/linux/Makefile" ] ||
		fail "make clean BUILD=$arg ($how) removed a kernel tree"
	[ ! -e "$REPO/tools/$arg" ] || fail "make clean BUILD=$arg ($how) looked under tools/"
	note "make clean BUILD=$arg ($how): tools gone, kbuild and linux kept"
done
