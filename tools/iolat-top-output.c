// SPDX-License-Identifier: GPL-2.0
/* iolat-top's outputs: text, JSON, Prometheus.  See iolat-top-output.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "iolat-common.h"
#include "iolat-top-output.h"

/* ,"@key":@v as @fmt has it, or null when unknown (NAN). */
static void json_rate(FILE *f, const char *key, const char *fmt, double v)
{
	fprintf(f, ",\"%s\":", key);
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, fmt, v);
}

/*
 * The text report's cells, without printf: what snprintf(@buf, @len, ...)
 * wrote of "%.*f", "%llu" and a unit after them, the same bytes, cut
 * where it cut (iolat_fmt_fixed(), iolat_fmt_u64()).
 */

/* @s after the @n bytes an iolat_fmt_*() into @buf of @len said it wrote. */
static const char *text_unit(char *buf, size_t len, int n, const char *s)
{
	size_t at = n;

	if (at >= len)
		return buf;	/* cut already */
	for (; *s && at + 1 < len; s++)
		buf[at++] = *s;
	buf[at] = '\0';
	return buf;
}

/* "%.*f" of @v with @prec decimals, then @unit. */
static const char *text_fixed(char *buf, size_t len, double v, int prec, const char *unit)
{
	return text_unit(buf, len, iolat_fmt_fixed(buf, len, v, prec), unit);
}

/* "%llu" of @v, then @unit. */
static const char *text_u64(char *buf, size_t len, unsigned long long v, const char *unit)
{
	return text_unit(buf, len, iolat_fmt_u64(buf, len, v), unit);
}

/* "@a/@b": @b after the @n bytes of @a in @buf. */
static const char *text_slash(char *buf, size_t len, int n, const char *b)
{
	text_unit(buf, len, n, "/");
	return text_unit(buf, len, n + 1, b);
}

/* @s itself (a word: "-", "?", "max"). */
static const char *text_word(char *buf, size_t len, const char *s)
{
	return text_unit(buf, len, 0, s);
}

/* @v with @prec decimals, or "?" when unknown (NAN); in @buf. */
static const char *text_rate(char *buf, size_t len, int prec, double v)
{
	if (isnan(v))
		return text_word(buf, len, "?");
	return text_fixed(buf, len, v, prec, "");
}

/* ,"@key": a depth: a number, "max" (unlimited), or null (unknown). */
static void json_depth(FILE *f, const char *key, bool known, __u32 depth)
{
	fprintf(f, ",\"%s\":", key);
	if (!known)
		fputs("null", f);
	else if (depth == IOLAT_DEPTH_MAX)
		fputs("\"max\"", f);
	else
		fprintf(f, "%u", depth);
}

/* ,"interval":{...}: what happened during it; null when unknown. */
static void json_interval(FILE *f, const struct top_row *r)
{
	const struct top_interval *in = &r->in;

	if (!in->known) {
		fputs(",\"interval\":null", f);
		return;
	}
	fprintf(f, ",\"interval\":{\"windows\":%llu,\"windows_missed\":%llu,"
		"\"throttled_bios\":%llu", (unsigned long long)in->windows,
		(unsigned long long)in->windows_missed,
		(unsigned long long)in->throttled);
	json_rate(f, "throttled_wait_mean_us", "%.1f", in->wait_mean_us);
	/* A parent's children's scalings; null for a group that is none. */
	if (r->has_parent)
		fprintf(f, ",\"scale_downs\":%llu,\"scale_ups\":%llu",
			(unsigned long long)in->scale_downs,
			(unsigned long long)in->scale_ups);
	else
		fputs(",\"scale_downs\":null,\"scale_ups\":null", f);
	/* The controller can flap within an interval: its lowest, its share. */
	json_depth(f, "depth_min", in->depth_min_known, in->depth_min);
	json_rate(f, "limited_pct", "%.1f", in->limited_share * 100);
	/* The last window's action and its reason, when one ended in it. */
	if (in->action >= 0)
		fprintf(f, ",\"action\":\"%s\",\"verdict\":\"%s\"}",
			iolat_action_name(in->action), top_row_verdict(r));
	else
		fputs(",\"action\":null,\"verdict\":null}", f);
}

/* ,"@key":@v (%llu), or null when !@known. */
static void json_u64(FILE *f, const char *key, bool known, unsigned long long v)
{
	fprintf(f, ",\"%s\":", key);
	if (known)
		fprintf(f, "%llu", v);
	else
		fputs("null", f);
}

/* A BPF side that may lose events: the events', or the functions' attached. */
static bool has_bpf(const struct top_model *m)
{
	return m->mode == TOP_MODE_EVENTS || iolat_fns_attached(&m->fns);
}

/*
 * ,"functions":{...}: in the IOSTAT mode, each controller function the
 * fallback traces, "attached" or why not; null with the events.
 */
static void json_functions(FILE *f, const struct top_model *m)
{
	int i;

	fputs(",\"functions\":", f);
	if (m->mode == TOP_MODE_EVENTS) {
		fputs("null", f);
		return;
	}
	for (i = 0; i < IOLAT_FN_NR; i++) {
		fprintf(f, "%c\"%s\":", i ? ',' : '{', iolat_fn_names[i]);
		iolat_json_text(f, m->fns.attached[i] ? "attached" :
			       m->fns.why[i][0] ? m->fns.why[i] : "not attached");
	}
	fputc('}', f);
}

/*
 * ,"state_reader":...: in the IOSTAT mode, "used" when this report has a
 * sample of io.latency's state, else why not; null with the events.  And
 * "sample_ms", the sampling's shortest period between refreshes.
 */
static void json_state_reader(FILE *f, const struct top_model *m)
{
	fputs(",\"state_reader\":", f);
	if (m->mode == TOP_MODE_EVENTS)
		fputs("null", f);
	else if (m->sampled)
		fputs("\"used\"", f);
	else
		iolat_json_text(f, m->state_why && *m->state_why ? m->state_why : "not read");
	/* The shortest period between two samples, with a sample. */
	if (m->mode != TOP_MODE_EVENTS && m->sampled)
		fprintf(f, ",\"sample_ms\":%d", m->sample_ms);
	else
		fputs(",\"sample_ms\":null", f);
}

/*
 * ,"maps":{...},"rows_missing":[...]: each BPF map read, how full, and
 * the events it dropped full; the rows a full map has no entry for.
 * null without a BPF side.
 */
static void json_maps(FILE *f, const struct top_model *m)
{
	size_t i;
	int k, n = 0;

	if (!has_bpf(m)) {
		fputs(",\"maps\":null,\"rows_missing\":null", f);
		return;
	}
	fputs(",\"maps\":{", f);
	for (k = 0; k < TOP_MAP_NR; k++) {
		const struct top_map_state *st = &m->maps[k];

		if (!st->read)
			continue;
		fprintf(f, "%s\"%s\":{\"entries\":%zu,\"max_entries\":%u,"
			"\"full_events\":%llu}", n++ ? "," : "", top_map_names[k],
			st->entries, st->max_entries, (unsigned long long)st->full);
	}
	fputs("},\"rows_missing\":[", f);
	for (i = 0; i < m->nmissing; i++) {
		const struct top_missing *x = &m->missing[i];

		fprintf(f, "%s{\"device\":", i ? "," : "");
		iolat_json_str(f, iolat_dev_name(x->dev));
		fputs(",\"cgroup\":", f);
		iolat_json_str(f, x->path);
		fprintf(f, ",\"cgroup_id\":%llu,\"map\":\"%s\"}",
			(unsigned long long)x->cgid, top_map_names[x->map]);
	}
	fputc(']', f);
}

/*
 * ,"iostat_debug":{...}: io.stat's blkcg_debug_stats keys of the row,
 * both modes; null when io.stat had none (debug stats off).
 */
static void json_iostat_debug(FILE *f, const struct top_row *r)
{
	const struct iolat_iostat *io = &r->io;

	if (!io->has_depth) {
		fputs(",\"iostat_debug\":null", f);
		return;
	}
	/* delay_nsec is written only while use_delay is on: else none. */
	fprintf(f, ",\"iostat_debug\":{\"delay_ms\":%.3f", io->delay_nsec / 1e6);
	json_u64(f, "avg_lat_us", io->has_lat, io->avg_lat_us);
	json_u64(f, "win_ms", io->has_lat, io->win_ms);
	json_u64(f, "missed", io->has_missed, io->missed);
	json_u64(f, "total", io->has_missed, io->total);
	fputc('}', f);
}

/*
 * ,"sample":{...}: what the state reader read of the row's group this
 * refresh, besides depth, use_delay and cookie (which have their keys):
 * bios in flight, the induced delay pending, the window's length, the
 * running average (rotational) and the accumulated statistic; null
 * without a sample.  Figures at the walk's instant, never counts.
 */
static void json_sample(FILE *f, const struct top_row *r)
{
	const struct iolat_state *s = r->st;
	bool ssd;

	if (!s) {
		fputs(",\"sample\":null", f);
		return;
	}
	ssd = s->flags & IOLAT_STATE_SSD;
	fprintf(f, ",\"sample\":{\"inflight\":%u,\"delay_ms\":%.3f,\"win_ms\":%llu",
		s->inflight, s->delay_ns / 1e6, (unsigned long long)(s->win_ns / 1000000));
	json_u64(f, "lat_avg_us", !ssd, s->lat_avg_ns / 1000);
	fprintf(f, ",\"acc_samples\":%llu", (unsigned long long)s->cur_samples);
	json_u64(f, "acc_missed", ssd, s->cur_missed);
	json_u64(f, "acc_mean_us", !ssd, s->cur_mean_ns / 1000);
	/* Over the interval's samples (the refreshes' among them): null, fewer than 2. */
	if (r->sampled_in.samples < 2) {
		fputs(",\"interval\":null}", f);
		return;
	}
	fprintf(f, ",\"interval\":{\"samples\":%u", r->sampled_in.samples);
	json_depth(f, "depth_min", true, r->sampled_in.depth_min);
	json_rate(f, "limited_pct", "%.1f", r->sampled_in.limited_share * 100);
	fputs("}}", f);
}

/*
 * ,"iostat":{...}: the row's io.stat counters as read this interval,
 * cumulative, with io.stat's names; null when its io.stat could not be
 * read (0 where it has no line: no IO).
 */
static void json_iostat(FILE *f, const struct top_row *r)
{
	const struct iolat_iostat *io = &r->io;

	if (r->io_err) {
		fputs(",\"iostat\":null", f);
		return;
	}
	fprintf(f, ",\"iostat\":{\"rbytes\":%llu,\"wbytes\":%llu,\"rios\":%llu,"
		"\"wios\":%llu,\"dbytes\":%llu,\"dios\":%llu}",
		(unsigned long long)io->rbytes, (unsigned long long)io->wbytes,
		(unsigned long long)io->rios, (unsigned long long)io->wios,
		(unsigned long long)io->dbytes, (unsigned long long)io->dios);
}

/* "bio_based" (null: unknown), and on such a device the disks below it. */
static void json_bio_based(FILE *f, __u32 dev)
{
	int bio = iolat_dev_bio_based(dev);
	char below[128], *name, *save = NULL;
	bool first = true;

	fprintf(f, "\"bio_based\":%s", bio < 0 ? "null" : bio ? "true" : "false");
	if (bio != 1)
		return;
	snprintf(below, sizeof(below), "%s", iolat_dev_below(dev));
	fputs(",\"below\":[", f);
	for (name = strtok_r(below, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (!first)
			fputc(',', f);
		first = false;
		iolat_json_str(f, name);
	}
	fputc(']', f);
}

void top_print_json(FILE *f, const struct top_report *rep)
{
	const struct top_model *m = rep->m;
	bool events = m->mode == TOP_MODE_EVENTS;
	__u64 now_ns = rep->now_ns;
	size_t i, n = m->n < rep->rows ? m->n : rep->rows;

	/* rows_shown < rows_total: -r cut the report. */
	iolat_json_begin(f, IOLAT_TOP, rep->time, 3);
	/* What the report rests on: the events, or io.stat alone. */
	fprintf(f, ",\"mode\":\"%s\",\"mode_reason\":", top_mode_names[m->mode]);
	if (m->mode_reason && *m->mode_reason)
		iolat_json_text(f, m->mode_reason);
	else
		fputs("null", f);
	fprintf(f, ",\"debug_stats\":%s,\"cgroupns\":%s",
		m->debug_stats < 0 ? "null" : m->debug_stats ? "true" : "false",
		m->cgroupns < 0 ? "null" : m->cgroupns ? "true" : "false");
	json_functions(f, m);
	json_state_reader(f, m);
	fprintf(f, ",\"interval_s\":%.3f,\"lost_events\":", rep->secs);
	if (has_bpf(m))
		fprintf(f, "%llu", rep->lost);
	else
		fputs("null", f);	/* no BPF side */
	/* Where the io.stat counters came from: one walk, or a file each. */
	fprintf(f, ",\"iostat_source\":\"%s\"",
		!m->iostat ? "files" : m->iostat->walked ? "iterator" : "marked");
	/* Cgroups the last walk could not read: what is below them has no row. */
	fprintf(f, ",\"cgroups_unread\":%zu", m->cgs ? m->cgs->unread : 0);
	json_maps(f, m);
	fprintf(f, ",\"rows_total\":%zu,\"rows_shown\":%zu,\"cgroups\":[", m->n, n);
	for (i = 0; i < n; i++) {
		const struct top_row *r = &m->v[i];

		fprintf(f, "%s{\"device\":", i ? "," : "");
		iolat_json_str(f, iolat_dev_name(r->dev));
		fprintf(f, ",\"rotational\":%s,",
		       iolat_dev_rotational(r->dev) == 1 ? "true" : "false");
		json_bio_based(f, r->dev);
		fputs(",\"cgroup\":", f);
		iolat_json_str(f, r->path);
		fprintf(f, ",\"cgroup_id\":%llu", (unsigned long long)r->cgid);
		if (r->target_us)
			fprintf(f, ",\"target_us\":%llu", (unsigned long long)r->target_us);
		else
			fprintf(f, ",\"target_us\":null");
		if (r->g.has_window) {
			fprintf(f, ",\"window\":{\"met\":%s,\"win_met\":%s,\"verdict\":\"%s\","
			       "\"samples\":%llu,\"acc_samples\":%llu,\"win_ms\":%llu,"
			       "\"idle\":%s,\"action\":\"%s\",",
			       r->g.last_met ? "true" : "false",
			       r->g.last_win_met ? "true" : "false", top_row_verdict(r),
			       (unsigned long long)r->g.last_samples,
			       (unsigned long long)r->g.acc_samples,
			       (unsigned long long)(r->g.win_ns / 1000000),
			       top_window_idle(r, now_ns) ? "true" : "false",
			       iolat_action_name(r->g.last_action));
			if (r->g.ssd)
				fprintf(f, "\"stat\":\"missed\",\"missed\":%llu,\"missed_pct\":%.1f,"
				       "\"acc_missed\":%llu,\"acc_missed_pct\":%.1f}",
				       (unsigned long long)r->g.last_missed, top_row_lat(r),
				       (unsigned long long)r->g.acc_missed, top_row_acc_lat(r));
			else
				fprintf(f, "\"stat\":\"mean\",\"mean_us\":%llu,\"acc_mean_us\":%llu}",
				       (unsigned long long)(r->g.last_mean_ns / 1000),
				       (unsigned long long)(r->g.acc_mean_ns / 1000));
			fprintf(f, ",\"windows\":%llu,\"windows_missed\":%llu",
			       (unsigned long long)r->g.windows,
			       (unsigned long long)r->g.windows_missed);
		} else {
			fprintf(f, ",\"window\":null");
		}
		json_rate(f, "iops", "%.1f", r->iops);
		json_rate(f, "read_mbps", "%.3f", r->rmbps);
		json_rate(f, "write_mbps", "%.3f", r->wmbps);
		json_iostat(f, r);
		json_depth(f, "depth", r->g.has_depth, r->g.depth);
		json_u64(f, "cookie", top_row_cookie(r), top_row_cookie(r));
		fprintf(f, ",\"state\":\"%s\"", r->state);
		/* Unknown (no event, no blkcg_debug_stats) is not 0. */
		if (r->g.has_use_delay)
			fprintf(f, ",\"use_delay\":%d", r->g.use_delay);
		else
			fprintf(f, ",\"use_delay\":null");
		json_rate(f, "delay_charged_ms_per_s", "%.3f", r->charged);
		json_rate(f, "delay_paid_ms_per_s", "%.3f", r->paid);
		json_rate(f, "throttled_bios_per_s", "%.1f", r->waits);
		/*
		 * Without the events: the counters of the functions attached,
		 * unknown rather than 0 for the others.
		 */
		json_rate(f, "delay_charged_ms", "%.3f",
			  events || r->fn_charges ? r->g.charged_ns / 1e6 : NAN);
		json_rate(f, "delay_paid_ms", "%.3f",
			  events || r->fn_pays ? r->g.paid_ns / 1e6 : NAN);
		json_u64(f, "throttled_bios", events, r->g.throttled);
		json_rate(f, "io_pressure_some_pct", "%.2f", r->psi_some);
		json_rate(f, "io_pressure_full_pct", "%.2f", r->psi_full);
		json_iostat_debug(f, r);
		json_sample(f, r);
		json_interval(f, r);
		if (r->has_group)
			fprintf(f, ",\"scale_skips\":{\"raced\":%llu,\"protected\":%llu,"
			       "\"few_ios\":%llu}",
			       (unsigned long long)r->g.skips[IOLAT_REASON_RACED],
			       (unsigned long long)r->g.skips[IOLAT_REASON_PROTECTED],
			       (unsigned long long)r->g.skips[IOLAT_REASON_FEW_IOS]);
		if (r->has_parent) {
			const char *culprit = top_row_culprit(m, r);
			enum top_culprit cs = top_row_culprit_status(m, r);
			bool counted = top_row_scalings_known(r);

			fprintf(f, ",\"children\":{\"cookie\":%u,\"culprit\":", r->p.cookie);
			if (culprit)
				iolat_json_str(f, culprit);
			else
				fprintf(f, "null");
			json_u64(f, "culprit_id", r->p.culprit_id, r->p.culprit_id);
			/* The sample's target of a culprit gone is known, its id not. */
			json_u64(f, "scale_lat_us", r->p.culprit_id || cs == TOP_CULPRIT_GONE ||
				 cs == TOP_CULPRIT_UNKNOWN, r->p.scale_lat_ns / 1000);
			fprintf(f, ",\"culprit_status\":\"%s\"", top_culprit_names[cs]);
			/* A sample counts nothing: null, never 0. */
			json_u64(f, "scale_downs", counted, r->p.scale_downs);
			json_u64(f, "scale_ups", counted, r->p.scale_ups);
			json_u64(f, "timer_ups", counted, r->p.timer_ups);
			json_u64(f, "culprits_forgotten", counted, r->p.grp_clears);
			json_u64(f, "resets", counted, r->p.resets);
			/* The last move of their cookie, and what made it. */
			if (r->p.has_scale)
				fprintf(f, ",\"last_scale\":\"%s\",\"last_scale_by\":\"%s\"}",
					iolat_scale_kind_name(r->p.last_scale),
					iolat_scale_by_name(r->p.last_by));
			else
				fputs(",\"last_scale\":null,\"last_scale_by\":null}", f);
		}
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
}

/*
 * The IOSTAT mode's cells: io.stat's debug figures where it has them
 * (WINLAT: avg_lat, or the window in progress's share over target and
 * its bios in SAMP), the state reader's sample's (WINLAT: the running
 * average on a rotational queue; ACCLAT: the accumulated statistic, "-"
 * while it holds no bio), "?" for what only the events tell.  All 16
 * bytes.
 */
static void text_unknowns(const struct top_row *r, char *lat, char *acc, char *samp,
			  char *miss, char *wait_us, char *depth_min, char *limited)
{
	double v = top_row_iostat_lat(r);

	if (isnan(v))
		text_word(lat, 16, "?");
	else
		text_fixed(lat, 16, v, 0, r->io.has_missed ? "%miss" : "us");
	if (r->io.has_missed)
		text_u64(samp, 16, r->io.total, "");
	else
		text_word(samp, 16, "?");
	v = top_row_sample_acc_lat(r);
	if (isnan(v))
		text_word(acc, 16, "?");
	else if (v < 0)
		text_word(acc, 16, "-");
	else
		text_fixed(acc, 16, v, 0, r->g.ssd ? "%miss" : "us");
	text_word(miss, 16, "?");
	text_word(wait_us, 16, "?");
	/* The interval's samples, both refreshes among them. */
	if (r->sampled_in.samples < 2)
		text_word(depth_min, 16, "?");
	else if (r->sampled_in.depth_min == IOLAT_DEPTH_MAX)
		text_word(depth_min, 16, "max");
	else
		text_u64(depth_min, 16, r->sampled_in.depth_min, "");
	if (r->sampled_in.samples < 2)
		text_word(limited, 16, "?");
	else
		text_fixed(limited, 16, r->sampled_in.limited_share * 100, 0, "");
}

/* Rows named in the header before "and N more". */
#define TEXT_MISSING_NAMED 3

/*
 * The header's lines of the maps that dropped events full, and the rows
 * that may be missing for it, the first few by name.
 */
static void text_maps(FILE *f, const struct top_model *m)
{
	static char name[IOLAT_ESC_LEN(PATH_MAX)];
	const char *sep = "  map full: ";
	size_t i;
	int k;

	for (k = 0; k < TOP_MAP_NR; k++) {
		const struct top_map_state *st = &m->maps[k];

		if (!st->read || !st->full)
			continue;
		fprintf(f, "%s%s %zu/%u entries, %llu events dropped", sep, top_map_names[k],
			st->entries, st->max_entries, (unsigned long long)st->full);
		sep = "; ";
	}
	if (*sep == ';')
		fputs(" (since the start; the maps are sized at the start: restart to size "
		      "them again)\n", f);
	if (!m->nmissing)
		return;
	fprintf(f, "  rows missing (no map entry): %zu:", m->nmissing);
	for (i = 0; i < m->nmissing && i < TEXT_MISSING_NAMED; i++)
		fprintf(f, "%s %s %s", i ? "," : "", iolat_dev_name(m->missing[i].dev),
			iolat_esc(name, sizeof(name), m->missing[i].path));
	if (m->nmissing > TEXT_MISSING_NAMED)
		fprintf(f, " and %zu more", m->nmissing - TEXT_MISSING_NAMED);
	fputc('\n', f);
}

static const char *path_tail(const char *path, int width)
{
	int len = strlen(path);

	return len > width ? path + len - width : path;
}

/* @s escaped for a terminal (iolat_esc()), in @buf. */
static const char *text_name(char *buf, const char *s)
{
	return iolat_esc(buf, IOLAT_ESC_LEN(PATH_MAX), s);
}

/*
 * A row's cell at @p, padded to @width as printf's "%*s" pads (@width < 0:
 * "%-*s"), then a space; past it.
 */
static char *text_cell(char *p, const char *s, int width)
{
	size_t len = strlen(s), w = width < 0 ? -width : width;
	size_t pad = len < w ? w - len : 0;

	if (width > 0) {
		memset(p, ' ', pad);
		p += pad;
	}
	memcpy(p, s, len);
	p += len;
	if (width < 0) {
		memset(p, ' ', pad);
		p += pad;
	}
	*p++ = ' ';
	return p;
}

/*
 * One line of the text view, @s of @len bytes without its newline: cut
 * at the terminal's width (@cols 0: none, whole), never inside a UTF-8
 * character (an escaped name's bytes are valid UTF-8; a character is
 * never wider than its bytes but for the wide ones, which names rarely
 * have).  A line that wraps would push the header off the screen.
 */
static void text_put(FILE *f, unsigned int cols, const char *s, size_t len)
{
	if (cols && len > cols) {
		len = cols;
		while (len && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	fwrite(s, 1, len, f);
	fputc('\n', f);
}

/* A line made by printf (@fmt without its newline), through text_put(). */
static void __attribute__((format(printf, 3, 4)))
text_printf(FILE *f, unsigned int cols, const char *fmt, ...)
{
	/* The longest: a parent's line with an escaped culprit's path. */
	static char buf[IOLAT_ESC_LEN(PATH_MAX) + 512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= 0)
		text_put(f, cols, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Lines before the rows: the title, the io.stat mode's three, the columns. */
static size_t text_header_lines(const struct top_model *m)
{
	bool events = m->mode == TOP_MODE_EVENTS;

	return 2 + (events ? 0 : 2 + (m->debug_stats != 1));
}

/* Does @r have a second line, its children's cookie and culprit? */
static bool text_parent_line(const struct top_model *m, const struct top_row *r)
{
	return r->has_parent && (r->p.cookie < TOP_DEFAULT_COOKIE ||
				 top_row_culprit_status(m, r) != TOP_CULPRIT_NONE);
}

size_t top_text_room(const struct top_model *m, unsigned int lines)
{
	size_t head = text_header_lines(m) + 1;	/* and the cursor's line */

	if (!lines)
		return (size_t)-1;
	return lines > head ? lines - head : 0;
}

size_t top_text_fit(const struct top_report *rep)
{
	const struct top_model *m = rep->m;
	size_t n = m->n < rep->rows ? m->n : rep->rows, room, used = 0, i;

	if (!rep->lines)
		return n;
	room = top_text_room(m, rep->lines);
	for (i = 0; i < n; i++) {
		size_t need = 1 + text_parent_line(m, &m->v[i]);

		if (used + need > room)
			break;
		used += need;
	}
	/* A parent whose culprit would not fit goes too, unless it is all. */
	n = i;
	while (i > 0 && top_row_grouped(m, i))
		i--;
	return i ? i : n;
}

void top_print_text(FILE *f, const struct top_report *rep)
{
	const struct top_model *m = rep->m;
	__u64 now_ns = rep->now_ns;
	size_t i, n = top_text_fit(rep), max = m->n < rep->rows ? m->n : rep->rows;
	char target[16], lat[16], acc[16], depth[16], cookie[16], samp[16];
	static char name[IOLAT_ESC_LEN(PATH_MAX)];
	char culprit_id[32], iops[32], mbps[32], chg[32], paid[32], waits[32];
	char miss[48], wait_us[32], depth_min[16], limited[16], psi[40], fns[512];
	/*
	 * A row's line: 21 cells of at most 47 bytes (the device's name 31,
	 * the path 28), padded to at most 28, and their spaces.
	 */
	char line[1024], num[320], shown[64] = "", tail[768], scale[128] = "";
	char downs[24], ups[24];
	bool events = m->mode == TOP_MODE_EVENTS;
	bool fn_charges = m->fns.attached[IOLAT_FN_ADD_DELAY];
	bool fn_pays = m->fns.attached[IOLAT_FN_THROTTLE];
	unsigned int cols = rep->cols;

	if (!rep->batch)
		fprintf(f, "\033[H\033[2J");
	if (n < m->n)
		snprintf(shown, sizeof(shown), " (%zu shown, %s)", n,
			 n < max ? "the terminal's height" : "-r");
	if (events)
		snprintf(tail, sizeof(tail), "  lost %llu events  mode: events", rep->lost);
	else if (!has_bpf(m))
		snprintf(tail, sizeof(tail), "  mode: io.stat %s (%s)",
			 m->sampled ? "+ state" : "only", m->mode_reason);
	else
		snprintf(tail, sizeof(tail), "  lost %llu events  mode: io.stat + functions%s (%s)",
			 rep->lost, m->sampled ? " + state" : "", m->mode_reason);
	text_printf(f, cols, "%s  " IOLAT_TOP "  interval %.1fs  %zu rows%s%s",
		    iolat_clock(rep->time), rep->secs, m->n, shown, tail);
	text_maps(f, m);
	/* Which functions the fallback traces, and why not the others. */
	if (!events)
		text_printf(f, cols, "  functions: %s", iolat_fns_text(&m->fns, fns, sizeof(fns)));
	/* What the fallback cannot see, and how to see more. */
	if (!events && m->debug_stats != 1)
		text_printf(f, cols, "  blkcg_debug_stats %s: %s unknown%s; to see %s: echo 1 > "
			    IOLAT_DEBUG_STATS_PARAM, m->debug_stats ? "unknown" : "off",
			    m->sampled ? "io.stat's window in progress" :
			    "depth, use_delay and io.stat's latency",
			    m->sampled ? " (WINLAT and SAMP on non-rotational queues)" : "",
			    m->sampled ? "it" : "them");
	/* A sample tells what holds at its instant, never what happened between. */
	if (!events && m->sampled)
		text_printf(f, cols, "  without the events: VERDICT ACTION "
			    "%s%sWAIT/s WAITus MISSED unknown (?); DEPTH ACCLAT COOKIE and "
			    "culprits as sampled at the refresh, MINDEP LIMIT%% over samples "
			    "every %d ms at most",
			    fn_charges ? "" : "CHG/s ", fn_pays ? "" : "PAID/s ", m->sample_ms);
	else if (!events)
		text_printf(f, cols, "  without the events: ACCLAT VERDICT ACTION MINDEP LIMIT%% "
			    "COOKIE %s%sWAIT/s WAITus MISSED and culprits unknown (?)",
			    fn_charges ? "" : "CHG/s ", fn_pays ? "" : "PAID/s ");
	/* Units in the names, where every cell had them: TARGETus, LIMIT%. */
	text_printf(f, cols, "%-8s %-28s %8s %9s %9s %5s %-7s %-9s %7s %7s %5s %6s %7s %8s "
		    "%-11s %6s %6s %6s %6s %7s %11s",
		    "DEVICE", "CGROUP", "TARGETus", "WINLAT", "ACCLAT", "SAMP", "VERDICT",
		    "ACTION", "IOPS", "MB/s", "DEPTH", "MINDEP", "LIMIT%", "COOKIE", "STATE",
		    "CHG/s", "PAID/s", "WAIT/s", "WAITus", "MISSED", "PSI");
	for (i = 0; i < n; i++) {
		const struct top_row *r = &m->v[i];
		char *p = line;

		if (r->target_us)
			text_u64(target, sizeof(target), r->target_us, "");
		else
			text_word(target, sizeof(target), "-");
		if (!r->g.has_window) {
			text_word(lat, sizeof(lat), "-");
			text_word(acc, sizeof(acc), "-");
		} else if (top_window_idle(r, now_ns)) {
			text_word(lat, sizeof(lat), "idle");
			text_word(acc, sizeof(acc), "idle");
		} else {
			text_fixed(lat, sizeof(lat), top_row_lat(r), 0, r->g.ssd ? "%miss" : "us");
			text_fixed(acc, sizeof(acc), top_row_acc_lat(r), 0,
				   r->g.ssd ? "%miss" : "us");
		}
		if (r->g.has_window)
			text_u64(samp, sizeof(samp), r->g.last_samples, "");
		else
			text_word(samp, sizeof(samp), "-");
		if (!r->g.has_depth)
			text_word(depth, sizeof(depth), "?");
		else if (r->g.depth == IOLAT_DEPTH_MAX)
			text_word(depth, sizeof(depth), "max");
		else
			text_u64(depth, sizeof(depth), r->g.depth, "");
		if (top_row_cookie(r))
			text_u64(cookie, sizeof(cookie), top_row_cookie(r), "");
		else
			text_word(cookie, sizeof(cookie), events ? "-" : "?");
		/* The interval's: windows missed of those ended, mean wait. */
		if (r->in.known && r->in.windows)
			text_slash(miss, sizeof(miss),
				   iolat_fmt_u64(miss, sizeof(miss), r->in.windows_missed),
				   text_u64(num, sizeof(num), r->in.windows, ""));
		else
			text_word(miss, sizeof(miss), "-");
		if (!r->in.known || !r->in.throttled)
			text_word(wait_us, sizeof(wait_us), "-");
		else
			text_rate(wait_us, sizeof(wait_us), 0, r->in.wait_mean_us);
		/* The interval's lowest depth and share limited: flapping shows. */
		if (!r->in.known || !r->in.depth_min_known)
			text_word(depth_min, sizeof(depth_min), "-");
		else if (r->in.depth_min == IOLAT_DEPTH_MAX)
			text_word(depth_min, sizeof(depth_min), "max");
		else
			text_u64(depth_min, sizeof(depth_min), r->in.depth_min, "");
		if (r->in.known && !isnan(r->in.limited_share))
			text_fixed(limited, sizeof(limited), r->in.limited_share * 100, 0, "");
		else
			text_word(limited, sizeof(limited), "-");
		/* io pressure, avg10 some/full (PSI: per cgroup, not per device) */
		if (isnan(r->psi_some))
			text_word(psi, sizeof(psi), "?");
		else
			text_slash(psi, sizeof(psi), iolat_fmt_fixed(psi, sizeof(psi), r->psi_some, 1),
				   text_fixed(num, sizeof(num), r->psi_full, 1, ""));
		if (!events)
			text_unknowns(r, lat, acc, samp, miss, wait_us, depth_min, limited);
		/* The cells, padded as the header's: one write a row. */
		p = text_cell(p, iolat_dev_name(r->dev), -8);
		p = text_cell(p, path_tail(text_name(name, r->path), 28), -28);
		p = text_cell(p, target, 8);
		p = text_cell(p, lat, 9);
		p = text_cell(p, acc, 9);
		p = text_cell(p, samp, 5);
		p = text_cell(p, !events ? "?" : r->g.has_window && !top_window_idle(r, now_ns) ?
			      top_row_verdict(r) : "-", -7);
		p = text_cell(p, !events ? "?" : r->in.known && r->in.action >= 0 ?
			      iolat_action_name(r->in.action) : "-", -9);
		p = text_cell(p, text_rate(iops, sizeof(iops), 0, r->iops), 7);
		p = text_cell(p, text_rate(mbps, sizeof(mbps), 1, r->rmbps + r->wmbps), 7);
		p = text_cell(p, depth, 5);
		p = text_cell(p, depth_min, 6);
		p = text_cell(p, limited, 7);
		p = text_cell(p, cookie, 8);
		p = text_cell(p, r->state, -11);
		p = text_cell(p, text_rate(chg, sizeof(chg), 1, r->charged), 6);
		p = text_cell(p, text_rate(paid, sizeof(paid), 1, r->paid), 6);
		p = text_cell(p, text_rate(waits, sizeof(waits), 0, r->waits), 6);
		p = text_cell(p, wait_us, 6);
		p = text_cell(p, miss, 7);
		p = text_cell(p, psi, 11);
		text_put(f, cols, line, p - 1 - line);
		if (text_parent_line(m, r)) {
			enum top_culprit cs = top_row_culprit_status(m, r);
			const char *culprit = top_row_culprit(m, r);

			/*
			 * A culprit gone meanwhile is still named, by its id;
			 * the sample's has none to give.
			 */
			if (r->p.culprit_id)
				snprintf(culprit_id, sizeof(culprit_id), "cgroup id %llu",
					 (unsigned long long)r->p.culprit_id);
			else
				snprintf(culprit_id, sizeof(culprit_id), "%s",
					 cs == TOP_CULPRIT_UNKNOWN ? "a group the walk left out" :
					 "a group gone");
			/* A sample counts no scaling. */
			if (top_row_scalings_known(r)) {
				text_u64(downs, sizeof(downs), r->p.scale_downs, "");
				text_u64(ups, sizeof(ups), r->p.scale_ups, "");
			} else {
				text_word(downs, sizeof(downs), "?");
				text_word(ups, sizeof(ups), "?");
			}
			num[0] = '\0';
			if (r->in.known)
				snprintf(num, sizeof(num), " (%llu / %llu in the interval)",
					 (unsigned long long)r->in.scale_downs,
					 (unsigned long long)r->in.scale_ups);
			scale[0] = '\0';
			if (r->p.has_scale)
				snprintf(scale, sizeof(scale), ", last %s by %s",
					 iolat_scale_kind_name(r->p.last_scale),
					 iolat_scale_by_name(r->p.last_by));
			text_printf(f, cols, "%-8s   `- children's cookie %u (%lld), %s%s, "
				    "%s down / %s up%s%s",
				    "", r->p.cookie, (long long)r->p.cookie - TOP_DEFAULT_COOKIE,
				    cs != TOP_CULPRIT_NONE ? "scaled for " : "no culprit",
				    cs == TOP_CULPRIT_NONE ? "" :
				    culprit ? text_name(name, culprit) : culprit_id,
				    downs, ups, num, scale);
		}
	}
	if (rep->batch)
		fprintf(f, "\n");
}

/*
 * PROM_CGROUP: a cgroup's, whatever the device (io.pressure): labelled
 * with the cgroup alone, once.
 */
enum prom_kind { PROM_GROUP, PROM_PARENT, PROM_CGROUP };

/*
 * A sample's value: most are whole counts of a unit (ns, us, hundredths
 * of a percent), written as the exact decimal n * 10^-exp10 ("0.00123"
 * for 1,230 us) without floating point, whose "%.17g" cost most of a
 * file of 10,000 rows and wrote 0.03 as 0.029999999999999999; the rest
 * (ratios, +Inf) are doubles, exp10 < 0.
 */
struct prom_sample {
	__u64 n;
	int exp10;
	double v;
};

struct prom_metric {
	const char *name, *type, *help;
	enum prom_kind kind;
};

#define PROM_GETTER(fn, cond, val)					\
	static bool fn(const struct top_row *r, struct prom_sample *s)	\
	{								\
		if (!(cond))						\
			return false;					\
		s->exp10 = -1;						\
		s->v = (val);						\
		return true;						\
	}
#define PROM_EXACT(fn, cond, count, e)					\
	static bool fn(const struct top_row *r, struct prom_sample *s)	\
	{								\
		if (!(cond))						\
			return false;					\
		s->exp10 = (e);						\
		s->n = (count);						\
		return true;						\
	}

PROM_EXACT(get_target, r->target_us, r->target_us, 6)
PROM_EXACT(get_mean, r->g.has_window && !r->g.ssd, r->g.last_mean_ns, 9)
PROM_GETTER(get_missed, r->g.has_window && r->g.ssd && r->g.last_samples,
	    (double)r->g.last_missed / r->g.last_samples)
PROM_EXACT(get_samples, r->g.has_window, r->g.last_samples, 0)
PROM_EXACT(get_acc_mean, r->g.has_window && !r->g.ssd, r->g.acc_mean_ns, 9)
PROM_GETTER(get_acc_missed, r->g.has_window && r->g.ssd && r->g.acc_samples,
	    (double)r->g.acc_missed / r->g.acc_samples)
PROM_EXACT(get_met, r->g.has_window && r->g.last_action != IOLAT_ACT_OFFLINE,
	   r->g.last_met, 0)
PROM_GETTER(get_depth, r->g.has_depth,
	    r->g.depth == IOLAT_DEPTH_MAX ? INFINITY : r->g.depth)
PROM_EXACT(get_cookie, top_row_cookie(r), top_row_cookie(r), 0)
PROM_GETTER(get_use_delay, r->g.has_use_delay, r->g.use_delay)	/* < 0: io.cost's */
PROM_EXACT(get_windows, r->has_group, r->g.windows, 0)
PROM_EXACT(get_windows_missed, r->has_group, r->g.windows_missed, 0)
PROM_EXACT(get_throttled, r->has_group, r->g.throttled, 0)
PROM_EXACT(get_throttled_wait, r->has_group, r->g.throttled_wait_ns, 9)
PROM_EXACT(get_charged, r->has_group || r->fn_charges, r->g.charged_ns, 9)
PROM_EXACT(get_paid, r->has_group || r->fn_pays, r->g.paid_ns, 9)
/*
 * io.pressure's avg10: a percentage with two decimals, exact in hundredths;
 * anything else the file might hold someday, as a double.
 */
static bool psi_sample(double pct, struct prom_sample *s)
{
	double hundredths;

	if (isnan(pct))
		return false;
	if (pct == 0) {		/* most cgroups' most of the time: no round() */
		s->exp10 = 4;
		s->n = 0;
		return true;
	}
	hundredths = round(pct * 100);
	if (pct >= 0 && pct <= 100 && fabs(pct * 100 - hundredths) < 1e-6) {
		s->exp10 = 4;
		s->n = (__u64)hundredths;
	} else {
		s->exp10 = -1;
		s->v = pct / 100;
	}
	return true;
}

static bool get_psi_some(const struct top_row *r, struct prom_sample *s)
{
	return psi_sample(r->psi_some, s);
}

static bool get_psi_full(const struct top_row *r, struct prom_sample *s)
{
	return psi_sample(r->psi_full, s);
}
PROM_EXACT(get_limited, r->limited_known, r->limited_ns, 9)
PROM_GETTER(get_depth_min, r->in.known && r->in.depth_min_known,
	    r->in.depth_min == IOLAT_DEPTH_MAX ? INFINITY : r->in.depth_min)
PROM_EXACT(get_children_cookie, r->has_parent, r->p.cookie, 0)
PROM_EXACT(get_scale_downs, top_row_scalings_known(r), r->p.scale_downs, 0)
PROM_EXACT(get_scale_ups, top_row_scalings_known(r), r->p.scale_ups, 0)

/*
 * The metrics, in the file's order: the getter, the name, the type, the
 * kind and the help.  One list for the table and for row_samples().
 */
#define PROM_METRICS(X)							\
	X(get_target, "iolat_target_seconds", "gauge", PROM_GROUP,	\
	  "io.latency target")						\
	X(get_mean, "iolat_window_latency_seconds", "gauge", PROM_GROUP, \
	  "Mean latency of the last window (rotational devices)")	\
	X(get_missed, "iolat_window_missed_ratio", "gauge", PROM_GROUP,	\
	  "Share of the last window's bios over target "		\
	  "(non-rotational devices)")					\
	X(get_samples, "iolat_window_samples", "gauge", PROM_GROUP,	\
	  "Bios in the last window")					\
	X(get_acc_mean, "iolat_accumulated_latency_seconds", "gauge", PROM_GROUP, \
	  "Mean latency of the accumulated statistic the last window "	\
	  "was folded into (rotational devices)")			\
	X(get_acc_missed, "iolat_accumulated_missed_ratio", "gauge", PROM_GROUP, \
	  "Share of the accumulated statistic's bios over target "	\
	  "(non-rotational devices)")					\
	X(get_met, "iolat_window_met", "gauge", PROM_GROUP,		\
	  "The last window's verdict: 1 if the window and the "		\
	  "accumulated statistic met the target")			\
	X(get_depth, "iolat_depth", "gauge", PROM_GROUP,		\
	  "Queue depth io.latency allows the group (+Inf: unlimited)")	\
	X(get_depth_min, "iolat_depth_min", "gauge", PROM_GROUP,	\
	  "Lowest depth during iolat-top's last interval (+Inf: never "	\
	  "limited)")							\
	X(get_limited, "iolat_depth_limited_seconds_total", "counter", PROM_GROUP, \
	  "Time the group spent limited, depth below max (its rate: "	\
	  "the share of time limited)")					\
	X(get_cookie, "iolat_scale_cookie", "gauge", PROM_GROUP,	\
	  "The parent's scale cookie the group last saw")		\
	X(get_use_delay, "iolat_use_delay", "gauge", PROM_GROUP,	\
	  "Induced delay level (0: off)")				\
	X(get_windows, "iolat_windows_total", "counter", PROM_GROUP,	\
	  "Windows checked")						\
	X(get_windows_missed, "iolat_windows_missed_total", "counter", PROM_GROUP, \
	  "Windows that missed the target")				\
	X(get_throttled, "iolat_throttled_bios_total", "counter", PROM_GROUP, \
	  "Bios that slept for a depth slot")				\
	X(get_throttled_wait, "iolat_throttled_wait_seconds_total", "counter", PROM_GROUP, \
	  "Time bios slept for a depth slot (over "			\
	  "iolat_throttled_bios_total: the mean wait)")			\
	X(get_charged, "iolat_delay_charged_seconds_total", "counter", PROM_GROUP, \
	  "Induced delay charged (without the events: "			\
	  "blkcg_add_delay's deltas)")					\
	X(get_paid, "iolat_delay_paid_seconds_total", "counter", PROM_GROUP, \
	  "Induced delay slept off on return to user space (without "	\
	  "the events: sleeps in blkcg_maybe_throttle_current, by the "	\
	  "task's io cgroup)")						\
	X(get_psi_some, "iolat_io_pressure_some_ratio", "gauge", PROM_CGROUP, \
	  "The cgroup's io.pressure avg10, some: share of the last 10 "	\
	  "s in which some of its tasks stalled on IO")			\
	X(get_psi_full, "iolat_io_pressure_full_ratio", "gauge", PROM_CGROUP, \
	  "The cgroup's io.pressure avg10, full: share of the last 10 "	\
	  "s in which all of its tasks stalled on IO")			\
	X(get_children_cookie, "iolat_children_scale_cookie", "gauge", PROM_PARENT, \
	  "The scale cookie of the cgroup's children")			\
	X(get_scale_downs, "iolat_scale_downs_total", "counter", PROM_PARENT, \
	  "Scale-downs of the cgroup's children")			\
	X(get_scale_ups, "iolat_scale_ups_total", "counter", PROM_PARENT, \
	  "Scale-ups of the cgroup's children")

#define PROM_METRIC(fn, name, type, kind, help) { name, type, help, kind },
static const struct prom_metric prom_metrics[] = { PROM_METRICS(PROM_METRIC) };
#undef PROM_METRIC
#define PROM_NMETRICS (sizeof(prom_metrics) / sizeof(*prom_metrics))

/* Each metric's bit in row_samples()'s mask: get_target_bit... */
enum {
#define PROM_BIT(fn, name, type, kind, help) fn##_bit,
	PROM_METRICS(PROM_BIT)
#undef PROM_BIT
};
/* The metrics of the PROM_CGROUP kind, a bit each. */
#define PROM_CGROUP_BIT(fn, name, type, kind, help) | ((__u32)(kind == PROM_CGROUP) << fn##_bit)
static const __u32 prom_cgroup_bits = 0 PROM_METRICS(PROM_CGROUP_BIT);
#undef PROM_CGROUP_BIT

/*
 * Row @r's samples into @s, every metric's in one call: a bit a metric
 * it has.  The getters inlined, not a call through the table each (an
 * indirect call a sample cost most of a report at 10,000 rows in TCG).
 */
static __u32 row_samples(const struct top_row *r, struct prom_sample *s)
{
	__u32 has = 0;

#define PROM_GET(fn, name, type, kind, help) has |= (__u32)fn(r, &s[fn##_bit]) << fn##_bit;
	PROM_METRICS(PROM_GET)
#undef PROM_GET
	return has;
}

/*
 * What the figures rest on, without labels per row: the mode, why it is
 * not the events', blkcg_debug_stats and, without the events, which of
 * the controller's functions are traced.
 */
static void prom_head(FILE *f, const struct top_model *m)
{
	int i;

	fprintf(f, "# HELP iolat_mode_info What iolat-top's figures come from: the "
		"iolatency events, or (iostat) io.stat on a kernel without them or with "
		"--no-events; reason: why not the events.\n"
		"# TYPE iolat_mode_info gauge\niolat_mode_info{mode=\"%s\",reason=\"",
		top_mode_names[m->mode]);
	iolat_prom_label(f, m->mode_reason ?: "");
	fputs("\"} 1\n", f);
	if (m->debug_stats >= 0)
		fprintf(f, "# HELP iolat_debug_stats_enabled blk_cgroup.blkcg_debug_stats as "
			"read at the start (1: on, io.stat has depth, use_delay and latency).\n"
			"# TYPE iolat_debug_stats_enabled gauge\niolat_debug_stats_enabled %d\n",
			m->debug_stats);
	if (m->mode == TOP_MODE_EVENTS)
		return;
	fprintf(f, "# HELP iolat_function_attached Without the events: 1 if the controller's "
		"function is traced (its induced delay counters are filled), 0 if not "
		"(inlined, not in the kernel's BTF, --no-functions).\n"
		"# TYPE iolat_function_attached gauge\n");
	for (i = 0; i < IOLAT_FN_NR; i++)
		fprintf(f, "iolat_function_attached{function=\"%s\"} %d\n", iolat_fn_names[i],
			m->fns.attached[i]);
	fprintf(f, "# HELP iolat_state_sampled Without the events: 1 if io.latency's own "
		"state (depth, use_delay, cookies, culprits) was read through the kernel's BTF "
		"for this report, 0 if not (no BTF, no data symbols in kallsyms, --no-state; "
		"stderr says why).\n# TYPE iolat_state_sampled gauge\niolat_state_sampled %d\n",
		m->sampled);
}

/* The BPF maps read: how full, what they dropped full, the rows missing. */
static void prom_maps(FILE *f, const struct top_model *m)
{
	size_t i, n;
	int k;

	fputs("# HELP iolat_map_entries Entries in a BPF map of iolat-top's, a "
	      "(device, cgroup) pair each.\n# TYPE iolat_map_entries gauge\n", f);
	for (k = 0; k < TOP_MAP_NR; k++)
		if (m->maps[k].read)
			fprintf(f, "iolat_map_entries{map=\"%s\"} %zu\n", top_map_names[k],
				m->maps[k].entries);
	fputs("# HELP iolat_map_max_entries The entries the map was sized for at the "
	      "start (it cannot grow).\n# TYPE iolat_map_max_entries gauge\n", f);
	for (k = 0; k < TOP_MAP_NR; k++)
		if (m->maps[k].read)
			fprintf(f, "iolat_map_max_entries{map=\"%s\"} %u\n", top_map_names[k],
				m->maps[k].max_entries);
	fputs("# HELP iolat_map_full_events_total Events the BPF side dropped because the "
	      "map was full: no entry for a new (device, cgroup) pair, whose row is "
	      "missing.\n# TYPE iolat_map_full_events_total counter\n", f);
	for (k = 0; k < TOP_MAP_NR; k++)
		if (m->maps[k].read)
			fprintf(f, "iolat_map_full_events_total{map=\"%s\"} %llu\n",
				top_map_names[k], (unsigned long long)m->maps[k].full);
	fputs("# HELP iolat_rows_missing Rows with an io.latency target that a full map "
	      "has no entry for (iolat-top -j's rows_missing names them).\n"
	      "# TYPE iolat_rows_missing gauge\n", f);
	for (k = 0; k < TOP_MAP_NR; k++) {
		if (!m->maps[k].read || k == TOP_MAP_PARENTS)
			continue;
		for (i = n = 0; i < m->nmissing; i++)
			n += m->missing[i].map == (enum top_map)k;
		fprintf(f, "iolat_rows_missing{map=\"%s\"} %zu\n", top_map_names[k], n);
	}
}

/* What prom_value() writes at most. */
#define PROM_VALUE_MAX 64
/*
 * A sample's value and the line's end into @buf, its length returned: an
 * exact one as its decimal digits (trailing zeros of the fraction cut),
 * a double as "%.17g" writes it (what reads back as the same double), an
 * integral one in [0, 2^53) as its digits without printf.
 */
static int prom_value(char *buf, const struct prom_sample *s)
{
	char frac[24];
	int n = 0, k, len, e = s->exp10;
	__u64 scale = 1;
	double v = s->v;

	if (e >= 0) {
		for (k = 0; k < e; k++)
			scale *= 10;
		n += iolat_fmt_u64(buf + n, PROM_VALUE_MAX - n - 1, s->n / scale);
		len = k = iolat_fmt_u64(frac, sizeof(frac), s->n % scale);
		while (k > 0 && frac[k - 1] == '0')
			k--;	/* 0.00100 is 0.001; a fraction of 0, none */
		if (k > 0) {
			buf[n++] = '.';
			for (; e > len; e--)	/* the fraction's leading zeros */
				buf[n++] = '0';
			memcpy(buf + n, frac, k);
			n += k;
		}
	} else if (isinf(v)) {
		n += snprintf(buf + n, PROM_VALUE_MAX - n - 1, "%s", v > 0 ? "+Inf" : "-Inf");
	} else if (v >= 0 && v < 9007199254740992.0 && !signbit(v) && v == (double)(__u64)v) {
		n += iolat_fmt_u64(buf + n, PROM_VALUE_MAX - n - 1, (__u64)v);
	} else {
		n += snprintf(buf + n, PROM_VALUE_MAX - n - 1, "%.17g", v);
	}
	buf[n++] = '\n';
	return n;
}

static char *label_make(const char *path)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	iolat_prom_label(f, path);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * What -P wrote last, kept so that a report renders only the samples
 * that changed.  At 10,000 cgroups most rows are idle and their samples
 * (a target, io.pressure's zeros) the same every interval, yet making
 * every line again was a third of iolat-top -P's CPU.  Each metric's
 * samples are one text, a line a row in the kept rows' order; a report
 * compares each row's sample with the one its line shows and splices in
 * the lines that changed.  The rows are kept in the order they came, new
 * ones at the end: the file's order is stable, not the screen's.  A row
 * gone, a cgroup renamed, a device's name changed or one (device,
 * cgroup) in two rows makes it all again from the model's order, as a
 * fresh render does.  About 450 bytes a row, and the text twice (a
 * splice writes the next into the spare).
 */
struct prom_kept_row {
	__u32 dev;
	__u64 cgid;
	const char *path;	/* the model's, compared by pointer first */
	char *label;		/* @path as a label value, made at its first line */
	size_t row;		/* its index in this report's model */
	__u32 seen;		/* the report that found it */
	bool first;		/* its cgroup's first row: PROM_CGROUP's samples */
};

/* A row's line in a metric's text; len 0: no sample. */
struct prom_line {
	__u32 off;
	__u32 len : 31;
	__u32 dbl : 1;		/* @key is a double's bits, not a count */
	__u64 key;		/* the sample shown */
};

struct prom_text {
	char *buf;
	size_t len, cap;
};

/* A line of this report's that replaces row @row's. */
struct prom_change {
	size_t row, off;	/* off: in the scratch text */
	struct prom_line line;
};

struct top_prom_kept {
	struct prom_kept_row *rows;
	size_t n, cap;
	size_t *slots, nslots;	/* index + 1 by (device, cgroup) */
	__u32 report;
	struct prom_text text[PROM_NMETRICS], spare, scratch;
	struct prom_line *lines[PROM_NMETRICS];
	struct prom_dev {
		__u32 dev;
		char *name, *label;
	} *devs;
	size_t ndevs;
	struct prom_change *changes[PROM_NMETRICS];
	size_t nchanges[PROM_NMETRICS], changes_cap[PROM_NMETRICS];
};

static int ptext_room(struct prom_text *t, size_t more)
{
	return iolat_grow((void **)&t->buf, &t->cap, t->len + more, 1);
}

static void ptext_put(struct prom_text *t, const char *s, size_t len)
{
	memcpy(t->buf + t->len, s, len);
	t->len += len;
}

static void kept_devs_clear(struct top_prom_kept *k)
{
	size_t d;

	for (d = 0; d < k->ndevs; d++) {
		free(k->devs[d].name);
		free(k->devs[d].label);
	}
	free(k->devs);
	k->devs = NULL;
	k->ndevs = 0;
}

/* Every row and line dropped, the memory kept. */
static void kept_reset(struct top_prom_kept *k)
{
	size_t q, i;

	for (i = 0; i < k->n; i++)
		free(k->rows[i].label);
	for (q = 0; q < PROM_NMETRICS; q++)
		k->text[q].len = 0;
	if (k->slots)
		memset(k->slots, 0, k->nslots * sizeof(*k->slots));
	k->n = 0;
	kept_devs_clear(k);
}

static void kept_free(struct top_prom_kept *k)
{
	size_t q;

	if (!k)
		return;
	kept_reset(k);
	for (q = 0; q < PROM_NMETRICS; q++) {
		free(k->text[q].buf);
		free(k->lines[q]);
	}
	free(k->spare.buf);
	free(k->scratch.buf);
	free(k->rows);
	free(k->slots);
	for (q = 0; q < PROM_NMETRICS; q++)
		free(k->changes[q]);
	memset(k, 0, sizeof(*k));
}


static size_t *kept_slot(struct top_prom_kept *k, __u32 dev, __u64 cgid)
{
	size_t i = iolat_hash_slot(cgid ^ (__u64)dev << 40, k->nslots);

	while (k->slots[i]) {
		const struct prom_kept_row *r = &k->rows[k->slots[i] - 1];

		if (r->dev == dev && r->cgid == cgid)
			break;
		i = (i + 1) & (k->nslots - 1);
	}
	return &k->slots[i];
}

/* Room for @n rows: the rows, their lines, a table twice as big. */
static int kept_grow(struct top_prom_kept *k, size_t n)
{
	size_t cap = k->cap ?: 64, q, i, nslots;
	void *v;

	if (n <= k->cap && 2 * n <= k->nslots)
		return 0;
	while (cap < n)
		cap *= 2;
	if (cap > k->cap) {
		v = realloc(k->rows, cap * sizeof(*k->rows));
		if (!v)
			return -ENOMEM;
		k->rows = v;
		for (q = 0; q < PROM_NMETRICS; q++) {
			v = realloc(k->lines[q], cap * sizeof(*k->lines[q]));
			if (!v)
				return -ENOMEM;
			k->lines[q] = v;
		}
		k->cap = cap;
	}
	for (nslots = 16; nslots < 2 * cap; nslots *= 2)
		;
	if (nslots > k->nslots) {
		v = calloc(nslots, sizeof(*k->slots));
		if (!v)
			return -ENOMEM;
		free(k->slots);
		k->slots = v;
		k->nslots = nslots;
		for (i = 0; i < k->n; i++) {
			size_t *s = kept_slot(k, k->rows[i].dev, k->rows[i].cgid);

			if (!*s)
				*s = i + 1;
		}
	}
	return 0;
}

/* Model row @i as a new kept row at the end, its lines empty. */
static void kept_append(struct top_prom_kept *k, const struct top_model *m, size_t i)
{
	struct prom_kept_row *r = &k->rows[k->n];
	size_t *s, q;

	r->dev = m->v[i].dev;
	r->cgid = m->v[i].cgid;
	r->path = m->v[i].path;
	r->label = NULL;
	r->row = i;
	r->seen = k->report;
	r->first = false;
	for (q = 0; q < PROM_NMETRICS; q++)
		k->lines[q][k->n] = (struct prom_line){ .off = k->text[q].len };
	s = kept_slot(k, r->dev, r->cgid);
	if (!*s)
		*s = k->n + 1;
	k->n++;
}

/* Which rows come first of their cgroup, in the kept order. */
static int kept_firsts(struct top_prom_kept *k)
{
	size_t nslots = 16, i, s;
	bool zero = false;
	__u64 *ids;

	while (nslots < 2 * k->n)
		nslots *= 2;
	ids = calloc(nslots, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < k->n; i++) {
		__u64 id = k->rows[i].cgid;

		if (!id) {		/* 0 marks a free slot: apart (no cgroup has it) */
			k->rows[i].first = !zero;
			zero = true;
			continue;
		}
		s = iolat_hash_slot(id, nslots);
		while (ids[s] && ids[s] != id)
			s = (s + 1) & (nslots - 1);
		k->rows[i].first = ids[s] != id;
		ids[s] = id;
	}
	free(ids);
	return 0;
}

/* @dev's name as a label value, kept; NULL: no memory. */
static struct prom_dev *kept_dev(struct top_prom_kept *k, __u32 dev)
{
	const char *name = iolat_dev_name(dev);
	struct prom_dev *d;
	size_t i;

	for (i = 0; i < k->ndevs; i++)
		if (k->devs[i].dev == dev)
			return &k->devs[i];
	d = realloc(k->devs, (k->ndevs + 1) * sizeof(*d));
	if (!d)
		return NULL;
	k->devs = d;
	d = &d[k->ndevs];
	d->dev = dev;
	d->name = strdup(name);
	d->label = label_make(name);
	if (!d->name || !d->label) {
		free(d->name);
		free(d->label);
		return NULL;
	}
	k->ndevs++;
	return d;
}

/*
 * The kept rows made this report's: every model row found (or added at
 * the end), or all made again in the model's order when one must be
 * (see struct top_prom_kept).  0 or -ENOMEM.
 */
static int kept_sync(struct top_prom_kept *k, const struct top_model *m)
{
	bool again = false, added = false;
	size_t i, d;

	k->report++;
	if (!k->nslots && kept_grow(k, m->n ?: 1))
		return -ENOMEM;
	for (d = 0; d < k->ndevs && !again; d++)
		again = strcmp(k->devs[d].name, iolat_dev_name(k->devs[d].dev));
	for (i = 0; i < m->n && !again; i++) {
		const struct top_row *r = &m->v[i];
		size_t *s = kept_slot(k, r->dev, r->cgid);
		struct prom_kept_row *kr;

		if (!*s) {
			if (kept_grow(k, k->n + 1))
				return -ENOMEM;
			kept_append(k, m, i);
			added = true;
			continue;
		}
		kr = &k->rows[*s - 1];
		if (kr->seen == k->report) {
			again = true;	/* two rows of one pair: no row to key lines by */
			break;
		}
		kr->seen = k->report;
		kr->row = i;
		if (kr->path != r->path) {
			if (strcmp(kr->path, r->path))
				again = true;	/* renamed: its label in every line */
			kr->path = r->path;
		}
	}
	for (i = 0; i < k->n && !again; i++)
		again = k->rows[i].seen != k->report;	/* gone */
	if (again) {
		kept_reset(k);
		if (kept_grow(k, m->n))
			return -ENOMEM;
		for (i = 0; i < m->n; i++)
			kept_append(k, m, i);
		added = true;
	}
	return added ? kept_firsts(k) : 0;
}

/*
 * Row @kr's sample @s of metric @pm, the line whole, at the end of the
 * scratch text.  0 or -ENOMEM.
 */
static int line_make(struct top_prom_kept *k, const struct prom_metric *pm,
		     struct prom_kept_row *kr, const struct prom_sample *s)
{
	struct prom_text *t = &k->scratch;
	const struct prom_dev *d = NULL;
	size_t need;

	if (!kr->label && !(kr->label = label_make(kr->path)))
		return -ENOMEM;
	if (pm->kind != PROM_CGROUP && !(d = kept_dev(k, kr->dev)))
		return -ENOMEM;
	need = strlen(pm->name) + strlen(kr->label) + (d ? strlen(d->label) : 0) +
	       32 + PROM_VALUE_MAX;
	if (ptext_room(t, need))
		return -ENOMEM;
	ptext_put(t, pm->name, strlen(pm->name));
	if (pm->kind == PROM_CGROUP) {
		ptext_put(t, "{cgroup=\"", 9);
	} else {
		ptext_put(t, "{device=\"", 9);
		ptext_put(t, d->label, strlen(d->label));
		ptext_put(t, "\",cgroup=\"", 10);
	}
	ptext_put(t, kr->label, strlen(kr->label));
	ptext_put(t, "\"} ", 3);
	t->len += prom_value(t->buf + t->len, s);
	return 0;
}

/* Metric @q's text with its changes spliced in, in row order. */
static int text_splice(struct top_prom_kept *k, size_t q)
{
	struct prom_text *t = &k->text[q], *o = &k->spare, tmp;
	const struct prom_change *c, *ch = k->changes[q];
	struct prom_line *l = k->lines[q];
	size_t at = 0, i, n = k->nchanges[q], grow = 0, off;

	for (i = 0; i < n; i++)
		grow += ch[i].line.len;
	o->len = 0;
	if (ptext_room(o, t->len + grow))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c = &ch[i];
		ptext_put(o, t->buf + at, l[c->row].off - at);
		at = l[c->row].off + l[c->row].len;
		ptext_put(o, k->scratch.buf + c->off, c->line.len);
		l[c->row].len = c->line.len;
		l[c->row].dbl = c->line.dbl;
		l[c->row].key = c->line.key;
	}
	ptext_put(o, t->buf + at, t->len - at);
	off = l[ch[0].row].off;
	for (i = ch[0].row; i < k->n; i++) {
		l[i].off = off;
		off += l[i].len;
	}
	tmp = *t;
	*t = *o;
	*o = tmp;
	return 0;
}

/* Metric @q's text made current with its changes: in place if no length changed. */
static int text_apply(struct top_prom_kept *k, size_t q)
{
	struct prom_line *l = k->lines[q];
	const struct prom_change *c;
	size_t i;

	for (i = 0; i < k->nchanges[q]; i++)
		if (k->changes[q][i].line.len != l[k->changes[q][i].row].len)
			return text_splice(k, q);
	for (i = 0; i < k->nchanges[q]; i++) {
		c = &k->changes[q][i];
		memcpy(k->text[q].buf + l[c->row].off, k->scratch.buf + c->off, c->line.len);
		l[c->row].dbl = c->line.dbl;
		l[c->row].key = c->line.key;
	}
	return 0;
}

/*
 * Row @j's line of metric @q to be @has's sample @s (or none), when the
 * line shows another: made at the end of the scratch text.  0 or -ENOMEM.
 */
static int line_change(struct top_prom_kept *k, size_t q, size_t j, bool has,
		       const struct prom_sample *s)
{
	const struct prom_line *l = &k->lines[q][j];
	struct prom_change *c;
	bool dbl = has && s->exp10 < 0;
	__u64 key = 0;

	if (dbl)
		memcpy(&key, &s->v, sizeof(key));
	else if (has)
		key = s->n;
	if (has ? l->len && l->key == key && l->dbl == dbl : !l->len)
		return 0;
	if (iolat_grow((void **)&k->changes[q], &k->changes_cap[q], k->nchanges[q] + 1,
		       sizeof(*k->changes[q])))
		return -ENOMEM;
	c = &k->changes[q][k->nchanges[q]++];
	c->row = j;
	c->off = k->scratch.len;
	if (has && line_make(k, &prom_metrics[q], &k->rows[j], s))
		return -ENOMEM;
	c->line = (struct prom_line){ .len = k->scratch.len - c->off, .dbl = dbl, .key = key };
	return 0;
}

/* Every metric's text made current: the lines whose sample changed, again. */
static int kept_update(struct top_prom_kept *k, const struct top_model *m)
{
	struct prom_sample s[PROM_NMETRICS];
	size_t j, q;
	__u32 has;

	k->scratch.len = 0;
	memset(k->nchanges, 0, sizeof(k->nchanges));
	for (j = 0; j < k->n; j++) {
		has = row_samples(&m->v[k->rows[j].row], s);
		if (!k->rows[j].first)
			has &= ~prom_cgroup_bits;
		for (q = 0; q < PROM_NMETRICS; q++)
			if (line_change(k, q, j, has >> q & 1, &s[q]))
				return -ENOMEM;
	}
	for (q = 0; q < PROM_NMETRICS; q++)
		if (k->nchanges[q] && text_apply(k, q))
			return -ENOMEM;
	return 0;
}

/* @rep's metrics to @f, through @k (what the last report wrote).  0 or -ENOMEM. */
static int prom_render(FILE *f, const struct top_report *rep, struct top_prom_kept *k)
{
	const struct top_model *m = rep->m;
	size_t q;

	if (kept_sync(k, m) || kept_update(k, m))
		goto nomem;
	prom_head(f, m);
	for (q = 0; q < PROM_NMETRICS; q++) {
		const struct prom_metric *pm = &prom_metrics[q];

		fprintf(f, "# HELP %s %s.\n# TYPE %s %s\n", pm->name, pm->help,
			pm->name, pm->type);
		fwrite(k->text[q].buf, 1, k->text[q].len, f);
	}
	if (has_bpf(m)) {	/* no BPF side: nothing to lose, nothing to say */
		prom_maps(f, m);
		/* Last: a reader that finds it has read the file whole. */
		fprintf(f, "# HELP iolat_lost_events_total Events the BPF side could not "
			"record, a full map's aside (iolat_map_full_events_total).\n"
			"# TYPE iolat_lost_events_total counter\niolat_lost_events_total %llu\n",
			rep->lost);
	}
	return 0;
nomem:
	kept_reset(k);		/* half made: none of it to trust */
	return -ENOMEM;
}

void top_print_prom(FILE *f, const struct top_report *rep)
{
	struct top_prom_kept k = { 0 };

	if (prom_render(f, rep, &k))
		fputs("# iolat-top: out of memory\n", f);
	kept_free(&k);
}

void top_prom_free(struct top_prom *p)
{
	kept_free(p->kept);
	free(p->kept);
	p->kept = NULL;
}

/*
 * top_print_prom()'s stdio stream onto our own write(), which keeps the
 * first failure's errno: a write that fails inside stdio's flush of a
 * full buffer leaves only the error flag, and a full disk would read as
 * EIO.
 */
struct prom_out {
	int fd;
	int err;	/* the first failure's errno */
};

static ssize_t prom_out_write(void *cookie, const char *buf, size_t len)
{
	struct prom_out *o = cookie;
	size_t done = 0;
	ssize_t n;

	while (done < len && !o->err) {
		n = write(o->fd, buf + done, len - done);
		if (n > 0)
			done += n;
		else if (n < 0 && errno != EINTR)
			o->err = errno;
		else if (!n)
			o->err = EIO;
	}
	return done;	/* short: stdio sets the stream's error flag */
}

/*
 * A new file beside @file, named in @tmp: ".NAME.XXXXXX", which the
 * textfile collector's *.prom does not match.  mkstemp()'s O_EXCL never
 * follows a symlink planted at the name, whatever the name.  The fd or
 * -errno.
 */
static int prom_tmp_open(const char *file, char *tmp, size_t len)
{
	const char *slash = strrchr(file, '/');
	int n, fd;

	if (slash)
		n = snprintf(tmp, len, "%.*s/.%s.XXXXXX", (int)(slash - file), file, slash + 1);
	else
		n = snprintf(tmp, len, ".%s.XXXXXX", file);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Replace @file with @rep's metrics: a new file, 0644 whatever our umask
 * (node_exporter reads it as another user), written, synced and renamed
 * over @file.  @rep NULL makes and removes the new file only.  On a
 * failure the new file is removed and @file left as it was; @step says
 * which step failed.  0 or -errno.
 */
static int prom_replace(const char *file, const struct top_report *rep,
			struct top_prom_kept *kept, const char **step)
{
	static const cookie_io_functions_t io = { .write = prom_out_write };
	static char buf[65536];
	char tmp[PATH_MAX];
	struct prom_out o = { .fd = -1 };
	FILE *f;
	int err = 0;

	*step = "creating a file beside it";
	o.fd = prom_tmp_open(file, tmp, sizeof(tmp));
	if (o.fd < 0)
		return o.fd;
	*step = "setting its mode";
	if (fchmod(o.fd, 0644)) {
		err = -errno;
		goto out;
	}
	if (rep) {
		*step = "writing it";
		f = fopencookie(&o, "w", io);
		if (!f) {
			err = -errno;
			goto out;
		}
		setvbuf(f, buf, _IOFBF, sizeof(buf));
		__fsetlocking(f, FSETLOCKING_BYCALLER);	/* ours alone: no lock a call */
		if (prom_render(f, rep, kept))
			o.err = ENOMEM;
		if (ferror(f) && !o.err)
			o.err = EIO;
		if (fclose(f) && !o.err)
			o.err = EIO;
		if (o.err) {
			err = -o.err;
			goto out;
		}
		/* Renamed before its data is on disk, a crash could leave it empty. */
		*step = "syncing it";
		if (fsync(o.fd)) {
			err = -errno;
			goto out;
		}
	}
	*step = "closing it";
	err = close(o.fd) ? -errno : 0;
	o.fd = -1;
	if (!err && rep) {
		*step = "renaming it over the last one";
		if (rename(tmp, file))
			err = -errno;
	}
out:
	if (o.fd >= 0)
		close(o.fd);
	if (err || !rep)
		unlink(tmp);
	return err;
}

int top_prom_check(const char *file)
{
	const char *step;
	struct stat st;
	int err;

	if (!stat(file, &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, IOLAT_TOP ": -P %s is a directory; name a file in it\n",
			file);
		return -EISDIR;
	}
	err = prom_replace(file, NULL, NULL, &step);
	if (err)
		fprintf(stderr, IOLAT_TOP ": cannot write %s (%s: %s)\n", file, step,
			strerror(-err));
	return err;
}

int top_prom_write(struct top_prom *p, const struct top_report *rep)
{
	const char *step;
	int err;

	if (!p->kept)
		p->kept = calloc(1, sizeof(*p->kept));
	step = "keeping its lines";
	err = p->kept ? prom_replace(p->file, rep, p->kept, &step) : -ENOMEM;

	/* Once a streak: every interval of a full disk would flood the journal. */
	if (err && !p->failed++)
		fprintf(stderr, IOLAT_TOP ": cannot write %s (%s: %s); left as it was, "
			"tried again every interval\n", p->file, step, strerror(-err));
	if (!err && p->failed) {
		fprintf(stderr, IOLAT_TOP ": %s written again, after %lu failed write%s\n",
			p->file, p->failed, p->failed == 1 ? "" : "s");
		p->failed = 0;
	}
	p->err = err;
	return err;
}
