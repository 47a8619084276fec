/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-snoop's records, text and JSON: one event, or events lost.  No
 * BPF here, so that the host test (tests/host/12-snoop) feeds it events.
 */
#ifndef __IOLAT_SNOOP_OUTPUT_H
#define __IOLAT_SNOOP_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "iolat.h"
#include "iolat-common.h"

extern const char *const snoop_type_names[IOLAT_EV_NR];

/* The text mode's column header. */
void snoop_print_header(FILE *f);
/*
 * Without the events, first of all: the mode, why (@reason), which of
 * the controller's functions @fns are attached, which records follow
 * (charges with -a, @all) and which of the events' it cannot give.  A
 * "mode" record with @json, else a line starting with "#".
 */
void snoop_print_mode(FILE *f, bool json, double t, const char *reason,
		      const struct iolat_fns *fns, bool all);
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
 * The BPF side's count of lost events is @lost, of which *@reported were
 * reported: say how many more were lost, at @t, in the output (a "lost"
 * record or line) and on stderr, and update *@reported.
 */
void snoop_report_lost(FILE *f, bool json, double t, __u64 lost, __u64 *reported);

#endif /* __IOLAT_SNOOP_OUTPUT_H */
