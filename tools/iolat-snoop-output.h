/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-snoop's records, text and JSON: one event, or events lost.  No
 * BPF here, so that the host test (tests/host/12-snoop) feeds it events.
 */
#ifndef __IOLAT_SNOOP_OUTPUT_H
#define __IOLAT_SNOOP_OUTPUT_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "iolat.h"
#include "iolat-common.h"
#include "iolat-snoop-state.h"

extern const char *const snoop_type_names[IOLAT_EV_NR];

/* The text mode's column header. */
void snoop_print_header(FILE *f);
/*
 * First of all: what the records rest on.  @fns NULL: the events.  Else,
 * without them: why (@reason), which of the controller's functions @fns
 * are attached, which records follow (charges with -a, @all) and which of
 * the events' it cannot give; @state: "used" when io.latency's state is
 * sampled every @sample_ms (its changes are records then), else why not.
 * @cgroupns (iolat_cgroupns()): the paths start at a cgroup namespace's
 * root.  A "mode" record with @json, else a line starting with "#" (none
 * for the events outside a namespace).
 */
void snoop_print_mode(FILE *f, bool json, double t, const char *reason,
		      const struct iolat_fns *fns, bool all, int cgroupns,
		      const char *state, int sample_ms);
/*
 * Event @e at @t (seconds since the epoch); @path and @culprit are the
 * cgroup's and the culprit's paths, NULL when unknown.
 */
void snoop_print_text(FILE *f, const struct iolat_event *e, const char *path,
		      const char *culprit, double t);
/* The same as one JSON object, one line. */
void snoop_print_json(FILE *f, const struct iolat_event *e, const char *path,
		      const char *culprit, double t);
/*
 * A change between two samples of io.latency's state, at @t, the sample
 * that saw it, since @since, the one before: the record of the event it
 * stands for, "source":"sampled" and "since" in JSON, "(sampled, within
 * N ms)" in text.  What a sample cannot tell is not there: a cookie
 * move's steps, idle time and cause (by), a depth's nr_requests, who
 * wrote a target.
 */
void snoop_print_sampled(FILE *f, bool json, const struct snoop_change *c,
			 const char *path, const char *culprit, double since, double t);

/*
 * The BPF side's count of lost events is @lost, of which *@reported were
 * reported: say how many more were lost, at @t, in the output (a "lost"
 * record or line) and on stderr, and update *@reported.
 */
void snoop_report_lost(FILE *f, bool json, double t, __u64 lost, __u64 *reported);

/* Where and how the records from the ring buffer are printed. */
struct snoop_out {
	FILE *f;
	bool json;
	const regex_t *re;	/* -c: the cgroup or the culprit must match */
	/* Cgroup @id's path as we see it, NULL when it cannot be placed. */
	const char *(*path)(void *arg, __u64 id);
	void *arg;
	double t0_real, t0_mono;	/* one instant, on both clocks */
	int err;		/* the output failed: -EPIPE (quiet) or an error */
};

/*
 * Past this many bytes printed, snoop_record() flushes before the batch
 * ends: half of the 64 KiB buffer iolat_check_stdout_at_exit() gives a
 * stdout that is not a terminal (a terminal's is line-buffered).
 */
#define SNOOP_FLUSH_AT	(32 * 1024)

/*
 * ring_buffer__new()'s callback, @ctx a struct snoop_out: the record
 * @data of @len bytes, printed, not flushed.  Always 0: a bad record is
 * skipped, and once o->err is set nothing more is printed.
 */
int snoop_record(void *ctx, void *data, size_t len);
/*
 * A change between two samples (snoop_print_sampled()), as snoop_record()
 * prints an event: the cgroup's and the culprit's paths looked up, -c's
 * filter, flushed past SNOOP_FLUSH_AT.
 */
int snoop_record_sampled(struct snoop_out *o, const struct snoop_change *c,
			 double since, double t);
/* The records printed, flushed: after each batch.  0 or o->err. */
int snoop_flush(struct snoop_out *o);

#endif /* __IOLAT_SNOOP_OUTPUT_H */
