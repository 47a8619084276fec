// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-snoop: one ring buffer record per io.latency decision.  Windows
 * that change nothing (action ok), bios that slept for a slot and delay
 * charges come in numbers, so they are only sent with -a (targ_all).
 * A record names its cgroup by id, which the front-end names as
 * iolat-top does: the path an event carries is not copied (nothing read
 * it, and each record was 256 bytes longer for it in the ring buffer).
 */
#include "iolat.bpf.h"
/* Cgroups created and removed: the front-end names new ones as iolat-top does. */
#include "iolat-cgroup-changes.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool targ_all = false;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Reserve the record of an event of @type about @dev and @cgroup_id. */
static __always_inline struct iolat_event *
event_reserve(__u32 dev, __u64 cgroup_id, __u32 type)
{
	struct iolat_event *e;

	if (targ_dev && dev != targ_dev)
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost(&lost.ringbuf);
		return NULL;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->cgroup_id = cgroup_id;
	e->dev = dev;
	e->type = type;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/* An event of @type about @blkg. */
static __always_inline struct iolat_event *event_start(struct blkcg_gq *blkg, __u32 type)
{
	struct iolat_key key = blkg_key(blkg);

	return event_reserve(key.dev, key.cgroup_id, type);
}

SEC("tp_btf/iolatency_window")
int BPF_PROG(on_window, struct blkcg_gq *blkg, const char *path,
	     const struct iolatency_window_info *info)
{
	struct iolat_event *e;
	int action = info->action;

	if (action == IOLAT_ACT_OK && !targ_all)
		return 0;
	e = event_start(blkg, IOLAT_EV_WINDOW);
	if (!e)
		return 0;
	e->window.target_ns = info->target_ns;
	e->window.win_ns = info->win_ns;
	e->window.samples = info->nr_samples;
	e->window.mean_ns = info->mean_ns;
	e->window.missed = info->nr_missed;
	e->window.acc_samples = info->acc_samples;
	e->window.acc_mean_ns = info->acc_mean_ns;
	e->window.acc_missed = info->acc_missed;
	e->window.scale_lat_ns = info->scale_lat_ns;
	e->window.cookie = info->cookie;
	e->window.action = action;
	e->window.ssd = info->ssd;
	e->window.win_met = info->win_met;
	e->window.met = info->met;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_target")
int BPF_PROG(on_target, struct blkcg_gq *blkg, const char *path, u64 old_ns,
	     u64 new_ns, u64 win_ns, int by)
{
	struct iolat_event *e = event_start(blkg, IOLAT_EV_TARGET);

	if (!e)
		return 0;
	e->target.old_ns = old_ns;
	e->target.new_ns = new_ns;
	e->target.win_ns = win_ns;
	e->target.by = by;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_enable")
int BPF_PROG(on_enable, struct gendisk *disk, bool old, bool new,
	     int nr_targets, u64 frozen_ns)
{
	struct iolat_event *e;

	e = event_reserve(disk_dev(disk), 0, IOLAT_EV_ENABLE);
	if (!e)
		return 0;
	e->enable.frozen_ns = frozen_ns;
	e->enable.nr_targets = nr_targets;
	e->enable.old = old;
	e->enable.new = new;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The three events of iolatency_scale_class. */
static __always_inline int scale_event(struct blkcg_gq *blkg, __u32 type, u64 culprit_id,
				       u64 scale_lat_ns, u64 idle_ns, u32 old,
				       u32 new, int by)
{
	struct iolat_event *e = event_start(blkg, type);

	if (!e)
		return 0;
	e->scale.culprit_id = culprit_id;
	e->scale.scale_lat_ns = scale_lat_ns;
	e->scale.idle_ns = idle_ns;
	e->scale.old = old;
	e->scale.new = new;
	e->scale.by = by;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_scale_cookie")
int BPF_PROG(on_scale_cookie, struct blkcg_gq *blkg, const char *path,
	     u64 culprit_id, u64 scale_lat_ns, u64 idle_ns, u32 old, u32 new,
	     int by)
{
	return scale_event(blkg, IOLAT_EV_COOKIE, culprit_id,
			   scale_lat_ns, idle_ns, old, new, by);
}

SEC("tp_btf/iolatency_scale_grp_clear")
int BPF_PROG(on_scale_grp_clear, struct blkcg_gq *blkg, const char *path,
	     u64 culprit_id, u64 scale_lat_ns, u64 idle_ns, u32 old, u32 new,
	     int by)
{
	return scale_event(blkg, IOLAT_EV_GRP_CLEAR, culprit_id,
			   scale_lat_ns, idle_ns, old, new, by);
}

SEC("tp_btf/iolatency_scale_reset")
int BPF_PROG(on_scale_reset, struct blkcg_gq *blkg, const char *path,
	     u64 culprit_id, u64 scale_lat_ns, u64 idle_ns, u32 old, u32 new,
	     int by)
{
	return scale_event(blkg, IOLAT_EV_RESET, culprit_id,
			   scale_lat_ns, idle_ns, old, new, by);
}

SEC("tp_btf/iolatency_scale_skip")
int BPF_PROG(on_scale_skip, struct blkcg_gq *blkg, const char *path, u32 old,
	     u32 new, int reason, u64 target_ns, u64 scale_lat_ns,
	     u64 nr_samples, u64 thresh)
{
	struct iolat_event *e = event_start(blkg, IOLAT_EV_SKIP);

	if (!e)
		return 0;
	e->skip.target_ns = target_ns;
	e->skip.scale_lat_ns = scale_lat_ns;
	e->skip.samples = nr_samples;
	e->skip.thresh = thresh;
	e->skip.old = old;
	e->skip.new = new;
	e->skip.reason = reason;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_depth")
int BPF_PROG(on_depth, struct blkcg_gq *blkg, const char *path, u32 old,
	     u32 new, u32 cookie, u32 nr_requests)
{
	struct iolat_event *e = event_start(blkg, IOLAT_EV_DEPTH);

	if (!e)
		return 0;
	e->depth.old = old;
	e->depth.new = new;
	e->depth.cookie = cookie;
	e->depth.nr_requests = nr_requests;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_throttle")
int BPF_PROG(on_throttle, struct blkcg_gq *blkg, u32 depth, u32 inflight,
	     u64 wait_ns)
{
	struct iolat_event *e;

	if (!targ_all)
		return 0;
	e = event_start(blkg, IOLAT_EV_THROTTLE);
	if (!e)
		return 0;
	e->throttle.wait_ns = wait_ns;
	e->throttle.depth = depth;
	e->throttle.inflight = inflight;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_use_delay")
int BPF_PROG(on_use_delay, struct blkcg_gq *blkg, const char *path, int old,
	     int new, u64 delay_ns)
{
	struct iolat_event *e = event_start(blkg, IOLAT_EV_USE_DELAY);

	if (!e)
		return 0;
	e->use_delay.delay_ns = delay_ns;
	e->use_delay.old = old;
	e->use_delay.new = new;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_delay_charge")
int BPF_PROG(on_delay_charge, struct blkcg_gq *blkg, u64 lat_ns,
	     u64 charge_ns, u64 delay_ns)
{
	struct iolat_event *e;

	if (!targ_all)
		return 0;
	e = event_start(blkg, IOLAT_EV_CHARGE);
	if (!e)
		return 0;
	e->charge.lat_ns = lat_ns;
	e->charge.charge_ns = charge_ns;
	e->charge.delay_ns = delay_ns;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* blk-cgroup's event: io.cost's sleeps (use_delay -1) are not io.latency's */
SEC("tp_btf/blkcg_delay_pay")
int BPF_PROG(on_delay_pay, struct blkcg_gq *blkg, u64 delay_ns,
	     u64 sleep_ns, u64 slept_ns, bool capped, bool memstall,
	     int use_delay)
{
	struct iolat_event *e;

	if (use_delay <= 0)
		return 0;
	e = event_start(blkg, IOLAT_EV_PAY);
	if (!e)
		return 0;
	e->pay.delay_ns = delay_ns;
	e->pay.sleep_ns = sleep_ns;
	e->pay.slept_ns = slept_ns;
	e->pay.capped = capped;
	e->pay.memstall = memstall;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
