/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-top's model: one row per (device, cgroup) from the targets, the
 * BPF maps' entries and io.stat; rates against the previous interval and
 * each row's state.  Plain inputs (map values, file text), no BPF: the
 * host test (tests/host/06-model) feeds it a fake tree and fake maps.
 */
#ifndef __IOLAT_TOP_MODEL_H
#define __IOLAT_TOP_MODEL_H

#include <regex.h>
#include <stdbool.h>
#include <linux/types.h>
#include "iolat.h"
#include "iolat-cgroup.h"
#include "iolat-common.h"
#include "iolat-map.h"

#define TOP_DEFAULT_COOKIE 1000000U
#define TOP_IDLE_NS 5000000000ULL	/* no window for 5 s: idle */

/*
 * Where the rows come from.  EVENTS: the iolatency tracepoints (the
 * series), io.stat and io.latency.  IOSTAT: a kernel without the events,
 * or --no-events: io.stat (its debug keys when blkcg_debug_stats=1),
 * io.latency and io.pressure, the induced delay charged and slept where
 * the controller's functions could be traced (struct top_model's fns),
 * and io.latency's own state where the state reader runs (a sample a
 * refresh: top_model_add_state()); whatever only the events tell is
 * unknown, never 0.
 */
enum top_mode { TOP_MODE_EVENTS, TOP_MODE_IOSTAT, TOP_MODE_NR };
extern const char *const top_mode_names[TOP_MODE_NR];

enum top_sort { TOP_SORT_STATE, TOP_SORT_PATH, TOP_SORT_LAT, TOP_SORT_IOPS,
		TOP_SORT_DEPTH, TOP_SORT_DELAY, TOP_SORT_WAITS, TOP_SORT_NR };
#define TOP_SORT_DEFAULT TOP_SORT_STATE
extern const char *const top_sort_names[TOP_SORT_NR];

/* What a BPF map's values are: the events' groups and parents, the fallback's delays. */
enum top_map { TOP_MAP_GROUPS, TOP_MAP_PARENTS, TOP_MAP_DELAYS, TOP_MAP_NR };
extern const char *const top_map_names[TOP_MAP_NR];

/*
 * The BPF maps of (device, cgroup) pairs get their size before they are
 * loaded, and cannot grow after: twice the pairs of @cgroups cgroups on
 * @devs devices (the devices with io.latency targets; none counts as
 * one), so that the tree can grow, as a power of two; never below the
 * IOLAT_MAX_GROUPS they were built with, never above
 * TOP_MAP_ENTRIES_MAX (a hash map's entries are allocated at load:
 * about 300 bytes each for the groups, 80 MB at the cap).
 */
#define TOP_MAP_ENTRIES_MAX (1U << 18)
__u32 top_map_entries(size_t cgroups, size_t devs);

/* A BPF map as the interval found it. */
struct top_map_state {
	bool read;		/* top_model_add_map() read it this interval */
	__u32 max_entries;
	size_t entries;		/* what it held */
	/*
	 * Set by the caller: the BPF side's count of events it dropped
	 * because the map was full (no entry for a new pair could be
	 * made), since the start; and its value at the last
	 * top_model_compute().
	 */
	__u64 full, full_seen;
};

/*
 * A row a full map may have no entry for: a target says it should have
 * one, and the map dropped events during the interval, or did before
 * and is full still.  Its path is the tree's, as the rows'.
 */
struct top_missing {
	__u32 dev;
	__u64 cgid;
	const char *path;
	enum top_map map;
};

struct top_row {
	__u32 dev;
	__u64 cgid;
	const char *path;
	__u64 target_us;	/* 0: none */
	struct iolat_iostat io;
	struct iolat_group g;
	struct iolat_parent p;
	bool has_group, has_parent, culprit;
	/*
	 * IOSTAT mode: g's charged_ns, charges, paid_ns, pays and delay_ns
	 * came from the functions (has_delay: an entry of theirs), and which
	 * of the counters they fill (fn_charges: blkcg_add_delay attached,
	 * fn_pays: blkcg_maybe_throttle_current); top_model_compute() sets
	 * these two.
	 */
	bool has_delay, fn_charges, fn_pays;
	/*
	 * IOSTAT mode with the state reader: this refresh's record of the
	 * row's group (m->state's; NULL: none), from which
	 * top_model_compute() takes g's depth, use_delay, cookie and ssd
	 * and, for a parent whose children are scaled or named a culprit
	 * (has_parent), p's cookie, culprit_id and scale_lat_ns.  A
	 * sample, not events: g's and p's counters stay unknown, never 0.
	 */
	const struct iolat_state *st;
	bool io_err;		/* its io.stat could not be read */
	bool io_file;		/* its io.stat file was read this refresh */
	/*
	 * Rates over the interval; NAN when unknown: the row's first
	 * interval (no baseline), io.stat unreadable now or at the previous
	 * interval, or a counter went backwards.
	 */
	double iops, rmbps, wmbps, charged, paid, waits;
	const char *state;
	/* io.pressure's avg10, some and full, percent; NAN: no PSI. */
	double psi_some, psi_full;
	/* Time limited (depth below max) since the start, when known. */
	__u64 limited_ns;
	bool limited_known;
	/*
	 * IOSTAT mode with the state reader: the interval's samples of the
	 * group's depth (top_model_add_between()), the refreshes at both
	 * ends included: how many, the lowest depth, the share of them
	 * below max.  @samples < 2: unknown.  Samples, not events: a depth
	 * held for less than a period may not be in them.
	 */
	struct top_sampled {
		__u32 samples;
		__u32 depth_min;
		double limited_share;
	} sampled_in;
	/*
	 * What happened during the interval, from the counters' growth: not
	 * known on a row's first interval, or when a counter went backwards.
	 */
	struct top_interval {
		bool known;
		__u64 windows, windows_missed;
		__u64 throttled;
		double wait_mean_us;		/* NAN: no bio throttled */
		__u64 scale_downs, scale_ups;	/* of a parent's children */
		/* The lowest depth (IOLAT_DEPTH_MAX: never limited). */
		__u32 depth_min;
		bool depth_min_known;
		double limited_share;		/* 0..1; NAN: unknown */
		/* The last window's action when one ended in it, else -1. */
		int action;
	} in;
	/*
	 * The state order's key (top_model_compute()): @rank, lower first,
	 * is the row's state class then its IO's order of magnitude
	 * (@io_bucket, kept until the IOPS leave it by a factor of 2, so
	 * that jitter moves no row); a culprit takes the rank of the parent
	 * that names it, or the parent the culprit's, whichever is lower,
	 * and sorts by that parent's path (@group; its own path otherwise),
	 * right after it.  @named_by: that parent's index + 1, during
	 * top_model_compute() only; @names: its line names a culprit that
	 * has a row.
	 */
	__u32 rank;
	int io_bucket;
	const char *group;
	size_t named_by;
	bool names;
};

/* What the previous interval saw of a row, for rates. */
struct top_prev {
	__u32 dev;
	__u64 cgid;
	__u64 rbytes, wbytes, ios, charged_ns, paid_ns, throttled;
	bool io_ok;		/* rbytes, wbytes and ios were read */
	__u64 windows, windows_missed, throttled_wait_ns;
	__u64 scale_downs, scale_ups;
	__u64 limited_ns;
	bool limited_known;
	int io_bucket;
};

struct top_model {
	struct top_row *v;
	size_t n, cap;
	/*
	 * The rows by (device, cgroup) while they are added: an open
	 * addressing table of index + 1 tagged with @slots_gen (another
	 * generation's slot is empty), @nslots a power of two at least
	 * twice n.  After top_model_sort() it is stale, made again if used.
	 */
	__u64 *slots;
	size_t nslots;
	__u32 slots_gen;
	bool slots_stale;
	/* The rows' devices, in the order of their first rows. */
	__u32 *devs;
	size_t ndevs, devs_cap;
	/*
	 * Sorting's: the rows' order, where they are moved to, and which
	 * places in front the first rows are in (all false between sorts).
	 */
	struct top_row **order, *spare;
	bool *front;
	size_t order_cap, spare_cap;
	struct top_sort_memo *memo;	/* the last sort by path or state (the .c's) */
	/*
	 * The previous interval's baseline, a row's where the row was then,
	 * and a table of it by key, made when a row is not in that place;
	 * the buffer the next baseline goes to (the one before last's).
	 */
	struct top_prev *prev, *next;
	size_t nprev, prev_cap, next_cap;
	size_t *prev_slots, nprev_slots;	/* prev by key, as slots */
	bool prev_indexed;
	const struct iolat_cgroups *cgs;	/* the tree the rows' paths are in */
	/*
	 * Set by the caller before top_model_compute(): when the maps were
	 * read (CLOCK_MONOTONIC ns, as bpf_ktime_get_ns()), when the tool
	 * started, and the depth epoch the interval closed (the BPF side's
	 * depth_epoch before the caller bumped it).
	 */
	__u64 now_ns, start_ns;
	__u32 epoch;
	__u64 prev_now_ns;			/* now_ns of the previous interval */
	/* The filter: -d and -c. */
	__u32 dev;
	const regex_t *re;
	/*
	 * The mode, why it is not EVENTS (for the header, "" in EVENTS),
	 * and blkcg_debug_stats (1 on, 0 off, -1 unknown).
	 */
	enum top_mode mode;
	const char *mode_reason;
	int debug_stats;
	/*
	 * Inside a cgroup namespace (1; 0 not, -1 unknown): the paths start
	 * at its root, and a reader elsewhere must know (iolat_cgroupns()).
	 */
	int cgroupns;
	/* IOSTAT mode: the controller's functions, attached or why not. */
	struct iolat_fns fns;
	/*
	 * IOSTAT mode: this refresh's sample of io.latency's groups
	 * (top_model_add_state(), which sets @sampled; top_model_begin()
	 * clears it), the caller's @nstate records, by (device, cgroup) in
	 * @state_slots (index + 1; @nstate_slots a power of two at least
	 * twice @nstate); and, set by the caller, why there is none when
	 * there is not (the reader cannot run here, --no-state, a walk
	 * that failed), for the header, JSON and -P.
	 */
	const struct iolat_state *state;
	size_t nstate;
	size_t *state_slots, nstate_slots;
	bool sampled;
	const char *state_why;
	/*
	 * The samples since the last refresh, its own first, this one's
	 * last, per (device, cgroup): each group's count, lowest depth and
	 * count below max, by @between_slots (index + 1, a power of two at
	 * least twice @nbetween); @between_walks, the walks folded in;
	 * @sample_ms, the caller's shortest period between two (the header
	 * says it).
	 */
	struct top_between {
		__u32 dev;
		__u64 cgid;
		__u32 samples, limited, depth_min;
	} *between;
	size_t nbetween, between_cap;
	size_t *between_slots, nbetween_slots;
	__u32 between_walks;
	int sample_ms;
	/*
	 * Set by the caller before top_model_add_io(): this refresh's walk
	 * of the cgroup iterator (every cgroup's io.stat counters in one
	 * pass), or NULL to read each cgroup's io.stat file; and whether
	 * the files' blkcg_debug_stats keys are wanted (the parameter on,
	 * or unknown), which no walk gives: then a cgroup's file is read
	 * for them where a row needs them (top_model_add_io(),
	 * top_model_add_iostat_debug()).
	 */
	const struct iolat_iostat_set *iostat;
	bool iostat_debug;
	/* io.pressure of the rows shown: their last figures, files kept open. */
	struct iolat_psi_files psi;
	/* top_model_add_io()'s, per cgroup, kept: quiet subtrees, records. */
	bool *io_quiet;
	__u32 *io_at;
	size_t io_cap;
	/* Its io.stat of one cgroup on each device, and a file's: ndevs each. */
	struct iolat_iostat *io_devs, *io_file;
	size_t io_devs_cap;
	/*
	 * The maps read (top_model_add_map()), and the rows the full ones
	 * may have no entry for, in the rows' order before the sort
	 * (top_model_compute()).
	 */
	struct top_map_state maps[TOP_MAP_NR];
	struct top_missing *missing;
	size_t nmissing, missing_cap;
};

/*
 * An interval: top_model_begin(), the add functions, top_model_compute(),
 * top_model_sort().  @cgs stays the caller's, and must stay unchanged until
 * the next top_model_begin().
 */
void top_model_begin(struct top_model *m, const struct iolat_cgroups *cgs);
int top_model_add_targets(struct top_model *m, const struct iolat_targets *t);

/* What top_model_add_entry() made of a map entry. */
enum top_entry { TOP_ENTRY_ROW, TOP_ENTRY_FILTERED, TOP_ENTRY_STALE };
/*
 * A map entry: a struct iolat_group, or a struct iolat_parent when @parent.
 * @dev_present is iolat_dev_rotational(key->dev) >= 0.  Returns an enum
 * top_entry (STALE: its cgroup or device is gone, delete it) or -errno.
 */
int top_model_add_entry(struct top_model *m, const struct iolat_key *key,
			const void *val, bool parent, bool dev_present);
/*
 * An entry of the fallback's map (IOSTAT mode, functions attached): the
 * induced delay of key's (device, cgroup).  Returns as the above.
 */
int top_model_add_delay(struct top_model *m, const struct iolat_key *key,
			const struct iolat_delay *d, bool dev_present);
/*
 * Every entry of @map, read here (iolat_map_read()): a struct iolat_group,
 * iolat_parent or iolat_delay each, as @kind says.  The entries of devices
 * and cgroups that are gone are deleted from the map, their slots free
 * for new groups; a cgroup the tree does not know is asked about first
 * (iolat_cgroups_keep(): @cgs is m's tree).  m->maps[@kind] says how
 * full it was.  0 or -errno.
 */
int top_model_add_map(struct top_model *m, struct iolat_map *map, enum top_map kind,
		      struct iolat_cgroups *cgs);
/*
 * IOSTAT mode: the state reader's sample of this refresh, @n records as
 * iolat_state_sample() gave them, kept by reference (unchanged until the
 * report is printed).  A row for each group the sample shows throttled
 * (depth limited, use_delay on) and each parent whose children are
 * scaled or named a culprit, as the events' map entries make them;
 * top_model_compute() gives every row its group's figures, whatever
 * made the row.  After the targets, before top_model_add_io() (the rows
 * made here get their io.stat).  0 or -ENOMEM.
 */
int top_model_add_state(struct top_model *m, const struct iolat_state *s, size_t n);

/*
 * A walk of the state between two refreshes (iolat_state_sample()'s @n
 * records): each group's depth folded into the interval's samples, which
 * top_model_add_state()'s walk, the refresh's, closes.  0 or -ENOMEM.
 */
int top_model_add_between(struct top_model *m, const struct iolat_state *s, size_t n);
/*
 * Rows from io.stat: cgroups doing IO on a device some row is about.
 * The counters come from m->iostat when set (the hierarchy's root's from
 * its file, which is the disks' statistics), else from each cgroup's
 * file; with m->iostat_debug, the file of a cgroup whose rows need the
 * debug keys too: in the IOSTAT mode every row, with the events a row
 * whose depth or use_delay no event gave (its state rests on io.stat).
 */
int top_model_add_io(struct top_model *m);
/*
 * After top_model_sort(), for the first @n rows, the ones a report
 * shows (every row for -P): their io.pressure (both modes; read for no
 * other row, and for a cgroup no row of which did IO or paid delay in
 * the interval, whose last figures were 0, not within IOLAT_PSI_QUIET_NS
 * of its last read), and, with a walk and m->iostat_debug, the debug keys of
 * the rows top_model_add_io() read no file for (JSON's iostat_debug).
 */
void top_model_add_pressure(struct top_model *m, size_t n);
void top_model_add_iostat_debug(struct top_model *m, size_t n);
/* Rates over @secs, states, the rows missing, and the next interval's baseline. */
int top_model_compute(struct top_model *m, double secs);
void top_model_sort(struct top_model *m, enum top_sort key);
/*
 * The same for a report that shows the @k first rows: those in order,
 * the others after them in none (-P's metrics need no order); @k 0, or
 * not below the number of rows: all.  By state, the @k never end between
 * a parent and the culprit its line names (unless the two do not fit in
 * @k): the culprit takes the place of the last row before the parent.
 */
void top_model_sort_first(struct top_model *m, enum top_sort key, size_t k);
void top_model_free(struct top_model *m);

/*
 * The IOSTAT mode's window figure, from io.stat's debug keys: avg_lat in
 * us (rotational) or the share of the window in progress's bios over
 * target in % (non-rotational); on a rotational queue without them, the
 * sample's running average (the same lat_avg); NAN when neither has it.
 */
double top_row_iostat_lat(const struct top_row *r);
/*
 * The sample's accumulated statistic (cur_stat: the windows folded in
 * since the controller last acted on one), as ACCLAT shows it: % of its
 * bios over target (non-rotational) or its mean in us; -1 when it holds
 * no bio; NAN without a sample.
 */
double top_row_sample_acc_lat(const struct top_row *r);
/* The parent's cookie the group last saw: an event's or the sample's; 0: unknown. */
__u32 top_row_cookie(const struct top_row *r);
/*
 * A parent's counts of its children's scalings (p's scale_downs...) are
 * known: they came from events, not a sample.
 */
bool top_row_scalings_known(const struct top_row *r);
/*
 * What a parent says of its culprit: none; named, a cgroup the tree has
 * (top_row_culprit()); gone, one that is not there any more (the events'
 * culprit_id, whose cgroup was removed; the sample's, no live group below
 * the parent, freed or offline, whose id cannot be told); unknown, the
 * sample's walk left groups out, so which cannot be told.
 */
enum top_culprit { TOP_CULPRIT_NONE, TOP_CULPRIT_NAMED, TOP_CULPRIT_GONE,
		   TOP_CULPRIT_UNKNOWN, TOP_CULPRIT_NR };
extern const char *const top_culprit_names[TOP_CULPRIT_NR];
enum top_culprit top_row_culprit_status(const struct top_model *m, const struct top_row *r);
/* Window latency in us (rotational) or % of bios over target; -1: none. */
double top_row_lat(const struct top_row *r);
double top_row_acc_lat(const struct top_row *r);	/* accumulated */
const char *top_row_verdict(const struct top_row *r);	/* met, missed, offline */
/* The path of a parent's culprit, NULL when none or gone. */
const char *top_row_culprit(const struct top_model *m, const struct top_row *r);
/* No window ended in the 5 s before @now_ns (CLOCK_MONOTONIC). */
bool top_window_idle(const struct top_row *r, __u64 now_ns);
/* Row @i continues the group of row @i - 1 (a culprit after its parent). */
bool top_row_grouped(const struct top_model *m, size_t i);

#endif /* __IOLAT_TOP_MODEL_H */
