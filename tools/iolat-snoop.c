// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-snoop: print io.latency's decisions as they happen, one line each:
 * which group missed its target and by how much, what the scale cookie
 * did, whose depth moved from what to what, who started paying delay.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-common.h"
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
"window that missed its target and what followed (hold, down, ...), a\n"
"parent's scale cookie moving and which child caused it, a group's queue\n"
"depth changing, induced delay switched on or off, and tasks paying it.\n"
"Windows that changed nothing, bios waiting for a slot and delay charges\n"
"are many: -a shows them too.\n"
"\n"
"EXIT STATUS: 0 ok, 1 run-time error, 2 bad arguments, 3 kernel without\n"
"BTF or without the iolatency tracepoints, or not root.\n"
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
	{ "all", 'a', NULL, 0, "Also windows that changed nothing, throttled bios, delay charges", 0 },
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
	"ok", "hold", "few", "up", "not_owner", "down", "tighter",
};

static const char *const action_text[IOLAT_ACT_NR] = {
	"nobody throttled",
	"too soon after the last scale event, samples kept",
	"too few samples to scale up, samples kept",
	"scale cookie raised",
	"another group owns the scaling",
	"scale cookie lowered",
	"a tighter sibling owns the scaling",
};

static const char *const type_names[IOLAT_EV_NR] = {
	"window", "target", "cookie", "culprit_forgotten", "depth",
	"throttle", "use_delay", "delay_charge", "delay_pay",
};

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

static void print_json(const struct iolat_event *e, double t)
{
	printf("{\"time\":%.6f,\"event\":\"%s\",\"device\":", t, type_names[e->type]);
	iolat_json_str(stdout, iolat_dev_name(e->dev));
	printf(",\"cgroup\":");
	iolat_json_str(stdout, e->path);
	printf(",\"cgroup_id\":%llu", (unsigned long long)e->cgroup_id);

	switch (e->type) {
	case IOLAT_EV_WINDOW:
		printf(",\"met\":%s,\"target_us\":%llu,\"win_ms\":%llu,\"samples\":%llu",
		       e->window.met ? "true" : "false",
		       e->window.target_ns / 1000, e->window.win_ns / 1000000,
		       e->window.samples);
		if (e->window.ssd)
			printf(",\"stat\":\"missed\",\"missed\":%llu", e->window.missed);
		else
			printf(",\"stat\":\"mean\",\"mean_us\":%llu", e->window.mean_ns / 1000);
		printf(",\"action\":\"%s\",\"cookie\":%u",
		       (unsigned)e->window.action < IOLAT_ACT_NR ?
		       actions[e->window.action] : "?", e->window.cookie);
		break;
	case IOLAT_EV_TARGET:
		printf(",\"old_us\":%llu,\"new_us\":%llu,\"win_ms\":%llu",
		       e->target.old_ns / 1000, e->target.new_ns / 1000,
		       e->target.win_ns / 1000000);
		break;
	case IOLAT_EV_COOKIE:
		printf(",\"old\":%u,\"new\":%u,\"direction\":\"%s\",\"step\":%u,\"culprit\":",
		       e->cookie.old, e->cookie.new, e->cookie.up ? "up" : "down",
		       e->cookie.step);
		iolat_json_str(stdout, e->path2);
		printf(",\"scale_lat_us\":%llu,\"by\":\"%s\"",
		       e->cookie.scale_lat_ns / 1000, e->cookie.timer ? "timer" : "window");
		break;
	case IOLAT_EV_GRP_CLEAR:
		printf(",\"culprit\":");
		iolat_json_str(stdout, e->path2);
		printf(",\"idle_ms\":%llu,\"cookie\":%u",
		       e->grp_clear.idle_ns / 1000000, e->grp_clear.cookie);
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
		       e->charge.req_ns / 1000, e->charge.charge_ns / 1000,
		       e->charge.delay_ns / 1000);
		break;
	case IOLAT_EV_PAY:
		printf(",\"pid\":%u,\"comm\":", e->pid);
		iolat_json_str(stdout, e->comm);
		printf(",\"delay_us\":%llu,\"sleep_us\":%llu,\"slept_us\":%llu,"
		       "\"capped\":%s,\"memstall\":%s",
		       e->pay.delay_ns / 1000, e->pay.sleep_ns / 1000,
		       e->pay.slept_ns / 1000, e->pay.capped ? "true" : "false",
		       e->pay.memdelay ? "true" : "false");
		break;
	}
	printf("}\n");
}

static void print_text(const struct iolat_event *e, double t)
{
	char a[16], b[16];

	printf("%s %-8s %-28s %-12s ", iolat_clock(t), iolat_dev_name(e->dev),
	       e->path, type_names[e->type]);

	switch (e->type) {
	case IOLAT_EV_WINDOW:
		if (e->window.ssd)
			printf("%s: %llu/%llu bios over %lluus",
			       e->window.met ? "met" : "MISSED", e->window.missed,
			       e->window.samples, e->window.target_ns / 1000);
		else
			printf("%s: mean %lluus vs %lluus over %llu bios",
			       e->window.met ? "met" : "MISSED",
			       e->window.mean_ns / 1000, e->window.target_ns / 1000,
			       e->window.samples);
		printf(" in %llums; %s (cookie %u)", e->window.win_ns / 1000000,
		       (unsigned)e->window.action < IOLAT_ACT_NR ?
		       action_text[e->window.action] : "?", e->window.cookie);
		break;
	case IOLAT_EV_TARGET:
		printf("target %lluus -> %lluus, window %llums",
		       e->target.old_ns / 1000, e->target.new_ns / 1000,
		       e->target.win_ns / 1000000);
		break;
	case IOLAT_EV_COOKIE:
		printf("children scaled %s: cookie %u -> %u (step %u), %s%s",
		       e->cookie.up ? "UP" : "DOWN", e->cookie.old, e->cookie.new,
		       e->cookie.step, e->cookie.timer ? "by the idle timer" :
		       "for ", e->cookie.timer ? "" : e->path2);
		if (!e->cookie.timer)
			printf(" (target %lluus)", e->cookie.scale_lat_ns / 1000);
		break;
	case IOLAT_EV_GRP_CLEAR:
		printf("forgot culprit %s after %llums without scaling (cookie %u)",
		       e->path2, e->grp_clear.idle_ns / 1000000, e->grp_clear.cookie);
		break;
	case IOLAT_EV_DEPTH:
		printf("depth %s -> %s (cookie %u, nr_requests %u)",
		       depth_str(e->depth.old, a, sizeof(a)),
		       depth_str(e->depth.new, b, sizeof(b)), e->depth.cookie,
		       e->depth.nr_requests);
		break;
	case IOLAT_EV_THROTTLE:
		printf("bio waited %lluus for a slot (depth %u, %u in flight)",
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
		       e->charge.req_ns / 1000, e->charge.charge_ns / 1000,
		       e->charge.delay_ns / 1000);
		break;
	case IOLAT_EV_PAY:
		printf("pid %u (%s) slept %.1fms of %.1fms owed%s%s", e->pid, e->comm,
		       e->pay.slept_ns / 1e6, e->pay.delay_ns / 1e6,
		       e->pay.capped ? " (capped at 250ms)" : "",
		       e->pay.memdelay ? ", as memory stall" : "");
		break;
	}
	printf("\n");
}

static int handle_event(void *ctx, void *data, size_t len)
{
	const struct iolat_event *e = data;
	double t;

	if (len < sizeof(*e) || e->type >= IOLAT_EV_NR)
		return 0;
	if (env.cgroup_filter &&
	    regexec(&env.cgroup_re, e->path, 0, NULL, 0) &&
	    (!e->path2[0] || regexec(&env.cgroup_re, e->path2, 0, NULL, 0)))
		return 0;
	t = t0_real + (e->ts_ns / 1e9 - t0_mono);
	if (env.json)
		print_json(e, t);
	else
		print_text(e, t);
	fflush(stdout);
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
	ring_buffer__consume(rb);
	report_lost(obj, &reported);
	err = IOLAT_EXIT_OK;

cleanup:
	ring_buffer__free(rb);
	iolat_snoop_bpf__destroy(obj);
	return err;
}
