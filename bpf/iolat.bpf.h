/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the iolat BPF programs.  Each program includes this
 * once; the filter it declares is set by the front-end before load.
 */
#ifndef __IOLAT_BPF_H
#define __IOLAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "iolat.h"

/* 0: every device; else the kernel dev_t to keep (-d DEV). */
const volatile __u32 targ_dev = 0;

/* Events that could not be recorded: a full map or ring buffer. */
__u64 lost = 0;

static __always_inline void count_lost(void)
{
	__sync_fetch_and_add(&lost, 1);
}

/*
 * Every kernel struct field the programs read is read here, and nowhere
 * else: the tracepoints hand over a blkg, a disk or a cgroup, and these
 * helpers turn them into the ids the maps and records carry.  The fields
 * (blkcg_gq.q and .blkcg, blkcg.css, cgroup_subsys_state.cgroup,
 * cgroup.kn and .root, kernfs_node.id, cgroup_root.hierarchy_id,
 * request_queue.disk, gendisk.major and .first_minor) have the same names
 * and types in 6.1 and 6.12, only some of their offsets differ, and
 * BPF_CORE_READ's relocations take care of offsets.  The iolatency
 * tracepoints' arguments and struct iolatency_window_info are the
 * series' own, the same on both.  So no flavoured struct is needed yet;
 * when a kernel renames or retypes one of these fields, its flavour
 * (struct foo___vN, preserve_access_index) and the
 * bpf_core_field_exists() branch go here, as in bcc's core_fixes.bpf.h.
 * README.md's "Supported kernels" lists the reads, and
 * tests/host/17-core-reads fails when a program reads a field it does not.
 */

/* The kernel dev_t of @disk, 0 for none. */
static __always_inline __u32 disk_dev(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return IOLAT_MKDEV(BPF_CORE_READ(disk, major),
			   BPF_CORE_READ(disk, first_minor));
}

/* What cgroup_id() returns, and the id user space gets from the inode. */
static __always_inline __u64 cgroup_id_of(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, kn, id);
}

/* cgroup2's hierarchy is 0; v1 hierarchies have io.latency nowhere. */
static __always_inline bool cgroup_is_v2(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, root, hierarchy_id) == 0;
}

/* The (device, cgroup) an event is about, from its blkg. */
static __always_inline struct iolat_key blkg_key(struct blkcg_gq *blkg)
{
	struct iolat_key key = {};

	key.cgroup_id = cgroup_id_of(BPF_CORE_READ(blkg, blkcg, css.cgroup));
	key.dev = disk_dev(BPF_CORE_READ(blkg, q, disk));
	return key;
}

/* The value for @key in @map, created from @init if missing. */
static __always_inline void *lookup_or_init(void *map, const void *key,
					    const void *init)
{
	void *val = bpf_map_lookup_elem(map, key);
	long err;

	if (val)
		return val;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU won */) {
		count_lost();
		return NULL;
	}
	return bpf_map_lookup_elem(map, key);
}

static __always_inline bool dev_filtered(const struct iolat_key *key)
{
	return targ_dev && key->dev != targ_dev;
}

#endif /* __IOLAT_BPF_H */
