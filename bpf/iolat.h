/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the iolat BPF programs and their front-ends.
 *
 * Everything is keyed on the blkg an event names: the (device, cgroup)
 * pair io.latency accounts to, never on the task that happens to run when
 * the event fires (completions run in whatever context ended the IO).
 */
#ifndef __IOLAT_H
#define __IOLAT_H

#define IOLAT_MAX_GROUPS	10240
#define IOLAT_PATH_LEN		256
#define IOLAT_COMM_LEN		16
#define IOLAT_DEPTH_MAX		0xffffffffU	/* max_depth when unlimited */

/* The kernel's dev_t: MKDEV(major, minor). */
#define IOLAT_MINORBITS		20
#define IOLAT_MKDEV(ma, mi)	(((ma) << IOLAT_MINORBITS) | (mi))
#define IOLAT_MAJOR(dev)	((dev) >> IOLAT_MINORBITS)
#define IOLAT_MINOR(dev)	((dev) & ((1U << IOLAT_MINORBITS) - 1))

/* enum iolatency_window_action in include/trace/events/iolatency.h */
enum iolat_action {
	IOLAT_ACT_OK,
	IOLAT_ACT_HOLD,
	IOLAT_ACT_FEW,
	IOLAT_ACT_UP,
	IOLAT_ACT_NOT_OWNER,
	IOLAT_ACT_DOWN,
	IOLAT_ACT_TIGHTER,
	IOLAT_ACT_NR,
};

struct iolat_key {
	__u64 cgroup_id;
	__u32 dev;
	__u32 pad;
};

/* One throttled or protected group on one device; counters are cumulative. */
struct iolat_group {
	__u64 windows;
	__u64 windows_missed;
	__u64 scale_downs_caused;	/* windows whose action was "down" */
	__u64 last_window_ns;		/* bpf_ktime_get_ns() of the last one */
	__u64 last_samples;
	__u64 last_mean_ns;		/* rotational queues */
	__u64 last_missed;		/* non-rotational queues */
	__u64 target_ns;
	__u64 win_ns;
	__u64 throttled;		/* bios that waited for a depth slot */
	__u64 throttled_wait_ns;
	__u64 charged_ns;		/* induced delay charged */
	__u64 charges;
	__u64 paid_ns;			/* induced delay slept off */
	__u64 pays;
	__u64 capped;
	__u64 delay_ns;			/* pending, from the last delay event */
	__u32 depth;			/* IOLAT_DEPTH_MAX when unlimited */
	__u32 nr_requests;
	__u32 cookie;			/* the parent's cookie last seen */
	__s32 use_delay;
	__u8 ssd;
	__u8 last_met;
	__u8 last_action;		/* enum iolat_action */
	__u8 has_window;
	__u8 has_depth;			/* depth and cookie came from an event */
	__u8 has_use_delay;
	__u8 has_target;		/* target_ns came from a target event */
	__u8 pad;
};

/* A parent whose children's scale cookie moved. */
struct iolat_parent {
	__u64 scale_ups;
	__u64 scale_downs;
	__u64 timer_ups;
	__u64 grp_clears;
	__u64 scale_lat_ns;
	__u32 cookie;
	__u32 pad;
	char culprit[IOLAT_PATH_LEN];	/* "" when none */
};

enum iolat_event_type {
	IOLAT_EV_WINDOW,
	IOLAT_EV_TARGET,
	IOLAT_EV_COOKIE,
	IOLAT_EV_GRP_CLEAR,
	IOLAT_EV_DEPTH,
	IOLAT_EV_THROTTLE,
	IOLAT_EV_USE_DELAY,
	IOLAT_EV_CHARGE,
	IOLAT_EV_PAY,
	IOLAT_EV_NR,
};

/* One controller decision, for iolat-snoop. */
struct iolat_event {
	__u64 ts_ns;
	__u64 cgroup_id;
	__u32 dev;
	__u32 type;			/* enum iolat_event_type */
	__u32 pid;
	char comm[IOLAT_COMM_LEN];
	union {
		struct {
			__u64 target_ns, win_ns, samples, mean_ns, missed;
			__u32 cookie;
			__s32 action;
			__u8 ssd, met;
		} window;
		struct {
			__u64 old_ns, new_ns, win_ns;
		} target;
		struct {
			__u64 scale_lat_ns;
			__u32 old, new, step;
			__u8 up, timer;
		} cookie;
		struct {
			__u64 idle_ns;
			__u32 cookie;
		} grp_clear;
		struct {
			__u32 old, new, cookie, nr_requests;
		} depth;
		struct {
			__u64 wait_ns;
			__u32 depth, inflight;
		} throttle;
		struct {
			__u64 delay_ns;
			__s32 old, new;
		} use_delay;
		struct {
			__u64 req_ns, charge_ns, delay_ns;
		} charge;
		struct {
			__u64 delay_ns, sleep_ns, slept_ns;
			__u8 capped, memdelay;
		} pay;
	};
	char path[IOLAT_PATH_LEN];
	char path2[IOLAT_PATH_LEN];	/* the culprit, for cookie events */
};

#endif /* __IOLAT_H */
