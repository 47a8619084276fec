// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-fallback: induced delay on a kernel without the iolatency events,
 * from the two block cgroup functions it goes through that kernels do not
 * inline (in the 6.1 and 6.12 builds here; the front-ends check the
 * running kernel's BTF and kallsyms, and switch off what is not there):
 *  - blkcg_add_delay(blkg, now, delta), io.latency's only caller of which
 *    charges a root-issued bio's delta to its group: per charge, never per
 *    IO of anyone else (iolatency_delay_charge's analogue);
 *  - blkcg_maybe_throttle_current(), on return to user space of a task
 *    marked for throttling: the time from its entry to its exit, when the
 *    task slept in between, is the delay it paid (blkcg_delay_pay's,
 *    io.cost's sleeps included: nothing here tells them apart).
 * Counters per (device, cgroup) for iolat-top; with targ_records, a
 * record each for iolat-snoop (charges only with targ_all, as
 * delay_charge).  Loads on any kernel with BTF: no tracepoint of the
 * series, and each program's autoload is switched off when its function
 * cannot be traced.
 */
#include "iolat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile bool targ_records = false;
const volatile bool targ_all = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLAT_MAX_GROUPS);
	__type(key, struct iolat_key);
	__type(value, struct iolat_delay);
} delays SEC(".maps");

/* Tasks inside blkcg_maybe_throttle_current() with a throttle pending. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLAT_MAX_GROUPS);
	__type(key, __u32);
	__type(value, struct iolat_sleeper);
} sleepers SEC(".maps");

/*
 * iolat-snoop's records; iolat-top shrinks it to a page before loading,
 * and sizes delays as its maps (top_map_entries()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

static struct iolat_delay zero_delay;

/* Events dropped because delays had no room for their pair's entry. */
__u64 delays_full = 0;

/* A record of @type about @key, or NULL. */
static __always_inline struct iolat_event *record(const struct iolat_key *key,
						  __u32 type)
{
	struct iolat_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost(&lost.ringbuf);
		return NULL;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->cgroup_id = key->cgroup_id;
	e->dev = key->dev;
	e->type = type;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/*
 * After the charge: the delay pending on the blkg, as iolatency_delay_charge
 * reports it.  (blkcg_add_delay() returns early, adding nothing, only for a
 * blkg whose delay is set by blkcg_set_delay(), io.cost's, which io.latency
 * never charges.)
 */
SEC("fexit/blkcg_add_delay")
int BPF_PROG(on_add_delay, struct blkcg_gq *blkg, u64 now, u64 delta)
{
	struct iolat_key key = blkg_key(blkg);
	struct iolat_delay *d;
	struct iolat_event *e;
	__u64 pending;

	if (dev_filtered(&key))
		return 0;
	pending = blkg_delay_ns(blkg);
	d = lookup_or_init(&delays, &key, &zero_delay, &delays_full);
	if (d) {
		__sync_fetch_and_add(&d->charged_ns, delta);
		__sync_fetch_and_add(&d->charges, 1);
		d->delay_ns = pending;
	}
	if (!targ_records || !targ_all)
		return 0;
	e = record(&key, IOLAT_EV_FN_CHARGE);
	if (!e)
		return 0;
	e->fn_charge.charge_ns = delta;
	e->fn_charge.delay_ns = pending;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Called on every return to user space with TIF_NOTIFY_RESUME set, for
 * whatever reason (rseq and task_work set it too): one field read, and
 * only a task with a throttle pending is remembered, which is also the
 * function's own first check.
 */
SEC("fentry/blkcg_maybe_throttle_current")
int BPF_PROG(on_throttle_enter)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct iolat_sleeper s = {};
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	long err;

	if (!task_throttle_pending(t, &s.key.dev) || dev_filtered(&s.key))
		return 0;
	s.key.cgroup_id = task_io_cgroup_id(t);
	s.nvcsw = task_nvcsw(t);
	s.start_ns = bpf_ktime_get_ns();
	err = bpf_map_update_elem(&sleepers, &tid, &s, BPF_ANY);
	if (err)
		count_lost_update(err);
	return 0;
}

SEC("fexit/blkcg_maybe_throttle_current")
int BPF_PROG(on_throttle_exit)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct iolat_sleeper *s = bpf_map_lookup_elem(&sleepers, &tid);
	struct iolat_key key;
	struct iolat_delay *d;
	struct iolat_event *e;
	__u64 slept;
	bool did_sleep;

	if (!s)
		return 0;
	slept = bpf_ktime_get_ns() - s->start_ns;
	/* No delay pending, or none over its ancestors: it returned at once. */
	did_sleep = task_nvcsw(t) != s->nvcsw;
	key = s->key;
	bpf_map_delete_elem(&sleepers, &tid);
	if (!did_sleep)
		return 0;
	d = lookup_or_init(&delays, &key, &zero_delay, &delays_full);
	if (d) {
		__sync_fetch_and_add(&d->paid_ns, slept);
		__sync_fetch_and_add(&d->pays, 1);
	}
	if (!targ_records)
		return 0;
	e = record(&key, IOLAT_EV_FN_SLEEP);
	if (!e)
		return 0;
	e->fn_sleep.slept_ns = slept;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
