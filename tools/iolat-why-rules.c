// SPDX-License-Identifier: GPL-2.0
/* iolat-why's rules and their findings.  See iolat-why-rules.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-why-rules.h"

const char *const why_rule_names[WHY_RULE_NR] = {
	"unreachable_target", "ten_percent_rule", "no_charge_without_target",
	"flapping", "slow_recovery", "nothing_to_throttle", "cookie_at_floor",
	"tighter_sibling_owns_scaling", "depth_unknown", "ghost_culprit",
	"target_not_as_meant", "target_on_bio_device", "equal_targets",
};

/*
 * The thresholds.  Each rule fires on a pattern that lasts, never on one
 * window: a healthy protected group misses now and then, its siblings'
 * depth moves a few times, its parent's cookie goes down and back up.
 */
#define MIN_WINDOWS		10	/* before saying anything of a group's windows */
#define UNREACHABLE_PCT		90	/* windows missed, with siblings at depth 1 */
#define UNREACHABLE_AFTER	5	/* windows after a sibling reached depth 1 */
#define TAIL_MIN		5	/* windows with a hidden tail */
#define TAIL_SHARE_PCT		1	/* of the met windows' bios over target */
#define TAIL_MISSED_PCT		10	/* windows missed, at most: rarely acted on */
#define FLAP_MIN		5	/* downs and ups each */
#define FLAP_REVERSALS		6	/* changes of direction */
#define FLAP_RATE		1.0	/* of them a second: the demo has 2 */
#define FLAP_SHARE		0.75	/* of the moves after the first */
#define RECOVERY_SLOW_S		10.0	/* from the last scale-down to depth max */
#define NOTHING_MISSED_PCT	50
#define FLOOR_NOOPS		3	/* scale-downs that changed nothing */
#define TIGHTER_MIN		5
#define TIGHTER_MIN_TOP		3	/* iolat-top's samples: one window a second */
#define GHOST_GRACE_S		6.0	/* the timer forgets a culprit after 5 s */
#define EQUAL_SKIPS		3	/* scale-downs an equal sibling did not follow */
#define EQUAL_MISSED_PCT	10	/* of the culprit's windows */
/* and WHY_TARGET_TINY_US, WHY_TARGET_HUGE_US in iolat-why-model.h */

/* ---- findings ---- */

struct sbuf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || b->oom)
		return;
	if (b->n + len + 1 > b->cap) {
		size_t cap = (b->n + len + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, len + 1, fmt, ap);
	va_end(ap);
	b->n += len;
}

static char *sb_take(struct sbuf *b)
{
	char *s = b->s ? b->s : strdup("");

	memset(b, 0, sizeof(*b));
	return s;
}

struct finding_text {
	struct sbuf summary, evidence, advice, others, command;
};

static int add_finding(struct why_findings *out, enum why_rule rule,
		       const struct why_cg *c, struct finding_text *t)
{
	struct why_finding *f;
	bool oom = t->summary.oom || t->evidence.oom || t->advice.oom || t->others.oom ||
		   t->command.oom;

	if (oom || iolat_grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v))) {
		free(t->summary.s);
		free(t->evidence.s);
		free(t->advice.s);
		free(t->others.s);
		free(t->command.s);
		return -ENOMEM;
	}
	f = &out->v[out->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	snprintf(f->device, sizeof(f->device), "%s", c->device);
	f->cgroup = strdup(c->path);
	f->name = strdup(c->name);
	f->cgroup_id = c->id;
	f->summary = sb_take(&t->summary);
	f->evidence = sb_take(&t->evidence);
	f->advice = sb_take(&t->advice);
	f->others = sb_take(&t->others);
	f->command = sb_take(&t->command);
	if (!f->cgroup || !f->name || !f->summary || !f->evidence || !f->advice || !f->others ||
	    !f->command)
		return -ENOMEM;
	return 0;
}

void why_findings_free(struct why_findings *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].cgroup);
		free(f->v[i].name);
		free(f->v[i].others);
		free(f->v[i].summary);
		free(f->v[i].evidence);
		free(f->v[i].advice);
		free(f->v[i].command);
	}
	free(f->v);
	memset(f, 0, sizeof(*f));
}

/* Each name once, a line each: escaped names hold no newline, any comma. */
static void add_other(struct finding_text *t, const char *path)
{
	const char *s = t->others.s;
	size_t len = strlen(path);

	while (s && (s = strstr(s, path))) {
		if ((s == t->others.s || s[-1] == '\n') && (!s[len] || s[len] == '\n'))
			return;
		s++;
	}
	sb_printf(&t->others, "%s%s", t->others.n ? "\n" : "", path);
}

/* The cgroup2 mount the commands write under; iolat-why.c finds it. */
static const char *cgroup_mount = "/sys/fs/cgroup";

void why_rules_cgroup_mount(const char *dir)
{
	cgroup_mount = dir;
}

/*
 * @prefix, the bytes of escaped name @name, @suffix: a file's path,
 * malloc()ed.  Text iolat_esc() does not write is taken as it is.
 */
static char *raw_path(const char *prefix, const char *name, const char *suffix)
{
	size_t n = strlen(prefix), len = n + strlen(name) + strlen(suffix) + 1;
	char *s = malloc(len);

	if (!s)
		return NULL;
	strcpy(s, prefix);
	if (iolat_unesc(s + n, len - n, name))
		strcpy(s + n, name);
	strcat(s, suffix);
	return s;
}

/* @s as one shell word, malloc()ed (NULL: @s NULL, or out of memory). */
static char *shell_word(const char *s)
{
	char *q = s ? malloc(IOLAT_SHELL_LEN(strlen(s))) : NULL;

	return q ? (char *)iolat_shell_quote(q, IOLAT_SHELL_LEN(strlen(s)), s) : NULL;
}

/*
 * A command that writes "MAJ:MIN target=@value" of disk @dev into the
 * io.latency of @path (both escaped, as the model keeps names), every
 * argument quoted for the shell: names are anyone's who made them, and
 * the command is pasted as root.
 */
static void target_command(struct finding_text *t, const char *dev, const char *path,
			   const char *value)
{
	char *file = raw_path(cgroup_mount, path, "/io.latency");
	char *devfile = raw_path("/sys/block/", dev, "/dev");
	char *qfile = shell_word(file), *qdev = shell_word(devfile);

	if (!qfile || !qdev)
		t->command.oom = true;
	else if (path[0] == '/')	/* not cut past PATH_MAX (".../b/c") */
		sb_printf(&t->command, "echo \"$(cat %s) target=%s\" > %s", qdev, value, qfile);
	free(file);
	free(devfile);
	free(qfile);
	free(qdev);
}

/* The window log a group's rules read: iolat-snoop's when it has one. */
static const struct why_wlog *wins(const struct why_cg *c)
{
	return c->ws.n ? &c->ws : &c->wt;
}

/* Windows and missed windows: counted exactly by either tool. */
static void win_counts(const struct why_cg *c, __u64 *n, __u64 *missed)
{
	size_t i;

	*n = *missed = 0;
	if (c->ws.n >= c->top_windows) {
		for (i = 0; i < c->ws.n; i++) {
			if (c->ws.v[i].action == WHY_ACT_OFFLINE)
				continue;
			(*n)++;
			*missed += c->ws.v[i].verdict_missed;
		}
	} else {
		*n = c->top_windows;
		*missed = c->top_missed;
	}
}

static bool is_root(const struct why_cg *c)
{
	return !strcmp(c->path, "/");
}

/*
 * Siblings: the kids of one parent (why_model_finish() builds the tree
 * once) that were there at the same time - a cgroup removed and one made
 * after it under the same path never competed.  Loop over @c's with
 * nsib() and sib(), testing same_parent().
 */
static bool same_parent(const struct why_cg *a, const struct why_cg *b)
{
	return a != b && !b->implied && a->parent && a->parent == b->parent &&
	       a->first_t <= b->last_t && b->first_t <= a->last_t;
}

static size_t nsib(const struct why_cg *c)
{
	return c->parent ? c->parent->nkids : 0;
}

static struct why_cg *sib(const struct why_cg *c, size_t i)
{
	return c->parent->kids[i];
}

/* When @c first reached depth 1; 0 if never. */
static double at_depth1(const struct why_cg *c)
{
	size_t i;

	for (i = 0; i < c->dn; i++)
		if (c->dv[i].depth == 1)
			return c->dv[i].t;
	return 0;
}

static const char *depth_text(__u32 d, char *buf, size_t len)
{
	if (d == WHY_DEPTH_MAX)
		return "max";
	snprintf(buf, len, "%u", d);
	return buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median, over @c's missed windows, of the share of bios over target
 * (non-rotational, in %) or the mean latency (rotational, in us).  -1: none.
 */
static double missed_median(const struct why_wlog *l, bool *ssd)
{
	double *v = malloc((l->n ?: 1) * sizeof(*v)), med = -1;
	size_t i, k = 0;

	if (!v)
		return -1;
	for (i = 0; i < l->n; i++) {
		const struct why_win *w = &l->v[i];

		if (!w->verdict_missed || !w->samples)
			continue;
		*ssd = w->ssd;
		v[k++] = w->ssd ? 100.0 * w->missed / w->samples : w->mean_us;
	}
	if (k) {
		qsort(v, k, sizeof(*v), cmp_double);
		med = v[k / 2];
	}
	free(v);
	return med;
}

static void sibling_text(struct finding_text *t, const struct why_cg *s)
{
	char d[16];

	sb_printf(&t->evidence, "; %s: depth %s", s->name,
		  s->depth_known ? depth_text(s->min_depth, d, sizeof(d)) : "unknown");
	if (s->max_use_delay > 0)
		sb_printf(&t->evidence, ", use_delay up to %lld", (long long)s->max_use_delay);
	if (s->iops_n && s->iops_min < s->iops_max)
		sb_printf(&t->evidence, ", %.0f-%.0f IOPS", s->iops_min, s->iops_max);
	else if (s->iops_n)
		sb_printf(&t->evidence, ", %.0f IOPS", s->iops_max);
	add_other(t, s->name);
}

static void remove_target_advice(struct finding_text *t, const struct why_cg *c)
{
	target_command(t, c->device, c->path, "max");
}

static bool tighter_owned(struct why_model *m, const struct why_cg *c, __u64 *owned,
			  __u64 *tighter, __u64 *sampled, __u64 *missed);

static int rule_unreachable(struct why_model *m, struct why_cg *c,
			    struct why_findings *out)
{
	const struct why_wlog *l = wins(c);
	struct finding_text t = {};
	double first1 = 0, med;
	__u64 n, missed, after = 0, after_missed = 0, owned, tighter, sampled, owner_missed;
	bool ssd = false;
	size_t i;

	win_counts(c, &n, &missed);
	if (!c->target_us || n < MIN_WINDOWS || missed * 100 < n * UNREACHABLE_PCT)
		return 0;
	/* The siblings it had throttled as far as they go: depth 1. */
	for (i = 0; i < nsib(c); i++) {
		double t1 = same_parent(c, sib(c, i)) ? at_depth1(sib(c, i)) : 0;

		if (t1 && (!first1 || t1 < first1))
			first1 = t1;
	}
	if (!first1)
		return 0;
	for (i = 0; i < l->n; i++) {
		if (l->v[i].t < first1 || l->v[i].action == WHY_ACT_OFFLINE)
			continue;
		after++;
		after_missed += l->v[i].verdict_missed;
	}
	if (after < UNREACHABLE_AFTER || after_missed * 100 < after * UNREACHABLE_PCT)
		return 0;
	/*
	 * Misses while a tighter sibling owns the scaling are that sibling's
	 * throttling holding this group too: its own target may well be in
	 * reach (tighter_sibling_owns_scaling says so).
	 */
	if (tighter_owned(m, c, &owned, &tighter, &sampled, &owner_missed))
		return 0;
	med = missed_median(l, &ssd);
	sb_printf(&t.summary, "%s's target %lluus is out of reach on %s: it missed "
		  "%llu of %llu windows, and still %llu of %llu%s once its siblings were "
		  "at depth 1, so throttling them buys it nothing",
		  c->name, c->target_us, c->device, missed, n, after_missed, after,
		  l == &c->ws ? "" : m->iostat_debug_rows ? " in io.stat's windows in progress "
		  "(iolat-top without the events)" : m->iostat_sample_rows ? " in the state "
		  "reader's samples of its accumulated windows (iolat-top without the events)" :
		  " seen by iolat-top");
	if (med >= 0 && ssd)
		sb_printf(&t.evidence, "median %.0f%% of its bios over %lluus in a missed window "
			  "(a window misses at 10%%)", med, c->target_us);
	else if (med >= 0)
		sb_printf(&t.evidence, "median window mean %.0fus against its %lluus target",
			  med, c->target_us);
	sb_printf(&t.evidence, "%sa sibling reached depth 1 %.1fs into the recording",
		  t.evidence.n ? "; " : "", first1 - m->first);
	for (i = 0; i < nsib(c); i++)
		if (same_parent(c, sib(c, i)) && sib(c, i)->depth_known)
			sibling_text(&t, sib(c, i));
	sb_printf(&t.advice, "the device itself is slower than %lluus for this IO: measure "
		  "%s's latency with the device otherwise idle (fio at its real queue depth; "
		  "p90 on non-rotational devices) and set the target above it with headroom, "
		  "or remove it", c->target_us, c->name);
	remove_target_advice(&t, c);
	return add_finding(out, WHY_UNREACHABLE, c, &t);
}

/*
 * The 10% rule (blk-iolatency.c latency_sum_ok()): a non-rotational window
 * misses only when max(samples / 10, 1) of its bios or more were over the
 * target, so io.latency bounds a group's p90, not its tail.  A finding
 * must say protection is lost, not that a protected group has a tail:
 *
 *  - the controller rarely acts for the group: at most 10% of its windows
 *    missed, counted exactly (iolat-snoop's every window, or iolat-top's
 *    counters), never from iolat-top's one window an interval.  A group
 *    protected at its p90 misses now and then, each miss scaling its
 *    siblings down; scenario 2's tight missed 21-26 of ~97, but only 0-1
 *    of the 11 windows iolat-top sampled, which made this rule fire on it;
 *  - the hidden tail lasts: bios over target in a window that met, in
 *    TAIL_MIN windows and in half of those looked at at least;
 *  - and it is not noise: 1% or more of the bios of the windows that met
 *    were over target, i.e. the group's p99 is over its target while
 *    io.latency sees nothing to do (scenario 2's tight, when it rarely
 *    missed: 1 or 2 of ~30 bios over in half of its met windows, 2.3% in
 *    all).  The canned healthy run has one of 30 in every seventh window,
 *    0.5%: the odd slow bio, no finding.
 */
static int rule_ten_percent(struct why_model *m, struct why_cg *c,
			    struct why_findings *out)
{
	const struct why_wlog *l = wins(c);
	struct finding_text t = {};
	__u64 n = 0, met = 0, tail = 0, all, missed, over = 0, bios = 0;
	double max = 0;
	size_t i, shown = 0;

	for (i = 0; i < l->n; i++) {
		const struct why_win *w = &l->v[i];

		if (!w->ssd || w->action == WHY_ACT_OFFLINE)
			continue;
		n++;
		if (!w->win_met || w->verdict_missed || !w->samples)
			continue;
		met++;
		over += w->missed;
		bios += w->samples;
		if (w->missed) {
			double share = 100.0 * w->missed / w->samples;

			tail++;
			if (share > max)
				max = share;
		}
	}
	win_counts(c, &all, &missed);
	/* A group throttled itself is not the one being protected. */
	if (!c->target_us || !n || all < MIN_WINDOWS || missed * 100 > all * TAIL_MISSED_PCT ||
	    tail < TAIL_MIN || tail * 2 < met || over * 100 < bios * TAIL_SHARE_PCT ||
	    c->min_depth != WHY_DEPTH_MAX)
		return 0;
	sb_printf(&t.summary, "%s's tail on %s is over its %lluus target but never counts: "
		  "%.1f%% of the bios of the windows that met the target were over it (p%.0f "
		  "and above), in %llu of %llu such windows%s; a non-rotational window misses "
		  "only at 10%%, so io.latency acted for it in %llu of %llu windows", c->name,
		  c->device, c->target_us, 100.0 * over / bios, ceil(100.0 - 100.0 * over / bios),
		  tail, met, l == &c->ws ? "" : " seen by iolat-top", missed, all);
	sb_printf(&t.evidence, "share of bios over target per window:");
	for (i = 0; i < l->n && shown < 12; i++) {
		const struct why_win *w = &l->v[i];

		if (!w->ssd || !w->samples || w->action == WHY_ACT_OFFLINE)
			continue;
		sb_printf(&t.evidence, " %.1f%% (%u/%u)", 100.0 * w->missed / w->samples,
			  w->missed, w->samples);
		shown++;
	}
	sb_printf(&t.evidence, "%s; at most %.1f%% in a window that met it; %llu of %llu "
		  "window%s missed", n > shown ? " ..." : "", max, missed, all, all == 1 ? "" : "s");
	sb_printf(&t.advice, "on a non-rotational device the target bounds the group's "
		  "p90, not its tail: set it to what the 90th percentile must stay under "
		  "(lower than now, so that the tail it cares about crosses 10%%), or accept "
		  "that io.latency does not protect its p99");
	return add_finding(out, WHY_TEN_PERCENT, c, &t);
}

static int rule_no_charge(struct why_model *m, struct why_cg *c,
			  struct why_findings *out)
{
	struct finding_text t = {};
	const struct why_cg *charged = NULL;
	double write_mbps = c->delayed_s ? c->write_mb_delayed / c->delayed_s : 0;
	size_t i;

	if (c->ever_target || c->max_use_delay <= 0 || is_root(c) ||
	    c->charged_ms > 0 || c->charges || c->pays || c->paid_ms > 0)
		return 0;
	for (i = 0; i < nsib(c); i++) {
		const struct why_cg *s = sib(c, i);

		if (same_parent(c, s) && s->ever_target && (s->charged_ms > 0 || s->charges))
			charged = s;
	}
	/* Root-issued IO (swap-outs, metadata) shows as writes while delayed. */
	if (write_mbps < 0.5 && !charged)
		return 0;
	sb_printf(&t.summary, "%s on %s is \"delayed\" (use_delay up to %lld) but has no "
		  "target, so its root-issued IO (swap, metadata) is never charged induced "
		  "delay and its tasks never sleep", c->name, c->device,
		  (long long)c->max_use_delay);
	sb_printf(&t.evidence, "0ms charged, 0ms paid");
	if (c->delayed_s)
		sb_printf(&t.evidence, "; writing %.1f MB/s while delayed (swap-outs are issued "
			  "as root: no depth limit holds them)", write_mbps);
	if (c->depth_known) {
		char d[16];

		sb_printf(&t.evidence, "; depth down to %s",
			  depth_text(c->min_depth, d, sizeof(d)));
	}
	if (charged) {
		sb_printf(&t.evidence, "; sibling %s, target %lluus, was charged %.0fms",
			  charged->name, charged->target_us,
			  charged->charged_ms ?: charged->charged_ev_us / 1000);
		add_other(&t, charged->name);
	}
	sb_printf(&t.advice, "give %s a loose target (10 ms, say): a root-issued bio charges "
		  "the group's own target minus its latency, and a group without a target has "
		  "nothing to charge", c->name);
	target_command(&t, c->device, c->path, "10000");
	return add_finding(out, WHY_NO_CHARGE, c, &t);
}

/* The culprit a parent's scaling named last, by path if known. */
static const char *culprit_of(struct why_model *m, const struct why_cg *p,
			      __u64 *id)
{
	size_t i;

	for (i = p->sn; i-- > 0;) {
		const struct why_cg *c;

		if (!p->sv[i].culprit_id)
			continue;
		*id = p->sv[i].culprit_id;
		c = why_cg_by_id(m, p->device, p->sv[i].culprit_id);
		return c ? c->name : NULL;
	}
	*id = 0;
	return NULL;
}

/* The group @p's scaling named last, NULL if none or not in the records. */
static struct why_cg *culprit_cg(struct why_model *m, const struct why_cg *p)
{
	__u64 id;

	culprit_of(m, p, &id);
	return why_cg_by_id(m, p->device, id);
}

static void culprit_text(struct why_model *m, struct finding_text *t,
			 const struct why_cg *p, const char **name)
{
	static char buf[64];
	const char *path;
	__u64 id;

	path = culprit_of(m, p, &id);
	if (!path && id) {
		snprintf(buf, sizeof(buf), "cgroup id %llu", id);
		path = buf;
	} else if (path) {
		add_other(t, path);
	}
	*name = path ?: "its culprit";
}

/* Is @s a child of @p?  Loop over p->kids. */
static bool child_of(const struct why_cg *s, const struct why_cg *p)
{
	return s->parent == p && !s->implied;
}

/* Does @p's scale log have iolat-snoop's cookie events (else iolat-top's rows)? */
static bool has_cookie_events(const struct why_cg *p)
{
	size_t i;

	for (i = 0; i < p->sn; i++)
		if (p->sv[i].type == WHY_EV_COOKIE)
			return true;
	return false;
}

static int rule_flapping(struct why_model *m, struct why_cg *p,
			 struct why_findings *out)
{
	struct finding_text t = {};
	__u64 downs = 0, ups = 0, reversals = 0, moving = 0, mixed = 0;
	double first = 0, last = 0;
	int dir = 0;
	const char *culprit;
	bool events = has_cookie_events(p);
	size_t i;

	for (i = 0; i < p->sn; i++) {
		const struct why_scale *s = &p->sv[i];
		int d;

		if (events) {
			if (s->type != WHY_EV_COOKIE || s->by != WHY_BY_WINDOW)
				continue;
			d = s->new < s->old ? -1 : 1;
			d < 0 ? downs++ : ups++;
		} else {
			/*
			 * iolat-top: counts per interval, not their order.
			 * Both ways in one interval is one reversal at least:
			 * a lower bound, so that a slow cycle is not taken
			 * for flapping.
			 */
			if (s->type != WHY_EV_NR || (!s->downs && !s->ups))
				continue;
			downs += s->downs;
			ups += s->ups;
			moving++;
			if (s->downs && s->ups) {
				/* which way it ended is unknown: no change counted next */
				reversals++;
				mixed++;
				dir = 0;
				goto next;
			}
			d = s->downs ? -1 : 1;
		}
		if (dir && d != dir)
			reversals++;
		dir = d;
next:
		if (!first)
			first = s->t;
		last = s->t;
	}
	/*
	 * A protected group that meets its target raises the cookie every
	 * 500ms until it misses again: a slow cycle is the controller at work.
	 */
	if (downs < FLAP_MIN || ups < FLAP_MIN || reversals < FLAP_REVERSALS)
		return 0;
	/*
	 * Flapping is each move undoing the one before.  A miss after a few
	 * steps up is the controller probing, a sawtooth: one step down, two
	 * or more up, as often as a flap (scenario 2 at 1.1 reversals a
	 * second, a quarter to three fifths of its moves reversing; scenario
	 * 7's flapping 89-100%).  iolat-top's counts give a lower bound of the
	 * reversals: there, it flaps when most intervals that moved the
	 * cookie moved it both ways.
	 */
	if (events ? reversals < FLAP_RATE * (last - first) ||
		     reversals < FLAP_SHARE * (downs + ups - 1) :
		     mixed * 4 < moving * 3)
		return 0;
	culprit_text(m, &t, p, &culprit);
	sb_printf(&t.summary, "the scaling of %s's children on %s flaps: %llu scale-downs and "
		  "%llu scale-ups in %.0fs, changing direction %s%llu times, for %s",
		  p->name, p->device, downs, ups, last - first, events ? "" : "at least ",
		  reversals, culprit);
	if (events)
		sb_printf(&t.evidence, "%.2f changes of direction a second, %.0f%% of the moves",
			  last > first ? reversals / (last - first) : (double)reversals,
			  100.0 * reversals / (downs + ups - 1));
	else
		sb_printf(&t.evidence, "%llu of the %llu intervals that moved the cookie moved "
			  "it both ways", mixed, moving);
	for (i = 0; i < p->nkids; i++) {
		const struct why_cg *s = p->kids[i];

		if (!child_of(s, p) || !strcmp(s->name, culprit) || !s->depth_changes)
			continue;
		sb_printf(&t.evidence, "; what it costs %s: its depth changed %llu times",
			  s->name, s->depth_changes);
		if (s->iops_n)
			sb_printf(&t.evidence, ", IOPS between %.0f and %.0f", s->iops_min,
				  s->iops_max);
		add_other(&t, s->name);
	}
	sb_printf(&t.advice, "%s's target sits at the edge of what it gets: met as soon as "
		  "its siblings get some depth back, missed again once they use it.  Raise "
		  "its target a little above the latency it sees with them throttled, so that "
		  "it is met at a depth they can keep", culprit);
	return add_finding(out, WHY_FLAPPING, p, &t);
}

/* Did @c's iolat-top rows end before the recording did (removed, or idle)? */
static bool gone_from_rows(const struct why_model *m, const struct why_cg *c)
{
	return c->last_row_t + 2.0 < m->last;
}

/* The last missed window of @c, 0 if none. */
static double last_missed(const struct why_cg *c)
{
	const struct why_wlog *l = wins(c);
	size_t i;

	for (i = l->n; i-- > 0;)
		if (l->v[i].verdict_missed)
			return l->v[i].t;
	return 0;
}

/* The last window of @c, 0 if none. */
static double last_window(const struct why_cg *c)
{
	double t = 0;

	if (c->ws.n)
		t = c->ws.v[c->ws.n - 1].t;
	if (c->wt.n && c->wt.v[c->wt.n - 1].t > t)
		t = c->wt.v[c->wt.n - 1].t;
	return t;
}

static int rule_slow_recovery(struct why_model *m, struct why_cg *p,
			      struct why_findings *out)
{
	struct finding_text t = {};
	double down = 0, forgot = 0, back = 0, depth_back = 0, done;
	bool events = has_cookie_events(p), not_back = false;
	const struct why_cg *cul;
	__u64 steps = 0;
	const char *culprit;
	size_t i, j;

	/* The last window-driven scale-down. */
	for (i = p->sn; i-- > 0;) {
		const struct why_scale *s = &p->sv[i];

		if (events ? s->type == WHY_EV_COOKIE && s->by == WHY_BY_WINDOW && s->new < s->old :
			     s->type == WHY_EV_NR && s->downs) {
			down = s->t;
			break;
		}
	}
	/* Downs at the floor move nothing but are scale events all the same. */
	if (p->last_down_window > down)
		down = p->last_down_window;
	if (!down)
		return 0;
	/* A parent gone from iolat-top's rows was removed: nothing to recover. */
	if (m->rows && gone_from_rows(m, p))
		return 0;
	cul = culprit_cg(m, p);
	/*
	 * A culprit still missing at the cookie's floor scales on (iolat-top's
	 * counters do not move there): its last missed window is a scale event.
	 */
	if (cul && last_missed(cul) > down)
		down = last_missed(cul);
	for (j = i + 1; j < p->sn; j++) {
		const struct why_scale *s = &p->sv[j];

		if (s->t < down)
			continue;
		if (s->type == WHY_EV_FORGOT && !forgot)
			forgot = s->t;
		if (events ? s->type == WHY_EV_COOKIE && s->by == WHY_BY_TIMER :
			     s->type == WHY_EV_NR)
			steps += events ? 1 : s->ups;
		if (!back && (s->type == WHY_EV_RESET || s->new >= WHY_DEFAULT_COOKIE))
			back = s->t;
	}
	/* When the children it throttled had depth max again, for good. */
	for (i = 0; i < p->nkids; i++) {
		const struct why_cg *s = p->kids[i];
		double at = 0;

		if (!child_of(s, p) || s == cul || s->min_depth == WHY_DEPTH_MAX ||
		    s->gone || (m->rows && gone_from_rows(m, s)))
			continue;
		/*
		 * A group's depth follows the cookie on its next bio: one with
		 * no IO since the cookie came back keeps its old depth in every
		 * record, and gets depth max with its next bio.
		 */
		if (back && s->last_io_t < back)
			continue;
		if (s->depth != WHY_DEPTH_MAX) {
			not_back = true;
			add_other(&t, s->name);
			continue;
		}
		for (j = s->dn; j-- > 0 && s->dv[j].depth == WHY_DEPTH_MAX;)
			at = s->dv[j].t;
		if (at < down)
			continue;	/* back before the last scale-down */
		if (at > depth_back)
			depth_back = at;
		add_other(&t, s->name);
	}
	done = not_back ? 0 : depth_back ?: back;
	if ((done ? done : m->last) - down < RECOVERY_SLOW_S)
		return 0;
	/*
	 * The timer's recovery, once the culprit stopped doing IO: one still
	 * checking windows at the end keeps its siblings throttled by design.
	 */
	if (cul && last_window(cul) + 1.0 > (done ?: m->last))
		return 0;
	culprit_text(m, &t, p, &culprit);
	if (done)
		sb_printf(&t.summary, "%s's children on %s took %.1fs after the last scale-down "
			  "to be unthrottled again", p->name, p->device, done - down);
	else
		sb_printf(&t.summary, "%s's children on %s were still throttled %.1fs after the "
			  "last scale-down, when the recording ended", p->name, p->device,
			  m->last - down);
	sb_printf(&t.evidence, "last scale-down, for %s, %.1fs into the recording", culprit,
		  down - m->first);
	if (forgot)
		sb_printf(&t.evidence, "; culprit forgotten %.1fs later", forgot - down);
	else
		sb_printf(&t.evidence, "; culprit never forgotten");
	sb_printf(&t.evidence, "; %llu cookie step%s up on the idle timer", steps,
		  steps == 1 ? "" : "s");
	if (back)
		sb_printf(&t.evidence, "; cookie back at its default %.1fs after", back - down);
	if (depth_back)
		sb_printf(&t.evidence, "; depth max again %.1fs after", depth_back - down);
	sb_printf(&t.advice, "this is io.latency's design: a parent forgets its culprit only "
		  "after 5s without a scale event, then the idle timer raises the cookie one "
		  "step a second.  When the protected job ends, remove its target (writing a "
		  "target resets the parent's scaling at once)");
	if (cul && cul->path[0] == '/')
		target_command(&t, p->device, cul->path, "max");

	return add_finding(out, WHY_SLOW_RECOVERY, p, &t);
}

static bool looser(const struct why_cg *s, const struct why_cg *c)
{
	return !s->target_us || s->target_us > c->target_us;
}

static bool did_io(const struct why_cg *s)
{
	return (s->iops_n && s->iops_max > 0) || s->ws.n || s->dn || s->charges;
}

/*
 * The siblings @c's misses spare: their target equals @c's, so when @c
 * misses and scales their parent's children down, the kernel's
 * check_scale_change() leaves them alone (a group's target no looser
 * than the one that missed: "protected"), and they did IO.  Counted from
 * iolat-snoop's skip records where the two targets are equal, or from
 * iolat-top's counter while @c was the culprit.  With @t, named in it.
 */
static size_t equal_spared(struct why_model *m, const struct why_cg *c,
			   struct finding_text *t)
{
	size_t i, n = 0;

	if (!c->target_us || !c->parent || culprit_cg(m, c->parent) != c)
		return 0;
	for (i = 0; i < nsib(c); i++) {
		const struct why_cg *s = sib(c, i);
		__u64 k = s->skips_equal ?: s->skips_protected_top;

		if (!same_parent(c, s) || s->target_us != c->target_us || k < EQUAL_SKIPS ||
		    !did_io(s))
			continue;
		n++;
		if (t) {
			sb_printf(&t->evidence, "; %s (target %lluus) did not follow %llu of them",
				  s->name, s->target_us, k);
			if (s->iops_n)
				sb_printf(&t->evidence, ", %.0f IOPS on average",
					  s->iops_sum / s->iops_n);
			add_other(t, s->name);
		}
	}
	return n;
}

static int rule_equal(struct why_model *m, struct why_cg *c, struct why_findings *out)
{
	struct finding_text t = {};
	__u64 n, missed;
	size_t spared;

	win_counts(c, &n, &missed);
	if (n < MIN_WINDOWS || missed * 100 < n * EQUAL_MISSED_PCT || !equal_spared(m, c, NULL))
		return 0;
	sb_printf(&t.evidence, "missed %llu of %llu windows", missed, n);
	spared = equal_spared(m, c, &t);
	sb_printf(&t.summary, "%s misses its %lluus target on %s, and %zu sibling%s with the "
		  "same target %s not throttled for it: io.latency throttles only siblings "
		  "with looser targets, so equal targets protect each other", c->name,
		  c->target_us, c->device, spared, spared == 1 ? "" : "s",
		  spared == 1 ? "is" : "are");
	sb_printf(&t.advice, "if %s comes first, give the others a looser target than "
		  "%lluus (or none); if they matter as much, io.latency cannot choose between "
		  "them: put them on separate devices or cap the others with io.max", c->name,
		  c->target_us);
	return add_finding(out, WHY_EQUAL_TARGETS, c, &t);
}

static int rule_nothing(struct why_model *m, struct why_cg *c,
			struct why_findings *out)
{
	struct finding_text t = {};
	const struct why_cg *a = c, *busy = NULL;
	__u64 n, missed;
	size_t i;

	win_counts(c, &n, &missed);
	if (!c->target_us || n < MIN_WINDOWS || missed * 100 < n * NOTHING_MISSED_PCT)
		return 0;
	/*
	 * Siblings with its target, doing IO: not looser, but spared for the
	 * same reason the culprit's equal_targets says.
	 */
	for (i = 0; i < nsib(c); i++)
		if (same_parent(c, sib(c, i)) && sib(c, i)->target_us == c->target_us &&
		    did_io(sib(c, i)) && (sib(c, i)->skips_equal || sib(c, i)->skips_protected_top ||
		    c->skips_equal || c->skips_protected_top))
			return 0;
	/*
	 * Throttled for it: looser siblings, and the looser siblings of each
	 * ancestor that has a target of its own (its windows scale them).
	 */
	while (a && !is_root(a)) {
		if (a == c || a->target_us)
			for (i = 0; i < nsib(a); i++)
				if (same_parent(a, sib(a, i)) && looser(sib(a, i), a) &&
				    did_io(sib(a, i)))
					return 0;
		a = a->parent;
	}
	for (i = 0; i < m->n; i++) {
		const struct why_cg *s = m->v[i];

		if (is_root(s) || s == c || strcmp(s->device, c->device) || !s->iops_n ||
		    !strncmp(c->path, s->path, strlen(s->path)))
			continue;
		if (!busy || s->iops_sum / s->iops_n > busy->iops_sum / busy->iops_n)
			busy = s;
	}
	sb_printf(&t.summary, "%s misses its %lluus target on %s, but io.latency has nothing "
		  "to throttle for it: no sibling with a looser target or none does IO on %s",
		  c->name, c->target_us, c->device, c->device);
	sb_printf(&t.evidence, "missed %llu of %llu windows", missed, n);
	for (i = 0; i < nsib(c); i++)
		if (same_parent(c, sib(c, i)))
			sb_printf(&t.evidence, "; sibling %s: target %lluus", sib(c, i)->name,
				  sib(c, i)->target_us);
	if (busy) {
		sb_printf(&t.evidence, "; IO elsewhere in the tree: %s, %.0f IOPS on average",
			  busy->name, busy->iops_sum / busy->iops_n);
		add_other(&t, busy->name);
	}
	sb_printf(&t.advice, "io.latency throttles only a group's siblings on the same device "
		  "(and an ancestor's siblings, when the ancestor has a target).  Put the noisy "
		  "workload beside %s under the same parent, or give %s's ancestor a target; "
		  "IO on another device it cannot throttle at all", c->name, c->name);
	return add_finding(out, WHY_NOTHING_TO_THROTTLE, c, &t);
}

static int rule_floor(struct why_model *m, struct why_cg *p, struct why_findings *out)
{
	struct finding_text t = {};
	const struct why_cg *cul;
	const char *culprit;
	bool siblings = false;
	size_t i;

	if (p->noop_downs < FLOOR_NOOPS)
		return 0;
	/*
	 * The floor holds back the culprit's siblings: with none doing IO the
	 * scale-downs had nobody to throttle, which is nothing_to_throttle's
	 * finding on the culprit, not this one.
	 */
	cul = culprit_cg(m, p);
	for (i = 0; i < p->nkids && !siblings; i++)
		siblings = child_of(p->kids[i], p) && p->kids[i] != cul && did_io(p->kids[i]);
	if (!siblings)
		return 0;
	culprit_text(m, &t, p, &culprit);
	if (p->floor_sampled)
		sb_printf(&t.summary, "%s's children's cookie on %s is at its floor (%u): in %llu "
			  "intervals between samples %s missed and the cookie did not move, so its "
			  "scale-downs changed nothing", p->name, p->device,
			  p->floor_cookie ?: p->min_cookie, p->noop_downs, culprit);
	else
		sb_printf(&t.summary, "%s's children's cookie on %s is at its floor (%u): %llu "
			  "further scale-downs for %s changed nothing", p->name, p->device,
			  p->floor_cookie ?: p->min_cookie, p->noop_downs, culprit);
	sb_printf(&t.evidence, "at the floor from %.1fs into the recording",
		  p->floor_t - m->first);
	if (p->nr_requests)
		sb_printf(&t.evidence, "; the floor is %u - 2 x nr_requests %u", WHY_DEFAULT_COOKIE,
			  p->nr_requests);
	for (i = 0; i < p->nkids; i++) {
		const struct why_cg *s = p->kids[i];

		if (child_of(s, p) && s->depth_known && s->min_depth != WHY_DEPTH_MAX)
			sibling_text(&t, s);
	}
	sb_printf(&t.advice, "the siblings are as throttled as io.latency can make them: "
		  "%s's misses since are not theirs.  Find why %s still misses (its target "
		  "against the device's own latency, IO of its own, IO elsewhere); lowering "
		  "them further is not possible", culprit, culprit);
	return add_finding(out, WHY_COOKIE_FLOOR, p, &t);
}

/* The target of @p's culprit at @t (the last one named before), 0 if unknown. */
static __u64 culprit_target_at(struct why_model *m, const struct why_cg *p, double t)
{
	const struct why_cg *c;
	size_t i;

	for (i = p->sn; i-- > 0;) {
		if (!p->sv[i].culprit_id || p->sv[i].t > t + 1.0)
			continue;
		c = why_cg_by_id(m, p->device, p->sv[i].culprit_id);
		return c ? c->target_us : 0;
	}
	return 0;
}

/*
 * Of @c's missed windows, those another owned: a miss is another's when a
 * tighter sibling owns the scaling, the action saying "tighter", or
 * "hold" because that sibling's own scale events keep the parent busy
 * (every 500ms, as one out of reach does); a sampled window (io.stat's,
 * the state reader's: no action) when the culprit its parent's sample
 * named then had the tighter target.  True when they are enough to say
 * so: then @c's misses are that sibling's scaling holding @c too.
 */
static bool tighter_owned(struct why_model *m, const struct why_cg *c, __u64 *owned,
			  __u64 *tighter, __u64 *sampled, __u64 *missed)
{
	const struct why_wlog *l = wins(c);
	const struct why_cg *p = c->parent;
	size_t i;

	*owned = *tighter = *sampled = *missed = 0;
	for (i = 0; i < l->n; i++) {
		const struct why_win *w = &l->v[i];
		bool no_action = w->action == WHY_ACT_OK;	/* missed: a sample's */
		__u64 lat = w->scale_lat_us;

		if (!w->verdict_missed || w->action == WHY_ACT_DOWN)
			continue;
		if (!lat && p && (w->action == WHY_ACT_HOLD || no_action))
			lat = culprit_target_at(m, p, w->t);
		if ((w->action == WHY_ACT_HOLD || no_action) && lat == c->target_us)
			continue;	/* held while it owned the scaling itself */
		(*missed)++;
		*tighter += w->action == WHY_ACT_TIGHTER;
		*sampled += no_action && lat && lat < c->target_us;
		*owned += w->action == WHY_ACT_TIGHTER ||
			  ((w->action == WHY_ACT_HOLD || no_action) && lat && lat < c->target_us);
	}
	/* iolat-top shows one window an interval: fewer are enough there. */
	return c->target_us && *owned >= (l == &c->ws ? TIGHTER_MIN : TIGHTER_MIN_TOP) &&
	       *owned * 2 >= *missed;
}

static int rule_tighter(struct why_model *m, struct why_cg *c, struct why_findings *out)
{
	const struct why_wlog *l = wins(c);
	const struct why_cg *owner = NULL;
	struct finding_text t = {};
	__u64 owned, tighter, sampled, missed;
	size_t i;

	if (!tighter_owned(m, c, &owned, &tighter, &sampled, &missed))
		return 0;
	for (i = 0; i < nsib(c); i++)
		if (same_parent(c, sib(c, i)) && sib(c, i)->target_us &&
		    sib(c, i)->target_us < c->target_us &&
		    (!owner || sib(c, i)->target_us < owner->target_us))
			owner = sib(c, i);
	sb_printf(&t.summary, "%s's misses on %s do nothing: in %llu of its %llu missed "
		  "windows%s a sibling with a tighter target owned the scaling", c->name,
		  c->device, owned, missed, l == &c->ws ? "" : " seen by iolat-top");
	if (sampled)
		sb_printf(&t.evidence, "its target %lluus; in %llu of those windows (samples, "
			  "without the events) the parent's culprit had a tighter target",
			  c->target_us, sampled);
	else
		sb_printf(&t.evidence, "its target %lluus; %llu of those windows \"tighter\", "
			  "%llu \"hold\" while the tighter sibling's scale events came every "
			  "500ms", c->target_us, tighter, owned - tighter);
	if (owner) {
		sb_printf(&t.evidence, "; %s's target %lluus", owner->name, owner->target_us);
		add_other(&t, owner->name);
	}
	sb_printf(&t.advice, "while a sibling with a tighter target misses, io.latency scales "
		  "for it alone.  If %s needs its own latency kept, give it a target no looser "
		  "than %s's; if that sibling's target is out of reach, fix that first", c->name,
		  owner ? owner->name : "the tighter sibling");
	return add_finding(out, WHY_TIGHTER_OWNS, c, &t);
}

static int rule_unknown(struct why_model *m, struct why_findings *out)
{
	const char **devs = NULL;
	size_t i, j, ndev = 0, dcap = 0;

	/* One finding per device, naming its groups: the devices, few, in turn. */
	for (i = 0; i < m->n; i++) {
		struct finding_text t = {};
		const struct why_cg *first = NULL;
		__u64 groups = 0, rows = 0;
		bool earlier = false;

		for (j = 0; j < ndev && !earlier; j++)
			earlier = !strcmp(devs[j], m->v[i]->device);
		if (earlier)
			continue;
		if (iolat_grow((void **)&devs, &dcap, ndev + 1, sizeof(*devs))) {
			free(devs);
			return -ENOMEM;
		}
		devs[ndev++] = m->v[i]->device;
		for (j = i; j < m->n; j++) {
			const struct why_cg *c = m->v[j];

			/* a bio-based device has no depth: target_on_bio_device says why */
			if (strcmp(c->device, m->v[i]->device) || is_root(c) || c->dn ||
			    c->rows < 2 || c->rows_unknown < c->rows || c->bio_based)
				continue;
			if (!first)
				first = c;
			else
				add_other(&t, c->name);
			groups++;
			rows += c->rows;
		}
		if (!first)
			continue;
		sb_printf(&t.summary, "the depth and use_delay of %llu group%s on %s are unknown: "
			  "blkcg_debug_stats is off and %s", groups, groups == 1 ? "" : "s",
			  first->device, m->iostat_rows ? "iolat-top ran without the events, "
			  "so nothing else tells them" : "nothing changed them since the "
			  "recording started");
		sb_printf(&t.evidence, "%s%s: depth null (state \"unknown\") in all %llu of their "
			  "interval rows", first->name, groups > 1 ? " and the others named" : "",
			  rows);
		sb_printf(&t.command, "echo 1 > /sys/module/blk_cgroup/parameters/blkcg_debug_stats");
		sb_printf(&t.advice, "turn blkcg_debug_stats on and record again: io.stat then shows depth and use_delay; without it a "
			  "group's depth is known only once it changes while the tools run, so these "
			  "groups may have been throttled all along");
		if (add_finding(out, WHY_UNKNOWN_DEPTH, first, &t)) {
			free(devs);
			return -ENOMEM;
		}
	}
	free(devs);
	return 0;
}

/*
 * A culprit that is gone: a kernel without the series' fixes.  With them
 * (patches/6.1, as reliability/07-remove-culprit checks) it should not
 * appear, and no guest scenario produces it; tests/host/14-why feeds it
 * canned recordings.  Every way a culprit goes away resets its parent's
 * scaling (culprit, scale_lat, cookie) under lat_info->lock: rmdir and a
 * device's removal through iolatency_pd_offline() (target cleared, then
 * iolatency_clear_scaling(): scale_reset by=offline), a target removed or
 * changed through iolatency_set_limit() (by=target); and fix 0005 stops
 * a window check already past blkcg_iolatency_done_bio()'s target test
 * from making the dying group the culprit again after that reset.  What is
 * left is not a ghost: a cgroup removed while its writeback still pins its
 * blkcg online keeps its blkgs, target and windows until the pin goes
 * (blkcg_css_offline(), blkcg_unpin_online()), and iolat-top cannot find
 * its path meanwhile; the 6 s grace below covers a short writeback.
 */
static int rule_ghost(struct why_model *m, struct why_cg *p, struct why_findings *out)
{
	struct finding_text t = {};
	__u64 id = 0, after = 0;
	double first = 0, last = 0, gone_t = 0;
	const struct why_cg *g = NULL;
	bool found = false;
	size_t i;

	for (i = 0; i < p->sn; i++) {
		const struct why_scale *s = &p->sv[i];
		const struct why_cg *c = why_cg_by_id(m, p->device, s->culprit_id);
		double since;
		bool ghost;

		if ((!s->culprit_id && !s->gone) ||
		    (s->type != WHY_EV_COOKIE && s->type != WHY_EV_NR))
			continue;
		if (c && c->gone) {
			since = s->t - c->gone_t;
			/* a scale-down for a gone group, or named long after */
			ghost = since > 0 && ((s->type == WHY_EV_COOKIE && s->new < s->old) ||
					      since >= GHOST_GRACE_S);
		} else {
			/*
			 * iolat-top names a culprit it cannot find in the tree,
			 * or the state reader's sample one that is no live child
			 */
			ghost = s->type == WHY_EV_NR && (!s->named || s->gone) &&
				s->new < WHY_DEFAULT_COOKIE;
			since = 0;
		}
		if (!ghost)
			continue;
		if (!found) {
			found = true;
			id = s->culprit_id;
			g = c;
			gone_t = c && c->gone ? c->gone_t : s->t;
			first = s->t;
		}
		if (s->culprit_id == id) {
			after++;
			last = s->t;
		}
	}
	if (!found || (!(g && g->gone) && last - first < GHOST_GRACE_S))
		return 0;
	if (!id) {
		sb_printf(&t.summary, "%s's children on %s are scaled for a culprit that is gone: "
			  "a group that is no live child of it any more (the state reader's samples "
			  "have its address, not its id)", p->name, p->device);
		sb_printf(&t.evidence, "%llu sample%s over %.1fs with the children's cookie below "
			  "%u (first %.1fs into the recording)", after, after == 1 ? "" : "s",
			  last - first, WHY_DEFAULT_COOKIE, first - m->first);
		goto advice;
	}
	sb_printf(&t.summary, "%s's children on %s are scaled for a culprit that is gone: %s "
		  "(cgroup id %llu)", p->name, p->device, g ? g->name : "an unknown cgroup", id);
	sb_printf(&t.evidence, "%llu scale event%s or interval%s naming it, from %.1fs to "
		  "%.1fs after it went (first seen gone %.1fs into the recording)", after,
		  after == 1 ? "" : "s", after == 1 ? "" : "s", first - gone_t, last - gone_t,
		  gone_t - m->first);
	if (g)
		add_other(&t, g->name);
advice:
	sb_printf(&t.advice, "the kernel should forget a culprit when it goes offline "
		  "(scale_reset by=offline; fixes 0005 and 0007 of the series): check that "
		  "the kernel has them.  Until then, writing any child's io.latency target "
		  "resets the parent's scaling");
	return add_finding(out, WHY_GHOST_CULPRIT, p, &t);
}

static int rule_target_parse(struct why_model *m, struct why_cg *c,
			     struct why_findings *out)
{
	struct finding_text t = {};
	__u64 us = c->odd_target_us;

	if (!us && !c->sub_us_target)
		return 0;
	if (c->sub_us_target && !us) {
		sb_printf(&t.summary, "%s's target on %s is under 1us: the windows the kernel "
			  "checks carry target 0, tighter than any device", c->name, c->device);
		sb_printf(&t.evidence, "window events with target_us 0 (a value written as "
			  "18446744073709552 wraps to 384ns on kernels without the series' fix 0002)");
		sb_printf(&t.advice, "write the target again, in microseconds, and check that "
			  "io.latency reads back what was meant");
	} else if (us < WHY_TARGET_TINY_US) {
		char v[24];

		sb_printf(&t.summary, "%s's target on %s is %lluus, below what any device "
			  "completes a bio in: io.latency targets are in microseconds", c->name,
			  c->device, us);
		sb_printf(&t.evidence, "target set to %lluus %.1fs into the recording", us,
			  c->odd_target_t - m->first);
		sb_printf(&t.advice, "if %llums was meant, write target=%llu", us, us * 1000);
		snprintf(v, sizeof(v), "%llu", us * 1000);
		target_command(&t, c->device, c->path, v);
	} else {
		sb_printf(&t.summary, "%s's target on %s is %lluus (%.1fs), longer than the "
			  "longest window: nothing will ever miss it", c->name, c->device, us,
			  us / 1e6);
		sb_printf(&t.evidence, "target set to %lluus %.1fs into the recording", us,
			  c->odd_target_t - m->first);
		sb_printf(&t.advice, "targets are in microseconds: if %lluns was meant, write "
			  "target=%llu", us, us / 1000);
	}
	return add_finding(out, WHY_TARGET_PARSE, c, &t);
}

/*
 * io.latency is an rq_qos policy: it sees the bios of disks with a
 * request queue only.  A bio-based device (device mapper, md) takes a
 * target in io.latency like any disk, and no window ever opens there.
 */
static int rule_bio_device(struct why_model *m, struct why_cg *c,
			   struct why_findings *out)
{
	struct finding_text t = {};
	__u64 n, missed;
	char value[24], below[WHY_DEV_LEN], *disk, *save = NULL;

	win_counts(c, &n, &missed);
	if (!c->bio_based || !c->ever_target || n)
		return 0;
	sb_printf(&t.summary, "%s's target on %s has no effect: %s is bio-based (device "
		  "mapper or md), and io.latency acts only on disks with a request queue",
		  c->name, c->device, c->device);
	sb_printf(&t.evidence, "target %lluus in %llu rows over %.1fs, 0 windows", c->target_us,
		  (unsigned long long)c->rows, c->last_row_t - c->first_t);
	if (c->iops_n && c->iops_max > 0)
		sb_printf(&t.evidence, ", while the group did up to %.0f IOPS there",
			  c->iops_max);
	if (!c->below[0]) {
		sb_printf(&t.advice, "set the target on the disk below %s (see "
			  "/sys/block/%s/slaves)", c->device, c->device);
		return add_finding(out, WHY_BIO_DEVICE, c, &t);
	}
	sb_printf(&t.advice, "set the target on the disk%s below it, %s: the bios %s "
		  "passes down are the group's there too", strchr(c->below, ',') ? "s" : "",
		  c->below, c->device);
	snprintf(value, sizeof(value), "%llu", (unsigned long long)c->target_us);
	memcpy(below, c->below, sizeof(below));
	for (disk = strtok_r(below, ",", &save); disk; disk = strtok_r(NULL, ",", &save)) {
		if (t.command.n)
			sb_printf(&t.command, "; ");
		target_command(&t, disk, c->path, value);
	}
	return add_finding(out, WHY_BIO_DEVICE, c, &t);
}

typedef int (*rule_fn)(struct why_model *, struct why_cg *, struct why_findings *);

#define BIT(rule) (1U << (rule))

unsigned int why_rules_unchecked(const struct why_model *m)
{
	unsigned int bits;

	/* A decision event, or an iolat-top row of the events mode: events. */
	if (m->events > m->fn_records || m->iostat_rows < m->rows)
		return 0;
	if (!m->iostat_rows && !m->fn_mode[WHY_SRC_SNOOP])
		return 0;
	/* windows' actions, cookies, culprits, charges: events only */
	bits = BIT(WHY_TEN_PERCENT) | BIT(WHY_NO_CHARGE) | BIT(WHY_FLAPPING) |
	       BIT(WHY_SLOW_RECOVERY) | BIT(WHY_COOKIE_FLOOR) | BIT(WHY_TIGHTER_OWNS) |
	       BIT(WHY_GHOST_CULPRIT) | BIT(WHY_EQUAL_TARGETS);
	/*
	 * io.stat's debug keys stand in for windows and depths, and so do
	 * the state reader's samples (its accumulated window, its depth)
	 */
	if (!m->iostat_debug_rows && !m->iostat_sample_rows)
		bits |= BIT(WHY_UNREACHABLE) | BIT(WHY_NOTHING_TO_THROTTLE);
	/*
	 * the state reader's samples name each parent's culprit, and its
	 * target, or say it is no live child; and its children's cookie
	 */
	if (m->iostat_sample_rows)
		bits &= ~(BIT(WHY_TIGHTER_OWNS) | BIT(WHY_GHOST_CULPRIT) | BIT(WHY_COOKIE_FLOOR));
	/* blkcg_add_delay's charges, and use_delay (either's): no_charge's inputs */
	if (m->fn_charges && m->iostat_depth_rows)
		bits &= ~BIT(WHY_NO_CHARGE);
	return bits;
}

int why_analyse(struct why_model *m, struct why_findings *out)
{
	static const struct { rule_fn fn; enum why_rule rule; } group_rules[] = {
		{ rule_target_parse, WHY_TARGET_PARSE }, { rule_bio_device, WHY_BIO_DEVICE },
		{ rule_unreachable, WHY_UNREACHABLE },
		{ rule_ten_percent, WHY_TEN_PERCENT }, { rule_nothing, WHY_NOTHING_TO_THROTTLE },
		{ rule_tighter, WHY_TIGHTER_OWNS }, { rule_no_charge, WHY_NO_CHARGE },
		{ rule_equal, WHY_EQUAL_TARGETS },
	}, parent_rules[] = {
		{ rule_floor, WHY_COOKIE_FLOOR }, { rule_flapping, WHY_FLAPPING },
		{ rule_slow_recovery, WHY_SLOW_RECOVERY }, { rule_ghost, WHY_GHOST_CULPRIT },
	};
	size_t i, k, n = m->n;
	int err;

	memset(out, 0, sizeof(*out));
	if (why_model_finish(m))
		return -ENOMEM;
	out->first = m->first;
	out->last = m->last;
	out->events = m->events;
	out->rows = m->rows;
	memcpy(out->lost, m->lost, sizeof(out->lost));
	out->unchecked = why_rules_unchecked(m);
	out->iostat_mode = m->iostat_rows > 0;
	memcpy(out->fn_mode, m->fn_mode, sizeof(out->fn_mode));
	out->fn_charges = m->fn_charges;
	out->fn_pays = m->fn_pays;
	for (i = 0; i < n; i++) {
		struct why_cg *c = m->v[i];

		if (is_root(c))
			continue;
		for (k = 0; k < sizeof(group_rules) / sizeof(*group_rules); k++) {
			if (out->unchecked & BIT(group_rules[k].rule))
				continue;
			err = group_rules[k].fn(m, c, out);
			if (err)
				return err;
		}
	}
	for (i = 0; i < n; i++) {
		struct why_cg *p = m->v[i];

		if (!p->is_parent)
			continue;
		for (k = 0; k < sizeof(parent_rules) / sizeof(*parent_rules); k++) {
			if (out->unchecked & BIT(parent_rules[k].rule))
				continue;
			err = parent_rules[k].fn(m, p, out);
			if (err)
				return err;
		}
	}
	return rule_unknown(m, out);
}
