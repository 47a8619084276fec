// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-state-dump: io.latency's own state as the BTF reader
 * (iolat-state.h) reads it, one JSON line per group per sample, on any
 * kernel that builds io.latency, with or without the iolatency events.
 * What the reader gives, raw: the tests compare it with what the events
 * and io.stat say, and a developer sees what a sample holds.  Built with
 * the tools, not installed.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-state.h"
#include "iolat-common.h"

#define TOOL "iolat-state-dump"

static struct {
	__u32 dev;
	double interval;
	long count;
} env = { .interval = 1.0, .count = 1 };

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
TOOL ": io.latency's own state, read through the kernel's BTF\n"
"\n"
"USAGE: " TOOL " [-v] [-d DEV] [INTERVAL [COUNT]]\n"
"\n"
"One JSON line per io.latency group (blkg) per sample: its device,\n"
"cgroup id, target, depth, in-flight bios, the cookie it follows, use_delay\n"
"and the pending delay, its window's statistics so far and, for a parent,\n"
"its children's cookie and culprit (a cgroup id, \"stale\" or \"unknown\").\n"
"One sample by default; INTERVAL seconds apart, COUNT of them (0: until\n"
"interrupted).  Exit 2 on bad arguments, 3 when the reader cannot run\n"
"here (it says why: no BTF, no io.latency, no symbols), 1 when a sample\n"
"fails.\n"
"\n"
"EXAMPLES:\n"
"    " TOOL " -d nvme0n1         # one sample of nvme0n1's groups\n"
"    " TOOL " 0.1 50             # 50 samples, 100 ms apart\n";

static const struct argp_option opts[] = {
	{ "device", 'd', "DEV", 0, "Only DEV's groups (name or MAJ:MIN)", 0 },
	{ "verbose", 'v', NULL, 0, "Print libbpf's messages", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static int pos;

	switch (key) {
	case 'd':
		if (iolat_parse_dev(TOOL, arg, &env.dev))
			argp_usage(state);
		break;
	case 'v':
		iolat_verbose = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (pos == 0 && iolat_parse_interval(TOOL, arg, &env.interval))
			argp_usage(state);
		else if (pos == 1 && iolat_parse_count(TOOL, arg, &env.count))
			argp_usage(state);
		else if (pos > 1)
			argp_error(state, "too many arguments: '%s'", arg);
		if (pos == 0)
			env.count = 0;
		pos++;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_u64_or_null(const char *key, __u64 v, int known)
{
	if (known)
		printf(",\"%s\":%llu", key, (unsigned long long)v);
	else
		printf(",\"%s\":null", key);
}

static void print_rec(const struct iolat_state *s, double t, __u64 now_ns)
{
	const struct iolat_state_children *c = &s->children;
	bool ssd = s->flags & IOLAT_STATE_SSD;

	printf("{\"time\":%.6f,\"now_ns\":%llu,\"device\":\"%u:%u\",\"cgroup_id\":%llu,"
	       "\"parent_id\":%llu,\"online\":%s,\"ssd\":%s",
	       t, (unsigned long long)now_ns, IOLAT_MAJOR(s->dev), IOLAT_MINOR(s->dev),
	       (unsigned long long)s->cgroup_id, (unsigned long long)s->parent_id,
	       s->flags & IOLAT_STATE_ONLINE ? "true" : "false", ssd ? "true" : "false");
	print_u64_or_null("target_us", s->target_ns / 1000, s->target_ns);
	if (s->depth == IOLAT_DEPTH_MAX)
		printf(",\"depth\":\"max\"");
	else
		printf(",\"depth\":%u", s->depth);
	printf(",\"inflight\":%u,\"cookie\":%u,\"use_delay\":%d,\"delay_ns\":%llu",
	       s->inflight, s->cookie, s->use_delay, (unsigned long long)s->delay_ns);
	printf(",\"win_ms\":%llu,\"window_start_ns\":%llu,\"lat_avg_ns\":%llu,"
	       "\"nr_samples\":%llu,\"cur_samples\":%llu",
	       (unsigned long long)(s->win_ns / 1000000), (unsigned long long)s->window_start_ns,
	       (unsigned long long)s->lat_avg_ns, (unsigned long long)s->nr_samples,
	       (unsigned long long)s->cur_samples);
	print_u64_or_null("cur_missed", s->cur_missed, ssd);
	print_u64_or_null("cur_mean_ns", s->cur_mean_ns, !ssd);
	printf(",\"children\":{\"cookie\":%u,\"scale_lat_us\":%llu,\"last_scale_event_ns\":%llu,"
	       "\"culprit\":", c->cookie, (unsigned long long)(c->scale_lat_ns / 1000),
	       (unsigned long long)c->last_scale_event_ns);
	if (!(s->flags & IOLAT_STATE_CULPRIT))
		printf("null");
	else if (s->flags & IOLAT_STATE_CULPRIT_UNKNOWN)
		printf("\"unknown\"");
	else if (s->flags & IOLAT_STATE_CULPRIT_STALE)
		printf("\"stale\"");
	else
		printf("%llu", (unsigned long long)c->culprit_id);
	printf("}}\n");
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct iolat_state_reader *r;
	struct iolat_state *buf;
	struct iolat_state_walk walk;
	char why[512];
	double tick;
	long n;
	int err;

	argp_err_exit_status = IOLAT_EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return IOLAT_EXIT_USAGE;
	err = iolat_preflight_root(TOOL);
	if (err)
		return err;
	buf = calloc(IOLAT_STATE_MAX, sizeof(*buf));
	if (!buf) {
		fprintf(stderr, TOOL ": out of memory\n");
		return IOLAT_EXIT_ERROR;
	}
	r = iolat_state_open(env.dev, why, sizeof(why));
	if (!r) {
		fprintf(stderr, TOOL ": %s\n", why);
		free(buf);
		return IOLAT_EXIT_UNSUPPORTED;
	}
	iolat_handle_signals();
	tick = iolat_mono();
	for (n = 0; !iolat_exiting && (!env.count || n < env.count); n++) {
		double t;
		size_t i;

		if (n) {
			tick = iolat_next_tick(tick, env.interval, iolat_mono());
			if (iolat_sleep_until(tick))
				break;
		}
		err = iolat_state_sample(r, buf, IOLAT_STATE_MAX, &walk);
		if (err) {
			fprintf(stderr, TOOL ": sample %ld: %s\n", n + 1, strerror(-err));
			break;
		}
		t = iolat_now();
		for (i = 0; i < walk.count; i++)
			print_rec(&buf[i], t, walk.now_ns);
		if (walk.dropped)
			fprintf(stderr, TOOL ": sample %ld: %zu groups left out\n", n + 1,
				walk.dropped);
		if (iolat_flush(TOOL, stdout)) {
			err = -EIO;
			break;
		}
	}
	iolat_state_close(r);
	free(buf);
	return err ? IOLAT_EXIT_ERROR : IOLAT_EXIT_OK;
}
