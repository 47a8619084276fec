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
};

void top_print_text(FILE *f, const struct top_report *rep);
/* One JSON object, one line. */
void top_print_json(FILE *f, const struct top_report *rep);
/* The Prometheus text format. */
void top_print_prom(FILE *f, const struct top_report *rep);
/*
 * Replace @file with top_print_prom()'s output, through a temporary file
 * renamed over it; @rep NULL only checks that it can be written.  Says
 * what failed; returns 0 or -errno.
 */
int top_write_prom(const char *file, const struct top_report *rep);

#endif /* __IOLAT_TOP_OUTPUT_H */
