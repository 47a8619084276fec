/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the iolat tools' JSON lines: a small JSON parser, and the one
 * place that knows the keys iolat-snoop -j and iolat-top -j print.  It
 * turns a line into iolat-why's plain inputs (iolat-why-model.h), so that a
 * key renamed in either tool is one line to change here, and the analysis
 * never sees JSON.  Unknown keys are ignored; a "schema" or "version" key,
 * if a line has one, is read and left alone.  The tools' "lost_events"
 * (iolat-snoop's "lost" records, iolat-top's per report) go to
 * why_model_lost().
 */
#ifndef __IOLAT_JSON_H
#define __IOLAT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include "iolat-why-model.h"

enum ij_type { IJ_NULL, IJ_BOOL, IJ_NUM, IJ_STR, IJ_ARR, IJ_OBJ };

/*
 * 24 bytes: an iolat-top line of 10,000 groups is half a million of them,
 * written, copied once and read again.
 */
struct ij_value {
	unsigned char type;	/* enum ij_type */
	bool b;			/* IJ_BOOL */
	unsigned n;		/* IJ_ARR, IJ_OBJ: items */
	union {
		double num;	/* IJ_NUM */
		char *str;	/* IJ_STR */
		struct ij_value *items;	/* IJ_ARR, IJ_OBJ */
	};
	union {
		char *key;	/* an item of an IJ_OBJ: its name */
		struct ij_arena *arena;	/* ij_parse()'s value: where the rest is */
	};
};

/*
 * Parse one JSON text (a whole line) into @v.  0, or -EINVAL with what is
 * wrong in @err; -ENOMEM.  ij_free() it either way.
 */
int ij_parse(const char *text, struct ij_value *v, char *err, size_t errlen);
void ij_free(struct ij_value *v);
/* Member @key of object @obj, NULL when absent or @obj is no object. */
const struct ij_value *ij_get(const struct ij_value *obj, const char *key);

/* What a line of a recording is. */
enum ij_line { IJ_LINE_BAD = -1, IJ_LINE_EMPTY, IJ_LINE_SNOOP, IJ_LINE_TOP };

/*
 * Decode a line of an iolat-snoop -j or iolat-top -j recording and hand
 * what it holds to @m (why_model_event(), why_model_row()).  Returns the
 * line's kind; IJ_LINE_BAD with the reason in @err.
 */
enum ij_line ij_feed_line(struct why_model *m, const char *line, char *err,
			  size_t errlen);

#endif /* __IOLAT_JSON_H */
