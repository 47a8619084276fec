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
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-common.h"
#include "iolat-cgroup.h"
#include "iolat-fallback.h"
#include "iolat-iostat.h"
#include "iolat-state.h"
#include "iolat-top-model.h"
#include "iolat-top-output.h"
#include "iolat-top.skel.h"

#define TOOL IOLAT_TOP

static struct env {
	__u32 dev;
	const char *dev_arg;
	regex_t cgroup_re;
	bool cgroup_filter;
	enum top_sort sort;
	int rows;
	bool batch;
	bool json;
	double interval;
	long count;
	const char *prom;	/* -P: the textfile to keep current */
	bool quiet;
	bool no_events;		/* --no-events: the fallback, forced */
	bool no_functions;	/* --no-functions: the fallback without its BPF */
	bool iostat_files;	/* --iostat-files: no cgroup iterator */
	bool no_state;		/* --no-state: io.stat mode without the state reader */
	int sample_ms;		/* --sample-ms: the state's period between refreshes */
} env = { .interval = 1, .rows = 1000, .sort = TOP_SORT_DEFAULT,
	  .sample_ms = IOLAT_STATE_SAMPLE_MS };

const char *argp_program_version = TOOL " 0.1";
const char *argp_program_bug_address = "the iolat issue tracker";
static const char doc[] =
"Show io.latency's view of each cgroup and device, live.\n"
"\n"
"USAGE: " TOOL " [-d DEV] [-c REGEX] [-s KEY] [-r ROWS] [-b] [-j] [--no-events] [--no-functions] [--no-state] [--sample-ms MS] [--iostat-files] [interval] [count]\n"
"\n"
"One row per (device, cgroup) that has an io.latency target, that the\n"
"controller throttled, or that does IO on a device where io.latency is in\n"
"use.  By default (-s state) what needs a look comes first: groups\n"
"missing their target (or named culprit), then throttled (depth limited\n"
"now or during the interval), delayed, with bios waiting for a slot; then\n"
"the others by IOPS in orders of magnitude (a row changes its order of\n"
"magnitude only past a factor of 2: jitter moves no row), the idle last;\n"
"ties by path.  A culprit follows the parent whose line names it, and -r\n"
"or the terminal never show the one without the other.  -s path: the\n"
"cgroup tree, siblings together.  On a terminal the rows that fit its\n"
"height are shown (at most -r), each line cut at its width; into a pipe\n"
"or a file, every row (at most -r) and whole lines.  Units are in the\n"
"columns' names where every cell had them:\n"
"  TARGETus the io.latency target, us\n"
"  WINLAT   the last window: mean latency (rotational) or the share of bios\n"
"           over target (non-rotational; 10% or more misses); idle when no\n"
"           window ended for 5 s\n"
"  ACCLAT   the same of the accumulated statistic the window was folded\n"
"           into (kept over windows that did not scale)\n"
"  SAMP     bios in that window\n"
"  VERDICT  what the controller acted on: met (window and accumulated\n"
"           statistic met the target), missed, or offline (the group lost\n"
"           its target meanwhile)\n"
"  ACTION   what followed the last window that ended in the interval\n"
"  IOPS MB/s from io.stat over the interval\n"
"  DEPTH    the queue depth io.latency allows the group (max: unlimited)\n"
"  MINDEP   the lowest depth during the interval, from every depth change\n"
"  LIMIT%   the share of the interval spent with depth below max, %\n"
"  COOKIE   the parent's scale cookie the group last saw (1000000: relaxed)\n"
"  STATE    ok, throttling (its misses scale its siblings down), throttled\n"
"           (depth limited), delayed (induced delay on), unknown (no event\n"
"           since " TOOL " started, and io.stat without blkcg_debug_stats),\n"
"           unthrottled (io.stat mode without the state: depth max, no delay)\n"
"  CHG/s PAID/s  induced delay charged and slept off, ms per second\n"
"  WAIT/s   bios per second that slept for a depth slot\n"
"  WAITus   their mean wait over the interval\n"
"  MISSED   windows that missed of those that ended in the interval\n"
"  PSI      the cgroup's io.pressure avg10, some/full in % (? without PSI),\n"
"           read for the rows shown (with -P, for every row), at most\n"
"           every 1.5 s (the kernel updates it every 2 s)\n"
"A parent's row shows its children's cookie and the culprit scaling them\n"
"(the child cgroup, found by its id).\n"
"\n"
"IO.STAT: the counters of every cgroup come from one walk of a BPF cgroup\n"
"iterator a refresh, a few system calls whatever the number of cgroups;\n"
"the root's from its io.stat file, and the blkcg_debug_stats keys from\n"
"the io.stat files of the rows that need them.  Where the iterator cannot\n"
"be loaded (stderr says why), or with --iostat-files, each cgroup's\n"
"io.stat file is read, three system calls a cgroup a refresh.\n"
"\n"
"WITHOUT THE EVENTS (a kernel without the series, no BTF, or --no-events):\n"
"io.stat mode, said in the header and JSON's mode.  Rows from io.latency\n"
"targets and io.stat, with IOPS, MB/s and PSI; with blkcg_debug_stats=1\n"
"(echo 1 > /sys/module/blk_cgroup/parameters/blkcg_debug_stats) also\n"
"DEPTH, STATE, use_delay, and in WINLAT io.stat's avg_lat (rotational) or\n"
"the window in progress's missed/total (non-rotational; SAMP: total).\n"
"CHG/s and PAID/s come from BPF on the controller's functions where the\n"
"kernel does not inline them: blkcg_add_delay (delay charged) and\n"
"blkcg_maybe_throttle_current (delay slept, by the sleeping task's io\n"
"cgroup); the header, stderr and JSON's functions say which were attached\n"
"and why not the others.  Where the kernel has BTF and lists its data\n"
"symbols in /proc/kallsyms, io.latency's own state is read through BTF,\n"
"a walk each refresh (\"+ state\" in the header, JSON's state_reader;\n"
"stderr says why not, and --no-state turns it off): DEPTH, STATE (ok and\n"
"throttling too), use_delay and the pending delay without\n"
"blkcg_debug_stats, COOKIE, ACCLAT (the accumulated statistic), WINLAT's\n"
"running average on rotational queues, and a parent's children's cookie\n"
"and culprit, as sampled at the refresh; and every 100 ms between\n"
"(--sample-ms; less often where a walk would take over 1% of that),\n"
"MINDEP and LIMIT% over the interval's samples (JSON: the sample's\n"
"interval), where a depth held for less than a period may not show.  The\n"
"rest only the events tell (what a sample cannot: windows, scalings,\n"
"waits): ? in text, null in JSON, absent with -P.\n"
"\n"
"EXIT STATUS: 0 ok (a reader of stdout that went away included), 1\n"
"run-time error (stdout cannot be written, or the last write of -P FILE\n"
"failed, included), 2 bad arguments (a -P FILE that cannot be written at\n"
"the start included), 3 not root, or neither the iolatency events nor\n"
"any io.latency file (no controller) to fall back on.\n"
"\n"
"EXAMPLES:\n"
"    " TOOL "                # refresh every second until Ctrl-C\n"
"    " TOOL " 5 10           # 10 reports, 5 seconds apart\n"
"    " TOOL " -d nullb0      # one device\n"
"    " TOOL " -c '^/work/'   # cgroups whose path matches\n"
"    " TOOL " -s delay       # busiest delay first, flat\n"
"    " TOOL " -s path        # the cgroup tree\n"
"    " TOOL " -b 1 60 >log   # plain text, no screen control\n"
"    " TOOL " -j 1 5 | jq .  # one JSON object per interval\n"
"    " TOOL " --no-events -j 1 5  # what a kernel without the series shows\n"
"    " TOOL " -qP /var/lib/prometheus/node-exporter/iolat.prom 15\n"
"                            # metrics for node_exporter's textfile collector\n"
"\n"
"PROMETHEUS: with -P FILE, every interval replaces FILE with iolat_*\n"
"metrics per device and cgroup: target, window latency or miss ratio, the\n"
"same of the accumulated statistic, the verdict (1 met), depth (+Inf:\n"
"unlimited) and the interval's lowest, time spent limited,\n"
"scale cookie, use_delay, and counters since " TOOL " started:\n"
"windows, missed windows, scale-ups and downs (on the parent), throttled\n"
"bios and their wait, induced delay charged and paid in seconds, lost\n"
"events, and apart the events a full BPF map dropped and the rows it\n"
"misses for it; per cgroup its PSI avg10 as ratios; and first what the\n"
"figures rest on: iolat_mode_info{mode,reason}, iolat_debug_stats_enabled\n"
"and, in the io.stat mode, iolat_function_attached{function}.  FILE is\n"
"written beside it (as .FILE.XXXXXX, mode 0644) and renamed, so a reader\n"
"never sees half of one.  A write that fails (a full disk) leaves FILE as it\n"
"was and is tried again the next interval: stderr says so once, and when\n"
"a write works again.\n";

#define OPT_NO_EVENTS 256
#define OPT_NO_FUNCTIONS 257
#define OPT_IOSTAT_FILES 258
#define OPT_NO_STATE 259
#define OPT_SAMPLE_MS 260

static const struct argp_option opts[] = {
	{ "device", 'd', "DEV", 0, "Only this disk (nullb0, /dev/nullb0 or MAJ:MIN); a partition is refused (exit 2): io.latency works on whole disks", 0 },
	{ "cgroup", 'c', "REGEX", 0, "Only cgroups whose path matches REGEX (POSIX extended)", 0 },
	{ "sort", 's', "KEY", 0, "Order by state (the default: missing, throttled, delayed and waiting first, then by IO, idle last), path (the cgroup tree), or flat by lat, iops, depth, delay or waits", 0 },
	{ "rows", 'r', "ROWS", 0, "At most ROWS rows (default 1000); the header, or -j's rows_total and rows_shown, say how many there were", 0 },
	{ "batch", 'b', NULL, 0, "No screen control (the default when stdout is not a terminal)", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per interval", 0 },
	{ "prometheus", 'P', "FILE", 0, "Also write Prometheus metrics to FILE each interval", 0 },
	{ "quiet", 'q', NULL, 0, "No report on stdout (with -P)", 0 },
	{ "no-events", OPT_NO_EVENTS, NULL, 0, "Do without the iolatency events even if the kernel has them: the io.stat mode a kernel without the series gets (to compare the two)", 0 },
	{ "no-functions", OPT_NO_FUNCTIONS, NULL, 0, "In the io.stat mode, trace none of the controller's functions: as on a kernel that inlines them (no BPF loaded)", 0 },
	{ "iostat-files", OPT_IOSTAT_FILES, NULL, 0, "Read each cgroup's io.stat file, not the cgroup iterator's one walk (to compare the two; as where it cannot be loaded)", 0 },
	{ "no-state", OPT_NO_STATE, NULL, 0, "In the io.stat mode, do not read io.latency's own state through BTF: depth and use_delay from io.stat's debug keys alone, cookies and culprits unknown (to compare the two; as where it cannot be read)", 0 },
	{ "sample-ms", OPT_SAMPLE_MS, "MS", 0, "In the io.stat mode with the state, sample it every MS milliseconds at most between refreshes, for MINDEP and LIMIT% (10-10000, default 100; longer where a walk would take over 1% of it)", 0 },
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
		for (i = 0; i < TOP_SORT_NR; i++)
			if (!strcmp(arg, top_sort_names[i]))
				break;
		if (i == TOP_SORT_NR) {
			fprintf(stderr, TOOL ": invalid sort key '%s': want state, path, "
				"lat, iops, depth, delay or waits\n", arg);
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
	case OPT_NO_EVENTS:
		env.no_events = true;
		break;
	case OPT_NO_FUNCTIONS:
		env.no_functions = true;
		break;
	case OPT_IOSTAT_FILES:
		env.iostat_files = true;
		break;
	case OPT_NO_STATE:
		env.no_state = true;
		break;
	case OPT_SAMPLE_MS:
		env.sample_ms = iolat_state_parse_ms(TOOL, arg);
		if (env.sample_ms < 0) {
			parse_status = IOLAT_EXIT_USAGE;
			return EINVAL;
		}
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

static struct top_model model;
static struct iolat_cgroups cgroups;
/* io.latency targets as read at the walk and of cgroups added since. */
static struct iolat_targets targets;
static __u64 changes_lost;	/* the BPF side's, at the last walk */
static double last_mono;
static struct top_prom prom;	/* -P */

/* The BPF maps, read whole each interval (iolat-map.h). */
static struct iolat_map groups_map, parents_map, changes_map;
/* The fallback's, in the io.stat mode with a function attached. */
static struct iolat_map delays_map;

/*
 * Keep the cgroup tree current without walking it: apply the cgroups the
 * BPF side saw created and removed (cgroup2 only; iolat_cgroups_follow(),
 * which iolat-snoop's names use too), by id (a new one
 * below its parent, by its name: iolat-cgroup.h says why), and read the
 * targets of the new ones (iolatency_target keeps targets current after
 * that).  The whole tree is walked at the start, when the BPF map of
 * changes overflowed, when a created cgroup never showed up below its
 * parent, and when many removed ones wait to be tidied away; never for a
 * cgroup outside our view (outside our cgroup namespace).
 */
static int rescan(struct iolat_top_bpf *obj)
{
	size_t i, first = cgroups.n;	/* pending ones added: new too */
	int err;

	if (!obj) {
		/*
		 * No events to follow the tree by: walk it, read every target.
		 * The tick ages the ids the fallback's map has and the walk
		 * did not find, whose entries go after a few intervals.
		 */
		err = iolat_cgroups_tick(&cgroups);
		if (err >= 0)
			err = iolat_cgroups_scan(&cgroups);
		if (err) {
			fprintf(stderr, TOOL ": cannot read the cgroup tree at %s: %s\n",
				iolat_cgroup_root(), strerror(-err));
			return err;
		}
		return iolat_targets_read(&cgroups, &targets);
	}
	err = iolat_cgroups_follow(&cgroups, &changes_map, obj->bss->changes_lost,
				   &changes_lost, true);
	if (err == 1) {
		err = iolat_targets_read(&cgroups, &targets);
		first = cgroups.n;
	}
	for (i = first; !err && i < cgroups.n; i++)
		err = iolat_targets_read_one(&cgroups, i, &targets);
	return err < 0 ? err : 0;
}

/*
 * Forget the targets on disks that are gone: a removed disk takes its
 * blkgs, and with them its io.latency lines, but no event says so, and a
 * target kept would be a row of a disk that is not there, and of the
 * next disk given its number.  A disk that cannot be checked (out of
 * descriptors) keeps its targets.
 */
static void targets_drop_gone(void)
{
	size_t i, k = 0;

	for (i = 0; i < targets.n; i++)
		if (iolat_dev_check(targets.v[i].dev) != 0)
			targets.v[k++] = targets.v[i];
	targets.n = k;
}

/* The fallback's BPF side, in the io.stat mode when a function is attached. */
static struct iolat_fallback_bpf *fb;

/* The entries the maps of (device, cgroup) pairs were sized for at the start. */
static __u32 map_entries;

/* The devices with io.latency targets (with -d, that one's alone). */
static size_t target_devs(const struct iolat_targets *t)
{
	__u32 seen[64];
	size_t i, k, n = 0, more = 0;

	for (i = 0; i < t->n; i++) {
		if (env.dev && t->v[i].dev != env.dev)
			continue;
		for (k = 0; k < n && seen[k] != t->v[i].dev; k++)
			;
		if (k < n)
			continue;
		if (n < sizeof(seen) / sizeof(*seen))
			seen[n++] = t->v[i].dev;
		else
			more++;	/* past 64 devices: counted, perhaps twice */
	}
	return n + more;
}

/*
 * The maps' size, from the tree the walk found and the devices with
 * targets (top_map_entries()): fixed at load, so said on stderr when it
 * is not the least, and when the tree outgrows it (once).
 */
static __u32 size_maps(void)
{
	size_t devs = target_devs(&targets);
	__u32 n = top_map_entries(cgroups.n, devs);

	if (n > IOLAT_MAX_GROUPS)
		fprintf(stderr, TOOL ": BPF maps of %u (device, cgroup) pairs for %zu cgroups "
			"on %zu device%s with targets\n", n, cgroups.n, devs, devs == 1 ? "" : "s");
	return n;
}

static void check_maps_fit(void)
{
	static bool told;
	size_t devs;

	if (told || !map_entries)
		return;
	devs = target_devs(&targets) ?: 1;
	if (cgroups.n <= map_entries / devs)
		return;
	told = true;
	fprintf(stderr, TOOL ": %zu cgroups on %zu device%s with targets: more (device, "
		"cgroup) pairs than the %u the BPF maps were sized for at the start, which "
		"cannot grow; the rows a full map drops are said in the report (rows "
		"missing); restart " TOOL " to size them again\n", cgroups.n, devs,
		devs == 1 ? "" : "s", map_entries);
}

/* io.stat's counters in one walk a refresh (NULL: the files), its last. */
static struct iolat_iostat_iter *iostat_iter;
static struct iolat_iostat_set iostat_set;

/*
 * This refresh's walk for the model, or NULL to read the files: a walk
 * that fails (too many blkgs with IO for its array, say) leaves this
 * refresh to the files, and is said the first time.
 */
static const struct iolat_iostat_set *iostat_walk(void)
{
	static bool told;
	int err;

	if (!iostat_iter)
		return NULL;
	err = iolat_iostat_iter_run(iostat_iter, &cgroups, &iostat_set);
	if (!err)
		return &iostat_set;
	if (!told)
		fprintf(stderr, TOOL ": the cgroup iterator's walk failed (%s): io.stat "
			"files read instead, this time and whenever it fails again\n",
			err == -EOVERFLOW ? "more blkgs with IO than its array holds" :
			err == -ERANGE ? "a struct blkcg_gq laid out past what its one read "
			"of a blkg covers, BLKG_VIEW_SPAN in bpf/iolat.bpf.h" :
			strerror(-err));
	told = true;
	return NULL;
}

/*
 * The cgroup iterator for io.stat's counters, unless --iostat-files;
 * where it cannot be loaded, said once: the files are read.
 */
static void start_iostat(void)
{
	char why[256];

	if (env.iostat_files)
		return;
	iostat_iter = iolat_iostat_iter_start(env.dev, why, sizeof(why));
	if (!iostat_iter)
		fprintf(stderr, TOOL ": io.stat read file by file, three system calls a "
			"cgroup a refresh: the cgroup iterator: %s\n", why);
	else if (iolat_iostat_iter_marking(iostat_iter))
		fprintf(stderr, TOOL ": every refresh walks every cgroup for io.stat, "
			"not only those with IO: %s\n", iolat_iostat_iter_marking(iostat_iter));
}

/*
 * io.latency's own state in the io.stat mode (NULL: not read, and
 * model.state_why says why), and the buffer its samples go to.
 */
static struct iolat_state_reader *state_reader;
static struct iolat_state *state_buf;

/*
 * The state reader, unless --no-state; where it cannot run (no BTF, no
 * data symbols in kallsyms, io.latency not registered...), why goes to
 * model.state_why, which choose_mode() says, and the rows rest on
 * io.stat alone, as before it.
 */
static void start_state(void)
{
	static char why[512];

	state_reader = iolat_state_start(env.no_state, env.dev, &state_buf, why, sizeof(why));
	if (!state_reader)
		model.state_why = why;
	model.sample_ms = env.sample_ms;
}

static double state_next;	/* the next sample's time, between refreshes */

/*
 * This refresh's sample of the state, into the model: a walk that fails
 * leaves this refresh to io.stat, and is said the first time; a walk
 * that left groups out, too (their rows show io.stat's figures, and a
 * parent's culprit among them is unknown).  0 or -ENOMEM.
 */
static int state_sample(void)
{
	static char why[128];
	static bool told, told_dropped;
	struct iolat_state_walk walk;
	int err;

	if (!state_reader)
		return 0;
	err = iolat_state_sample_paced(state_reader, state_buf, IOLAT_STATE_MAX, &walk,
				       env.sample_ms, &state_next);
	if (err) {
		snprintf(why, sizeof(why), "its walk failed: %s", strerror(-err));
		model.state_why = why;
		if (!told)
			fprintf(stderr, TOOL ": io.latency's state not read (%s): io.stat's "
				"figures instead, this time and whenever it fails again\n", why);
		told = true;
		return 0;
	}
	if (walk.dropped && !told_dropped) {
		told_dropped = true;
		fprintf(stderr, TOOL ": the walk of io.latency's state left %zu groups out "
			"(more than it holds, or gone during it): their rows show io.stat's "
			"figures, and a parent's culprit among them is unknown; said once\n",
			walk.dropped);
	}
	return top_model_add_state(&model, state_buf, walk.count);
}

/*
 * A sample between two refreshes, for the interval's lowest depth and
 * share limited.  Into the refresh's buffer: the report made from it is
 * out by now, and the next refresh walks again.  A walk that fails, or
 * leaves groups out, is one sample fewer; the refresh's own walk says
 * so.  0 or -ENOMEM.
 */
static int state_sample_between(void)
{
	struct iolat_state_walk walk;
	int err;

	err = iolat_state_sample_paced(state_reader, state_buf, IOLAT_STATE_MAX, &walk,
				       env.sample_ms, &state_next);
	return err ? 0 : top_model_add_between(&model, state_buf, walk.count);
}

/*
 * The terminal's size, for a text view with screen control: read at the
 * start and at the refresh after a SIGWINCH (its handler only sets the
 * flag).  0 lines: not a terminal, or no size known (then no limit).
 */
static volatile sig_atomic_t winch = 1;
static struct winsize term;

static void on_winch(int sig)
{
	winch = 1;
}

static void term_size(void)
{
	if (!winch)
		return;
	winch = 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &term))
		memset(&term, 0, sizeof(term));
}

static int refresh(struct iolat_top_bpf *obj, bool report)
{
	double now = iolat_mono(), secs = now - last_mono;
	struct top_report rep = {
		.m = &model, .secs = secs, .now_ns = (__u64)(now * 1e9),
		.rows = env.rows, .batch = env.batch,
	};
	size_t shown;
	int err;

	iolat_dev_cache_reset();
	err = rescan(obj);
	if (!err) {
		targets_drop_gone();
		check_maps_fit();
	}
	if (obj) {
		/* Depth events from now on are the next interval's. */
		model.epoch = obj->bss->depth_epoch;
		obj->bss->depth_epoch = model.epoch + 1;
	}
	top_model_begin(&model, &cgroups);
	if (!err)
		err = top_model_add_targets(&model, &targets);
	if (!err)
		iolat_targets_tell_bio_based(TOOL, &targets);
	if (!err)
		err = state_sample();
	/* Entries of cgroups and devices that are gone are deleted. */
	if (!err && obj)
		err = top_model_add_map(&model, &groups_map, TOP_MAP_GROUPS, &cgroups);
	if (!err && obj)
		err = top_model_add_map(&model, &parents_map, TOP_MAP_PARENTS, &cgroups);
	if (!err && fb)
		err = top_model_add_map(&model, &delays_map, TOP_MAP_DELAYS, &cgroups);
	/* What a full map dropped: missing rows, not lost events. */
	if (obj) {
		model.maps[TOP_MAP_GROUPS].full = obj->bss->groups_full;
		model.maps[TOP_MAP_PARENTS].full = obj->bss->parents_full;
	}
	if (fb)
		model.maps[TOP_MAP_DELAYS].full = iolat_fallback_delays_full(fb);
	model.now_ns = (__u64)(iolat_mono() * 1e9);	/* the maps as read */
	if (!err) {
		model.iostat = iostat_walk();
		/* Each refresh: it can be switched on or off while we run. */
		model.debug_stats = iolat_debug_stats();
		model.iostat_debug = model.iostat && model.debug_stats != 0;
		err = top_model_add_io(&model);
	}
	if (!err)
		err = top_model_compute(&model, secs);
	if (err)
		return err;
	last_mono = now;
	if (!report)
		return 0;
	/* What the report shows: its rows (-r, the terminal); -P, every row's PSI. */
	shown = model.n < (size_t)env.rows ? model.n : (size_t)env.rows;
	if (!env.batch && !env.json) {
		term_size();
		rep.lines = term.ws_row;
		rep.cols = term.ws_col;
		/* No room at all: one row sorted, none shown (0 would sort all). */
		if (shown > top_text_room(&model, rep.lines))
			shown = top_text_room(&model, rep.lines) ?: 1;
	}
	/* Those in order (-P's metrics need none: with -q, no sort). */
	if (!env.quiet)
		top_model_sort_first(&model, env.sort, shown);
	top_model_add_pressure(&model, env.prom ? model.n : shown);
	if (env.json && !env.quiet)
		top_model_add_iostat_debug(&model, shown);
	rep.lost = obj ? obj->bss->lost.total : fb ? iolat_fallback_lost(fb)->total : 0;
	if (env.prom) {
		rep.time = iolat_now();
		top_prom_write(&prom, &rep);	/* a failure is retried, not fatal */
	}
	if (env.quiet)
		return 0;
	rep.time = iolat_now();
	if (env.json)
		top_print_json(stdout, &rep);
	else
		top_print_text(stdout, &rep);
	return iolat_flush(TOOL, stdout);
}

/*
 * The events when the kernel has them (and --no-events was not given),
 * else the io.stat mode - as long as there is an io.latency to look at.
 * Says which, and why, on stderr; returns an exit status.
 */
static int choose_mode(void)
{
	static char why[640];
	int err;

	model.debug_stats = iolat_debug_stats();
	model.cgroupns = iolat_cgroupns();
	if (env.no_events) {
		snprintf(why, sizeof(why), "--no-events");
	} else if (!iolat_events_available(why, sizeof(why))) {
		model.mode = TOP_MODE_EVENTS;
		model.mode_reason = "";
		return IOLAT_EXIT_OK;
	}
	model.mode = TOP_MODE_IOSTAT;
	model.mode_reason = why;
	err = iolat_cgroups_scan(&cgroups);
	if (err) {
		fprintf(stderr, TOOL ": cannot read the cgroup tree at %s: %s\n",
			iolat_cgroup_root(), strerror(-err));
		return IOLAT_EXIT_ERROR;
	}
	if (!iolat_cgroups_have_latency(&cgroups)) {
		fprintf(stderr, TOOL ": %s (for the events: the series in patches/), "
			"and no cgroup has io.latency to fall back on: the kernel lacks "
			"CONFIG_BLK_CGROUP_IOLATENCY, or no cgroup has the io controller "
			"(echo +io > %s/cgroup.subtree_control)\n", why, iolat_cgroup_root());
		return IOLAT_EXIT_UNSUPPORTED;
	}
	start_state();
	fprintf(stderr, TOOL ": %s: io.stat mode, without the events; "
		"blkcg_debug_stats %s%s\n", why,
		model.debug_stats == 1 ? "on" : model.debug_stats ? "unknown" : "off",
		model.debug_stats == 1 ? "" : state_reader ? " (io.stat's window in "
		"progress unknown; echo 1 > " IOLAT_DEBUG_STATS_PARAM ")" :
		" (depth, use_delay and io.stat's latency unknown; echo 1 > "
		IOLAT_DEBUG_STATS_PARAM ")");
	if (state_reader)
		fprintf(stderr, TOOL ": io.latency's state: read through the kernel's BTF, a "
			"sample each refresh (depth, use_delay, cookies, culprits) and every "
			"%d ms at most between (MINDEP, LIMIT%%)\n", env.sample_ms);
	else
		fprintf(stderr, TOOL ": io.latency's state: not read (depth and use_delay only "
			"from io.stat's debug keys, cookies and culprits unknown): %s\n",
			model.state_why);
	return IOLAT_EXIT_OK;
}

/*
 * The io.stat mode's BPF side: the controller's functions the kernel lets
 * be traced, attached; said on stderr either way, as in the header and
 * JSON.  Without any, the mode goes on without BPF.
 */
static void start_functions(void)
{
	char text[512];
	int err;

	if (iolat_fns_probe(&model.fns, env.no_functions)) {
		/* The tree choose_mode() walked; its targets, for the map's size. */
		err = iolat_targets_read(&cgroups, &targets);
		if (err)
			fprintf(stderr, TOOL ": cannot read the io.latency targets: %s\n",
				strerror(-err));
		fb = iolat_fallback_start(TOOL, &model.fns, env.dev, false, false,
					  size_maps());
	}
	if (fb) {
		map_entries = iolat_fallback_delays_entries(fb);
		iolat_map_init_bpf(&delays_map, TOOL, "delays", iolat_fallback_delays_fd(fb),
				   sizeof(struct iolat_key), sizeof(struct iolat_delay),
				   map_entries);
	}
	fprintf(stderr, TOOL ": functions: %s%s\n",
		iolat_fns_text(&model.fns, text, sizeof(text)),
		iolat_fns_attached(&model.fns) ? "" :
		" (no BPF loaded: CHG/s and PAID/s unknown)");
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct iolat_top_bpf *obj = NULL;
	double tick;
	long done = 0;
	int err;

	iolat_check_stdout_at_exit(TOOL);
	iolat_raise_nofile();	/* io.stat, sysfs: one descriptor at a time */
	argp_err_exit_status = IOLAT_EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return parse_status ?: IOLAT_EXIT_USAGE;
	if (env.dev_arg) {
		err = iolat_parse_dev(TOOL, env.dev_arg, &env.dev);
		if (err)
			return err;
	}
	model.dev = env.dev;
	model.re = env.cgroup_filter ? &env.cgroup_re : NULL;
	if (!isatty(STDOUT_FILENO))
		env.batch = true;
	if (env.quiet && !env.prom) {
		fprintf(stderr, TOOL ": -q without -P would show nothing\n");
		return IOLAT_EXIT_USAGE;
	}
	/* A directory we cannot write to is an error now, not after loading. */
	if (env.prom && top_prom_check(env.prom))
		return IOLAT_EXIT_USAGE;
	prom.file = env.prom;
	err = iolat_preflight_root(TOOL);
	if (err)
		return err;
	err = choose_mode();
	if (err)
		return err;
	libbpf_set_print(iolat_libbpf_print);
	model.start_ns = (__u64)(iolat_mono() * 1e9);

	if (model.mode == TOP_MODE_EVENTS) {
		obj = iolat_top_bpf__open();
		if (!obj) {
			fprintf(stderr, TOOL ": failed to open BPF object: %s\n",
				strerror(errno));
			return IOLAT_EXIT_ERROR;
		}
		obj->rodata->targ_dev = env.dev;
		obj->rodata->start_ns = model.start_ns;
		/*
		 * The maps cannot grow once loaded: sized from a walk of the
		 * tree now.  The first refresh walks it again, for the
		 * cgroups made before the events were followed.
		 */
		err = iolat_cgroups_scan(&cgroups);
		if (!err)
			err = iolat_targets_read(&cgroups, &targets);
		if (err) {
			fprintf(stderr, TOOL ": cannot read the cgroup tree at %s: %s\n",
				iolat_cgroup_root(), strerror(-err));
			err = IOLAT_EXIT_ERROR;
			goto cleanup;
		}
		cgroups.stale = true;
		map_entries = size_maps();
		err = bpf_map__set_max_entries(obj->maps.groups, map_entries) ?:
			bpf_map__set_max_entries(obj->maps.parents, map_entries);
		if (err) {
			fprintf(stderr, TOOL ": cannot size the BPF maps: %s\n", strerror(-err));
			err = IOLAT_EXIT_ERROR;
			goto cleanup;
		}
		err = iolat_load_attach(TOOL, obj->skeleton);
		if (err)
			goto cleanup;
		iolat_map_init_bpf(&groups_map, TOOL, "groups",
				   bpf_map__fd(obj->maps.groups), sizeof(struct iolat_key),
				   sizeof(struct iolat_group), map_entries);
		iolat_map_init_bpf(&parents_map, TOOL, "parents",
				   bpf_map__fd(obj->maps.parents), sizeof(struct iolat_key),
				   sizeof(struct iolat_parent), map_entries);
		iolat_map_init_bpf(&changes_map, TOOL, "cgroup_changes",
				   bpf_map__fd(obj->maps.cgroup_changes), sizeof(__u64),
				   sizeof(struct iolat_cgroup_change),
				   IOLAT_MAX_CGROUP_CHANGES);
	} else {
		start_functions();
	}
	start_iostat();

	iolat_handle_signals();
	if (!env.batch && !env.json) {
		struct sigaction sa = { .sa_handler = on_winch, .sa_flags = SA_RESTART };

		sigaction(SIGWINCH, &sa, NULL);
	}
	tick = last_mono = iolat_mono();
	err = refresh(obj, false);	/* the io.stat baseline */
	while (!err && !iolat_exiting) {
		/* Ticks every interval from the start; a long refresh skips some. */
		tick = iolat_next_tick(tick, env.interval, iolat_mono());
		/*
		 * A signal ends the sleep early (sleeps are never restarted);
		 * the state is sampled between ticks.
		 */
		while (!err && !iolat_exiting) {
			bool sample = state_reader && state_next < tick;

			if (iolat_sleep_until(sample ? state_next : tick) == -EINTR)
				continue;
			if (!sample)
				break;
			err = state_sample_between();
		}
		if (iolat_exiting || err)
			break;
		err = refresh(obj, true);
		if (env.count && ++done >= env.count)
			break;
	}
	/*
	 * A reader that went away (EPIPE) ends the report: no error.  A -P
	 * FILE whose last write failed is not current: an error at the end.
	 */
	err = (err && err != -EPIPE) || prom.err ? IOLAT_EXIT_ERROR : IOLAT_EXIT_OK;

cleanup:
	if (obj)
		iolat_lost_explain(TOOL, &obj->bss->lost);
	else if (fb)
		iolat_lost_explain(TOOL, iolat_fallback_lost(fb));
	if (obj)
		iolat_top_bpf__destroy(obj);
	iolat_fallback_stop(fb);
	iolat_iostat_iter_stop(iostat_iter);
	iolat_iostat_set_free(&iostat_set);
	iolat_state_close(state_reader);
	free(state_buf);
	top_model_free(&model);
	top_prom_free(&prom);
	iolat_map_free(&groups_map);
	iolat_map_free(&parents_map);
	iolat_map_free(&changes_map);
	iolat_map_free(&delays_map);
	iolat_cgroups_free(&cgroups);
	free(targets.v);
	return err;
}
