/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-why --suggest: for each group with a target, the target its
 * windows say the controller could meet: those that closed while a
 * sibling sat at the lowest depth it reached in the recording (the most
 * the controller throttled it there).  A rotational device's window is
 * judged by its mean latency, so those windows' means say it; a
 * non-rotational window only
 * says how many of its bios were over the target in force, so there the
 * windows say whether that target is within reach, not by how much a
 * tighter or looser one would be.
 */
#ifndef __IOLAT_WHY_SUGGEST_H
#define __IOLAT_WHY_SUGGEST_H

#include "iolat-why-model.h"

/* The windows of one group taken together. */
struct why_win_class {
	__u64 windows, missed;
	/* rotational: the window means' median and 90th percentile; 0 none */
	__u64 mean_p50_us, mean_p90_us;
};

/*
 * What the group's siblings were when a window closed: one at the lowest
 * depth it reached (below max), one below max but not that low yet, all
 * at depth max (or none), or not known.
 */
enum why_sibs {
	WHY_SIBS_DEEPEST, WHY_SIBS_PARTLY, WHY_SIBS_FREE, WHY_SIBS_UNKNOWN, WHY_SIBS_NR,
};

enum why_basis {
	WHY_BASIS_MEANS,	/* rotational: window means */
	WHY_BASIS_MISSED,	/* non-rotational: windows missed at the target */
	WHY_BASIS_NONE,		/* too few windows to say */
};

struct why_suggestion {
	const struct why_cg *c;
	bool rotational;
	__u64 target_us;
	/* by what its siblings were when the window closed */
	struct why_win_class by[WHY_SIBS_NR];
	enum why_basis basis;
	/*
	 * The target the windows with a sibling throttled the most could
	 * meet (0: they cannot say); keep_target, on WHY_BASIS_MISSED: the
	 * present one is within reach (false: not even there).
	 */
	__u64 suggested_us;
	bool keep_target;
};

struct why_suggestions {
	struct why_suggestion *v;
	size_t n, cap;
};

/* Windows of one kind before saying anything of them. */
#define WHY_SUGGEST_MIN_WINDOWS	10

/* Of a finished model (why_analyse() finishes it): 0 or -ENOMEM. */
int why_suggest(struct why_model *m, struct why_suggestions *out);
void why_suggestions_free(struct why_suggestions *s);

#endif /* __IOLAT_WHY_SUGGEST_H */
