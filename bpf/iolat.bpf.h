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

/*
 * Events that could not be recorded, by cause (struct iolat_lost).  A
 * full map counts apart, in a counter of its own (lookup_or_init()):
 * what it loses is whole rows, every event of the pairs it has no room
 * for.
 */
struct iolat_lost lost = {};

static __always_inline void count_lost(__u64 *cause)
{
	__sync_fetch_and_add(cause, 1);
	__sync_fetch_and_add(&lost.total, 1);
}

static __always_inline void count_lost_update(long err)
{
	lost.update_err = err;
	count_lost(&lost.update);
}

/*
 * Every kernel struct field the programs read is read here, and nowhere
 * else: the tracepoints hand over a blkg, a disk or a cgroup, and these
 * helpers turn them into the ids the maps and records carry.  The fields
 * (blkcg_gq.q and .blkcg, blkcg.css, cgroup_subsys_state.cgroup and
 * .parent, cgroup.kn, .root, .self and .level, kernfs_node.id and .name,
 * cgroup_root.hierarchy_id, request_queue.disk, gendisk.major and
 * .first_minor) have the same names
 * and types in 6.1 and 6.12, only some of their offsets differ, and
 * BPF_CORE_READ's relocations take care of offsets.  The iolatency
 * tracepoints' arguments and struct iolatency_window_info are the
 * series' own, the same on both.  The fallback without the events reads
 * a few more (task_struct.cgroups, .nvcsw and the pending throttle,
 * css_set.subsys, blkcg_gq.delay_nsec): of those only the pending
 * throttle changed, and its flavoured struct and bpf_core_field_exists()
 * branch are below, as in bcc's core_fixes.bpf.h.  iolat-top's io.stat
 * iterator reads a cgroup's blkgs and their counters (cgroup.subsys,
 * blkcg.blkg_list, blkcg_gq.blkcg_node, .online, .iostat.cur), where
 * only offsets differ between the two.
 * README.md's "Supported kernels" lists the reads, and
 * tests/host/17-core-reads fails when a program reads a field it does not.
 * The state reader without the events (iolat-state.bpf.c, iolat-top's
 * io.stat mode and iolat-state-dump) reads io.latency's private structs,
 * below with the depth's flavoured struct: not in that table, whose
 * reads are the public structs'; tests/host/24-state checks those reads
 * against 6.1's BTF and the sources of 6.1 and 6.12.
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

/* The id of @cgrp's parent; 0 for a hierarchy's root. */
static __always_inline __u64 cgroup_parent_id(struct cgroup *cgrp)
{
	struct cgroup_subsys_state *parent = BPF_CORE_READ(cgrp, self.parent);

	return parent ? cgroup_id_of(BPF_CORE_READ(parent, cgroup)) : 0;
}

/* How deep @cgrp is below its hierarchy's root (the root: 0). */
static __always_inline __u32 cgroup_level_of(struct cgroup *cgrp)
{
	return BPF_CORE_READ(cgrp, level);
}

/* @cgrp's directory name into @buf; NAME_MAX + 1 bytes hold any. */
static __always_inline void cgroup_name_of(struct cgroup *cgrp, char *buf,
					   __u32 size)
{
	if (bpf_probe_read_kernel_str(buf, size, BPF_CORE_READ(cgrp, kn, name)) < 0)
		buf[0] = '\0';
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

/*
 * The controller's functions, for the fallback without the events
 * (iolat-fallback.bpf.c).  task_struct's pending throttle was a request
 * queue in 6.1 (throttle_queue) and is a disk since 6.3 (throttle_disk,
 * f05837ed73d0 "blk-cgroup: store a gendisk to throttle in struct
 * task_struct"; 6.12 has it): the flavour below is 6.12's, and
 * bpf_core_field_exists() picks the one the running kernel has.
 */
struct task_struct___throttle_disk {
	struct gendisk *throttle_disk;
} __attribute__((preserve_access_index));

/*
 * Whether @t has a throttle pending (blkcg_maybe_throttle_current() will
 * look for delay to sleep off), and the kernel dev_t it is on in *@dev
 * (0 when unknown).
 */
static __always_inline bool task_throttle_pending(struct task_struct *t, __u32 *dev)
{
	struct task_struct___throttle_disk *t2 = (void *)t;
	struct request_queue *q;
	struct gendisk *disk;

	if (bpf_core_field_exists(t2->throttle_disk)) {
		disk = BPF_CORE_READ(t2, throttle_disk);
		if (!disk)
			return false;
	} else {
		q = BPF_CORE_READ(t, throttle_queue);
		if (!q)
			return false;
		disk = BPF_CORE_READ(q, disk);
	}
	*dev = disk_dev(disk);
	return true;
}

/* @t's voluntary context switches: one more after a sleep. */
static __always_inline __u64 task_nvcsw(struct task_struct *t)
{
	return BPF_CORE_READ(t, nvcsw);
}

/*
 * The id of @t's io cgroup: the cgroup of its io controller's css, the
 * one blkcg_css() returns and throttles it by (its own cgroup, or the
 * nearest ancestor with io enabled).  The controller's index in
 * css_set.subsys depends on the kernel's config: it comes from the
 * kernel's enum cgroup_subsys_id.
 */
static __always_inline __u64 task_io_cgroup_id(struct task_struct *t)
{
	int io = bpf_core_enum_value(enum cgroup_subsys_id, io_cgrp_id);

	return cgroup_id_of(BPF_CORE_READ(t, cgroups, subsys[io], cgroup));
}

/* The induced delay pending on @blkg (delay_nsec). */
static __always_inline __u64 blkg_delay_ns(struct blkcg_gq *blkg)
{
	return BPF_CORE_READ(blkg, delay_nsec.counter);
}

/*
 * The cgroup iterator's reads (iolat-iostat.bpf.c): a cgroup's blkcg,
 * the blkgs on its list (one per device it did IO on or has a policy
 * for), and each one's state and counters, what io.stat prints
 * (blkcg_print_stat()).  The iterator holds cgroup_mutex; io.stat holds
 * the blkcg's lock for the list, and a blkg is unlinked under that lock
 * and freed after an RCU grace period, neither of which a sleepable
 * program holds (it runs under RCU tasks trace).  So every read of a
 * blkcg or blkg is a probe read, which cannot fault: a blkg unlinked
 * while the walk is on it gives a stale record or ends the list early,
 * the loop over the list is bounded (IOLAT_IOSTAT_BLKGS), and the next
 * refresh walks again.
 */

/*
 * The walk's own cgroup, though, is the iterator's argument, held under
 * cgroup_mutex: a trusted BTF pointer, whose fields (and its kernfs
 * node's) are plain loads, without a probe read's helper call.  Per
 * cgroup of a 10,000-cgroup walk, those calls were most of its cost.
 */
static __always_inline __u32 iter_cgroup_level(struct cgroup *cgrp)
{
	return cgrp->level;
}

static __always_inline __u64 iter_cgroup_id(struct cgroup *cgrp)
{
	return cgrp->kn->id;
}

/*
 * The blkcg of @cgrp (its io css), NULL without the io controller
 * there.  Its css is the iterator's; the blkcg around it is another
 * type, which 6.1's verifier cannot cast to (no bpf_rdonly_cast()), so
 * its list head is a probe read.
 */
static __always_inline struct blkcg *iter_cgroup_blkcg(struct cgroup *cgrp)
{
	int io = bpf_core_enum_value(enum cgroup_subsys_id, io_cgrp_id);
	struct cgroup_subsys_state *css = cgrp->subsys[io];

	if (!css)
		return NULL;
	return (struct blkcg *)((char *)css - bpf_core_field_offset(struct blkcg, css));
}

/* The blkg whose blkcg_node @node is (container_of), NULL for none. */
static __always_inline struct blkcg_gq *blkg_of_node(struct hlist_node *node)
{
	if (!node)
		return NULL;
	return (struct blkcg_gq *)((char *)node -
				   bpf_core_field_offset(struct blkcg_gq, blkcg_node));
}

/* The first blkg on @blkcg's list. */
static __always_inline struct blkcg_gq *blkcg_first_blkg(struct blkcg *blkcg)
{
	return blkg_of_node(BPF_CORE_READ(blkcg, blkg_list.first));
}

/*
 * What the walk reads of a blkg: the next on its blkcg's list, whether
 * it is online (io.stat skips it if not), its queue, and its counters
 * as io.stat reads them, blkg->iostat.cur (flushed from the per-CPU ones
 * by cgroup_rstat_flush()): bytes[] and ios[] by enum blkg_iostat_type.
 * On 64-bit, iostat.sync is no lock to take.
 */
struct blkg_view {
	struct blkcg_gq *next;
	struct request_queue *q;
	struct blkg_iostat cur;
	bool online;
};

/*
 * Those fields lie in blkcg_gq's first bytes (q at 0, iostat.cur ends at
 * 136 in 6.1, 160 in 6.12): one probe read of that span, not one a field.
 */
#define BLKG_VIEW_SPAN 256

static __always_inline int blkg_view_read(struct blkcg_gq *blkg, struct blkg_view *v)
{
	__u32 q = bpf_core_field_offset(struct blkcg_gq, q);
	__u32 next = bpf_core_field_offset(struct blkcg_gq, blkcg_node.next);
	__u32 online = bpf_core_field_offset(struct blkcg_gq, online);
	__u32 cur = bpf_core_field_offset(struct blkcg_gq, iostat.cur);
	__u32 span = cur + sizeof(v->cur);
	__u8 buf[BLKG_VIEW_SPAN];

	/* Constants once relocated: the verifier drops what does not apply. */
	if (span > sizeof(buf) || q + sizeof(v->q) > span ||
	    next + sizeof(v->next) > span || online >= span)
		return 1;	/* a layout this walk does not know */
	if (bpf_probe_read_kernel(buf, span, blkg))
		return -1;
	__builtin_memcpy(&v->q, buf + q, sizeof(v->q));
	__builtin_memcpy(&v->next, buf + next, sizeof(v->next));
	v->next = blkg_of_node((struct hlist_node *)v->next);
	v->online = buf[online];
	__builtin_memcpy(&v->cur, buf + cur, sizeof(v->cur));
	return 0;
}

/* The device of queue @q, 0 when it has no disk (io.stat skips it). */
static __always_inline __u32 queue_dev(struct request_queue *q)
{
	return disk_dev(BPF_CORE_READ(q, disk));
}

/*
 * The last queue a cgroup walk saw and its device: a walk meets the same
 * few queues in every cgroup, and their disks' devices are three reads
 * each.  Kept for one walk only (a queue's address can be a new queue's
 * later): the walk clears it at its first cgroup.
 */
struct walk_dev_cache {
	struct request_queue *q;
	__u32 dev;
};

static __always_inline __u32 walk_queue_dev(struct walk_dev_cache *c, struct request_queue *q)
{
	if (q != c->q) {
		c->dev = q ? queue_dev(q) : 0;
		c->q = q;
	}
	return c->dev;
}

/*
 * io.latency's private state, for the state reader without the events
 * (iolat-state.bpf.c).  struct iolatency_grp and struct
 * child_latency_info are block/blk-iolatency.c's own, in the kernel's
 * BTF (pahole encodes a .c file's structs too) and so in vmlinux.h;
 * nothing pins them for the walk, so they are probe reads, one span per
 * struct (as blkg_view_read()), and the fields are taken from the copy
 * at their relocated offsets.
 *
 * The group's queue depth was rq_depth.max_depth in 6.1 and is a plain
 * unsigned int max_depth since 6.2 (6.12 has it): the flavour below is
 * the newer one, and bpf_core_field_exists() picks what the running
 * kernel has.  The rest of what is read has the same names and types in
 * 6.1.192 and 6.12.118; the guest's 6.1 BTF, from the patched tree, also
 * has the series' child_latency_info.scale_grp_id, which a kernel
 * without the series does not, and which is not read.
 */
struct iolatency_grp___new {
	unsigned int max_depth;
} __attribute__((preserve_access_index));

/*
 * Copy @field of @type, from @buf (a copy of @len bytes of the kernel's
 * struct), into @dst; nonzero, and nothing copied, when the kernel's
 * field is not inside the copy or not the size of @dst.  Offset, size
 * and length are constants once relocated, so the verifier keeps only
 * the branch that applies, and a kernel's field is aligned to its type:
 * a plain load.
 */
#define core_copy(dst, buf, len, type, field)					\
({										\
	__u32 ___off = bpf_core_field_offset(type, field);			\
	__u32 ___size = bpf_core_field_size(type, field);			\
	int ___bad = ___size != sizeof(dst) || ___off + sizeof(dst) > (len);	\
										\
	if (!___bad)								\
		(dst) = *(typeof(dst) *)((buf) + ___off);			\
	___bad;									\
})

/*
 * blkcg_policy_iolatency.plid, read at @policy (its address, from
 * kallsyms): -1 when it cannot be read or struct blkcg_policy's plid is
 * not an int, the policy's slot in blkg->pd[] otherwise.
 */
static __always_inline int policy_plid(__u64 policy)
{
	__u32 off = bpf_core_field_offset(struct blkcg_policy, plid);
	int plid;

	if (bpf_core_field_size(struct blkcg_policy, plid) != sizeof(plid))
		return -1;
	if (bpf_probe_read_kernel(&plid, sizeof(plid), (void *)(policy + off)))
		return -1;
	return plid;
}

/* The slots of blkg->pd[] (BLKCG_MAX_POLS), and of blkcg_policy[]. */
static __always_inline __u32 blkg_pd_slots(void)
{
	return bpf_core_field_size(struct blkcg_gq, pd) / sizeof(void *);
}

/* What the state walk reads of a blkg. */
struct blkg_state_view {
	struct blkcg_gq *next;
	struct request_queue *q;
	void *pd;			/* pd[plid]: its io.latency group's pd, or NULL */
	__u64 delay_ns;
	__s32 use_delay;
	__u8 online;
};

/*
 * A copy of blkcg_gq's first bytes, to the end of delay_nsec: 304 in
 * 6.1, 344 in 6.12, 400 in 6.1 with lockdep (its spinlocks grow).
 */
#define BLKG_STATE_SPAN 512

static __always_inline __u32 max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

/*
 * One probe read of @blkg into @buf (BLKG_STATE_SPAN bytes, a map
 * value: too much for the stack beside the rest), then the fields.
 * 0, -1 when @blkg cannot be read, 1 for a layout this walk does not
 * know (fields beyond the span, or of other sizes).
 */
static __always_inline int blkg_state_read(struct blkcg_gq *blkg, __u32 plid, __u8 *buf,
					   struct blkg_state_view *v)
{
	__u32 pd = bpf_core_field_offset(struct blkcg_gq, pd);
	__u32 span;
	int bad;

	span = bpf_core_field_offset(struct blkcg_gq, delay_nsec) +
	       bpf_core_field_size(struct blkcg_gq, delay_nsec);
	span = max_u32(span, pd + bpf_core_field_size(struct blkcg_gq, pd));
	span = max_u32(span, bpf_core_field_offset(struct blkcg_gq, use_delay) +
			     bpf_core_field_size(struct blkcg_gq, use_delay));
	if (span > BLKG_STATE_SPAN || plid >= blkg_pd_slots())
		return 1;
	if (bpf_probe_read_kernel(buf, span, blkg))
		return -1;
	bad = core_copy(v->q, buf, span, struct blkcg_gq, q);
	bad |= core_copy(v->next, buf, span, struct blkcg_gq, blkcg_node.next);
	bad |= core_copy(v->online, buf, span, struct blkcg_gq, online);
	bad |= core_copy(v->use_delay, buf, span, struct blkcg_gq, use_delay.counter);
	bad |= core_copy(v->delay_ns, buf, span, struct blkcg_gq, delay_nsec.counter);
	if (bad)
		return 1;
	/* plid < the slots, and the slots inside the span: in bounds. */
	v->pd = *(void **)(buf + pd + plid * sizeof(void *));
	v->next = blkg_of_node((struct hlist_node *)v->next);
	return 0;
}

/* A copy of struct iolatency_grp: 256 bytes in 6.1, 368 with lockdep. */
#define GRP_STATE_SPAN 512

/*
 * The io.latency group whose pd is @pd, into @s (its fields but the
 * ids, dev, the blkg's, and the culprit's verdict; IOLAT_STATE_ONLINE
 * for the pd's online alone, the blkg's is the caller's), its address in
 * *@grp and its children's scale_grp in *@scale_grp; @buf as for
 * blkg_state_read(), and the same return values.  scale_grp is only
 * copied, never followed: nothing pins what it points to (a group gone
 * since, on a kernel without the series' fix of it, fixes/0005).
 */
static __always_inline int grp_state_read(void *pd, __u8 *buf, struct iolat_state *s,
					  __u64 *grp, __u64 *scale_grp)
{
	__u32 len = bpf_core_type_size(struct iolatency_grp);
	__u64 cur_total = 0, cur_missed = 0, cur_mean = 0;
	__u32 cur_nr = 0;
	__u8 ssd = 0, online = 0;
	void *addr;
	int bad;

	if (len > GRP_STATE_SPAN)
		return 1;
	/* container_of(pd, struct iolatency_grp, pd) */
	addr = (char *)pd - bpf_core_field_offset(struct iolatency_grp, pd);
	if (bpf_probe_read_kernel(buf, len, addr))
		return -1;
	*grp = (__u64)addr;
	if (bpf_core_field_exists(struct iolatency_grp___new, max_depth))
		bad = core_copy(s->depth, buf, len, struct iolatency_grp___new, max_depth);
	else
		bad = core_copy(s->depth, buf, len, struct iolatency_grp, rq_depth.max_depth);
	bad |= core_copy(online, buf, len, struct iolatency_grp, pd.online);
	bad |= core_copy(s->inflight, buf, len, struct iolatency_grp, rq_wait.inflight.counter);
	bad |= core_copy(s->window_start_ns, buf, len, struct iolatency_grp, window_start.counter);
	bad |= core_copy(s->cookie, buf, len, struct iolatency_grp, scale_cookie.counter);
	bad |= core_copy(s->target_ns, buf, len, struct iolatency_grp, min_lat_nsec);
	bad |= core_copy(s->win_ns, buf, len, struct iolatency_grp, cur_win_nsec);
	bad |= core_copy(s->lat_avg_ns, buf, len, struct iolatency_grp, lat_avg);
	bad |= core_copy(s->nr_samples, buf, len, struct iolatency_grp, nr_samples);
	bad |= core_copy(ssd, buf, len, struct iolatency_grp, ssd);
	/* cur_stat: missed/total when ssd, else blk_rq_stat; a union */
	bad |= core_copy(cur_total, buf, len, struct iolatency_grp, cur_stat.ps.total);
	bad |= core_copy(cur_missed, buf, len, struct iolatency_grp, cur_stat.ps.missed);
	bad |= core_copy(cur_mean, buf, len, struct iolatency_grp, cur_stat.rqs.mean);
	bad |= core_copy(cur_nr, buf, len, struct iolatency_grp, cur_stat.rqs.nr_samples);
	bad |= core_copy(s->children.last_scale_event_ns, buf, len, struct iolatency_grp,
			 child_lat.last_scale_event);
	bad |= core_copy(s->children.scale_lat_ns, buf, len, struct iolatency_grp,
			 child_lat.scale_lat);
	bad |= core_copy(s->children.nr_samples, buf, len, struct iolatency_grp,
			 child_lat.nr_samples);
	bad |= core_copy(s->children.cookie, buf, len, struct iolatency_grp,
			 child_lat.scale_cookie.counter);
	bad |= core_copy(*scale_grp, buf, len, struct iolatency_grp, child_lat.scale_grp);
	if (bad)
		return 1;
	if (ssd) {
		s->cur_samples = cur_total;
		s->cur_missed = cur_missed;
		s->cur_mean_ns = 0;
	} else {
		s->cur_samples = cur_nr;
		s->cur_missed = 0;
		s->cur_mean_ns = cur_mean;
	}
	s->flags = (ssd ? IOLAT_STATE_SSD : 0) | (online ? IOLAT_STATE_ONLINE : 0) |
		   (*scale_grp ? IOLAT_STATE_CULPRIT : 0);
	s->children.culprit_id = 0;
	s->children.pad = 0;
	return 0;
}

/* The id of the iterator's @cgrp's parent, 0 for the hierarchy's root. */
static __always_inline __u64 iter_cgroup_parent_id(struct cgroup *cgrp)
{
	struct cgroup_subsys_state *parent = cgrp->self.parent;

	return parent ? parent->cgroup->kn->id : 0;
}

/*
 * The value for @key in @map, created from @init if missing.  A map with
 * no room for it (E2BIG, from a hash map at max_entries) counts in
 * *@full, the map's own counter; any other failure is a lost event.
 */
static __always_inline void *lookup_or_init(void *map, const void *key,
					    const void *init, __u64 *full)
{
	void *val = bpf_map_lookup_elem(map, key);
	long err;

	if (val)
		return val;
	err = bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	if (err == -7 /* E2BIG */) {
		__sync_fetch_and_add(full, 1);
		return NULL;
	}
	if (err && err != -17 /* EEXIST: another CPU won */) {
		count_lost_update(err);
		return NULL;
	}
	val = bpf_map_lookup_elem(map, key);
	if (!val)
		count_lost(&lost.deleted);	/* by the front-end, meanwhile */
	return val;
}

static __always_inline bool dev_filtered(const struct iolat_key *key)
{
	return targ_dev && key->dev != targ_dev;
}

#endif /* __IOLAT_BPF_H */
