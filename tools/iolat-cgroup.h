/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup2 tree and the files the iolat tools read in it: io.stat and
 * io.latency.  Shared by iolat-top and iolat-snoop; no BPF here, so the
 * host tests can point it at a fake tree (iolat_cgroup_root_set()).
 */
#ifndef __IOLAT_CGROUP_H
#define __IOLAT_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * The cgroup2 hierarchy: ids (directory inodes) and paths ("/a/b"), the
 * root first and every cgroup before its children.
 */
struct iolat_cgroup {
	__u64 id;
	char *path;
	long parent;		/* index in v; -1 for the root */
};

struct iolat_cgroups {
	struct iolat_cgroup *v;
	size_t n, cap;
	size_t *by_id;		/* indexes into v, by id */
};

const char *iolat_cgroup_root(void);
/* Use @root instead of the cgroup2 mount (tests: a fake tree). */
void iolat_cgroup_root_set(const char *root);
int iolat_cgroups_scan(struct iolat_cgroups *cgs);
/* The index of cgroup @id in cgs->v, or -1. */
long iolat_cgroups_find(const struct iolat_cgroups *cgs, __u64 id);
const char *iolat_cgroups_path(const struct iolat_cgroups *cgs, __u64 id);
void iolat_cgroups_free(struct iolat_cgroups *cgs);


/*
 * io.stat of one cgroup on one device.  depth and use_delay are there only
 * with blk_cgroup.blkcg_debug_stats=1.
 */
#define IOLAT_IOSTAT_BUF 65536	/* one io.stat: a line per device */

struct iolat_iostat {
	__u64 rbytes, wbytes, ios;
	__u32 depth;		/* IOLAT_DEPTH_MAX: "max" */
	int use_delay;
	bool has_io, has_depth;
};

/*
 * The io.stat of cgroup @path ("/a/b", "/" for the root) into @buf: opened,
 * read and closed, so that no descriptor is kept per cgroup.  Returns its
 * length or -errno.
 */
int iolat_iostat_read(const char *path, char *buf, size_t size);
/* Parse the lines of @devs[@ndev] in @text (changed) into @out[]. */
void iolat_iostat_parse(char *text, const __u32 *devs, size_t ndev,
			struct iolat_iostat *out);

/* io.latency targets, as read from every cgroup's io.latency. */
struct iolat_targets {
	struct iolat_target {
		__u32 dev;
		size_t cgroup;	/* index in iolat_cgroups.v */
		__u64 us;
	} *v;
	size_t n, cap;
};

int iolat_targets_read(const struct iolat_cgroups *cgs, struct iolat_targets *t);

#endif /* __IOLAT_CGROUP_H */
