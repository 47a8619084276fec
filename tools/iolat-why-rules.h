/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-why's rules: read the finished model (iolat-why-model.h) and turn
 * the patterns that last into findings, each with its summary, evidence,
 * advice and command.  The tool prints them (iolat-why.c); the host test
 * (tests/host/14-why) feeds canned recordings through the tool.
 */
#ifndef __IOLAT_WHY_RULES_H
#define __IOLAT_WHY_RULES_H

#include "iolat-why-model.h"

enum why_rule {
	WHY_UNREACHABLE, WHY_TEN_PERCENT, WHY_NO_CHARGE, WHY_FLAPPING,
	WHY_SLOW_RECOVERY, WHY_NOTHING_TO_THROTTLE, WHY_COOKIE_FLOOR,
	WHY_TIGHTER_OWNS, WHY_UNKNOWN_DEPTH, WHY_GHOST_CULPRIT,
	WHY_TARGET_PARSE, WHY_BIO_DEVICE, WHY_EQUAL_TARGETS, WHY_RULE_NR,
};
extern const char *const why_rule_names[WHY_RULE_NR];

struct why_finding {
	enum why_rule rule;
	char device[WHY_DEV_LEN];
	char *cgroup;		/* the group the finding is about: its path */
	__u64 cgroup_id;	/* and its id, 0 if unknown */
	char *name;		/* how the text names it (the path, and the id on a clash) */
	char *others;		/* the other groups it names, one a line */
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
	/*
	 * Rules not run, a bit per enum why_rule: the recording is iolat-top's
	 * io.stat mode alone (no events), and they need what only the events
	 * tell.  why_rules_unchecked() says which.
	 */
	unsigned int unchecked;
	bool iostat_mode;	/* iolat-top's rows came from its io.stat mode */
	/* Without the events, on the controller's functions: which tool, what seen. */
	bool fn_mode[WHY_SRC_NR];
	bool fn_charges, fn_pays;
};

/*
 * The rules a model fed only what a kernel without the events gives
 * (iolat-top's io.stat mode, iolat-snoop's records of the controller's
 * functions) cannot check: all but target_not_as_meant,
 * target_on_bio_device and
 * depth_unknown; unreachable_target and nothing_to_throttle too without
 * blkcg_debug_stats; no_charge_without_target is checked when the
 * functions showed the delay charged and blkcg_debug_stats the
 * use_delay.  0 with events.
 */
unsigned int why_rules_unchecked(const struct why_model *m);

/*
 * The cgroup2 mount of the system the commands are for (iolat-why.c finds
 * it); /sys/fs/cgroup until set.  Recordings hold paths relative to it.
 */
void why_rules_cgroup_mount(const char *dir);

/* Run every rule over what was fed: findings in @out, 0 or -ENOMEM. */
int why_analyse(struct why_model *m, struct why_findings *out);
void why_findings_free(struct why_findings *f);

#endif /* __IOLAT_WHY_RULES_H */
