// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-iostat: io.stat's counters of every cgroup in one pass, for
 * iolat-top, where reading each cgroup's io.stat cost three system calls
 * a cgroup a refresh (10,000 cgroups: 30,000 calls, 0.6 s under TCG).
 *
 * A sleepable cgroup iterator, attached by the front-end to the cgroup2
 * mount it sees, pre-order (its top first).  At the first cgroup it
 * flushes the rstat counters of the whole subtree (cgroup_rstat_flush(),
 * what reading one io.stat does for that cgroup, once for all); then, per
 * cgroup, the blkgs on its blkcg's list as blkcg_print_stat() prints them:
 * online, on a disk, with some read or write counted (a line of io.stat
 * has rbytes= only then).  Each goes into the mmap-able array records,
 * counted by nrecs, which the front-end zeroes before a walk; the walk's
 * last call (no cgroup) writes a struct iolat_iostat_end to the
 * iterator's file.  The hierarchy's root (level 0) is skipped: its
 * io.stat is the disks' own statistics, not its blkgs', and the
 * front-end reads that one file.  iolat.h says why the records go to an
 * array and not to the file.
 *
 * The iterator calls the program with cgroup_mutex held; the blkg reads
 * are probe reads (iolat.bpf.h, blkcg_first_blkg() and on, says why).
 *
 * A walk costs the same whether one cgroup did IO or none, and every
 * refresh walked all of them: most of iolat-top's time at 10,000 idle
 * cgroups.  So io_mark marks the cgroups whose counters a flush moves:
 * bpf_rstat_flush() is called for each cgroup an rstat flush takes off
 * a CPU's updated list (the hook the kernel keeps for BPF, 6.1 and
 * 6.12), and io.stat's counters change only there, at a flush.  A
 * refresh flushes the whole tree (a walk that stops at its top:
 * flush_only), takes the marks, and reads the io.stat of the marked
 * cgroups (and of their ancestors, whose counters add theirs) instead of
 * walking, while they are few.  Its cost follows the flushes, not the
 * bios: a cgroup is marked once a flush, whatever its IOPS (and marked
 * too when only its CPU or memory counters moved: a file read more).
 */
#include "iolat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Sleepable, for tracing programs (kernel/cgroup/rstat.c) in 6.1 and 6.12. */
extern void cgroup_rstat_flush(struct cgroup *cgrp) __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, IOLAT_IOSTAT_MAX);
	__type(key, __u32);
	__type(value, struct iolat_iostat_rec);
} records SEC(".maps");

/*
 * The cgroups flushed since the front-end last took the marks out
 * (lookup and delete in one step: a mark set after that step stays for
 * the next one, a mark set before it is for counters already flushed).
 * marks_full: flushes whose cgroup found the map full, marked nowhere;
 * the front-end then walks.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOLAT_IOSTAT_MARKS);
	__type(key, __u64);
	__type(value, __u8);
} marks SEC(".maps");

__u64 marks_full = 0;

/*
 * The walk's state, set by the front-end before each (zeroed, top_level
 * -1): one walk at a time, the front-end's (the iterator runs under
 * cgroup_mutex, and the link is its own).  bad_layout: a blkcg_gq this
 * walk cannot read in one span (blkg_view_read()), which the front-end
 * says and then reads the files.
 */
__u32 nrecs = 0;
__u32 dropped = 0;
__u32 visited = 0;
__u32 flushed = 0;
__u32 bad_layout = 0;
__s32 top_level = 0;
__u32 flush_only = 0;	/* flush at the top, and end the walk there */

static struct walk_dev_cache last;

/* The walk's end: how many records, and what was left out. */
static __always_inline int walk_end(struct seq_file *seq)
{
	struct iolat_iostat_end end = {
		.magic = IOLAT_IOSTAT_MAGIC,
		.nrecs = nrecs,
		.dropped = dropped,
		.top_level = top_level,
		.visited = visited,
		.bad_layout = bad_layout,
	};

	bpf_seq_write(seq, &end, sizeof(end));
	return 0;
}

SEC("iter.s/cgroup")
int iostat(struct bpf_iter__cgroup *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct cgroup *cgrp = ctx->cgroup;
	struct iolat_iostat_rec *rec;
	struct blkg_view v;
	struct blkcg_gq *blkg;
	struct blkcg *blkcg;
	__u32 i, idx, dev;
	int err;

	if (!cgrp)
		return walk_end(seq);
	visited++;
	if (!flushed) {
		/* The top's subtree: every cgroup this walk will see. */
		cgroup_rstat_flush(cgrp);
		flushed = 1;
		if (flush_only)
			return 1;	/* the walk ends: no record, its end written */
		top_level = iter_cgroup_level(cgrp);
		last.q = NULL;
		/* The hierarchy's root, when it is the top: see above. */
		if (top_level == 0)
			return 0;
	}
	blkcg = iter_cgroup_blkcg(cgrp);
	if (!blkcg)
		return 0;	/* no io controller here: no io.stat either */
	blkg = blkcg_first_blkg(blkcg);
	for (i = 0; i < IOLAT_IOSTAT_BLKGS && blkg; i++, blkg = v.next) {
		err = blkg_view_read(blkg, &v);
		if (err > 0) {
			bad_layout = 1;
			return 0;
		}
		if (err) {
			blkg = NULL;	/* unlinked and gone under us: as the list's end */
			break;
		}
		if (!v.online)
			continue;
		dev = walk_queue_dev(&last, v.q);
		if (!dev || (targ_dev && dev != targ_dev))
			continue;
		if (!v.cur.bytes[BLKG_IOSTAT_READ] && !v.cur.bytes[BLKG_IOSTAT_WRITE] &&
		    !v.cur.ios[BLKG_IOSTAT_READ] && !v.cur.ios[BLKG_IOSTAT_WRITE])
			continue;	/* io.stat prints no counters for it */
		idx = nrecs;
		rec = bpf_map_lookup_elem(&records, &idx);
		if (!rec) {
			dropped++;	/* the array is full */
			continue;
		}
		nrecs = idx + 1;
		rec->cgroup_id = iter_cgroup_id(cgrp);
		rec->dev = dev;
		rec->pad = 0;
		rec->bytes[IOLAT_IOSTAT_READ] = v.cur.bytes[BLKG_IOSTAT_READ];
		rec->bytes[IOLAT_IOSTAT_WRITE] = v.cur.bytes[BLKG_IOSTAT_WRITE];
		rec->bytes[IOLAT_IOSTAT_DISCARD] = v.cur.bytes[BLKG_IOSTAT_DISCARD];
		rec->ios[IOLAT_IOSTAT_READ] = v.cur.ios[BLKG_IOSTAT_READ];
		rec->ios[IOLAT_IOSTAT_WRITE] = v.cur.ios[BLKG_IOSTAT_WRITE];
		rec->ios[IOLAT_IOSTAT_DISCARD] = v.cur.ios[BLKG_IOSTAT_DISCARD];
	}
	if (blkg)
		dropped++;	/* more blkgs than IOLAT_IOSTAT_BLKGS */
	return 0;
}

/*
 * Each cgroup a flush takes off a CPU's updated list, with its pending
 * counts: called with that CPU's rstat lock held (the blkg counters are
 * flushed right after, in the same step).  The lookup first: a cgroup
 * flushed on many CPUs, or often, costs no bucket lock after the first.
 */
SEC("fentry/bpf_rstat_flush")
int BPF_PROG(io_mark, struct cgroup *cgrp, struct cgroup *parent, int cpu)
{
	__u64 id = cgroup_id_of(cgrp);
	__u8 one = 1;

	if (!id || bpf_map_lookup_elem(&marks, &id))
		return 0;
	if (bpf_map_update_elem(&marks, &id, &one, BPF_NOEXIST) == -7 /* E2BIG */)
		__sync_fetch_and_add(&marks_full, 1);
	return 0;
}
