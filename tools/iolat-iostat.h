/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iolat-top's io.stat counters of every cgroup in one pass: the cgroup
 * iterator of bpf/iolat-iostat.bpf.c, loaded and attached to the cgroup2
 * mount, run once a refresh.  A walk is three system calls whatever the
 * number of cgroups (bpf_iter_create(), one read() of its end record,
 * close()); the records come through an array mapped once at the start.
 * What the walk gives is a struct iolat_iostat_set (iolat-cgroup.h),
 * which the model reads as it would the files.
 */
#ifndef __IOLAT_IOSTAT_H
#define __IOLAT_IOSTAT_H

#include <stddef.h>
#include <linux/types.h>
#include "iolat-cgroup.h"

struct iolat_iostat_iter;

/*
 * Load and attach the iterator on the cgroup2 mount (iolat_cgroup_root()),
 * pre-order, keeping only @dev's blkgs (0: every device).  NULL when it
 * cannot, and why in @why (no cgroup iterator or kfunc in the kernel's
 * BTF, the load or attach refused: EPERM, EINVAL on an older verifier);
 * libbpf's own messages only with -v.
 */
struct iolat_iostat_iter *iolat_iostat_iter_start(__u32 dev, char *why, size_t len);
/*
 * This refresh's counters into @set, which keeps the last refresh's: a
 * walk, or, while io_mark marks the cgroups whose counters moved (the
 * bpf object says how), the files of those and their ancestors in @cgs
 * (the tree the model reads @set with), with a whole walk every few
 * refreshes, when the marks overflowed, when a marked cgroup is not in
 * @cgs yet, or when reading them costs more than a walk.  0, or -errno
 * when @set cannot be used this time (-EOVERFLOW: blkgs with IO left
 * out; -EPROTO: a short or foreign end record; or what
 * bpf_iter_create() or read() said); the next call walks.
 */
int iolat_iostat_iter_run(struct iolat_iostat_iter *it, const struct iolat_cgroups *cgs,
			  struct iolat_iostat_set *set);
/* NULL while io_mark marks, else why not (each refresh then walks). */
const char *iolat_iostat_iter_marking(const struct iolat_iostat_iter *it);
void iolat_iostat_iter_stop(struct iolat_iostat_iter *it);

#endif /* __IOLAT_IOSTAT_H */
