// SPDX-License-Identifier: GPL-2.0
/* The io.stat cgroup iterator's front-end side.  See iolat-iostat.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-common.h"
#include "iolat-iostat.h"
#include "iolat-iostat.skel.h"

struct iolat_iostat_iter {
	struct iolat_iostat_bpf *obj;
	const struct iolat_iostat_rec *recs;	/* the array, mapped read-only */
	size_t recs_len;
	int link_fd;
};

/* libbpf's warnings while loading, kept out of stderr unless -v. */
static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return iolat_verbose ? iolat_libbpf_print(level, fmt, args) : 0;
}

/*
 * What the kernel must have, by its BTF: the iterator's context (the
 * cgroup iterator, 6.1) and the kfunc; "" when both are there.
 */
static void check_btf(char *why, size_t len)
{
	struct btf *btf = btf__load_vmlinux_btf();

	why[0] = '\0';
	if (!btf) {
		snprintf(why, len, "no kernel BTF");
		return;
	}
	if (btf__find_by_name_kind(btf, "bpf_iter__cgroup", BTF_KIND_STRUCT) < 0)
		snprintf(why, len, "no cgroup iterator in this kernel (bpf_iter__cgroup "
			 "not in its BTF)");
	else if (btf__find_by_name_kind(btf, "cgroup_rstat_flush", BTF_KIND_FUNC) < 0)
		snprintf(why, len, "no cgroup_rstat_flush in this kernel's BTF (the kfunc "
			 "that flushes the counters)");
	btf__free(btf);
}

void iolat_iostat_iter_stop(struct iolat_iostat_iter *it)
{
	if (!it)
		return;
	if (it->recs)
		munmap((void *)it->recs, it->recs_len);
	iolat_iostat_bpf__destroy(it->obj);
	free(it);
}

struct iolat_iostat_iter *iolat_iostat_iter_start(__u32 dev, char *why, size_t len)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));
	libbpf_print_fn_t old;
	struct iolat_iostat_iter *it;
	int err, cgfd, fd;
	long page = sysconf(_SC_PAGESIZE);

	check_btf(why, len);
	if (why[0])
		return NULL;
	it = calloc(1, sizeof(*it));
	if (!it) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	old = libbpf_set_print(quiet_print);
	it->obj = iolat_iostat_bpf__open();
	if (!it->obj) {
		snprintf(why, len, "cannot open its BPF object: %s", strerror(errno));
		goto fail;
	}
	it->obj->rodata->targ_dev = dev;
	err = iolat_iostat_bpf__load(it->obj);
	if (err) {
		snprintf(why, len, "cannot load it: %s", strerror(-err));
		goto fail;
	}
	cgfd = open(iolat_cgroup_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A cgroup_fd of 0 means none to the kernel: the whole hierarchy. */
	if (cgfd == 0) {
		fd = fcntl(cgfd, F_DUPFD_CLOEXEC, 3);
		close(cgfd);
		cgfd = fd;
	}
	if (cgfd < 0) {
		snprintf(why, len, "cannot open %s: %s", iolat_cgroup_root(), strerror(errno));
		goto fail;
	}
	linfo.cgroup.cgroup_fd = cgfd;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	it->obj->links.iostat = bpf_program__attach_iter(it->obj->progs.iostat, &opts);
	err = it->obj->links.iostat ? 0 : -errno;
	close(cgfd);	/* the link holds the cgroup */
	if (err) {
		it->obj->links.iostat = NULL;
		snprintf(why, len, "cannot attach it to %s: %s", iolat_cgroup_root(),
			 strerror(-err));
		goto fail;
	}
	it->link_fd = bpf_link__fd(it->obj->links.iostat);
	it->recs_len = (sizeof(struct iolat_iostat_rec) * IOLAT_IOSTAT_MAX + page - 1) /
		page * page;
	it->recs = mmap(NULL, it->recs_len, PROT_READ, MAP_SHARED,
			bpf_map__fd(it->obj->maps.records), 0);
	if (it->recs == MAP_FAILED) {
		it->recs = NULL;
		snprintf(why, len, "cannot map its records: %s", strerror(errno));
		goto fail;
	}
	libbpf_set_print(old);
	return it;
fail:
	libbpf_set_print(old);
	iolat_iostat_iter_stop(it);
	return NULL;
}

int iolat_iostat_iter_run(struct iolat_iostat_iter *it, struct iolat_iostat_set *set)
{
	struct iolat_iostat_end end;
	ssize_t n;
	int fd, err;

	/* The walk's state, in the mapped .bss: this walk's from 0. */
	it->obj->bss->nrecs = 0;
	it->obj->bss->dropped = 0;
	it->obj->bss->visited = 0;
	it->obj->bss->flushed = 0;
	it->obj->bss->bad_layout = 0;
	it->obj->bss->top_level = -1;
	fd = bpf_iter_create(it->link_fd);
	if (fd < 0)
		return -errno;
	/*
	 * One read() runs the whole walk (nothing is written to the file
	 * before its end) and gives the end record; nothing follows it, so
	 * no second read() for the end of file.
	 */
	n = read(fd, &end, sizeof(end));
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	return iolat_iostat_set_fill(set, &end, n, it->recs, IOLAT_IOSTAT_MAX);
}
