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

struct iolat_fallback_bpf *iolat_fallback_start(const char *tool, struct iolat_fns *fns,
						__u32 dev, bool records, bool all)
{
	struct iolat_fallback_bpf *obj;
	bool add = !fns->why[IOLAT_FN_ADD_DELAY][0];
	bool thr = !fns->why[IOLAT_FN_THROTTLE][0];
	int err;

	memset(fns->attached, 0, sizeof(fns->attached));
	if (!add && !thr)
		return NULL;
	obj = iolat_fallback_bpf__open();
	if (!obj) {
		all_failed(tool, fns, "cannot open", errno);
		return NULL;
	}
	obj->rodata->targ_dev = dev;
	obj->rodata->targ_records = records;
	obj->rodata->targ_all = all;
	/* No records for iolat-top: a page of ring buffer, not 256 KiB. */
	if (!records)
		bpf_map__set_max_entries(obj->maps.events, getpagesize());
	bpf_program__set_autoload(obj->progs.on_add_delay, add);
	bpf_program__set_autoload(obj->progs.on_throttle_enter, thr);
	bpf_program__set_autoload(obj->progs.on_throttle_exit, thr);
	err = iolat_fallback_bpf__load(obj);
	if (err) {
		all_failed(tool, fns, "cannot load", -err);
		iolat_fallback_bpf__destroy(obj);
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

__u64 iolat_fallback_lost(const struct iolat_fallback_bpf *obj)
{
	return obj->bss->lost;
}
