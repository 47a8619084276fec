// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-snoop: one ring buffer record per io.latency decision.  Windows
 * that change nothing (action ok), bios waiting for a slot and delay
 * charges come in numbers, so they are only sent with -a (targ_all).
 */
#include "iolat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool targ_all = false;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Reserve a record for @blkg's event of @type, with its cgroup path. */
static __always_inline struct iolat_event *
event_start(struct blkcg_gq *blkg, const char *path, __u32 type)
{
	struct iolat_key key = blkg_key(blkg);
	struct iolat_event *e;

	if (dev_filtered(&key))
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return NULL;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->cgroup_id = key.cgroup_id;
	e->dev = key.dev;
	e->type = type;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_probe_read_kernel_str(e->path, sizeof(e->path), path);
	e->path2[0] = '\0';
	return e;
}

SEC("tp_btf/iolatency_window")
int BPF_PROG(on_window, struct blkcg_gq *blkg, const char *path, bool ssd,
	     u64 target_ns, u64 win_ns, u64 nr_samples, u64 mean_ns,
	     u64 nr_missed, bool met, int action, u32 cookie)
{
	struct iolat_event *e;

	if (action == IOLAT_ACT_OK && !targ_all)
		return 0;
	e = event_start(blkg, path, IOLAT_EV_WINDOW);
	if (!e)
		return 0;
	e->window.target_ns = target_ns;
	e->window.win_ns = win_ns;
	e->window.samples = nr_samples;
	e->window.mean_ns = mean_ns;
	e->window.missed = nr_missed;
	e->window.cookie = cookie;
	e->window.action = action;
	e->window.ssd = ssd;
	e->window.met = met;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_target")
int BPF_PROG(on_target, struct blkcg_gq *blkg, const char *path, u64 old_ns,
	     u64 new_ns, u64 win_ns)
{
	struct iolat_event *e = event_start(blkg, path, IOLAT_EV_TARGET);

	if (!e)
		return 0;
	e->target.old_ns = old_ns;
	e->target.new_ns = new_ns;
	e->target.win_ns = win_ns;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_scale_cookie")
int BPF_PROG(on_scale_cookie, struct blkcg_gq *blkg, const char *path,
	     const char *culprit, u32 old, u32 new, bool up, u32 step,
	     u64 scale_lat_ns, bool timer)
{
	struct iolat_event *e = event_start(blkg, path, IOLAT_EV_COOKIE);

	if (!e)
		return 0;
	e->cookie.scale_lat_ns = scale_lat_ns;
	e->cookie.old = old;
	e->cookie.new = new;
	e->cookie.step = step;
	e->cookie.up = up;
	e->cookie.timer = timer;
	bpf_probe_read_kernel_str(e->path2, sizeof(e->path2), culprit);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_scale_grp_clear")
int BPF_PROG(on_scale_grp_clear, struct blkcg_gq *blkg, const char *path,
	     const char *culprit, u64 idle_ns, u32 cookie)
{
	struct iolat_event *e = event_start(blkg, path, IOLAT_EV_GRP_CLEAR);

	if (!e)
		return 0;
	e->grp_clear.idle_ns = idle_ns;
	e->grp_clear.cookie = cookie;
	bpf_probe_read_kernel_str(e->path2, sizeof(e->path2), culprit);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_depth")
int BPF_PROG(on_depth, struct blkcg_gq *blkg, const char *path, u32 old,
	     u32 new, u32 cookie, u32 nr_requests)
{
	struct iolat_event *e = event_start(blkg, path, IOLAT_EV_DEPTH);

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
int BPF_PROG(on_throttle, struct blkcg_gq *blkg, const char *path, u32 depth,
	     u32 inflight, u64 wait_ns)
{
	struct iolat_event *e;

	if (!targ_all)
		return 0;
	e = event_start(blkg, path, IOLAT_EV_THROTTLE);
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
	struct iolat_event *e = event_start(blkg, path, IOLAT_EV_USE_DELAY);

	if (!e)
		return 0;
	e->use_delay.delay_ns = delay_ns;
	e->use_delay.old = old;
	e->use_delay.new = new;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_delay_charge")
int BPF_PROG(on_delay_charge, struct blkcg_gq *blkg, const char *path,
	     u64 req_ns, u64 charge_ns, u64 delay_ns)
{
	struct iolat_event *e;

	if (!targ_all)
		return 0;
	e = event_start(blkg, path, IOLAT_EV_CHARGE);
	if (!e)
		return 0;
	e->charge.req_ns = req_ns;
	e->charge.charge_ns = charge_ns;
	e->charge.delay_ns = delay_ns;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/iolatency_delay_pay")
int BPF_PROG(on_delay_pay, struct blkcg_gq *blkg, const char *path,
	     u64 delay_ns, u64 sleep_ns, u64 slept_ns, bool capped,
	     bool memdelay)
{
	struct iolat_event *e = event_start(blkg, path, IOLAT_EV_PAY);

	if (!e)
		return 0;
	e->pay.delay_ns = delay_ns;
	e->pay.sleep_ns = sleep_ns;
	e->pay.slept_ns = slept_ns;
	e->pay.capped = capped;
	e->pay.memdelay = memdelay;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
