// SPDX-License-Identifier: GPL-2.0
/* iolat-why's model: each group's timeline.  See iolat-why-model.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-why-model.h"

const char *const why_action_names[WHY_ACT_NR] = {
	"ok", "hold", "few", "up", "not_owner", "down", "tighter", "offline",
};

static __u64 fnv(__u64 h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static __u64 path_key(const char *dev, const char *path)
{
	return fnv((fnv(1469598103934665603ULL, dev) ^ 0xff) * 1099511628211ULL, path);
}

static __u64 id_key(__u64 id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	return id ^ (id >> 33);
}

/* Put group @i in the table by id (when it has one), all with that id probed in turn. */
static void id_put(size_t *h, size_t cap, const struct why_model *m, size_t i)
{
	size_t j = id_key(m->v[i]->id) & (cap - 1);

	while (h[j])
		j = (j + 1) & (cap - 1);
	h[j] = i + 1;
}

/* Group @i holds its path on its device: it replaces the one before. */
static void path_put(size_t *h, size_t cap, const struct why_model *m, size_t i)
{
	const struct why_cg *c = m->v[i];
	size_t j = path_key(c->device, c->path) & (cap - 1);

	for (; h[j]; j = (j + 1) & (cap - 1)) {
		const struct why_cg *o = m->v[h[j] - 1];

		if (!strcmp(o->device, c->device) && !strcmp(o->path, c->path))
			break;
	}
	h[j] = i + 1;
}

static int rehash(struct why_model *m)
{
	size_t cap = m->hcap ? m->hcap * 2 : 256, i;
	size_t *hi = calloc(cap, sizeof(*hi)), *hp = calloc(cap, sizeof(*hp));

	if (!hi || !hp) {
		free(hi);
		free(hp);
		return -ENOMEM;
	}
	/* in the order seen: a path's last holder is the last put */
	for (i = 0; i < m->n; i++) {
		if (m->v[i]->id)
			id_put(hi, cap, m, i);
		path_put(hp, cap, m, i);
	}
	free(m->by_id);
	free(m->by_path);
	m->by_id = hi;
	m->by_path = hp;
	m->hcap = cap;
	return 0;
}

/* The last group seen with @path on @dev. */
static struct why_cg *cg_find(const struct why_model *m, const char *dev,
			      const char *path)
{
	size_t j;

	if (!m->hcap)
		return NULL;
	j = path_key(dev, path) & (m->hcap - 1);
	for (; m->by_path[j]; j = (j + 1) & (m->hcap - 1)) {
		struct why_cg *c = m->v[m->by_path[j] - 1];

		if (!strcmp(c->device, dev) && !strcmp(c->path, path))
			return c;
	}
	return NULL;
}

/* The group with cgroup id @id on @dev, or on any device; NULL if unseen. */
struct why_cg *why_cg_by_id(const struct why_model *m, const char *dev, __u64 id)
{
	struct why_cg *any = NULL;
	size_t j;

	if (!id || !m->hcap)
		return NULL;
	j = id_key(id) & (m->hcap - 1);
	for (; m->by_id[j]; j = (j + 1) & (m->hcap - 1)) {
		struct why_cg *c = m->v[m->by_id[j] - 1];

		if (c->id != id)
			continue;
		if (!strcmp(c->device, dev))
			return c;
		any = c;
	}
	return any;
}

static struct why_cg *cg_new(struct why_model *m, const char *dev, const char *path,
			     __u64 id, double t)
{
	struct why_cg *c;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct why_cg **v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		m->v = v;
		m->cap = cap;
	}
	if ((m->n + 1) * 2 > m->hcap && rehash(m))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->path = strdup(path);
	if (!c->path) {
		free(c);
		return NULL;
	}
	snprintf(c->device, sizeof(c->device), "%s", dev);
	c->id = id;
	c->depth = c->min_depth = WHY_DEPTH_MAX;
	c->min_cookie = WHY_DEFAULT_COOKIE;
	c->iops_min = INFINITY;
	c->first_t = c->last_t = t;
	c->prev_holder = cg_find(m, dev, path);
	c->index = m->n;
	m->v[m->n] = c;
	if (id)
		id_put(m->by_id, m->hcap, m, m->n);
	path_put(m->by_path, m->hcap, m, m->n);
	m->n++;
	return c;
}

/*
 * The group a record names: by its id when it has one.  A record without
 * an id (recordings before the tools printed them, a culprit named by path
 * alone) is the group that has the path now; one with an id that finds the
 * path's group without one is that group, now known by its id.  Anything
 * else with a new id is a new cgroup, even under a path seen before.
 */
static struct why_cg *cg_get(struct why_model *m, const char *dev,
			     const char *path, __u64 id, double t)
{
	struct why_cg *c = id ? why_cg_by_id(m, dev, id) : NULL;

	if (c && strcmp(c->device, dev))
		c = NULL;
	if (!c) {
		c = cg_find(m, dev, path);
		if (c && id && c->id)
			c = NULL;
		else if (c && id) {
			c->id = id;
			id_put(m->by_id, m->hcap, m, c->index);
		}
	}
	if (!c)
		c = cg_new(m, dev, path, id, t);
	if (!c)
		return NULL;
	if (t > c->last_t)
		c->last_t = t;
	if (t > 0 && (t < c->first_t || c->first_t <= 0))
		c->first_t = t;
	return c;
}

static int wlog_add(struct why_wlog *l, const struct why_win *w)
{
	if (iolat_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = *w;
	return 0;
}

/* A depth seen at @t; sorted and reduced to changes by why_model_finish(). */
static int depth_add(struct why_cg *c, double t, __u32 depth)
{
	/*
	 * The same depth again from the same source (iolat-top repeats it
	 * every interval): the first of a run is the one that matters, and a
	 * long recording of many groups stays small.
	 */
	if (c->dn && c->dv[c->dn - 1].depth == depth && c->dv[c->dn - 1].t <= t)
		return 0;
	if (iolat_grow((void **)&c->dv, &c->dcap, c->dn + 1, sizeof(*c->dv)))
		return -ENOMEM;
	c->dv[c->dn++] = (struct why_depth){ t, depth };
	return 0;
}

static int scale_add(struct why_cg *p, const struct why_scale *s)
{
	p->is_parent = true;
	if (s->new < p->min_cookie)
		p->min_cookie = s->new;
	if (iolat_grow((void **)&p->sv, &p->scap, p->sn + 1, sizeof(*p->sv)))
		return -ENOMEM;
	p->sv[p->sn++] = *s;
	return 0;
}

/* "/a/b" -> "/a"; "/a" -> "/"; "/" -> "" (no parent). */
void why_parent_path(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash || !strcmp(path, "/")) {
		snprintf(out, len, "%s", "");
		return;
	}
	if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/*
 * @c's parent as the records go, in *@p (NULL: none): the group that has
 * the parent's path then, made when none has (filled in when its own
 * records come).  0 or -ENOMEM.
 */
static int parent_of(struct why_model *m, struct why_cg *c, struct why_cg **p)
{
	size_t len = strlen(c->path) + 2;
	char *pp;

	*p = c->parent;
	if (c->parent)
		return 0;
	pp = malloc(len);
	if (!pp)
		return -ENOMEM;
	why_parent_path(c->path, pp, len);
	if (pp[0]) {
		c->parent = cg_get(m, c->device, pp, 0, c->last_t);
		if (!c->parent) {
			free(pp);
			return -ENOMEM;
		}
	}
	free(pp);
	*p = c->parent;
	return 0;
}

struct why_cg *why_parent_of(struct why_model *m, const struct why_cg *c)
{
	return c->parent;
}

static void span(struct why_model *m, double t)
{
	if (t <= 0)
		return;
	if (!m->first || t < m->first)
		m->first = t;
	if (t > m->last)
		m->last = t;
}

struct why_model *why_model_new(void)
{
	struct why_model *m = calloc(1, sizeof(struct why_model));

	if (m)
		m->cgroupns = -1;
	return m;
}

void why_model_free(struct why_model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->v[i]->path);
		if (m->v[i]->name != m->v[i]->path)
			free(m->v[i]->name);
		free(m->v[i]->kids);
		free(m->v[i]->ws.v);
		free(m->v[i]->wt.v);
		free(m->v[i]->dv);
		free(m->v[i]->sv);
		free(m->v[i]);
	}
	free(m->v);
	free(m->by_id);
	free(m->by_path);
	free(m);
}

void why_model_only_device(struct why_model *m, const char *dev)
{
	snprintf(m->only_dev, sizeof(m->only_dev), "%s", dev);
}

/* Whether a record of @dev is fed; the first names of the others noted. */
static bool device_kept(struct why_model *m, const char *dev)
{
	size_t i;

	if (!m->only_dev[0] || !strcmp(dev, m->only_dev))
		return true;
	for (i = 0; i < m->n_other_devs; i++)
		if (!strcmp(m->other_devs[i], dev))
			return false;
	if (m->n_other_devs < WHY_OTHER_DEVS)
		snprintf(m->other_devs[m->n_other_devs++], WHY_DEV_LEN, "%s", dev);
	else
		m->more_other_devs = true;
	return false;
}

void why_model_functions(struct why_model *m, enum why_source src, bool charges,
			 bool pays)
{
	m->fn_mode[src] = true;
	m->fn_charges |= charges;
	m->fn_pays |= pays;
}

void why_model_lost(struct why_model *m, enum why_source src, __u64 total)
{
	/* A total since the tool started: the largest is the last. */
	if (total > m->lost[src])
		m->lost[src] = total;
}

static void note_target(struct why_cg *c, __u64 us, double t)
{
	c->target_us = us;
	if (us)
		c->ever_target = true;
	if (us && (us < WHY_TARGET_TINY_US || us > WHY_TARGET_HUGE_US) && !c->odd_target_us) {
		c->odd_target_us = us;
		c->odd_target_t = t;
	}
}

static void io_seen(struct why_cg *c, double t)
{
	if (t > c->last_io_t)
		c->last_io_t = t;
}

static int event_window(struct why_model *m, struct why_cg *c,
			const struct why_event *e)
{
	struct why_win w = {
		.t = e->time, .samples = e->samples, .missed = e->missed,
		.mean_us = e->mean_us, .action = e->action, .win_met = e->win_met,
		.ssd = e->ssd, .scale_lat_us = e->scale_lat_us,
		.verdict_missed = !e->met && e->action != WHY_ACT_OFFLINE,
	};
	struct why_cg *p;

	if (parent_of(m, c, &p))
		return -ENOMEM;
	io_seen(c, e->time);
	if (e->target_us)
		note_target(c, e->target_us, e->time);
	else if (e->action != WHY_ACT_OFFLINE)
		c->sub_us_target = true;	/* windows run only with a target */
	if (e->action == WHY_ACT_OFFLINE && !c->gone) {
		c->gone = true;
		c->gone_t = e->time;
	}
	/*
	 * A scale-down that moved the cookie traced its cookie event first;
	 * one that finds none is a down at the floor, where the cookie stays.
	 */
	if (e->action == WHY_ACT_DOWN && p) {
		p->is_parent = true;
		p->last_down_window = e->time;
		if (p->pending_downs) {
			p->pending_downs--;
		} else {
			if (!p->noop_downs++) {
				p->floor_t = e->time;
				p->floor_cookie = e->cookie;
			}
		}
	}
	return wlog_add(&c->ws, &w);
}

int why_model_event(struct why_model *m, const struct why_event *e)
{
	struct why_cg *c, *p;
	struct why_scale s;

	if (!device_kept(m, e->device))
		return 0;
	m->events++;
	m->fn_records += e->type == WHY_EV_FN_CHARGE || e->type == WHY_EV_FN_SLEEP;
	span(m, e->time);
	if (!e->cgroup[0]) {
		/* Per-bio events carry an id: the group seen with it before. */
		c = e->cgroup_id ? why_cg_by_id(m, e->device, e->cgroup_id) : NULL;
		if (!c)
			return 0;
	} else {
		c = cg_get(m, e->device, e->cgroup, e->cgroup_id, e->time);
		if (!c)
			return -ENOMEM;
	}

	switch (e->type) {
	case WHY_EV_WINDOW:
		return event_window(m, c, e);
	case WHY_EV_TARGET:
		if (e->by == WHY_BY_OFFLINE) {
			c->gone = true;
			c->gone_t = e->time;
			c->target_us = 0;
		} else {
			note_target(c, e->new, e->time);
		}
		return 0;
	case WHY_EV_COOKIE:
	case WHY_EV_FORGOT:
	case WHY_EV_RESET:
		s = (struct why_scale){ .t = e->time, .culprit_id = e->culprit_id,
			.old = e->old, .new = e->new, .type = e->type, .by = e->by,
			.named = e->culprit[0] != '\0' };
		if (e->type == WHY_EV_COOKIE && e->by == WHY_BY_WINDOW && e->new < e->old)
			c->pending_downs++;
		if (e->culprit[0] && e->culprit_id) {
			if (!cg_get(m, e->device, e->culprit, e->culprit_id, e->time))
				return -ENOMEM;
		}
		return scale_add(c, &s);
	case WHY_EV_DEPTH:
		if (e->nr_requests)
			c->nr_requests = e->nr_requests;
		if (parent_of(m, c, &p))
			return -ENOMEM;
		if (p && e->nr_requests)
			p->nr_requests = e->nr_requests;
		io_seen(c, e->time);
		return depth_add(c, e->time, e->new);
	case WHY_EV_USE_DELAY:
		c->use_delay = e->ud_new;
		if (e->ud_new > c->max_use_delay)
			c->max_use_delay = e->ud_new;
		return 0;
	case WHY_EV_SKIP:
		if (e->reason == WHY_SKIP_PROTECTED && e->target_us &&
		    e->target_us == e->scale_lat_us)
			c->skips_equal++;
		return 0;
	case WHY_EV_THROTTLE:
		io_seen(c, e->time);
		return 0;
	case WHY_EV_CHARGE:
	case WHY_EV_FN_CHARGE:		/* blkcg_add_delay(): the same charge */
		io_seen(c, e->time);
		c->charges++;
		c->charged_ev_us += e->charge_us;
		return 0;
	case WHY_EV_PAY:
	case WHY_EV_FN_SLEEP:		/* by the task's io cgroup */
		c->pays++;
		c->paid_ev_us += e->slept_us;
		return 0;
	default:
		return 0;
	}
}

/*
 * iolat-top's io.stat mode has no window: with blkcg_debug_stats, each
 * row's io.stat figure stands for one, judged as the kernel judges a
 * window (blk-iolatency.c latency_sum_ok(): non-rotational, missed at
 * max(total / 10, 1) bios over target; rotational, a mean over target),
 * from the window in progress (non-rotational) or the running average
 * (rotational).  Without them, the state reader's accumulated window
 * (cur_stat: the windows since the parent last scaled, what the kernel
 * judges the group by), once for each value it takes: a sample that
 * finds it as the last one did saw no new window.  No action: the rules
 * that need one are not run on it.
 */
static int iostat_sample(struct why_cg *c, const struct why_row *r)
{
	struct why_win w = { .t = r->time, .action = WHY_ACT_OK };

	if (!c->target_us)
		return 0;
	if (!r->has_iostat_debug && r->has_sample) {
		bool same = r->acc_samples == c->acc_samples && r->acc_missed == c->acc_missed &&
			    r->acc_mean_us == c->acc_mean_us;

		c->acc_samples = r->acc_samples;
		c->acc_missed = r->acc_missed;
		c->acc_mean_us = r->acc_mean_us;
		if (same || !r->acc_samples || (r->rotational && !r->has_acc_mean))
			return 0;
		w.samples = r->acc_samples;
		if (r->rotational) {
			w.mean_us = r->acc_mean_us;
			w.verdict_missed = r->acc_mean_us > c->target_us;
		} else {
			w.ssd = 1;
			w.missed = r->acc_missed;
			w.verdict_missed = r->acc_missed >= (r->acc_samples / 10 ?: 1);
		}
	} else if (r->has_io_missed && r->io_total) {
		__u64 thresh = r->io_total / 10 ?: 1;

		w.ssd = 1;
		w.samples = r->io_total;
		w.missed = r->io_missed;
		w.verdict_missed = r->io_missed >= thresh;
	} else if (r->has_avg_lat && !r->has_io_missed) {
		w.samples = 1;
		w.mean_us = r->avg_lat_us;
		w.verdict_missed = r->avg_lat_us > c->target_us;
	} else {
		return 0;
	}
	w.win_met = !w.verdict_missed;
	if (wlog_add(&c->wt, &w))
		return -ENOMEM;
	c->top_windows++;
	c->top_missed += w.verdict_missed;
	return 0;
}

int why_model_row(struct why_model *m, const struct why_row *r)
{
	struct why_cg *c;

	if (!device_kept(m, r->device))
		return 0;
	m->rows++;
	span(m, r->time);
	c = cg_get(m, r->device, r->cgroup, r->cgroup_id, r->time);
	if (!c)
		return -ENOMEM;
	c->rows++;
	c->last_row_t = r->time;
	if (r->bio_based) {
		c->bio_based = true;
		memcpy(c->below, r->below, sizeof(c->below));
	}
	if (r->target_us)
		note_target(c, r->target_us, r->time);
	else if (c->target_us && !r->has_window)
		c->target_us = 0;
	/* One window per interval at most: the last, when a new one ended. */
	if (r->has_window && r->windows > c->top_windows) {
		struct why_win w = {
			.t = r->time, .samples = r->samples, .missed = r->missed,
			.mean_us = r->mean_us, .action = r->action,
			.win_met = r->win_met, .ssd = r->ssd,
			.verdict_missed = !r->met && r->action != WHY_ACT_OFFLINE,
		};

		if (wlog_add(&c->wt, &w))
			return -ENOMEM;
	}
	if (r->iostat_mode) {
		m->iostat_rows++;
		m->iostat_debug_rows += r->has_iostat_debug;
		m->iostat_depth_rows += r->depth_known;
		m->iostat_sample_rows += r->has_sample;
		if (iostat_sample(c, r))
			return -ENOMEM;
	}
	if (r->windows > c->top_windows)
		c->top_windows = r->windows;
	if (r->windows_missed > c->top_missed)
		c->top_missed = r->windows_missed;
	if (r->depth_known) {
		if (depth_add(c, r->time, r->depth))
			return -ENOMEM;
	} else {
		c->rows_unknown++;
	}
	if (r->use_delay > c->max_use_delay)
		c->max_use_delay = r->use_delay;
	if (r->depth_known || r->use_delay)
		c->use_delay = r->use_delay;
	if (r->skips[WHY_SKIP_PROTECTED] > c->skips_protected_top)
		c->skips_protected_top = r->skips[WHY_SKIP_PROTECTED];
	if (r->charged_ms > c->charged_ms)
		c->charged_ms = r->charged_ms;
	if (r->paid_ms > c->paid_ms)
		c->paid_ms = r->paid_ms;
	if (r->use_delay > 0 && !isnan(r->write_mbps) && r->interval_s > 0 &&
	    (isnan(r->throttled_per_s) || isnan(r->iops) || r->throttled_per_s * 2 < r->iops)) {
		c->write_mb_delayed += r->write_mbps * r->interval_s;
		c->delayed_s += r->interval_s;
	}
	if (!isnan(r->iops)) {
		if (r->iops > 0)
			io_seen(c, r->time);
		if (r->iops < c->iops_min)
			c->iops_min = r->iops;
		if (r->iops > c->iops_max)
			c->iops_max = r->iops;
		c->iops_sum += r->iops;
		c->iops_n++;
	}
	if (r->has_children) {
		struct why_scale s = { .t = r->time, .culprit_id = r->culprit_id,
			.old = r->child_cookie, .new = r->child_cookie,
			.type = WHY_EV_NR, .named = r->culprit[0] != '\0',
			.gone = r->culprit_gone && !r->culprit_id };
		bool moved = r->scale_downs > c->top_downs || r->scale_ups > c->top_ups;

		/* Kept when it says something: a move, or a low cookie. */
		if (moved || r->child_cookie < WHY_DEFAULT_COOKIE || r->culprit_id || s.gone) {
			/* counters since iolat-top started; smaller: restarted */
			s.downs = r->scale_downs - (r->scale_downs >= c->top_downs ? c->top_downs : 0);
			s.ups = r->scale_ups - (r->scale_ups >= c->top_ups ? c->top_ups : 0);
			if (scale_add(c, &s))
				return -ENOMEM;
		}
		c->is_parent = true;
		c->top_downs = r->scale_downs;
		c->top_ups = r->scale_ups;
		c->top_timer_ups = r->timer_ups;
		if (r->culprit[0] && r->culprit_id) {
			if (!cg_get(m, r->device, r->culprit, r->culprit_id, r->time))
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_depth(const void *a, const void *b)
{
	const struct why_depth *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int cmp_scale(const void *a, const void *b)
{
	const struct why_scale *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

/* The group that had @path on @dev at @t: the first to have it, before any. */
static struct why_cg *holder_at(const struct why_model *m, const char *dev,
				const char *path, double t)
{
	struct why_cg *h = cg_find(m, dev, path);

	for (; h && h->prev_holder; h = h->prev_holder)
		if (h->first_t <= t)
			break;
	return h;
}

/*
 * Each group under its parent: the group that had the parent's path when
 * it was first seen (made, with no record of its own, when none had).
 */
static int build_tree(struct why_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {	/* m->n grows with the parents made */
		struct why_cg *c = m->v[i], *p = c->parent;

		if (!p) {
			size_t len = strlen(c->path) + 2;
			char *pp = malloc(len);

			if (!pp)
				return -ENOMEM;
			why_parent_path(c->path, pp, len);
			if (pp[0]) {
				p = holder_at(m, c->device, pp, c->first_t);
				if (!p) {
					p = cg_new(m, c->device, pp, 0, c->first_t);
					if (!p) {
						free(pp);
						return -ENOMEM;
					}
					p->implied = true;
				}
			}
			free(pp);
			if (!p)
				continue;
			c->parent = p;
		}
		if (iolat_grow((void **)&p->kids, &p->kcap, p->nkids + 1, sizeof(*p->kids)))
			return -ENOMEM;
		p->kids[p->nkids++] = c;
	}
	return 0;
}

/* Names: a path two groups on a device had is said with each one's id. */
static int name_groups(struct why_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct why_cg *c = m->v[i];

		c->name = c->path;
		if (c->id && (c->prev_holder || cg_find(m, c->device, c->path) != c) &&
		    asprintf(&c->name, "%s (cgroup id %llu)", c->path,
			     (unsigned long long)c->id) < 0) {
			c->name = c->path;
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Without the events (the state reader's samples of @p's children's
 * cookie and culprit), the scale-downs at the floor: the intervals
 * between two samples that found the cookie at the lowest it went, the
 * same both times, while the culprit the second named missed a window in
 * between.  A culprit that misses scales its parent down at least once
 * an interval (its hold is 500 ms), so each such interval had a
 * scale-down that changed nothing.  The culprit's windows and the
 * samples are both in time order: one pass over each.
 */
static void sampled_noop_downs(const struct why_model *m, struct why_cg *p)
{
	const struct why_cg *c = NULL;
	size_t i, j = 0;

	for (i = 1; i < p->sn; i++) {
		const struct why_scale *a = &p->sv[i - 1], *b = &p->sv[i];
		bool missed = false;

		if (a->type != WHY_EV_NR || b->type != WHY_EV_NR || a->new != b->new ||
		    b->new != p->min_cookie || b->new >= WHY_DEFAULT_COOKIE || !b->culprit_id)
			continue;
		if (!c || c->id != b->culprit_id) {
			c = why_cg_by_id(m, p->device, b->culprit_id);
			j = 0;
		}
		if (!c)
			continue;
		while (j < c->wt.n && c->wt.v[j].t <= a->t)
			j++;
		for (; j < c->wt.n && c->wt.v[j].t <= b->t; j++)
			missed |= c->wt.v[j].verdict_missed;
		if (!missed)
			continue;
		if (!p->noop_downs++) {
			p->floor_t = a->t;
			p->floor_cookie = b->new;
		}
		p->floor_sampled = true;
	}
}

/*
 * The two recordings are read one after the other (or as their lines
 * come): put each group's depths and scale events in time order, and
 * reduce the depths to changes.
 */
int why_model_finish(struct why_model *m)
{
	size_t i, j, k;

	if (m->finished)
		return 0;
	m->finished = true;

	for (i = 0; i < m->n; i++) {
		struct why_cg *c = m->v[i];

		qsort(c->sv, c->sn, sizeof(*c->sv), cmp_scale);
		qsort(c->dv, c->dn, sizeof(*c->dv), cmp_depth);
		c->depth_changes = 0;
		c->min_depth = WHY_DEPTH_MAX;
		for (j = k = 0; j < c->dn; j++) {
			if (k && c->dv[k - 1].depth == c->dv[j].depth)
				continue;
			if (k)
				c->depth_changes++;
			if (c->dv[j].depth < c->min_depth)
				c->min_depth = c->dv[j].depth;
			c->dv[k++] = c->dv[j];
		}
		c->dn = k;
		c->depth_known = k > 0;
		c->depth = k ? c->dv[k - 1].depth : WHY_DEPTH_MAX;
	}
	if (m->iostat_sample_rows)
		for (i = 0; i < m->n; i++)
			if (!m->v[i]->noop_downs)
				sampled_noop_downs(m, m->v[i]);
	return build_tree(m) ?: name_groups(m);
}
