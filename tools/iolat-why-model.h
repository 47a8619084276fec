/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-why's model: what io.latency did per (device, cgroup), built from
 * iolat-snoop's decisions and iolat-top's intervals as they are fed -
 * each group's windows, depths, scale events, targets and induced delay
 * on one timeline.  Plain inputs (struct why_event, struct why_row), no
 * JSON (iolat-json.c decodes the recordings) and no conclusions (the
 * rules in iolat-why-rules.c read the model once it is finished).
 */
#ifndef __IOLAT_WHY_MODEL_H
#define __IOLAT_WHY_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* A cgroup path of PATH_MAX bytes, each escaped (iolat_esc()): \xNN */
#define WHY_NAME_LEN (4 * 4096 + 1)
#define WHY_DEV_LEN 64
#define WHY_OTHER_DEVS 8
#define WHY_DEFAULT_COOKIE 1000000U
#define WHY_DEPTH_MAX 0xffffffffU
/*
 * Targets that read as a typo, for the rule target_not_as_meant: the
 * model notes the first one a group had, and when, as it goes.
 */
#define WHY_TARGET_TINY_US	20	/* below any device's completion time */
#define WHY_TARGET_HUGE_US	1000000	/* a second: the longest window */

/*
 * iolat-snoop's event kinds ("event").  FN_CHARGE and FN_SLEEP are its
 * records without the events ("charge", "sleep"): blkcg_add_delay() and
 * a sleep in blkcg_maybe_throttle_current(), not decisions.
 */
enum why_ev_type {
	WHY_EV_WINDOW, WHY_EV_TARGET, WHY_EV_COOKIE, WHY_EV_FORGOT,
	WHY_EV_DEPTH, WHY_EV_THROTTLE, WHY_EV_USE_DELAY, WHY_EV_CHARGE,
	WHY_EV_PAY, WHY_EV_ENABLE, WHY_EV_RESET, WHY_EV_SKIP,
	WHY_EV_FN_CHARGE, WHY_EV_FN_SLEEP, WHY_EV_NR,
};

/* A window's action, as the kernel's enum iolatency_window_action. */
enum why_action {
	WHY_ACT_OK, WHY_ACT_HOLD, WHY_ACT_FEW, WHY_ACT_UP, WHY_ACT_NOT_OWNER,
	WHY_ACT_DOWN, WHY_ACT_TIGHTER, WHY_ACT_OFFLINE, WHY_ACT_NR,
};

enum why_skip { WHY_SKIP_RACED, WHY_SKIP_PROTECTED, WHY_SKIP_FEW_IOS, WHY_SKIP_NR };

/* "by" of scale events and targets. */
enum why_by { WHY_BY_WINDOW, WHY_BY_TIMER, WHY_BY_TARGET, WHY_BY_OFFLINE,
	      WHY_BY_USER, WHY_BY_OTHER };

extern const char *const why_action_names[WHY_ACT_NR];

/* One iolat-snoop decision.  Times are seconds since the epoch. */
struct why_event {
	double time;
	enum why_ev_type type;
	__u64 cgroup_id;
	/* window */
	bool met, win_met, ssd;
	enum why_action action;
	__u64 target_us, win_ms, samples, missed, mean_us;
	__u32 cookie;			/* window, depth */
	__u64 scale_lat_us;		/* window, scale events, skip */
	/* target: old_us, new_us; scale events and depth: old, new */
	__u64 old, new;			/* depth: WHY_DEPTH_MAX for max */
	enum why_by by;
	/* scale events */
	__u64 culprit_id;		/* 0: none */
	__u64 idle_ms;
	/* skip */
	enum why_skip reason;
	/* depth */
	__u32 nr_requests;
	/* use_delay: old, new as signed */
	__s64 ud_old, ud_new;
	__u64 delay_us, charge_us, slept_us;
	/*
	 * The names last, nearly all of the struct's 32 KiB: a decoder
	 * clears what is before them (offsetof(struct why_event, device))
	 * and each name's first byte, not all of it, for every record.
	 */
	char device[WHY_DEV_LEN];
	char cgroup[WHY_NAME_LEN];	/* "" when the tool had no path */
	char culprit[WHY_NAME_LEN];	/* scale events; "" when unknown or gone */
};

/* One iolat-top row of one interval. */
struct why_row {
	double time, interval_s;
	__u64 cgroup_id;
	bool rotational;
	/* a device io.latency never acts on, and the disks below ("a,b") */
	bool bio_based;
	char below[WHY_DEV_LEN];
	__u64 target_us;		/* 0: none */
	bool has_window;
	bool met, win_met, ssd;
	enum why_action action;
	__u64 samples, missed, mean_us, windows, windows_missed;
	double iops, read_mbps, write_mbps;	/* NAN: unknown */
	double throttled_per_s;		/* bios that waited for a slot; NAN: unknown */
	bool depth_known;
	__u32 depth;			/* WHY_DEPTH_MAX for max */
	bool unknown_state;		/* "state": "unknown" */
	__s64 use_delay;
	double charged_ms, paid_ms;	/* cumulative */
	__u64 skips[WHY_SKIP_NR];
	bool has_children;
	__u32 child_cookie;
	__u64 culprit_id;
	__u64 scale_downs, scale_ups, timer_ups, forgotten, resets;
	/*
	 * iolat-top's io.stat mode (a kernel without the events, or
	 * --no-events): no window, no counters; io.stat's debug keys when
	 * blkcg_debug_stats was on (has_iostat_debug) - the window in
	 * progress's missed and total (non-rotational) or the running
	 * average avg_lat (rotational).  Its depth and use_delay come from
	 * those keys or from the state reader's sample (has_sample), which
	 * has no window but the group's accumulated one: the windows since
	 * its parent last scaled (acc_samples, acc_missed, acc_mean_us).
	 */
	bool iostat_mode;
	bool has_iostat_debug, has_io_missed, has_avg_lat;
	__u64 io_missed, io_total, avg_lat_us;
	bool culprit_gone;		/* has_children: culprit_status "gone" */
	bool has_sample, has_acc_mean;
	__u64 acc_samples, acc_missed, acc_mean_us;
	/* The names last, as in struct why_event (48 KiB of a row). */
	char device[WHY_DEV_LEN];
	char cgroup[WHY_NAME_LEN];
	char culprit[WHY_NAME_LEN];	/* has_children */
};

/* The two tools the model learns from. */
enum why_source { WHY_SRC_SNOOP, WHY_SRC_TOP, WHY_SRC_NR };

/* ---- the model, as the rules read it ---- */

/* One window of a group, from either source. */
struct why_win {
	double t;
	__u32 samples, missed;	/* missed: bios over target (non-rotational) */
	__u32 mean_us;		/* rotational */
	__u64 scale_lat_us;	/* the culprit's target; 0 unknown (iolat-top) */
	__u8 action, verdict_missed, win_met, ssd;
};

struct why_wlog {
	struct why_win *v;
	size_t n, cap;
};

/* A scale event of a parent, kept for flapping, recovery, ghosts. */
struct why_scale {
	double t;
	__u64 culprit_id;
	__u32 old, new;
	__u32 downs, ups;	/* a top row: since the previous interval */
	__u8 type;		/* enum why_ev_type, or WHY_EV_NR for a top row */
	__u8 by;
	bool named;		/* the culprit's path was known */
	bool gone;		/* a top row: the culprit is no live child, its id unknown */
};

struct why_depth {		/* a depth change (or a row's depth) */
	double t;
	__u32 depth;
};

/*
 * A group is a cgroup on a device: its id, when the records carry one
 * (a service started again under the same path is a new cgroup, with a
 * new id and none of the old one's history), else its path.
 */
struct why_cg {
	char device[WHY_DEV_LEN];
	char *path;
	__u64 id;		/* 0: no record gave one */
	/*
	 * How the findings name it: its path, with its id where another
	 * group on the device had the same path.  Set by why_model_finish().
	 */
	char *name;
	/* the tree, as why_model_finish() leaves it */
	struct why_cg *parent;	/* NULL: the root, or a path without parent */
	struct why_cg **kids;	/* in the order they were first seen */
	size_t nkids, kcap;
	struct why_cg *prev_holder;	/* the group that had this path before */
	bool implied;		/* no record of its own: made to hold its children */
	size_t index;		/* in why_model.v */
	double first_t, last_t;
	double last_row_t;	/* its last iolat-top row */
	/*
	 * Its last sign of IO: a window, a depth change (made at its bio's
	 * submission), a throttled bio, a charge, a row with IOPS; 0 none.
	 */
	double last_io_t;
	/* target */
	__u64 target_us;	/* the last known; 0 none */
	bool ever_target;
	__u64 odd_target_us;	/* a target that looks mistyped, and when */
	double odd_target_t;
	bool sub_us_target;
	bool gone;
	double gone_t;
	/* windows: iolat-snoop's, iolat-top's samples and counters */
	struct why_wlog ws, wt;
	__u64 top_windows, top_missed;
	/* the state reader's last accumulated window: a new one only if it moved */
	__u64 acc_samples, acc_missed, acc_mean_us;
	/* depth and use_delay */
	struct why_depth *dv;
	size_t dn, dcap;
	bool depth_known;
	__u32 depth, min_depth, nr_requests;
	__u64 depth_changes;
	__s64 use_delay, max_use_delay;
	/* induced delay */
	double charged_ms, paid_ms;	/* iolat-top's cumulative */
	double charged_ev_us, paid_ev_us;	/* iolat-snoop's events */
	__u64 charges, pays;
	/*
	 * Scale-downs it did not follow because its target is as tight as
	 * the one that missed (reason "protected"): iolat-snoop's records
	 * with the two targets equal, and iolat-top's counter (any).
	 */
	__u64 skips_equal, skips_protected_top;
	/*
	 * Writes while use_delay > 0, in the intervals where most of its bios
	 * went past the depth limit without waiting for a slot (or where
	 * that is unknown): root-issued IO, as swap-outs are; a writeback
	 * whose every bio waits at depth 1 is not.
	 */
	double write_mb_delayed, delayed_s;
	/* its device is bio-based (iolat-top's rows), and the disks below */
	bool bio_based;
	char below[WHY_DEV_LEN];
	/* IO */
	double iops_min, iops_max, iops_sum;
	__u64 iops_n;
	__u64 rows, rows_unknown;
	/* parent side */
	bool is_parent;
	__u32 min_cookie;
	struct why_scale *sv;
	size_t sn, scap;
	__u64 top_downs, top_ups, top_timer_ups;
	__u64 pending_downs, noop_downs;
	double last_down_window;	/* a child's window with action down */
	double floor_t;
	__u32 floor_cookie;
	/*
	 * noop_downs counted from the state reader's samples (no events):
	 * intervals at the floor while the culprit missed, each at least one
	 */
	bool floor_sampled;
};

struct why_model {
	struct why_cg **v;	/* each its own allocation: pointers stay */
	size_t n, cap;
	/*
	 * Index + 1 (0 empty), both of hcap slots: every group with an id by
	 * its id; by device and path, the last group seen with that path.
	 */
	size_t *by_id, *by_path;
	size_t hcap;
	bool finished;
	double first, last;
	size_t events, rows;
	__u64 lost[WHY_SRC_NR];
	/*
	 * iolat-top rows from its io.stat mode, of those rows with
	 * blkcg_debug_stats' keys (io.stat's windows in progress), and with
	 * a depth and use_delay (those keys', or the state reader's): what
	 * the rules can check without events.
	 */
	size_t iostat_rows, iostat_debug_rows, iostat_depth_rows;
	/* and with the state reader's sample: its accumulated windows */
	size_t iostat_sample_rows;
	/*
	 * Without the events: which tool ran on the controller's functions
	 * (iolat-snoop's "mode" record, iolat-top's "functions"), and whether
	 * they showed the delay charged (blkcg_add_delay: iolat-top's
	 * counters, iolat-snoop's charge records with -a) and slept.  The
	 * records of theirs fed, of m->events.
	 */
	bool fn_mode[WHY_SRC_NR];
	bool fn_charges, fn_pays;
	size_t fn_records;
	/*
	 * iolat-top's "cgroupns": 1 when it ran inside a cgroup namespace
	 * (its paths start at that namespace's root), 0 not, -1 unknown.
	 */
	int cgroupns;
	/*
	 * One device's records only, by its name as recorded ("": all):
	 * the others are left out before they count, so that what is said
	 * of the run (events, rows, span) is that device's.  The names
	 * left out, a few, for saying what the recordings do hold.
	 */
	char only_dev[WHY_DEV_LEN];
	char other_devs[WHY_OTHER_DEVS][WHY_DEV_LEN];
	size_t n_other_devs;
	bool more_other_devs;
};

struct why_model *why_model_new(void);
void why_model_free(struct why_model *m);
/* Before anything is fed: keep only @dev's records (its recorded name). */
void why_model_only_device(struct why_model *m, const char *dev);
/* Feed it, in time order per source; 0 or -ENOMEM. */
int why_model_event(struct why_model *m, const struct why_event *e);
int why_model_row(struct why_model *m, const struct why_row *r);
/*
 * Events a tool's BPF side could not record, since it started (its
 * "lost_events"): the findings rest on every decision being there.
 */
void why_model_lost(struct why_model *m, enum why_source src, __u64 total);
/*
 * A tool ran without the events, on the controller's functions: @charges
 * and @pays say whether the delay charged and slept were seen.
 */
void why_model_functions(struct why_model *m, enum why_source src, bool charges,
			 bool pays);
/*
 * Once everything is fed: each group's depths and scale events in time
 * order (the two recordings come one after the other, or interleaved),
 * its depths reduced to changes; the tree (parent, kids) and the names.
 * why_analyse() calls it.  0 or -ENOMEM.
 */
int why_model_finish(struct why_model *m);

/* Lookups for the rules. */
struct why_cg *why_cg_by_id(const struct why_model *m, const char *dev, __u64 id);
/* @c's parent once finished (c->parent); NULL for the root. */
struct why_cg *why_parent_of(struct why_model *m, const struct why_cg *c);
/* "/a/b" -> "/a"; "/a" -> "/"; "/" -> "" (no parent). */
void why_parent_path(const char *path, char *out, size_t len);

#endif /* __IOLAT_WHY_MODEL_H */
