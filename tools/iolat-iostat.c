// SPDX-License-Identifier: GPL-2.0
/* The io.stat cgroup iterator's front-end side.  See iolat-iostat.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-cgroup.h"
#include "iolat-common.h"
#include "iolat-iostat.h"
#include "iolat-iostat.skel.h"
#include "iolat-map.h"

/*
 * Refreshes between whole walks while the marks say which cgroups to
 * read: a walk also drops what no flush marks (a disk removed, a cgroup
 * gone).
 */
#define WALK_EVERY 10
/* A cgroup's io.stat: a line a disk, under 200 bytes with the debug keys. */
#define IOSTAT_TEXT_MAX (IOLAT_IOSTAT_BLKGS * 256)

struct iolat_iostat_iter {
	struct iolat_iostat_bpf *obj;
	const struct iolat_iostat_rec *recs;	/* the array, mapped read-only */
	size_t recs_len;
	int link_fd;
	__u32 dev;
	/* io_mark attached, its map, and why not ("" when it is). */
	bool marking;
	struct iolat_map marks;
	char mark_why[160];
	__u64 marks_full_seen;
	unsigned int since_walk;
	/* The cgroups to read between walks, their records, a file's text. */
	__u64 *ids;
	size_t ids_cap;
	struct iolat_iostat_rec *fresh;
	size_t fresh_cap;
	char *text;
};

/* libbpf's warnings while loading, kept out of stderr unless -v. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return iolat_verbose ? iolat_libbpf_print(level, fmt, args) : 0;
}

/*
 * What the kernel must have, by its BTF: the iterator's context (the
 * cgroup iterator, 6.1) and the kfunc; "" when both are there.  And
 * for the marks, bpf_rstat_flush (@mark_why "" when it is there).
 */
static void check_btf(char *why, size_t len, char *mark_why, size_t mark_len)
{
	struct btf *btf = btf__load_vmlinux_btf();

	why[0] = '\0';
	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return;
	}
	if (btf__find_by_name_kind(btf, "bpf_iter__cgroup", BTF_KIND_STRUCT) < 0)
		snprintf(why, len, "no cgroup iterator in this kernel (bpf_iter__cgroup "
			 "not in its BTF)");
	else if (btf__find_by_name_kind(btf, "cgroup_rstat_flush", BTF_KIND_FUNC) < 0)
		snprintf(why, len, "no cgroup_rstat_flush in this kernel's BTF (the kfunc "
			 "that flushes the counters)");
	mark_why[0] = '\0';
	if (btf__find_by_name_kind(btf, "bpf_rstat_flush", BTF_KIND_FUNC) < 0)
		snprintf(mark_why, mark_len, "bpf_rstat_flush not in this kernel's BTF");
	btf__free(btf);
}

/*
 * Open and load the object, io_mark with it when the kernel has its
 * function; a load that fails with io_mark is tried once without it
 * (the marks only save time).  0 or -errno.
 */
static int load(struct iolat_iostat_iter *it)
{
	bool mark = !it->mark_why[0];
	int err;

	for (;;) {
		it->obj = iolat_iostat_bpf__open();
		if (!it->obj)
			return errno ? -errno : -ENOMEM;
		it->obj->rodata->targ_dev = it->dev;
		bpf_program__set_autoload(it->obj->progs.io_mark, mark);
		err = iolat_iostat_bpf__load(it->obj);
		if (!err || !mark)
			return err;
		snprintf(it->mark_why, sizeof(it->mark_why), "io_mark not loaded: %s",
			 strerror(-err));
		iolat_iostat_bpf__destroy(it->obj);
		it->obj = NULL;
		mark = false;
	}
}

/* Attach io_mark, loaded or not: why not in it->mark_why. */
static void mark_start(struct iolat_iostat_iter *it)
{
	struct bpf_program *prog = it->obj->progs.io_mark;

	if (it->mark_why[0])
		return;
	it->obj->links.io_mark = bpf_program__attach(prog);
	if (!it->obj->links.io_mark) {
		snprintf(it->mark_why, sizeof(it->mark_why), "io_mark not attached: %s",
			 strerror(errno));
		return;
	}
	iolat_map_init_bpf(&it->marks, "iolat-top", "marks",
			   bpf_map__fd(it->obj->maps.marks), sizeof(__u64), sizeof(__u8),
			   bpf_map__max_entries(it->obj->maps.marks));
	it->marking = true;
}

const char *iolat_iostat_iter_marking(const struct iolat_iostat_iter *it)
{
	return it->marking ? NULL : it->mark_why;
}

void iolat_iostat_iter_stop(struct iolat_iostat_iter *it)
{
	if (!it)
		return;
	if (it->recs)
		munmap((void *)it->recs, it->recs_len);
	iolat_iostat_bpf__destroy(it->obj);
	iolat_map_free(&it->marks);
	free(it->ids);
	free(it->fresh);
	free(it->text);
	free(it);
}

struct iolat_iostat_iter *iolat_iostat_iter_start(__u32 dev, char *why, size_t len)
{
	libbpf_print_fn_t old;
	struct iolat_iostat_iter *it;
	int err;

	it = calloc(1, sizeof(*it));
	if (!it) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	check_btf(why, len, it->mark_why, sizeof(it->mark_why));
	if (why[0]) {
		free(it);
		return NULL;
	}
	it->dev = dev;
	old = libbpf_set_print(quiet_print);
	err = load(it);
	if (err) {
		snprintf(why, len, "%s: %s", it->obj ? "cannot load it" :
			 "cannot open its BPF object", strerror(-err));
		goto fail;
	}
	it->obj->links.iostat = iolat_cgroup_iter_attach(it->obj->progs.iostat, why, len);
	if (!it->obj->links.iostat)
		goto fail;
	it->link_fd = bpf_link__fd(it->obj->links.iostat);
	it->recs = iolat_map_mmap(it->obj->maps.records,
				  sizeof(struct iolat_iostat_rec) * IOLAT_IOSTAT_MAX, &it->recs_len);
	if (!it->recs) {
		snprintf(why, len, "cannot map its records: %s", strerror(errno));
		goto fail;
	}
	mark_start(it);
	libbpf_set_print(old);
	return it;
fail:
	libbpf_set_print(old);
	iolat_iostat_iter_stop(it);
	return NULL;
}

/*
 * Whether every disk @set has records of is still there: a removed disk
 * marks nothing, and its records would stay until the next walk (and
 * be the next disk's, given its number).  A disk that cannot be
 * checked counts as there.
 */
static bool devs_there(const struct iolat_iostat_set *set)
{
	__u32 seen[16];
	size_t i, k, nseen = 0;

	for (i = 0; i < set->n; i++) {
		__u32 dev = set->v[i].dev;

		for (k = 0; k < nseen && seen[k] != dev; k++)
			;
		if (k < nseen)
			continue;
		if (!iolat_dev_check(dev))
			return false;
		if (nseen < sizeof(seen) / sizeof(*seen))
			seen[nseen++] = dev;
	}
	return true;
}

/*
 * The marked cgroups' files into @set, their ancestors' too (a parent's
 * counters are its subtree's): 0, or -errno to walk instead (a cgroup
 * the tree does not know yet, too many to read, a file unreadable).
 */
static int reread(struct iolat_iostat_iter *it, const struct iolat_cgroups *cgs,
		  struct iolat_iostat_set *set)
{
	const __u64 *marked = it->marks.keys;
	size_t nids = 0, nfresh = 0, i;
	int n;

	for (i = 0; i < it->marks.n; i++) {
		long c = iolat_cgroups_find(cgs, marked[i]);

		if (c < 0)
			return -ENOENT;	/* newer than the tree, or outside it */
		/* Up to the walk's top; the hierarchy's root has no records. */
		for (; c >= 0 && (c > 0 || set->top_level > 0); c = cgs->v[c].parent) {
			if (iolat_grow((void **)&it->ids, &it->ids_cap, nids + 1, sizeof(*it->ids)))
				return -ENOMEM;
			it->ids[nids++] = cgs->v[c].id;
		}
	}
	iolat_iostat_ids_sort(it->ids, &nids);
	/* A file is some ten walk steps' time: past that, walk. */
	if (nids > cgs->nlive / 8)
		return -E2BIG;
	if (!devs_there(set))
		return -ENODEV;
	if (!it->text && !(it->text = malloc(IOSTAT_TEXT_MAX)))
		return -ENOMEM;
	for (i = 0; i < nids; i++) {
		long c = iolat_cgroups_find(cgs, it->ids[i]);

		n = c < 0 ? -ENOENT : iolat_iostat_read(cgs->v[c].path, it->text, IOSTAT_TEXT_MAX);
		if (n == -ENOENT)
			continue;	/* gone: no records, as in a walk */
		if (n < 0)
			return n;
		if (n >= IOSTAT_TEXT_MAX - 1)
			return -EOVERFLOW;
		if (iolat_grow((void **)&it->fresh, &it->fresh_cap, nfresh + IOLAT_IOSTAT_BLKGS,
			       sizeof(*it->fresh)))
			return -ENOMEM;
		n = iolat_iostat_recs_parse(it->text, it->ids[i], it->dev, it->fresh + nfresh,
					    IOLAT_IOSTAT_BLKGS);
		if (n < 0)
			return n;
		nfresh += n;
	}
	return iolat_iostat_set_update(set, it->ids, nids, it->fresh, nfresh);
}

/*
 * A walk: the whole one into @set, or with @flush_only one that flushes
 * the counters at its top and ends there (@set untouched).
 */
static int walk(struct iolat_iostat_iter *it, struct iolat_iostat_set *set, bool flush_only)
{
	struct iolat_iostat_end end;
	ssize_t n;
	int fd, err;

	/* The walk's state, in the mapped .bss: this walk's from 0. */
	it->obj->bss->nrecs = 0;
	it->obj->bss->dropped = 0;
	it->obj->bss->visited = 0;
	it->obj->bss->flushed = 0;
	it->obj->bss->bad_layout = 0;
	it->obj->bss->top_level = -1;
	it->obj->bss->flush_only = flush_only;
	fd = bpf_iter_create(it->link_fd);
	if (fd < 0)
		return -errno;
	/*
	 * One read() runs the whole walk (nothing is written to the file
	 * before its end) and gives the end record; nothing follows it, so
	 * no second read() for the end of file.
	 */
	n = read(fd, &end, sizeof(end));
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (flush_only)
		return n == sizeof(end) && end.magic == IOLAT_IOSTAT_MAGIC ? 0 : -EPROTO;
	it->since_walk = 0;
	return iolat_iostat_set_fill(set, &end, n, it->recs, IOLAT_IOSTAT_MAX);
}

int iolat_iostat_iter_run(struct iolat_iostat_iter *it, const struct iolat_cgroups *cgs,
			  struct iolat_iostat_set *set)
{
	bool whole = !it->marking || !set->filled || ++it->since_walk >= WALK_EVERY;
	__u64 full;

	if (it->marking) {
		/*
		 * Every pending count flushed, so that each cgroup whose
		 * counters moved is marked; then the marks out, before
		 * anything is read: a mark set from here on stays.
		 */
		if (!whole && walk(it, set, true))
			whole = true;
		if (iolat_map_read(&it->marks, true))
			whole = true;
		full = it->obj->bss->marks_full;
		if (full != it->marks_full_seen)
			whole = true;	/* a cgroup went unmarked */
		it->marks_full_seen = full;
	}
	if (!whole && !reread(it, cgs, set))
		return 0;
	return walk(it, set, false);
}
