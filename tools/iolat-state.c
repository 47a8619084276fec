// SPDX-License-Identifier: GPL-2.0
/* io.latency's own state: the front-end side of bpf/iolat-state.bpf.c.  See iolat-state.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-cgroup.h"
#include "iolat-map.h"
#include "iolat-common.h"
#include "iolat-state.h"
#include "iolat-state.skel.h"

struct iolat_state_reader {
	struct iolat_state_bpf *obj;
	const struct iolat_state_rec *recs;	/* the array, mapped read-only */
	size_t recs_len;
	int link_fd;
};

/* libbpf's warnings while loading, kept out of stderr unless -v. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return iolat_verbose ? iolat_libbpf_print(level, fmt, args) : 0;
}

/* A symbol of vmlinux the walk needs, as kallsyms lists it. */
struct ksym {
	const char *name;
	const char *types;		/* the kallsyms types it may have */
	__u64 addr;
	int found;			/* lines naming it with one of those types */
	bool ambiguous;			/* two of them at different addresses */
};

/*
 * Look @n symbols of vmlinux (a module's line has its name after) up in
 * kallsyms: 0, or -errno when it cannot be read.  *@data: whether it
 * lists any data symbol at all, which it does only with
 * CONFIG_KALLSYMS_ALL.
 */
static int ksyms_find(struct ksym *syms, int n, bool *data)
{
	char line[512], name[256], mod[64], type;
	unsigned long long addr;
	int i, err;
	FILE *f;

	*data = false;
	f = fopen(iolat_kallsyms_path(), "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s %63s", &addr, &type, name, mod) != 3)
			continue;
		if (strchr("dDbB", type))
			*data = true;
		for (i = 0; i < n; i++) {
			if (strcmp(name, syms[i].name) || !strchr(syms[i].types, type))
				continue;
			if (syms[i].found && syms[i].addr != addr)
				syms[i].ambiguous = true;
			syms[i].addr = addr;
			syms[i].found++;
		}
	}
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	return err;
}

int iolat_state_check(const struct btf *btf, struct iolat_state_syms *syms,
		      char *why, size_t len)
{
	struct ksym ks[] = {
		{ .name = "blkcg_policy_iolatency", .types = "dD" },
		{ .name = "blkcg_policy", .types = "bBdD" },
	};
	const char *path = iolat_kallsyms_path();
	bool data;
	int i, err;

	why[0] = '\0';
	if (!btf) {
		snprintf(why, len, "the kernel has no BTF (/sys/kernel/btf/vmlinux): its "
			 "structs cannot be read without it (CONFIG_DEBUG_INFO_BTF)");
		return -ENOENT;
	}
	err = ksyms_find(ks, 2, &data);
	if (btf__find_by_name_kind(btf, "iolatency_grp", BTF_KIND_STRUCT) < 0) {
		if (!err && ks[0].found)
			snprintf(why, len, "no struct iolatency_grp in the kernel's BTF, though "
				 "io.latency is built (blkcg_policy_iolatency is in %s)", path);
		else
			snprintf(why, len, "io.latency is not built in this kernel "
				 "(CONFIG_BLK_CGROUP_IOLATENCY): no struct iolatency_grp in its BTF");
		return -ENOENT;
	}
	if (btf__find_by_name_kind(btf, "child_latency_info", BTF_KIND_STRUCT) < 0) {
		snprintf(why, len, "no struct child_latency_info in the kernel's BTF");
		return -ENOENT;
	}
	if (btf__find_by_name_kind(btf, "bpf_iter__cgroup", BTF_KIND_STRUCT) < 0) {
		snprintf(why, len, "no cgroup iterator in this kernel (bpf_iter__cgroup not "
			 "in its BTF)");
		return -ENOENT;
	}
	if (err) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	for (i = 0; i < 2; i++) {
		if (!ks[i].found) {
			if (data)
				snprintf(why, len, "%s is not in %s", ks[i].name, path);
			else
				snprintf(why, len, "%s is not in %s, which lists no data symbols "
					 "(CONFIG_KALLSYMS_ALL off)", ks[i].name, path);
			return -ENOENT;
		}
		if (ks[i].ambiguous) {
			snprintf(why, len, "%s is in %s more than once, at different addresses",
				 ks[i].name, path);
			return -ENOENT;
		}
		if (!ks[i].addr) {
			snprintf(why, len, "%s gives %s at address 0: it hides kernel addresses "
				 "(not root, or kernel.kptr_restrict is 2)", path, ks[i].name);
			return -EPERM;
		}
	}
	syms->policy = ks[0].addr;
	syms->policy_table = ks[1].addr;
	return 0;
}

void iolat_state_close(struct iolat_state_reader *r)
{
	if (!r)
		return;
	if (r->recs)
		munmap((void *)r->recs, r->recs_len);
	iolat_state_bpf__destroy(r->obj);
	free(r);
}

/* One walk, its end record in @end: 0, or -errno. */
static int state_walk(struct iolat_state_reader *r, struct iolat_state_end *end)
{
	ssize_t n;
	int fd, err;

	/* The walk's state, in the mapped .bss: this walk's from 0. */
	r->obj->bss->nrecs = 0;
	r->obj->bss->dropped = 0;
	r->obj->bss->visited = 0;
	r->obj->bss->started = 0;
	r->obj->bss->layout = 0;
	r->obj->bss->policy = IOLAT_POLICY_UNCHECKED;
	r->obj->bss->plid = -1;
	r->obj->bss->top_level = -1;
	fd = bpf_iter_create(r->link_fd);
	if (fd < 0)
		return -errno;
	/* One read() runs the whole walk and gives the end record (iolat-iostat.c). */
	n = read(fd, end, sizeof(*end));
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (n != sizeof(*end) || end->magic != IOLAT_STATE_MAGIC || end->nrecs > IOLAT_STATE_MAX)
		return -EPROTO;
	return 0;
}

/* Why a walk gave no records, from its end: 0 when it did. */
static int end_why(const struct iolat_state_end *e, const struct iolat_state_syms *syms,
		   char *why, size_t len)
{
	static const char *const layout[] = { "blkcg_policy", "blkcg_gq", "iolatency_grp" };
	int i;

	for (i = 0; i < 3; i++) {
		if (!(e->layout & (1U << i)))
			continue;
		snprintf(why, len, "this kernel's struct %s is not laid out as the reader "
			 "knows (a field it reads lies beyond what it copies, or has another "
			 "size)", layout[i]);
		return -ENODEV;
	}
	switch (e->policy) {
	case IOLAT_POLICY_OK:
		return 0;
	case IOLAT_POLICY_UNCHECKED:
		snprintf(why, len, "the walk saw no cgroup below %s", iolat_cgroup_root());
		break;
	case IOLAT_POLICY_UNREADABLE:
		snprintf(why, len, "cannot read blkcg_policy_iolatency.plid (at 0x%llx) or "
			 "blkcg_policy[plid] (from 0x%llx), where kallsyms puts them",
			 (unsigned long long)syms->policy,
			 (unsigned long long)syms->policy_table);
		break;
	case IOLAT_POLICY_BAD_PLID:
		snprintf(why, len, "blkcg_policy_iolatency.plid is %d, not a policy slot: "
			 "io.latency is not registered", e->plid);
		break;
	case IOLAT_POLICY_NOT_REGISTERED:
		snprintf(why, len, "blkcg_policy[%d] is not blkcg_policy_iolatency: io.latency "
			 "is not registered (its registration failed at boot)", e->plid);
		break;
	default:
		snprintf(why, len, "the walk's policy check said %u, which this front-end "
			 "does not know", e->policy);
		break;
	}
	return -ENODEV;
}

struct iolat_state_reader *iolat_state_open(__u32 dev, char *why, size_t len)
{
	struct iolat_state_reader *r;
	struct iolat_state_syms syms;
	struct iolat_state_end end;
	libbpf_print_fn_t old;
	struct btf *btf = NULL;
	int err;

	if (!access("/sys/kernel/btf/vmlinux", R_OK)) {
		btf = btf__load_vmlinux_btf();
		if (!btf) {
			snprintf(why, len, "cannot read the kernel BTF: %s", strerror(errno));
			return NULL;
		}
	}
	err = iolat_state_check(btf, &syms, why, len);
	btf__free(btf);
	if (err)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	old = libbpf_set_print(quiet_print);
	r->obj = iolat_state_bpf__open();
	if (!r->obj) {
		snprintf(why, len, "cannot open its BPF object: %s", strerror(errno));
		goto fail;
	}
	r->obj->rodata->targ_dev = dev;
	r->obj->rodata->policy_addr = syms.policy;
	r->obj->rodata->policy_table_addr = syms.policy_table;
	err = iolat_state_bpf__load(r->obj);
	if (err) {
		snprintf(why, len, "cannot load it: %s", strerror(-err));
		goto fail;
	}
	r->obj->links.state = iolat_cgroup_iter_attach(r->obj->progs.state, why, len);
	if (!r->obj->links.state)
		goto fail;
	r->link_fd = bpf_link__fd(r->obj->links.state);
	r->recs = iolat_map_mmap(r->obj->maps.records,
				 sizeof(struct iolat_state_rec) * IOLAT_STATE_MAX, &r->recs_len);
	if (!r->recs) {
		snprintf(why, len, "cannot map its records: %s", strerror(errno));
		goto fail;
	}
	libbpf_set_print(old);
	/*
	 * A first walk, for what only the running kernel's memory tells:
	 * that plid is io.latency's slot, and that the structs are readable.
	 */
	err = state_walk(r, &end);
	if (err) {
		snprintf(why, len, "its first walk failed: %s", strerror(-err));
		iolat_state_close(r);
		return NULL;
	}
	if (end_why(&end, &syms, why, len)) {
		iolat_state_close(r);
		return NULL;
	}
	return r;
fail:
	libbpf_set_print(old);
	iolat_state_close(r);
	return NULL;
}

struct iolat_state_reader *iolat_state_start(bool off, __u32 dev, struct iolat_state **buf,
					     char *why, size_t len)
{
	struct iolat_state_reader *r;

	*buf = NULL;
	if (off) {
		snprintf(why, len, "off (--no-state)");
		return NULL;
	}
	*buf = malloc(IOLAT_STATE_MAX * sizeof(**buf));
	if (!*buf) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	r = iolat_state_open(dev, why, len);
	if (!r) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

/*
 * The record among @recs (indexed by @slots, @nslots of them, by their
 * group's address) that is @p's children's scale_grp: a live group at
 * that address, on @p's device, whose parent @p is.  NULL when none.
 */
static const struct iolat_state_rec *culprit_of(const struct iolat_state_rec *recs,
						const __u32 *slots, size_t nslots,
						const struct iolat_state_rec *p)
{
	const struct iolat_state_rec *c;
	size_t slot;

	for (slot = iolat_hash_slot(p->scale_grp, nslots); slots[slot];
	     slot = (slot + 1) & (nslots - 1)) {
		c = &recs[slots[slot] - 1];
		if (c->grp == p->scale_grp && c->s.dev == p->s.dev &&
		    c->s.parent_id == p->s.cgroup_id && (c->s.flags & IOLAT_STATE_ONLINE))
			return c;
	}
	return NULL;
}

int iolat_state_resolve(const struct iolat_state_rec *recs, size_t n, size_t dropped,
			struct iolat_state *out, size_t cap)
{
	const struct iolat_state_rec *c;
	size_t nslots = 1, slot, i;
	__u32 *slots;		/* a record's index + 1, by its group's address; 0: free */

	while (nslots < 2 * n)
		nslots <<= 1;
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	/* Every record, also those past @cap: a culprit may be among them. */
	for (i = 0; i < n; i++) {
		for (slot = iolat_hash_slot(recs[i].grp, nslots); slots[slot];
		     slot = (slot + 1) & (nslots - 1))
			;
		slots[slot] = i + 1;
	}
	for (i = 0; i < n && i < cap; i++) {
		out[i] = recs[i].s;
		out[i].flags &= ~(IOLAT_STATE_CULPRIT_STALE | IOLAT_STATE_CULPRIT_UNKNOWN);
		out[i].children.culprit_id = 0;
		if (!(out[i].flags & IOLAT_STATE_CULPRIT))
			continue;
		c = culprit_of(recs, slots, nslots, &recs[i]);
		if (c)
			out[i].children.culprit_id = c->s.cgroup_id;
		else
			out[i].flags |= dropped ? IOLAT_STATE_CULPRIT_UNKNOWN :
						  IOLAT_STATE_CULPRIT_STALE;
	}
	free(slots);
	return 0;
}

int iolat_state_sample(struct iolat_state_reader *r, struct iolat_state *buf, size_t cap,
		       struct iolat_state_walk *walk)
{
	struct iolat_state_end end;
	int err;

	memset(walk, 0, sizeof(*walk));
	err = state_walk(r, &end);
	if (err)
		return err;
	if (end.layout || end.policy != IOLAT_POLICY_OK)
		return -ENODEV;
	err = iolat_state_resolve(r->recs, end.nrecs, end.dropped, buf, cap);
	if (err)
		return err;
	walk->count = end.nrecs < cap ? end.nrecs : cap;
	walk->dropped = end.dropped + (end.nrecs - walk->count);
	walk->now_ns = end.now_ns;
	walk->plid = end.plid;
	return 0;
}

int iolat_state_sample_paced(struct iolat_state_reader *r, struct iolat_state *buf,
			     size_t cap, struct iolat_state_walk *walk, int sample_ms,
			     double *next)
{
	double start = iolat_mono(), cpu = iolat_thread_cpu(), period;
	int err;

	err = iolat_state_sample(r, buf, cap, walk);
	period = (iolat_thread_cpu() - cpu) * IOLAT_STATE_DUTY;
	if (period < sample_ms / 1000.0)
		period = sample_ms / 1000.0;
	*next = start + period;
	return err;
}

int iolat_state_parse_ms(const char *tool, const char *arg)
{
	char *end;
	long ms;

	errno = 0;
	ms = strtol(arg, &end, 10);
	if (errno || end == arg || *end || ms < IOLAT_STATE_SAMPLE_MS_MIN ||
	    ms > IOLAT_STATE_SAMPLE_MS_MAX) {
		fprintf(stderr, "%s: invalid --sample-ms '%s': milliseconds, %d to %d\n", tool,
			arg, IOLAT_STATE_SAMPLE_MS_MIN, IOLAT_STATE_SAMPLE_MS_MAX);
		return -1;
	}
	return (int)ms;
}
