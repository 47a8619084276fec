// SPDX-License-Identifier: GPL-2.0
/* Reading a BPF hash map whole, in batches: see iolat-map.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iolat-map.h"

static int bpf_lookup_batch(void *ctx, void *in, void *out, void *keys,
			    void *vals, __u32 *count, bool del)
{
	int fd = *(int *)ctx, err;

	err = del ? bpf_map_lookup_and_delete_batch(fd, in, out, keys, vals, count, NULL) :
		bpf_map_lookup_batch(fd, in, out, keys, vals, count, NULL);
	return err < 0 ? -errno : 0;
}

static int bpf_delete_batch(void *ctx, const void *keys, __u32 *count)
{
	return bpf_map_delete_batch(*(int *)ctx, keys, count, NULL) < 0 ? -errno : 0;
}

static int bpf_next_key(void *ctx, const void *key, void *next)
{
	return bpf_map_get_next_key(*(int *)ctx, key, next) < 0 ? -errno : 0;
}

static int bpf_lookup(void *ctx, const void *key, void *val, bool del)
{
	int fd = *(int *)ctx, err;

	err = del ? bpf_map_lookup_and_delete_elem(fd, key, val) :
		bpf_map_lookup_elem(fd, key, val);
	return err < 0 ? -errno : 0;
}

static int bpf_delete(void *ctx, const void *key)
{
	return bpf_map_delete_elem(*(int *)ctx, key) < 0 ? -errno : 0;
}

static const struct iolat_map_ops bpf_ops = {
	.lookup_batch = bpf_lookup_batch,
	.delete_batch = bpf_delete_batch,
	.next_key = bpf_next_key,
	.lookup = bpf_lookup,
	.delete = bpf_delete,
};

void iolat_map_init_bpf(struct iolat_map *m, const char *tool, const char *name,
			int fd, size_t key_size, size_t val_size, __u32 max_entries)
{
	memset(m, 0, sizeof(*m));
	m->tool = tool;
	m->name = name;
	m->ops = &bpf_ops;
	m->fd = fd;
	m->ctx = &m->fd;
	m->key_size = key_size;
	m->val_size = val_size;
	m->max_entries = max_entries;
}

void iolat_map_free(struct iolat_map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = m->vals = NULL;
	m->n = m->cap = 0;
}

/*
 * The answers that mean "no batch calls here", not "this call failed":
 * EINVAL from a kernel before 5.6, which knows no such command, and
 * ENOTSUPP (or EOPNOTSUPP) from one whose map type has no batch
 * operation.  Asked only of a first call, whose arguments are right.
 */
static bool batch_refused(int err)
{
	return err == -EINVAL || err == -IOLAT_ENOTSUPP || err == -EOPNOTSUPP;
}

static void say_refused(const struct iolat_map *m, const char *call, int err)
{
	static bool told;

	if (told)
		return;
	told = true;
	fprintf(stderr, "%s: the kernel refused %s on map %s (%s): one system "
		"call per entry from now on\n", m->tool, call, m->name,
		err == -IOLAT_ENOTSUPP ? "ENOTSUPP: not for this map type" :
		err == -EINVAL ? "EINVAL: no batch calls before Linux 5.6" :
		strerror(-err));
}

/* Room for @want entries in m->keys and m->vals. */
static int grow(struct iolat_map *m, size_t want)
{
	size_t cap = m->cap ? m->cap : 64;
	void *p;

	while (cap < want)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	p = realloc(m->keys, cap * m->key_size);
	if (!p)
		return -ENOMEM;
	m->keys = p;
	p = realloc(m->vals, cap * m->val_size);
	if (!p)
		return -ENOMEM;
	m->vals = p;
	m->cap = cap;
	return 0;
}

#define KEY(m, i) ((char *)(m)->keys + (i) * (m)->key_size)
#define VAL(m, i) ((char *)(m)->vals + (i) * (m)->val_size)

/*
 * Batches until the kernel says the end (ENOENT): a call may return fewer
 * than asked and more still come.  *@refused: the first call's error,
 * when it says there are no batch calls to make (then read it one by one).
 */
static int read_batches(struct iolat_map *m, bool del, int *refused)
{
	/* Where the next call starts: a bucket (u32) for a hash map, a key for others. */
	size_t tsize = m->key_size > 8 ? m->key_size : 8;
	char *tok = malloc(2 * tsize), *in = NULL;
	__u32 want = m->batch ?: m->max_entries ?: 1024, count;
	int err, cur = 0;

	if (!tok)
		return -ENOMEM;
	m->n = 0;
	for (;;) {
		err = grow(m, m->n + want);
		if (err)
			break;
		count = want;
		err = m->ops->lookup_batch(m->ctx, in, tok + cur * tsize, KEY(m, m->n),
					   VAL(m, m->n), &count, del);
		m->calls++;
		if (err && err != -ENOENT && err != -ENOSPC) {
			if (!in && !m->n && batch_refused(err))
				*refused = err;
			break;
		}
		m->n += count < want ? count : want;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		if (err == -ENOSPC && !count) {
			/* One bucket holds more than we asked for: ask for more, from the same place. */
			if (want >= (m->max_entries ?: 1U << 20))
				break;
			want *= 2;
			continue;
		}
		in = tok + cur * tsize;
		cur ^= 1;
	}
	free(tok);
	return err;
}

/* One entry a call: its keys, then each one's value (gone meanwhile: left out). */
static int read_each(struct iolat_map *m, bool del)
{
	size_t i, got = 0;
	int err;

	m->n = 0;
	/* A hash map has no more keys than entries; a key deleted under us restarts the walk. */
	while (m->n < (m->max_entries ?: 1U << 20)) {
		err = grow(m, m->n + 1);
		if (err)
			return err;
		err = m->ops->next_key(m->ctx, m->n ? KEY(m, m->n - 1) : NULL, KEY(m, m->n));
		m->calls++;
		if (err == -ENOENT)
			break;
		if (err)
			return err;
		m->n++;
	}
	for (i = 0; i < m->n; i++) {
		err = m->ops->lookup(m->ctx, KEY(m, i), VAL(m, got), del);
		m->calls++;
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		if (got != i)
			memcpy(KEY(m, got), KEY(m, i), m->key_size);
		got++;
	}
	m->n = got;
	return 0;
}

int iolat_map_read(struct iolat_map *m, bool del)
{
	int err, refused = 0;

	if (!m->no_lookup_batch) {
		err = read_batches(m, del, &refused);
		if (!refused)
			return err;
		m->no_lookup_batch = true;
		say_refused(m, del ? "bpf_map_lookup_and_delete_batch()" :
			    "bpf_map_lookup_batch()", refused);
	}
	return read_each(m, del);
}

int iolat_map_delete(struct iolat_map *m, const void *keys, size_t n)
{
	const char *k = keys;
	size_t done = 0;
	int err, ret = 0;

	while (done < n && !m->no_delete_batch) {
		__u32 count = n - done;

		err = m->ops->delete_batch(m->ctx, k + done * m->key_size, &count);
		m->calls++;
		if (!err)
			return ret;
		if (!done && !count && batch_refused(err)) {
			m->no_delete_batch = true;
			say_refused(m, "bpf_map_delete_batch()", err);
			break;
		}
		/* It stops at the first key it cannot delete: skip that one. */
		done += (count < n - done ? count : n - done) + 1;
		if (err != -ENOENT)
			ret = err;
	}
	for (; done < n; done++) {
		err = m->ops->delete(m->ctx, k + done * m->key_size);
		m->calls++;
		if (err && err != -ENOENT)
			ret = err;
	}
	return ret;
}

const void *iolat_map_mmap(const struct bpf_map *map, size_t size, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	*len = (size + page - 1) / page * page;
	p = mmap(NULL, *len, PROT_READ, MAP_SHARED, bpf_map__fd(map), 0);
	return p == MAP_FAILED ? NULL : p;
}
