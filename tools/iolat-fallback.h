/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of both front-ends' fallback on a kernel without the
 * iolatency events: bpf/iolat-fallback.bpf.c on blkcg_add_delay() and
 * blkcg_maybe_throttle_current(), each attached only where the running
 * kernel lets it be traced (iolat_fns_probe()).
 */
#ifndef __IOLAT_FALLBACK_H
#define __IOLAT_FALLBACK_H

#include <stdbool.h>
#include <linux/types.h>
#include "iolat-common.h"

struct iolat_fallback_bpf;

/*
 * Open, load and attach the programs of the functions @fns lets through
 * (why[] ""), saying on stderr what fails; @fns->attached[] and why[]
 * then say what became of each.  @dev filters (0: every device);
 * @records sends iolat-snoop's records, charges only with @all.  The
 * delays map holds @entries pairs (0: IOLAT_MAX_GROUPS).  NULL when
 * nothing could be attached.
 */
struct iolat_fallback_bpf *iolat_fallback_start(const char *tool, struct iolat_fns *fns,
						__u32 dev, bool records, bool all, __u32 entries);
void iolat_fallback_stop(struct iolat_fallback_bpf *obj);
/* Its map of struct iolat_delay by struct iolat_key, its ring buffer. */
int iolat_fallback_delays_fd(const struct iolat_fallback_bpf *obj);
int iolat_fallback_events_fd(const struct iolat_fallback_bpf *obj);
/* Records and map updates it could not make, since the start (a full map's aside). */
const struct iolat_lost *iolat_fallback_lost(const struct iolat_fallback_bpf *obj);
/* Events the full delays map dropped since the start; the entries it holds. */
__u64 iolat_fallback_delays_full(const struct iolat_fallback_bpf *obj);
__u32 iolat_fallback_delays_entries(const struct iolat_fallback_bpf *obj);

#endif /* __IOLAT_FALLBACK_H */
