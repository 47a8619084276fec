// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-top: fold io.latency's per-window decisions into per-(device,
 * cgroup) counters that the front-end reads once an interval.  The maps'
 * max_entries is the front-end's, set before load from the tree it
 * finds (top_map_entries()); IOLAT_MAX_GROUPS is the least.  The events
 * fire per window or per throttling decision, not per IO, except
 * iolatency_throttle (bios that slept for a slot) and the delay charges and
 * pays: those programs only add to counters, and no program reads a path.
 */
#include "iolat.bpf.h"
#include "iolat-cgroup-changes.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLAT_MAX_GROUPS);
	__type(key, struct iolat_key);
	__type(value, struct iolat_group);
} groups SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLAT_MAX_GROUPS);
	__type(key, struct iolat_key);
	__type(value, struct iolat_parent);
} parents SEC(".maps");

static struct iolat_group zero_group = { .depth = IOLAT_DEPTH_MAX };
static struct iolat_parent zero_parent;

/* Events dropped because the map had no room for their pair's entry. */
__u64 groups_full = 0;
__u64 parents_full = 0;

static __always_inline struct iolat_group *group_of(struct blkcg_gq *blkg)
{
	struct iolat_key key = blkg_key(blkg);

	return dev_filtered(&key) ? NULL :
		lookup_or_init(&groups, &key, &zero_group, &groups_full);
}

static __always_inline struct iolat_parent *parent_of(struct blkcg_gq *blkg)
{
	struct iolat_key key = blkg_key(blkg);

	return dev_filtered(&key) ? NULL :
		lookup_or_init(&parents, &key, &zero_parent, &parents_full);
}

SEC("tp_btf/iolatency_window")
int BPF_PROG(on_window, struct blkcg_gq *blkg, const char *path,
	     const struct iolatency_window_info *info)
{
	struct iolat_group *g = group_of(blkg);
	int action = info->action;
	bool met = info->met;

	if (!g)
		return 0;
	g->windows++;
	if (!met && action != IOLAT_ACT_OFFLINE)
		g->windows_missed++;
	if (action == IOLAT_ACT_DOWN)
		g->scale_downs_caused++;
	g->last_window_ns = bpf_ktime_get_ns();
	g->last_samples = info->nr_samples;
	g->last_mean_ns = info->mean_ns;
	g->last_missed = info->nr_missed;
	g->acc_samples = info->acc_samples;
	g->acc_mean_ns = info->acc_mean_ns;
	g->acc_missed = info->acc_missed;
	g->target_ns = info->target_ns;
	g->win_ns = info->win_ns;
	g->cookie = info->cookie;
	g->ssd = info->ssd;
	g->last_met = met;
	g->last_win_met = info->win_met;
	g->last_action = action;
	g->has_window = 1;
	return 0;
}

SEC("tp_btf/iolatency_target")
int BPF_PROG(on_target, struct blkcg_gq *blkg, const char *path, u64 old_ns,
	     u64 new_ns, u64 win_ns, int by)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		g->target_ns = new_ns;
		g->win_ns = win_ns;
		g->has_target = 1;
	}
	return 0;
}

SEC("tp_btf/iolatency_scale_cookie")
int BPF_PROG(on_scale_cookie, struct blkcg_gq *blkg, const char *path,
	     u64 culprit_id, u64 scale_lat_ns, u64 idle_ns, u32 old, u32 new,
	     int by)
{
	struct iolat_parent *p = parent_of(blkg);

	if (!p)
		return 0;
	if (new > old)
		p->scale_ups++;
	else
		p->scale_downs++;
	if (by == IOLAT_BY_TIMER)
		p->timer_ups++;
	p->last_scale = new > old ? IOLAT_SCALE_UP : IOLAT_SCALE_DOWN;
	p->last_by = by;
	p->has_scale = 1;
	p->cookie = new;
	p->scale_lat_ns = scale_lat_ns;
	p->culprit_id = culprit_id;
	return 0;
}

SEC("tp_btf/iolatency_scale_grp_clear")
int BPF_PROG(on_scale_grp_clear, struct blkcg_gq *blkg, const char *path,
	     u64 culprit_id, u64 scale_lat_ns, u64 idle_ns, u32 old, u32 new,
	     int by)
{
	struct iolat_parent *p = parent_of(blkg);

	if (p) {
		p->grp_clears++;
		p->culprit_id = 0;
		p->cookie = new;
		p->last_scale = IOLAT_SCALE_FORGET;
		p->last_by = by;
		p->has_scale = 1;
	}
	return 0;
}

SEC("tp_btf/iolatency_scale_reset")
int BPF_PROG(on_scale_reset, struct blkcg_gq *blkg, const char *path,
	     u64 culprit_id, u64 scale_lat_ns, u64 idle_ns, u32 old, u32 new,
	     int by)
{
	struct iolat_parent *p = parent_of(blkg);

	if (p) {
		p->resets++;
		p->culprit_id = 0;
		p->scale_lat_ns = 0;
		p->cookie = new;
		p->last_scale = IOLAT_SCALE_RESET;
		p->last_by = by;
		p->has_scale = 1;
	}
	return 0;
}

SEC("tp_btf/iolatency_scale_skip")
int BPF_PROG(on_scale_skip, struct blkcg_gq *blkg, const char *path, u32 old,
	     u32 new, int reason, u64 target_ns, u64 scale_lat_ns,
	     u64 nr_samples, u64 thresh)
{
	struct iolat_group *g = group_of(blkg);

	if (!g)
		return 0;
	/* Constant indexes: nothing for the verifier to bound. */
	switch (reason) {
	case IOLAT_REASON_RACED:
		__sync_fetch_and_add(&g->skips[IOLAT_REASON_RACED], 1);
		break;
	case IOLAT_REASON_PROTECTED:
		__sync_fetch_and_add(&g->skips[IOLAT_REASON_PROTECTED], 1);
		break;
	case IOLAT_REASON_FEW_IOS:
		__sync_fetch_and_add(&g->skips[IOLAT_REASON_FEW_IOS], 1);
		break;
	}
	return 0;
}

/*
 * The front-end's refresh count: it bumps this before it reads the maps,
 * so that depth events after that go into the next interval's slot.
 */
__u32 depth_epoch = 0;
/* When the front-end started (bpf_ktime_get_ns()'s clock), set before loading. */
const volatile __u64 start_ns = 0;

/*
 * Per decision, never per IO: the lowest depth of the interval and the
 * time spent limited are kept here, where every change is seen, because
 * a refresh sees only the depth at its own instant.
 */
SEC("tp_btf/iolatency_depth")
int BPF_PROG(on_depth, struct blkcg_gq *blkg, const char *path, u32 old,
	     u32 new, u32 cookie, u32 nr_requests)
{
	struct iolat_group *g = group_of(blkg);
	struct iolat_depth_slot *slot;
	__u32 epoch = depth_epoch;
	__u64 now = bpf_ktime_get_ns();

	if (!g)
		return 0;
	slot = &g->depth_slot[epoch & 1];
	if (slot->epoch != epoch || !g->has_depth) {
		slot->epoch = epoch;
		slot->start = old;
		slot->min = old;
	}
	if (new < slot->min)
		slot->min = new;
	/*
	 * Limited before the first change we see: no change since we
	 * started, so it has been at @old since then at least.
	 */
	if (old != IOLAT_DEPTH_MAX && !g->limited_since_ns)
		g->limited_since_ns = g->has_depth || !start_ns ? now : start_ns;
	if (new == IOLAT_DEPTH_MAX && g->limited_since_ns) {
		if (now > g->limited_since_ns)
			g->limited_ns += now - g->limited_since_ns;
		g->limited_since_ns = 0;
	} else if (new != IOLAT_DEPTH_MAX && !g->limited_since_ns) {
		g->limited_since_ns = now;
	}
	g->depth = new;
	g->cookie = cookie;
	g->nr_requests = nr_requests;
	g->has_depth = 1;
	return 0;
}

SEC("tp_btf/iolatency_throttle")
int BPF_PROG(on_throttle, struct blkcg_gq *blkg, u32 depth, u32 inflight,
	     u64 wait_ns)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		__sync_fetch_and_add(&g->throttled, 1);
		__sync_fetch_and_add(&g->throttled_wait_ns, wait_ns);
	}
	return 0;
}

SEC("tp_btf/iolatency_use_delay")
int BPF_PROG(on_use_delay, struct blkcg_gq *blkg, const char *path, int old,
	     int new, u64 delay_ns)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		g->use_delay = new;
		g->delay_ns = delay_ns;
		g->has_use_delay = 1;
	}
	return 0;
}

SEC("tp_btf/iolatency_delay_charge")
int BPF_PROG(on_delay_charge, struct blkcg_gq *blkg, u64 lat_ns,
	     u64 charge_ns, u64 delay_ns)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		__sync_fetch_and_add(&g->charged_ns, charge_ns);
		__sync_fetch_and_add(&g->charges, 1);
		g->delay_ns = delay_ns;
	}
	return 0;
}

/* blk-cgroup's event: io.cost's sleeps (use_delay -1) are not io.latency's */
SEC("tp_btf/blkcg_delay_pay")
int BPF_PROG(on_delay_pay, struct blkcg_gq *blkg, u64 delay_ns,
	     u64 sleep_ns, u64 slept_ns, bool capped, bool memstall,
	     int use_delay)
{
	struct iolat_group *g;

	if (use_delay <= 0)
		return 0;
	g = group_of(blkg);
	if (g) {
		__sync_fetch_and_add(&g->paid_ns, slept_ns);
		__sync_fetch_and_add(&g->pays, 1);
		if (capped)
			__sync_fetch_and_add(&g->capped, 1);
	}
	return 0;
}
