// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-top: a live view of io.latency per (device, cgroup): window latency
 * against the target, queue depth, scale cookie and throttling state, from
 * the iolatency tracepoints; IOPS and bandwidth from io.stat, so nothing is
 * traced per IO.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-common.h"
#include "iolat-top.skel.h"

#define TOOL "iolat-top"
#define DEFAULT_COOKIE 1000000U
#define MAX_DEVS 64		/* devices with rows in one interval */
#define IOSTAT_BUF 65536	/* one io.stat: a line per device */

enum sort_key { SORT_PATH, SORT_LAT, SORT_IOPS, SORT_DEPTH, SORT_DELAY, SORT_WAITS };
static const char *const sort_names[] = { "path", "lat", "iops", "depth", "delay", "waits" };

static struct env {
	__u32 dev;
	const char *dev_arg;
	regex_t cgroup_re;
	bool cgroup_filter;
	enum sort_key sort;
	int rows;
	bool batch;
	bool json;
	double interval;
	long count;
	const char *prom;	/* -P: the textfile to keep current */
	bool quiet;
} env = { .interval = 1, .rows = 1000 };

const char *argp_program_version = TOOL " 0.1";
const char *argp_program_bug_address = "the iolat issue tracker";
static const char doc[] =
"Show io.latency's view of each cgroup and device, live.\n"
"\n"
"USAGE: " TOOL " [-d DEV] [-c REGEX] [-s KEY] [-r ROWS] [-b] [-j] [interval] [count]\n"
"\n"
"One row per (device, cgroup) that has an io.latency target, that the\n"
"controller throttled, or that does IO on a device where io.latency is in\n"
"use.  Rows follow the cgroup tree, so siblings sit together:\n"
"  TARGET   the io.latency target\n"
"  WINLAT   the last window: mean latency (rotational) or the share of bios\n"
"           over target (non-rotational; 10% or more misses); idle when no\n"
"           window ended for 5 s\n"
"  ACCLAT   the same of the accumulated statistic the window was folded\n"
"           into (kept over windows that did not scale)\n"
"  SAMP     bios in that window\n"
"  VERDICT  what the controller acted on: met (window and accumulated\n"
"           statistic met the target), missed, or offline (the group lost\n"
"           its target meanwhile)\n"
"  IOPS MB/s from io.stat over the interval\n"
"  DEPTH    the queue depth io.latency allows the group (max: unlimited)\n"
"  COOKIE   the parent's scale cookie the group last saw (1000000: relaxed)\n"
"  STATE    ok, throttling (its misses scale its siblings down), throttled\n"
"           (depth limited), delayed (induced delay on)\n"
"  CHG/s PAID/s  induced delay charged and slept off, ms per second\n"
"  WAIT/s   bios per second that slept for a depth slot\n"
"A parent's row shows its children's cookie and the culprit scaling them\n"
"(the child cgroup, found by its id).\n"
"\n"
"EXIT STATUS: 0 ok, 1 run-time error, 2 bad arguments (a -P FILE that\n"
"cannot be written included), 3 kernel without BTF or without the\n"
"iolatency tracepoints, or not root.\n"
"\n"
"EXAMPLES:\n"
"    " TOOL "                # refresh every second until Ctrl-C\n"
"    " TOOL " 5 10           # 10 reports, 5 seconds apart\n"
"    " TOOL " -d nullb0      # one device\n"
"    " TOOL " -c '^/work/'   # cgroups whose path matches\n"
"    " TOOL " -s delay       # busiest delay first, flat\n"
"    " TOOL " -b 1 60 >log   # plain text, no screen control\n"
"    " TOOL " -j 1 5 | jq .  # one JSON object per interval\n"
"    " TOOL " -qP /var/lib/prometheus/node-exporter/iolat.prom 15\n"
"                            # metrics for node_exporter's textfile collector\n"
"\n"
"PROMETHEUS: with -P FILE, every interval replaces FILE (written beside it,\n"
"then renamed, so a reader never sees half of it) with iolat_* metrics per\n"
"device and cgroup: target, window latency or miss ratio, the same of the\n"
"accumulated statistic, the verdict (1 met), depth (+Inf: unlimited),\n"
"scale cookie, use_delay, and counters since " TOOL " started:\n"
"windows, missed windows, scale-ups and downs (on the parent), throttled\n"
"bios, induced delay charged and paid in seconds, lost events.\n";

static const struct argp_option opts[] = {
	{ "device", 'd', "DEV", 0, "Only this device (nullb0, /dev/nullb0 or MAJ:MIN)", 0 },
	{ "cgroup", 'c', "REGEX", 0, "Only cgroups whose path matches REGEX (POSIX extended)", 0 },
	{ "sort", 's', "KEY", 0, "Sort flat by path, lat, iops, depth, delay or waits (default: the cgroup tree)", 0 },
	{ "rows", 'r', "ROWS", 0, "At most ROWS rows (default 1000)", 0 },
	{ "batch", 'b', NULL, 0, "No screen control (the default when stdout is not a terminal)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per interval", 0 },
	{ "prometheus", 'P', "FILE", 0, "Also write Prometheus metrics to FILE each interval", 0 },
	{ "quiet", 'q', NULL, 0, "No report on stdout (with -P)", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's debug output", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static int parse_status;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	char *end;
	size_t i;

	switch (key) {
	case 'd':
		env.dev_arg = arg;
		break;
	case 'c':
		parse_status = iolat_parse_regex(TOOL, arg, &env.cgroup_re);
		if (parse_status)
			return EINVAL;
		env.cgroup_filter = true;
		break;
	case 's':
		for (i = 0; i < sizeof(sort_names) / sizeof(*sort_names); i++)
			if (!strcmp(arg, sort_names[i]))
				break;
		if (i == sizeof(sort_names) / sizeof(*sort_names)) {
			fprintf(stderr, TOOL ": invalid sort key '%s': want path, lat, "
				"iops, depth, delay or waits\n", arg);
			parse_status = IOLAT_EXIT_USAGE;
			return EINVAL;
		}
		env.sort = i;
		break;
	case 'r':
		errno = 0;
		env.rows = strtol(arg, &end, 10);
		if (errno || *end || end == arg || env.rows < 1) {
			fprintf(stderr, TOOL ": invalid rows '%s': want a number >= 1\n", arg);
			parse_status = IOLAT_EXIT_USAGE;
			return EINVAL;
		}
		break;
	case 'b':
		env.batch = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'P':
		env.prom = arg;
		break;
	case 'q':
		env.quiet = true;
		break;
	case 'v':
		iolat_verbose = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0)
			parse_status = iolat_parse_interval(TOOL, arg, &env.interval);
		else if (state->arg_num == 1)
			parse_status = iolat_parse_count(TOOL, arg, &env.count);
		else {
			fprintf(stderr, TOOL ": unrecognized positional argument '%s'\n", arg);
			parse_status = IOLAT_EXIT_USAGE;
		}
		if (parse_status)
			return EINVAL;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * io.stat and io.latency of one cgroup on one device.  depth and use_delay
 * are there only with blk_cgroup.blkcg_debug_stats=1; they give the state
 * of groups that have not changed since iolat-top started.
 */
struct iostat {
	__u64 rbytes, wbytes, ios;
	__u32 depth;		/* IOLAT_DEPTH_MAX: "max" */
	int use_delay;
	bool has_io, has_depth;
};

/* What the previous interval saw of a row, for rates. */
struct prev {
	__u32 dev;
	__u64 cgid;
	__u64 rbytes, wbytes, ios, charged_ns, paid_ns, throttled;
};

struct row {
	__u32 dev;
	__u64 cgid;
	const char *path;
	__u64 target_us;	/* 0: none */
	struct iostat io;
	struct iolat_group g;
	struct iolat_parent p;
	bool has_group, has_parent, culprit;
	double iops, rmbps, wmbps, charged, paid, waits;
	const char *state;
};

static struct {
	struct row *v;
	size_t n, cap;
} rows;

static struct {
	struct prev *v;
	size_t n;
} prevs;

static struct iolat_cgroups cgroups;
static __u64 cgroups_gen;	/* cgroup_gen when the tree was last walked */
static int *stat_fds;		/* io.stat of cgroups.v[i], -1 until read */

/* io.latency targets as read at that walk; the map has any set since. */
static struct {
	struct target {
		__u32 dev;
		size_t cgroup;	/* index in cgroups.v */
		__u64 us;
	} *v;
	size_t n, cap;
} targets;
static double last_mono;

static int cmp_key(__u32 da, __u64 ca, __u32 db, __u64 cb)
{
	if (da != db)
		return da < db ? -1 : 1;
	return ca < cb ? -1 : ca > cb;
}

static struct row *row_find(__u32 dev, __u64 cgid)
{
	size_t i;

	for (i = 0; i < rows.n; i++)
		if (rows.v[i].dev == dev && rows.v[i].cgid == cgid)
			return &rows.v[i];
	return NULL;
}

static struct row *row_get(__u32 dev, __u64 cgid, const char *path)
{
	struct row *r = row_find(dev, cgid);

	if (r)
		return r;
	if (rows.n == rows.cap) {
		size_t cap = rows.cap ? rows.cap * 2 : 64;
		struct row *v = realloc(rows.v, cap * sizeof(*v));

		if (!v)
			return NULL;
		rows.v = v;
		rows.cap = cap;
	}
	memset(&rows.v[rows.n], 0, sizeof(rows.v[0]));
	rows.v[rows.n].dev = dev;
	rows.v[rows.n].cgid = cgid;
	rows.v[rows.n].path = path;
	rows.v[rows.n].g.depth = IOLAT_DEPTH_MAX;
	return &rows.v[rows.n++];
}

/* Is there a row for cgroup @cgid on any device? */
static bool row_find_any(__u64 cgid)
{
	size_t i;

	for (i = 0; i < rows.n; i++)
		if (rows.v[i].cgid == cgid)
			return true;
	return false;
}

static bool wanted(__u32 dev, const char *path)
{
	if (env.dev && dev != env.dev)
		return false;
	return !env.cgroup_filter || !regexec(&env.cgroup_re, path, 0, NULL, 0);
}

/*
 * The io.stat of cgroup @i, through a descriptor kept open from one
 * interval to the next: a read at offset 0 regenerates a seq_file, and one
 * pread() an interval is all a busy cgroup costs.
 */
static char *iostat_text(size_t i)
{
	static char buf[IOSTAT_BUF];
	ssize_t len;

	if (stat_fds[i] < 0) {
		char fn[4096];

		snprintf(fn, sizeof(fn), "%s%s/io.stat", iolat_cgroup_root(),
			 i ? cgroups.v[i].path : "");
		stat_fds[i] = open(fn, O_RDONLY | O_CLOEXEC);
		if (stat_fds[i] < 0)
			return NULL;	/* gone meanwhile */
	}
	len = pread(stat_fds[i], buf, sizeof(buf) - 1, 0);
	if (len < 0)
		return NULL;
	buf[len] = '\0';
	return buf;
}

/* Parse the io.stat lines of @devs[@ndev] in cgroup @i into @out[]. */
static void read_iostat(size_t i, const __u32 *devs, size_t ndev,
			struct iostat *out)
{
	char *text = iostat_text(i), *line, *lsave, *tok, *save;
	unsigned int ma, mi;
	struct iostat *io;
	size_t k;

	if (!text)
		return;
	for (line = strtok_r(text, "\n", &lsave); line;
	     line = strtok_r(NULL, "\n", &lsave)) {
		if (sscanf(line, "%u:%u", &ma, &mi) != 2)
			continue;
		for (k = 0; k < ndev && devs[k] != IOLAT_MKDEV(ma, mi); k++)
			;
		if (k == ndev)
			continue;
		io = &out[k];
		strtok_r(line, " ", &save);
		while ((tok = strtok_r(NULL, " ", &save))) {
			unsigned long long v;
			char key[32];

			if (!strcmp(tok, "depth=max")) {
				io->depth = IOLAT_DEPTH_MAX;
				io->has_depth = true;
				continue;
			}
			if (sscanf(tok, "%31[^=]=%llu", key, &v) != 2)
				continue;
			if (!strcmp(key, "rbytes"))
				io->rbytes = v, io->has_io = true;
			else if (!strcmp(key, "wbytes"))
				io->wbytes = v;
			else if (!strcmp(key, "rios") || !strcmp(key, "wios") ||
				 !strcmp(key, "dios"))
				io->ios += v;
			else if (!strcmp(key, "use_delay"))
				io->use_delay = v;
			else if (!strcmp(key, "depth"))
				io->depth = v, io->has_depth = true;
		}
	}
}

static void close_stat_fds(void)
{
	size_t i;

	for (i = 0; stat_fds && i < cgroups.n; i++)
		if (stat_fds[i] >= 0)
			close(stat_fds[i]);
	free(stat_fds);
	stat_fds = NULL;
}

/*
 * Walk the cgroup tree and read every io.latency, but only when a cgroup
 * came, went or was renamed since the last walk: the BPF side counts
 * those, and the iolatency_target event keeps targets current in between.
 */
static int rescan(struct iolat_top_bpf *obj)
{
	__u64 gen = obj->bss->cgroup_gen;
	char fn[4096], line[256];
	unsigned int ma, mi;
	unsigned long long t;
	size_t i;
	int err;

	if (cgroups.n && gen == cgroups_gen)
		return 0;
	close_stat_fds();
	err = iolat_cgroups_scan(&cgroups);
	if (err) {
		fprintf(stderr, TOOL ": cannot read the cgroup tree at %s: %s\n",
			iolat_cgroup_root(), strerror(-err));
		return err;
	}
	stat_fds = malloc(cgroups.n * sizeof(*stat_fds));
	if (!stat_fds)
		return -ENOMEM;
	for (i = 0; i < cgroups.n; i++)
		stat_fds[i] = -1;
	cgroups_gen = gen;
	targets.n = 0;
	for (i = 1; i < cgroups.n; i++) {	/* the root has no io.latency */
		FILE *f;

		snprintf(fn, sizeof(fn), "%s%s/io.latency", iolat_cgroup_root(),
			 cgroups.v[i].path);
		f = fopen(fn, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%u:%u target=%llu", &ma, &mi, &t) != 3)
				continue;
			if (targets.n == targets.cap) {
				size_t cap = targets.cap ? targets.cap * 2 : 64;
				struct target *v = realloc(targets.v, cap * sizeof(*v));

				if (!v) {
					fclose(f);
					return -ENOMEM;
				}
				targets.v = v;
				targets.cap = cap;
			}
			targets.v[targets.n++] = (struct target){
				IOLAT_MKDEV(ma, mi), i, t };
		}
		fclose(f);
	}
	return 0;
}

static int add_target_rows(void)
{
	size_t i;

	for (i = 0; i < targets.n; i++) {
		const struct iolat_cgroup *c = &cgroups.v[targets.v[i].cgroup];
		struct row *r;

		if (!wanted(targets.v[i].dev, c->path))
			continue;
		r = row_get(targets.v[i].dev, c->id, c->path);
		if (!r)
			return -ENOMEM;
		r->target_us = targets.v[i].us;
	}
	return 0;
}

/*
 * Rows the BPF maps know.  Entries of cgroups that are gone are deleted
 * here: their rows vanish and their slots are free for new groups.
 */
static int add_map_rows(int fd, bool parent)
{
	struct iolat_key key, next, *cur = NULL;
	union {
		struct iolat_group g;
		struct iolat_parent p;
	} val;
	struct iolat_key stale[64];
	int nstale = 0, i;

	while (!bpf_map_get_next_key(fd, cur, &next)) {
		const char *path;
		struct row *r;

		key = next;
		cur = &key;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;
		path = iolat_cgroups_path(&cgroups, key.cgroup_id);
		if (!path || iolat_dev_rotational(key.dev) < 0) {
			if (nstale < 64)
				stale[nstale++] = key;
			continue;
		}
		if (!wanted(key.dev, path))
			continue;
		r = row_get(key.dev, key.cgroup_id, path);
		if (!r)
			return -ENOMEM;
		if (parent) {
			r->p = val.p;
			r->has_parent = true;
		} else {
			r->g = val.g;
			r->has_group = true;
			if (val.g.has_target)	/* newer than the walk */
				r->target_us = val.g.target_ns / 1000;
		}
	}
	for (i = 0; i < nstale; i++)
		bpf_map_delete_elem(fd, &stale[i]);
	return 0;
}

/*
 * Cgroups doing IO on a device some row is about, from their io.stat.  A
 * cgroup's io.stat counts its descendants' IO too (the root's excepted:
 * it shows the whole disk), so a subtree whose top did none is skipped.
 */
static int add_io_rows(void)
{
	struct iostat io[MAX_DEVS];
	__u32 devs[MAX_DEVS];
	size_t i, ndev = 0, k;
	bool *quiet;

	for (i = 0; i < rows.n; i++) {
		for (k = 0; k < ndev && devs[k] != rows.v[i].dev; k++)
			;
		if (k == ndev && ndev < MAX_DEVS)
			devs[ndev++] = rows.v[i].dev;
	}
	if (!ndev)
		return 0;
	quiet = calloc(cgroups.n, sizeof(*quiet));
	if (!quiet)
		return -ENOMEM;
	for (i = 0; i < cgroups.n; i++) {	/* parents before children */
		const struct iolat_cgroup *c = &cgroups.v[i];
		bool any = false;

		memset(io, 0, sizeof(io));
		if (c->parent > 0 && quiet[c->parent])
			;	/* nothing below a quiet cgroup either */
		else if (c->parent >= 0 || row_find_any(c->id))
			read_iostat(i, devs, ndev, io);
		for (k = 0; k < ndev; k++) {
			struct row *r;

			any |= io[k].has_io;
			if (!wanted(devs[k], c->path))
				continue;
			r = io[k].has_io ? row_get(devs[k], c->id, c->path) :
				row_find(devs[k], c->id);
			if (!r) {
				if (io[k].has_io)
					goto nomem;
				continue;
			}
			r->io = io[k];
		}
		quiet[i] = c->parent >= 0 && !any;
	}
	free(quiet);
	return 0;
nomem:
	free(quiet);
	return -ENOMEM;
}

static struct prev *prev_find(__u32 dev, __u64 cgid)
{
	size_t lo = 0, hi = prevs.n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_key(prevs.v[mid].dev, prevs.v[mid].cgid, dev, cgid);

		if (!c)
			return &prevs.v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_row_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return cmp_key(x->dev, x->cgid, y->dev, y->cgid);
}

static double row_lat(const struct row *r)
{
	if (!r->g.has_window)
		return -1;
	if (r->g.ssd)
		return r->g.last_samples ? 100.0 * r->g.last_missed / r->g.last_samples : 0;
	return r->g.last_mean_ns / 1e3;
}

/* row_lat() of the accumulated statistic. */
static double row_acc_lat(const struct row *r)
{
	if (!r->g.has_window)
		return -1;
	if (r->g.ssd)
		return r->g.acc_samples ? 100.0 * r->g.acc_missed / r->g.acc_samples : 0;
	return r->g.acc_mean_ns / 1e3;
}

static const char *const action_names[IOLAT_ACT_NR] = {
	"ok", "hold", "few", "up", "not_owner", "down", "tighter", "offline",
};

/* The last window's verdict: "met", "missed" or "offline". */
static const char *row_verdict(const struct row *r)
{
	if (r->g.last_action == IOLAT_ACT_OFFLINE)
		return "offline";
	return r->g.last_met ? "met" : "missed";
}

/* The path of a parent's culprit, NULL when none or gone. */
static const char *row_culprit(const struct row *r)
{
	return r->p.culprit_id ? iolat_cgroups_path(&cgroups, r->p.culprit_id) : NULL;
}

static double sort_value(const struct row *r)
{
	switch (env.sort) {
	case SORT_LAT: return row_lat(r);
	case SORT_IOPS: return r->iops;
	case SORT_DEPTH: return r->g.depth == IOLAT_DEPTH_MAX ? 1e12 : r->g.depth;
	case SORT_DELAY: return r->charged + r->paid;
	case SORT_WAITS: return r->waits;
	default: return 0;
	}
}

static int cmp_row_view(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double vx, vy;
	int c;

	if (env.sort != SORT_PATH) {
		vx = sort_value(x);
		vy = sort_value(y);
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	if (x->dev != y->dev)
		return strcmp(iolat_dev_name(x->dev), iolat_dev_name(y->dev));
	c = strcmp(x->path, y->path);
	return c;
}

/* Rates, states and the next interval's baseline. */
static int compute(double secs)
{
	struct prev *np;
	size_t i;

	np = calloc(rows.n ?: 1, sizeof(*np));
	if (!np)
		return -ENOMEM;
	qsort(rows.v, rows.n, sizeof(*rows.v), cmp_row_key);
	for (i = 0; i < rows.n; i++) {
		struct row *r = &rows.v[i];
		struct prev *p = prev_find(r->dev, r->cgid);

		np[i] = (struct prev){ r->dev, r->cgid, r->io.rbytes, r->io.wbytes,
				       r->io.ios, r->g.charged_ns, r->g.paid_ns,
				       r->g.throttled };
		if (p && secs > 0) {
			r->iops = (r->io.ios - p->ios) / secs;
			r->rmbps = (r->io.rbytes - p->rbytes) / secs / 1e6;
			r->wmbps = (r->io.wbytes - p->wbytes) / secs / 1e6;
			r->charged = (r->g.charged_ns - p->charged_ns) / 1e6 / secs;
			r->paid = (r->g.paid_ns - p->paid_ns) / 1e6 / secs;
			r->waits = (r->g.throttled - p->throttled) / secs;
		}
	}
	/* A parent's culprit is "throttling" its siblings. */
	for (i = 0; i < rows.n; i++) {
		struct row *par = &rows.v[i];
		size_t j;

		if (!par->has_parent || !par->p.culprit_id || par->p.cookie >= DEFAULT_COOKIE)
			continue;
		for (j = 0; j < rows.n; j++)
			if (rows.v[j].dev == par->dev && rows.v[j].cgid == par->p.culprit_id)
				rows.v[j].culprit = true;
	}
	for (i = 0; i < rows.n; i++) {
		struct row *r = &rows.v[i];

		/* No event since we started: io.stat's debug keys, if any. */
		if (!r->g.has_depth && r->io.has_depth) {
			r->g.depth = r->io.depth;
			r->g.has_depth = 1;
		}
		if (!r->g.has_use_delay && r->io.has_depth) {
			r->g.use_delay = r->io.use_delay;
			r->g.has_use_delay = 1;
		}
		if (r->g.use_delay > 0)
			r->state = "delayed";
		else if (r->g.has_depth && r->g.depth != IOLAT_DEPTH_MAX)
			r->state = "throttled";
		else if (r->culprit)
			r->state = "throttling";
		else
			r->state = "ok";
	}
	free(prevs.v);
	prevs.v = np;
	prevs.n = rows.n;
	return 0;
}

static bool window_idle(const struct row *r, __u64 now_ns)
{
	return r->g.has_window && now_ns - r->g.last_window_ns > 5000000000ULL;
}

static void print_json(struct iolat_top_bpf *obj, double secs, __u64 now_ns)
{
	size_t i, n = rows.n < (size_t)env.rows ? rows.n : (size_t)env.rows;

	printf("{\"time\":%.3f,\"interval_s\":%.3f,\"lost_events\":%llu,\"cgroups\":[",
	       iolat_now(), secs, (unsigned long long)obj->bss->lost);
	for (i = 0; i < n; i++) {
		const struct row *r = &rows.v[i];

		printf("%s{\"device\":", i ? "," : "");
		iolat_json_str(stdout, iolat_dev_name(r->dev));
		printf(",\"rotational\":%s,\"cgroup\":",
		       iolat_dev_rotational(r->dev) == 1 ? "true" : "false");
		iolat_json_str(stdout, r->path);
		printf(",\"cgroup_id\":%llu", (unsigned long long)r->cgid);
		if (r->target_us)
			printf(",\"target_us\":%llu", (unsigned long long)r->target_us);
		else
			printf(",\"target_us\":null");
		if (r->g.has_window) {
			printf(",\"window\":{\"met\":%s,\"win_met\":%s,\"verdict\":\"%s\","
			       "\"samples\":%llu,\"acc_samples\":%llu,\"win_ms\":%llu,"
			       "\"idle\":%s,\"action\":%u,\"action_name\":\"%s\",",
			       r->g.last_met ? "true" : "false",
			       r->g.last_win_met ? "true" : "false", row_verdict(r),
			       (unsigned long long)r->g.last_samples,
			       (unsigned long long)r->g.acc_samples,
			       (unsigned long long)(r->g.win_ns / 1000000),
			       window_idle(r, now_ns) ? "true" : "false", r->g.last_action,
			       r->g.last_action < IOLAT_ACT_NR ?
			       action_names[r->g.last_action] : "?");
			if (r->g.ssd)
				printf("\"stat\":\"missed\",\"missed\":%llu,\"missed_pct\":%.1f,"
				       "\"acc_missed\":%llu,\"acc_missed_pct\":%.1f}",
				       (unsigned long long)r->g.last_missed, row_lat(r),
				       (unsigned long long)r->g.acc_missed, row_acc_lat(r));
			else
				printf("\"stat\":\"mean\",\"mean_us\":%llu,\"acc_mean_us\":%llu}",
				       (unsigned long long)(r->g.last_mean_ns / 1000),
				       (unsigned long long)(r->g.acc_mean_ns / 1000));
			printf(",\"windows\":%llu,\"windows_missed\":%llu",
			       (unsigned long long)r->g.windows,
			       (unsigned long long)r->g.windows_missed);
		} else {
			printf(",\"window\":null");
		}
		printf(",\"iops\":%.1f,\"read_mbps\":%.3f,\"write_mbps\":%.3f",
		       r->iops, r->rmbps, r->wmbps);
		if (!r->g.has_depth)
			printf(",\"depth\":null");
		else if (r->g.depth == IOLAT_DEPTH_MAX)
			printf(",\"depth\":\"max\"");
		else
			printf(",\"depth\":%u", r->g.depth);
		if (r->has_group && r->g.cookie)
			printf(",\"cookie\":%u", r->g.cookie);
		else
			printf(",\"cookie\":null");
		printf(",\"state\":\"%s\",\"use_delay\":%d,\"delay_charged_ms_per_s\":%.3f,"
		       "\"delay_paid_ms_per_s\":%.3f,\"throttled_bios_per_s\":%.1f,"
		       "\"delay_charged_ms\":%.3f,\"delay_paid_ms\":%.3f,\"throttled_bios\":%llu",
		       r->state, r->g.use_delay, r->charged, r->paid, r->waits,
		       r->g.charged_ns / 1e6, r->g.paid_ns / 1e6,
		       (unsigned long long)r->g.throttled);
		if (r->has_group)
			printf(",\"scale_skips\":{\"raced\":%llu,\"protected\":%llu,"
			       "\"few_ios\":%llu}",
			       (unsigned long long)r->g.skips[IOLAT_REASON_RACED],
			       (unsigned long long)r->g.skips[IOLAT_REASON_PROTECTED],
			       (unsigned long long)r->g.skips[IOLAT_REASON_FEW_IOS]);
		if (r->has_parent) {
			const char *culprit = row_culprit(r);

			printf(",\"children\":{\"cookie\":%u,\"culprit\":", r->p.cookie);
			if (culprit)
				iolat_json_str(stdout, culprit);
			else
				printf("null");
			if (r->p.culprit_id)
				printf(",\"culprit_id\":%llu,\"scale_lat_us\":%llu",
				       (unsigned long long)r->p.culprit_id,
				       (unsigned long long)(r->p.scale_lat_ns / 1000));
			else
				printf(",\"culprit_id\":null,\"scale_lat_us\":null");
			printf(",\"scale_downs\":%llu,\"scale_ups\":%llu,\"timer_ups\":%llu,"
			       "\"culprits_forgotten\":%llu,\"resets\":%llu}",
			       (unsigned long long)r->p.scale_downs,
			       (unsigned long long)r->p.scale_ups,
			       (unsigned long long)r->p.timer_ups,
			       (unsigned long long)r->p.grp_clears,
			       (unsigned long long)r->p.resets);
		}
		printf("}");
	}
	printf("]}\n");
}

static const char *path_tail(const char *path, int width)
{
	int len = strlen(path);

	return len > width ? path + len - width : path;
}

static void print_text(struct iolat_top_bpf *obj, double secs, __u64 now_ns)
{
	size_t i, n = rows.n < (size_t)env.rows ? rows.n : (size_t)env.rows;
	char target[16], lat[16], acc[16], depth[16], cookie[16], samp[16];
	char culprit_id[32];

	if (!env.batch)
		printf("\033[H\033[2J");
	printf("%s  " TOOL "  interval %.1fs  %zu rows  lost %llu events\n",
	       iolat_clock(iolat_now()), secs, rows.n, (unsigned long long)obj->bss->lost);
	printf("%-8s %-28s %8s %9s %9s %5s %-7s %7s %7s %5s %8s %-10s %6s %6s %6s\n",
	       "DEVICE", "CGROUP", "TARGET", "WINLAT", "ACCLAT", "SAMP", "VERDICT",
	       "IOPS", "MB/s", "DEPTH", "COOKIE", "STATE", "CHG/s", "PAID/s", "WAIT/s");
	for (i = 0; i < n; i++) {
		const struct row *r = &rows.v[i];

		snprintf(target, sizeof(target), r->target_us ? "%lluus" : "-",
			 (unsigned long long)r->target_us);
		if (!r->g.has_window) {
			snprintf(lat, sizeof(lat), "-");
			snprintf(acc, sizeof(acc), "-");
		} else if (window_idle(r, now_ns)) {
			snprintf(lat, sizeof(lat), "idle");
			snprintf(acc, sizeof(acc), "idle");
		} else if (r->g.ssd) {
			snprintf(lat, sizeof(lat), "%.0f%%miss", row_lat(r));
			snprintf(acc, sizeof(acc), "%.0f%%miss", row_acc_lat(r));
		} else {
			snprintf(lat, sizeof(lat), "%.0fus", row_lat(r));
			snprintf(acc, sizeof(acc), "%.0fus", row_acc_lat(r));
		}
		snprintf(samp, sizeof(samp), r->g.has_window ? "%llu" : "-",
			 (unsigned long long)r->g.last_samples);
		if (!r->g.has_depth)
			snprintf(depth, sizeof(depth), "?");
		else if (r->g.depth == IOLAT_DEPTH_MAX)
			snprintf(depth, sizeof(depth), "max");
		else
			snprintf(depth, sizeof(depth), "%u", r->g.depth);
		snprintf(cookie, sizeof(cookie), r->g.cookie ? "%u" : "-", r->g.cookie);
		printf("%-8s %-28s %8s %9s %9s %5s %-7s %7.0f %7.1f %5s %8s %-10s %6.1f %6.1f %6.0f\n",
		       iolat_dev_name(r->dev), path_tail(r->path, 28), target, lat,
		       acc, samp, r->g.has_window && !window_idle(r, now_ns) ?
		       row_verdict(r) : "-", r->iops, r->rmbps + r->wmbps, depth,
		       cookie, r->state, r->charged, r->paid, r->waits);
		if (r->has_parent && (r->p.cookie < DEFAULT_COOKIE || r->p.culprit_id)) {
			const char *culprit = row_culprit(r);

			/* A culprit gone meanwhile is still named, by its id. */
			snprintf(culprit_id, sizeof(culprit_id), "cgroup id %llu",
				 (unsigned long long)r->p.culprit_id);
			printf("%-8s   `- children's cookie %u (%lld), %s%s, %llu down / %llu up\n",
			       "", r->p.cookie, (long long)r->p.cookie - DEFAULT_COOKIE,
			       r->p.culprit_id ? "scaled for " : "no culprit",
			       !r->p.culprit_id ? "" : culprit ?: culprit_id,
			       (unsigned long long)r->p.scale_downs,
			       (unsigned long long)r->p.scale_ups);
		}
	}
	if (env.batch)
		printf("\n");
}

/* A label value, escaped as the text exposition format wants. */
static void prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

enum prom_kind { PROM_GROUP, PROM_PARENT };

struct prom_metric {
	const char *name, *type, *help;
	enum prom_kind kind;
	/* Sets *v and returns true if row @r has this metric. */
	bool (*get)(const struct row *r, double *v);
};

#define PROM_GETTER(fn, cond, val)					\
	static bool fn(const struct row *r, double *v)			\
	{								\
		if (!(cond))						\
			return false;					\
		*v = (val);						\
		return true;						\
	}

PROM_GETTER(get_target, r->target_us, r->target_us / 1e6)
PROM_GETTER(get_mean, r->g.has_window && !r->g.ssd, r->g.last_mean_ns / 1e9)
PROM_GETTER(get_missed, r->g.has_window && r->g.ssd && r->g.last_samples,
	    (double)r->g.last_missed / r->g.last_samples)
PROM_GETTER(get_samples, r->g.has_window, r->g.last_samples)
PROM_GETTER(get_acc_mean, r->g.has_window && !r->g.ssd, r->g.acc_mean_ns / 1e9)
PROM_GETTER(get_acc_missed, r->g.has_window && r->g.ssd && r->g.acc_samples,
	    (double)r->g.acc_missed / r->g.acc_samples)
PROM_GETTER(get_met, r->g.has_window && r->g.last_action != IOLAT_ACT_OFFLINE,
	    r->g.last_met)
PROM_GETTER(get_depth, r->g.has_depth,
	    r->g.depth == IOLAT_DEPTH_MAX ? INFINITY : r->g.depth)
PROM_GETTER(get_cookie, r->has_group && r->g.cookie, r->g.cookie)
PROM_GETTER(get_use_delay, r->g.has_use_delay, r->g.use_delay)
PROM_GETTER(get_windows, r->has_group, r->g.windows)
PROM_GETTER(get_windows_missed, r->has_group, r->g.windows_missed)
PROM_GETTER(get_throttled, r->has_group, r->g.throttled)
PROM_GETTER(get_charged, r->has_group, r->g.charged_ns / 1e9)
PROM_GETTER(get_paid, r->has_group, r->g.paid_ns / 1e9)
PROM_GETTER(get_children_cookie, r->has_parent, r->p.cookie)
PROM_GETTER(get_scale_downs, r->has_parent, r->p.scale_downs)
PROM_GETTER(get_scale_ups, r->has_parent, r->p.scale_ups)

static const struct prom_metric prom_metrics[] = {
	{ "iolat_target_seconds", "gauge", "io.latency target", PROM_GROUP, get_target },
	{ "iolat_window_latency_seconds", "gauge",
	  "Mean latency of the last window (rotational devices)", PROM_GROUP, get_mean },
	{ "iolat_window_missed_ratio", "gauge",
	  "Share of the last window's bios over target (non-rotational devices)",
	  PROM_GROUP, get_missed },
	{ "iolat_window_samples", "gauge", "Bios in the last window", PROM_GROUP, get_samples },
	{ "iolat_accumulated_latency_seconds", "gauge",
	  "Mean latency of the accumulated statistic the last window was folded into "
	  "(rotational devices)", PROM_GROUP, get_acc_mean },
	{ "iolat_accumulated_missed_ratio", "gauge",
	  "Share of the accumulated statistic's bios over target (non-rotational devices)",
	  PROM_GROUP, get_acc_missed },
	{ "iolat_window_met", "gauge",
	  "The last window's verdict: 1 if the window and the accumulated statistic met the target",
	  PROM_GROUP, get_met },
	{ "iolat_depth", "gauge", "Queue depth io.latency allows the group (+Inf: unlimited)",
	  PROM_GROUP, get_depth },
	{ "iolat_scale_cookie", "gauge", "The parent's scale cookie the group last saw",
	  PROM_GROUP, get_cookie },
	{ "iolat_use_delay", "gauge", "Induced delay level (0: off)", PROM_GROUP, get_use_delay },
	{ "iolat_windows_total", "counter", "Windows checked", PROM_GROUP, get_windows },
	{ "iolat_windows_missed_total", "counter", "Windows that missed the target",
	  PROM_GROUP, get_windows_missed },
	{ "iolat_throttled_bios_total", "counter", "Bios that slept for a depth slot",
	  PROM_GROUP, get_throttled },
	{ "iolat_delay_charged_seconds_total", "counter", "Induced delay charged",
	  PROM_GROUP, get_charged },
	{ "iolat_delay_paid_seconds_total", "counter",
	  "Induced delay slept off on return to user space", PROM_GROUP, get_paid },
	{ "iolat_children_scale_cookie", "gauge", "The scale cookie of the cgroup's children",
	  PROM_PARENT, get_children_cookie },
	{ "iolat_scale_downs_total", "counter", "Scale-downs of the cgroup's children",
	  PROM_PARENT, get_scale_downs },
	{ "iolat_scale_ups_total", "counter", "Scale-ups of the cgroup's children",
	  PROM_PARENT, get_scale_ups },
};

static void print_prom(FILE *f, struct iolat_top_bpf *obj)
{
	size_t m, i;
	double v;

	for (m = 0; m < sizeof(prom_metrics) / sizeof(*prom_metrics); m++) {
		const struct prom_metric *pm = &prom_metrics[m];

		fprintf(f, "# HELP %s %s.\n# TYPE %s %s\n", pm->name, pm->help,
			pm->name, pm->type);
		for (i = 0; i < rows.n; i++) {
			const struct row *r = &rows.v[i];

			if (!pm->get(r, &v))
				continue;
			fprintf(f, "%s{device=\"", pm->name);
			prom_label(f, iolat_dev_name(r->dev));
			fputs("\",cgroup=\"", f);
			prom_label(f, r->path);
			if (isinf(v))
				fputs("\"} +Inf\n", f);
			else
				fprintf(f, "\"} %.17g\n", v);
		}
	}
	fprintf(f, "# HELP iolat_lost_events_total Events the BPF side could not record.\n"
		"# TYPE iolat_lost_events_total counter\niolat_lost_events_total %llu\n",
		(unsigned long long)obj->bss->lost);
}

/*
 * Replace env.prom: write a temporary file beside it and rename it over,
 * so node_exporter's textfile collector (which reads *.prom only) never
 * sees a half-written file.
 */
static int write_prom(struct iolat_top_bpf *obj)
{
	char tmp[PATH_MAX];
	struct stat st;
	FILE *f;
	int err = 0;

	if (!stat(env.prom, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, TOOL ": -P %s is a directory; name a file in it\n",
			env.prom);
		return -EISDIR;
	}
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", env.prom, getpid());
	f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		fprintf(stderr, TOOL ": cannot write %s (creating %s beside it: %s)\n",
			env.prom, tmp, strerror(errno));
		return err;
	}
	if (obj)
		print_prom(f, obj);
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && obj && rename(tmp, env.prom))
		err = -errno;
	if (err || !obj)
		unlink(tmp);
	if (err)
		fprintf(stderr, TOOL ": cannot write %s: %s\n", env.prom, strerror(-err));
	return err;
}

static int refresh(struct iolat_top_bpf *obj, bool report)
{
	double now = iolat_mono(), secs = now - last_mono;
	int err;

	rows.n = 0;
	iolat_dev_cache_reset();
	err = rescan(obj);
	if (!err)
		err = add_target_rows();
	if (!err)
		err = add_map_rows(bpf_map__fd(obj->maps.groups), false);
	if (!err)
		err = add_map_rows(bpf_map__fd(obj->maps.parents), true);
	if (!err)
		err = add_io_rows();
	if (!err)
		err = compute(secs);
	if (err)
		return err;
	last_mono = now;
	if (!report)
		return 0;
	qsort(rows.v, rows.n, sizeof(*rows.v), cmp_row_view);
	if (env.prom) {
		err = write_prom(obj);
		if (err)
			return err;
	}
	if (env.quiet)
		return 0;
	if (env.json)
		print_json(obj, secs, (__u64)(now * 1e9));
	else
		print_text(obj, secs, (__u64)(now * 1e9));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct iolat_top_bpf *obj;
	long done = 0;
	int err;

	argp_err_exit_status = IOLAT_EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return parse_status ?: IOLAT_EXIT_USAGE;
	if (env.dev_arg) {
		err = iolat_parse_dev(TOOL, env.dev_arg, &env.dev);
		if (err)
			return err;
	}
	if (!isatty(STDOUT_FILENO))
		env.batch = true;
	if (env.quiet && !env.prom) {
		fprintf(stderr, TOOL ": -q without -P would show nothing\n");
		return IOLAT_EXIT_USAGE;
	}
	/* A directory we cannot write to is an error now, not after loading. */
	if (env.prom && write_prom(NULL))
		return IOLAT_EXIT_USAGE;
	err = iolat_preflight(TOOL);
	if (err)
		return err;
	libbpf_set_print(iolat_libbpf_print);

	obj = iolat_top_bpf__open();
	if (!obj) {
		fprintf(stderr, TOOL ": failed to open BPF object: %s\n", strerror(errno));
		return IOLAT_EXIT_ERROR;
	}
	obj->rodata->targ_dev = env.dev;
	err = iolat_load_attach(TOOL, obj->skeleton);
	if (err)
		goto cleanup;

	iolat_handle_signals();
	last_mono = iolat_mono();
	err = refresh(obj, false);	/* the io.stat baseline */
	while (!err && !iolat_exiting) {
		double until = last_mono + env.interval;

		/* A signal ends the sleep early (no SA_RESTART for sleeps). */
		while (!iolat_exiting && iolat_mono() < until)
			usleep((until - iolat_mono()) * 1e6 + 1);
		if (iolat_exiting)
			break;
		err = refresh(obj, true);
		if (env.count && ++done >= env.count)
			break;
	}
	err = err ? IOLAT_EXIT_ERROR : IOLAT_EXIT_OK;

cleanup:
	iolat_top_bpf__destroy(obj);
	close_stat_fds();
	iolat_cgroups_free(&cgroups);
	free(targets.v);
	free(rows.v);
	free(prevs.v);
	return err;
}
