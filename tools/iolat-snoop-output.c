// SPDX-License-Identifier: GPL-2.0
/* iolat-snoop's records, text and JSON.  See iolat-snoop-output.h. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-snoop-output.h"

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

static const char *const skip_reasons[IOLAT_REASON_NR] = {
	"raced", "protected", "few_ios",
};

static const char *const target_by[IOLAT_TARGET_BY_NR] = {
	"user", "offline",
};

const char *const snoop_type_names[IOLAT_EV_NR] = {
	"window", "target", "cookie", "culprit_forgotten", "depth",
	"throttle", "use_delay", "delay_charge", "delay_pay", "enable",
	"scale_reset", "scale_skip", "charge", "sleep",
};

#define NAME(tab, i) ((unsigned)(i) < sizeof(tab) / sizeof(*(tab)) ? (tab)[i] : "?")

static const char *depth_str(__u32 d, char *buf, size_t len)
{
	if (d == IOLAT_DEPTH_MAX)
		return "max";
	snprintf(buf, len, "%u", d);
	return buf;
}

static void json_depth(FILE *f, const char *key, __u32 d)
{
	if (d == IOLAT_DEPTH_MAX)	/* as iolat-top and io.stat write it */
		fprintf(f, ",\"%s\":\"max\"", key);
	else
		fprintf(f, ",\"%s\":%u", key, d);
}

static void json_str_or_null(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	if (s)
		iolat_json_str(f, s);
	else
		fprintf(f, "null");
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

void snoop_print_json(FILE *f, const struct iolat_event *e, const char *path,
		      const char *culprit, double t)
{
	iolat_json_begin(f, "iolat-snoop", t, 6);
	fprintf(f, ",\"event\":\"%s\",\"device\":", snoop_type_names[e->type]);
	iolat_json_str(f, iolat_dev_name(e->dev));
	json_str_or_null(f, "cgroup", path);
	if (e->cgroup_id)
		fprintf(f, ",\"cgroup_id\":%llu", (unsigned long long)e->cgroup_id);
	else
		fprintf(f, ",\"cgroup_id\":null");

	switch (e->type) {
	case IOLAT_EV_WINDOW:
		/* verdict: as iolat-top's (met, missed, offline) */
		fprintf(f, ",\"met\":%s,\"win_met\":%s,\"verdict\":\"%s\",\"target_us\":%llu,"
		       "\"win_ms\":%llu,\"samples\":%llu,\"acc_samples\":%llu",
		       e->window.met ? "true" : "false",
		       e->window.win_met ? "true" : "false",
		       e->window.action == IOLAT_ACT_OFFLINE ? "offline" :
		       e->window.met ? "met" : "missed",
		       e->window.target_ns / 1000, e->window.win_ns / 1000000,
		       e->window.samples, e->window.acc_samples);
		if (e->window.ssd)
			fprintf(f, ",\"stat\":\"missed\",\"missed\":%llu,\"acc_missed\":%llu",
			       e->window.missed, e->window.acc_missed);
		else
			fprintf(f, ",\"stat\":\"mean\",\"mean_us\":%llu,\"acc_mean_us\":%llu",
			       e->window.mean_ns / 1000, e->window.acc_mean_ns / 1000);
		fprintf(f, ",\"action\":\"%s\",\"cookie\":%u,\"scale_lat_us\":%llu",
		       iolat_action_name(e->window.action), e->window.cookie,
		       e->window.scale_lat_ns / 1000);
		break;
	case IOLAT_EV_TARGET:
		fprintf(f, ",\"old_us\":%llu,\"new_us\":%llu,\"win_ms\":%llu,\"by\":\"%s\"",
		       e->target.old_ns / 1000, e->target.new_ns / 1000,
		       e->target.win_ns / 1000000, NAME(target_by, e->target.by));
		break;
	case IOLAT_EV_ENABLE:
		fprintf(f, ",\"old\":%s,\"new\":%s,\"nr_targets\":%d,\"frozen_us\":%llu",
		       e->enable.old ? "true" : "false",
		       e->enable.new ? "true" : "false", e->enable.nr_targets,
		       e->enable.frozen_ns / 1000);
		break;
	case IOLAT_EV_COOKIE:
	case IOLAT_EV_GRP_CLEAR:
	case IOLAT_EV_RESET:
		fprintf(f, ",\"old\":%u,\"new\":%u,\"direction\":\"%s\",\"step\":%lld",
		       e->scale.old, e->scale.new,
		       direction(e->scale.old, e->scale.new),
		       (long long)e->scale.new - e->scale.old);
		if (e->type == IOLAT_EV_GRP_CLEAR)	/* as before the ids */
			fprintf(f, ",\"cookie\":%u", e->scale.new);
		json_str_or_null(f, "culprit", culprit);
		if (e->scale.culprit_id)
			fprintf(f, ",\"culprit_id\":%llu", e->scale.culprit_id);
		else
			fprintf(f, ",\"culprit_id\":null");
		fprintf(f, ",\"scale_lat_us\":%llu,\"idle_ms\":%llu,\"by\":\"%s\"",
		       e->scale.scale_lat_ns / 1000, e->scale.idle_ns / 1000000,
		       iolat_scale_by_name(e->scale.by));
		break;
	case IOLAT_EV_SKIP:
		fprintf(f, ",\"old\":%u,\"new\":%u,\"reason\":\"%s\",\"target_us\":%llu,"
		       "\"scale_lat_us\":%llu,\"samples\":%llu,\"thresh\":%llu",
		       e->skip.old, e->skip.new, NAME(skip_reasons, e->skip.reason),
		       e->skip.target_ns / 1000, e->skip.scale_lat_ns / 1000,
		       e->skip.samples, e->skip.thresh);
		break;
	case IOLAT_EV_DEPTH:
		json_depth(f, "old", e->depth.old);
		json_depth(f, "new", e->depth.new);
		fprintf(f, ",\"cookie\":%u,\"nr_requests\":%u", e->depth.cookie,
		       e->depth.nr_requests);
		break;
	case IOLAT_EV_THROTTLE:
		json_depth(f, "depth", e->throttle.depth);
		fprintf(f, ",\"inflight\":%u,\"wait_us\":%llu",
		       e->throttle.inflight, e->throttle.wait_ns / 1000);
		/* Who waited: the group's task, or the flusher, jbd2, kswapd for it. */
		fprintf(f, ",\"pid\":%u,\"comm\":", e->pid);
		iolat_json_str(f, e->comm);
		break;
	case IOLAT_EV_USE_DELAY:
		fprintf(f, ",\"old\":%d,\"new\":%d,\"delay_us\":%llu", e->use_delay.old,
		       e->use_delay.new, e->use_delay.delay_ns / 1000);
		break;
	case IOLAT_EV_CHARGE:
		fprintf(f, ",\"lat_us\":%llu,\"charge_us\":%llu,\"delay_us\":%llu",
		       e->charge.lat_ns / 1000, e->charge.charge_ns / 1000,
		       e->charge.delay_ns / 1000);
		break;
	case IOLAT_EV_PAY:
		fprintf(f, ",\"pid\":%u,\"comm\":", e->pid);
		iolat_json_str(f, e->comm);
		fprintf(f, ",\"delay_us\":%llu,\"sleep_us\":%llu,\"slept_us\":%llu,"
		       "\"capped\":%s,\"memstall\":%s",
		       e->pay.delay_ns / 1000, e->pay.sleep_ns / 1000,
		       e->pay.slept_ns / 1000, e->pay.capped ? "true" : "false",
		       e->pay.memstall ? "true" : "false");
		break;
	case IOLAT_EV_FN_CHARGE:
		fprintf(f, ",\"charge_us\":%llu,\"delay_us\":%llu",
			e->fn_charge.charge_ns / 1000, e->fn_charge.delay_ns / 1000);
		break;
	case IOLAT_EV_FN_SLEEP:
		fprintf(f, ",\"pid\":%u,\"comm\":", e->pid);
		iolat_json_str(f, e->comm);
		fprintf(f, ",\"slept_us\":%llu", e->fn_sleep.slept_ns / 1000);
		break;
	}
	fprintf(f, "}\n");
}

/* "/a/b (id 123)", or "cgroup id 123" for a cgroup gone before we looked. */
static void print_culprit(FILE *f, const struct iolat_event *e,
			  const char *culprit)
{
	if (culprit)
		fprintf(f, "%s (id %llu, ", culprit, e->scale.culprit_id);
	else
		fprintf(f, "cgroup id %llu (", e->scale.culprit_id);
	fprintf(f, "target %lluus)", e->scale.scale_lat_ns / 1000);
}

void snoop_print_text(FILE *f, const struct iolat_event *e, const char *path,
		      const char *culprit, double t)
{
	static char name[IOLAT_ESC_LEN(PATH_MAX)], cname[IOLAT_ESC_LEN(PATH_MAX)];
	char a[32], b[32], cg[32], comm[IOLAT_ESC_LEN(IOLAT_COMM_LEN)];

	/* Names are anyone's with a delegated subtree: no raw escapes. */
	if (path)
		path = iolat_esc(name, sizeof(name), path);
	if (culprit)
		culprit = iolat_esc(cname, sizeof(cname), culprit);
	if (!path && e->cgroup_id)
		snprintf(cg, sizeof(cg), "cgroup %llu", (unsigned long long)e->cgroup_id);
	else if (!path)
		snprintf(cg, sizeof(cg), "-");
	fprintf(f, "%s %-8s %-28s %-12s ", iolat_clock(t), iolat_dev_name(e->dev),
	       path ?: cg, snoop_type_names[e->type]);

	switch (e->type) {
	case IOLAT_EV_WINDOW:
		if (e->window.ssd)
			fprintf(f, "%s: %llu/%llu bios over %lluus in %llums, %llu/%llu accumulated",
			       verdict(e), e->window.missed, e->window.samples,
			       e->window.target_ns / 1000, e->window.win_ns / 1000000,
			       e->window.acc_missed, e->window.acc_samples);
		else
			fprintf(f, "%s: mean %lluus vs %lluus over %llu bios in %llums, "
			       "%lluus over %llu accumulated", verdict(e),
			       e->window.mean_ns / 1000, e->window.target_ns / 1000,
			       e->window.samples, e->window.win_ns / 1000000,
			       e->window.acc_mean_ns / 1000, e->window.acc_samples);
		fprintf(f, "; %s (cookie %u", NAME(action_text, e->window.action),
		       e->window.cookie);
		if (e->window.action == IOLAT_ACT_TIGHTER)
			fprintf(f, ", scaling for %lluus", e->window.scale_lat_ns / 1000);
		fprintf(f, ")");
		break;
	case IOLAT_EV_TARGET:
		fprintf(f, "target %lluus -> %lluus, window %llums%s",
		       e->target.old_ns / 1000, e->target.new_ns / 1000,
		       e->target.win_ns / 1000000,
		       e->target.by == IOLAT_TARGET_BY_OFFLINE ? ", as the group went offline" : "");
		break;
	case IOLAT_EV_ENABLE:
		fprintf(f, "io.latency %s for the device (%d group%s with a target), queue frozen %lluus",
		       e->enable.new ? "ON" : "OFF", e->enable.nr_targets,
		       e->enable.nr_targets == 1 ? "" : "s", e->enable.frozen_ns / 1000);
		break;
	case IOLAT_EV_COOKIE:
		fprintf(f, "children scaled %s: cookie %u -> %u (step %lld), ",
		       e->scale.new > e->scale.old ? "UP" : "DOWN", e->scale.old,
		       e->scale.new, (long long)e->scale.new - e->scale.old);
		if (e->scale.by == IOLAT_BY_TIMER)
			fprintf(f, "by the idle timer");
		else if (e->scale.culprit_id) {
			fprintf(f, "for ");
			print_culprit(f, e, culprit);
		} else
			fprintf(f, "by a window, no culprit");
		break;
	case IOLAT_EV_GRP_CLEAR:
		fprintf(f, "forgot culprit ");
		print_culprit(f, e, culprit);
		fprintf(f, " after %llums without scaling (cookie %u)",
		       e->scale.idle_ns / 1000000, e->scale.new);
		break;
	case IOLAT_EV_RESET:
		fprintf(f, "children's scaling reset: cookie %u -> %u, ", e->scale.old,
		       e->scale.new);
		if (e->scale.culprit_id) {
			fprintf(f, "culprit ");
			print_culprit(f, e, culprit);
			fprintf(f, " forgotten, ");
		} else
			fprintf(f, "no culprit, ");
		fprintf(f, "%s", e->scale.by == IOLAT_BY_TARGET ? "a child's target was written" :
		       e->scale.by == IOLAT_BY_OFFLINE ? "a child went offline" :
		       iolat_scale_by_name(e->scale.by));
		break;
	case IOLAT_EV_SKIP:
		fprintf(f, "did not follow cookie %u -> %u: ", e->skip.old, e->skip.new);
		switch (e->skip.reason) {
		case IOLAT_REASON_RACED:
			fprintf(f, "raced, another bio took the change");
			break;
		case IOLAT_REASON_PROTECTED:
			fprintf(f, "protected, its target %lluus as tight as the %lluus that missed",
			       e->skip.target_ns / 1000, e->skip.scale_lat_ns / 1000);
			break;
		case IOLAT_REASON_FEW_IOS:
			fprintf(f, "few_ios, %llu samples, at most 5%% of its siblings' (%llu)",
			       e->skip.samples, e->skip.thresh);
			break;
		default:
			fprintf(f, "reason %d", e->skip.reason);
		}
		break;
	case IOLAT_EV_DEPTH:
		fprintf(f, "depth %s -> %s (cookie %u, nr_requests %u)",
		       depth_str(e->depth.old, a, sizeof(a)),
		       depth_str(e->depth.new, b, sizeof(b)), e->depth.cookie,
		       e->depth.nr_requests);
		break;
	case IOLAT_EV_THROTTLE:
		fprintf(f, "bio slept %lluus for a slot (depth %u, %u in flight), "
			"submitted by pid %u (%s)", e->throttle.wait_ns / 1000,
			e->throttle.depth, e->throttle.inflight, e->pid,
			iolat_esc(comm, sizeof(comm), e->comm));
		break;
	case IOLAT_EV_USE_DELAY:
		fprintf(f, "induced delay %s: use_delay %d -> %d, %lluus pending",
		       e->use_delay.new > 0 ? (e->use_delay.old > 0 ? "deeper" : "ON") :
		       "OFF", e->use_delay.old, e->use_delay.new,
		       e->use_delay.delay_ns / 1000);
		break;
	case IOLAT_EV_CHARGE:
		fprintf(f, "root-issued bio took %lluus: charged %lluus, %lluus pending",
		       e->charge.lat_ns / 1000, e->charge.charge_ns / 1000,
		       e->charge.delay_ns / 1000);
		break;
	case IOLAT_EV_PAY:
		fprintf(f, "pid %u (%s) slept %.1fms of %.1fms owed%s%s", e->pid,
		       iolat_esc(comm, sizeof(comm), e->comm),
		       e->pay.slept_ns / 1e6, e->pay.delay_ns / 1e6,
		       e->pay.capped ? " (capped at 250ms)" : "",
		       e->pay.memstall ? ", as memory stall" : "");
		break;
	case IOLAT_EV_FN_CHARGE:
		fprintf(f, "blkcg_add_delay: charged %lluus, %lluus pending",
			e->fn_charge.charge_ns / 1000, e->fn_charge.delay_ns / 1000);
		break;
	case IOLAT_EV_FN_SLEEP:
		fprintf(f, "pid %u (%s) slept %.1fms in blkcg_maybe_throttle_current",
			e->pid, iolat_esc(comm, sizeof(comm), e->comm),
			e->fn_sleep.slept_ns / 1e6);
		break;
	}
	fprintf(f, "\n");
}


void snoop_print_sampled(FILE *f, bool json, const struct snoop_change *c,
			 const char *path, const char *culprit, double since, double t)
{
	static char name[IOLAT_ESC_LEN(PATH_MAX)], cname[IOLAT_ESC_LEN(PATH_MAX)];
	char a[32], b[32], cg[32];

	if (json) {
		iolat_json_begin(f, "iolat-snoop", t, 6);
		fprintf(f, ",\"event\":\"%s\",\"device\":", snoop_type_names[c->type]);
		iolat_json_str(f, iolat_dev_name(c->dev));
		json_str_or_null(f, "cgroup", path);
		fprintf(f, ",\"cgroup_id\":%llu,\"source\":\"sampled\",\"since\":%.6f",
			(unsigned long long)c->cgroup_id, since);
		switch (c->type) {
		case IOLAT_EV_TARGET:
			fprintf(f, ",\"old_us\":%lld,\"new_us\":%lld,\"win_ms\":%llu",
				(long long)c->old / 1000, (long long)c->new / 1000,
				(unsigned long long)c->win_ns / 1000000);
			break;
		case IOLAT_EV_COOKIE:
		case IOLAT_EV_GRP_CLEAR:
			if (c->type == IOLAT_EV_COOKIE)
				fprintf(f, ",\"old\":%lld,\"new\":%lld,\"direction\":\"%s\"",
					(long long)c->old, (long long)c->new,
					direction(c->old, c->new));
			else
				fprintf(f, ",\"cookie\":%u", c->cookie);
			json_str_or_null(f, "culprit", culprit);
			if (c->culprit_id)
				fprintf(f, ",\"culprit_id\":%llu", (unsigned long long)c->culprit_id);
			else
				fprintf(f, ",\"culprit_id\":null");
			fprintf(f, ",\"scale_lat_us\":%llu",
				(unsigned long long)c->scale_lat_ns / 1000);
			break;
		case IOLAT_EV_DEPTH:
			json_depth(f, "old", c->old);
			json_depth(f, "new", c->new);
			fprintf(f, ",\"cookie\":%u", c->cookie);
			break;
		case IOLAT_EV_USE_DELAY:
			fprintf(f, ",\"old\":%lld,\"new\":%lld,\"delay_us\":%llu",
				(long long)c->old, (long long)c->new,
				(unsigned long long)c->delay_ns / 1000);
			break;
		}
		fputs("}\n", f);
		return;
	}
	if (path)
		path = iolat_esc(name, sizeof(name), path);
	if (culprit)
		culprit = iolat_esc(cname, sizeof(cname), culprit);
	snprintf(cg, sizeof(cg), "cgroup %llu", (unsigned long long)c->cgroup_id);
	fprintf(f, "%s %-8s %-28s %-12s ", iolat_clock(t), iolat_dev_name(c->dev),
		path ?: cg, snoop_type_names[c->type]);
	switch (c->type) {
	case IOLAT_EV_TARGET:
		fprintf(f, "target %lldus -> %lldus, window %llums", (long long)c->old / 1000,
			(long long)c->new / 1000, (unsigned long long)c->win_ns / 1000000);
		break;
	case IOLAT_EV_COOKIE:
	case IOLAT_EV_GRP_CLEAR:
		if (c->type == IOLAT_EV_COOKIE)
			fprintf(f, "children scaled %s: cookie %lld -> %lld, ",
				c->new > c->old ? "UP" : "DOWN", (long long)c->old,
				(long long)c->new);
		else
			fprintf(f, "forgot culprit ");
		if (!c->culprit_id)
			fprintf(f, "%s", c->named ? "a culprit not told (gone, or left out of "
				"the walk)" : "no culprit named");
		else if (culprit)
			fprintf(f, "%s%s (id %llu, target %lluus)",
				c->type == IOLAT_EV_COOKIE ? "for " : "", culprit,
				(unsigned long long)c->culprit_id,
				(unsigned long long)c->scale_lat_ns / 1000);
		else
			fprintf(f, "%scgroup id %llu (target %lluus)",
				c->type == IOLAT_EV_COOKIE ? "for " : "",
				(unsigned long long)c->culprit_id,
				(unsigned long long)c->scale_lat_ns / 1000);
		if (c->type == IOLAT_EV_GRP_CLEAR)
			fprintf(f, " (cookie %u)", c->cookie);
		break;
	case IOLAT_EV_DEPTH:
		fprintf(f, "depth %s -> %s (cookie %u)", depth_str(c->old, a, sizeof(a)),
			depth_str(c->new, b, sizeof(b)), c->cookie);
		break;
	case IOLAT_EV_USE_DELAY:
		fprintf(f, "induced delay %s: use_delay %lld -> %lld, %lluus pending",
			c->new > 0 ? (c->old > 0 ? "deeper" : "ON") : "OFF",
			(long long)c->old, (long long)c->new,
			(unsigned long long)c->delay_ns / 1000);
		break;
	}
	fprintf(f, " (sampled, within %.0fms)\n", (t - since) * 1000);
}

/* The events' record kinds the functions cannot give ... */
static const int cannot_see[] = {
	IOLAT_EV_WINDOW, IOLAT_EV_TARGET, IOLAT_EV_COOKIE, IOLAT_EV_GRP_CLEAR,
	IOLAT_EV_DEPTH, IOLAT_EV_THROTTLE, IOLAT_EV_USE_DELAY, IOLAT_EV_CHARGE,
	IOLAT_EV_PAY, IOLAT_EV_ENABLE, IOLAT_EV_RESET, IOLAT_EV_SKIP,
};

/* ... of which the state's samples give these, as changes between two. */
static bool sampled_kind(int type)
{
	return type == IOLAT_EV_TARGET || type == IOLAT_EV_COOKIE ||
	       type == IOLAT_EV_GRP_CLEAR || type == IOLAT_EV_DEPTH ||
	       type == IOLAT_EV_USE_DELAY;
}

void snoop_print_mode(FILE *f, bool json, double t, const char *reason,
		      const struct iolat_fns *fns, bool all, int cgroupns,
		      const char *state, int sample_ms)
{
	bool charge = fns && fns->attached[IOLAT_FN_ADD_DELAY] && all;
	bool sleep = fns && fns->attached[IOLAT_FN_THROTTLE];
	bool sampled = state && !strcmp(state, "used");
	char text[512];
	size_t i;
	int n;

	if (!json && cgroupns == 1)
		fprintf(f, "# inside a cgroup namespace: paths start at its root\n");
	if (!fns && json) {
		iolat_json_begin(f, "iolat-snoop", t, 6);
		fprintf(f, ",\"event\":\"mode\",\"mode\":\"events\",\"cgroupns\":%s}\n",
			cgroupns < 0 ? "null" : cgroupns ? "true" : "false");
	}
	if (!fns)
		return;
	if (!json) {
		fprintf(f, "# mode: functions (%s): %s; logs:%s%s%s; ", reason,
			iolat_fns_text(fns, text, sizeof(text)),
			charge ? " charge" : "", sleep ? " sleep" : "",
			charge || sleep ? "" : " nothing (charges need -a)");
		if (sampled) {
			fprintf(f, "io.latency's state sampled every %dms, its changes:", sample_ms);
			for (i = 0; i < sizeof(cannot_see) / sizeof(*cannot_see); i++)
				if (sampled_kind(cannot_see[i]))
					fprintf(f, " %s", snoop_type_names[cannot_see[i]]);
		} else {
			fprintf(f, "io.latency's state not read: %s", state ?: "?");
		}
		fprintf(f, "; cannot see (the events only):");
		for (i = 0; i < sizeof(cannot_see) / sizeof(*cannot_see); i++)
			if (!sampled || !sampled_kind(cannot_see[i]))
				fprintf(f, " %s", snoop_type_names[cannot_see[i]]);
		fputc('\n', f);
		return;
	}
	iolat_json_begin(f, "iolat-snoop", t, 6);
	fprintf(f, ",\"event\":\"mode\",\"mode\":\"functions\",\"cgroupns\":%s,\"mode_reason\":",
		cgroupns < 0 ? "null" : cgroupns ? "true" : "false");
	iolat_json_text(f, reason);
	fputs(",\"functions\":", f);
	for (i = 0; i < IOLAT_FN_NR; i++) {
		fprintf(f, "%c\"%s\":", i ? ',' : '{', iolat_fn_names[i]);
		iolat_json_text(f, fns->attached[i] ? "attached" :
			       fns->why[i][0] ? fns->why[i] : "not attached");
	}
	fprintf(f, "},\"logs\":[%s%s%s],\"state\":", charge ? "\"charge\"" : "",
		charge && sleep ? "," : "", sleep ? "\"sleep\"" : "");
	iolat_json_text(f, state ?: "?");
	if (sampled)
		fprintf(f, ",\"sample_ms\":%d", sample_ms);
	else
		fputs(",\"sample_ms\":null", f);
	fputs(",\"sampled\":[", f);
	for (i = 0, n = 0; i < sizeof(cannot_see) / sizeof(*cannot_see); i++)
		if (sampled && sampled_kind(cannot_see[i]))
			fprintf(f, "%s\"%s\"", n++ ? "," : "", snoop_type_names[cannot_see[i]]);
	fputs("],\"cannot_see\":[", f);
	for (i = 0, n = 0; i < sizeof(cannot_see) / sizeof(*cannot_see); i++)
		if (!sampled || !sampled_kind(cannot_see[i]))
			fprintf(f, "%s\"%s\"", n++ ? "," : "", snoop_type_names[cannot_see[i]]);
	fputs("]}\n", f);
}

void snoop_print_header(FILE *f)
{
	fprintf(f, "%-12s %-8s %-28s %-12s %s\n", "TIME", "DEVICE", "CGROUP",
		"EVENT", "DECISION");
}

void snoop_report_lost(FILE *f, bool json, double t, __u64 lost, __u64 *reported)
{
	unsigned long long more = lost - *reported;

	if (lost <= *reported)
		return;
	/* In the output itself, where a reader of the log sees the gap. */
	if (json) {
		iolat_json_begin(f, "iolat-snoop", t, 6);
		fprintf(f, ",\"event\":\"lost\",\"lost_events\":%llu,"
			"\"lost_events_new\":%llu}\n", (unsigned long long)lost, more);
	} else {
		fprintf(f, "%s %-8s %-28s %-12s %llu events lost (ring buffer full), "
			"%llu since the start\n", iolat_clock(t), "-", "-", "lost",
			more, (unsigned long long)lost);
	}
	fprintf(stderr, "iolat-snoop: lost %llu events (ring buffer full)\n", more);
	*reported = lost;
}

static bool has_culprit(__u32 type)
{
	return type == IOLAT_EV_COOKIE || type == IOLAT_EV_GRP_CLEAR ||
	       type == IOLAT_EV_RESET;
}

/*
 * A record's cgroup and culprit (@culprit_id 0: none) as paths in *@path
 * and *@culprit, NULL for one we cannot place (outside our namespace:
 * cgroup null, its id); false when -c filters the record out.
 */
static bool record_paths(struct snoop_out *o, __u64 cgroup_id, __u64 culprit_id,
			 const char **path, const char **culprit)
{
	static char pbuf[PATH_MAX];

	*path = o->path(o->arg, cgroup_id);
	/* Copied: the culprit's lookup may overwrite it. */
	if (*path) {
		snprintf(pbuf, sizeof(pbuf), "%s", *path);
		*path = pbuf;
	}
	*culprit = culprit_id ? o->path(o->arg, culprit_id) : NULL;
	return !o->re ||
	       (*path && !regexec(o->re, *path, 0, NULL, 0)) ||
	       (*culprit && !regexec(o->re, *culprit, 0, NULL, 0));
}

int snoop_record(void *ctx, void *data, size_t len)
{
	struct snoop_out *o = ctx;
	struct iolat_event e;
	const char *path, *culprit;
	double t;

	if (len < sizeof(e) || o->err)
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.type >= IOLAT_EV_NR)
		return 0;
	if (!record_paths(o, e.cgroup_id, has_culprit(e.type) ? e.scale.culprit_id : 0,
			  &path, &culprit))
		return 0;
	t = o->t0_real + (e.ts_ns / 1e9 - o->t0_mono);
	if (o->json)
		snoop_print_json(o->f, &e, path, culprit, t);
	else
		snoop_print_text(o->f, &e, path, culprit, t);
	/*
	 * Flushed once per batch (snoop_flush() after the poll), not per
	 * record: a system call per record slows the reader most when the
	 * events come fastest, and then the ring buffer fills.  A long batch
	 * is written here before stdio's own flush of a full buffer would:
	 * that one cuts a record in two, and its error keeps no errno.
	 */
	if (__fpending(o->f) >= SNOOP_FLUSH_AT)
		snoop_flush(o);
	return 0;
}

int snoop_record_sampled(struct snoop_out *o, const struct snoop_change *c,
			 double since, double t)
{
	const char *path, *culprit;

	if (o->err || !record_paths(o, c->cgroup_id, c->culprit_id, &path, &culprit))
		return 0;
	snoop_print_sampled(o->f, o->json, c, path, culprit, since, t);
	if (__fpending(o->f) >= SNOOP_FLUSH_AT)
		snoop_flush(o);
	return 0;
}

int snoop_flush(struct snoop_out *o)
{
	if (!o->err)
		o->err = iolat_flush("iolat-snoop", o->f);
	return o->err;
}
