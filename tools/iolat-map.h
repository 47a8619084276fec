/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a BPF hash map whole, once an interval: with the batch calls
 * (bpf_map_lookup_batch() and bpf_map_lookup_and_delete_batch(), kernel
 * 5.6), a few system calls for the whole map, where bpf_map_get_next_key()
 * and a lookup per entry cost two per entry: 20,000 an interval for 10,000
 * cgroups.  Deleting: bpf_map_delete_batch().
 *
 * The calls go through struct iolat_map_ops so that the host test
 * (tests/host/06-model) can stand in for the kernel with a fake map;
 * iolat_map_init_bpf() gives the real ones.
 */
#ifndef __IOLAT_MAP_H
#define __IOLAT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * The kernel's calls, as libbpf 1.x makes them: 0 or -errno.
 *
 * lookup_batch: up to *@count entries from where @in_batch (NULL: the
 * start) says, into @keys and @vals; *@count becomes how many came, and
 * @out_batch where the next call starts.  -ENOENT: the last of the map,
 * *@count of them (0 or more).  0 with fewer than asked: more may follow
 * (a hash map hands over whole buckets).  -ENOSPC with none: a bucket
 * holds more than *@count.  @del: lookup_and_delete_batch.
 * delete_batch: the *@count keys at @keys; on an error *@count are done.
 * next_key, lookup (and delete when @del), delete: one entry a call, for
 * kernels without the batch calls.
 */
struct iolat_map_ops {
	int (*lookup_batch)(void *ctx, void *in_batch, void *out_batch,
			    void *keys, void *vals, __u32 *count, bool del);
	int (*delete_batch)(void *ctx, const void *keys, __u32 *count);
	int (*next_key)(void *ctx, const void *key, void *next);
	int (*lookup)(void *ctx, const void *key, void *val, bool del);
	int (*delete)(void *ctx, const void *key);
};

struct iolat_map {
	const char *tool;		/* for its messages */
	const char *name;
	const struct iolat_map_ops *ops;
	void *ctx;
	size_t key_size, val_size;
	__u32 batch;			/* entries asked per call; 0: max_entries */
	__u32 max_entries;
	/*
	 * The kernel refused a batch call for this map (EINVAL: no batch
	 * calls before 5.6; ENOTSUPP/EOPNOTSUPP: not for this map type):
	 * one entry a call from then on.  Said once on stderr.
	 */
	bool no_lookup_batch, no_delete_batch;
	/* What iolat_map_read() read: @n keys and values. */
	void *keys, *vals;
	size_t n, cap;
	unsigned long calls;		/* the ops called, all told */
	int fd;				/* iolat_map_init_bpf()'s ctx */
};

/* A map of the kernel's, by its descriptor. */
void iolat_map_init_bpf(struct iolat_map *m, const char *tool, const char *name,
			int fd, size_t key_size, size_t val_size, __u32 max_entries);
/*
 * Every entry of @m into m->keys and m->vals (m->n of them), taken out of
 * the map when @del, each entry read and deleted in one step so that an
 * update between the two is not lost.  0 or -errno.
 */
int iolat_map_read(struct iolat_map *m, bool del);
/*
 * Delete the @n keys at @keys; a key already gone is no error.  0 or
 * -errno (the others are still tried).
 */
int iolat_map_delete(struct iolat_map *m, const void *keys, size_t n);
void iolat_map_free(struct iolat_map *m);
struct bpf_map;
/*
 * @map's first @size bytes (an array made with BPF_F_MMAPABLE) mapped
 * read-only, in whole pages (their length in *@len); NULL and errno set
 * when it cannot be.
 */
const void *iolat_map_mmap(const struct bpf_map *map, size_t size, size_t *len);

/* The kernel's ENOTSUPP (include/linux/errno.h), which user space lacks. */
#define IOLAT_ENOTSUPP 524

#endif /* __IOLAT_MAP_H */
