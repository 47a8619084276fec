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
#define IOLAT_COMM_LEN		16
#define IOLAT_DEPTH_MAX		0xffffffffU	/* max_depth when unlimited */

/* The kernel's dev_t: MKDEV(major, minor). */
#define IOLAT_MINORBITS		20
#define IOLAT_MKDEV(ma, mi)	(((ma) << IOLAT_MINORBITS) | (mi))
#define IOLAT_MAJOR(dev)	((dev) >> IOLAT_MINORBITS)
#define IOLAT_MINOR(dev)	((dev) & ((1U << IOLAT_MINORBITS) - 1))

/*
 * The kernel's enums of include/trace/events/iolatency.h, renamed: vmlinux.h
 * has the originals, and the BPF programs include both.
 */
enum iolat_action {		/* enum iolatency_window_action */
	IOLAT_ACT_OK,
	IOLAT_ACT_HOLD,
	IOLAT_ACT_FEW,
	IOLAT_ACT_UP,
	IOLAT_ACT_NOT_OWNER,
	IOLAT_ACT_DOWN,
	IOLAT_ACT_TIGHTER,
	IOLAT_ACT_OFFLINE,
	IOLAT_ACT_NR,
};

enum iolat_scale_by {		/* enum iolatency_scale_by */
	IOLAT_BY_WINDOW,
	IOLAT_BY_TIMER,
	IOLAT_BY_TARGET,
	IOLAT_BY_OFFLINE,
	IOLAT_BY_NR,
};

enum iolat_skip_reason {	/* enum iolatency_skip_reason */
	IOLAT_REASON_RACED,
	IOLAT_REASON_PROTECTED,
	IOLAT_REASON_FEW_IOS,
	IOLAT_REASON_NR,
};

enum iolat_target_by {		/* enum iolatency_target_by */
	IOLAT_TARGET_BY_USER,
	IOLAT_TARGET_BY_OFFLINE,
	IOLAT_TARGET_BY_NR,
};

struct iolat_key {
	__u64 cgroup_id;
	__u32 dev;
	__u32 pad;
};

/* One throttled or protected group on one device; counters are cumulative. */
struct iolat_group {
	__u64 windows;
	__u64 windows_missed;		/* verdict missed (offline excepted) */
	__u64 scale_downs_caused;	/* windows whose action was "down" */
	__u64 last_window_ns;		/* bpf_ktime_get_ns() of the last one */
	__u64 last_samples;
	__u64 last_mean_ns;		/* rotational queues */
	__u64 last_missed;		/* non-rotational queues */
	__u64 acc_samples;		/* the accumulated statistic (cur_stat) */
	__u64 acc_mean_ns;
	__u64 acc_missed;
	__u64 target_ns;
	__u64 win_ns;
	__u64 throttled;		/* bios that slept for a depth slot */
	__u64 throttled_wait_ns;
	__u64 charged_ns;		/* induced delay charged */
	__u64 charges;
	__u64 paid_ns;			/* induced delay slept off */
	__u64 pays;
	__u64 capped;
	__u64 delay_ns;			/* pending, from the last delay event */
	__u64 skips[IOLAT_REASON_NR];	/* parent's scale-downs not followed */
	/*
	 * Time spent limited (depth below max): the stretches that ended,
	 * and when the open one began (0: not limited).  The front-end adds
	 * the open stretch when it reads.
	 */
	__u64 limited_ns;
	__u64 limited_since_ns;
	/*
	 * The lowest depth of each refresh interval, in two slots so that
	 * the front-end reads one while the events write the other: an
	 * event in epoch e (iolat_top's depth_epoch) writes slot e & 1,
	 * starting it over when its epoch is older.
	 */
	struct iolat_depth_slot {
		__u32 epoch;
		__u32 start;		/* the depth when the epoch began */
		__u32 min;
	} depth_slot[2];
	__u32 depth;			/* IOLAT_DEPTH_MAX when unlimited */
	__u32 nr_requests;
	__u32 cookie;			/* the parent's cookie last seen */
	__s32 use_delay;
	__u8 ssd;
	__u8 last_met;			/* the verdict: window and accumulated */
	__u8 last_win_met;		/* the window alone */
	__u8 last_action;		/* enum iolat_action */
	__u8 has_window;
	__u8 has_depth;			/* depth and cookie came from an event */
	__u8 has_use_delay;
	__u8 has_target;		/* target_ns came from a target event */
};

/*
 * A cgroup2 cgroup created or removed since the front-end last looked,
 * keyed by its id; the last of its events wins.  A new cgroup is told by
 * its parent's id and its own name, not by the path the tracepoint
 * carries: that path starts at the hierarchy's root, where a front-end
 * in a cgroup namespace sees its namespace's root, and a copy of it in
 * a record would have a fixed size to be cut at.  A name is a directory
 * entry, NAME_MAX bytes at most: never cut.
 */
#define IOLAT_MAX_CGROUP_CHANGES 4096
#define IOLAT_NAME_LEN		256	/* NAME_MAX + 1 */

struct iolat_cgroup_change {
	__u64 parent_id;		/* mkdir: the parent's cgroup id */
	__u32 removed;			/* 0: cgroup_mkdir, 1: cgroup_rmdir */
	__u32 level;			/* mkdir: depth below cgroup2's root */
	char name[IOLAT_NAME_LEN];	/* mkdir: its directory's name */
};

/* A parent whose children's scale cookie moved. */
struct iolat_parent {
	__u64 scale_ups;
	__u64 scale_downs;
	__u64 timer_ups;
	__u64 grp_clears;
	__u64 resets;			/* scale_reset: a child's target or offline */
	__u64 scale_lat_ns;
	__u64 culprit_id;		/* cgroup id; 0 when none */
	__u32 cookie;
	__u8 last_scale;		/* enum iolat_scale_kind, of the last move */
	__u8 last_by;			/* its enum iolat_scale_by */
	__u8 has_scale;			/* last_scale and last_by are set */
	__u8 pad;
};

/* What a parent's last scale event did to its children's cookie. */
enum iolat_scale_kind {
	IOLAT_SCALE_DOWN,
	IOLAT_SCALE_UP,
	IOLAT_SCALE_FORGET,		/* scale_grp_clear: culprit forgotten */
	IOLAT_SCALE_RESET,
	IOLAT_SCALE_NR,
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
	IOLAT_EV_ENABLE,
	IOLAT_EV_RESET,
	IOLAT_EV_SKIP,
	/*
	 * Without the events (iolat-fallback.bpf.c): blkcg_add_delay() and a
	 * sleep in blkcg_maybe_throttle_current().
	 */
	IOLAT_EV_FN_CHARGE,
	IOLAT_EV_FN_SLEEP,
	IOLAT_EV_NR,
};

/*
 * One controller decision, for iolat-snoop.  The cgroup is its id: the
 * front-end names it as iolat-top does (the path some events carry in
 * their TP_PROTO starts at the hierarchy's root, not the front-end's
 * cgroup namespace's), so no record copies that path.
 */
struct iolat_event {
	__u64 ts_ns;
	__u64 cgroup_id;		/* 0 for enable (a device) */
	__u32 dev;
	__u32 type;			/* enum iolat_event_type */
	__u32 pid;
	char comm[IOLAT_COMM_LEN];
	union {
		struct {
			__u64 target_ns, win_ns, samples, mean_ns, missed;
			__u64 acc_samples, acc_mean_ns, acc_missed;
			__u64 scale_lat_ns;
			__u32 cookie;
			__s32 action;	/* enum iolat_action */
			__u8 ssd, win_met, met;
		} window;
		struct {
			__u64 old_ns, new_ns, win_ns;
			__s32 by;	/* enum iolat_target_by */
		} target;
		struct {
			__u64 frozen_ns;
			__s32 nr_targets;
			__u8 old, new;
		} enable;
		struct {		/* cookie, grp_clear, reset */
			__u64 culprit_id, scale_lat_ns, idle_ns;
			__u32 old, new;
			__s32 by;	/* enum iolat_scale_by */
		} scale;
		struct {
			__u64 target_ns, scale_lat_ns, samples, thresh;
			__u32 old, new;
			__s32 reason;	/* enum iolat_skip_reason */
		} skip;
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
			__u64 lat_ns, charge_ns, delay_ns;
		} charge;
		struct {
			__u64 delay_ns, sleep_ns, slept_ns;
			__u8 capped, memstall;
		} pay;
		struct {		/* fn_charge: blkcg_add_delay() */
			__u64 charge_ns, delay_ns;	/* delay_ns: pending after */
		} fn_charge;
		struct {		/* fn_sleep: blkcg_maybe_throttle_current() */
			__u64 slept_ns;
		} fn_sleep;
	};
};

/*
 * Events the BPF side could not record, by cause, in each program's .bss
 * (lost): the front-ends report total and say the causes when they exit.
 * A full map is not among them: it counts apart (lookup_or_init()).
 */
struct iolat_lost {
	__u64 total;
	__u64 ringbuf;			/* no room in the ring buffer */
	__u64 update;			/* a map update refused ... */
	__s64 update_err;		/* ... the last one's error (negative) */
	__u64 deleted;			/* an entry gone between its creation and use */
};

/*
 * Without the iolatency events: the induced delay of a (device, cgroup)
 * as the controller's functions that are not inlined show it
 * (iolat-fallback.bpf.c), cumulative.  Charges are keyed on the blkg
 * blkcg_add_delay() is given, as iolatency_delay_charge; sleeps on the
 * sleeping task's io cgroup and the device it is throttled on, where
 * blkcg_delay_pay names the blkg whose delay it paid (the same, or
 * an ancestor with more delay pending).
 */
struct iolat_delay {
	__u64 charged_ns;		/* blkcg_add_delay()'s deltas */
	__u64 charges;
	__u64 paid_ns;			/* sleeps in blkcg_maybe_throttle_current() */
	__u64 pays;
	__u64 delay_ns;			/* pending after the last charge */
};

/*
 * A task inside blkcg_maybe_throttle_current() with a throttle pending,
 * from its entry to its exit: a voluntary context switch in between
 * (nvcsw moved) is the sleep.
 */
struct iolat_sleeper {
	__u64 start_ns;
	__u64 nvcsw;
	struct iolat_key key;
};

/*
 * iolat-top's io.stat counters without a file per cgroup: a sleepable
 * cgroup iterator (iolat-iostat.bpf.c) walks the cgroup2 tree from the
 * front-end's mount, flushes the rstat counters once at its top, and
 * writes a record per blkg whose counters io.stat would print (online,
 * on a disk, some read or write) into an array the front-end maps; the
 * walk's last call writes a struct iolat_iostat_end to the iterator's
 * file, which says how many there are.  The records are not written to
 * the file: a cgroup iterator gives 8 pages per walk (the seq_file
 * buffer; a second read() of a walk that did not fit fails with
 * EOPNOTSUPP, kernel/bpf/cgroup_iter.c), 512 records of these.  The
 * hierarchy's root has none (its io.stat is the disks' own).
 */
#define IOLAT_IOSTAT_MAX	65536	/* records a walk can hold: 4 MiB */
#define IOLAT_IOSTAT_BLKGS	64	/* blkgs (devices) looked at per cgroup */
#define IOLAT_IOSTAT_MAGIC	0x696f6c31U	/* "iol1": the end record */
/*
 * Cgroups with IO between two refreshes that the front-end reads file by
 * file rather than walk: past a few hundred the walk is cheaper anyway.
 */
#define IOLAT_IOSTAT_MARKS	4096

/* The kernel's enum blkg_iostat_type, renamed (vmlinux.h has it too). */
enum iolat_iostat_type {
	IOLAT_IOSTAT_READ,		/* io.stat's rbytes, rios */
	IOLAT_IOSTAT_WRITE,		/* wbytes, wios */
	IOLAT_IOSTAT_DISCARD,		/* dbytes, dios */
	IOLAT_IOSTAT_NR,
};

/* One blkg's counters, blkg->iostat.cur, as io.stat prints them. */
struct iolat_iostat_rec {
	__u64 cgroup_id;
	__u32 dev;
	__u32 pad;
	__u64 bytes[IOLAT_IOSTAT_NR];
	__u64 ios[IOLAT_IOSTAT_NR];
};

/* The walk's last word, the only thing read() gives. */
struct iolat_iostat_end {
	__u32 magic;			/* IOLAT_IOSTAT_MAGIC */
	__u32 nrecs;			/* records in the array, from 0 */
	__u32 dropped;			/* blkgs with IO left out: array full, or past IOLAT_IOSTAT_BLKGS */
	__s32 top_level;		/* the walk's first cgroup's level; -1: none */
	__u32 visited;			/* cgroups the program saw */
	__u32 bad_layout;		/* a blkcg_gq the program cannot read: no records */
};

/*
 * io.latency's own state, read through the kernel's BTF where it has no
 * tracepoints (iolat-state.bpf.c): a sleepable cgroup iterator, as
 * iolat-iostat's, writes a record per blkg that has an io.latency group
 * (blkg->pd[blkcg_policy_iolatency.plid] set: every blkg of a device
 * once a target was set on it) into an array the front-end maps, and a
 * struct iolat_state_end to the iterator's file.  A sample, not events:
 * what changed and changed back between two walks is not in it.
 */
#define IOLAT_STATE_MAX		32768	/* records a walk can hold: 5.3 MiB */
#define IOLAT_STATE_BLKGS	64	/* blkgs (devices) looked at per cgroup */
#define IOLAT_STATE_MAGIC	0x696f6c32U	/* "iol2": the end record */

/* struct iolat_state's flags. */
#define IOLAT_STATE_SSD		(1U << 0)	/* iolat->ssd: cur_stat is missed/total */
#define IOLAT_STATE_ONLINE	(1U << 1)	/* blkg->online and pd->online */
/* Its children's scale_grp is set: the parent names a culprit. */
#define IOLAT_STATE_CULPRIT	(1U << 2)
/*
 * ... which no live group below it on its device in the same walk is:
 * freed, or a group that went offline (the front-end's verdict).
 */
#define IOLAT_STATE_CULPRIT_STALE	(1U << 3)
/* ... and the walk dropped records, so which it is cannot be told. */
#define IOLAT_STATE_CULPRIT_UNKNOWN	(1U << 4)

/*
 * A group's struct child_latency_info: the scaling of its children, the
 * cookie they follow and the culprit it was moved for.
 */
struct iolat_state_children {
	__u64 last_scale_event_ns;	/* ktime_get_ns() of the last move; 0: none */
	__u64 scale_lat_ns;		/* the culprit's target; 0: none */
	__u64 nr_samples;		/* the children's, at the last summation */
	__u64 culprit_id;		/* scale_grp's cgroup id; 0: none, stale or unknown */
	__u32 cookie;			/* scale_cookie; 1000000 when not scaled */
	__u32 pad;
};

/*
 * One io.latency group (a blkg's struct iolatency_grp), as a walk read
 * it.  Times are ktime_get_ns() (CLOCK_MONOTONIC), as bpf_ktime_get_ns();
 * cur_* are the accumulated statistic (cur_stat) of the window that did
 * not yet decide: missed/total when ssd, the mean when rotational.
 */
struct iolat_state {
	__u64 cgroup_id;
	__u64 parent_id;		/* the parent cgroup's id; 0 for the root */
	__u64 target_ns;		/* min_lat_nsec; 0: no target */
	__u64 win_ns;			/* cur_win_nsec */
	__u64 window_start_ns;
	__u64 lat_avg_ns;		/* the running average (rotational) */
	__u64 nr_samples;		/* its bios at the last summation */
	__u64 cur_samples;
	__u64 cur_missed;		/* ssd only */
	__u64 cur_mean_ns;		/* rotational only */
	__u64 delay_ns;			/* blkg->delay_nsec: induced delay pending */
	__u32 dev;			/* the disk's kernel dev_t */
	__u32 flags;			/* IOLAT_STATE_* */
	__u32 depth;			/* max_depth; IOLAT_DEPTH_MAX when unlimited */
	__u32 inflight;			/* rq_wait.inflight */
	__u32 cookie;			/* scale_cookie: the parent's it last followed */
	__s32 use_delay;		/* blkg->use_delay */
	struct iolat_state_children children;
};

/*
 * What the array holds: the record, and the two addresses the front-end
 * tells the culprit by (this group's struct iolatency_grp and its
 * child_lat.scale_grp), which it does not pass on.
 */
struct iolat_state_rec {
	struct iolat_state s;
	__u64 grp;
	__u64 scale_grp;
};

/* struct iolat_state_end's layout: the struct the walk could not read. */
#define IOLAT_STATE_LAYOUT_POLICY	(1U << 0)	/* struct blkcg_policy */
#define IOLAT_STATE_LAYOUT_BLKG		(1U << 1)	/* struct blkcg_gq */
#define IOLAT_STATE_LAYOUT_GRP		(1U << 2)	/* struct iolatency_grp */

/* What the walk found of blkcg_policy_iolatency, once at its start. */
enum iolat_state_policy {
	IOLAT_POLICY_UNCHECKED,		/* no cgroup visited */
	IOLAT_POLICY_OK,		/* plid read, blkcg_policy[plid] is it */
	IOLAT_POLICY_UNREADABLE,	/* its plid, or blkcg_policy[plid], not readable */
	IOLAT_POLICY_BAD_PLID,		/* plid not a policy slot */
	IOLAT_POLICY_NOT_REGISTERED,	/* blkcg_policy[plid] is another policy */
};

/* The walk's last word, the only thing read() gives. */
struct iolat_state_end {
	__u32 magic;			/* IOLAT_STATE_MAGIC */
	__u32 nrecs;			/* records in the array, from 0 */
	__u32 dropped;			/* groups left out (array full, lists cut) */
	__s32 top_level;		/* the walk's first cgroup's level; -1: none */
	__u32 visited;			/* cgroups the program saw */
	__u32 layout;			/* IOLAT_STATE_LAYOUT_*: no records when set */
	__u32 policy;			/* enum iolat_state_policy */
	__s32 plid;			/* blkcg_policy_iolatency.plid; -1 unread */
	__u64 now_ns;			/* bpf_ktime_get_ns() at the walk's end */
};

#endif /* __IOLAT_H */
