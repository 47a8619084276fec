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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "iolat.h"
#include "iolat-cgroup.h"
#include "iolat-common.h"
#include "iolat-map.h"

static char cg_root[PATH_MAX];

void iolat_cgroup_root_set(const char *path)
{
	snprintf(cg_root, sizeof(cg_root), "%s", path);
}

const char *iolat_cgroup2_mount(void)
{
	static char dir[PATH_MAX];
	struct mntent *m;
	FILE *f;

	if (dir[0])
		return dir;
	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return NULL;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			snprintf(dir, sizeof(dir), "%s", m->mnt_dir);
			break;
		}
	endmntent(f);
	return dir[0] ? dir : NULL;
}

const char *iolat_cgroup_root(void)
{
	if (!cg_root[0])
		snprintf(cg_root, sizeof(cg_root), "%s",
			 iolat_cgroup2_mount() ?: "/sys/fs/cgroup");
	return cg_root;
}

struct bpf_link *iolat_cgroup_iter_attach(struct bpf_program *prog, char *why, size_t len)
{
	union bpf_iter_link_info linfo = {};
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));
	struct bpf_link *link;
	int cgfd, fd, err;

	cgfd = open(iolat_cgroup_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* A cgroup_fd of 0 means none to the kernel: the whole hierarchy. */
	if (cgfd == 0) {
		fd = fcntl(cgfd, F_DUPFD_CLOEXEC, 3);
		close(cgfd);
		cgfd = fd;
	}
	if (cgfd < 0) {
		snprintf(why, len, "cannot open %s: %s", iolat_cgroup_root(), strerror(errno));
		return NULL;
	}
	linfo.cgroup.cgroup_fd = cgfd;
	linfo.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	link = bpf_program__attach_iter(prog, &opts);
	err = link ? 0 : -errno;
	close(cgfd);	/* the link holds the cgroup */
	if (err)
		snprintf(why, len, "cannot attach it to %s: %s", iolat_cgroup_root(),
			 strerror(-err));
	return link;
}

/* include/linux/proc_ns.h: the initial cgroup namespace's inode */
#define PROC_CGROUP_INIT_INO 0xEFFFFFFBU

int iolat_cgroupns(void)
{
	struct stat st;

	if (stat("/proc/self/ns/cgroup", &st))
		return -1;
	return st.st_ino != PROC_CGROUP_INIT_INO;
}

/* A path of the tree a file can be opened by: not cut (path_join()). */
static bool openable(const char *path)
{
	return path[0] == '/';
}

/*
 * @parent's path and @name into @buf (PATH_MAX): 0, or 1 when the path is
 * PATH_MAX bytes or more and @buf holds ".../" and as much of its end as
 * fits, from a '/' on.  Not a path a directory can be opened by (the
 * tree's start with '/'), and no file is: the model's buffers, the
 * outputs' and open()'s are PATH_MAX, and a chain of names cut nowhere
 * would cost the square of its depth.
 */
static int path_join(char *buf, const char *parent, const char *name)
{
	char whole[PATH_MAX + NAME_MAX + 2];
	size_t len, cut;

	if (!strcmp(parent, "/"))
		parent = "";
	len = snprintf(whole, sizeof(whole), "%s/%s", parent, name);
	if (len < PATH_MAX) {
		memcpy(buf, whole, len + 1);
		return !openable(buf);	/* below a cut one */
	}
	for (cut = 1; whole[cut] != '/' || 3 + len - cut >= PATH_MAX; cut++)
		;
	snprintf(buf, PATH_MAX, "...%s", whole + cut);
	return 1;
}

/* Is ROOT@path a directory with id @id? */
static bool dir_has_id(const char *path, __u64 id)
{
	char fn[PATH_MAX + 64];
	struct stat st;

	if (!openable(path))
		return false;
	snprintf(fn, sizeof(fn), "%s%s", iolat_cgroup_root(), strcmp(path, "/") ? path : "");
	return !stat(fn, &st) && S_ISDIR(st.st_mode) && st.st_ino == id;
}

#ifndef FILEID_KERNFS
#define FILEID_KERNFS 0xfe	/* include/linux/exportfs.h: a kernfs node's u64 id */
#endif

/*
 * open_by_handle_at() on the mount, and what /proc/self/fd says of it.
 * An answer that holds for every id (ENOSYS: no CONFIG_FHANDLE; EPERM:
 * no CAP_DAC_READ_SEARCH; EOPNOTSUPP, EINVAL: no kernfs handles) is kept
 * and given again without asking.
 */
static int handle_path(__u64 id, char *abs, size_t size)
{
	static int mount_fd = -1, unable;
	static char mount_root[PATH_MAX];
	struct {
		struct file_handle fh;
		__u64 id;
	} h;
	char link[64];
	ssize_t len;
	int fd, err;

	if (mount_fd < 0 || strcmp(mount_root, iolat_cgroup_root())) {
		if (mount_fd >= 0)
			close(mount_fd);
		snprintf(mount_root, sizeof(mount_root), "%s", iolat_cgroup_root());
		mount_fd = open(mount_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (mount_fd < 0)
			return -errno;
	}
	if (unable)
		return unable;
	h.fh.handle_bytes = sizeof(h.id);
	h.fh.handle_type = FILEID_KERNFS;
	h.id = id;
	fd = open_by_handle_at(mount_fd, &h.fh, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOSYS || errno == EPERM || errno == EOPNOTSUPP || errno == EINVAL)
			unable = -errno;
		return errno == ESTALE ? -ENOENT : -errno;	/* ESTALE: no such id */
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, abs, size - 1);
	err = len < 0 ? -errno : (size_t)len >= size - 1 ? -ENAMETOOLONG : 0;
	close(fd);
	if (!err)
		abs[len] = '\0';
	return err;
}

static int (*id_resolver)(__u64 id, char *abs, size_t size) = handle_path;

void iolat_cgroup_id_resolver_set(int (*fn)(__u64 id, char *abs, size_t size))
{
	id_resolver = fn ?: handle_path;
}

/*
 * @abs, a path as this process sees it, to one in the tree: the mount's
 * path taken off ("/sys/fs/cgroup/a/b" to "/a/b").  A directory outside
 * the mount (above a cgroup namespace's root) is named "/" by the kernel
 * (d_path() of a dentry that escaped its mount): -EXDEV.
 */
static int view_path(const char *abs, char *buf, size_t size)
{
	const char *root = iolat_cgroup_root();
	size_t n = strlen(root);

	while (n && root[n - 1] == '/')
		n--;		/* "/": n 0 */
	if (strncmp(abs, root, n) || (abs[n] && abs[n] != '/'))
		return -EXDEV;
	if (snprintf(buf, size, "%s", abs[n] ? abs + n : "/") >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

int iolat_cgroup_id_path(__u64 id, char *buf, size_t size)
{
	char abs[PATH_MAX];
	int err = id_resolver(id, abs, sizeof(abs));

	if (!err)
		err = view_path(abs, buf, size);
	if (err)
		return err;
	/* Removed since (d_path adds " (deleted)"), or another id there. */
	return dir_has_id(buf, id) ? 0 : -ENOENT;
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
	cgs->v[cgs->n].gone = false;
	cgs->v[cgs->n].path = strdup(path);
	if (!cgs->v[cgs->n].path)
		return -ENOMEM;
	cgs->n++;
	return 0;
}

/*
 * The walk, depth first, without recursion: the cgroup.max.depth of a
 * hierarchy is "max" unless set.  A directory is read whole when it is
 * opened, its subdirectories' ids and names kept in @names (a stack: a
 * directory's come after its ancestors' and go when it is done), and
 * closed once its last subdirectory is opened.  What stays open, one
 * descriptor a directory with subdirectories still to walk, is at most
 * @max_open: past it the shallowest is closed and opened again, when its
 * turn comes, by the names from the deepest one still open (by names:
 * the path may be past PATH_MAX).
 */
struct walk_frame {
	long self;		/* index in cgs->v */
	int fd;			/* -1: closed (or not needed any more) */
	size_t name;		/* its name in names (its parent's list) */
	size_t start, next, end;	/* its subdirectories, still to walk from next */
};

struct walk {
	struct iolat_cgroups *cgs;
	struct walk_frame *st;
	size_t depth, cap;
	char *names;		/* entries: the id (8 bytes), the name and '\0' */
	size_t len, names_cap;
	char *buf;		/* getdents64's */
	int open, max_open;
};

#define WALK_BUF 32768

struct walk_dirent {		/* the kernel's struct linux_dirent64 */
	__u64 d_ino;
	__s64 d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void walk_unread(struct walk *w, int err)
{
	if (!w->cgs->unread++)
		w->cgs->unread_err = err;
}

static void walk_close(struct walk *w, struct walk_frame *f)
{
	if (f->fd >= 0) {
		close(f->fd);
		f->fd = -1;
		w->open--;
	}
}

/*
 * Make room for a descriptor: close the shallowest open one but the top's
 * and @busy (the one a path is opened from); false: none.
 */
static bool walk_evict(struct walk *w, int busy)
{
	size_t i;

	for (i = 0; i + 1 < w->depth; i++)
		if (w->st[i].fd >= 0 && w->st[i].fd != busy) {
			walk_close(w, &w->st[i]);
			return true;
		}
	return false;
}

/*
 * openat() of a directory, past the limit after closing the shallowest
 * open one, and again after that when out of descriptors all the same.
 */
static int walk_openat(struct walk *w, int dfd, const char *name)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, fd;

	if (w->open >= w->max_open)
		walk_evict(w, dfd);
	fd = openat(dfd, name, flags);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && walk_evict(w, dfd))
		fd = openat(dfd, name, flags);
	return fd;
}

static const char *walk_name(const struct walk *w, size_t at)
{
	return w->names + at + sizeof(__u64);
}

/*
 * The top frame's directory, closed to keep few open, opened again: by
 * the names from the deepest ancestor still open (or the root's path),
 * each checked by its id (renamed, or another in its place, meanwhile).
 * An ancestor on the way is kept when it has more to walk and there is
 * room.  0; -ENOENT when it is not there any more; -errno.
 */
static int walk_reopen(struct walk *w)
{
	size_t top = w->depth - 1, k = top;
	int fd;

	while (k > 0 && w->st[k - 1].fd < 0)
		k--;
	fd = k ? w->st[k - 1].fd : -1;
	for (; k <= top; k++) {
		struct walk_frame *f = &w->st[k];
		struct stat st;
		int dfd = fd;

		if (k)
			fd = walk_openat(w, dfd, walk_name(w, f->name));
		else
			fd = open(iolat_cgroup_root(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (k && dfd != w->st[k - 1].fd)
			close(dfd);	/* an ancestor on the way, not kept */
		if (fd < 0)
			return errno == ENOTDIR ? -ENOENT : -errno;
		if (fstat(fd, &st) || st.st_ino != w->cgs->v[f->self].id) {
			close(fd);
			return -ENOENT;
		}
		if (k == top || (f->next < f->end && w->open < w->max_open)) {
			f->fd = fd;
			w->open++;
		}
	}
	return 0;
}

static int walk_names_put(struct walk *w, __u64 ino, const char *name)
{
	size_t need = sizeof(ino) + strlen(name) + 1;

	if (w->len + need > w->names_cap) {
		size_t cap = w->names_cap ? w->names_cap * 2 : 65536;
		char *v;

		while (cap < w->len + need)
			cap *= 2;
		v = realloc(w->names, cap);
		if (!v)
			return -ENOMEM;
		w->names = v;
		w->names_cap = cap;
	}
	memcpy(w->names + w->len, &ino, sizeof(ino));
	memcpy(w->names + w->len + sizeof(ino), name, need - sizeof(ino));
	w->len += need;
	return 0;
}

/*
 * Push cgroup @self, whose directory is open at @fd: its subdirectories
 * read into names.  readdir's d_ino is the kernfs id, the cgroup id the
 * events carry, so nothing is stat()ed: a cgroup directory holds dozens
 * of files, and a walk that looked at each cost more than everything else
 * iolat-top does in an interval.  One without subdirectories is closed
 * and not pushed.
 */
static int walk_push(struct walk *w, long self, int fd, size_t name)
{
	struct walk_frame *f;
	size_t start = w->len;
	long n;
	int err = 0;

	while (!err && (n = syscall(SYS_getdents64, fd, w->buf, WALK_BUF)) > 0) {
		long off;

		for (off = 0; !err && off < n; ) {
			struct walk_dirent *de = (struct walk_dirent *)(w->buf + off);

			off += de->d_reclen;
			if (de->d_type == DT_DIR && de->d_name[0] != '.')
				err = walk_names_put(w, de->d_ino, de->d_name);
		}
	}
	if (!err && n < 0 && errno != ENOENT)
		walk_unread(w, errno);	/* what it gave before is walked */
	if (err || w->len == start) {
		close(fd);
		return err;
	}
	if (w->depth == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct walk_frame *v = realloc(w->st, cap * sizeof(*v));

		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		w->st = v;
		w->cap = cap;
	}
	f = &w->st[w->depth++];
	f->self = self;
	f->fd = fd;
	f->name = name;
	f->start = f->next = start;
	f->end = w->len;
	w->open++;
	return 0;
}

static int cgroups_walk(struct iolat_cgroups *cgs, int root_fd)
{
	struct walk w = { .cgs = cgs };
	struct rlimit rl;
	char path[PATH_MAX];
	int err;

	/* A few: the rows' io.pressure files stay open, and the BPF side's. */
	w.max_open = 64;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur / 8 < (rlim_t)w.max_open)
		w.max_open = rl.rlim_cur / 8 > 4 ? rl.rlim_cur / 8 : 4;
	w.buf = malloc(WALK_BUF);
	if (!w.buf) {
		close(root_fd);
		return -ENOMEM;
	}
	err = walk_push(&w, 0, root_fd, 0);
	while (!err && w.depth) {
		struct walk_frame *f = &w.st[w.depth - 1];
		size_t at = f->next;
		long self = f->self;
		__u64 ino;
		int fd;

		if (f->next == f->end) {
			walk_close(&w, f);
			w.len = f->start;	/* its names go with it */
			w.depth--;
			continue;
		}
		memcpy(&ino, w.names + at, sizeof(ino));
		f->next += sizeof(ino) + strlen(walk_name(&w, at)) + 1;
		cgs->cut += path_join(path, cgs->v[self].path, walk_name(&w, at));
		err = cgroups_add(cgs, ino, path, self);
		if (err)
			break;
		fd = f->fd >= 0 ? 0 : walk_reopen(&w);
		if (fd == -ENOENT) {
			f->next = f->end;	/* gone, and what it held */
			continue;
		}
		if (fd < 0) {
			walk_unread(&w, -fd);
			continue;
		}
		fd = walk_openat(&w, f->fd, walk_name(&w, at));
		/* Its last subdirectory opened: its descriptor is done with. */
		if (f->next == f->end)
			walk_close(&w, f);
		/* Cgroups come and go while we walk: a vanished one is no error. */
		if (fd < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				walk_unread(&w, errno);
			continue;
		}
		err = walk_push(&w, cgs->n - 1, fd, at);
	}
	while (w.depth)
		walk_close(&w, &w.st[--w.depth]);
	free(w.st);
	free(w.names);
	free(w.buf);
	return err;
}

static const struct iolat_cgroups *sorting;
static void pending_drop(struct iolat_cgroups *cgs, size_t i);

static int cmp_id(const void *a, const void *b)
{
	__u64 x = sorting->v[*(const size_t *)a].id;
	__u64 y = sorting->v[*(const size_t *)b].id;

	return x < y ? -1 : x > y;
}

/* The paths' generations, of every tree: none is ever given twice. */
static unsigned long paths_gen;

/* The tree only: the pending and unknown ids outlive a walk. */
static void tree_free(struct iolat_cgroups *cgs)
{
	size_t i;

	for (i = 0; i < cgs->n; i++)
		free(cgs->v[i].path);
	free(cgs->v);
	free(cgs->by_id);
	cgs->v = NULL;
	cgs->by_id = NULL;
	cgs->n = cgs->cap = cgs->nlive = 0;
	cgs->unread = cgs->cut = 0;
	cgs->unread_err = 0;
	cgs->paths_gen = ++paths_gen;
}

void iolat_cgroups_free(struct iolat_cgroups *cgs)
{
	size_t i;

	tree_free(cgs);
	for (i = 0; i < cgs->npending; i++)
		free(cgs->pending[i].name);
	free(cgs->pending);
	free(cgs->removed);
	free(cgs->unknown);
	memset(cgs, 0, sizeof(*cgs));
	cgs->paths_gen = ++paths_gen;
}

/* What a walk could not do, said once: the counts stay in @cgs for the rest. */
static void walk_tell(const struct iolat_cgroups *cgs)
{
	static bool told_unread, told_cut;

	if (cgs->unread && !told_unread) {
		fprintf(stderr, "%s: %zu cgroup%s could not be read (%s%s): the cgroups "
			"below %s are missing\n", program_invocation_short_name,
			cgs->unread, cgs->unread == 1 ? "" : "s", strerror(cgs->unread_err),
			cgs->unread == 1 ? "" : ", the first", cgs->unread == 1 ? "it" : "them");
		told_unread = true;
	}
	if (cgs->cut && !told_cut) {
		fprintf(stderr, "%s: %zu cgroup%s a path of PATH_MAX (%d) bytes or more: "
			"named \".../\" and %s end, %s files not read\n",
			program_invocation_short_name, cgs->cut, cgs->cut == 1 ? " has" : "s have",
			PATH_MAX, cgs->cut == 1 ? "its" : "their", cgs->cut == 1 ? "its" : "their");
		told_cut = true;
	}
}

int iolat_cgroups_scan(struct iolat_cgroups *cgs)
{
	const char *root = iolat_cgroup_root();
	struct stat st;
	size_t i;
	int dfd, err;

	tree_free(cgs);
	dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st)) {
		err = -errno;
		if (dfd >= 0)
			close(dfd);
		return err;
	}
	err = cgroups_add(cgs, st.st_ino, "/", -1);
	if (!err)
		err = cgroups_walk(cgs, dfd);
	else
		close(dfd);
	if (!err) {
		cgs->by_id = malloc(cgs->n * sizeof(*cgs->by_id));
		if (!cgs->by_id)
			err = -ENOMEM;
	}
	if (err) {
		tree_free(cgs);
		return err;
	}
	walk_tell(cgs);
	for (i = 0; i < cgs->n; i++)
		cgs->by_id[i] = i;
	sorting = cgs;
	qsort(cgs->by_id, cgs->n, sizeof(*cgs->by_id), cmp_id);
	cgs->nlive = cgs->n;
	cgs->stale = false;
	/* Pending cgroups the walk found are pending no more. */
	for (i = 0; i < cgs->npending; )
		if (iolat_cgroups_find(cgs, cgs->pending[i].id) >= 0)
			pending_drop(cgs, i);
		else
			i++;
	return 0;
}

/* Where @id is in by_id, or where it would go: *@found says which. */
static size_t by_id_pos(const struct iolat_cgroups *cgs, __u64 id, bool *found)
{
	size_t lo = 0, hi = cgs->nlive;

	*found = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		__u64 got = cgs->v[cgs->by_id[mid]].id;

		if (got == id) {
			*found = true;
			return mid;
		}
		if (got < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long iolat_cgroups_find(const struct iolat_cgroups *cgs, __u64 id)
{
	bool found;
	size_t pos = by_id_pos(cgs, id, &found);

	return found ? (long)cgs->by_id[pos] : -1;
}

static void pending_drop(struct iolat_cgroups *cgs, size_t i)
{
	free(cgs->pending[i].name);
	cgs->pending[i] = cgs->pending[--cgs->npending];
}

static long pending_find(const struct iolat_cgroups *cgs, __u64 id)
{
	size_t i;

	for (i = 0; i < cgs->npending; i++)
		if (cgs->pending[i].id == id)
			return i;
	return -1;
}

/* Append @id to the set @v (removed or unknown ids) with tick @since. */
static int seen_add(struct iolat_cgroup_seen **v, size_t *n, size_t *cap,
		    __u64 id, unsigned long since)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct iolat_cgroup_seen *nv = realloc(*v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = ncap;
	}
	(*v)[(*n)++] = (struct iolat_cgroup_seen){ id, since };
	return 0;
}

static struct iolat_cgroup_seen *seen_find(struct iolat_cgroup_seen *v, size_t n,
					   __u64 id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].id == id)
			return &v[i];
	return NULL;
}

/* Insert cgroup @id at @path below index @parent; @pos: its place in by_id. */
static int insert(struct iolat_cgroups *cgs, size_t pos, __u64 id, const char *path,
		  long parent)
{
	size_t *nb = realloc(cgs->by_id, (cgs->n + 1) * sizeof(*nb));	/* nlive <= n */
	int err;

	if (!nb)
		return -ENOMEM;
	cgs->by_id = nb;
	err = cgroups_add(cgs, id, path, parent);
	if (err)
		return err;
	memmove(&cgs->by_id[pos + 1], &cgs->by_id[pos],
		(cgs->nlive - pos) * sizeof(*cgs->by_id));
	cgs->by_id[pos] = cgs->n - 1;
	cgs->nlive++;
	return 1;
}

/*
 * A new cgroup whose parent the tree does not know: placed by its id
 * alone.  Outside our view, or gone: IOLAT_CGROUP_ELSEWHERE.  When the
 * kernel cannot tell (no CAP_DAC_READ_SEARCH, no file handles): taken to
 * be outside too, since every cgroup in our view was walked or had an
 * event, and said once.  In our view after all, below a parent the tree
 * does not know yet (its event not read yet: it came while we read the
 * map): 0, pending, and a walk if that parent never comes.
 */
static int try_add_by_id(struct iolat_cgroups *cgs, size_t pos, __u64 id)
{
	static bool told;
	char path[PATH_MAX], *slash;
	struct stat st;
	char fn[PATH_MAX + 64];
	long parent = 0;
	int err = iolat_cgroup_id_path(id, path, sizeof(path));

	if (err == -EXDEV || err == -ENOENT)
		return IOLAT_CGROUP_ELSEWHERE;
	if (err) {
		if (!told)
			fprintf(stderr, "%s: cannot open cgroups by id (%s): a new cgroup "
				"whose parent is not known is taken to be outside this "
				"cgroup namespace\n", program_invocation_short_name,
				strerror(-err));
		told = true;
		return IOLAT_CGROUP_ELSEWHERE;
	}
	if (!strcmp(path, "/"))
		return IOLAT_CGROUP_ELSEWHERE;	/* the root: never new */
	slash = strrchr(path, '/');
	if (slash != path) {
		snprintf(fn, sizeof(fn), "%s%.*s", iolat_cgroup_root(), (int)(slash - path), path);
		parent = stat(fn, &st) ? -1 : iolat_cgroups_find(cgs, st.st_ino);
	}
	if (parent < 0)
		return 0;
	return insert(cgs, pos, id, path, parent);
}

/*
 * Add cgroup @id, named @name below @parent_id: 1 added (or known
 * already), 0 not (yet), IOLAT_CGROUP_ELSEWHERE, -errno.
 */
static int try_add(struct iolat_cgroups *cgs, __u64 id, __u64 parent_id,
		   const char *name)
{
	char path[PATH_MAX];
	long parent = -1;
	size_t pos;
	bool found;
	int cut, ret;

	pos = by_id_pos(cgs, id, &found);
	if (found)
		return 1;
	if (!cgs->n)
		return 0;
	/* A name that cannot be one (an empty record): by the id alone. */
	if (name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, ".."))
		parent = iolat_cgroups_find(cgs, parent_id);
	if (parent >= 0) {
		/* Past PATH_MAX no stat() can tell: the record says it is there. */
		cut = path_join(path, cgs->v[parent].path, name);
		if (!cut && !dir_has_id(path, id))
			return 0;	/* not visible yet, or gone again */
		ret = insert(cgs, pos, id, path, parent);
		if (ret > 0)
			cgs->cut += cut;
		return ret;
	}
	if (name[0] && pending_find(cgs, parent_id) >= 0)
		return 0;	/* its parent is pending too */
	return try_add_by_id(cgs, pos, id);
}

int iolat_cgroups_mkdir(struct iolat_cgroups *cgs, __u64 id, __u64 parent_id,
			const char *name)
{
	struct iolat_cgroup_pending *p;
	int ret = try_add(cgs, id, parent_id, name);

	if (ret || pending_find(cgs, id) >= 0)
		return ret;
	if (cgs->npending == cgs->cappending) {
		size_t cap = cgs->cappending ? cgs->cappending * 2 : 16;

		p = realloc(cgs->pending, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		cgs->pending = p;
		cgs->cappending = cap;
	}
	p = &cgs->pending[cgs->npending];
	p->name = strdup(name);
	if (!p->name)
		return -ENOMEM;
	p->id = id;
	p->parent_id = parent_id;
	p->since = cgs->tick;
	cgs->npending++;
	return 0;
}

int iolat_cgroups_rmdir(struct iolat_cgroups *cgs, __u64 id)
{
	bool found;
	size_t pos = by_id_pos(cgs, id, &found);
	long i = pending_find(cgs, id);

	if (i >= 0)
		pending_drop(cgs, i);
	if (found) {
		cgs->v[cgs->by_id[pos]].gone = true;
		memmove(&cgs->by_id[pos], &cgs->by_id[pos + 1],
			(cgs->nlive - pos - 1) * sizeof(*cgs->by_id));
		cgs->nlive--;
	}
	return seen_add(&cgs->removed, &cgs->nremoved, &cgs->capremoved, id,
			cgs->tick);
}

int iolat_cgroups_tick(struct iolat_cgroups *cgs)
{
	size_t i, j;
	int added = 0, ret;

	cgs->tick++;
	cgs->nremoved = 0;
	/* Unknown ids not asked about since their grace ended: forget them. */
	for (i = j = 0; i < cgs->nunknown; i++)
		if (cgs->tick - cgs->unknown[i].since <= IOLAT_CGROUP_UNKNOWN_TICKS + 1)
			cgs->unknown[j++] = cgs->unknown[i];
	cgs->nunknown = j;
	for (i = 0; i < cgs->npending; ) {
		struct iolat_cgroup_pending *p = &cgs->pending[i];

		ret = try_add(cgs, p->id, p->parent_id, p->name);
		if (ret < 0)
			return ret;
		if (ret) {
			added += ret == 1;
			pending_drop(cgs, i);
			i = 0;		/* a child may wait for this one */
			continue;
		}
		if (cgs->tick - p->since >= IOLAT_CGROUP_PENDING_TICKS) {
			/* Never seen where its event said: the tree may be wrong. */
			cgs->stale = true;
			pending_drop(cgs, i);
			continue;
		}
		i++;
	}
	return added;
}

bool iolat_cgroups_keep(struct iolat_cgroups *cgs, __u64 id)
{
	struct iolat_cgroup_seen *u;

	if (seen_find(cgs->removed, cgs->nremoved, id))
		return false;
	if (pending_find(cgs, id) >= 0)
		return true;
	u = seen_find(cgs->unknown, cgs->nunknown, id);
	if (!u) {
		/* Out of memory: kept, asked again next time. */
		seen_add(&cgs->unknown, &cgs->nunknown, &cgs->capunknown, id, cgs->tick);
		return true;
	}
	return cgs->tick - u->since < IOLAT_CGROUP_UNKNOWN_TICKS;
}

size_t iolat_cgroups_gone(const struct iolat_cgroups *cgs)
{
	return cgs->n - cgs->nlive;
}

const char *iolat_cgroups_path(const struct iolat_cgroups *cgs, __u64 id)
{
	long i = iolat_cgroups_find(cgs, id);

	return i >= 0 ? cgs->v[i].path : NULL;
}

static struct iolat_name *name_slot(struct iolat_names *nm, __u64 id)
{
	size_t i = iolat_hash_slot(id, nm->cap);

	while (nm->v[i].id && nm->v[i].id != id)
		i = (i + 1) & (nm->cap - 1);
	return &nm->v[i];
}

/* Keep @path for @id: its slot, or NULL (out of memory, or full). */
static struct iolat_name *name_put(struct iolat_names *nm, __u64 id, const char *path)
{
	struct iolat_name *n;

	if (nm->n * 2 >= nm->cap) {
		size_t cap = nm->cap ? nm->cap * 2 : 1024, i;
		struct iolat_name *old = nm->v, *v;

		if (nm->n >= IOLAT_NAMES_MAX || !(v = calloc(cap, sizeof(*v))))
			return NULL;
		nm->v = v;
		nm->cap = cap;
		for (i = 0; old && i < cap / 2; i++)
			if (old[i].id)
				*name_slot(nm, old[i].id) = old[i];
		free(old);
	}
	n = name_slot(nm, id);
	if (n->id)
		return n;
	n->path = strdup(path);
	if (!n->path)
		return NULL;
	n->id = id;
	nm->n++;
	return n;
}

struct change {
	__u64 id;
	struct iolat_cgroup_change c;
};

/* Parents before children: a cgroup is one level below its parent. */
static int cmp_change(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	return (x->c.level > y->c.level) - (x->c.level < y->c.level);
}

/*
 * The cgroups created and removed since the last look, taken out of the
 * BPF map, each read and deleted in one step so that an event between
 * the two stays; *@n of them in *@out (the caller frees it).
 */
static int drain_changes(struct iolat_map *m, struct change **out, size_t *n)
{
	struct change *v;
	size_t i;
	int err;

	*n = 0;
	*out = NULL;
	err = iolat_map_read(m, true);
	if (err)
		return err;
	v = malloc((m->n ?: 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < m->n; i++) {
		memcpy(&v[i].id, (char *)m->keys + i * sizeof(__u64), sizeof(__u64));
		memcpy(&v[i].c, (char *)m->vals + i * sizeof(v[i].c), sizeof(v[i].c));
		v[i].c.name[sizeof(v[i].c.name) - 1] = '\0';
	}
	*n = m->n;
	qsort(v, *n, sizeof(*v), cmp_change);
	*out = v;
	return 0;
}

int iolat_cgroups_follow(struct iolat_cgroups *cgs, struct iolat_map *changes,
			 __u64 lost, __u64 *lost_seen, bool tick)
{
	struct change *ch = NULL;
	size_t n = 0, i;
	int err = 0, walked = 0;

	if (tick)
		err = iolat_cgroups_tick(cgs);
	if (err >= 0)
		err = drain_changes(changes, &ch, &n);
	if (err < 0)
		goto out;
	err = 0;
	if (!cgs->n || cgs->stale || lost != *lost_seen ||
	    iolat_cgroups_gone(cgs) > cgs->n / 4 + 64) {
		err = iolat_cgroups_scan(cgs);
		if (err) {
			fprintf(stderr, "%s: cannot read the cgroup tree at %s: %s\n",
				program_invocation_short_name, iolat_cgroup_root(),
				strerror(-err));
			goto out;
		}
		*lost_seen = lost;
		walked = 1;
	}
	/* After a walk too: a removal the walk raced with still counts. */
	for (i = 0; !err && i < n; i++) {
		int ret = ch[i].c.removed ? iolat_cgroups_rmdir(cgs, ch[i].id) :
			iolat_cgroups_mkdir(cgs, ch[i].id, ch[i].c.parent_id, ch[i].c.name);

		err = ret < 0 ? ret : 0;
	}
out:
	free(ch);
	return err < 0 ? err : walked;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int iolat_names_update(struct iolat_names *nm, bool force)
{
	double now = mono_now();
	bool tick = !nm->tree_at || now - nm->tree_at >= 1;
	int err;

	if (!nm->changes) {
		/* No records to follow: walk for an unknown id, at most once a second. */
		if (!force || !tick)
			return 0;
		nm->tree_at = now;
		return iolat_cgroups_scan(&nm->tree);
	}
	if (!tick && !force)
		return 0;
	if (tick)
		nm->tree_at = now;
	err = iolat_cgroups_follow(&nm->tree, nm->changes, nm->lost ? *nm->lost : 0,
				   &nm->lost_seen, tick);
	return err < 0 ? err : 0;
}

/* A cgroup of the tree removed since its walk: its path, kept till the next. */
static const char *gone_path(const struct iolat_cgroups *cgs, __u64 id)
{
	size_t i;

	for (i = 0; i < cgs->n; i++)
		if (cgs->v[i].gone && cgs->v[i].id == id)
			return cgs->v[i].path;
	return NULL;
}

const char *iolat_names_path(struct iolat_names *nm, __u64 id)
{
	struct iolat_name *n;
	const char *path;

	if (!id)
		return NULL;
	if (nm->cap && (n = name_slot(nm, id))->id)
		return *n->path ? n->path : NULL;
	path = iolat_cgroups_path(&nm->tree, id) ?: gone_path(&nm->tree, id);
	if (!path) {
		/* New since we last looked: the records say where, or a walk. */
		if (iolat_names_update(nm, true) < 0)
			return NULL;
		path = iolat_cgroups_path(&nm->tree, id) ?: gone_path(&nm->tree, id);
	}
	if (!path && (!nm->changes || pending_find(&nm->tree, id) >= 0))
		return NULL;	/* may come yet: not kept */
	/* Placed, or known not to be ours: outside our namespace, or gone unseen. */
	n = name_put(nm, id, path ?: "");
	if (n)
		return *n->path ? n->path : NULL;
	return path;
}

void iolat_names_free(struct iolat_names *nm)
{
	size_t i;

	for (i = 0; i < nm->cap; i++)
		free(nm->v[i].path);
	free(nm->v);
	iolat_cgroups_free(&nm->tree);
	memset(nm, 0, sizeof(*nm));
}

int iolat_iostat_read(const char *path, char *buf, size_t size)
{
	char fn[PATH_MAX + 64];
	ssize_t len;
	int fd, err;

	if (!openable(path))
		return -ENAMETOOLONG;
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
			else if (!strcmp(key, "dbytes"))
				io->dbytes = v;
			else if (!strcmp(key, "rios"))
				io->rios = v, io->ios += v;
			else if (!strcmp(key, "wios"))
				io->wios = v, io->ios += v;
			else if (!strcmp(key, "dios"))
				io->dios = v, io->ios += v;
			else if (!strcmp(key, "use_delay"))
				io->use_delay = v;
			else if (!strcmp(key, "delay_nsec"))
				io->delay_nsec = v;
			else if (!strcmp(key, "depth"))
				io->depth = v, io->has_depth = true;
			else if (!strcmp(key, "avg_lat"))
				io->avg_lat_us = v, io->has_lat = true;
			else if (!strcmp(key, "win"))
				io->win_ms = v;
			else if (!strcmp(key, "missed"))
				io->missed = v, io->has_missed = true;
			else if (!strcmp(key, "total"))
				io->total = v;
		}
	}
}

void iolat_iostat_merge_debug(struct iolat_iostat *to, const struct iolat_iostat *from)
{
	to->depth = from->depth;
	to->has_depth = from->has_depth;
	to->use_delay = from->use_delay;
	to->delay_nsec = from->delay_nsec;
	to->avg_lat_us = from->avg_lat_us;
	to->win_ms = from->win_ms;
	to->has_lat = from->has_lat;
	to->missed = from->missed;
	to->total = from->total;
	to->has_missed = from->has_missed;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct iolat_iostat_rec *x = a, *y = b;

	if (x->cgroup_id != y->cgroup_id)
		return x->cgroup_id < y->cgroup_id ? -1 : 1;
	return (x->dev > y->dev) - (x->dev < y->dev);
}

int iolat_iostat_set_fill(struct iolat_iostat_set *s, const void *end, size_t len,
			  const struct iolat_iostat_rec *recs, size_t cap)
{
	struct iolat_iostat_end e;

	s->n = 0;
	s->top_level = -1;
	s->visited = 0;
	s->filled = s->walked = false;
	if (len != sizeof(e))
		return -EPROTO;
	memcpy(&e, end, sizeof(e));
	if (e.magic != IOLAT_IOSTAT_MAGIC || e.nrecs > cap)
		return -EPROTO;
	if (e.bad_layout)
		return -ERANGE;
	if (e.dropped)
		return -EOVERFLOW;
	if (e.nrecs > s->cap) {
		size_t ncap = s->cap ? s->cap : 256;
		struct iolat_iostat_rec *v;

		while (ncap < e.nrecs)
			ncap *= 2;
		v = realloc(s->v, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = ncap;
	}
	/* Ours, sorted: the array is the next walk's. */
	memcpy(s->v, recs, e.nrecs * sizeof(*recs));
	s->n = e.nrecs;
	qsort(s->v, s->n, sizeof(*s->v), cmp_rec);
	s->top_level = e.top_level;
	s->visited = e.visited;
	s->filled = s->walked = true;
	return 0;
}

int iolat_iostat_recs_parse(char *text, __u64 id, __u32 dev,
			    struct iolat_iostat_rec *out, size_t cap)
{
	__u32 devs[IOLAT_IOSTAT_BLKGS] = {};
	struct iolat_iostat io[IOLAT_IOSTAT_BLKGS] = {};
	unsigned int ma, mi;
	size_t ndev = 0, k, n = 0;
	char *line;

	/* Its devices first: the lines with counters, rbytes= and on. */
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *eol = strchrnul(line, '\n');
		const char *c = strstr(line, " rbytes=");

		if (!c || c > eol || sscanf(line, "%u:%u", &ma, &mi) != 2)
			continue;
		if (dev && IOLAT_MKDEV(ma, mi) != dev)
			continue;
		if (ndev == IOLAT_IOSTAT_BLKGS)
			return -EOVERFLOW;
		devs[ndev++] = IOLAT_MKDEV(ma, mi);
	}
	if (ndev > cap)
		return -EOVERFLOW;
	iolat_iostat_parse(text, devs, ndev, io);
	for (k = 0; k < ndev; k++) {
		if (!io[k].has_io)
			continue;
		out[n++] = (struct iolat_iostat_rec){
			.cgroup_id = id, .dev = devs[k],
			.bytes = { io[k].rbytes, io[k].wbytes, io[k].dbytes },
			.ios = { io[k].rios, io[k].wios, io[k].dios },
		};
	}
	qsort(out, n, sizeof(*out), cmp_rec);
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	const __u64 *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

int iolat_iostat_set_update(struct iolat_iostat_set *s, const __u64 *ids, size_t nids,
			    const struct iolat_iostat_rec *recs, size_t nrecs)
{
	size_t cap = s->n + nrecs, r = 0, i = 0, k = 0, n = 0;
	struct iolat_iostat_rec *v;

	if (!s->filled)
		return -EINVAL;		/* nothing to update: walk */
	v = malloc((cap ?: 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* Three sorted lists: the kept records, the ids re-read, theirs. */
	while (r < s->n || k < nrecs) {
		const struct iolat_iostat_rec *old = r < s->n ? &s->v[r] : NULL;

		if (old) {
			while (i < nids && ids[i] < old->cgroup_id)
				i++;
			if (i < nids && ids[i] == old->cgroup_id) {
				r++;	/* re-read: its records are @recs' */
				continue;
			}
		}
		if (k < nrecs && (!old || cmp_rec(&recs[k], old) < 0))
			v[n++] = recs[k++];
		else
			v[n++] = s->v[r++];
	}
	free(s->v);
	s->v = v;
	s->n = n;
	s->cap = cap ?: 1;
	s->walked = false;
	return 0;
}

void iolat_iostat_ids_sort(__u64 *ids, size_t *n)
{
	size_t i, k = 0;

	qsort(ids, *n, sizeof(*ids), cmp_u64);
	for (i = 0; i < *n; i++)
		if (!k || ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	*n = k;
}

bool iolat_iostat_set_has(const struct iolat_iostat_set *s, bool root)
{
	return root ? s->top_level > 0 : s->top_level >= 0;
}

void iolat_iostat_set_get(const struct iolat_iostat_set *s, __u64 id, const __u32 *devs,
			  size_t ndev, struct iolat_iostat *out)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {	/* the first record of @id */
		size_t mid = (lo + hi) / 2;

		if (s->v[mid].cgroup_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->n && s->v[lo].cgroup_id == id)
		iolat_iostat_set_get_at(s, lo, devs, ndev, out);
}

void iolat_iostat_set_index(const struct iolat_iostat_set *s,
			    const struct iolat_cgroups *cgs, __u32 *at)
{
	size_t r = 0, b = 0, lo, hi, step, mid;
	__u64 id;

	memset(at, 0, cgs->n * sizeof(*at));
	while (r < s->n && b < cgs->nlive) {
		id = s->v[r].cgroup_id;
		/*
		 * The first of the tree's ids from @b on that is not below
		 * @id: a few cgroups of many have records, so steps that
		 * double, then a bisection of the last.
		 */
		for (lo = hi = b, step = 1; hi < cgs->nlive && cgs->v[cgs->by_id[hi]].id < id;
		     step *= 2) {
			lo = hi + 1;
			hi += step;
		}
		if (hi > cgs->nlive)
			hi = cgs->nlive;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (cgs->v[cgs->by_id[mid]].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		b = lo;
		if (b < cgs->nlive && cgs->v[cgs->by_id[b]].id == id)
			at[cgs->by_id[b++]] = r + 1;
		while (r < s->n && s->v[r].cgroup_id == id)
			r++;
	}
}

void iolat_iostat_set_get_at(const struct iolat_iostat_set *s, size_t at, const __u32 *devs,
			     size_t ndev, struct iolat_iostat *out)
{
	__u64 id = s->v[at].cgroup_id;
	size_t lo, k;

	for (lo = at; lo < s->n && s->v[lo].cgroup_id == id; lo++) {
		const struct iolat_iostat_rec *r = &s->v[lo];
		struct iolat_iostat *io;

		for (k = 0; k < ndev && devs[k] != r->dev; k++)
			;
		if (k == ndev)
			continue;	/* a device no row is about */
		io = &out[k];
		io->rbytes = r->bytes[IOLAT_IOSTAT_READ];
		io->wbytes = r->bytes[IOLAT_IOSTAT_WRITE];
		io->dbytes = r->bytes[IOLAT_IOSTAT_DISCARD];
		io->rios = r->ios[IOLAT_IOSTAT_READ];
		io->wios = r->ios[IOLAT_IOSTAT_WRITE];
		io->dios = r->ios[IOLAT_IOSTAT_DISCARD];
		io->ios = io->rios + io->wios + io->dios;
		/* io.stat's rule for printing rbytes= (blkcg_print_one_stat()) */
		io->has_io = io->rbytes || io->wbytes || io->rios || io->wios;
	}
}

void iolat_iostat_set_free(struct iolat_iostat_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static const char *debug_stats_path = IOLAT_DEBUG_STATS_PARAM;

void iolat_debug_stats_path_set(const char *path)
{
	debug_stats_path = path ?: IOLAT_DEBUG_STATS_PARAM;
}

int iolat_debug_stats(void)
{
	char c = 0;
	FILE *f = fopen(debug_stats_path, "r");

	if (!f)
		return -1;
	if (fscanf(f, " %c", &c) != 1)
		c = 0;
	fclose(f);
	/* A bool parameter reads Y or N (1 or 0 on old kernels). */
	return c == 'Y' || c == '1' ? 1 : c == 'N' || c == '0' ? 0 : -1;
}

/*
 * @line's "@prefix V" (@prefix "some avg10="), V into *@v, as
 * sscanf(@line, @fmt) reads it (@fmt: "@prefix%lf"): true when it did.
 * What the kernel writes, "%lu.%02lu", without sscanf() and strtod()
 * (thousands of instructions a row shown): the digits as an integer over
 * a power of ten, exact, and one division, which rounds as strtod() does
 * (to the double nearest the decimal); anything else to sscanf().
 */
static bool pressure_avg10(const char *line, const char *prefix, const char *fmt,
			   double *v)
{
	size_t len = strlen(prefix);
	const char *p = line + len;
	__u64 n = 0, div = 1;
	int digits = 0;

	if (!strncmp(line, prefix, len)) {
		for (; *p >= '0' && *p <= '9' && digits < 15; p++, digits++)
			n = n * 10 + (*p - '0');
		if (digits && *p == '.')
			for (p++; *p >= '0' && *p <= '9' && digits < 15; p++, digits++) {
				n = n * 10 + (*p - '0');
				div *= 10;
			}
		if (div > 1 && (*p == ' ' || !*p)) {
			*v = (double)n / div;
			return true;
		}
	}
	return sscanf(line, fmt, v) == 1;
}

/* io.pressure's text in @buf (changed): "some avg10=1.23 avg60=... total=N", "full ...". */
static int pressure_parse(char *buf, double *some, double *full)
{
	char *line, *save;
	int got = 0;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (pressure_avg10(line, "some avg10=", "some avg10=%lf", some))
			got |= 1;
		else if (pressure_avg10(line, "full avg10=", "full avg10=%lf", full))
			got |= 2;
	}
	return got == 3 ? 0 : -ENODATA;
}

/* ROOT@path/io.pressure opened, or -errno; the root's is none. */
static int pressure_open(const char *path)
{
	char fn[PATH_MAX + 64];
	int fd;

	if (!strcmp(path, "/"))
		return -ENOENT;	/* the root's is /proc/pressure/io: the system's */
	if (!openable(path))
		return -ENAMETOOLONG;
	snprintf(fn, sizeof(fn), "%s%s/io.pressure", iolat_cgroup_root(), path);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One read of the open @fd from offset 0, parsed. */
static int pressure_pread(int fd, double *some, double *full)
{
	char buf[512];
	ssize_t len = pread(fd, buf, sizeof(buf) - 1, 0);

	/* With psi=0 the file is there and reading it fails (EOPNOTSUPP). */
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	return pressure_parse(buf, some, full);
}

int iolat_pressure_read(const char *path, double *some, double *full)
{
	int fd = pressure_open(path), err;

	/* open, one read, close: no stdio buffer */
	if (fd < 0)
		return fd;
	err = pressure_pread(fd, some, full);
	close(fd);
	return err;
}

/* The slot of @id in @p (its own, or the free one where it would go). */
static struct iolat_psi_file *psi_slot(struct iolat_psi_files *p, __u64 id)
{
	size_t i = iolat_hash_slot(id, p->cap);

	while (p->v[i].id && p->v[i].id != id)
		i = (i + 1) & (p->cap - 1);
	return &p->v[i];
}

/* The table at @cap slots (a power of two), its entries placed again. */
static int psi_rehash(struct iolat_psi_files *p, size_t cap)
{
	struct iolat_psi_file *old = p->v, *v;
	size_t i, oldcap = p->cap;

	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->v = v;
	p->cap = cap;
	for (i = 0; i < oldcap; i++)
		if (old[i].id)
			*psi_slot(p, old[i].id) = old[i];
	free(old);
	return 0;
}

/*
 * How many to keep: half the descriptors RLIMIT_NOFILE allows (the rest
 * is for io.stat, sysfs, BPF), 64 short of it, at most 65536.
 */
static size_t psi_max(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	if (rl.rlim_cur < 256)
		return 0;
	return rl.rlim_cur / 2 - 64 < 65536 ? rl.rlim_cur / 2 - 64 : 65536;
}

/* Is slot @f's file to be read again now, or are its last figures as good? */
static bool psi_due(const struct iolat_psi_files *p, const struct iolat_psi_file *f)
{
	__u64 age = p->now_ns - f->read_ns;

	if (f->err)
		return true;
	if (age < IOLAT_PSI_REREAD_NS)
		return false;	/* the kernel's averages as they were */
	/* Quiet at 0: see IOLAT_PSI_QUIET_NS. */
	return f->busy == p->tick + 1 || f->some || f->full || age >= IOLAT_PSI_QUIET_NS;
}

int iolat_psi_read(struct iolat_psi_files *p, __u64 id, const char *path,
		   double *some, double *full)
{
	struct iolat_psi_file *f = NULL;
	int fd, err;

	if (!p->max_set) {
		p->max = psi_max();
		p->max_set = true;
	}
	if (p->cap)
		f = psi_slot(p, id);
	if (f && f->id) {
		if (f->used == p->tick)	/* read in this tick: its other rows */
			goto out;
		f->used = p->tick;
		if (!psi_due(p, f))
			goto out;
		if (f->fd >= 0) {
			f->read_ns = p->now_ns;
			f->err = pressure_pread(f->fd, &f->some, &f->full);
			if (f->err == -ENODEV) {	/* the cgroup is gone */
				close(f->fd);
				f->fd = -1;
				p->nfd--;
			}
			goto out;
		}
	}
	fd = pressure_open(path);
	if (fd < 0) {
		if (!f || !f->id)
			return fd;
		f->read_ns = p->now_ns;
		f->err = fd;
		goto out;
	}
	if (!f || !f->id) {
		if (2 * (p->n + 1) > p->cap && psi_rehash(p, p->cap ? 2 * p->cap : 64)) {
			err = pressure_pread(fd, some, full);	/* no memory for a slot */
			close(fd);
			return err;
		}
		f = psi_slot(p, id);
		f->id = id;
		f->fd = -1;
		f->used = p->tick;
		f->busy = 0;
		p->n++;
	}
	f->read_ns = p->now_ns;
	f->err = pressure_pread(fd, &f->some, &f->full);
	if (p->nfd < p->max && f->err != -ENODEV) {
		f->fd = fd;
		p->nfd++;
	} else {
		close(fd);
	}
out:
	*some = f->some;
	*full = f->full;
	return f->err;
}

void iolat_psi_busy(struct iolat_psi_files *p, __u64 id)
{
	struct iolat_psi_file *f;

	if (!p->cap)
		return;		/* none read yet: every one is due */
	f = psi_slot(p, id);
	if (f->id)
		f->busy = p->tick + 1;
}

void iolat_psi_tick(struct iolat_psi_files *p)
{
	size_t i, freed = 0;

	for (i = 0; i < p->cap; i++) {
		struct iolat_psi_file *f = &p->v[i];

		if (!f->id || f->used == p->tick)
			continue;
		if (f->fd >= 0) {
			close(f->fd);
			p->nfd--;
		}
		f->id = 0;
		freed++;
	}
	p->n -= freed;
	p->tick++;
	/* Slots freed in the middle of a run: place the rest again. */
	if (freed && p->cap)
		psi_rehash(p, p->cap);
}

size_t iolat_psi_open(const struct iolat_psi_files *p)
{
	return p->nfd;
}

void iolat_psi_free(struct iolat_psi_files *p)
{
	size_t i;

	for (i = 0; i < p->cap; i++)
		if (p->v[i].id && p->v[i].fd >= 0)
			close(p->v[i].fd);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int iolat_targets_read_one(const struct iolat_cgroups *cgs, size_t i,
			   struct iolat_targets *t)
{
	char fn[PATH_MAX + 64], line[256];
	unsigned int ma, mi;
	unsigned long long us;
	FILE *f;

	/* The root has no io.latency; a cut path, none we can open. */
	if (!i || cgs->v[i].gone || !openable(cgs->v[i].path))
		return 0;
	snprintf(fn, sizeof(fn), "%s%s/io.latency", iolat_cgroup_root(),
		 cgs->v[i].path);
	f = fopen(fn, "r");
	if (!f)
		return 0;
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
		t->v[t->n++] = (struct iolat_target){ IOLAT_MKDEV(ma, mi), i, us };
	}
	fclose(f);
	return 0;
}

int iolat_targets_read(const struct iolat_cgroups *cgs, struct iolat_targets *t)
{
	size_t i;
	int err = 0;

	t->n = 0;
	for (i = 1; !err && i < cgs->n; i++)
		err = iolat_targets_read_one(cgs, i, t);
	return err;
}

void iolat_targets_tell_bio_based(const char *tool, const struct iolat_targets *t)
{
	static __u32 told[64];
	static size_t ntold;
	const char *below;
	size_t i, k;

	for (i = 0; i < t->n; i++) {
		__u32 dev = t->v[i].dev;

		if (iolat_dev_bio_based(dev) != 1)
			continue;
		for (k = 0; k < ntold && told[k] != dev; k++)
			;
		if (k < ntold || ntold == sizeof(told) / sizeof(*told))
			continue;
		told[ntold++] = dev;
		below = iolat_dev_below(dev);
		fprintf(stderr, "%s: %s (%u:%u) is bio-based: io.latency takes a target "
			"there and never acts on it; set it on %s\n", tool,
			iolat_dev_name(dev), IOLAT_MAJOR(dev), IOLAT_MINOR(dev),
			*below ? below : "the disk below it");
	}
}

bool iolat_cgroups_have_latency(const struct iolat_cgroups *cgs)
{
	char fn[PATH_MAX + 64];
	size_t i;

	for (i = 1; i < cgs->n; i++) {	/* the root has none */
		if (!openable(cgs->v[i].path))
			continue;
		snprintf(fn, sizeof(fn), "%s%s/io.latency", iolat_cgroup_root(),
			 cgs->v[i].path);
		if (!access(fn, F_OK))
			return true;
	}
	return false;
}
