// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-why --suggest: the targets the recorded windows allow (see
 * iolat-why-suggest.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-why-suggest.h"

/*
 * How many of @n records of @size bytes, in time order, each with its
 * time (a double) at @t_off, came before @t: those before it, not at it.
 */
static size_t count_before(const void *v, size_t n, size_t size, size_t t_off, double t)
{
	size_t lo = 0, hi = n, mid;
	double tm;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		memcpy(&tm, (const char *)v + mid * size + t_off, sizeof(tm));
		if (tm < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * @s's depth just before @t: WHY_DEPTH_MAX, a number, or 0 when not known
 * then.  Before, not at: a window's own scale-down changes the siblings'
 * depths after it closed.  The depths are in time order (why_model_finish()).
 */
static __u32 depth_at(const struct why_cg *s, double t)
{
	size_t k = count_before(s->dv, s->dn, sizeof(*s->dv), offsetof(struct why_depth, t), t);

	return k ? s->dv[k - 1].depth : 0;
}

/*
 * A sibling's part in what a group's siblings were (enum why_sibs) at a
 * depth: not known yet (a depth recorded later, none before), below max,
 * above the lowest depth it reached.
 */
struct sib_count {
	int unknown, below, above_min;
};

static struct sib_count sib_part(const struct why_cg *s, __u32 depth)
{
	struct sib_count n = {};

	if (!depth) {
		n.unknown = s->dn > 0;
		return n;
	}
	n.below = depth != WHY_DEPTH_MAX;
	n.above_min = s->min_depth != WHY_DEPTH_MAX && depth > s->min_depth;
	return n;
}

/*
 * The children of one parent on one device, counted over time: the counts
 * before the first depth change (@start), and after each change, in time
 * order.  A window's class is the counts before it less its own group's
 * part: one pass over the siblings' depths for the family, not one for
 * every window of every group in it.
 */
struct sib_change {
	double t;
	struct sib_count n;
};

struct sib_timeline {
	struct sib_count start;
	struct sib_change *v;
	size_t n;
};

static bool is_sibling(const struct why_cg *s, const struct why_cg *p, const char *device)
{
	return s->parent == p && !strcmp(s->device, device);
}

static int cmp_change(const void *a, const void *b)
{
	double x = ((const struct sib_change *)a)->t, y = ((const struct sib_change *)b)->t;

	return x < y ? -1 : x > y;
}

static void count_add(struct sib_count *n, struct sib_count a, int sign)
{
	n->unknown += sign * a.unknown;
	n->below += sign * a.below;
	n->above_min += sign * a.above_min;
}

static int timeline_build(struct sib_timeline *tl, const struct why_cg *p, const char *device)
{
	size_t i, j, n = 0, k = 0;

	memset(tl, 0, sizeof(*tl));
	for (i = 0; i < p->nkids; i++)
		if (is_sibling(p->kids[i], p, device))
			n += p->kids[i]->dn;
	tl->v = calloc(n ?: 1, sizeof(*tl->v));
	if (!tl->v)
		return -ENOMEM;
	for (i = 0; i < p->nkids; i++) {
		const struct why_cg *s = p->kids[i];

		if (!is_sibling(s, p, device))
			continue;
		count_add(&tl->start, sib_part(s, 0), 1);
		for (j = 0; j < s->dn; j++) {
			struct sib_change *c = &tl->v[k++];

			/* as a delta here, summed below */
			c->t = s->dv[j].t;
			count_add(&c->n, sib_part(s, s->dv[j].depth), 1);
			count_add(&c->n, sib_part(s, j ? s->dv[j - 1].depth : 0), -1);
		}
	}
	tl->n = k;
	qsort(tl->v, tl->n, sizeof(*tl->v), cmp_change);
	for (i = 0; i < tl->n; i++)
		count_add(&tl->v[i].n, i ? tl->v[i - 1].n : tl->start, 1);
	return 0;
}

/* The counts just before @t: after the changes before it, not at it. */
static struct sib_count timeline_at(const struct sib_timeline *tl, double t)
{
	size_t k = count_before(tl->v, tl->n, sizeof(*tl->v), offsetof(struct sib_change, t), t);

	return k ? tl->v[k - 1].n : tl->start;
}

/*
 * What @c's siblings were at @t (enum why_sibs): the deepest when each
 * one ever throttled sat at the lowest depth it reached, and one did.
 * @tl: the family's counts, @c's own part among them.
 */
static enum why_sibs sibs_at(const struct why_cg *c, const struct sib_timeline *tl, double t)
{
	struct sib_count n;

	if (!c->parent)
		return WHY_SIBS_UNKNOWN;
	n = timeline_at(tl, t);
	count_add(&n, sib_part(c, depth_at(c, t)), -1);
	if (n.below)
		return n.above_min || n.unknown ? WHY_SIBS_PARTLY : WHY_SIBS_DEEPEST;
	return n.unknown ? WHY_SIBS_UNKNOWN : WHY_SIBS_FREE;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Up to two significant figures: 1734 -> 1800, 86 -> 86. */
static __u64 round_up2(__u64 v)
{
	__u64 unit = 1;

	while (v / unit >= 100)
		unit *= 10;
	return (v + unit - 1) / unit * unit;
}

static int suggest_one(const struct why_cg *c, const struct sib_timeline *tl,
		       struct why_suggestion *s)
{
	const struct why_wlog *l = c->ws.n ? &c->ws : &c->wt;
	__u32 *means[WHY_SIBS_NR] = {};
	size_t n[WHY_SIBS_NR] = {}, i, ssd = 0, rot = 0;
	const struct why_win_class *thr;
	int k, err = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->target_us = c->target_us;
	for (k = 0; k < WHY_SIBS_NR; k++) {
		means[k] = calloc(l->n ?: 1, sizeof(**means));
		if (!means[k])
			goto out;
	}
	for (i = 0; i < l->n; i++) {
		const struct why_win *w = &l->v[i];
		struct why_win_class *wc;

		if (w->action == WHY_ACT_OFFLINE || !w->samples)
			continue;
		k = sibs_at(c, tl, w->t);
		wc = &s->by[k];
		wc->windows++;
		wc->missed += w->verdict_missed;
		if (w->ssd) {
			ssd++;
		} else {
			rot++;
			means[k][n[k]++] = w->mean_us;
		}
	}
	s->rotational = rot > ssd;
	for (k = 0; k < WHY_SIBS_NR; k++) {
		if (!n[k])
			continue;
		qsort(means[k], n[k], sizeof(**means), cmp_u32);
		s->by[k].mean_p50_us = means[k][(n[k] - 1) / 2];
		s->by[k].mean_p90_us = means[k][(n[k] * 9 + 9) / 10 - 1];
	}
	thr = &s->by[WHY_SIBS_DEEPEST];
	s->basis = WHY_BASIS_NONE;
	if (thr->windows >= WHY_SUGGEST_MIN_WINDOWS && s->rotational && n[WHY_SIBS_DEEPEST]) {
		/* 9 windows in 10 at or under it, as the kernel judges a mean */
		s->basis = WHY_BASIS_MEANS;
		s->suggested_us = round_up2(thr->mean_p90_us);
	} else if (thr->windows >= WHY_SUGGEST_MIN_WINDOWS && !s->rotational) {
		/* a window misses at 10% of its bios over target: its p90 */
		s->basis = WHY_BASIS_MISSED;
		s->keep_target = thr->missed * 10 <= thr->windows;
	}
	err = 0;
out:
	for (k = 0; k < WHY_SIBS_NR; k++)
		free(means[k]);
	return err;
}

/* A group to suggest for, and its place in the output. */
struct pick {
	const struct why_cg *c;
	size_t pos;
};

/* By family (parent, then device): each family's counts are made once. */
static int cmp_family(const void *a, const void *b)
{
	const struct why_cg *x = ((const struct pick *)a)->c, *y = ((const struct pick *)b)->c;
	size_t px = x->parent ? x->parent->index : SIZE_MAX;
	size_t py = y->parent ? y->parent->index : SIZE_MAX;

	if (px != py)
		return px < py ? -1 : 1;
	return strcmp(x->device, y->device);
}

int why_suggest(struct why_model *m, struct why_suggestions *out)
{
	struct sib_timeline tl = {};
	struct pick *picks = NULL;
	size_t i, n = 0;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (why_model_finish(m))
		return -ENOMEM;
	picks = calloc(m->n ?: 1, sizeof(*picks));
	if (!picks)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		const struct why_cg *c = m->v[i];

		if (!c->target_us || !strcmp(c->path, "/") || c->gone)
			continue;
		picks[n].c = c;
		picks[n].pos = n;
		n++;
	}
	if (iolat_grow((void **)&out->v, &out->cap, n ?: 1, sizeof(*out->v)))
		goto out;
	qsort(picks, n, sizeof(*picks), cmp_family);
	for (i = 0; i < n; i++) {
		const struct why_cg *c = picks[i].c;

		if (c->parent && (!i || cmp_family(&picks[i - 1], &picks[i]))) {
			free(tl.v);
			if (timeline_build(&tl, c->parent, c->device))
				goto out;
		}
		if (suggest_one(c, &tl, &out->v[picks[i].pos]))
			goto out;
	}
	out->n = n;
	err = 0;
out:
	free(tl.v);
	free(picks);
	return err;
}

void why_suggestions_free(struct why_suggestions *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
