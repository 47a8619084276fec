/* SPDX-License-Identifier: GPL-2.0 */
/* iolat-top's outputs of a computed, sorted model: text, JSON, Prometheus. */
#ifndef __IOLAT_TOP_OUTPUT_H
#define __IOLAT_TOP_OUTPUT_H

#include <stdio.h>
#include "iolat-top-model.h"

#define IOLAT_TOP "iolat-top"

/* One interval's report. */
struct top_report {
	const struct top_model *m;
	double secs;		/* the interval */
	__u64 now_ns;		/* CLOCK_MONOTONIC, for idle windows */
	double time;		/* CLOCK_REALTIME, the report's time stamp */
	unsigned long long lost;	/* events the BPF side lost */
	size_t rows;		/* -r: at most this many rows */
	bool batch;		/* no screen control */
	unsigned int lines, cols;	/* the terminal's; 0: none (a pipe, a file) */
};

void top_print_text(FILE *f, const struct top_report *rep);
/* The rows a terminal of @lines lines has room for (0 lines: no limit). */
size_t top_text_room(const struct top_model *m, unsigned int lines);
/* The rows top_print_text() shows of @rep's. */
size_t top_text_fit(const struct top_report *rep);
/* One JSON object, one line. */
void top_print_json(FILE *f, const struct top_report *rep);
/* The Prometheus text format. */
void top_print_prom(FILE *f, const struct top_report *rep);
/*
 * -P's file and how its writes go.  A write that fails leaves the last
 * file in place and is tried again at the next interval: a full disk
 * must not end the exporter (its unit would restart it in a loop), and
 * a file that is no longer rewritten is what iolat-alerts.yml watches.
 */
struct top_prom {
	const char *file;
	int err;		/* the last write's error; 0 if it worked */
	unsigned long failed;	/* writes failed since the last that worked */
	struct top_prom_kept *kept;	/* the last report's lines (the .c's) */
};

/*
 * Whether @file can be written, before anything is loaded: it is not a
 * directory, and a temporary file can be made and removed beside it.
 * Says what failed; returns 0 or -errno.
 */
int top_prom_check(const char *file);
/*
 * Replace p->file with top_print_prom()'s output, through a new file
 * beside it renamed over it, so a reader never sees half of one.  A
 * failure is said on stderr at the first write of a streak of failed
 * ones, as is the write that ends the streak; nothing stays behind.
 * Returns 0 or the -errno that failed this one (never fatal).
 */
int top_prom_write(struct top_prom *p, const struct top_report *rep);
void top_prom_free(struct top_prom *p);

#endif /* __IOLAT_TOP_OUTPUT_H */
