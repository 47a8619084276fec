// SPDX-License-Identifier: GPL-2.0
/* The cgroup2 tree, io.stat and io.latency: see iolat-cgroup.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "iolat.h"
#include "iolat-cgroup.h"

static char cg_root[PATH_MAX];

void iolat_cgroup_root_set(const char *path)
{
	snprintf(cg_root, sizeof(cg_root), "%s", path);
}

const char *iolat_cgroup_root(void)
{
	struct mntent *m;
	FILE *f;

	if (cg_root[0])
		return cg_root;
	snprintf(cg_root, sizeof(cg_root), "/sys/fs/cgroup");
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return cg_root;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(cg_root, sizeof(cg_root), "%s", m->mnt_dir);
			break;
		}
	endmntent(f);
	return cg_root;
}

static int cgroups_add(struct iolat_cgroups *cgs, __u64 id, const char *path,
		       long parent)
{
	if (cgs->n == cgs->cap) {
		size_t cap = cgs->cap ? cgs->cap * 2 : 256;
		struct iolat_cgroup *v = realloc(cgs->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		cgs->v = v;
		cgs->cap = cap;
	}
	cgs->v[cgs->n].id = id;
	cgs->v[cgs->n].parent = parent;
	cgs->v[cgs->n].path = strdup(path);
	if (!cgs->v[cgs->n].path)
		return -ENOMEM;
	cgs->n++;
	return 0;
}

/*
 * The children of the cgroup at index @self, depth first.  readdir's d_ino
 * is the kernfs id, the cgroup id the events carry, so nothing is stat()ed:
 * a cgroup directory holds dozens of files, and a walk that looked at each
 * cost more than everything else iolat-top does in an interval.
 */
static int cgroups_walk(struct iolat_cgroups *cgs, int dfd, long self)
{
	struct dirent *de;
	DIR *dir = fdopendir(dfd);
	int err = 0;

	if (!dir) {
		close(dfd);
		return errno == ENOENT ? 0 : -errno;
	}
	while (!err && (de = readdir(dir))) {
		char path[PATH_MAX];
		int cfd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s",
			 self ? cgs->v[self].path : "", de->d_name);
		err = cgroups_add(cgs, de->d_ino, path, self);
		if (err)
			break;
		/* Cgroups come and go while we walk: a vanished one is no error. */
		cfd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd >= 0)
			err = cgroups_walk(cgs, cfd, cgs->n - 1);
	}
	closedir(dir);
	return err;
}

static const struct iolat_cgroups *sorting;

static int cmp_id(const void *a, const void *b)
{
	__u64 x = sorting->v[*(const size_t *)a].id;
	__u64 y = sorting->v[*(const size_t *)b].id;

	return x < y ? -1 : x > y;
}

void iolat_cgroups_free(struct iolat_cgroups *cgs)
{
	size_t i;

	for (i = 0; i < cgs->n; i++)
		free(cgs->v[i].path);
	free(cgs->v);
	free(cgs->by_id);
	memset(cgs, 0, sizeof(*cgs));
}

int iolat_cgroups_scan(struct iolat_cgroups *cgs)
{
	const char *root = iolat_cgroup_root();
	struct stat st;
	size_t i;
	int dfd, err;

	iolat_cgroups_free(cgs);
	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st)) {
		err = -errno;
		if (dfd >= 0)
			close(dfd);
		return err;
	}
	err = cgroups_add(cgs, st.st_ino, "/", -1);
	if (!err)
		err = cgroups_walk(cgs, dfd, 0);
	else
		close(dfd);
	if (!err) {
		cgs->by_id = malloc(cgs->n * sizeof(*cgs->by_id));
		if (!cgs->by_id)
			err = -ENOMEM;
	}
	if (err) {
		iolat_cgroups_free(cgs);
		return err;
	}
	for (i = 0; i < cgs->n; i++)
		cgs->by_id[i] = i;
	sorting = cgs;
	qsort(cgs->by_id, cgs->n, sizeof(*cgs->by_id), cmp_id);
	return 0;
}

long iolat_cgroups_find(const struct iolat_cgroups *cgs, __u64 id)
{
	size_t lo = 0, hi = cgs->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		__u64 got = cgs->v[cgs->by_id[mid]].id;

		if (got == id)
			return cgs->by_id[mid];
		if (got < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const char *iolat_cgroups_path(const struct iolat_cgroups *cgs, __u64 id)
{
	long i = iolat_cgroups_find(cgs, id);

	return i >= 0 ? cgs->v[i].path : NULL;
}

int iolat_iostat_read(const char *path, char *buf, size_t size)
{
	char fn[PATH_MAX + 64];
	ssize_t len;
	int fd, err;

	snprintf(fn, sizeof(fn), "%s%s/io.stat", iolat_cgroup_root(),
		 strcmp(path, "/") ? path : "");
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;	/* gone meanwhile, or out of descriptors */
	/* One read: a seq_file shows what fits, and io.stat fits. */
	len = read(fd, buf, size - 1);
	err = len < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	buf[len] = '\0';
	return len;
}

void iolat_iostat_parse(char *text, const __u32 *devs, size_t ndev,
			struct iolat_iostat *out)
{
	char *line, *lsave, *tok, *save;
	unsigned int ma, mi;
	struct iolat_iostat *io;
	size_t k;

	for (line = strtok_r(text, "\n", &lsave); line;
	     line = strtok_r(NULL, "\n", &lsave)) {
		if (sscanf(line, "%u:%u", &ma, &mi) != 2)
			continue;
		for (k = 0; k < ndev && devs[k] != IOLAT_MKDEV(ma, mi); k++)
			;
		if (k == ndev)
			continue;
		io = &out[k];
		strtok_r(line, " ", &save);
		while ((tok = strtok_r(NULL, " ", &save))) {
			unsigned long long v;
			char key[32];

			if (!strcmp(tok, "depth=max")) {
				io->depth = IOLAT_DEPTH_MAX;
				io->has_depth = true;
				continue;
			}
			if (sscanf(tok, "%31[^=]=%llu", key, &v) != 2)
				continue;
			if (!strcmp(key, "rbytes"))
				io->rbytes = v, io->has_io = true;
			else if (!strcmp(key, "wbytes"))
				io->wbytes = v;
			else if (!strcmp(key, "rios") || !strcmp(key, "wios") ||
				 !strcmp(key, "dios"))
				io->ios += v;
			else if (!strcmp(key, "use_delay"))
				io->use_delay = v;
			else if (!strcmp(key, "depth"))
				io->depth = v, io->has_depth = true;
		}
	}
}

int iolat_targets_read(const struct iolat_cgroups *cgs, struct iolat_targets *t)
{
	char fn[PATH_MAX + 64], line[256];
	unsigned int ma, mi;
	unsigned long long us;
	size_t i;

	t->n = 0;
	for (i = 1; i < cgs->n; i++) {	/* the root has no io.latency */
		FILE *f;

		snprintf(fn, sizeof(fn), "%s%s/io.latency", iolat_cgroup_root(),
			 cgs->v[i].path);
		f = fopen(fn, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%u:%u target=%llu", &ma, &mi, &us) != 3)
				continue;
			if (t->n == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 64;
				struct iolat_target *v = realloc(t->v, cap * sizeof(*v));

				if (!v) {
					fclose(f);
					return -ENOMEM;
				}
				t->v = v;
				t->cap = cap;
			}
			t->v[t->n++] = (struct iolat_target){
				IOLAT_MKDEV(ma, mi), i, us };
		}
		fclose(f);
	}
	return 0;
}
