// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of iolat-snoop's records: fake events through its text
 * and JSON writers and, as the ring buffer hands them over, in batches
 * through its record callback; no kernel, no BPF.  Prints "ok"/"FAIL" per check and
 * exits 1 if any failed; with an argument, writes every JSON record it
 * made to that file, one a line (06-model.sh's schema check reads it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "check.h"
#include "iolat-common.h"
#include "iolat.h"
#include "iolat-snoop-output.h"
#include "iolat-snoop-state.h"

/* Fake devices: a major no host has, so its name is "MAJ:MIN". */
#define DEV1 IOLAT_MKDEV(4000U, 1U)
#define T0 1764763200.5

/* What @fn wrote, as a string (static, until the next call). */
static char *out_buf;
static size_t out_len;

static FILE *out_open(void)
{
	free(out_buf);
	out_buf = NULL;
	return open_memstream(&out_buf, &out_len);
}

static const char *out_close(FILE *f)
{
	fclose(f);
	return out_buf;
}

static const char *json(const struct iolat_event *e, const char *path,
			const char *culprit)
{
	FILE *f = out_open();

	snoop_print_json(f, e, path, culprit, T0);
	out_close(f);
	if (records)
		fputs(out_buf, records);
	return out_buf;
}

static const char *text(const struct iolat_event *e, const char *path,
			const char *culprit)
{
	FILE *f = out_open();

	snoop_print_text(f, e, path, culprit, T0);
	return out_close(f);
}

/* A missed window of /p/tight on a non-rotational queue: scaled down. */
static struct iolat_event window_event(void)
{
	struct iolat_event e = {
		.ts_ns = 1, .cgroup_id = 42, .dev = DEV1, .type = IOLAT_EV_WINDOW,
	};

	e.window.target_ns = 1000000;
	e.window.win_ns = 100000000;
	e.window.samples = 40;
	e.window.missed = 40;
	e.window.acc_samples = 40;
	e.window.acc_missed = 40;
	e.window.scale_lat_ns = 1000000;
	e.window.cookie = 999996;
	e.window.action = IOLAT_ACT_DOWN;
	e.window.ssd = 1;
	return e;
}

static void test_records(void)
{
	struct iolat_event e = window_event();
	const char *out;

	out = json(&e, "/p/tight", NULL);
	check(strstr(out, "\"event\":\"window\"") && strstr(out, "\"cgroup\":\"/p/tight\"") &&
	      strstr(out, "\"action\":\"down\"") && strstr(out, "\"target_us\":1000") &&
	      out[strlen(out) - 1] == '\n', "json: a window record: %s", out);
	out = text(&e, "/p/tight", NULL);
	check(strstr(out, "/p/tight") && strstr(out, "MISSED: 40/40 bios over 1000us"),
	      "text: a window line: %s", out);
}

/* The number of control characters in @s, its last newline aside. */
static int raw_controls(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += (unsigned char)*s < 0x20 && !(*s == '\n' && !s[1]);
	return n;
}

/*
 * Cgroup names (and a task's comm) are anyone's with a delegated subtree:
 * in text, their control characters are \xNN, never raw to a terminal.
 */
static void test_text_escape(void)
{
	struct iolat_event e = { .cgroup_id = 43, .dev = DEV1, .type = IOLAT_EV_COOKIE };
	const char *out;

	e.scale.culprit_id = 44;
	e.scale.old = 1000000;
	e.scale.new = 999996;
	out = text(&e, "/x/\033[2Jevil", "/x/tab\there");
	check(!raw_controls(out) && strstr(out, "/x/\\x1b[2Jevil") &&
	      strstr(out, "/x/tab\\x09here"),
	      "text: path and culprit escaped (%d raw): %s", raw_controls(out), out);
	e = (struct iolat_event){ .cgroup_id = 43, .dev = DEV1, .type = IOLAT_EV_PAY, .pid = 7 };
	snprintf(e.comm, sizeof(e.comm), "a\033]0;hi\007");
	out = text(&e, NULL, NULL);
	check(!raw_controls(out) && strstr(out, "(a\\x1b]0;hi\\x07)"),
	      "text: a task's comm escaped (%d raw): %s", raw_controls(out), out);
	out = json(&e, "/x/\033[2Jevil", NULL);
	check(!raw_controls(out), "json: no raw control characters (%d): %s",
	      raw_controls(out), out);
}

/* Events the ring buffer could not take are said in the output itself. */
static void test_lost(void)
{
	__u64 reported = 0;
	const char *out;
	FILE *f;

	f = out_open();
	snoop_report_lost(f, true, T0, 7, &reported);
	out = out_close(f);
	if (records)
		fputs(out, records);
	check(strstr(out, "\"event\":\"lost\"") && strstr(out, "\"lost_events\":7") &&
	      strstr(out, "\"lost_events_new\":7"),
	      "lost: 7 events lost: a JSON record: '%s'", out);
	f = out_open();
	snoop_report_lost(f, true, T0, 7, &reported);
	out = out_close(f);
	check(!*out, "lost: none more: no record ('%s')", out);
	f = out_open();
	snoop_report_lost(f, false, T0, 10, &reported);
	out = out_close(f);
	check(strstr(out, "lost") && strstr(out, "3 events lost") && strstr(out, "10 since"),
	      "lost: 3 more: a text line: '%s'", out);
}

/*
 * One event of each type (a window of each statistic, a scale event with
 * and without its culprit known), for the schema check of the records.
 */
static void test_every_event(void)
{
	struct iolat_event e;
	int type, n = 0;
	const char *out;

	for (type = 0; type < IOLAT_EV_NR; type++) {
		e = (struct iolat_event){ .cgroup_id = 42, .dev = DEV1, .type = type, .pid = 9 };
		snprintf(e.comm, sizeof(e.comm), "fio");
		switch (type) {
		case IOLAT_EV_WINDOW:
			e = window_event();
			json(&e, "/p/tight", NULL);
			e.window.ssd = 0;
			e.window.mean_ns = 2500000;
			break;
		case IOLAT_EV_ENABLE:
			e.cgroup_id = 0;
			e.enable.new = 1;
			e.enable.nr_targets = 1;
			break;
		case IOLAT_EV_COOKIE:
		case IOLAT_EV_GRP_CLEAR:
		case IOLAT_EV_RESET:
			e.scale.old = 1000000;
			e.scale.new = 999996;
			json(&e, "/p", NULL);
			e.scale.culprit_id = 43;
			break;
		case IOLAT_EV_DEPTH:
			e.depth.old = IOLAT_DEPTH_MAX;
			e.depth.new = 4;
			break;
		case IOLAT_EV_THROTTLE:
			e.throttle.depth = 1;
			break;
		}
		out = json(&e, e.cgroup_id ? "/p" : NULL, e.scale.culprit_id ? "/p/tight" : NULL);
		n += !!strstr(out, "\"event\":\"");
	}
	check(n == IOLAT_EV_NR, "json: a record of each of the %d event types (%d)",
	      IOLAT_EV_NR, n);
	e = (struct iolat_event){ .cgroup_id = 42, .dev = DEV1, .type = IOLAT_EV_DEPTH };
	e.depth.old = 1;
	e.depth.new = IOLAT_DEPTH_MAX;
	out = json(&e, "/p", NULL);
	check(strstr(out, "\"old\":1,\"new\":\"max\"") != NULL,
	      "json: unlimited depth is \"max\", as iolat-top writes it: %s", out);
}

/* What snoop_print_mode() writes, JSON or text (static, until the next call). */
static const char *mode_state(bool json, const struct iolat_fns *fns, bool all, int cgroupns,
			      const char *state)
{
	FILE *f = out_open();

	snoop_print_mode(f, json, T0, "this kernel has no iolatency tracepoints", fns, all,
			 cgroupns, state, 100);
	out_close(f);
	if (json && records)
		fputs(out_buf, records);
	return out_buf;
}

static const char *mode_ns(bool json, const struct iolat_fns *fns, bool all, int cgroupns)
{
	return mode_state(json, fns, all, cgroupns, "used");
}

static const char *mode(bool json, const struct iolat_fns *fns, bool all)
{
	return mode_ns(json, fns, all, 0);
}

/*
 * The first record says what the records rest on, and whether their
 * paths start at a cgroup namespace's root: a reader elsewhere must know.
 */
static void test_mode_events(void)
{
	const char *out;

	out = mode_ns(true, NULL, false, 1);
	check(strstr(out, "{\"schema\":2,\"tool\":\"iolat-snoop\",\"time\":") == out &&
	      strstr(out, ",\"event\":\"mode\",\"mode\":\"events\",\"cgroupns\":true}\n"),
	      "events: a first mode record, in a cgroup namespace: %s", out);
	out = mode_ns(true, NULL, false, -1);
	check(strstr(out, "\"cgroupns\":null}") != NULL, "events: namespace unknown: null: %s", out);
	out = mode_ns(false, NULL, false, 1);
	check(!strcmp(out, "# inside a cgroup namespace: paths start at its root\n"),
	      "events, text: said in a namespace: %s", out);
	out = mode_ns(false, NULL, false, 0);
	check(!*out, "events, text: nothing outside one: '%s'", out);
}

/*
 * Without the events: a first record saying the mode, which functions
 * are attached and why not, what follows and what cannot be seen; then
 * charge and sleep records, not the events' delay_charge and delay_pay.
 */
static void test_fallback(void)
{
	struct iolat_fns fns = { .attached = { true, true } };
	struct iolat_event e = { .cgroup_id = 42, .dev = DEV1, .type = IOLAT_EV_FN_CHARGE,
				 .pid = 7 };
	const char *out;

	out = mode(true, &fns, true);
	check(strstr(out, "{\"schema\":2,\"tool\":\"iolat-snoop\",\"time\":") == out &&
	      strstr(out, ",\"event\":\"mode\",\"mode\":\"functions\",\"cgroupns\":false,"
		     "\"mode_reason\":"
		     "\"this kernel has no iolatency tracepoints\",\"functions\":{"
		     "\"blkcg_add_delay\":\"attached\",\"blkcg_maybe_throttle_current\":"
		     "\"attached\"},\"logs\":[\"charge\",\"sleep\"],\"state\":\"used\","
		     "\"sample_ms\":100,\"sampled\":[\"target\",\"cookie\",\"culprit_forgotten\","
		     "\"depth\",\"use_delay\"],\"cannot_see\":[\"window\",\"throttle\",") &&
	      strstr(out, "\"delay_pay\",\"enable\",\"scale_reset\",\"scale_skip\"]}\n"),
	      "fallback: the mode record, both functions attached, -a, the state sampled: %s", out);
	out = mode_state(true, &fns, true, 0, "off (--no-state)");
	check(strstr(out, "\"logs\":[\"charge\",\"sleep\"],\"state\":\"off (--no-state)\","
		     "\"sample_ms\":null,\"sampled\":[],\"cannot_see\":[\"window\",\"target\","
		     "\"cookie\",") != NULL,
	      "fallback: the mode record, the state not read: why, nothing sampled: %s", out);
	fns.attached[IOLAT_FN_THROTTLE] = false;
	snprintf(fns.why[IOLAT_FN_THROTTLE], sizeof(fns.why[0]), "not in /proc/kallsyms (inlined)");
	out = mode(true, &fns, false);
	check(strstr(out, "\"blkcg_maybe_throttle_current\":\"not in /proc/kallsyms "
		     "(inlined)\"},\"logs\":[],") != NULL,
	      "fallback: one function inlined, no -a: why, and nothing logged: %s", out);
	out = mode(false, &fns, true);
	check(strstr(out, "# mode: functions (this kernel has no iolatency tracepoints): "
		     "blkcg_add_delay attached; blkcg_maybe_throttle_current not attached: "
		     "not in /proc/kallsyms (inlined); logs: charge; io.latency's state sampled "
		     "every 100ms, its changes: target cookie culprit_forgotten depth use_delay; "
		     "cannot see (the events only): window throttle delay_charge") == out,
	      "fallback: the text mode's first line: %s", out);
	out = mode_state(false, &fns, true, 0, "no BTF");
	check(strstr(out, "; logs: charge; io.latency's state not read: no BTF; cannot see "
		     "(the events only): window target cookie") != NULL,
	      "fallback: the text mode's first line, the state not read: %s", out);
	e.fn_charge.charge_ns = 2500000;
	e.fn_charge.delay_ns = 7500000;
	out = json(&e, "/p/loose", NULL);
	check(strstr(out, "\"event\":\"charge\",\"device\":\"4000:1\",\"cgroup\":\"/p/loose\","
		     "\"cgroup_id\":42,\"charge_us\":2500,\"delay_us\":7500}") && !strstr(out, "lat_us"),
	      "fallback: a charge record: %s", out);
	out = text(&e, "/p/loose", NULL);
	check(strstr(out, "charge       blkcg_add_delay: charged 2500us, 7500us pending\n") != NULL,
	      "fallback: a charge line: %s", out);
	e = (struct iolat_event){ .cgroup_id = 42, .dev = DEV1, .type = IOLAT_EV_FN_SLEEP,
				  .pid = 7 };
	snprintf(e.comm, sizeof(e.comm), "dd");
	e.fn_sleep.slept_ns = 250000000;
	out = json(&e, "/p/loose", NULL);
	check(strstr(out, "\"event\":\"sleep\",") &&
	      strstr(out, ",\"pid\":7,\"comm\":\"dd\",\"slept_us\":250000}") &&
	      !strstr(out, "capped"), "fallback: a sleep record: %s", out);
	out = text(&e, "/p/loose", NULL);
	check(strstr(out, "sleep        pid 7 (dd) slept 250.0ms in blkcg_maybe_throttle_current\n") != NULL,
	      "fallback: a sleep line: %s", out);
}

/* A change between two samples, as snoop_print_sampled() writes it. */
static const char *sampled(bool json_out, const struct snoop_change *c, const char *path,
			   const char *culprit)
{
	FILE *f = out_open();

	snoop_print_sampled(f, json_out, c, path, culprit, T0 - 0.1, T0);
	out_close(f);
	if (json_out && records)
		fputs(out_buf, records);
	return out_buf;
}

static struct snoop_change changes[16];
static int nchanges;

static void keep_change(void *arg, const struct snoop_change *c)
{
	if (nchanges < 16)
		changes[nchanges++] = *c;
}

static struct iolat_state group(__u64 id, __u64 parent)
{
	return (struct iolat_state){ .cgroup_id = id, .parent_id = parent, .dev = DEV1,
				     .depth = IOLAT_DEPTH_MAX, .cookie = 1000000,
				     .children.cookie = 1000000, .flags = IOLAT_STATE_ONLINE };
}

/*
 * Without the events, io.latency's state sampled: what changed between
 * two samples, one change of each kind a record of the event it stands
 * for, marked sampled, with the interval; the first sample, and a group
 * in only one of two, give none.
 */
static void test_sampled(void)
{
	struct snoop_state st = {};
	struct iolat_state s[4];
	const char *out;
	int n;

	/* /p (10) with /p/loose (42) and /p/tight (43, 1ms). */
	s[0] = group(10, 1);
	s[1] = group(42, 10);
	s[2] = group(43, 10);
	s[2].target_ns = 1000000;
	n = snoop_state_diff(&st, s, 3, keep_change, NULL);
	check(n == 0 && nchanges == 0, "sampled: the first sample gives no change (%d)", n);
	/* tight missed: /p scaled down for it, loose at depth 8, delayed; tight's target 2ms. */
	s[0].children.cookie = 999996;
	s[0].flags |= IOLAT_STATE_CULPRIT;
	s[0].children.culprit_id = 43;
	s[0].children.scale_lat_ns = 1000000;
	s[1].depth = 8;
	s[1].cookie = 999996;
	s[1].use_delay = 1;
	s[1].delay_ns = 5000000;
	s[2].target_ns = 2000000;
	s[2].win_ns = 100000000;
	s[3] = group(44, 10);	/* new: no change */
	n = snoop_state_diff(&st, s, 4, keep_change, NULL);
	check(n == 4 && nchanges == 4 && changes[0].type == IOLAT_EV_COOKIE &&
	      changes[0].cgroup_id == 10 && changes[1].type == IOLAT_EV_DEPTH &&
	      changes[2].type == IOLAT_EV_USE_DELAY && changes[3].type == IOLAT_EV_TARGET &&
	      changes[3].cgroup_id == 43,
	      "sampled: cookie, depth, use_delay, target, parent first (%d: %d %d %d %d)", n,
	      changes[0].type, changes[1].type, changes[2].type, changes[3].type);
	out = sampled(true, &changes[0], "/p", "/p/tight");
	check(strstr(out, "\"event\":\"cookie\",\"device\":\"4000:1\",\"cgroup\":\"/p\","
		     "\"cgroup_id\":10,\"source\":\"sampled\",\"since\":1764763200.400000,"
		     "\"old\":1000000,\"new\":999996,\"direction\":\"down\",\"culprit\":"
		     "\"/p/tight\",\"culprit_id\":43,\"scale_lat_us\":1000}\n") &&
	      !strstr(out, "\"by\"") && !strstr(out, "step"),
	      "sampled: a cookie record, no step or cause: %s", out);
	out = sampled(false, &changes[0], "/p", "/p/tight");
	check(strstr(out, "cookie       children scaled DOWN: cookie 1000000 -> 999996, for "
		     "/p/tight (id 43, target 1000us) (sampled, within 100ms)\n") != NULL,
	      "sampled: a cookie line: %s", out);
	out = sampled(true, &changes[1], "/p/loose", NULL);
	check(strstr(out, "\"source\":\"sampled\",\"since\":1764763200.400000,\"old\":\"max\","
		     "\"new\":8,\"cookie\":999996}\n") && !strstr(out, "nr_requests"),
	      "sampled: a depth record: %s", out);
	out = sampled(false, &changes[1], "/p/loose", NULL);
	check(strstr(out, "depth        depth max -> 8 (cookie 999996) (sampled, within 100ms)\n") != NULL,
	      "sampled: a depth line: %s", out);
	out = sampled(true, &changes[2], "/p/loose", NULL);
	check(strstr(out, "\"event\":\"use_delay\",") &&
	      strstr(out, "\"old\":0,\"new\":1,\"delay_us\":5000}\n"),
	      "sampled: a use_delay record: %s", out);
	out = sampled(true, &changes[3], "/p/tight", NULL);
	check(strstr(out, "\"event\":\"target\",") &&
	      strstr(out, "\"old_us\":1000,\"new_us\":2000,\"win_ms\":100}\n") &&
	      !strstr(out, "\"by\""), "sampled: a target record, no writer: %s", out);
	/* tight idle: the culprit forgotten, the cookie one step up. */
	nchanges = 0;
	s[0].flags &= ~IOLAT_STATE_CULPRIT;
	s[0].children.culprit_id = 0;
	s[0].children.cookie = 999997;
	n = snoop_state_diff(&st, s, 4, keep_change, NULL);
	check(n == 2 && changes[0].type == IOLAT_EV_COOKIE && changes[0].culprit_id == 0 &&
	      changes[1].type == IOLAT_EV_GRP_CLEAR && changes[1].culprit_id == 43 &&
	      changes[1].cookie == 999997,
	      "sampled: cookie up, then the culprit forgotten, named (%d)", n);
	out = sampled(true, &changes[1], "/p", "/p/tight");
	check(strstr(out, "\"event\":\"culprit_forgotten\",") &&
	      strstr(out, "\"since\":1764763200.400000,\"cookie\":999997,\"culprit\":"
		     "\"/p/tight\",\"culprit_id\":43,\"scale_lat_us\":1000}\n"),
	      "sampled: a culprit_forgotten record: %s", out);
	out = sampled(false, &changes[0], "/p", NULL);
	check(strstr(out, "children scaled UP: cookie 999996 -> 999997, no culprit named "
		     "(sampled, within 100ms)\n") != NULL, "sampled: a cookie line up: %s", out);
	/* A culprit the walk could not tell: named, not by id. */
	changes[0].named = true;
	out = sampled(false, &changes[0], "/p", NULL);
	check(strstr(out, "cookie 999996 -> 999997, a culprit not told (gone, or left out of "
		     "the walk) (sampled") != NULL, "sampled: a culprit not told: %s", out);
	/* Nothing changed: nothing said. */
	nchanges = 0;
	n = snoop_state_diff(&st, s, 4, keep_change, NULL);
	check(n == 0 && nchanges == 0, "sampled: the same sample again gives none (%d)", n);
	snoop_state_free(&st);
}

/* The fake names of snoop_record()'s lookups: 42 /p/tight, 43 /q, else none. */
static const char *fake_path(void *arg, __u64 id)
{
	return id == 42 ? "/p/tight" : id == 43 ? "/q" : NULL;
}

/* Bytes that reached @f's file, which only a flush (ours or stdio's) writes. */
static long long written(FILE *f)
{
	struct stat st;

	return fstat(fileno(f), &st) ? -1 : (long long)st.st_size;
}

/* The ring buffer's records, as snoop_record() gets them, in batches. */
static void test_batches(void)
{
	static char buf[65536];
	struct iolat_event e = window_event();
	struct snoop_out o = { .json = true, .path = fake_path, .t0_real = T0 };
	long long n, at;
	regex_t re;
	int i, lines = 0;
	char c;

	check(sizeof(e) < 256, "batch: a record carries no path: %zu bytes", sizeof(e));
	o.f = tmpfile();
	/* iolat_check_stdout_at_exit()'s buffer, as stdout to a file has. */
	setvbuf(o.f, buf, _IOFBF, sizeof(buf));
	for (i = 0; i < 20; i++)
		snoop_record(&o, &e, sizeof(e));
	n = written(o.f);
	check(n == 0, "batch: 20 records, nothing written before the batch ends (%lld bytes)", n);
	check(snoop_flush(&o) == 0, "batch: flushed at its end");
	n = written(o.f);
	rewind(o.f);
	while (fread(&c, 1, 1, o.f) == 1)
		lines += c == '\n';
	check(n > 0 && lines == 20, "batch: then all 20 records, whole (%lld bytes, %d lines)",
	      n, lines);

	/* A record cut short is not one: nothing printed from it. */
	fseek(o.f, 0, SEEK_END);
	at = written(o.f);
	snoop_record(&o, &e, sizeof(e) - 1);
	snoop_flush(&o);
	check(written(o.f) == at, "batch: a record shorter than struct iolat_event skipped");

	/* A long batch (a flood): written as it grows, never a record cut. */
	for (i = 0; i < 1000; i++)
		snoop_record(&o, &e, sizeof(e));
	n = written(o.f);
	fseek(o.f, n - 1, SEEK_SET);
	c = fgetc(o.f);
	check(n > at && c == '\n',
	      "batch: 1000 records in one batch written before its end, at a record's end "
	      "(%lld bytes, last '%s')", n - at, c == '\n' ? "\\n" : "not \\n");
	fseek(o.f, 0, SEEK_END);
	snoop_flush(&o);

	/* -c: the cgroup or the culprit must match. */
	regcomp(&re, "^/p/", REG_EXTENDED | REG_NOSUB);
	o.re = &re;
	at = written(o.f);
	e.cgroup_id = 43;
	snoop_record(&o, &e, sizeof(e));
	snoop_flush(&o);
	check(written(o.f) == at, "batch: -c '^/p/' drops /q's record");
	e.cgroup_id = 42;
	snoop_record(&o, &e, sizeof(e));
	snoop_flush(&o);
	check(written(o.f) > at, "batch: -c '^/p/' keeps /p/tight's record");
	regfree(&re);
	fclose(o.f);
}

int main(int argc, char **argv)
{
	if (argc > 1 && check_records_open(argv[1]))
		return 2;
	test_records();
	test_fallback();
	test_sampled();
	test_lost();
	test_text_escape();
	test_mode_events();
	test_every_event();
	test_batches();
	return check_done();
}
