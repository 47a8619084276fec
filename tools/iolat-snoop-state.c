// SPDX-License-Identifier: GPL-2.0
/* iolat-snoop without the events: what changed between two samples. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-snoop-state.h"

static int key_cmp(const void *a, const void *b)
{
	const struct iolat_state *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	return 0;
}

static bool names_culprit(const struct iolat_state *s)
{
	return s->flags & IOLAT_STATE_CULPRIT;
}

/*
 * The culprit a sample names, by id: 0 when it names none, or one the
 * walk could not tell (stale, or unknown: iolat_state_resolve()).
 */
static __u64 culprit_of(const struct iolat_state *s)
{
	return names_culprit(s) ? s->children.culprit_id : 0;
}

/*
 * @p to @c, one group: its target written, its children's cookie moved,
 * its culprit forgotten, its own depth and use_delay.  (A culprit
 * replaced by another without the cookie moving is not told apart: the
 * next cookie record names the new one.)
 */
static int group_diff(const struct iolat_state *p, const struct iolat_state *c,
		      void (*emit)(void *arg, const struct snoop_change *c), void *arg)
{
	struct snoop_change x;
	int n = 0;

#define CHANGE(t, o, nw) do {						\
		memset(&x, 0, sizeof(x));				\
		x.type = (t);						\
		x.dev = c->dev;						\
		x.cgroup_id = c->cgroup_id;				\
		x.old = (o);						\
		x.new = (nw);						\
	} while (0)

	if (p->target_ns != c->target_ns) {
		CHANGE(IOLAT_EV_TARGET, p->target_ns, c->target_ns);
		x.win_ns = c->win_ns;
		emit(arg, &x);
		n++;
	}
	if (p->children.cookie != c->children.cookie) {
		CHANGE(IOLAT_EV_COOKIE, p->children.cookie, c->children.cookie);
		x.culprit_id = culprit_of(c);
		x.named = names_culprit(c);
		x.scale_lat_ns = c->children.scale_lat_ns;
		emit(arg, &x);
		n++;
	}
	if (names_culprit(p) && !names_culprit(c)) {
		CHANGE(IOLAT_EV_GRP_CLEAR, p->children.cookie, c->children.cookie);
		x.culprit_id = culprit_of(p);
		x.named = true;
		x.scale_lat_ns = p->children.scale_lat_ns;
		x.cookie = c->children.cookie;
		emit(arg, &x);
		n++;
	}
	if (p->depth != c->depth) {
		CHANGE(IOLAT_EV_DEPTH, p->depth, c->depth);
		x.cookie = c->cookie;
		emit(arg, &x);
		n++;
	}
	if (p->use_delay != c->use_delay) {
		CHANGE(IOLAT_EV_USE_DELAY, p->use_delay, c->use_delay);
		x.delay_ns = c->delay_ns;
		emit(arg, &x);
		n++;
	}
#undef CHANGE
	return n;
}

int snoop_state_diff(struct snoop_state *st, const struct iolat_state *cur, size_t n,
		     void (*emit)(void *arg, const struct snoop_change *c), void *arg)
{
	const struct iolat_state *p;
	int changes = 0;
	size_t i;

	for (i = 0; st->have && st->n && i < n; i++) {
		p = bsearch(&cur[i], st->v, st->n, sizeof(*st->v), key_cmp);
		if (p)
			changes += group_diff(p, &cur[i], emit, arg);
	}
	if (n > st->cap) {
		struct iolat_state *v = realloc(st->v, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		st->v = v;
		st->cap = n;
	}
	if (n)
		memcpy(st->v, cur, n * sizeof(*cur));
	st->n = n;
	if (n > 1)
		qsort(st->v, n, sizeof(*st->v), key_cmp);
	st->have = true;
	return changes;
}

void snoop_state_free(struct snoop_state *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}
