/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-why's model: what io.latency did per (device, cgroup), learnt from
 * iolat-snoop's decisions and iolat-top's intervals, and the rules that
 * turn it into findings.  Plain inputs (struct why_event, struct why_row),
 * no JSON and no BPF: iolat-json.c decodes the recordings, and the host
 * test (tests/host/14-why) feeds canned ones through the tool.
 */
#ifndef __IOLAT_WHY_RULES_H
#define __IOLAT_WHY_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#define WHY_NAME_LEN 4096
#define WHY_DEV_LEN 64
#define WHY_DEFAULT_COOKIE 1000000U
#define WHY_DEPTH_MAX 0xffffffffU

/* iolat-snoop's event kinds ("event"). */
enum why_ev_type {
	WHY_EV_WINDOW, WHY_EV_TARGET, WHY_EV_COOKIE, WHY_EV_FORGOT,
	WHY_EV_DEPTH, WHY_EV_THROTTLE, WHY_EV_USE_DELAY, WHY_EV_CHARGE,
	WHY_EV_PAY, WHY_EV_ENABLE, WHY_EV_RESET, WHY_EV_SKIP, WHY_EV_NR,
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
	char device[WHY_DEV_LEN];
	char cgroup[WHY_NAME_LEN];	/* "" when the tool had no path */
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
	char culprit[WHY_NAME_LEN];	/* "" when unknown or gone */
	__u64 culprit_id;		/* 0: none */
	__u64 idle_ms;
	/* skip */
	enum why_skip reason;
	/* depth */
	__u32 nr_requests;
	/* use_delay: old, new as signed */
	__s64 ud_old, ud_new;
	__u64 delay_us, charge_us, slept_us;
};

/* One iolat-top row of one interval. */
struct why_row {
	double time, interval_s;
	char device[WHY_DEV_LEN];
	char cgroup[WHY_NAME_LEN];
	__u64 cgroup_id;
	bool rotational;
	__u64 target_us;		/* 0: none */
	bool has_window;
	bool met, win_met, ssd;
	enum why_action action;
	__u64 samples, missed, mean_us, windows, windows_missed;
	double iops, read_mbps, write_mbps;	/* NAN: unknown */
	bool depth_known;
	__u32 depth;			/* WHY_DEPTH_MAX for max */
	bool unknown_state;		/* "state": "unknown" */
	__s64 use_delay;
	double charged_ms, paid_ms;	/* cumulative */
	__u64 skips[WHY_SKIP_NR];
	bool has_children;
	__u32 child_cookie;
	char culprit[WHY_NAME_LEN];
	__u64 culprit_id;
	__u64 scale_downs, scale_ups, timer_ups, forgotten, resets;
};

struct why_model;

struct why_model *why_model_new(void);
void why_model_free(struct why_model *m);
/* Feed it, in time order per source; 0 or -ENOMEM. */
int why_model_event(struct why_model *m, const struct why_event *e);
int why_model_row(struct why_model *m, const struct why_row *r);
/*
 * Events a tool's BPF side could not record, since it started (its
 * "lost_events"): the findings rest on every decision being there.
 */
enum why_source { WHY_SRC_SNOOP, WHY_SRC_TOP, WHY_SRC_NR };
void why_model_lost(struct why_model *m, enum why_source src, __u64 total);

enum why_rule {
	WHY_UNREACHABLE, WHY_TEN_PERCENT, WHY_NO_CHARGE, WHY_FLAPPING,
	WHY_SLOW_RECOVERY, WHY_NOTHING_TO_THROTTLE, WHY_COOKIE_FLOOR,
	WHY_TIGHTER_OWNS, WHY_UNKNOWN_DEPTH, WHY_GHOST_CULPRIT,
	WHY_TARGET_PARSE, WHY_RULE_NR,
};
extern const char *const why_rule_names[WHY_RULE_NR];

struct why_finding {
	enum why_rule rule;
	char device[WHY_DEV_LEN];
	char *cgroup;		/* the group the finding is about */
	char *others;		/* the other groups it names, ", "-separated */
	char *summary;		/* one sentence */
	char *evidence;		/* the numbers */
	char *advice;		/* what to do */
	char *command;		/* a shell command that does it, or "" */
};

struct why_findings {
	struct why_finding *v;
	size_t n, cap;
	double first, last;	/* the time the recordings span */
	size_t events, rows;	/* what was read */
	__u64 lost[WHY_SRC_NR];	/* what the tools lost */
};

/* Run every rule over what was fed: findings in @out, 0 or -ENOMEM. */
int why_analyse(struct why_model *m, struct why_findings *out);
void why_findings_free(struct why_findings *f);

#endif /* __IOLAT_WHY_RULES_H */
