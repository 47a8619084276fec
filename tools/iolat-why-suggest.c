// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-why --suggest: the targets the recorded windows allow (see
 * iolat-why-suggest.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-why-suggest.h"

/*
 * @s's depth just before @t: WHY_DEPTH_MAX, a number, or 0 when not known
 * then.  Before, not at: a window's own scale-down changes the siblings'
 * depths after it closed.
 */
static __u32 depth_at(const struct why_cg *s, double t)
{
	size_t lo = 0, hi = s->dn, mid;

	/* the depths are in time order (why_model_finish()): the last before @t */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->dv[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? s->dv[lo - 1].depth : 0;
}

/*
 * What @c's siblings were at @t (enum why_sibs): the deepest when each
 * one ever throttled sat at the lowest depth it reached, and one did.
 */
static enum why_sibs sibs_at(const struct why_cg *c, double t)
{
	const struct why_cg *p = c->parent;
	bool unknown = false, below = false, above_min = false;
	size_t i;

	if (!p)
		return WHY_SIBS_UNKNOWN;
	for (i = 0; i < p->nkids; i++) {
		const struct why_cg *s = p->kids[i];
		__u32 d;

		if (s == c || s->parent != p || strcmp(s->device, c->device))
			continue;
		d = depth_at(s, t);
		if (!d) {
			unknown |= s->dn > 0;
			continue;
		}
		below |= d != WHY_DEPTH_MAX;
		above_min |= s->min_depth != WHY_DEPTH_MAX && d > s->min_depth;
	}
	if (below)
		return above_min || unknown ? WHY_SIBS_PARTLY : WHY_SIBS_DEEPEST;
	return unknown ? WHY_SIBS_UNKNOWN : WHY_SIBS_FREE;
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

static int suggest_one(const struct why_cg *c, struct why_suggestion *s)
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
		k = sibs_at(c, w->t);
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

int why_suggest(struct why_model *m, struct why_suggestions *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (why_model_finish(m))
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		const struct why_cg *c = m->v[i];

		if (!c->target_us || !strcmp(c->path, "/") || c->gone)
			continue;
		if (iolat_grow((void **)&out->v, &out->cap, out->n + 1, sizeof(*out->v)))
			return -ENOMEM;
		if (suggest_one(c, &out->v[out->n]))
			return -ENOMEM;
		out->n++;
	}
	return 0;
}

void why_suggestions_free(struct why_suggestions *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
