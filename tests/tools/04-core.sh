# CO-RE: the tools were compiled against the normal 6.1 kernel's BTF
# (build/kbuild).  On the debug kernel (lockdep grows spinlock_t) and on
# 6.12 (fields moved, added and reordered) the structs they read have
# other sizes and offsets; 02-top and 03-snoop passing there is the
# proof, and this test makes sure the layouts really differ.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

# IOLAT_KERNEL_VARIANT is debug on every version's debug kernel, and
# IOLAT_KVER the version (older runners set only IOLAT_VARIANT).
if [ "${IOLAT_KERNEL_VARIANT:-${IOLAT_VARIANT:-}}" != debug ] &&
	[ "${IOLAT_KVER:-6.1}" = 6.1 ]; then
	skip "the kernel the tools were built against: layouts differ on debug: and 6.12:"
fi
built=$IOLAT_REPO/build/kbuild/vmlinux
[ -r "$built" ] || fail "no $built: the BTF the tools were built against"
# offset FILE STRUCT FIELD: FIELD's byte offset in the first STRUCT of
# FILE's BTF.
offset() {
	bpftool btf dump file "$1" format raw | awk -v s="STRUCT '$2' size=" -v f="'$3'" '
		index($0, s) { on = 1; next }
		on && /^\[/ { exit }
		on && $1 == f { sub(/.*bits_offset=/, ""); print $1 / 8; exit }'
}
# Fields the programs read (bpf/iolat.bpf.h; README's core-reads table):
# at least one must sit elsewhere here than in the BTF the tools were
# built with, else passing here proves nothing about relocation.
moved=0
for sf in "kernfs_node id" "cgroup kn" "cgroup root" "request_queue disk" \
	"blkcg_gq q" "blkcg_gq blkcg"; do
	set -- $sf
	a=$(offset "$built" "$1" "$2")
	b=$(offset /sys/kernel/btf/vmlinux "$1" "$2")
	[ -n "$a" ] && [ -n "$b" ] || fail "$1.$2 not in BTF (built: '$a', here: '$b')"
	note "$1.$2: at $a when built, at $b here"
	[ "$a" = "$b" ] || moved=$((moved + 1))
done
[ "$moved" -gt 0 ] || fail "every field the tools read is where it was when built: no CO-RE proof"
note "$moved of 6 fields the tools read moved"
