# CO-RE: the tools were compiled against the normal kernel's BTF.  On the
# debug kernel (lockdep grows spinlock_t) the structs they read have other
# sizes and offsets; 02-top and 03-snoop passing there is the proof, and
# this test makes sure the layouts really differ.
. "$IOLAT_REPO/tests/lib.sh"
need_tools

# IOLAT_KERNEL_VARIANT is debug on every version's debug kernel
# (6.12-debug:tools too); older runners set only IOLAT_VARIANT.
[ "${IOLAT_KERNEL_VARIANT:-${IOLAT_VARIANT:-}}" = debug ] ||
	skip "layouts only differ on the debug kernel (debug:tools)"
built=$IOLAT_REPO/build/kbuild/vmlinux
[ -r "$built" ] || fail "no $built: the BTF the tools were built against"
size() { bpftool btf dump file "$1" format raw | grep -o "STRUCT '$2' size=[0-9]*" | head -1 | cut -d= -f2; }
for s in blkcg_gq blkcg cgroup; do
	a=$(size "$built" $s)
	b=$(size /sys/kernel/btf/vmlinux $s)
	note "struct $s: $a bytes when built, $b bytes here"
	[ -n "$a" ] && [ -n "$b" ] || fail "struct $s not in BTF"
	[ "$a" != "$b" ] || fail "struct $s has the same size on both kernels: no CO-RE proof"
done
