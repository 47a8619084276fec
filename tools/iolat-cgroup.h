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
#include "iolat.h"

/*
 * The cgroup2 hierarchy: ids (directory inodes) and paths ("/a/b"; past
 * PATH_MAX ".../" and the end: unread and cut below), the root first and
 * every cgroup before its children.
 */
struct iolat_cgroup {
	__u64 id;
	char *path;
	long parent;		/* index in v; -1 for the root */
	bool gone;		/* removed since the walk (iolat_cgroups_rmdir()) */
};

/*
 * Between walks the tree follows the kernel's cgroup_mkdir and
 * cgroup_rmdir events, by id: a new cgroup is appended (after its
 * parent, so parents still come first), a removed one marked gone.
 *
 * A new cgroup comes as its id, its parent's id and its name, and its
 * path is its parent's path in our tree and the name, whatever root the
 * kernel's paths start at: inside a cgroup namespace the cgroup2 mount
 * shows the namespace's root, while the tracepoint's path starts at the
 * hierarchy's, and that path is cut at 255 bytes in the BPF record; a
 * name is never cut (NAME_MAX), and ids are the same in every namespace.
 * One stat() checks the directory is there with that id; past PATH_MAX
 * none can, and the record is taken at its word.  A parent the tree
 * does not know, and that is not pending itself, is outside our
 * view (a cgroup outside our namespace's root: everything inside was
 * walked or had an event); iolat_cgroup_id_path() asks the kernel to
 * make sure, by the id alone.  Why not that for every cgroup: opening a
 * cgroup by its handle makes the kernel look its directory up, reading
 * through its parent's directory (exportfs' reconnect) when it has no
 * dentry cached, which with 10,000 siblings is 10,000 entries a cgroup.
 *
 * cgroup_mkdir fires before the directory can be seen, so a new cgroup
 * not visible yet is pending and tried again at each tick.  An id that
 * map entries name but the tree does not know is kept a few ticks before
 * its entries may go (iolat_cgroups_keep()).
 */
#define IOLAT_CGROUP_PENDING_TICKS 5	/* tries of a cgroup not visible yet */
#define IOLAT_CGROUP_UNKNOWN_TICKS 3	/* ticks an unknown id is kept */

struct iolat_cgroups {
	struct iolat_cgroup *v;
	size_t n, cap;
	size_t *by_id;		/* indexes into v, by id; the live ones */
	size_t nlive;		/* entries of by_id */
	unsigned long tick;
	struct iolat_cgroup_pending {
		__u64 id, parent_id;
		char *name;
		unsigned long since;	/* tick */
	} *pending;
	size_t npending, cappending;
	/* Ids removed by an event this tick, and ids seen unknown. */
	struct iolat_cgroup_seen {
		__u64 id;
		unsigned long since;
	} *removed, *unknown;
	size_t nremoved, capremoved, nunknown, capunknown;
	/* A pending cgroup never showed up: walk the tree again. */
	bool stale;
	/*
	 * The last walk's cgroups whose directory could not be read (not
	 * gone: EACCES, EMFILE), their children unknown, and the first one's
	 * errno; the tree's paths of PATH_MAX bytes or more, kept as ".../"
	 * and their end (never a path of the tree, which starts with "/";
	 * no file is opened by it).  A walk says them on stderr, once.
	 */
	size_t unread, cut;
	int unread_err;
	/*
	 * The paths' generation, changed whenever they are freed (a walk,
	 * iolat_cgroups_free()), never the same twice: a path's pointer
	 * kept with it is the same path while it is the same.
	 */
	unsigned long paths_gen;
};

/*
 * The cgroup2 mount iolat's paths start at: the first in this process's
 * mount namespace, /sys/fs/cgroup when there is none.
 */
const char *iolat_cgroup_root(void);
/* That first cgroup2 mount, NULL when there is none. */
const char *iolat_cgroup2_mount(void);
/*
 * 1 inside a cgroup namespace other than the initial one (paths then
 * start at the namespace's root, not the hierarchy's), 0 in the initial
 * one, -1 when /proc cannot tell.
 */
int iolat_cgroupns(void);
/* Use @root instead of the cgroup2 mount (tests: a fake tree). */
void iolat_cgroup_root_set(const char *root);
struct bpf_program;
struct bpf_link;
/*
 * Attach @prog, a cgroup iterator, to the whole hierarchy under
 * iolat_cgroup_root(), parents before children: its link, or NULL and
 * why in @why.
 */
struct bpf_link *iolat_cgroup_iter_attach(struct bpf_program *prog, char *why, size_t len);
/* Walk the whole tree (keeps the pending and unknown ids). */
int iolat_cgroups_scan(struct iolat_cgroups *cgs);
/*
 * A new refresh: retry the pending cgroups (dropped after
 * IOLAT_CGROUP_PENDING_TICKS), forget the last tick's removed ids.
 * Returns the number of cgroups added, or -errno.
 */
int iolat_cgroups_tick(struct iolat_cgroups *cgs);
/*
 * cgroup_mkdir of @id, named @name, below cgroup @parent_id: added when
 * its directory is there with that id (1), pending when not yet or when
 * its parent is pending (0), IOLAT_CGROUP_ELSEWHERE when it is not in
 * our view (outside our cgroup namespace, or removed already); -errno.
 */
#define IOLAT_CGROUP_ELSEWHERE 2
int iolat_cgroups_mkdir(struct iolat_cgroups *cgs, __u64 id, __u64 parent_id,
			const char *name);
/* cgroup_rmdir of @id: marked gone. */
int iolat_cgroups_rmdir(struct iolat_cgroups *cgs, __u64 id);
/*
 * Map entries name cgroup @id, which the tree does not know: keep them?
 * No if an rmdir event removed it this tick; yes while it is pending, or
 * for IOLAT_CGROUP_UNKNOWN_TICKS ticks from when it was first asked about.
 */
bool iolat_cgroups_keep(struct iolat_cgroups *cgs, __u64 id);
/* How many cgroups are marked gone: a walk tidies them away. */
size_t iolat_cgroups_gone(const struct iolat_cgroups *cgs);
/* The index of cgroup @id in cgs->v, or -1. */
long iolat_cgroups_find(const struct iolat_cgroups *cgs, __u64 id);
const char *iolat_cgroups_path(const struct iolat_cgroups *cgs, __u64 id);
void iolat_cgroups_free(struct iolat_cgroups *cgs);

/*
 * The path in our tree ("/a/b") of cgroup @id, from the id alone: a
 * cgroup2 directory's file handle is its id (kernfs, FILEID_KERNFS), so
 * open_by_handle_at() on the mount opens it and /proc/self/fd names it
 * as this process sees it; the mount's path is taken off, and a stat()
 * checks the id.  0; -ENOENT: no such cgroup (removed); -EXDEV: not below
 * the mount (outside our cgroup namespace); another -errno when it
 * cannot be told (-EPERM without CAP_DAC_READ_SEARCH, -EOPNOTSUPP).
 */
int iolat_cgroup_id_path(__u64 id, char *buf, size_t size);
/*
 * Tests: @fn stands in for open_by_handle_at() and the readlink of
 * /proc/self/fd, giving @id's path as the kernel would (absolute, "/"
 * for a directory outside the mount) or -errno.  NULL: the kernel again.
 */
void iolat_cgroup_id_resolver_set(int (*fn)(__u64 id, char *abs, size_t size));

/*
 * Follow the BPF side's cgroup_mkdir and cgroup_rmdir records
 * (bpf/iolat-cgroup-changes.bpf.h): take them out of @changes and apply
 * them to @cgs, parents first, after a tick when @tick.  The tree is
 * walked first when it has never been, when the BPF side lost records
 * (@lost, its changes_lost, is not *@lost_seen), when a created cgroup
 * never showed up (stale) and when many removed ones wait to be tidied
 * away; never for a cgroup outside our view.  Returns 1 when it walked
 * (every cgroup is new), 0, or -errno (said on stderr when the walk fails).
 */
struct iolat_map;
int iolat_cgroups_follow(struct iolat_cgroups *cgs, struct iolat_map *changes,
			 __u64 lost, __u64 *lost_seen, bool tick);

/*
 * Cgroup paths by id for a reader of events (iolat-snoop), as this
 * process sees them (rooted at its cgroup namespace's root, whole), the
 * way iolat-top names its rows: the tree, walked once and then kept
 * current by the cgroup_mkdir and cgroup_rmdir records in @changes
 * (iolat_cgroups_follow()), a new cgroup placed below its parent by id.
 * An id the tree does not know makes it follow the records at once; one
 * it still cannot place is outside our view (outside our cgroup
 * namespace, or created and removed before we looked) and has no path:
 * never the kernel's path, which starts at the hierarchy's root.  A path
 * found is kept for the id (ids are not reused), so that events after
 * the cgroup's removal still name it.  Without @changes (the fallback,
 * which has no cgroup programs) the tree is walked again for an unknown
 * id, at most once a second.
 */
#define IOLAT_NAMES_MAX 65536

struct iolat_names {
	struct iolat_name {
		__u64 id;
		char *path;	/* "": not in our view */
	} *v;
	size_t n, cap;		/* cap: 0 or a power of two */
	struct iolat_cgroups tree;
	struct iolat_map *changes;	/* NULL: none, walk */
	const __u64 *lost;		/* the BPF side's changes_lost */
	__u64 lost_seen;
	double tree_at;		/* CLOCK_MONOTONIC s of the last walk or tick; 0: none */
};

/*
 * Follow the records, at most once a second (a tick), or at once when
 * @force; iolat-snoop calls it as it polls, so that the map does not
 * fill.  Without records: with @force, a walk at most once a second.
 */
int iolat_names_update(struct iolat_names *nm, bool force);
/* The path of cgroup @id, or NULL: 0, or not in our view.  Valid until the next call. */
const char *iolat_names_path(struct iolat_names *nm, __u64 id);
void iolat_names_free(struct iolat_names *nm);

/*
 * io.stat of one cgroup on one device.  The rest but the byte and IO
 * counts is there only with blk_cgroup.blkcg_debug_stats=1: io.latency's
 * depth, and on a rotational queue avg_lat (a running average of the
 * windows' mean latency, us) and win (the window, ms), on a
 * non-rotational one missed and total (the bios of the window in
 * progress); blk-cgroup's use_delay and delay_nsec only while use_delay
 * is not 0 (blk-iolatency.c iolatency_pd_stat(), blk-cgroup.c).
 */
#define IOLAT_IOSTAT_BUF 65536	/* one io.stat: a line per device */

struct iolat_iostat {
	__u64 rbytes, wbytes, ios;	/* ios: rios + wios + dios */
	__u64 rios, wios, dbytes, dios;
	__u32 depth;		/* IOLAT_DEPTH_MAX: "max" */
	int use_delay;
	__u64 avg_lat_us, win_ms;	/* has_lat */
	__u64 missed, total;		/* has_missed */
	__u64 delay_nsec;		/* pending induced delay */
	bool has_io, has_depth, has_lat, has_missed;
};

/*
 * blk_cgroup.blkcg_debug_stats, from /sys/module/blk_cgroup/parameters:
 * 1 on, 0 off, -1 unknown (no such file).  Tests point it elsewhere.
 */
#define IOLAT_DEBUG_STATS_PARAM "/sys/module/blk_cgroup/parameters/blkcg_debug_stats"
int iolat_debug_stats(void);
void iolat_debug_stats_path_set(const char *path);

/*
 * The io pressure of cgroup @path (its io.pressure, PSI): the "some" and
 * "full" avg10 in percent.  -errno when there is none (no PSI in the
 * kernel, psi=0, the root cgroup, gone).
 */
int iolat_pressure_read(const char *path, double *some, double *full);

/*
 * The io.stat of cgroup @path ("/a/b", "/" for the root) into @buf: opened,
 * read and closed, so that no descriptor is kept per cgroup.  Returns its
 * length or -errno.
 */
int iolat_iostat_read(const char *path, char *buf, size_t size);
/* Parse the lines of @devs[@ndev] in @text (changed) into @out[]. */
void iolat_iostat_parse(char *text, const __u32 *devs, size_t ndev,
			struct iolat_iostat *out);
/*
 * Copy into @to what only io.stat's file has, its blkcg_debug_stats
 * keys (depth, use_delay, delay_nsec, avg_lat and win, missed and
 * total), from @from; the counters stay.
 */
void iolat_iostat_merge_debug(struct iolat_iostat *to, const struct iolat_iostat *from);

/*
 * io.stat's counters of every cgroup from one walk of the cgroup
 * iterator (bpf/iolat-iostat.bpf.c; tools/iolat-iostat.h runs it): the
 * records the walk wrote, by cgroup id and device.  What the walk did
 * not write a record for had no counter above 0 on that device, as an
 * io.stat line without rbytes= (or it is newer than the walk).  The walk
 * starts at the cgroup2 mount: its top is the hierarchy's root (level 0,
 * no records: read its file) or, in a cgroup namespace, a cgroup whose
 * records are there.
 */
struct iolat_iostat_set {
	struct iolat_iostat_rec *v;	/* sorted by cgroup id, then device */
	size_t n, cap;
	int top_level;			/* the walk's top's level; -1: none seen */
	__u32 visited;			/* cgroups the walk saw */
	/*
	 * @filled: holds a walk's records, updated or not (a failed walk
	 * clears it); @walked: by the walk alone, none updated since.
	 */
	bool filled, walked;
};

/*
 * Fill @s from a walk: @end is what read() gave (@len bytes, the struct
 * iolat_iostat_end), @recs the array of at most @cap records it counts.
 * 0; -EPROTO when @end is not a whole end record (a short read) or
 * counts more than @cap; -EOVERFLOW when the walk left blkgs with IO out
 * (the array full, or too many devices on one cgroup): @s is then
 * incomplete, read the files; -ERANGE when the program met a struct
 * blkcg_gq it cannot read (its layout: no records at all); -ENOMEM.
 */
int iolat_iostat_set_fill(struct iolat_iostat_set *s, const void *end, size_t len,
			  const struct iolat_iostat_rec *recs, size_t cap);
/*
 * Between walks, cgroups whose counters moved are read from their files:
 * iolat_iostat_recs_parse() makes @text, a cgroup @id's io.stat, the
 * records a walk would (a device's line with counters; only @dev's
 * unless 0) into @out[@cap], sorted, and returns how many or -EOVERFLOW;
 * iolat_iostat_set_update() puts them in @s for the @nids cgroups @ids
 * (sorted, each once: iolat_iostat_ids_sort()), whose old records go,
 * so that @s is what a walk now would give those cgroups.  0; -EINVAL
 * when @s has no walk to update, -ENOMEM.
 */
int iolat_iostat_recs_parse(char *text, __u64 id, __u32 dev,
			    struct iolat_iostat_rec *out, size_t cap);
int iolat_iostat_set_update(struct iolat_iostat_set *s, const __u64 *ids, size_t nids,
			    const struct iolat_iostat_rec *recs, size_t nrecs);
void iolat_iostat_ids_sort(__u64 *ids, size_t *n);
/*
 * Whether cgroup @id's counters come from @s: every cgroup but the
 * hierarchy's root (@root: the tree's first cgroup, the walk's top).
 */
bool iolat_iostat_set_has(const struct iolat_iostat_set *s, bool root);
/*
 * Cgroup @id's counters on @devs[@ndev] into @out[] (the counters and
 * has_io, as iolat_iostat_parse() fills them from its io.stat); a
 * device it has no record of is left alone.
 */
void iolat_iostat_set_get(const struct iolat_iostat_set *s, __u64 id, const __u32 *devs,
			  size_t ndev, struct iolat_iostat *out);
/*
 * The same for every cgroup at once: where each cgroup of @cgs has its
 * first record in @s, plus one, into @at[cgs->n]; 0 for none (no IO on
 * any device, or gone).  One pass over the records and the tree's ids,
 * both in the order of ids, where a search per cgroup made log2 of the
 * records' number steps (records number at most IOLAT_IOSTAT_MAX); then
 * iolat_iostat_set_get_at() with @at[i] - 1.
 */
void iolat_iostat_set_index(const struct iolat_iostat_set *s,
			    const struct iolat_cgroups *cgs, __u32 *at);
void iolat_iostat_set_get_at(const struct iolat_iostat_set *s, size_t at, const __u32 *devs,
			     size_t ndev, struct iolat_iostat *out);
void iolat_iostat_set_free(struct iolat_iostat_set *s);

/*
 * io.pressure by cgroup id, for the rows a refresh shows: a slot for
 * every cgroup asked for (its last figures, when it was read), and for
 * the first @max of them the file kept open and read again with pread()
 * at offset 0 (a seq_file regenerates there), one system call a row
 * where open, read and close were three; a slot past that has its file
 * opened, read and closed (@max 0: none kept), within RLIMIT_NOFILE.  A
 * slot not asked for during a refresh goes at the next iolat_psi_tick(),
 * its file closed.
 */
struct iolat_psi_files {
	struct iolat_psi_file {
		__u64 id;		/* 0: a free slot */
		int fd;			/* -1: not kept (past @max, or the cgroup gone) */
		unsigned long used;	/* the tick it was last asked for in */
		unsigned long busy;	/* the tick iolat_psi_busy() last named it in, + 1 */
		__u64 read_ns;		/* when it was last read (now_ns then) */
		double some, full;	/* what it said then */
		int err;
	} *v;
	size_t n, cap;			/* slots used; cap: 0 or a power of two */
	size_t nfd, max;		/* files kept open; at most */
	unsigned long tick;
	__u64 now_ns;			/* the caller's clock, for read_ns */
	bool max_set;
};

/*
 * The kernel recomputes a group's pressure averages every 2 s (PSI_FREQ,
 * kernel/sched/psi.c): a file read again sooner mostly says the same.
 * So one read within IOLAT_PSI_REREAD_NS of the last gives the last's
 * answer, no system call (1.5 s: a 1 s interval, whose refreshes jitter,
 * reads every other one; an interval of 2 s or more, every one).
 */
#define IOLAT_PSI_REREAD_NS	1500000000ULL

/*
 * A cgroup that did no IO, paid no induced delay and had no use_delay in
 * the interval (none of its rows, on any device: iolat_psi_busy() names
 * the others), whose last read said some = full = 0, mostly has no IO
 * pressure now either: its tasks stall in io_schedule() for their own
 * IO, and there was none.  Not always: a task can sleep there for IO it
 * did not issue (balance_dirty_pages() throttling its writes, a page
 * another cgroup is reading in), which no row of its shows.  So such a
 * cgroup is read again IOLAT_PSI_QUIET_NS after its last read at the
 * latest, where -P read 10,000 idle cgroups' files every interval:
 * pressure of that kind shows up to 10 s late, about as late as avg10,
 * an average over 10 s, shows a stall in full.
 */
#define IOLAT_PSI_QUIET_NS	10000000000ULL

/*
 * The io pressure of cgroup @id at @path, as iolat_pressure_read(), once
 * a tick (a second read in the same tick gives the first's answer), not
 * again within IOLAT_PSI_REREAD_NS of @p->now_ns, and for a quiet cgroup
 * whose last said 0, not within IOLAT_PSI_QUIET_NS.
 */
int iolat_psi_read(struct iolat_psi_files *p, __u64 id, const char *path,
		   double *some, double *full);
/*
 * Cgroup @id did IO or paid delay in this tick's interval (one of its
 * rows): its read in this tick is due after IOLAT_PSI_REREAD_NS, whatever
 * its last figures.  Before the tick's iolat_psi_read()s.
 */
void iolat_psi_busy(struct iolat_psi_files *p, __u64 id);
/* A new refresh: forget the cgroups the last one did not ask for. */
void iolat_psi_tick(struct iolat_psi_files *p);
/* How many files are open. */
size_t iolat_psi_open(const struct iolat_psi_files *p);
void iolat_psi_free(struct iolat_psi_files *p);

/* io.latency targets, as read from every cgroup's io.latency. */
struct iolat_targets {
	struct iolat_target {
		__u32 dev;
		size_t cgroup;	/* index in iolat_cgroups.v */
		__u64 us;
	} *v;
	size_t n, cap;
};

/*
 * Has any cgroup an io.latency file?  None: the kernel has no io.latency
 * (CONFIG_BLK_CGROUP_IOLATENCY off), or no cgroup has the io controller.
 */
bool iolat_cgroups_have_latency(const struct iolat_cgroups *cgs);

int iolat_targets_read(const struct iolat_cgroups *cgs, struct iolat_targets *t);
/* Append the targets of cgroup @i (one new since the walk). */
int iolat_targets_read_one(const struct iolat_cgroups *cgs, size_t i,
			   struct iolat_targets *t);
/*
 * Say on stderr, once a device, that a target is on a bio-based device
 * (device mapper, md), where io.latency never acts, and the disks below.
 */
void iolat_targets_tell_bio_based(const char *tool, const struct iolat_targets *t);

#endif /* __IOLAT_CGROUP_H */
