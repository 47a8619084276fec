// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-state: io.latency's own state of every group in one pass, on a
 * kernel without the iolatency events, where nothing else shows the
 * parents' cookies and culprits, the depths between refreshes when
 * blkcg_debug_stats is off, or a window that has not decided yet.
 *
 * A sleepable cgroup iterator, attached by the front-end to the cgroup2
 * mount it sees, pre-order (its top first), as iolat-iostat.bpf.c.  At
 * the first cgroup it reads blkcg_policy_iolatency.plid and checks that
 * blkcg_policy[plid] is that policy; then, per cgroup, the blkgs on its
 * blkcg's list, and of each one with an io.latency group (pd[plid] set)
 * the group's struct iolatency_grp, its own children's scaling
 * (child_lat) with it, and the blkg's use_delay and delay_nsec.  The
 * hierarchy's root is not skipped: its groups' child_lat is what the
 * top-level groups follow.  A blkg of a queue without a disk (going
 * away) is, as io.stat skips it.  Each goes into the mmap-able array records,
 * counted by nrecs, which the front-end zeroes before a walk; the walk's
 * last call (no cgroup) writes a struct iolat_state_end to the
 * iterator's file.
 *
 * Where the two symbols are: blkcg_policy_iolatency and blkcg_policy
 * are static data of block/blk-iolatency.c and block/blk-cgroup.c.  A
 * typed __ksym needs the variable in the kernel's BTF, which 6.1's has
 * only for per-CPU variables; an untyped one would have libbpf look it
 * up in /proc/kallsyms at load, failing the load with its own message
 * when it is missing (or, __weak, reading address 0, as it would where
 * kallsyms hides addresses).  The front-end reads /proc/kallsyms anyway,
 * to say which of those it is, so it passes the addresses here as
 * rodata, and they are read with probe reads, which cannot fault.
 *
 * Cost under cgroup_mutex, which the iterator holds: per cgroup, its
 * list head; per blkg, one probe read of its first bytes and, with a
 * group, one of the group.  The culprit is not looked up here: the
 * front-end tells it from the addresses the records carry (a group's
 * and its children's scale_grp), after the walk, where every group
 * below a parent is known.
 */
#include "iolat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The addresses of blkcg_policy_iolatency and blkcg_policy[], from kallsyms. */
const volatile __u64 policy_addr = 0;
const volatile __u64 policy_table_addr = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, IOLAT_STATE_MAX);
	__type(key, __u32);
	__type(value, struct iolat_state_rec);
} records SEC(".maps");

/* Where the probe reads copy a blkg and a group: too big for the stack. */
struct state_scratch {
	__u8 blkg[BLKG_STATE_SPAN];
	__u8 grp[GRP_STATE_SPAN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct state_scratch);
} scratch SEC(".maps");

/*
 * The walk's state, set by the front-end before each (zeroed, top_level
 * and plid -1): one walk at a time, the front-end's.  started: the first
 * cgroup was seen, and the policy checked (policy).  layout: a struct
 * this walk cannot read (IOLAT_STATE_LAYOUT_*), which ends it.
 */
__u32 nrecs = 0;
__u32 dropped = 0;
__u32 visited = 0;
__u32 started = 0;
__u32 layout = 0;
__u32 policy = 0;
__s32 plid = 0;
__s32 top_level = 0;

static struct walk_dev_cache last;

/* blkcg_policy_iolatency's slot, and that it is the one registered there. */
static __always_inline __u32 check_policy(void)
{
	__u64 registered;
	int id;

	if (!policy_addr || !policy_table_addr)
		return IOLAT_POLICY_UNREADABLE;
	id = policy_plid(policy_addr);
	if (id < 0) {
		/* -1 also when plid is not an int: a layout, not a value */
		if (bpf_core_field_size(struct blkcg_policy, plid) != sizeof(int))
			layout |= IOLAT_STATE_LAYOUT_POLICY;
		return IOLAT_POLICY_UNREADABLE;
	}
	plid = id;
	if ((__u32)id >= blkg_pd_slots())
		return IOLAT_POLICY_BAD_PLID;
	if (bpf_probe_read_kernel(&registered, sizeof(registered),
				  (void *)(policy_table_addr + id * sizeof(void *))))
		return IOLAT_POLICY_UNREADABLE;
	return registered == policy_addr ? IOLAT_POLICY_OK : IOLAT_POLICY_NOT_REGISTERED;
}

static __always_inline int walk_end(struct seq_file *seq)
{
	struct iolat_state_end end = {
		.magic = IOLAT_STATE_MAGIC,
		.nrecs = nrecs,
		.dropped = dropped,
		.top_level = top_level,
		.visited = visited,
		.layout = layout,
		.policy = policy,
		.plid = plid,
		.now_ns = bpf_ktime_get_ns(),
	};

	bpf_seq_write(seq, &end, sizeof(end));
	return 0;
}

SEC("iter.s/cgroup")
int state(struct bpf_iter__cgroup *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct cgroup *cgrp = ctx->cgroup;
	struct blkg_state_view v = {};
	struct state_scratch *buf;
	struct iolat_state_rec *rec;
	__u64 cgroup_id, parent_id;
	struct blkcg_gq *blkg;
	struct blkcg *blkcg;
	__u32 i, idx, dev, zero = 0;
	int err;

	if (!cgrp)
		return walk_end(seq);
	visited++;
	if (!started) {
		started = 1;
		top_level = iter_cgroup_level(cgrp);
		last.q = NULL;
		policy = check_policy();
	}
	if (policy != IOLAT_POLICY_OK || layout)
		return 0;
	blkcg = iter_cgroup_blkcg(cgrp);
	if (!blkcg)
		return 0;	/* no io controller here: no blkgs */
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return 0;
	cgroup_id = iter_cgroup_id(cgrp);
	parent_id = iter_cgroup_parent_id(cgrp);
	blkg = blkcg_first_blkg(blkcg);
	for (i = 0; i < IOLAT_STATE_BLKGS && blkg; i++, blkg = v.next) {
		err = blkg_state_read(blkg, plid, buf->blkg, &v);
		if (err > 0) {
			layout |= IOLAT_STATE_LAYOUT_BLKG;
			return 0;
		}
		if (err) {
			/* unlinked and gone under us: the list's end, and what followed */
			dropped++;
			return 0;
		}
		if (!v.pd)
			continue;	/* no io.latency on this blkg's device */
		dev = walk_queue_dev(&last, v.q);
		if (!dev || (targ_dev && dev != targ_dev))
			continue;
		idx = nrecs;
		rec = bpf_map_lookup_elem(&records, &idx);
		if (!rec) {
			dropped++;	/* the array is full */
			continue;
		}
		err = grp_state_read(v.pd, buf->grp, &rec->s, &rec->grp, &rec->scale_grp);
		if (err > 0) {
			layout |= IOLAT_STATE_LAYOUT_GRP;
			return 0;
		}
		if (err) {
			dropped++;	/* freed under us */
			continue;
		}
		nrecs = idx + 1;
		rec->s.cgroup_id = cgroup_id;
		rec->s.parent_id = parent_id;
		rec->s.dev = dev;
		if (!v.online)
			rec->s.flags &= ~IOLAT_STATE_ONLINE;
		rec->s.use_delay = v.use_delay;
		rec->s.delay_ns = v.delay_ns;
	}
	if (blkg)
		dropped++;	/* more blkgs than IOLAT_STATE_BLKGS */
	return 0;
}
