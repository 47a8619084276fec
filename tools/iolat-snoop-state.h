/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-snoop without the events: the changes between two samples of
 * io.latency's state (tools/iolat-state.h), as records of what happened
 * somewhere in between.  A change that came and went between the two
 * samples is not seen; several are seen as one, their sum.  No BPF here,
 * so that the host test (tests/host/12-snoop) feeds it samples.
 */
#ifndef __IOLAT_SNOOP_STATE_H
#define __IOLAT_SNOOP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iolat.h"

/* What changed: the event whose record it stands for (enum iolat_ev_type). */
struct snoop_change {
	__u32 type;		/* IOLAT_EV_COOKIE, _GRP_CLEAR, _DEPTH, _USE_DELAY, _TARGET */
	__u32 dev;
	__u64 cgroup_id;
	__s64 old, new;		/* the cookie, depth, use_delay or target_ns */
	/*
	 * COOKIE, GRP_CLEAR: the culprit (0: none, or one the walk could
	 * not tell: stale or unknown, iolat_state_resolve()), whether the
	 * sample names one at all, its target.
	 */
	__u64 culprit_id;
	bool named;
	__u64 scale_lat_ns;
	__u32 cookie;		/* DEPTH: the group's; GRP_CLEAR: the children's */
	__u64 delay_ns;		/* USE_DELAY: induced delay pending */
	__u64 win_ns;		/* TARGET: the window now */
};

/* The previous sample, kept sorted by device and cgroup id. */
struct snoop_state {
	struct iolat_state *v;
	size_t n, cap;
	bool have;		/* a sample was taken: the next one is compared */
};

/*
 * Compare @cur[@n] (a walk's records, iolat_state_sample()) with the
 * sample before it, calling @emit for each change, in @cur's order (a
 * parent before its children); then keep @cur as the one to compare the
 * next with.  The first sample gives no change; a group in only one of
 * the two gives none.  The number of changes, or -ENOMEM.
 */
int snoop_state_diff(struct snoop_state *st, const struct iolat_state *cur, size_t n,
		     void (*emit)(void *arg, const struct snoop_change *c), void *arg);
void snoop_state_free(struct snoop_state *st);

#endif /* __IOLAT_SNOOP_STATE_H */
