// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-snoop: print io.latency's decisions as they happen, one line each:
 * which group missed its target and by how much, what the scale cookie
 * did, whose depth moved from what to what, who started paying delay.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-common.h"
#include "iolat-cgroup.h"
#include "iolat-fallback.h"
#include "iolat-map.h"
#include "iolat-snoop-output.h"
#include "iolat-snoop-state.h"
#include "iolat-state.h"
#include "iolat-snoop.skel.h"

#define TOOL "iolat-snoop"

static struct env {
	__u32 dev;
	const char *dev_arg;
	regex_t cgroup_re;
	bool cgroup_filter;
	bool all;
	bool json;
	double duration;
	bool no_events;		/* --no-events: the fallback, forced */
	bool no_functions;	/* --no-functions: nothing to fall back on */
	bool no_state;		/* --no-state: io.latency's state not sampled */
	int sample_ms;		/* --sample-ms: the state's sampling period */
} env = { .sample_ms = IOLAT_STATE_SAMPLE_MS };

const char *argp_program_version = TOOL " 0.1";
const char *argp_program_bug_address = "the iolat issue tracker";
static const char doc[] =
"Print io.latency's decisions as they happen, one line each.\n"
"\n"
"USAGE: " TOOL " [-d DEV] [-c REGEX] [-a] [-j] [--no-events]\n"
"       [--no-functions] [--no-state] [--sample-ms MS] [duration]\n"
"\n"
"Each line says what the controller decided for a (device, cgroup): a\n"
"window that missed its target, its accumulated statistic, the verdict\n"
"and what followed (hold, down, ...), a parent's scale cookie moving and\n"
"which child caused it (the culprit, by cgroup id and path), a parent's\n"
"scaling reset (scale_reset: a child's target written or a child gone),\n"
"a group not following a scale-down (scale_skip: raced, protected,\n"
"few_ios), a group's queue depth changing, induced delay switched on or\n"
"off, tasks paying it, and io.latency switched on or off for a device\n"
"(enable).  Windows that changed nothing, bios that slept for a slot and\n"
"delay charges are many: -a shows them too.  Events the ring buffer\n"
"could not take are said in the output, never skipped silently: a \"lost\"\n"
"line (with -j a record: lost_events since the start, lost_events_new\n"
"since the last one), and on stderr.\n"
"\n"
"WITHOUT THE EVENTS (a kernel without the series, or --no-events): the\n"
"controller's functions that the kernel does not inline, where io.latency\n"
"is in use: a charge line per blkcg_add_delay() (with -a; the delay\n"
"charged and pending) and a sleep line per task that slept in\n"
"blkcg_maybe_throttle_current() (its io cgroup, pid, comm, time slept).\n"
"And io.latency's own state, read through the kernel's BTF every 100 ms\n"
"(--sample-ms; less often where a walk would take over 1% of that): a\n"
"target written, a parent's cookie moved or its culprit forgotten, a\n"
"group's depth or use_delay changed, each a line of the event it stands\n"
"for, marked sampled, with the interval it happened in (-j:\n"
"\"source\":\"sampled\", \"since\"); what comes and goes within an\n"
"interval is not seen.  The first line (-j: a \"mode\" record) says so,\n"
"which functions are attached and why not the others, whether the\n"
"state is read, and which decisions only the events show.\n"
"\n"
"EXIT STATUS: 0 ok (a reader of stdout that went away included), 1\n"
"run-time error (stdout cannot be written included), 2 bad arguments, 3\n"
"not root, or a kernel without all of the iolatency tracepoints (it names\n"
"those missing) where neither function can be traced nor the state read,\n"
"or no cgroup has io.latency.\n"
"\n"
"EXAMPLES:\n"
"    " TOOL "                # decisions until Ctrl-C\n"
"    " TOOL " 30             # for 30 seconds\n"
"    " TOOL " -d nullb0      # one device\n"
"    " TOOL " -c '^/work/'   # cgroups whose path matches\n"
"    " TOOL " -a -j | jq .   # every event, as JSON lines\n"
"    " TOOL " --no-events -a # what a kernel without the series shows\n";

#define OPT_NO_EVENTS 256
#define OPT_NO_FUNCTIONS 257
#define OPT_NO_STATE 258
#define OPT_SAMPLE_MS 259

static const struct argp_option opts[] = {
	{ "device", 'd', "DEV", 0, "Only this disk (nullb0, /dev/nullb0 or MAJ:MIN); a partition is refused (exit 2): io.latency works on whole disks", 0 },
	{ "cgroup", 'c', "REGEX", 0, "Only cgroups whose path matches REGEX (POSIX extended)", 0 },
	{ "all", 'a', NULL, 0, "Also windows that changed nothing, bios that slept for a slot, delay charges", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "no-events", OPT_NO_EVENTS, NULL, 0, "Do without the iolatency events even if the kernel has them: log what the controller's functions show, as on a kernel without the series", 0 },
	{ "no-functions", OPT_NO_FUNCTIONS, NULL, 0, "Without the events, trace none of the controller's functions: as on a kernel that inlines them (with --no-state too: exit 3)", 0 },
	{ "no-state", OPT_NO_STATE, NULL, 0, "Without the events, do not sample io.latency's state", 0 },
	{ "sample-ms", OPT_SAMPLE_MS, "MS", 0, "Without the events, sample io.latency's state every MS milliseconds at most (10-10000, default 100; longer where a walk would take over 1% of it)", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's debug output", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static int parse_status;

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
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
	case 'a':
		env.all = true;
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_NO_EVENTS:
		env.no_events = true;
		break;
	case OPT_NO_FUNCTIONS:
		env.no_functions = true;
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
		if (state->arg_num > 0) {
			fprintf(stderr, TOOL ": unrecognized positional argument '%s'\n", arg);
			argp_usage(state);
		}
		parse_status = iolat_parse_interval(TOOL, arg, &env.duration);
		if (parse_status)
			return EINVAL;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Cgroup paths by id, as we see them, as iolat-top names them (iolat-cgroup.h). */
static struct iolat_names names;
static struct iolat_map changes_map;

/* The records' output, and cgroup @id's path for it. */
static struct snoop_out out;

static const char *names_path(void *arg, __u64 id)
{
	return iolat_names_path(arg, id);
}

/* The BPF side: the events', or without them the functions'. */
static struct iolat_snoop_bpf *obj;
static struct iolat_fallback_bpf *fb;

/*
 * Without the events: io.latency's state (NULL: not read, state_why says
 * why), its sample's buffer, the last sample kept to compare the next
 * with and its time, and when the next is due (CLOCK_MONOTONIC, seconds).
 */
static struct iolat_state_reader *state_reader;
static struct iolat_state *state_buf;
static struct snoop_state state_prev;
static double state_at, state_next;
static char state_why[512];

static const struct iolat_lost *lost_causes(void)
{
	static const struct iolat_lost none;

	return obj ? &obj->bss->lost : fb ? iolat_fallback_lost(fb) : &none;
}

static __u64 lost_now(void)
{
	return lost_causes()->total;
}

/* Lost events, in the output (never filtered out) and on stderr. */
static void report_lost(__u64 *reported)
{
	__u64 lost = lost_now();

	if (out.err || lost <= *reported)
		return;
	snoop_report_lost(stdout, env.json, iolat_now(), lost, reported);
}

/* The state reader, unless --no-state; where it cannot run, why in state_why. */
static void start_state(void)
{
	state_reader = iolat_state_start(env.no_state, env.dev, &state_buf, state_why,
					 sizeof(state_why));
	if (state_reader)
		snprintf(state_why, sizeof(state_why), "used");
}

/*
 * Without the events (@why): the controller's functions, where there is
 * an io.latency to watch and the kernel lets one of them be traced.
 * Says what it attached, or why it cannot; an exit status.
 */
static int start_fallback(const char *why, struct iolat_fns *fns)
{
	char text[512];
	int err, traceable;

	/* The walk is the names' tree too, walked again for an unknown id. */
	err = iolat_cgroups_scan(&names.tree);
	if (err) {
		fprintf(stderr, TOOL ": cannot read the cgroup tree at %s: %s\n",
			iolat_cgroup_root(), strerror(-err));
		return IOLAT_EXIT_ERROR;
	}
	names.tree_at = iolat_mono();
	if (!iolat_cgroups_have_latency(&names.tree)) {
		fprintf(stderr, TOOL ": %s (for the events: the series in patches/), and no "
			"cgroup has io.latency to watch: the kernel lacks "
			"CONFIG_BLK_CGROUP_IOLATENCY, or no cgroup has the io controller "
			"(echo +io > %s/cgroup.subtree_control)\n", why, iolat_cgroup_root());
		return IOLAT_EXIT_UNSUPPORTED;
	}
	start_state();
	traceable = iolat_fns_probe(fns, env.no_functions);
	if (!traceable && !state_reader) {
		fprintf(stderr, TOOL ": %s (for the events: the series in patches/), "
			"neither of the controller's functions can be traced: %s, and "
			"io.latency's state is not read: %s\n", why,
			iolat_fns_text(fns, text, sizeof(text)), state_why);
		return IOLAT_EXIT_UNSUPPORTED;
	}
	if (traceable) {
		fb = iolat_fallback_start(TOOL, fns, env.dev, true, env.all, 0);
		if (!fb) {
			fprintf(stderr, TOOL ": %s, and the controller's functions could not be "
				"traced: %s\n", why, iolat_fns_text(fns, text, sizeof(text)));
			return IOLAT_EXIT_ERROR;
		}
		fprintf(stderr, TOOL ": %s: induced delay from the controller's functions "
			"(%s); ", why, iolat_fns_text(fns, text, sizeof(text)));
	} else
		fprintf(stderr, TOOL ": %s: no induced delay, neither of the controller's "
			"functions traced (%s); ", why, iolat_fns_text(fns, text, sizeof(text)));
	if (state_reader)
		fprintf(stderr, "io.latency's state sampled every %dms: targets, scale cookies, "
			"culprits forgotten, depths and use_delay as changes between two "
			"samples; windows, throttled bios and the rest need the events\n",
			env.sample_ms);
	else
		fprintf(stderr, "io.latency's state not read (%s): windows, targets, scale "
			"cookies, depths, throttled bios and use_delay need the events\n",
			state_why);
	return IOLAT_EXIT_OK;
}

static void print_change(void *arg, const struct snoop_change *c)
{
	double *t = arg;

	snoop_record_sampled(&out, c, t[0], t[1]);
}

/*
 * A sample of the state, and what changed since the one before, printed.
 * A walk that fails is said once, and the next one compared with the
 * last that worked; one that left groups out, too.  0, or an exit status.
 */
static int state_sample(void)
{
	static bool told, told_dropped;
	struct iolat_state_walk walk;
	double t[2];
	int err;

	err = iolat_state_sample_paced(state_reader, state_buf, IOLAT_STATE_MAX, &walk,
				       env.sample_ms, &state_next);
	if (err) {
		if (!told)
			fprintf(stderr, TOOL ": io.latency's state not read: its walk failed: "
				"%s; said once, tried again at each sample\n", strerror(-err));
		told = true;
		return IOLAT_EXIT_OK;
	}
	if (walk.dropped && !told_dropped) {
		told_dropped = true;
		fprintf(stderr, TOOL ": the walk of io.latency's state left %zu groups out "
			"(more than it holds, or gone during it): their changes are not "
			"seen; said once\n", walk.dropped);
	}
	/* On the records' clock: the walk's end, then the previous one's. */
	t[1] = out.t0_real + (walk.now_ns / 1e9 - out.t0_mono);
	t[0] = out.t0_real + (state_at - out.t0_mono);
	state_at = walk.now_ns / 1e9;
	if (snoop_state_diff(&state_prev, state_buf, walk.count, print_change, t) < 0) {
		fprintf(stderr, TOOL ": %s\n", strerror(ENOMEM));
		return IOLAT_EXIT_ERROR;
	}
	return IOLAT_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct ring_buffer *rb = NULL;
	struct iolat_fns fns;
	static char why[640];
	__u64 reported = 0;
	double end;
	int err;

	iolat_check_stdout_at_exit(TOOL);
	iolat_raise_nofile();
	argp_err_exit_status = IOLAT_EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return parse_status ?: IOLAT_EXIT_USAGE;
	if (env.dev_arg) {
		err = iolat_parse_dev(TOOL, env.dev_arg, &env.dev);
		if (err)
			return err;
	}
	err = iolat_preflight_root(TOOL);
	if (err)
		return err;
	libbpf_set_print(iolat_libbpf_print);
	if (env.no_events)
		snprintf(why, sizeof(why), "--no-events");
	if (env.no_events || iolat_events_available(why, sizeof(why))) {
		err = start_fallback(why, &fns);
		if (err)
			goto cleanup;
	} else {
		obj = iolat_snoop_bpf__open();
		if (!obj) {
			fprintf(stderr, TOOL ": failed to open BPF object: %s\n", strerror(errno));
			return IOLAT_EXIT_ERROR;
		}
		obj->rodata->targ_dev = env.dev;
		obj->rodata->targ_all = env.all;
		err = iolat_load_attach(TOOL, obj->skeleton);
		if (err)
			goto cleanup;
		/* Attached first: a cgroup created during the walk has its record. */
		iolat_map_init_bpf(&changes_map, TOOL, "cgroup_changes",
				   bpf_map__fd(obj->maps.cgroup_changes), sizeof(__u64),
				   sizeof(struct iolat_cgroup_change),
				   IOLAT_MAX_CGROUP_CHANGES);
		names.changes = &changes_map;
		names.lost = &obj->bss->changes_lost;
		err = iolat_names_update(&names, true);
		if (err) {
			err = IOLAT_EXIT_ERROR;
			goto cleanup;
		}
	}
	out = (struct snoop_out){ .f = stdout, .json = env.json,
				  .re = env.cgroup_filter ? &env.cgroup_re : NULL,
				  .path = names_path, .arg = &names };
	if (obj || fb)
		rb = ring_buffer__new(obj ? bpf_map__fd(obj->maps.events) :
				      iolat_fallback_events_fd(fb), snoop_record, &out, NULL);
	if (!rb && (obj || fb)) {
		fprintf(stderr, TOOL ": failed to create ring buffer: %s\n", strerror(errno));
		err = IOLAT_EXIT_ERROR;
		goto cleanup;
	}

	iolat_handle_signals();
	out.t0_real = iolat_now();
	out.t0_mono = iolat_mono();
	end = env.duration ? out.t0_mono + env.duration : 0;
	snoop_print_mode(stdout, env.json, out.t0_real, why, obj ? NULL : &fns, env.all,
			 iolat_cgroupns(), state_why, env.sample_ms);
	if (!env.json)
		snoop_print_header(stdout);
	fprintf(stderr, TOOL ": tracing %s%s%s%s. Hit Ctrl-C to end.\n",
		obj ? "io.latency decisions" : fb ? "induced delay" : "",
		!obj && fb && state_reader ? " and " : "",
		state_reader ? "io.latency's state" : "", env.all ? " (all events)" : "");
	/* The first sample: what the next ones are compared with. */
	if (state_reader) {
		err = state_sample();
		if (err)
			goto cleanup;
	}

	while (!iolat_exiting) {
		int ms = 100;

		if (state_reader) {
			double next = state_next - iolat_mono();

			/* Rounded up: woken before it is due, the loop would spin. */
			ms = next <= 0 ? 0 : next < 0.1 ? (int)ceil(next * 1000) : 100;
		}
		if (rb) {
			err = ring_buffer__poll(rb, ms);
		} else {
			err = 0;
			if (ms)
				usleep(ms * 1000);
		}
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, TOOL ": error polling ring buffer: %s\n", strerror(-err));
			err = IOLAT_EXIT_ERROR;
			goto cleanup;
		}
		report_lost(&reported);
		if (state_reader && iolat_mono() >= state_next) {
			err = state_sample();
			if (err)
				goto cleanup;
		}
		/* The batch the poll printed, at once (a terminal, line by line). */
		if (snoop_flush(&out))
			iolat_exiting = 1;
		/* The map of cgroup changes must not fill: once a second. */
		if (iolat_names_update(&names, false) < 0) {
			err = IOLAT_EXIT_ERROR;
			goto cleanup;
		}
		if (end && iolat_mono() >= end)
			break;
	}
	if (!out.err && rb)
		ring_buffer__consume(rb);
	/* The changes since the last sample, to the end. */
	if (!out.err && state_reader) {
		err = state_sample();
		if (err)
			goto cleanup;
	}
	report_lost(&reported);
	snoop_flush(&out);
	/* A reader that went away (EPIPE) ends the log: no error. */
	err = out.err && out.err != -EPIPE ? IOLAT_EXIT_ERROR : IOLAT_EXIT_OK;

cleanup:
	if (obj || fb)
		iolat_lost_explain(TOOL, lost_causes());
	ring_buffer__free(rb);
	iolat_snoop_bpf__destroy(obj);
	iolat_fallback_stop(fb);
	iolat_state_close(state_reader);
	free(state_buf);
	snoop_state_free(&state_prev);
	iolat_names_free(&names);
	iolat_map_free(&changes_map);
	return err;
}
