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
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-common.h"
#include "iolat-cgroup.h"
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
} env;

static double t0_real, t0_mono;

const char *argp_program_version = TOOL " 0.1";
const char *argp_program_bug_address = "the iolat issue tracker";
static const char doc[] =
"Print io.latency's decisions as they happen, one line each.\n"
"\n"
"USAGE: " TOOL " [-d DEV] [-c REGEX] [-a] [-j] [duration]\n"
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
"delay charges are many: -a shows them too.\n"
"\n"
"EXIT STATUS: 0 ok (a reader of stdout that went away included), 1\n"
"run-time error (stdout cannot be written included), 2 bad arguments, 3\n"
"kernel without BTF or without the iolatency tracepoints, or not root.\n"
"\n"
"EXAMPLES:\n"
"    " TOOL "                # decisions until Ctrl-C\n"
"    " TOOL " 30             # for 30 seconds\n"
"    " TOOL " -d nullb0      # one device\n"
"    " TOOL " -c '^/work/'   # cgroups whose path matches\n"
"    " TOOL " -a -j | jq .   # every event, as JSON lines\n";

static const struct argp_option opts[] = {
	{ "device", 'd', "DEV", 0, "Only this device (nullb0, /dev/nullb0 or MAJ:MIN)", 0 },
	{ "cgroup", 'c', "REGEX", 0, "Only cgroups whose path matches REGEX (POSIX extended)", 0 },
	{ "all", 'a', NULL, 0, "Also windows that changed nothing, bios that slept for a slot, delay charges", 0 },
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
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

static const char *const actions[IOLAT_ACT_NR] = {
	"ok", "hold", "few", "up", "not_owner", "down", "tighter", "offline",
};

static const char *const action_text[IOLAT_ACT_NR] = {
	"nobody throttled",
	"too soon after the last scale event, samples kept",
	"too few samples to scale up, samples kept",
	"scale cookie raised",
	"another group owns the scaling",
	"scale cookie lowered",
	"a tighter sibling owns the scaling",
	"the group lost its target meanwhile, nothing scaled",
};

static const char *const scale_by[IOLAT_BY_NR] = {
	"window", "timer", "target", "offline",
};

static const char *const skip_reasons[IOLAT_REASON_NR] = {
	"raced", "protected", "few_ios",
};

static const char *const target_by[IOLAT_TARGET_BY_NR] = {
	"user", "offline",
};

static const char *const type_names[IOLAT_EV_NR] = {
	"window", "target", "cookie", "culprit_forgotten", "depth",
	"throttle", "use_delay", "delay_charge", "delay_pay", "enable",
	"scale_reset", "scale_skip",
};

#define NAME(tab, i) ((unsigned)(i) < sizeof(tab) / sizeof(*(tab)) ? (tab)[i] : "?")

/*
 * Cgroup paths by id.  Decisions carry the kernel's path, and each one
 * teaches this table; per-bio events and culprits carry only an id, looked
 * up here first, so that they read like the decisions (the kernel's paths
 * start at the hierarchy's root, the mount's may not inside a cgroup
 * namespace), then in the cgroup tree, walked again at most once a second.
 */
#define NAMES_MAX 65536
static struct name {
	__u64 id;
	char *path;
} *names;
static size_t names_n, names_cap;	/* cap: a power of two */
static struct iolat_cgroups tree;
static double tree_mono = -1;

static struct name *name_slot(__u64 id)
{
	size_t i = (id * 0x9e3779b97f4a7c15ULL) & (names_cap - 1);

	while (names[i].id && names[i].id != id)
		i = (i + 1) & (names_cap - 1);
	return &names[i];
}

static void name_learn(__u64 id, const char *path)
{
	struct name *n;

	if (!id || !path[0])
		return;
	if (names_n * 2 >= names_cap) {
		size_t cap = names_cap ? names_cap * 2 : 1024, i;
		struct name *old = names, *v;

		if (names_n >= NAMES_MAX || !(v = calloc(cap, sizeof(*v))))
			return;
		names = v;
		names_cap = cap;
		for (i = 0; old && i < cap / 2; i++)
			if (old[i].id)
				*name_slot(old[i].id) = old[i];
		free(old);
	}
	n = name_slot(id);
	if (n->id && !strcmp(n->path, path))
		return;
	free(n->path);
	n->path = strdup(path);
	if (!n->path) {
		n->id = 0;
		return;
	}
	if (!n->id)
		names_n++;
	n->id = id;
}

static void names_free(void)
{
	size_t i;

	for (i = 0; i < names_cap; i++)
		free(names[i].path);
	free(names);
	iolat_cgroups_free(&tree);
}

/* The path of cgroup @id, NULL if unknown (0, or gone before we looked). */
static const char *cgroup_path(__u64 id)
{
	const char *path;

	if (!id)
		return NULL;
	if (names_cap && name_slot(id)->id)
		return name_slot(id)->path;
	path = iolat_cgroups_path(&tree, id);
	if (!path && iolat_mono() - tree_mono >= 1) {
		tree_mono = iolat_mono();
		if (!iolat_cgroups_scan(&tree))
			path = iolat_cgroups_path(&tree, id);
	}
	return path;
}

static const char *depth_str(__u32 d, char *buf, size_t len)
{
	if (d == IOLAT_DEPTH_MAX)
		return "max";
	snprintf(buf, len, "%u", d);
	return buf;
}

static void json_depth(const char *key, __u32 d)
{
	if (d == IOLAT_DEPTH_MAX)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%u", key, d);
}

static void json_str_or_null(const char *key, const char *s)
{
	printf(",\"%s\":", key);
	if (s)
		iolat_json_str(stdout, s);
	else
		printf("null");
}

/* "down", "up" or "none": which way the scale cookie went. */
static const char *direction(__u32 old, __u32 new)
{
	return new < old ? "down" : new > old ? "up" : "none";
}

/* A window's verdict, the one its action rests on. */
static const char *verdict(const struct iolat_event *e)
{
	if (e->window.action == IOLAT_ACT_OFFLINE)
		return "offline";
	if (e->window.met)
		return "met";
	return e->window.win_met ? "MISSED (accumulated)" : "MISSED";
}

static void print_json(const struct iolat_event *e, const char *path,
		       const char *culprit, double t)
{
	printf("{\"time\":%.6f,\"event\":\"%s\",\"device\":", t, type_names[e->type]);
	iolat_json_str(stdout, iolat_dev_name(e->dev));
	json_str_or_null("cgroup", path);
	if (e->cgroup_id)
		printf(",\"cgroup_id\":%llu", (unsigned long long)e->cgroup_id);
	else
		printf(",\"cgroup_id\":null");

	switch (e->type) {
	case IOLAT_EV_WINDOW:
		printf(",\"met\":%s,\"win_met\":%s,\"target_us\":%llu,\"win_ms\":%llu,"
		       "\"samples\":%llu,\"acc_samples\":%llu",
		       e->window.met ? "true" : "false",
		       e->window.win_met ? "true" : "false",
		       e->window.target_ns / 1000, e->window.win_ns / 1000000,
		       e->window.samples, e->window.acc_samples);
		if (e->window.ssd)
			printf(",\"stat\":\"missed\",\"missed\":%llu,\"acc_missed\":%llu",
			       e->window.missed, e->window.acc_missed);
		else
			printf(",\"stat\":\"mean\",\"mean_us\":%llu,\"acc_mean_us\":%llu",
			       e->window.mean_ns / 1000, e->window.acc_mean_ns / 1000);
		printf(",\"action\":\"%s\",\"cookie\":%u,\"scale_lat_us\":%llu",
		       NAME(actions, e->window.action), e->window.cookie,
		       e->window.scale_lat_ns / 1000);
		break;
	case IOLAT_EV_TARGET:
		printf(",\"old_us\":%llu,\"new_us\":%llu,\"win_ms\":%llu,\"by\":\"%s\"",
		       e->target.old_ns / 1000, e->target.new_ns / 1000,
		       e->target.win_ns / 1000000, NAME(target_by, e->target.by));
		break;
	case IOLAT_EV_ENABLE:
		printf(",\"old\":%s,\"new\":%s,\"nr_targets\":%d,\"frozen_us\":%llu",
		       e->enable.old ? "true" : "false",
		       e->enable.new ? "true" : "false", e->enable.nr_targets,
		       e->enable.frozen_ns / 1000);
		break;
	case IOLAT_EV_COOKIE:
	case IOLAT_EV_GRP_CLEAR:
	case IOLAT_EV_RESET:
		printf(",\"old\":%u,\"new\":%u,\"direction\":\"%s\",\"step\":%lld",
		       e->scale.old, e->scale.new,
		       direction(e->scale.old, e->scale.new),
		       (long long)e->scale.new - e->scale.old);
		if (e->type == IOLAT_EV_GRP_CLEAR)	/* as before the ids */
			printf(",\"cookie\":%u", e->scale.new);
		json_str_or_null("culprit", culprit);
		if (e->scale.culprit_id)
			printf(",\"culprit_id\":%llu", e->scale.culprit_id);
		else
			printf(",\"culprit_id\":null");
		printf(",\"scale_lat_us\":%llu,\"idle_ms\":%llu,\"by\":\"%s\"",
		       e->scale.scale_lat_ns / 1000, e->scale.idle_ns / 1000000,
		       NAME(scale_by, e->scale.by));
		break;
	case IOLAT_EV_SKIP:
		printf(",\"old\":%u,\"new\":%u,\"reason\":\"%s\",\"target_us\":%llu,"
		       "\"scale_lat_us\":%llu,\"samples\":%llu,\"thresh\":%llu",
		       e->skip.old, e->skip.new, NAME(skip_reasons, e->skip.reason),
		       e->skip.target_ns / 1000, e->skip.scale_lat_ns / 1000,
		       e->skip.samples, e->skip.thresh);
		break;
	case IOLAT_EV_DEPTH:
		json_depth("old", e->depth.old);
		json_depth("new", e->depth.new);
		printf(",\"cookie\":%u,\"nr_requests\":%u", e->depth.cookie,
		       e->depth.nr_requests);
		break;
	case IOLAT_EV_THROTTLE:
		printf(",\"depth\":%u,\"inflight\":%u,\"wait_us\":%llu",
		       e->throttle.depth, e->throttle.inflight,
		       e->throttle.wait_ns / 1000);
		break;
	case IOLAT_EV_USE_DELAY:
		printf(",\"old\":%d,\"new\":%d,\"delay_us\":%llu", e->use_delay.old,
		       e->use_delay.new, e->use_delay.delay_ns / 1000);
		break;
	case IOLAT_EV_CHARGE:
		printf(",\"lat_us\":%llu,\"charge_us\":%llu,\"delay_us\":%llu",
		       e->charge.lat_ns / 1000, e->charge.charge_ns / 1000,
		       e->charge.delay_ns / 1000);
		break;
	case IOLAT_EV_PAY:
		printf(",\"pid\":%u,\"comm\":", e->pid);
		iolat_json_str(stdout, e->comm);
		printf(",\"delay_us\":%llu,\"sleep_us\":%llu,\"slept_us\":%llu,"
		       "\"capped\":%s,\"memstall\":%s",
		       e->pay.delay_ns / 1000, e->pay.sleep_ns / 1000,
		       e->pay.slept_ns / 1000, e->pay.capped ? "true" : "false",
		       e->pay.memstall ? "true" : "false");
		break;
	}
	printf("}\n");
}

/* "/a/b (id 123)", or "cgroup id 123" for a cgroup gone before we looked. */
static void print_culprit(const struct iolat_event *e, const char *culprit)
{
	if (culprit)
		printf("%s (id %llu, ", culprit, e->scale.culprit_id);
	else
		printf("cgroup id %llu (", e->scale.culprit_id);
	printf("target %lluus)", e->scale.scale_lat_ns / 1000);
}

static void print_text(const struct iolat_event *e, const char *path,
		       const char *culprit, double t)
{
	char a[32], b[32], cg[32];

	if (!path && e->cgroup_id)
		snprintf(cg, sizeof(cg), "cgroup %llu", (unsigned long long)e->cgroup_id);
	else if (!path)
		snprintf(cg, sizeof(cg), "-");
	printf("%s %-8s %-28s %-12s ", iolat_clock(t), iolat_dev_name(e->dev),
	       path ?: cg, type_names[e->type]);

	switch (e->type) {
	case IOLAT_EV_WINDOW:
		if (e->window.ssd)
			printf("%s: %llu/%llu bios over %lluus in %llums, %llu/%llu accumulated",
			       verdict(e), e->window.missed, e->window.samples,
			       e->window.target_ns / 1000, e->window.win_ns / 1000000,
			       e->window.acc_missed, e->window.acc_samples);
		else
			printf("%s: mean %lluus vs %lluus over %llu bios in %llums, "
			       "%lluus over %llu accumulated", verdict(e),
			       e->window.mean_ns / 1000, e->window.target_ns / 1000,
			       e->window.samples, e->window.win_ns / 1000000,
			       e->window.acc_mean_ns / 1000, e->window.acc_samples);
		printf("; %s (cookie %u", NAME(action_text, e->window.action),
		       e->window.cookie);
		if (e->window.action == IOLAT_ACT_TIGHTER)
			printf(", scaling for %lluus", e->window.scale_lat_ns / 1000);
		printf(")");
		break;
	case IOLAT_EV_TARGET:
		printf("target %lluus -> %lluus, window %llums%s",
		       e->target.old_ns / 1000, e->target.new_ns / 1000,
		       e->target.win_ns / 1000000,
		       e->target.by == IOLAT_TARGET_BY_OFFLINE ? ", as the group went offline" : "");
		break;
	case IOLAT_EV_ENABLE:
		printf("io.latency %s for the device (%d group%s with a target), queue frozen %lluus",
		       e->enable.new ? "ON" : "OFF", e->enable.nr_targets,
		       e->enable.nr_targets == 1 ? "" : "s", e->enable.frozen_ns / 1000);
		break;
	case IOLAT_EV_COOKIE:
		printf("children scaled %s: cookie %u -> %u (step %lld), ",
		       e->scale.new > e->scale.old ? "UP" : "DOWN", e->scale.old,
		       e->scale.new, (long long)e->scale.new - e->scale.old);
		if (e->scale.by == IOLAT_BY_TIMER)
			printf("by the idle timer");
		else if (e->scale.culprit_id) {
			printf("for ");
			print_culprit(e, culprit);
		} else
			printf("by a window, no culprit");
		break;
	case IOLAT_EV_GRP_CLEAR:
		printf("forgot culprit ");
		print_culprit(e, culprit);
		printf(" after %llums without scaling (cookie %u)",
		       e->scale.idle_ns / 1000000, e->scale.new);
		break;
	case IOLAT_EV_RESET:
		printf("children's scaling reset: cookie %u -> %u, ", e->scale.old,
		       e->scale.new);
		if (e->scale.culprit_id) {
			printf("culprit ");
			print_culprit(e, culprit);
			printf(" forgotten, ");
		} else
			printf("no culprit, ");
		printf("%s", e->scale.by == IOLAT_BY_TARGET ? "a child's target was written" :
		       e->scale.by == IOLAT_BY_OFFLINE ? "a child went offline" :
		       NAME(scale_by, e->scale.by));
		break;
	case IOLAT_EV_SKIP:
		printf("did not follow cookie %u -> %u: ", e->skip.old, e->skip.new);
		switch (e->skip.reason) {
		case IOLAT_REASON_RACED:
			printf("raced, another bio took the change");
			break;
		case IOLAT_REASON_PROTECTED:
			printf("protected, its target %lluus as tight as the %lluus that missed",
			       e->skip.target_ns / 1000, e->skip.scale_lat_ns / 1000);
			break;
		case IOLAT_REASON_FEW_IOS:
			printf("few_ios, %llu samples, at most 5%% of its siblings' (%llu)",
			       e->skip.samples, e->skip.thresh);
			break;
		default:
			printf("reason %d", e->skip.reason);
		}
		break;
	case IOLAT_EV_DEPTH:
		printf("depth %s -> %s (cookie %u, nr_requests %u)",
		       depth_str(e->depth.old, a, sizeof(a)),
		       depth_str(e->depth.new, b, sizeof(b)), e->depth.cookie,
		       e->depth.nr_requests);
		break;
	case IOLAT_EV_THROTTLE:
		printf("bio slept %lluus for a slot (depth %u, %u in flight)",
		       e->throttle.wait_ns / 1000, e->throttle.depth,
		       e->throttle.inflight);
		break;
	case IOLAT_EV_USE_DELAY:
		printf("induced delay %s: use_delay %d -> %d, %lluus pending",
		       e->use_delay.new > 0 ? (e->use_delay.old > 0 ? "deeper" : "ON") :
		       "OFF", e->use_delay.old, e->use_delay.new,
		       e->use_delay.delay_ns / 1000);
		break;
	case IOLAT_EV_CHARGE:
		printf("root-issued bio took %lluus: charged %lluus, %lluus pending",
		       e->charge.lat_ns / 1000, e->charge.charge_ns / 1000,
		       e->charge.delay_ns / 1000);
		break;
	case IOLAT_EV_PAY:
		printf("pid %u (%s) slept %.1fms of %.1fms owed%s%s", e->pid, e->comm,
		       e->pay.slept_ns / 1e6, e->pay.delay_ns / 1e6,
		       e->pay.capped ? " (capped at 250ms)" : "",
		       e->pay.memstall ? ", as memory stall" : "");
		break;
	}
	printf("\n");
}

static bool has_culprit(__u32 type)
{
	return type == IOLAT_EV_COOKIE || type == IOLAT_EV_GRP_CLEAR ||
	       type == IOLAT_EV_RESET;
}

static int output_err;	/* stdout failed: -EPIPE (quiet) or an error */

static int handle_event(void *ctx, void *data, size_t len)
{
	static char pbuf[PATH_MAX];
	struct iolat_event e;
	const char *path, *culprit = NULL;
	double t;

	/* Per-bio and enable records end before the path. */
	if (len < IOLAT_EVENT_SHORT || output_err)
		return 0;
	memcpy(&e, data, len < sizeof(e) ? len : sizeof(e));
	if (e.type >= IOLAT_EV_NR)
		return 0;
	if (len >= sizeof(e)) {
		e.path[sizeof(e.path) - 1] = '\0';
		name_learn(e.cgroup_id, e.path);
	}
	/* Copied: looking the culprit up may walk the tree again. */
	path = cgroup_path(e.cgroup_id);
	if (path) {
		snprintf(pbuf, sizeof(pbuf), "%s", path);
		path = pbuf;
	}
	if (has_culprit(e.type))
		culprit = cgroup_path(e.scale.culprit_id);
	if (env.cgroup_filter &&
	    (!path || regexec(&env.cgroup_re, path, 0, NULL, 0)) &&
	    (!culprit || regexec(&env.cgroup_re, culprit, 0, NULL, 0)))
		return 0;
	t = t0_real + (e.ts_ns / 1e9 - t0_mono);
	if (env.json)
		print_json(&e, path, culprit, t);
	else
		print_text(&e, path, culprit, t);
	output_err = iolat_flush(TOOL, stdout);
	if (output_err)
		iolat_exiting = 1;
	return 0;
}

static void report_lost(struct iolat_snoop_bpf *obj, __u64 *reported)
{
	__u64 lost = obj->bss->lost;

	if (lost > *reported) {
		fprintf(stderr, TOOL ": lost %llu events (ring buffer full)\n",
			(unsigned long long)(lost - *reported));
		*reported = lost;
	}
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct iolat_snoop_bpf *obj = NULL;
	struct ring_buffer *rb = NULL;
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
	err = iolat_preflight(TOOL);
	if (err)
		return err;
	libbpf_set_print(iolat_libbpf_print);

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
	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), handle_event, NULL, NULL);
	if (!rb) {
		fprintf(stderr, TOOL ": failed to create ring buffer: %s\n", strerror(errno));
		err = IOLAT_EXIT_ERROR;
		goto cleanup;
	}

	iolat_handle_signals();
	t0_real = iolat_now();
	t0_mono = iolat_mono();
	end = env.duration ? t0_mono + env.duration : 0;
	if (!env.json)
		printf("%-12s %-8s %-28s %-12s %s\n", "TIME", "DEVICE", "CGROUP",
		       "EVENT", "DECISION");
	fprintf(stderr, TOOL ": tracing io.latency decisions%s. Hit Ctrl-C to end.\n",
		env.all ? " (all events)" : "");

	while (!iolat_exiting) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, TOOL ": error polling ring buffer: %s\n", strerror(-err));
			err = IOLAT_EXIT_ERROR;
			goto cleanup;
		}
		report_lost(obj, &reported);
		if (end && iolat_mono() >= end)
			break;
	}
	if (!output_err)
		ring_buffer__consume(rb);
	report_lost(obj, &reported);
	if (!output_err)
		output_err = iolat_flush(TOOL, stdout);
	/* A reader that went away (EPIPE) ends the log: no error. */
	err = output_err && output_err != -EPIPE ? IOLAT_EXIT_ERROR : IOLAT_EXIT_OK;

cleanup:
	ring_buffer__free(rb);
	iolat_snoop_bpf__destroy(obj);
	names_free();
	return err;
}
