/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup_mkdir and cgroup_rmdir programs and their map, for the
 * front-ends that name cgroups by id (iolat-top, iolat-snoop): one
 * definition, included once by each program (after iolat.bpf.h).  The
 * front-ends read the map with iolat_cgroups_follow() (iolat-cgroup.h).
 */
#ifndef __IOLAT_CGROUP_CHANGES_BPF_H
#define __IOLAT_CGROUP_CHANGES_BPF_H

/*
 * Cgroups created and removed, by id, so that the front-end updates its
 * tree without walking it: cgroup2 only (hierarchy 0; v1 hierarchies,
 * and cgroup_rename, which only v1 has, are none of io.latency's).  When
 * the map is full the front-end walks the tree once (changes_lost).  A
 * record is put together in change_scratch and then stored whole, so
 * that the front-end, which takes records out as it reads them, never
 * takes one half written.  The tracepoint's path is not used (see struct
 * iolat_cgroup_change).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLAT_MAX_CGROUP_CHANGES);
	__type(key, __u64);
	__type(value, struct iolat_cgroup_change);
} cgroup_changes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iolat_cgroup_change);
} change_scratch SEC(".maps");

__u64 changes_lost = 0;

static __always_inline void cgroup_changed(struct cgroup *cgrp, bool removed)
{
	struct iolat_cgroup_change *c;
	__u32 zero = 0;
	__u64 id;

	if (!cgroup_is_v2(cgrp))
		return;
	c = bpf_map_lookup_elem(&change_scratch, &zero);
	if (!c)
		return;
	id = cgroup_id_of(cgrp);
	c->removed = removed;
	c->parent_id = 0;
	c->level = 0;
	c->name[0] = '\0';
	if (!removed) {
		c->parent_id = cgroup_parent_id(cgrp);
		c->level = cgroup_level_of(cgrp);
		cgroup_name_of(cgrp, c->name, sizeof(c->name));
	}
	if (bpf_map_update_elem(&cgroup_changes, &id, c, BPF_ANY))
		__sync_fetch_and_add(&changes_lost, 1);
}

SEC("tp_btf/cgroup_mkdir")
int BPF_PROG(on_cgroup_mkdir, struct cgroup *cgrp, const char *path)
{
	cgroup_changed(cgrp, false);
	return 0;
}

SEC("tp_btf/cgroup_rmdir")
int BPF_PROG(on_cgroup_rmdir, struct cgroup *cgrp, const char *path)
{
	cgroup_changed(cgrp, true);
	return 0;
}

#endif /* __IOLAT_CGROUP_CHANGES_BPF_H */
