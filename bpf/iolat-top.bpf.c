// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-top: fold io.latency's per-window decisions into per-(device,
 * cgroup) counters that the front-end reads once an interval.  The events
 * fire per window or per throttling decision, not per IO, except
 * iolatency_throttle, which only throttled bios hit.
 */
#include "iolat.bpf.h"

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

static __always_inline struct iolat_group *group_of(struct blkcg_gq *blkg)
{
	struct iolat_key key = blkg_key(blkg);

	return dev_filtered(&key) ? NULL :
		lookup_or_init(&groups, &key, &zero_group);
}

static __always_inline struct iolat_parent *parent_of(struct blkcg_gq *blkg)
{
	struct iolat_key key = blkg_key(blkg);

	return dev_filtered(&key) ? NULL :
		lookup_or_init(&parents, &key, &zero_parent);
}

SEC("tp_btf/iolatency_window")
int BPF_PROG(on_window, struct blkcg_gq *blkg, const char *path, bool ssd,
	     u64 target_ns, u64 win_ns, u64 nr_samples, u64 mean_ns,
	     u64 nr_missed, bool met, int action, u32 cookie)
{
	struct iolat_group *g = group_of(blkg);

	if (!g)
		return 0;
	g->windows++;
	if (!met)
		g->windows_missed++;
	if (action == IOLAT_ACT_DOWN)
		g->scale_downs_caused++;
	g->last_window_ns = bpf_ktime_get_ns();
	g->last_samples = nr_samples;
	g->last_mean_ns = mean_ns;
	g->last_missed = nr_missed;
	g->target_ns = target_ns;
	g->win_ns = win_ns;
	g->cookie = cookie;
	g->ssd = ssd;
	g->last_met = met;
	g->last_action = action;
	g->has_window = 1;
	return 0;
}

SEC("tp_btf/iolatency_target")
int BPF_PROG(on_target, struct blkcg_gq *blkg, const char *path, u64 old_ns,
	     u64 new_ns, u64 win_ns)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		g->target_ns = new_ns;
		g->win_ns = win_ns;
		g->has_target = 1;
	}
	return 0;
}

/*
 * Bumped whenever a cgroup is created, removed or renamed, so that the
 * front-end walks the cgroup tree only when it changed.
 */
__u64 cgroup_gen = 0;

SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(on_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	__sync_fetch_and_add(&cgroup_gen, 1);
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(on_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	__sync_fetch_and_add(&cgroup_gen, 1);
	return 0;
}

SEC("tp_btf/cgroup_rename")
int BPF_PROG(on_cgroup_rename, struct cgroup *cgrp, const char *path)
{
	__sync_fetch_and_add(&cgroup_gen, 1);
	return 0;
}

SEC("tp_btf/iolatency_scale_cookie")
int BPF_PROG(on_scale_cookie, struct blkcg_gq *blkg, const char *path,
	     const char *culprit, u32 old, u32 new, bool up, u32 step,
	     u64 scale_lat_ns, bool timer)
{
	struct iolat_parent *p = parent_of(blkg);

	if (!p)
		return 0;
	if (up)
		p->scale_ups++;
	else
		p->scale_downs++;
	if (timer)
		p->timer_ups++;
	p->cookie = new;
	p->scale_lat_ns = scale_lat_ns;
	bpf_probe_read_kernel_str(p->culprit, sizeof(p->culprit), culprit);
	return 0;
}

SEC("tp_btf/iolatency_scale_grp_clear")
int BPF_PROG(on_scale_grp_clear, struct blkcg_gq *blkg, const char *path,
	     const char *culprit, u64 idle_ns, u32 cookie)
{
	struct iolat_parent *p = parent_of(blkg);

	if (p) {
		p->grp_clears++;
		p->culprit[0] = '\0';
		p->cookie = cookie;
	}
	return 0;
}

SEC("tp_btf/iolatency_depth")
int BPF_PROG(on_depth, struct blkcg_gq *blkg, const char *path, u32 old,
	     u32 new, u32 cookie, u32 nr_requests)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		g->depth = new;
		g->cookie = cookie;
		g->nr_requests = nr_requests;
		g->has_depth = 1;
	}
	return 0;
}

SEC("tp_btf/iolatency_throttle")
int BPF_PROG(on_throttle, struct blkcg_gq *blkg, const char *path, u32 depth,
	     u32 inflight, u64 wait_ns)
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
int BPF_PROG(on_delay_charge, struct blkcg_gq *blkg, const char *path,
	     u64 req_ns, u64 charge_ns, u64 delay_ns)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		__sync_fetch_and_add(&g->charged_ns, charge_ns);
		__sync_fetch_and_add(&g->charges, 1);
		g->delay_ns = delay_ns;
	}
	return 0;
}

SEC("tp_btf/iolatency_delay_pay")
int BPF_PROG(on_delay_pay, struct blkcg_gq *blkg, const char *path,
	     u64 delay_ns, u64 sleep_ns, u64 slept_ns, bool capped,
	     bool memdelay)
{
	struct iolat_group *g = group_of(blkg);

	if (g) {
		__sync_fetch_and_add(&g->paid_ns, slept_ns);
		__sync_fetch_and_add(&g->pays, 1);
		if (capped)
			__sync_fetch_and_add(&g->capped, 1);
	}
	return 0;
}
