// SPDX-License-Identifier: GPL-2.0
/* The fallback's BPF side.  See iolat-fallback.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-fallback.h"
#include "iolat-fallback.skel.h"

/* Say it on stderr and in @fns for every function that was to be attached. */
static void all_failed(const char *tool, struct iolat_fns *fns, const char *what, int err)
{
	int i;

	fprintf(stderr, "%s: %s the BPF programs on the controller's functions: %s\n",
		tool, what, strerror(err));
	for (i = 0; i < IOLAT_FN_NR; i++)
		if (!fns->why[i][0])
			snprintf(fns->why[i], sizeof(fns->why[i]), "%s: %s", what,
				 strerror(err));
}

static bool attach(const char *tool, struct bpf_program *prog, struct bpf_link **link,
		   struct iolat_fns *fns, int fn)
{
	*link = bpf_program__attach(prog);
	if (*link)
		return true;
	snprintf(fns->why[fn], sizeof(fns->why[fn]), "failed to attach: %s",
		 strerror(errno));
	fprintf(stderr, "%s: cannot attach to %s: %s\n", tool, iolat_fn_names[fn],
		strerror(errno));
	return false;
}

/*
 * The object with the programs of blkcg_add_delay (@add) and of
 * blkcg_maybe_throttle_current (@thr), loaded; NULL and -errno in *@err
 * (*@unopened when it could not even be opened).
 */
static struct iolat_fallback_bpf *load(bool add, bool thr, __u32 dev, bool records,
				       bool all, __u32 entries, int *err, bool *unopened)
{
	struct iolat_fallback_bpf *obj = iolat_fallback_bpf__open();

	*unopened = !obj;
	if (!obj) {
		*err = errno ? -errno : -ENOMEM;
		return NULL;
	}
	obj->rodata->targ_dev = dev;
	obj->rodata->targ_records = records;
	obj->rodata->targ_all = all;
	/* No records for iolat-top: a page of ring buffer, not 256 KiB. */
	if (!records)
		bpf_map__set_max_entries(obj->maps.events, getpagesize());
	if (entries)
		bpf_map__set_max_entries(obj->maps.delays, entries);
	bpf_program__set_autoload(obj->progs.on_add_delay, add);
	bpf_program__set_autoload(obj->progs.on_throttle_enter, thr);
	bpf_program__set_autoload(obj->progs.on_throttle_exit, thr);
	*err = iolat_fallback_bpf__load(obj);
	if (*err) {
		iolat_fallback_bpf__destroy(obj);
		return NULL;
	}
	return obj;
}

struct iolat_fallback_bpf *iolat_fallback_start(const char *tool, struct iolat_fns *fns,
						__u32 dev, bool records, bool all, __u32 entries)
{
	struct iolat_fallback_bpf *obj;
	bool add = !fns->why[IOLAT_FN_ADD_DELAY][0];
	bool thr = !fns->why[IOLAT_FN_THROTTLE][0];
	int err, err2;
	bool unopened, unopened2;

	memset(fns->attached, 0, sizeof(fns->attached));
	if (!add && !thr)
		return NULL;
	if (fns->kallsyms_unread)
		fprintf(stderr, "%s: cannot read /proc/kallsyms: loading tells which of the "
			"controller's functions are not inlined\n", tool);
	obj = load(add, thr, dev, records, all, entries, &err, &unopened);
	/*
	 * One that cannot be loaded (inlined, with kallsyms unread) must not
	 * keep the other out: each alone.
	 */
	if (!obj && !unopened && add && thr) {
		obj = load(true, false, dev, records, all, entries, &err2, &unopened2);
		if (obj) {
			thr = false;
			snprintf(fns->why[IOLAT_FN_THROTTLE], sizeof(fns->why[0]),
				 "cannot load: %s", strerror(-err));
		} else {
			obj = load(false, true, dev, records, all, entries, &err2, &unopened2);
			if (obj) {
				add = false;
				snprintf(fns->why[IOLAT_FN_ADD_DELAY], sizeof(fns->why[0]),
					 "cannot load: %s", strerror(-err));
			}
		}
	}
	if (!obj) {
		all_failed(tool, fns, unopened ? "cannot open" : "cannot load", -err);
		return NULL;
	}
	if (add)
		fns->attached[IOLAT_FN_ADD_DELAY] =
			attach(tool, obj->progs.on_add_delay, &obj->links.on_add_delay,
			       fns, IOLAT_FN_ADD_DELAY);
	/* Entry and exit, or neither: an entry alone would only fill the map. */
	if (thr && attach(tool, obj->progs.on_throttle_enter, &obj->links.on_throttle_enter,
			  fns, IOLAT_FN_THROTTLE)) {
		fns->attached[IOLAT_FN_THROTTLE] =
			attach(tool, obj->progs.on_throttle_exit, &obj->links.on_throttle_exit,
			       fns, IOLAT_FN_THROTTLE);
		if (!fns->attached[IOLAT_FN_THROTTLE]) {
			bpf_link__destroy(obj->links.on_throttle_enter);
			obj->links.on_throttle_enter = NULL;
		}
	}
	if (!iolat_fns_attached(fns)) {
		iolat_fallback_bpf__destroy(obj);
		return NULL;
	}
	return obj;
}

void iolat_fallback_stop(struct iolat_fallback_bpf *obj)
{
	iolat_fallback_bpf__destroy(obj);
}

int iolat_fallback_delays_fd(const struct iolat_fallback_bpf *obj)
{
	return bpf_map__fd(obj->maps.delays);
}

int iolat_fallback_events_fd(const struct iolat_fallback_bpf *obj)
{
	return bpf_map__fd(obj->maps.events);
}

const struct iolat_lost *iolat_fallback_lost(const struct iolat_fallback_bpf *obj)
{
	return &obj->bss->lost;
}

__u64 iolat_fallback_delays_full(const struct iolat_fallback_bpf *obj)
{
	return obj->bss->delays_full;
}

__u32 iolat_fallback_delays_entries(const struct iolat_fallback_bpf *obj)
{
	return bpf_map__max_entries(obj->maps.delays);
}
