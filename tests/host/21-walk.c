// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the cgroup tree's walk (iolat_cgroups_scan()) on trees a
 * real hierarchy allows but a small one never shows: a chain deeper than
 * PATH_MAX (cgroup.max.depth is "max" by default) with a leaf beside
 * each level, a wide tree, all under an RLIMIT_NOFILE of 64; then
 * directories that cannot be opened (EACCES, EMFILE injected through
 * --wrap=openat: root reads everything), which must be counted, not
 * dropped unsaid.  Each walk runs in a child, so that a crash is a
 * failed check.  argv[1]: an empty directory for the fake tree;
 * argv[2], optional: a number of directories for a flat tree whose walk
 * is only timed and counted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "iolat-cgroup.h"

#define DEEP 2200		/* levels: past PATH_MAX with "/d" a level */
#define WIDE 60			/* wide/wNN, ... */
#define WIDE_KIDS 29		/* ... each with this many children */
#define NOFILE 64

/*
 * openat() as the walk calls it, counted; one name can be made to fail
 * with fail_errno, fail_times times (-1: always).
 */
static unsigned long n_openat, n_close;
static int fds_live, fds_peak;	/* the walk's: opened by openat, not closed */
static const char *fail_name;
static int fail_errno, fail_times;

int __real_openat(int dfd, const char *path, int flags, ...);
int __real_close(int fd);

int __wrap_openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	n_openat++;
	if (fail_name && fail_times && !strcmp(path, fail_name)) {
		if (fail_times > 0)
			fail_times--;
		errno = fail_errno;
		return -1;
	}
	dfd = __real_openat(dfd, path, flags, mode);
	if (dfd >= 0 && ++fds_live > fds_peak)
		fds_peak = fds_live;
	return dfd;
}

int __wrap_close(int fd)
{
	n_close++;
	fds_live--;
	return __real_close(fd);
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

/* mkdirat @name in @dfd, its inode back. */
static __u64 mk(int dfd, const char *name)
{
	struct stat st;

	if (mkdirat(dfd, name, 0755) || fstatat(dfd, name, &st, 0))
		die(name);
	return st.st_ino;
}

static int open_dir(int dfd, const char *name)
{
	int fd = __real_openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		die(name);
	return fd;
}

/* The tree's ids, and what the walk must make of them. */
static __u64 deep_id[DEEP], side_id[DEEP], wide_id[WIDE], kid_id[WIDE][WIDE_KIDS];
static size_t ndirs;		/* below the root */

/*
 * ROOT/deep/d/d/.../d, DEEP levels, and a leaf sN beside each "d":
 * where it comes after "d", the walk comes back up through the level
 * for it, after the levels below have used the descriptors.
 * ROOT/wide/wNN/cNN.
 */
static void build(const char *root)
{
	int rfd = open_dir(AT_FDCWD, root), fd, nfd, i, j;
	char name[16];

	mk(rfd, "deep");
	fd = open_dir(rfd, "deep");
	for (i = 0; i < DEEP; i++) {
		/* A name a level: before "d" in some, after it in others (hashed). */
		snprintf(name, sizeof(name), "s%d", i);
		side_id[i] = mk(fd, name);
		deep_id[i] = mk(fd, "d");
		nfd = open_dir(fd, "d");
		close(fd);
		fd = nfd;
	}
	close(fd);
	mk(rfd, "wide");
	fd = open_dir(rfd, "wide");
	for (i = 0; i < WIDE; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		wide_id[i] = mk(fd, name);
		nfd = open_dir(fd, name);
		for (j = 0; j < WIDE_KIDS; j++) {
			snprintf(name, sizeof(name), "c%d", j);
			kid_id[i][j] = mk(nfd, name);
		}
		close(nfd);
	}
	close(fd);
	close(rfd);
	ndirs = 2 + 2 * DEEP + WIDE + WIDE * WIDE_KIDS;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n - 3;	/* ".", "..", the DIR's own */
}

/* The index of cgroup @id in the tree, or -1: not found. */
static long at(const struct iolat_cgroups *cgs, __u64 id)
{
	return iolat_cgroups_find(cgs, id);
}

/* What a walk gave, as the checks need it. */
struct result {
	int err;
	size_t n, unread, cut;
	int unread_err;
	bool ids_ok, parents_ok, cut_ok, fds_ok, order_ok;
	unsigned long opens;
	int peak;
	int mkdir_ret;		/* a cgroup_mkdir below the deepest level */
	bool mkdir_ok;
	char said[512];
};

/*
 * Walk in a child under RLIMIT_NOFILE @nofile; its result through a
 * pipe.  *@sig: the signal that killed it, or 0.
 */
static struct result walk(int nofile, int *sig)
{
	struct result r;
	int p[2], status;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	if (pipe(p))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		struct rlimit rl = { nofile, nofile };
		struct iolat_cgroups cgs = { 0 };
		char errfile[] = "/tmp/iolat-walk-err.XXXXXX";
		int before, efd = mkstemp(errfile), i, j;
		size_t k;
		long c;

		close(p[0]);
		if (efd < 0 || dup2(efd, 2) < 0)
			die("stderr");
		unlink(errfile);
		/* Above the hard limit when not allowed: as high as it goes. */
		if (setrlimit(RLIMIT_NOFILE, &rl) && (getrlimit(RLIMIT_NOFILE, &rl) ||
		    (rl.rlim_cur = rl.rlim_max, setrlimit(RLIMIT_NOFILE, &rl))))
			die("setrlimit");
		before = open_fds();
		n_openat = 0;
		fds_live = fds_peak = 0;
		r.err = iolat_cgroups_scan(&cgs);
		r.opens = n_openat;
		r.peak = fds_peak;
		r.fds_ok = open_fds() == before;
		r.n = cgs.n;
		r.unread = cgs.unread;
		r.unread_err = cgs.unread_err;
		r.cut = cgs.cut;
		r.ids_ok = r.parents_ok = r.cut_ok = r.order_ok = true;
		for (i = 0; i < DEEP; i++) {
			long d = at(&cgs, deep_id[i]), s = at(&cgs, side_id[i]);
			long up = i ? at(&cgs, deep_id[i - 1]) : -2;

			if (d < 0 || s < 0) {
				r.ids_ok = false;
				continue;
			}
			if ((i && (cgs.v[d].parent != up || cgs.v[s].parent != up)) ||
			    cgs.v[d].parent != cgs.v[s].parent)
				r.parents_ok = false;
		}
		for (i = 0; i < WIDE; i++) {
			long w = at(&cgs, wide_id[i]);

			if (w < 0) {
				r.ids_ok = false;
				continue;
			}
			for (j = 0; j < WIDE_KIDS; j++)
				if ((c = at(&cgs, kid_id[i][j])) < 0)
					r.ids_ok = false;
				else if (cgs.v[c].parent != w)
					r.parents_ok = false;
		}
		/*
		 * Paths: whole below PATH_MAX; past it ".../" and the tail,
		 * shorter than PATH_MAX, the tail the whole path's.  Every
		 * cgroup after its parent.
		 */
		for (k = 1; k < cgs.n; k++) {
			const char *path = cgs.v[k].path;
			long up = cgs.v[k].parent;
			size_t len = strlen(path);

			if (up < 0 || (size_t)up >= k)
				r.order_ok = false;
			if (len >= PATH_MAX)
				r.cut_ok = false;
			if (!strncmp(path, ".../", 4)) {
				/* A deep level's: /d/d/.../sN or /d */
				const char *last = strrchr(path, '/');

				if (strcmp(last, "/d") && strncmp(last, "/s", 2))
					r.cut_ok = false;
			} else if (path[0] != '/') {
				r.cut_ok = false;
			}
		}
		/* Followed by its record, not by a stat() of a path too long. */
		if (r.ids_ok) {
			size_t cut = cgs.cut;
			long c;

			r.mkdir_ret = iolat_cgroups_mkdir(&cgs, 1ULL << 40, deep_id[DEEP - 1], "new");
			c = at(&cgs, 1ULL << 40);
			r.mkdir_ok = c >= 0 && cgs.v[c].parent == at(&cgs, deep_id[DEEP - 1]) &&
				     !strncmp(cgs.v[c].path, ".../", 4) && cgs.cut == cut + 1 &&
				     !strcmp(strrchr(cgs.v[c].path, '/'), "/new");
		}
		fflush(stderr);
		lseek(efd, 0, SEEK_SET);
		if (read(efd, r.said, sizeof(r.said) - 1) < 0)
			r.said[0] = '\0';
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(3);
		iolat_cgroups_free(&cgs);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &r, sizeof(r)) != sizeof(r))
		r.err = -EPIPE;
	close(p[0]);
	waitpid(pid, &status, 0);
	*sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return r;
}

/* The chain's paths ("/deep", "/d" a level, "/sN") of PATH_MAX or more. */
static size_t deep_cut(void)
{
	size_t n = 0, len = strlen("/deep");
	char side[16];
	int i;

	for (i = 0; i < DEEP; i++) {
		n += len + snprintf(side, sizeof(side), "/s%d", i) >= PATH_MAX;
		len += 2;
		n += len >= PATH_MAX;
	}
	return n;
}

/* A flat tree of @n directories: the walk's opens and time. */
static void flat(const char *root, int n)
{
	struct iolat_cgroups cgs = { 0 };
	struct timespec a, b;
	char name[32];
	int fd = open_dir(AT_FDCWD, root), i, err;
	unsigned long opens, closes;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "c%05d", i);
		mk(fd, name);
	}
	close(fd);
	n_openat = n_close = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = iolat_cgroups_scan(&cgs);
	clock_gettime(CLOCK_MONOTONIC, &b);
	opens = n_openat;
	closes = n_close;
	check(!err && cgs.n == (size_t)n + 1,
	      "flat: %d directories walked (%zu, err %d)", n, cgs.n, err);
	/* The walk's own openat()s: the root's is an open(). */
	check(opens == (unsigned long)n && cgs.unread == 0,
	      "flat: one openat a directory (%lu for %d)", opens, n);
	printf("# flat %d: %.1f ms, %lu openat, %lu close\n", n,
	       (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6, opens, closes);
	iolat_cgroups_free(&cgs);
}

int main(int argc, char **argv)
{
	struct rlimit stack = { 8 << 20, 8 << 20 };
	struct result r;
	int sig;

	if (argc < 2) {
		fprintf(stderr, "usage: %s EMPTY-DIR [FLAT-N]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	iolat_cgroup_root_set(argv[1]);
	if (argc > 2) {
		flat(argv[1], atoi(argv[2]));
		return check_done();
	}
	/* The default 8 MiB stack, whatever the shell's ulimit -s says. */
	getrlimit(RLIMIT_STACK, &stack);
	if (stack.rlim_cur == RLIM_INFINITY || stack.rlim_cur > 8 << 20) {
		stack.rlim_cur = 8 << 20;
		setrlimit(RLIMIT_STACK, &stack);
	}
	build(argv[1]);

	/* Descriptors enough for a descriptor a level. */
	r = walk(4 * DEEP, &sig);
	check(!sig && !r.err && r.n == ndirs + 1,
	      "a chain of %d levels, nofile %d: no crash (signal %d), %zu of %zu",
	      DEEP, 4 * DEEP, sig, r.n, ndirs + 1);

	r = walk(NOFILE, &sig);
	check(!sig, "a chain of %d levels, nofile %d: no crash (signal %d)", DEEP, NOFILE, sig);
	check(!sig && !r.err && r.n == ndirs + 1 && r.ids_ok && r.unread == 0,
	      "every directory found: %zu of %zu, ids %s, unread %zu, err %d",
	      r.n, ndirs + 1, r.ids_ok ? "all" : "missing", r.unread, r.err);
	check(!sig && r.parents_ok && r.order_ok,
	      "parents by index, each before its children");
	check(!sig && r.cut_ok && r.cut == deep_cut(),
	      "paths past PATH_MAX kept as \".../\" and their tail: %zu, want %zu",
	      r.cut, deep_cut());
	check(!sig && strstr(r.said, "PATH_MAX") != NULL,
	      "the cut paths said on stderr: '%s'", r.said);
	check(!sig && r.fds_ok, "no descriptor left open by the walk");
	check(!sig && r.mkdir_ret == 1 && r.mkdir_ok,
	      "a cgroup made below the deepest: added, cut and counted (%d)", r.mkdir_ret);
	/*
	 * At most an eighth of the limit kept open, and two on the way back
	 * down to a closed one; which needs opening again (the leaf beside
	 * each level may come after the chain below it), not every time.
	 */
	check(!sig && r.peak <= NOFILE / 8 + 2 && r.opens > ndirs && r.opens < 4 * ndirs,
	      "descriptors: at most %d open at once (want <= %d), %lu openat for %zu directories",
	      r.peak, NOFILE / 8 + 2, r.opens, ndirs);

	/* A directory that cannot be read: there, its children not, said. */
	fail_name = "w7";
	fail_errno = EACCES;
	fail_times = -1;
	r = walk(NOFILE, &sig);
	check(!sig && !r.err && r.n == ndirs + 1 - WIDE_KIDS && r.unread == 1 &&
	      r.unread_err == EACCES,
	      "EACCES: counted (%zu, %s), the rest walked (%zu, want %zu)",
	      r.unread, strerror(r.unread_err), r.n, ndirs + 1 - WIDE_KIDS);
	check(strstr(r.said, "1 cgroup") && strstr(r.said, strerror(EACCES)),
	      "EACCES: said on stderr: '%s'", r.said);

	/* Out of descriptors once: the walk gives one back and goes on. */
	fail_errno = EMFILE;
	fail_times = 1;
	r = walk(NOFILE, &sig);
	check(!sig && !r.err && r.n == ndirs + 1 && r.unread == 0,
	      "EMFILE once: tried again, nothing lost (%zu of %zu, unread %zu)",
	      r.n, ndirs + 1, r.unread);

	/* And for good: counted. */
	fail_times = -1;
	r = walk(NOFILE, &sig);
	check(!sig && !r.err && r.n == ndirs + 1 - WIDE_KIDS && r.unread == 1 &&
	      r.unread_err == EMFILE,
	      "EMFILE always: counted (%zu, %s)", r.unread, strerror(r.unread_err));

	/* Gone while we walk: nothing to say. */
	fail_errno = ENOENT;
	r = walk(NOFILE, &sig);
	check(!sig && !r.err && r.n == ndirs + 1 - WIDE_KIDS && r.unread == 0 &&
	      !strstr(r.said, "could not"),
	      "ENOENT: gone, not counted (%zu, unread %zu, '%s')", r.n, r.unread, r.said);
	fail_name = NULL;
	return check_done();
}
