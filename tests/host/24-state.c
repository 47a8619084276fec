// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the state reader's front-end (tools/iolat-state.c), the
 * parts that need no kernel: what iolat_state_check() says of a kernel
 * from its BTF and a kallsyms file (the guest's 6.1 BTF, a BTF made here
 * without io.latency, none at all; kallsyms files written here), and how
 * iolat_state_resolve() tells a parent's culprit from the addresses of
 * a walk's records.  Nothing is loaded.  argv[1]: the 6.1 guest's
 * vmlinux; argv[2]: an empty directory for the kallsyms files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "check.h"
#include "iolat-common.h"
#include "iolat-state.h"

static const char *dir;

/* A kallsyms file of @text, used from now on. */
static void kallsyms(const char *name, const char *text)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
	iolat_kallsyms_set(path);
}

#define POLICY	"ffffffff8250a0e0 d blkcg_policy_iolatency\n"
#define TABLE	"ffffffff82848440 b blkcg_policy\n"
#define OTHER	"ffffffff81000000 T _stext\nffffffff828482e0 B blkcg_root\n"

/* iolat_state_check() of @btf gives @want (0 or -errno) and @pat in why. */
static void expect_check(const struct btf *btf, int want, const char *pat, const char *what)
{
	struct iolat_state_syms syms = {};
	char why[512];
	int err;

	err = iolat_state_check(btf, &syms, why, sizeof(why));
	check(err == want && strstr(why, pat), "%s: %d \"%s\" (want %d, /%s/)", what, err,
	      why, want, pat);
}

static void test_check(const char *vmlinux)
{
	struct iolat_state_syms syms = {};
	struct btf *btf, *bare;
	char why[512];
	int err;

	btf = btf__parse(vmlinux, NULL);
	if (!btf) {
		fprintf(stderr, "cannot read the BTF of %s: %s\n", vmlinux, strerror(errno));
		exit(2);
	}
	/* The guest's kernel as its kallsyms lists it. */
	kallsyms("ok", OTHER POLICY TABLE);
	err = iolat_state_check(btf, &syms, why, sizeof(why));
	check(!err && !why[0] && syms.policy == 0xffffffff8250a0e0ULL &&
	      syms.policy_table == 0xffffffff82848440ULL,
	      "6.1 BTF and both symbols: %d \"%s\", 0x%llx 0x%llx", err, why,
	      (unsigned long long)syms.policy, (unsigned long long)syms.policy_table);
	/* A module's symbol of the same name is not vmlinux's. */
	kallsyms("module", OTHER POLICY TABLE
		 "ffffffffc0001000 d blkcg_policy_iolatency\t[fake]\n");
	err = iolat_state_check(btf, &syms, why, sizeof(why));
	check(!err && syms.policy == 0xffffffff8250a0e0ULL,
	      "a module's blkcg_policy_iolatency is not taken: %d 0x%llx", err,
	      (unsigned long long)syms.policy);

	expect_check(NULL, -ENOENT, "the kernel has no BTF", "no BTF");
	kallsyms("no-data", "ffffffff81000000 T _stext\n");
	expect_check(btf, -ENOENT, "lists no data symbols (CONFIG_KALLSYMS_ALL off)",
		     "kallsyms without data symbols");
	kallsyms("no-table", OTHER POLICY);
	expect_check(btf, -ENOENT, "blkcg_policy is not in", "blkcg_policy[] missing");
	kallsyms("no-policy", OTHER TABLE);
	expect_check(btf, -ENOENT, "blkcg_policy_iolatency is not in",
		     "blkcg_policy_iolatency missing");
	/* A function of that name is not the policy. */
	kallsyms("text", OTHER TABLE "ffffffff8250a0e0 t blkcg_policy_iolatency\n");
	expect_check(btf, -ENOENT, "blkcg_policy_iolatency is not in",
		     "blkcg_policy_iolatency as text");
	kallsyms("hidden", "0000000000000000 T _stext\n0000000000000000 d "
		 "blkcg_policy_iolatency\n0000000000000000 b blkcg_policy\n");
	expect_check(btf, -EPERM, "hides kernel addresses", "addresses hidden");
	kallsyms("twice", OTHER POLICY TABLE "ffffffff8250b000 d blkcg_policy_iolatency\n");
	expect_check(btf, -ENOENT, "more than once", "two blkcg_policy_iolatency");
	iolat_kallsyms_set("/nonexistent/kallsyms");
	expect_check(btf, -ENOENT, "cannot read /nonexistent/kallsyms", "kallsyms unreadable");

	/* A kernel without io.latency: a BTF with the iterator and nothing of it. */
	bare = btf__new_empty();
	if (!bare || btf__add_struct(bare, "bpf_iter__cgroup", 0) < 0) {
		fprintf(stderr, "cannot make a BTF\n");
		exit(2);
	}
	kallsyms("bare", OTHER TABLE);
	expect_check(bare, -ENOENT, "io.latency is not built in this kernel "
		     "(CONFIG_BLK_CGROUP_IOLATENCY)", "io.latency not built");
	kallsyms("bare-sym", OTHER POLICY TABLE);
	expect_check(bare, -ENOENT, "no struct iolatency_grp in the kernel's BTF, though "
		     "io.latency is built", "iolatency_grp not in the BTF");
	iolat_kallsyms_set(NULL);
	btf__free(bare);
	btf__free(btf);
}

/* A record of a walk: group @grp of @cgroup under @parent on @dev. */
static struct iolat_state_rec rec(__u64 cgroup, __u64 parent, __u32 dev, __u64 grp,
				  __u64 scale_grp, bool online)
{
	struct iolat_state_rec r = {
		.s = { .cgroup_id = cgroup, .parent_id = parent, .dev = dev,
		       .flags = (online ? IOLAT_STATE_ONLINE : 0) |
				(scale_grp ? IOLAT_STATE_CULPRIT : 0) },
		.grp = grp,
		.scale_grp = scale_grp,
	};

	return r;
}

#define CULPRIT_FLAGS (IOLAT_STATE_CULPRIT | IOLAT_STATE_CULPRIT_STALE | \
		       IOLAT_STATE_CULPRIT_UNKNOWN)

static void expect_culprit(const struct iolat_state *s, __u64 id, __u32 flags, const char *what)
{
	check(s->children.culprit_id == id && (s->flags & CULPRIT_FLAGS) == flags,
	      "%s: cgroup %llu culprit %llu flags 0x%x (want %llu, 0x%x)", what,
	      (unsigned long long)s->cgroup_id, (unsigned long long)s->children.culprit_id,
	      s->flags & CULPRIT_FLAGS, (unsigned long long)id, flags);
}

#define DEV_A 0x10000000	/* 256:0 */
#define DEV_B 0x10000010	/* 256:16 */

static void test_resolve(void)
{
	/*
	 * Walk order: a parent before its children.  Addresses are the
	 * groups' struct iolatency_grp; 0xd00 is freed memory no group of
	 * the walk has.
	 */
	const struct iolat_state_rec recs[] = {
		/* 0: the root on A: its culprit is 10, a live child on A */
		rec(1, 0, DEV_A, 0x100, 0xa00, true),
		/* 1: the root on B names 10's group on A: another device */
		rec(1, 0, DEV_B, 0x110, 0xa00, true),
		/* 2: 10 on A names 30's group, which is 20's child, not 10's */
		rec(10, 1, DEV_A, 0xa00, 0xc00, true),
		/* 3: 20 on A names its child 21, which went offline */
		rec(20, 1, DEV_A, 0xb00, 0xb10, true),
		rec(21, 20, DEV_A, 0xb10, 0, false),
		/* 5: 22 on A names freed memory */
		rec(22, 1, DEV_A, 0xb20, 0xd00, true),
		rec(30, 20, DEV_A, 0xc00, 0, true),
		/* 7: 40 names its child 41, after a group at 41's address elsewhere */
		rec(40, 1, DEV_A, 0xe00, 0xe10, true),
		rec(99, 1, DEV_B, 0xe10, 0, true),
		rec(41, 40, DEV_A, 0xe10, 0, true),
		/* 10: no culprit */
		rec(50, 1, DEV_A, 0xf00, 0, true),
	};
	size_t n = sizeof(recs) / sizeof(recs[0]);
	struct iolat_state out[sizeof(recs) / sizeof(recs[0])];
	const __u32 culprit = IOLAT_STATE_CULPRIT;
	const __u32 stale = IOLAT_STATE_CULPRIT | IOLAT_STATE_CULPRIT_STALE;
	const __u32 unknown = IOLAT_STATE_CULPRIT | IOLAT_STATE_CULPRIT_UNKNOWN;
	struct iolat_state_rec big[3];
	struct iolat_state one[1];

	memset(out, 0xff, sizeof(out));
	check(!iolat_state_resolve(recs, n, 0, out, n), "resolve: a walk of %zu records", n);
	expect_culprit(&out[0], 10, culprit, "a live child on the device");
	expect_culprit(&out[1], 0, stale, "the group's address on another device");
	expect_culprit(&out[2], 0, stale, "the group's address under another parent");
	expect_culprit(&out[3], 0, stale, "an offline child");
	expect_culprit(&out[5], 0, stale, "freed memory");
	expect_culprit(&out[7], 41, culprit, "a second group at the address, the right one");
	expect_culprit(&out[10], 0, 0, "no culprit named");
	check(out[4].cgroup_id == 21 && !(out[4].flags & IOLAT_STATE_ONLINE) &&
	      out[9].cgroup_id == 41 && out[9].parent_id == 40,
	      "the other fields are copied: %llu 0x%x, %llu under %llu",
	      (unsigned long long)out[4].cgroup_id, out[4].flags,
	      (unsigned long long)out[9].cgroup_id, (unsigned long long)out[9].parent_id);

	/* A walk that dropped groups cannot call a culprit it did not find stale. */
	check(!iolat_state_resolve(recs, n, 3, out, n), "resolve: a walk that dropped 3");
	expect_culprit(&out[0], 10, culprit, "dropped: a culprit found is still found");
	expect_culprit(&out[5], 0, unknown, "dropped: not found is unknown, not stale");

	/* The caller's buffer holds one: the culprit past it is still told. */
	big[0] = rec(1, 0, DEV_A, 0x100, 0x300, true);
	big[1] = rec(2, 1, DEV_A, 0x200, 0, true);
	big[2] = rec(3, 1, DEV_A, 0x300, 0, true);
	check(!iolat_state_resolve(big, 3, 0, one, 1), "resolve: 3 records into 1");
	expect_culprit(&one[0], 3, culprit, "a culprit past the caller's buffer");

	/* Flags a walk could not have set are the front-end's to set, not to pass on. */
	big[0].s.flags |= IOLAT_STATE_CULPRIT_STALE | IOLAT_STATE_CULPRIT_UNKNOWN;
	big[0].s.children.culprit_id = 77;
	check(!iolat_state_resolve(big, 3, 0, one, 1), "resolve: again");
	expect_culprit(&one[0], 3, culprit, "verdict flags and id from the array ignored");

	check(!iolat_state_resolve(recs, 0, 0, out, n), "resolve: an empty walk");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s VMLINUX DIR\n", argv[0]);
		return 2;
	}
	dir = argv[2];
	test_check(argv[1]);
	test_resolve();
	return check_done();
}
