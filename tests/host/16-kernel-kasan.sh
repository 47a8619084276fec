# tests/lib.sh's kernel_kasan, which tests use to run fewer rounds on the
# debug kernel, on fake /proc files: KASAN from the kernel's config
# whatever the command line says; without a config, from KASAN's debugfs
# directory or kasan_multi_shot on the command line; none of them: not.
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d /tmp/iolat-kasan.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf 'CONFIG_KASAN=y\nCONFIG_KASAN_GENERIC=y\n' | gzip >"$tmp/debug.gz"
printf '# CONFIG_KASAN is not set\nCONFIG_KASAN_SHADOW_OFFSET=0\n' | gzip >"$tmp/normal.gz"
echo 'console=ttyS0 root=/dev/root kasan_multi_shot' >"$tmp/cmdline-debug"
echo 'console=ttyS0 root=/dev/root' >"$tmp/cmdline"
mkdir "$tmp/kasan"

# is WANT CONFIG CMDLINE DEBUGFS: kernel_kasan with these files says WANT.
is() {
	local got=no
	KERNEL_CONFIG=$2 KERNEL_CMDLINE=$3 KASAN_DEBUGFS=$4 IOLAT_GUEST=1 IOLAT_REPO=$REPO \
		bash -c '. "$IOLAT_REPO/tests/lib.sh"; kernel_kasan' && got=yes
	[ "$got" = "$1" ] || fail "kernel_kasan with config $2, cmdline $3, debugfs $4: $got, want $1"
	note "config ${2##*/}, cmdline ${3##*/}, debugfs ${4##*/}: $got"
}
is yes "$tmp/debug.gz" "$tmp/cmdline" "$tmp/none"
is no "$tmp/normal.gz" "$tmp/cmdline-debug" "$tmp/kasan"
is yes "$tmp/none.gz" "$tmp/cmdline" "$tmp/kasan"
is yes "$tmp/none.gz" "$tmp/cmdline-debug" "$tmp/none"
is no "$tmp/none.gz" "$tmp/cmdline" "$tmp/none"
# The real debug and normal configs, where built.
for v in kbuild-debug:yes kbuild:no; do
	cfg=$BUILD/${v%%:*}/.config
	[ -f "$cfg" ] || { note "no $cfg"; continue; }
	gzip -c "$cfg" >"$tmp/real.gz"
	is "${v#*:}" "$tmp/real.gz" "$tmp/cmdline" "$tmp/none"
done
