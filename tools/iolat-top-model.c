// SPDX-License-Identifier: GPL-2.0
/* iolat-top's model: rows, rates, states.  See iolat-top-model.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-top-model.h"

const char *const top_mode_names[TOP_MODE_NR] = { "events", "iostat" };

const char *const top_sort_names[TOP_SORT_NR] = {
	"state", "path", "lat", "iops", "depth", "delay", "waits",
};

const char *const top_map_names[TOP_MAP_NR] = { "groups", "parents", "delays" };

const char *const top_culprit_names[TOP_CULPRIT_NR] = { "none", "named", "gone", "unknown" };

__u32 top_map_entries(size_t cgroups, size_t devs)
{
	unsigned long long want, n = IOLAT_MAX_GROUPS;

	if (!devs)
		devs = 1;	/* targets may come later: on one device at least */
	/* Past the cap in any factor: the cap (no product overflows). */
	if (cgroups > TOP_MAP_ENTRIES_MAX || devs > TOP_MAP_ENTRIES_MAX)
		return TOP_MAP_ENTRIES_MAX;
	want = 2ULL * cgroups * devs;
	if (want <= n)
		return n;
	for (n = 1; n < want && n < TOP_MAP_ENTRIES_MAX; n *= 2)
		;
	return n;
}

/* Where (@dev, @cgid) starts looking in a table of @nslots (a power of two). */
static size_t key_slot(__u32 dev, __u64 cgid, size_t nslots)
{
	return iolat_hash_slot(cgid ^ ((__u64)dev << 40) ^ dev, nslots);
}

/*
 * The table's slots hold its generation (the high 32 bits) and a row's
 * index + 1: a slot of an older generation is empty, so the table is
 * emptied by a new generation, not by zeroing it (256 KiB at 10,000
 * rows, which each refresh did two or three times).
 */
static bool slot_used(const struct top_model *m, size_t i)
{
	return m->slots[i] >> 32 == m->slots_gen;
}

static size_t slot_row(const struct top_model *m, size_t i)
{
	return (__u32)m->slots[i] - 1;
}

static void slot_set(struct top_model *m, size_t i, size_t row)
{
	m->slots[i] = (__u64)m->slots_gen << 32 | (row + 1);
}

static size_t slot_of(const struct top_model *m, __u32 dev, __u64 cgid)
{
	size_t i = key_slot(dev, cgid, m->nslots);

	while (slot_used(m, i)) {
		const struct top_row *r = &m->v[slot_row(m, i)];

		if (r->dev == dev && r->cgid == cgid)
			break;
		i = (i + 1) & (m->nslots - 1);
	}
	return i;
}

/* Every slot empty: a new generation (0 never is one: calloc()'s). */
static void slots_clear(struct top_model *m)
{
	if (!++m->slots_gen) {
		memset(m->slots, 0, m->nslots * sizeof(*m->slots));
		m->slots_gen = 1;
	}
	m->slots_stale = false;
}

/* The table again, after the rows moved (sorted). */
static void slots_rebuild(struct top_model *m)
{
	size_t i;

	slots_clear(m);
	for (i = 0; i < m->n; i++)
		slot_set(m, slot_of(m, m->v[i].dev, m->v[i].cgid), i);
}

/*
 * The row of (@dev, @cgid), by the table: with 10,000 cgroups, a search
 * through the rows for each of them took a second of CPU an interval.
 * A sort leaves the table stale, made again here if it is ever asked.
 */
static struct top_row *row_find(struct top_model *m, __u32 dev, __u64 cgid)
{
	size_t i;

	if (!m->nslots)
		return NULL;
	if (m->slots_stale)
		slots_rebuild(m);
	i = slot_of(m, dev, cgid);
	return slot_used(m, i) ? &m->v[slot_row(m, i)] : NULL;
}

/* Room for one more row in the table: grown (and filled again) at half full. */
static int slots_grow(struct top_model *m)
{
	size_t n = m->nslots ? m->nslots : 256;
	__u64 *v;

	if ((m->n + 1) * 2 <= m->nslots)
		return 0;
	while ((m->n + 1) * 2 > n)
		n *= 2;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	free(m->slots);
	m->slots = v;
	m->nslots = n;
	slots_rebuild(m);
	return 0;
}

/* The row of (@dev, @cgid), made (zero, unknowns unknown) if there is none. */
static struct top_row *row_get(struct top_model *m, __u32 dev, __u64 cgid,
			       const char *path)
{
	struct top_row *r;
	size_t i, d;

	if (slots_grow(m))
		return NULL;
	if (m->slots_stale)
		slots_rebuild(m);
	i = slot_of(m, dev, cgid);
	if (slot_used(m, i))
		return &m->v[slot_row(m, i)];
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct top_row *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		m->v = v;
		m->cap = cap;
	}
	/* Its device among the rows' (most often the last row's). */
	if (!m->ndevs || m->devs[m->ndevs - 1] != dev) {
		for (d = 0; d < m->ndevs && m->devs[d] != dev; d++)
			;
		if (d == m->ndevs && m->ndevs == m->devs_cap) {
			size_t cap = m->devs_cap ? m->devs_cap * 2 : 8;
			__u32 *v = realloc(m->devs, cap * sizeof(*v));

			if (!v)
				return NULL;
			m->devs = v;
			m->devs_cap = cap;
		}
		if (d == m->ndevs)
			m->devs[m->ndevs++] = dev;
	}
	r = &m->v[m->n];
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->cgid = cgid;
	r->path = path;
	r->g.depth = IOLAT_DEPTH_MAX;
	r->psi_some = r->psi_full = NAN;
	slot_set(m, i, m->n++);
	return r;
}

/* Is there a row for cgroup @cgid on any of @devs? */
static bool row_find_any(struct top_model *m, __u64 cgid, const __u32 *devs,
			 size_t ndev)
{
	size_t k;

	for (k = 0; k < ndev; k++)
		if (row_find(m, devs[k], cgid))
			return true;
	return false;
}

static bool wanted(const struct top_model *m, __u32 dev, const char *path)
{
	if (m->dev && dev != m->dev)
		return false;
	return !m->re || !regexec(m->re, path, 0, NULL, 0);
}

void top_model_begin(struct top_model *m, const struct iolat_cgroups *cgs)
{
	int k;

	m->n = 0;
	m->ndevs = 0;
	m->nmissing = 0;
	m->sampled = false;	/* the last refresh's sample is not this one's */
	m->state = NULL;
	m->nstate = 0;
	for (k = 0; k < TOP_MAP_NR; k++) {
		m->maps[k].read = false;
		m->maps[k].entries = 0;
	}
	m->cgs = cgs;
	iolat_psi_tick(&m->psi);	/* the last refresh's rows' files stay open */
	if (m->slots)
		slots_clear(m);
}

int top_model_add_targets(struct top_model *m, const struct iolat_targets *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct iolat_cgroup *c = &m->cgs->v[t->v[i].cgroup];
		struct top_row *r;

		if (c->gone || !wanted(m, t->v[i].dev, c->path))
			continue;
		r = row_get(m, t->v[i].dev, c->id, c->path);
		if (!r)
			return -ENOMEM;
		r->target_us = t->v[i].us;
	}
	return 0;
}

/*
 * An open-addressing table for @n entries by (device, cgroup), in
 * *@slots: a power of two of at least 256 and twice @n, every slot
 * empty (0; an entry is its index + 1).  Kept from one refresh to the
 * next while its size holds.  0, or -ENOMEM (then no table).
 */
static int key_table_reset(size_t **slots, size_t *nslots, size_t n)
{
	size_t want = 256;

	while (want < 2 * n)
		want *= 2;
	if (want != *nslots) {
		free(*slots);
		*slots = malloc(want * sizeof(**slots));
		*nslots = *slots ? want : 0;
		if (!*slots)
			return -ENOMEM;
	}
	memset(*slots, 0, want * sizeof(**slots));
	return 0;
}

/*
 * Is @s a parent whose line says something: its children's cookie below
 * the default, or a culprit named (child_lat.scale_grp set)?  The events'
 * parents map has an entry once a scaling happened; a sample shows only
 * what holds now.
 */
static bool state_parent(const struct iolat_state *s)
{
	return s->children.cookie != TOP_DEFAULT_COOKIE || (s->flags & IOLAT_STATE_CULPRIT);
}

/* The sample's record of (@dev, @cgid), by its table; NULL: none. */
static const struct iolat_state *state_find(const struct top_model *m, __u32 dev,
					    __u64 cgid)
{
	size_t i;

	if (!m->sampled || !m->nstate)
		return NULL;
	for (i = key_slot(dev, cgid, m->nstate_slots); m->state_slots[i];
	     i = (i + 1) & (m->nstate_slots - 1)) {
		const struct iolat_state *s = &m->state[m->state_slots[i] - 1];

		if (s->dev == dev && s->cgroup_id == cgid)
			return s;
	}
	return NULL;
}

/*
 * The records indexed by (device, cgroup): a table of 2n slots at least,
 * filled in one pass, so that each row finds its group in O(1) (a
 * search of 10,000 records for each of 10,000 rows would be 10^8).  The
 * sample's device numbers are the kernel's dev_t, as the rows' are
 * (IOLAT_MKDEV() for both): compared as they are.
 */
/* The interval's samples of @dev's group @cgid: its entry, made if new; NULL: -ENOMEM. */
static struct top_between *between_get(struct top_model *m, __u32 dev, __u64 cgid)
{
	struct top_between *b;
	size_t k, i;

	if (2 * (m->nbetween + 1) > m->nbetween_slots) {
		if (key_table_reset(&m->between_slots, &m->nbetween_slots, m->nbetween + 1))
			return NULL;
		for (i = 0; i < m->nbetween; i++) {
			b = &m->between[i];
			for (k = key_slot(b->dev, b->cgid, m->nbetween_slots); m->between_slots[k];
			     k = (k + 1) & (m->nbetween_slots - 1))
				;
			m->between_slots[k] = i + 1;
		}
	}
	for (k = key_slot(dev, cgid, m->nbetween_slots); m->between_slots[k];
	     k = (k + 1) & (m->nbetween_slots - 1)) {
		b = &m->between[m->between_slots[k] - 1];
		if (b->dev == dev && b->cgid == cgid)
			return b;
	}
	if (iolat_grow((void **)&m->between, &m->between_cap, m->nbetween + 1,
		       sizeof(*m->between)))
		return NULL;
	b = &m->between[m->nbetween++];
	*b = (struct top_between){ .dev = dev, .cgid = cgid, .depth_min = IOLAT_DEPTH_MAX };
	m->between_slots[k] = m->nbetween;
	return b;
}

int top_model_add_between(struct top_model *m, const struct iolat_state *s, size_t n)
{
	struct top_between *b;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(b = between_get(m, s[i].dev, s[i].cgroup_id)))
			return -ENOMEM;
		b->samples++;
		b->limited += s[i].depth != IOLAT_DEPTH_MAX;
		if (s[i].depth < b->depth_min)
			b->depth_min = s[i].depth;
	}
	m->between_walks++;
	return 0;
}

/* The interval's samples of @dev's group @cgid, NULL: none. */
static const struct top_between *between_find(const struct top_model *m, __u32 dev,
					      __u64 cgid)
{
	size_t k;

	if (!m->nbetween)
		return NULL;
	for (k = key_slot(dev, cgid, m->nbetween_slots); m->between_slots[k];
	     k = (k + 1) & (m->nbetween_slots - 1)) {
		const struct top_between *b = &m->between[m->between_slots[k] - 1];

		if (b->dev == dev && b->cgid == cgid)
			return b;
	}
	return NULL;
}

/*
 * The next interval's samples start with this refresh's: the table
 * emptied (its slots kept) and @s folded in.  0 or -ENOMEM.
 */
static int between_restart(struct top_model *m)
{
	m->nbetween = 0;
	m->between_walks = 0;
	if (m->between_slots)
		memset(m->between_slots, 0, m->nbetween_slots * sizeof(*m->between_slots));
	return m->sampled ? top_model_add_between(m, m->state, m->nstate) : 0;
}

int top_model_add_state(struct top_model *m, const struct iolat_state *s, size_t n)
{
	size_t nslots, i, k;

	/* This refresh's walk closes the interval's samples. */
	if (top_model_add_between(m, s, n))
		return -ENOMEM;
	if (key_table_reset(&m->state_slots, &m->nstate_slots, n))
		return -ENOMEM;
	nslots = m->nstate_slots;
	m->state = s;
	m->nstate = n;
	m->sampled = true;
	for (i = 0; i < n; i++) {
		for (k = key_slot(s[i].dev, s[i].cgroup_id, nslots); m->state_slots[k];
		     k = (k + 1) & (nslots - 1))
			;
		m->state_slots[k] = i + 1;
	}
	/* Rows for what an event would have made one for. */
	for (i = 0; i < n; i++) {
		const struct top_between *b = between_find(m, s[i].dev, s[i].cgroup_id);
		const char *path;

		/* Limited at a sample since the last refresh: a depth event's row. */
		if (s[i].depth == IOLAT_DEPTH_MAX && s[i].use_delay <= 0 && !state_parent(&s[i]) &&
		    !(b && b->limited))
			continue;
		path = iolat_cgroups_path(m->cgs, s[i].cgroup_id);
		if (!path || !wanted(m, s[i].dev, path))
			continue;	/* a cgroup made since the walk, or filtered */
		if (!row_get(m, s[i].dev, s[i].cgroup_id, path))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Every row's group from the sample: depth, use_delay and cookie as the
 * walk read them (io.stat's debug keys, the same fields, only where the
 * sample has no record of the group), and a parent's children's cookie
 * and culprit.  Nothing here is counted: no window, no scaling, no
 * throttled bio can be told from a sample, so the counters stay
 * unknown; over the interval, the lowest depth and the share limited
 * of the samples taken in it (top_model_add_between()).  Then the next
 * interval's samples start with this one.  0 or -ENOMEM.
 */
static int state_apply(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct top_row *r = &m->v[i];
		const struct iolat_state *s = state_find(m, r->dev, r->cgid);
		const struct top_between *b = between_find(m, r->dev, r->cgid);

		r->st = s;
		/* The interval's lowest depth and share limited, sampled. */
		r->sampled_in.samples = s && b ? b->samples : 0;
		if (r->sampled_in.samples) {
			r->sampled_in.depth_min = b->depth_min;
			r->sampled_in.limited_share = (double)b->limited / b->samples;
		}
		if (!s)
			continue;
		r->g.depth = s->depth;
		r->g.has_depth = 1;
		r->g.use_delay = s->use_delay;
		r->g.has_use_delay = 1;
		r->g.cookie = s->cookie;
		r->g.ssd = !!(s->flags & IOLAT_STATE_SSD);
		if (!state_parent(s))
			continue;
		r->has_parent = true;
		r->p.cookie = s->children.cookie;
		r->p.culprit_id = s->children.culprit_id;
		r->p.scale_lat_ns = s->children.scale_lat_ns;
	}
	return between_restart(m);
}

/*
 * The row of a map entry's @key in *@rp: an enum top_entry (ROW: *@rp
 * set), or -ENOMEM.
 */
static int entry_row(struct top_model *m, const struct iolat_key *key,
		     bool dev_present, struct top_row **rp)
{
	const char *path = iolat_cgroups_path(m->cgs, key->cgroup_id);

	if (!path || !dev_present)
		return TOP_ENTRY_STALE;
	if (!wanted(m, key->dev, path))
		return TOP_ENTRY_FILTERED;
	*rp = row_get(m, key->dev, key->cgroup_id, path);
	return *rp ? TOP_ENTRY_ROW : -ENOMEM;
}

int top_model_add_delay(struct top_model *m, const struct iolat_key *key,
			const struct iolat_delay *d, bool dev_present)
{
	struct top_row *r;
	int ret = entry_row(m, key, dev_present, &r);

	if (ret != TOP_ENTRY_ROW)
		return ret;
	r->g.charged_ns = d->charged_ns;
	r->g.charges = d->charges;
	r->g.paid_ns = d->paid_ns;
	r->g.pays = d->pays;
	r->g.delay_ns = d->delay_ns;
	r->has_delay = true;
	return TOP_ENTRY_ROW;
}

int top_model_add_entry(struct top_model *m, const struct iolat_key *key,
			const void *val, bool parent, bool dev_present)
{
	struct top_row *r;
	int ret = entry_row(m, key, dev_present, &r);

	if (ret != TOP_ENTRY_ROW)
		return ret;
	if (parent) {
		r->p = *(const struct iolat_parent *)val;
		r->has_parent = true;
	} else {
		r->g = *(const struct iolat_group *)val;
		r->has_group = true;
		if (r->g.has_target)	/* newer than the walk */
			r->target_us = r->g.target_ns / 1000;
	}
	return TOP_ENTRY_ROW;
}

int top_model_add_map(struct top_model *m, struct iolat_map *map, enum top_map kind,
		      struct iolat_cgroups *cgs)
{
	const struct iolat_key *key;
	const void *val;
	struct iolat_key *stale;
	size_t i, nstale = 0;
	int ret, there;
	bool told = false;

	ret = iolat_map_read(map, false);
	if (ret)
		return ret;
	m->maps[kind].read = true;
	m->maps[kind].max_entries = map->max_entries;
	m->maps[kind].entries = map->n;
	stale = malloc((map->n ?: 1) * sizeof(*stale));
	if (!stale)
		return -ENOMEM;
	for (i = 0; i < map->n; i++) {
		key = (const struct iolat_key *)((char *)map->keys + i * map->key_size);
		there = iolat_dev_check(key->dev);
		if (there < 0 && !told) {
			/* Out of descriptors, say: keep its entries. */
			told = true;
			fprintf(stderr, "%s: cannot tell whether device %u:%u is "
				"still there: %s\n", map->tool, IOLAT_MAJOR(key->dev),
				IOLAT_MINOR(key->dev), strerror(-there));
		}
		val = (const char *)map->vals + i * map->val_size;
		if (kind == TOP_MAP_DELAYS)
			ret = top_model_add_delay(m, key, val, there != 0);
		else
			ret = top_model_add_entry(m, key, val, kind == TOP_MAP_PARENTS,
						  there != 0);
		if (ret < 0)
			goto out;
		/*
		 * A cgroup the tree does not know may be one whose directory
		 * was not visible yet: its entries go only when an rmdir said
		 * so, or after a few intervals.
		 */
		if (ret == TOP_ENTRY_STALE &&
		    (!there || !iolat_cgroups_keep(cgs, key->cgroup_id)))
			stale[nstale++] = *key;
	}
	/* Those it could not delete are tried again next time. */
	if (nstale)
		iolat_map_delete(map, stale, nstale);
	ret = 0;
out:
	free(stale);
	return ret < 0 ? ret : 0;
}

/*
 * Parse the io.stat lines of @devs[@ndev] in the file of cgroup @path
 * into @out[].  False when it cannot be read (gone meanwhile, say): its
 * rows' IO is unknown.
 */
static bool read_iostat(const char *path, const __u32 *devs, size_t ndev,
			struct iolat_iostat *out)
{
	static char buf[IOLAT_IOSTAT_BUF];

	if (iolat_iostat_read(path, buf, sizeof(buf)) < 0)
		return false;
	iolat_iostat_parse(buf, devs, ndev, out);
	return true;
}

/* Room in m->io_devs and m->io_file for a cgroup's on every device: 0 or -ENOMEM. */
static int io_bufs(struct top_model *m)
{
	size_t cap = m->io_devs_cap ? m->io_devs_cap : 8;
	struct iolat_iostat *a, *b;

	if (m->ndevs <= m->io_devs_cap)
		return 0;
	while (cap < m->ndevs)
		cap *= 2;
	a = malloc(cap * sizeof(*a));
	b = malloc(cap * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	free(m->io_devs);
	free(m->io_file);
	m->io_devs = a;
	m->io_file = b;
	m->io_devs_cap = cap;
	return 0;
}

/*
 * The debug keys of @path's io.stat file into @io[] (counters kept),
 * through @file[@ndev]; read?
 */
static bool read_iostat_debug(const char *path, const __u32 *devs, size_t ndev,
			      struct iolat_iostat *io, struct iolat_iostat *file)
{
	size_t k;

	memset(file, 0, ndev * sizeof(*file));
	if (!read_iostat(path, devs, ndev, file))
		return false;
	for (k = 0; k < ndev; k++)
		iolat_iostat_merge_debug(&io[k], &file[k]);
	return true;
}

/*
 * Do cgroup @c's rows on @devs need io.stat's debug keys, which only its
 * file has?  In the IOSTAT mode every row (they are all it has); with the
 * events, a row whose depth or use_delay came from no event, and a row
 * io.stat makes now (@io: its counters).
 */
static bool wants_debug(struct top_model *m, const struct iolat_cgroup *c,
			const __u32 *devs, size_t ndev, const struct iolat_iostat *io)
{
	size_t k;

	for (k = 0; k < ndev; k++) {
		const struct top_row *r = row_find(m, devs[k], c->id);

		if (!r) {
			if (io[k].has_io && wanted(m, devs[k], c->path))
				return true;
			continue;
		}
		if (m->mode != TOP_MODE_EVENTS || !r->g.has_depth || !r->g.has_use_delay)
			return true;
	}
	return false;
}

/*
 * A cgroup's io.stat counts its descendants' IO too (the root's excepted:
 * it shows the whole disk), so a subtree whose top did none is skipped.
 * A cgroup skipped leaves its rows as they were made: no IO, io.stat
 * read (the rows are made afresh each refresh, and only this sets their
 * io, io_err and io_file).  With a walk and no debug keys wanted, so is
 * a cgroup the walk has no record of (no IO on any device), found by
 * one pass over the records and the tree's ids: of 10,000 cgroups, the
 * thousand that did IO cost something.
 */
int top_model_add_io(struct top_model *m)
{
	const struct iolat_cgroups *cgs = m->cgs;
	struct iolat_iostat *io;
	const __u32 *devs = m->devs;	/* its rows make no other */
	size_t i, ndev = m->ndevs, k;
	__u32 *at = NULL;
	bool *quiet;

	if (!ndev)
		return 0;
	if (io_bufs(m))
		return -ENOMEM;
	io = m->io_devs;
	if (cgs->n > m->io_cap) {
		free(m->io_quiet);
		free(m->io_at);
		m->io_quiet = malloc(cgs->n * sizeof(*m->io_quiet));
		m->io_at = malloc(cgs->n * sizeof(*m->io_at));
		m->io_cap = m->io_quiet && m->io_at ? cgs->n : 0;
		if (!m->io_cap)
			return -ENOMEM;
	}
	quiet = m->io_quiet;	/* each set before its children read it */
	if (m->iostat && !m->iostat_debug && iolat_iostat_set_has(m->iostat, false)) {
		at = m->io_at;
		iolat_iostat_set_index(m->iostat, cgs, at);
	}
	for (i = 0; i < cgs->n; i++) {	/* parents before children */
		const struct iolat_cgroup *c = &cgs->v[i];
		bool any = false, ok = true, file = false;

		if (at && c->parent >= 0 && !at[i]) {
			quiet[i] = !c->gone;	/* no record in the walk: no IO */
			continue;
		}
		quiet[i] = false;
		if (c->gone)
			continue;	/* removed since the walk */
		if (c->parent > 0 && quiet[c->parent]) {
			quiet[i] = true;	/* nothing below a quiet cgroup either */
			continue;
		}
		if (c->parent < 0 && !row_find_any(m, c->id, devs, ndev))
			continue;	/* the root: only for a row of its own */
		memset(io, 0, ndev * sizeof(*io));
		if (m->iostat && iolat_iostat_set_has(m->iostat, c->parent < 0)) {
			if (!at)
				iolat_iostat_set_get(m->iostat, c->id, devs, ndev, io);
			else if (at[i])
				iolat_iostat_set_get_at(m->iostat, at[i] - 1, devs, ndev, io);
			if (m->iostat_debug && wants_debug(m, c, devs, ndev, io))
				file = read_iostat_debug(c->path, devs, ndev, io, m->io_file);
		} else {
			ok = file = read_iostat(c->path, devs, ndev, io);
		}
		for (k = 0; k < ndev; k++) {
			struct top_row *r;

			any |= io[k].has_io;
			if (!wanted(m, devs[k], c->path))
				continue;
			r = io[k].has_io ? row_get(m, devs[k], c->id, c->path) :
				row_find(m, devs[k], c->id);
			if (!r) {
				if (io[k].has_io)
					return -ENOMEM;
				continue;
			}
			r->io = io[k];
			r->io_err = !ok;
			r->io_file = file;
		}
		/* An unread io.stat says nothing of the children: read them. */
		quiet[i] = c->parent >= 0 && ok && !any;
	}
	return 0;
}

void top_model_add_iostat_debug(struct top_model *m, size_t n)
{
	size_t i;

	struct iolat_iostat file;

	if (!m->iostat || !m->iostat_debug)
		return;		/* every file read already, or no debug keys */
	for (i = 0; i < n && i < m->n; i++) {
		struct top_row *r = &m->v[i];

		if (!r->io_file && !r->io_err)
			r->io_file = read_iostat_debug(r->path, &r->dev, 1, &r->io, &file);
	}
}

/*
 * Could row @r's cgroup have IO pressure of its own making: IO in the
 * interval, induced delay paid (its tasks sleep in io_schedule()), or
 * use_delay on?  Yes when a rate is not known (a row's first interval,
 * the pays not traced).
 */
static bool row_busy(const struct top_row *r)
{
	return !(r->iops == 0) || !(r->paid == 0) || r->g.use_delay > 0;
}

void top_model_add_pressure(struct top_model *m, size_t n)
{
	size_t i;

	m->psi.now_ns = m->now_ns;
	/*
	 * A cgroup is busy when any of its rows is, on any device: all of
	 * them named before the first is read (IOLAT_PSI_QUIET_NS).
	 */
	for (i = 0; i < m->n; i++)
		if (row_busy(&m->v[i]))
			iolat_psi_busy(&m->psi, m->v[i].cgid);
	for (i = 0; i < n && i < m->n; i++) {
		struct top_row *r = &m->v[i];

		if (iolat_psi_read(&m->psi, r->cgid, r->path, &r->psi_some, &r->psi_full))
			r->psi_some = r->psi_full = NAN;
	}
}

double top_row_iostat_lat(const struct top_row *r)
{
	if (r->io.has_missed)
		return r->io.total ? 100.0 * r->io.missed / r->io.total : 0;
	if (r->io.has_lat)
		return r->io.avg_lat_us;
	/* io.stat's avg_lat is lat_avg / 1000; the window in progress, no sample has */
	if (r->st && !(r->st->flags & IOLAT_STATE_SSD))
		return r->st->lat_avg_ns / 1000;
	return NAN;
}

double top_row_sample_acc_lat(const struct top_row *r)
{
	const struct iolat_state *s = r->st;

	if (!s)
		return NAN;
	if (!s->cur_samples)
		return -1;
	if (s->flags & IOLAT_STATE_SSD)
		return 100.0 * s->cur_missed / s->cur_samples;
	return s->cur_mean_ns / 1e3;
}

__u32 top_row_cookie(const struct top_row *r)
{
	return r->has_group || r->st ? r->g.cookie : 0;
}

bool top_row_scalings_known(const struct top_row *r)
{
	return r->has_parent && !r->st;
}

/* The previous interval's entry of (@dev, @cgid), by its table. */
static struct top_prev *prev_find(struct top_model *m, __u32 dev, __u64 cgid)
{
	size_t i;

	if (!m->nprev_slots)
		return NULL;
	for (i = key_slot(dev, cgid, m->nprev_slots); m->prev_slots[i];
	     i = (i + 1) & (m->nprev_slots - 1)) {
		struct top_prev *p = &m->prev[m->prev_slots[i] - 1];

		if (p->dev == dev && p->cgid == cgid)
			return p;
	}
	return NULL;
}

/* The table of @m->prev's @m->nprev entries: 0, or -ENOMEM (then none). */
static int prev_index(struct top_model *m)
{
	size_t n, i, k;

	if (key_table_reset(&m->prev_slots, &m->nprev_slots, m->nprev))
		return -ENOMEM;
	n = m->nprev_slots;
	for (i = 0; i < m->nprev; i++) {
		for (k = key_slot(m->prev[i].dev, m->prev[i].cgid, n); m->prev_slots[k];
		     k = (k + 1) & (n - 1))
			;
		m->prev_slots[k] = i + 1;
	}
	return 0;
}

/*
 * The previous interval's entry of row @i: at @i itself when the rows
 * came in the same order as then, as they do while the tree, the
 * targets and the maps' entries stay (rows are added in their order);
 * else by the table, made the first time one is not (*@err: -ENOMEM
 * when it cannot be; then none).
 */
static struct top_prev *prev_of(struct top_model *m, size_t i, int *err)
{
	const struct top_row *r = &m->v[i];

	if (i < m->nprev && m->prev[i].dev == r->dev && m->prev[i].cgid == r->cgid)
		return &m->prev[i];
	if (!m->prev_indexed) {
		m->prev_indexed = true;
		if (prev_index(m))
			*err = -ENOMEM;
	}
	return *err ? NULL : prev_find(m, r->dev, r->cgid);
}

/* A window statistic: % of bios missed (non-rotational) or mean in us. */
static double window_lat(const struct top_row *r, __u64 samples, __u64 missed,
			 __u64 mean_ns)
{
	if (!r->g.has_window)
		return -1;
	if (r->g.ssd)
		return samples ? 100.0 * missed / samples : 0;
	return mean_ns / 1e3;
}

double top_row_lat(const struct top_row *r)
{
	return window_lat(r, r->g.last_samples, r->g.last_missed,
			  r->g.last_mean_ns);
}

double top_row_acc_lat(const struct top_row *r)
{
	return window_lat(r, r->g.acc_samples, r->g.acc_missed,
			  r->g.acc_mean_ns);
}

const char *top_row_verdict(const struct top_row *r)
{
	if (r->g.last_action == IOLAT_ACT_OFFLINE)
		return "offline";
	return r->g.last_met ? "met" : "missed";
}

const char *top_row_culprit(const struct top_model *m, const struct top_row *r)
{
	return r->p.culprit_id ? iolat_cgroups_path(m->cgs, r->p.culprit_id) : NULL;
}

enum top_culprit top_row_culprit_status(const struct top_model *m, const struct top_row *r)
{
	if (!r->has_parent)
		return TOP_CULPRIT_NONE;
	if (r->p.culprit_id)
		return top_row_culprit(m, r) ? TOP_CULPRIT_NAMED : TOP_CULPRIT_GONE;
	if (!r->st || !(r->st->flags & IOLAT_STATE_CULPRIT))
		return TOP_CULPRIT_NONE;
	return r->st->flags & IOLAT_STATE_CULPRIT_UNKNOWN ? TOP_CULPRIT_UNKNOWN :
							    TOP_CULPRIT_GONE;
}

/*
 * Paths by their components, so that a cgroup's children follow it: "/a",
 * "/a/child", "/a-x" (strcmp() puts '-' and '.' before '/').
 */
static int cmp_path(const char *a, const char *b)
{
	for (; *a && *a == *b; a++, b++)
		;
	if (*a == *b)
		return 0;
	if (!*a || !*b)
		return !*a ? -1 : 1;
	if (*a == '/' || *b == '/')
		return *a == '/' ? -1 : 1;
	return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
}

/*
 * Sort the rows by @cmp: their addresses sorted, then each row moved
 * once.  A row is over 600 bytes, and qsort() moved each about log2(n)
 * times.  Without the memory for that, qsort() on the rows themselves.
 * Only the @k first in order, the others after them in none (@k 0: all
 * in order): a report of -r rows needs no more, and a selection is
 * O(n); then only the @k first move, and the rows where they go (a copy
 * of every row was 6 MB a refresh at 10,000).
 */
static int (*rows_cmp)(const void *, const void *);

static int cmp_row_ptr(const void *a, const void *b)
{
	return rows_cmp(*(struct top_row *const *)a, *(struct top_row *const *)b);
}

static void swap_ptr(struct top_row **p, size_t a, size_t b)
{
	struct top_row *t = p[a];

	p[a] = p[b];
	p[b] = t;
}

/*
 * Move the @k first of @p[0..@n) by rows_cmp to its front, in no order
 * (quickselect, the median of three as pivot: O(n) comparisons where a
 * sort made n log2(n)).  The rows' keys are all different (the path
 * breaks ties), so no run of equal keys can make it quadratic; past
 * 2 log2(n) rounds it sorts what is left all the same.
 */
static void select_first(struct top_row **p, size_t n, size_t k)
{
	size_t lo = 0, hi = n, i, store, mid;
	int rounds = 16;

	for (i = n; i; i >>= 1)
		rounds += 2;
	while (hi - lo > 2 && k > lo && k < hi) {
		if (!rounds--) {
			qsort(p + lo, hi - lo, sizeof(*p), cmp_row_ptr);
			return;
		}
		mid = lo + (hi - lo) / 2;
		/* The median of p[lo], p[mid], p[hi - 1], into p[hi - 1]. */
		if (cmp_row_ptr(&p[mid], &p[lo]) < 0)
			swap_ptr(p, mid, lo);
		if (cmp_row_ptr(&p[hi - 1], &p[lo]) < 0)
			swap_ptr(p, hi - 1, lo);
		if (cmp_row_ptr(&p[mid], &p[hi - 1]) < 0)
			swap_ptr(p, mid, hi - 1);
		for (i = store = lo; i < hi - 1; i++)
			if (cmp_row_ptr(&p[i], &p[hi - 1]) < 0)
				swap_ptr(p, i, store++);
		swap_ptr(p, store, hi - 1);	/* the pivot, in its place */
		if (store < k)
			lo = store + 1;
		else
			hi = store;
	}
}

/*
 * The @k first rows, in order in m->order[], to the front: copied into
 * the spare, in order; the rows in front that are not among them, into
 * the places the @k first leave behind them; the copies to the front.
 * m->front marks which of the places in front hold one of the @k.
 */
static void rows_to_front(struct top_model *m, size_t k)
{
	size_t i, t, h = 0;

	for (t = 0; t < k; t++) {
		size_t at = m->order[t] - m->v;

		m->spare[t] = *m->order[t];
		if (at < k)
			m->front[at] = true;
	}
	for (i = 0; i < k; i++) {
		if (m->front[i]) {
			m->front[i] = false;
			continue;
		}
		while ((size_t)(m->order[h] - m->v) < k)
			h++;	/* the next place behind that one of the k left */
		*m->order[h++] = m->v[i];
	}
	memcpy(m->v, m->spare, k * sizeof(*m->v));
}

/*
 * The last sort by path or by state, kept for the next: the rows' keys
 * in their places before it (by state, their ranks and groups too), the
 * places of its k first in their order, the tree's paths' generation
 * and, with rows on more than one device, the devices' names.  Those
 * orders rest on nothing else, so when the same rows come in the same
 * places (the tree, the targets and the maps' entries as they were:
 * every refresh of a quiet system) and, by state, keep their ranks, the
 * same k come first in the same order, and no row is compared.
 */
struct top_sort_memo {
	/* v[i]: the key of the row in place i, and the place of the i-th first. */
	struct top_memo_row {
		const char *path, *group;
		__u64 cgid;
		__u32 dev, rank;
		size_t first;
	} *v;
	enum top_sort key;
	size_t n, k, cap, ndevs;
	const struct iolat_cgroups *cgs;
	unsigned long paths_gen;
	__u32 *devs;
	char (*names)[32];
	size_t devs_cap;
	bool valid;
};

/* Are the rows, and the k asked for, those of the last sort by @key? */
static bool memo_holds(const struct top_model *m, size_t k, enum top_sort key)
{
	const struct top_sort_memo *o = m->memo;
	size_t i;

	if (!o || !o->valid || o->key != key || o->n != m->n || o->k != k ||
	    o->cgs != m->cgs || o->paths_gen != m->cgs->paths_gen)
		return false;
	for (i = 0; i < m->n; i++)
		if (o->v[i].dev != m->v[i].dev || o->v[i].cgid != m->v[i].cgid ||
		    o->v[i].path != m->v[i].path)
			return false;
	if (key == TOP_SORT_STATE)
		for (i = 0; i < m->n; i++)
			if (o->v[i].rank != m->v[i].rank || o->v[i].group != m->v[i].group)
				return false;
	for (i = 0; i < o->ndevs; i++)
		if (strcmp(o->names[i], iolat_dev_name(o->devs[i])))
			return false;
	return true;
}

/* Keep this sort by @key: the rows in their places, the k first in m->order. */
static void memo_save(struct top_model *m, size_t k, enum top_sort key)
{
	struct top_sort_memo *o = m->memo;
	size_t i, d;

	if (!o)
		o = m->memo = calloc(1, sizeof(*o));
	if (!o)
		return;
	o->valid = false;
	if (m->n > o->cap) {
		free(o->v);
		o->v = malloc(m->n * sizeof(*o->v));
		o->cap = o->v ? m->n : 0;
		if (!o->v)
			return;
	}
	for (i = 0; i < m->n; i++) {
		o->v[i].path = m->v[i].path;
		o->v[i].group = m->v[i].group;
		o->v[i].cgid = m->v[i].cgid;
		o->v[i].dev = m->v[i].dev;
		o->v[i].rank = m->v[i].rank;
	}
	/* On more than one device, the names matter. */
	o->ndevs = m->ndevs > 1 ? m->ndevs : 0;
	if (o->ndevs > o->devs_cap) {
		free(o->devs);
		free(o->names);
		o->devs = malloc(o->ndevs * sizeof(*o->devs));
		o->names = malloc(o->ndevs * sizeof(*o->names));
		o->devs_cap = o->devs && o->names ? o->ndevs : 0;
		if (!o->devs_cap)
			return;
	}
	for (d = 0; d < o->ndevs; d++) {
		o->devs[d] = m->devs[d];
		snprintf(o->names[d], sizeof(o->names[d]), "%s", iolat_dev_name(o->devs[d]));
	}
	for (i = 0; i < k; i++)
		o->v[i].first = m->order[i] - m->v;
	o->n = m->n;
	o->k = k;
	o->key = key;
	o->cgs = m->cgs;
	o->paths_gen = m->cgs ? m->cgs->paths_gen : 0;
	o->valid = m->cgs != NULL;
}

/* @p[@a..@b) reversed. */
static void reverse_ptr(struct top_row **p, size_t a, size_t b)
{
	while (a + 1 < b)
		swap_ptr(p, a++, --b);
}

/*
 * The @k first of m->order, in order, never end inside a group (a parent,
 * then the culprits its line names): the group's rows past @k come in,
 * in order, and as many rows before the group go out, behind @k; unless
 * the group does not fit in @k.  A scan of the rows past @k, only when
 * the last of the k is in a group.
 */
static void keep_group(struct top_model *m, size_t k)
{
	struct top_row **o = m->order, *last;
	size_t s, e, j, extra;

	if (!k || k >= m->n)
		return;
	last = o[k - 1];
	if (!last->group || (!last->names && last->group == last->path))
		return;
	for (e = k, j = k; j < m->n; j++)
		if (o[j]->group == last->group && o[j]->dev == last->dev)
			swap_ptr(o, e++, j);
	extra = e - k;
	for (s = k; s > 0 && o[s - 1]->group == last->group && o[s - 1]->dev == last->dev; s--)
		;
	if (!extra || extra > s)
		return;
	qsort(o + k, extra, sizeof(*o), cmp_row_ptr);
	/* o[s - extra, e) rotated left by extra: the group ends at k. */
	reverse_ptr(o, s - extra, s);
	reverse_ptr(o, s, e);
	reverse_ptr(o, s - extra, e);
}

static void rows_sort_first(struct top_model *m, int (*cmp)(const void *, const void *),
			    size_t k, enum top_sort key)
{
	bool memo = key == TOP_SORT_PATH || key == TOP_SORT_STATE;

	struct top_row *v;
	size_t i;

	if (m->n > m->order_cap) {
		struct top_row **o = realloc(m->order, m->cap * sizeof(*o));
		bool *front = realloc(m->front, m->cap * sizeof(*front));

		if (o)
			m->order = o;
		if (front) {
			memset(front, 0, m->cap * sizeof(*front));
			m->front = front;
		}
		if (o && front)
			m->order_cap = m->cap;
	}
	if (m->n > m->spare_cap) {
		free(m->spare);
		m->spare = malloc(m->cap * sizeof(*m->spare));
		m->spare_cap = m->spare ? m->cap : 0;
	}
	if (m->n > m->order_cap || m->n > m->spare_cap) {
		qsort(m->v, m->n, sizeof(*m->v), cmp);
		if (m->memo)
			m->memo->valid = false;
		return;
	}
	if (!k || k > m->n)
		k = m->n;
	if (memo && memo_holds(m, k, key)) {
		for (i = 0; i < k; i++)
			m->order[i] = &m->v[m->memo->v[i].first];
	} else {
		for (i = 0; i < m->n; i++)
			m->order[i] = &m->v[i];
		rows_cmp = cmp;
		if (k < m->n)
			select_first(m->order, m->n, k);
		qsort(m->order, k, sizeof(*m->order), cmp_row_ptr);
		if (key == TOP_SORT_STATE)
			keep_group(m, k);
		if (memo)
			memo_save(m, k, key);
	}
	if (k < m->n) {
		rows_to_front(m, k);
		return;
	}
	for (i = 0; i < m->n; i++)
		m->spare[i] = *m->order[i];
	/* The rows' array and the spare trade places (and capacities). */
	v = m->v;
	m->v = m->spare;
	m->spare = v;
	i = m->cap;
	m->cap = m->spare_cap;
	m->spare_cap = i;
}

static enum top_sort sorting;

static double sort_value(const struct top_row *r)
{
	switch (sorting) {
	case TOP_SORT_LAT: return top_row_lat(r);
	case TOP_SORT_IOPS: return isnan(r->iops) ? -1 : r->iops;
	case TOP_SORT_DEPTH: return r->g.depth == IOLAT_DEPTH_MAX ? 1e12 : r->g.depth;
	case TOP_SORT_DELAY:	/* with one function of the two: what it tells */
		return isnan(r->charged) && isnan(r->paid) ? -1 :
			(isnan(r->charged) ? 0 : r->charged) + (isnan(r->paid) ? 0 : r->paid);
	case TOP_SORT_WAITS: return isnan(r->waits) ? -1 : r->waits;
	default: return 0;
	}
}

static int cmp_row_view(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;
	double vx, vy;
	int c;

	if (sorting == TOP_SORT_STATE) {
		if (x->rank != y->rank)
			return x->rank < y->rank ? -1 : 1;
	} else if (sorting != TOP_SORT_PATH) {
		vx = sort_value(x);
		vy = sort_value(y);
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	if (x->dev != y->dev) {
		/* A gone device's name is in a buffer the next call reuses. */
		char name[32];

		snprintf(name, sizeof(name), "%s", iolat_dev_name(x->dev));
		c = strcmp(name, iolat_dev_name(y->dev));
		return c ? c : x->dev < y->dev ? -1 : 1;
	}
	/* By state, a culprit right after the parent that names it. */
	if (sorting == TOP_SORT_STATE && x->group != y->group && x->group && y->group) {
		c = cmp_path(x->group, y->group);
		if (c)
			return c;
	}
	c = cmp_path(x->path, y->path);
	/* Never equal: the selection of the first rows relies on it. */
	return c ? c : (x->cgid > y->cgid) - (x->cgid < y->cgid);
}

void top_model_sort(struct top_model *m, enum top_sort key)
{
	top_model_sort_first(m, key, 0);
}

void top_model_sort_first(struct top_model *m, enum top_sort key, size_t k)
{
	sorting = key;
	rows_sort_first(m, cmp_row_view, k, key);
	m->slots_stale = true;	/* the rows moved */
}

/* (@now - @before) / @div, or NAN when the counter went backwards. */
static double rate(__u64 now, __u64 before, double div)
{
	if (now == before)
		return 0;	/* what the division gives, @div > 0: an idle row's */
	return now < before ? NAN : (now - before) / div;
}

/*
 * What happened to @r since @p, the previous interval: windows, bios
 * throttled and their mean wait, a parent's scalings.  Unknown when a
 * counter went backwards (another cgroup's baseline, an entry reset).
 */
static void interval_of(const struct top_model *m, struct top_row *r,
			const struct top_prev *p)
{
	struct top_interval *in = &r->in;

	if (r->g.windows < p->windows || r->g.windows_missed < p->windows_missed ||
	    r->g.throttled < p->throttled ||
	    r->g.throttled_wait_ns < p->throttled_wait_ns ||
	    r->p.scale_downs < p->scale_downs || r->p.scale_ups < p->scale_ups)
		return;
	in->known = true;
	in->windows = r->g.windows - p->windows;
	in->windows_missed = r->g.windows_missed - p->windows_missed;
	in->throttled = r->g.throttled - p->throttled;
	in->wait_mean_us = in->throttled ?
		(r->g.throttled_wait_ns - p->throttled_wait_ns) / 1e3 / in->throttled : NAN;
	in->scale_downs = r->p.scale_downs - p->scale_downs;
	in->scale_ups = r->p.scale_ups - p->scale_ups;
	in->limited_share = NAN;
	in->action = in->windows ? r->g.last_action : -1;
	if (r->limited_known && p->limited_known && r->limited_ns >= p->limited_ns &&
	    m->now_ns > m->prev_now_ns)
		in->limited_share = fmin(1.0, (double)(r->limited_ns - p->limited_ns) /
					 (m->now_ns - m->prev_now_ns));
}

/*
 * The lowest depth during the interval that closed epoch m->epoch, from
 * the BPF side's two slots: the closed epoch's, when a change came in it;
 * else the depth did not move, and it is the next epoch's starting depth
 * (a change came after the epoch was bumped) or the current one.  A group
 * with no depth event: io.stat's debug depth, constant since the start.
 */
static void depth_min_of(const struct top_model *m, struct top_row *r)
{
	const struct iolat_depth_slot *closed = &r->g.depth_slot[m->epoch & 1];
	const struct iolat_depth_slot *next = &r->g.depth_slot[(m->epoch + 1) & 1];
	struct top_interval *in = &r->in;

	in->depth_min_known = true;
	if (r->has_group && r->g.has_depth) {
		if (closed->epoch == m->epoch)
			in->depth_min = closed->min;
		else if (next->epoch == m->epoch + 1)
			in->depth_min = next->start;
		else
			in->depth_min = r->g.depth;
	} else if (r->io.has_depth) {
		in->depth_min = r->io.depth;
	} else {
		in->depth_min_known = false;
	}
}

/*
 * Time limited since the start: the stretches the BPF side closed, plus
 * the open one up to now.  Without a depth event, io.stat's debug depth
 * has held since the start.  Unknown without either.
 */
static void limited_of(const struct top_model *m, struct top_row *r)
{
	/* Without the events a depth seen now may have changed before. */
	if (m->mode != TOP_MODE_EVENTS) {
		r->limited_known = false;
		return;
	}
	r->limited_known = true;
	if (r->has_group && r->g.has_depth) {
		r->limited_ns = r->g.limited_ns;
		if (r->g.limited_since_ns && m->now_ns > r->g.limited_since_ns)
			r->limited_ns += m->now_ns - r->g.limited_since_ns;
	} else if (r->io.has_depth) {
		r->limited_ns = r->io.depth != IOLAT_DEPTH_MAX && m->start_ns &&
			m->now_ns > m->start_ns ? m->now_ns - m->start_ns : 0;
	} else {
		r->limited_known = false;
	}
}

static int cmp_missing(const void *a, const void *b)
{
	const struct top_missing *x = a, *y = b;

	if (x->map != y->map)
		return x->map < y->map ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return cmp_path(x->path, y->path);
}

/*
 * The rows a full map may have no entry for.  A map that cannot take a
 * new pair drops every event of it: the whole row, not some of its
 * events.  Which rows, the BPF side cannot say (it has nowhere to put
 * them); the targets can: a pair with a target has io.latency on, and
 * its events make an entry.  So while a map drops events (more during
 * the interval, or some before and it is full still), a row with a
 * target and no entry of its is named.  The parents map is not asked:
 * which cgroups have children scaled, no target tells.
 */
static int missing_of(struct top_model *m)
{
	static const enum top_map kinds[] = { TOP_MAP_GROUPS, TOP_MAP_DELAYS };
	size_t i, k;

	for (k = 0; k < sizeof(kinds) / sizeof(*kinds); k++) {
		const struct top_map_state *st = &m->maps[kinds[k]];

		if (!st->read || !(st->full > st->full_seen ||
				   (st->full && st->entries >= st->max_entries)))
			continue;
		for (i = 0; i < m->n; i++) {
			const struct top_row *r = &m->v[i];

			if (!r->target_us ||
			    (kinds[k] == TOP_MAP_GROUPS ? r->has_group : r->has_delay))
				continue;
			if (m->nmissing == m->missing_cap) {
				size_t cap = m->missing_cap ? m->missing_cap * 2 : 16;
				struct top_missing *v = realloc(m->missing, cap * sizeof(*v));

				if (!v)
					return -ENOMEM;
				m->missing = v;
				m->missing_cap = cap;
			}
			m->missing[m->nmissing++] = (struct top_missing){
				r->dev, r->cgid, r->path, kinds[k] };
		}
	}
	qsort(m->missing, m->nmissing, sizeof(*m->missing), cmp_missing);
	for (k = 0; k < TOP_MAP_NR; k++)
		if (m->maps[k].read)
			m->maps[k].full_seen = m->maps[k].full;
	return 0;
}

/*
 * The order of magnitude of @iops: 0 under 1, 1 under 10, and so on;
 * @prev, the row's last (-1: none), is kept while @iops stays within a
 * factor of 2 of its bounds, and when @iops is unknown.  IOPS that jitter
 * across a power of 10 would swap rows every refresh.
 */
static int io_bucket(double iops, int prev)
{
	static const double pow10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
	int b, nb = sizeof(pow10) / sizeof(*pow10);

	if (isnan(iops))
		return prev > 0 ? prev : 0;
	if (prev >= 0 && prev <= nb &&
	    (!prev || iops >= pow10[prev - 1] / 2) && (prev == nb || iops < pow10[prev] * 2))
		return prev;
	for (b = 0; b < nb && iops >= pow10[b]; b++)
		;
	return b;
}

/*
 * Is @r missing its target: the culprit of its siblings' scaling, a
 * window missed in the interval, or the last window missed and not long
 * ago; without the events, io.stat's window in progress over target
 * (the controller's own tests: a tenth of the bios, or the mean), or
 * the running average (io.stat's or the sample's), or, on a
 * non-rotational queue with neither, the sample's accumulated statistic.
 */
static bool row_missing(const struct top_model *m, const struct top_row *r)
{
	const struct iolat_iostat *io = &r->io;
	double lat;

	if (r->culprit || (r->in.known && r->in.windows_missed))
		return true;
	if (r->g.has_window && !r->g.last_met && r->g.last_action != IOLAT_ACT_OFFLINE &&
	    !top_window_idle(r, m->now_ns))
		return true;
	if (m->mode == TOP_MODE_EVENTS)
		return false;
	if (io->has_missed)
		return io->total && io->missed >= (io->total / 10 ?: 1);
	lat = top_row_iostat_lat(r);
	if (!isnan(lat))
		return r->target_us && lat > r->target_us;
	if (r->st && (r->st->flags & IOLAT_STATE_SSD) && r->st->cur_samples)
		return r->st->cur_missed >= (r->st->cur_samples / 10 ?: 1);
	return false;
}

/*
 * A row's state class, what a look should go to first: missing its
 * target, limited in depth (now or during the interval), delayed
 * (use_delay on, delay charged or paid), bios waiting for a slot, the
 * rest.
 */
static __u32 row_class(const struct top_model *m, const struct top_row *r)
{
	if (row_missing(m, r))
		return 0;
	if ((r->g.has_depth && r->g.depth != IOLAT_DEPTH_MAX) ||
	    (r->in.known && r->in.depth_min_known && r->in.depth_min != IOLAT_DEPTH_MAX))
		return 1;
	if (r->g.use_delay > 0 || r->charged > 0 || r->paid > 0)
		return 2;
	if (r->waits > 0 || (r->in.known && r->in.throttled))
		return 3;
	return 4;
}

/* The top of @r's group: the first parent up a line of culprits. */
static struct top_row *group_top(struct top_model *m, struct top_row *r)
{
	int hops = 16;	/* a culprit is a child: no loop, but a bound all the same */

	while (r->named_by && hops--)
		r = &m->v[r->named_by - 1];
	return r;
}

/* Each row's rank and group (struct top_row's comment). */
static void state_ranks(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct top_row *r = &m->v[i];

		r->rank = row_class(m, r) << 8 | (255 - r->io_bucket);
		r->group = r->path;
	}
	/* A group's rank: its lowest; the tops are named by none. */
	for (i = 0; i < m->n; i++) {
		struct top_row *r = &m->v[i], *t;

		if (!r->named_by)
			continue;
		t = group_top(m, r);
		if (r->rank < t->rank)
			t->rank = r->rank;
	}
	for (i = 0; i < m->n; i++) {
		struct top_row *r = &m->v[i], *t;

		if (!r->named_by)
			continue;
		t = group_top(m, r);
		r->rank = t->rank;
		r->group = t->path;
	}
}

int top_model_compute(struct top_model *m, double secs)
{
	struct top_prev *np;
	size_t i;
	int err = 0;

	if (state_apply(m))
		return -ENOMEM;
	/* This interval's baseline, in the buffer of the one before last. */
	if (m->n > m->next_cap) {
		free(m->next);
		m->next = malloc(m->n * sizeof(*m->next));
		m->next_cap = m->next ? m->n : 0;
		if (!m->next)
			return -ENOMEM;
	}
	np = m->next;
	/* The rows stay where they were added: the slots hold. */
	for (i = 0; i < m->n; i++) {
		struct top_row *r = &m->v[i];
		struct top_prev *p = prev_of(m, i, &err);

		limited_of(m, r);
		np[i] = (struct top_prev){ r->dev, r->cgid, r->io.rbytes, r->io.wbytes,
					   r->io.ios, r->g.charged_ns, r->g.paid_ns,
					   r->g.throttled, !r->io_err, r->g.windows,
					   r->g.windows_missed, r->g.throttled_wait_ns,
					   r->p.scale_downs, r->p.scale_ups,
					   r->limited_ns, r->limited_known, 0 };
		/* Without the events nothing tells what happened in between. */
		if (p && m->mode == TOP_MODE_EVENTS)
			interval_of(m, r, p);
		if (r->in.known)
			depth_min_of(m, r);
		/*
		 * A row's first interval has no baseline: io.stat counts
		 * since its cgroup was made, a map entry may predate the
		 * row.  Unknown, not 0.
		 */
		if (!p || secs <= 0 || r->io_err || !p->io_ok)
			r->iops = r->rmbps = r->wmbps = NAN;
		if (!p || secs <= 0)
			r->charged = r->paid = r->waits = NAN;
		if (p && secs > 0) {
			/* One counter back: the baseline is another cgroup's. */
			if (r->io.ios < p->ios || r->io.rbytes < p->rbytes ||
			    r->io.wbytes < p->wbytes)
				r->iops = r->rmbps = r->wmbps = NAN;
			else if (!r->io_err && p->io_ok) {
				r->iops = rate(r->io.ios, p->ios, secs);
				r->rmbps = rate(r->io.rbytes, p->rbytes, secs * 1e6);
				r->wmbps = rate(r->io.wbytes, p->wbytes, secs * 1e6);
			}
			r->charged = rate(r->g.charged_ns, p->charged_ns, 1e6 * secs);
			r->paid = rate(r->g.paid_ns, p->paid_ns, 1e6 * secs);
			r->waits = rate(r->g.throttled, p->throttled, secs);
		}
		r->io_bucket = np[i].io_bucket = io_bucket(r->iops, p ? p->io_bucket : -1);
		/* Without the events: what the functions attached tell. */
		if (m->mode != TOP_MODE_EVENTS) {
			r->fn_charges = m->fns.attached[IOLAT_FN_ADD_DELAY];
			r->fn_pays = m->fns.attached[IOLAT_FN_THROTTLE];
			if (!r->fn_charges)
				r->charged = NAN;
			if (!r->fn_pays)
				r->paid = NAN;
			r->waits = NAN;
		}
	}
	/*
	 * A parent's culprit is "throttling" its siblings while their cookie
	 * is down; its line names it either way.
	 */
	for (i = 0; i < m->n; i++) {
		struct top_row *par = &m->v[i], *c;

		if (!par->has_parent || !par->p.culprit_id)
			continue;
		c = row_find(m, par->dev, par->p.culprit_id);
		if (!c || c == par)
			continue;
		c->named_by = i + 1;
		par->names = true;
		if (par->p.cookie < TOP_DEFAULT_COOKIE)
			c->culprit = true;
	}
	for (i = 0; i < m->n; i++) {
		struct top_row *r = &m->v[i];

		/* No event since we started: io.stat's debug keys, if any. */
		if (!r->g.has_depth && r->io.has_depth) {
			r->g.depth = r->io.depth;
			r->g.has_depth = 1;
		}
		if (!r->g.has_use_delay && r->io.has_depth) {
			r->g.use_delay = r->io.use_delay;
			r->g.has_use_delay = 1;
		}
		if (r->g.use_delay > 0)
			r->state = "delayed";
		else if (r->g.has_depth && r->g.depth != IOLAT_DEPTH_MAX)
			r->state = "throttled";
		else if (r->culprit)
			r->state = "throttling";
		else if (!r->g.has_depth)	/* maybe throttled before we started */
			r->state = "unknown";
		else if (m->mode != TOP_MODE_EVENTS && !r->st)
			/* Not throttled; whether it scales its siblings: unknown. */
			r->state = "unthrottled";
		else
			r->state = "ok";
	}
	m->nmissing = 0;
	if (!err)
		err = missing_of(m);
	state_ranks(m);
	/* The baseline's buffer and the last one's trade places. */
	m->next = m->prev;
	i = m->next_cap;
	m->next_cap = m->prev_cap;
	m->prev_cap = i;
	m->prev = np;
	m->nprev = m->n;
	m->prev_indexed = false;	/* made when a row is not in its place */
	m->prev_now_ns = m->now_ns;
	return err;
}

bool top_window_idle(const struct top_row *r, __u64 now_ns)
{
	/* A window stamped after @now_ns ended during this refresh. */
	return r->g.has_window && now_ns > r->g.last_window_ns &&
	       now_ns - r->g.last_window_ns > TOP_IDLE_NS;
}

bool top_row_grouped(const struct top_model *m, size_t i)
{
	const struct top_row *r = &m->v[i];

	return i && i < m->n && r->group && r->group != r->path &&
	       r->group == m->v[i - 1].group &&
	       r->dev == m->v[i - 1].dev;
}

void top_model_free(struct top_model *m)
{
	iolat_psi_free(&m->psi);
	free(m->io_quiet);
	free(m->io_at);
	if (m->memo) {
		free(m->memo->v);
		free(m->memo->devs);
		free(m->memo->names);
	}
	free(m->memo);
	free(m->devs);
	free(m->io_devs);
	free(m->io_file);
	free(m->missing);
	free(m->order);
	free(m->front);
	free(m->spare);
	free(m->prev_slots);
	free(m->state_slots);
	free(m->between);
	free(m->between_slots);
	free(m->next);
	free(m->v);
	free(m->slots);
	free(m->prev);
	memset(m, 0, sizeof(*m));
}
