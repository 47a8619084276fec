/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io.latency's own state on a kernel without the iolatency events: the
 * cgroup iterator of bpf/iolat-state.bpf.c, which reads every group's
 * struct iolatency_grp through the kernel's BTF, loaded and attached to
 * the cgroup2 mount, run once a sample.  A sample is three system calls
 * whatever the number of groups (bpf_iter_create(), one read() of its
 * end record, close()); the records come through an array mapped once.
 *
 * What it gives is a sample: a state that came and went between two
 * samples is not in it, and nothing in it is an event.
 */
#ifndef __IOLAT_STATE_H
#define __IOLAT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iolat.h"

struct btf;
struct iolat_state_reader;

/* The kernel's addresses the walk needs, from /proc/kallsyms. */
struct iolat_state_syms {
	__u64 policy;			/* blkcg_policy_iolatency */
	__u64 policy_table;		/* blkcg_policy[] */
};

/*
 * Whether the kernel whose BTF is @btf (NULL: it has none) and whose
 * symbols iolat_kallsyms_set()'s file lists can be read: 0 and @syms
 * filled, or -errno and why in @why: no BTF, io.latency not built (no
 * struct iolatency_grp in the BTF and no blkcg_policy_iolatency in
 * kallsyms), one without the other, kallsyms unreadable, hiding
 * addresses or without data symbols, no cgroup iterator.
 */
int iolat_state_check(const struct btf *btf, struct iolat_state_syms *syms,
		      char *why, size_t len);

/*
 * Check the running kernel, load the iterator and attach it to the
 * cgroup2 mount (iolat_cgroup_root()), keeping only @dev's groups (0:
 * every device), then walk once to see that the policy is registered
 * and its structs readable.  NULL when it cannot, and why in @why;
 * libbpf's own messages only with -v.
 */
struct iolat_state_reader *iolat_state_open(__u32 dev, char *why, size_t len);

/*
 * The tools' start: unless @off (their --no-state), a buffer for a walk's
 * IOLAT_STATE_MAX records in *@buf and the reader, iolat_state_open()'s;
 * NULL (and *@buf NULL) when not, why in @why: "off (--no-state)", the
 * allocation's error, or iolat_state_open()'s reason.
 */
struct iolat_state_reader *iolat_state_start(bool off, __u32 dev, struct iolat_state **buf,
					     char *why, size_t len);

/* What one sample gave besides the records. */
struct iolat_state_walk {
	size_t count;			/* records in the caller's buffer */
	/*
	 * Groups left out: the walk's array full, a cgroup with more
	 * blkgs than IOLAT_STATE_BLKGS, a list or group freed while the
	 * walk was on it, or no room left in the caller's buffer.
	 */
	size_t dropped;
	__u64 now_ns;			/* the walk's end, bpf_ktime_get_ns() */
	__s32 plid;			/* blkcg_policy_iolatency.plid */
};

/*
 * One walk: its records into @buf (at most @cap, in walk order: a
 * parent before its children), each parent's culprit told (see
 * iolat_state_resolve()), and @walk.  0, or -errno when there is no
 * sample this time: -EPROTO for a short or foreign end record, -ENODEV
 * when the walk found the policy not registered or a struct it cannot
 * read (what iolat_state_open()'s first walk refuses with the reason,
 * so not seen after it on the same kernel), or what bpf_iter_create()
 * or read() said.
 */
int iolat_state_sample(struct iolat_state_reader *r, struct iolat_state *buf, size_t cap,
		       struct iolat_state_walk *walk);

void iolat_state_close(struct iolat_state_reader *r);

/*
 * How often the tools sample the state between their own instants
 * (--sample-ms): IOLAT_STATE_SAMPLE_MS at most by default, and a change
 * that comes and goes within a period is not seen.  The cookie moves at
 * most once a window (100 ms on a fast disk) and a group's depth once a
 * window of its own.  A walk costs about 0.4 ms of CPU per 100 groups
 * under TCG (5% of one CPU at 1,000 groups and 40% at 10,000 every
 * 100 ms, 0.9% and 4.5% every second, 2026-12-07), and holds the cgroup
 * mutex while it runs: the period stretches so that the walk's CPU time
 * is at most 1/IOLAT_STATE_DUTY of it (iolat-snoop at 1,000 groups under
 * TCG, 2026-12-08: 1.27% of one CPU at 1/100, 2.42% at 1/50).  CPU time,
 * not the walk's length: a walk that waited for the mutex (another
 * walker, a cgroup made or removed) cost nothing more, and a hundred
 * times that wait made the next sample seconds late.
 */
#define IOLAT_STATE_SAMPLE_MS 100
#define IOLAT_STATE_SAMPLE_MS_MIN 10
#define IOLAT_STATE_SAMPLE_MS_MAX 10000
#define IOLAT_STATE_DUTY 100

/*
 * iolat_state_sample(), and in *@next when the next sample is due
 * (iolat_mono()'s clock), whether this walk worked or not: @sample_ms
 * after this one began, or later where the walk's CPU time was more than
 * 1/IOLAT_STATE_DUTY of that.
 */
int iolat_state_sample_paced(struct iolat_state_reader *r, struct iolat_state *buf,
			     size_t cap, struct iolat_state_walk *walk, int sample_ms,
			     double *next);

/* --sample-ms's @arg: milliseconds, or -1 (TOOL: and why on stderr). */
int iolat_state_parse_ms(const char *tool, const char *arg);

/*
 * The first min(@n, @cap) of the walk's @n records into @out, each
 * parent's culprit told from all @n: where a group names one
 * (IOLAT_STATE_CULPRIT), its cgroup id in children.culprit_id when a
 * live (IOLAT_STATE_ONLINE) group of the walk on the same device, whose
 * parent it is, has that struct iolatency_grp address; otherwise
 * IOLAT_STATE_CULPRIT_STALE, or, when the walk dropped groups
 * (@dropped), IOLAT_STATE_CULPRIT_UNKNOWN.  The address is compared,
 * never followed.  0, or -ENOMEM.
 */
int iolat_state_resolve(const struct iolat_state_rec *recs, size_t n, size_t dropped,
			struct iolat_state *out, size_t cap);

#endif /* __IOLAT_STATE_H */
