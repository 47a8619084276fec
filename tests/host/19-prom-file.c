// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of iolat-top -P's file writes: no kernel, no BPF.  In
 * the directory argv[1]: symlinks planted where a temporary file could
 * be are not followed, the file ends whole and 0644, and a write that
 * fails (ENOSPC and EIO injected through --wrap=write,fsync, a directory
 * that went away) keeps the last file, leaves nothing behind, is said
 * once per streak and is tried again; the lines it keeps from a report
 * to the next make what a fresh render makes.  Prints "ok"/"FAIL" per check;
 * exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "iolat-top-output.h"

/*
 * Faults for the writer's own system calls: after write_budget bytes,
 * write() fails with write_errno; fsync() fails with fsync_errno.  Off
 * at -1 and 0.
 */
static long write_budget = -1;
static int write_errno, fsync_errno;
static unsigned long n_write, n_fsync;

ssize_t __real_write(int fd, const void *buf, size_t len);
int __real_fsync(int fd);

ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	n_write++;
	if (write_budget >= 0) {
		if (!write_budget) {
			errno = write_errno;
			return -1;
		}
		if (len > (size_t)write_budget)
			len = write_budget;	/* a short write, as a filling disk does */
		write_budget -= len;
	}
	return __real_write(fd, buf, len);
}

int __wrap_fsync(int fd)
{
	n_fsync++;
	if (fsync_errno) {
		errno = fsync_errno;
		return -1;
	}
	return __real_fsync(fd);
}

static char dir[4096], file[4200], victim[4200];

/* @path's contents (static, until the next call), or "(none: ...)". */
static const char *slurp(const char *path)
{
	static char buf[1 << 20];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW);

	if (fd < 0) {
		snprintf(buf, sizeof(buf), "(none: %s)", strerror(errno));
		return buf;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

/* What top_print_prom() writes for @rep (static, until the next call). */
static const char *render(const struct top_report *rep)
{
	static char *buf;
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	top_print_prom(f, rep);
	fclose(f);
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in @d, sorted, space-separated (static, until the next call). */
static const char *listing(const char *d)
{
	static char buf[8192];
	char *names[256];
	struct dirent *de;
	size_t n = 0, i, at = 0;
	DIR *dh = opendir(d);

	buf[0] = '\0';
	if (!dh)
		return "(no directory)";
	while ((de = readdir(dh)) && n < 256)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			names[n++] = strdup(de->d_name);
	closedir(dh);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		at += snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? " " : "", names[i]);
		free(names[i]);
	}
	return buf;
}

/* stderr during the last said_*() call. */
static char said[4096];
static FILE *said_to;
static int said_saved = -1;

static void said_start(void)
{
	fflush(stderr);
	said_to = tmpfile();
	said_saved = dup(2);
	dup2(fileno(said_to), 2);
}

static const char *said_end(void)
{
	size_t n;

	fflush(stderr);
	dup2(said_saved, 2);
	close(said_saved);
	rewind(said_to);
	n = fread(said, 1, sizeof(said) - 1, said_to);
	said[n] = '\0';
	fclose(said_to);
	return said;
}

static int write_said(struct top_prom *p, const struct top_report *rep)
{
	int rc;

	said_start();
	rc = top_prom_write(p, rep);
	said_end();
	return rc;
}

static int check_said(const char *f)
{
	int rc;

	said_start();
	rc = top_prom_check(f);
	said_end();
	return rc;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void plant(const char *name, const char *target)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (symlink(target, path)) {
		perror(path);
		exit(2);
	}
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	return st.st_mode;
}

static void test_symlinks(const struct top_report *rep)
{
	char name[256], victim2[4300], want[8192];
	struct top_prom p = { .file = file };
	mode_t mode;
	int rc;

	/*
	 * The old predictable name, names a writer might pick, and the file
	 * itself: each a symlink to a file root could write.
	 */
	put(victim, "precious\n");
	snprintf(victim2, sizeof(victim2), "%s.2", victim);
	put(victim2, "precious too\n");
	snprintf(name, sizeof(name), "iolat.prom.%d.tmp", (int)getpid());
	plant(name, victim);
	plant("iolat.prom.tmp", victim);
	plant(".iolat.prom.tmp", victim);
	plant(".iolat.prom", victim);
	plant("iolat.prom~", victim);
	plant("iolat.prom", victim2);
	snprintf(want, sizeof(want), ".iolat.prom .iolat.prom.tmp iolat.prom "
		 "iolat.prom.%d.tmp iolat.prom.tmp iolat.prom~", (int)getpid());

	rc = check_said(file);
	check(rc == 0 && !*said, "check: a writable directory passes quietly (%d, said '%s')",
	      rc, said);
	rc = write_said(&p, rep);
	check(rc == 0 && !*said, "write: 0, quiet (%d, said '%s')", rc, said);
	check(!strcmp(slurp(victim), "precious\n"),
	      "write: the symlinks' target keeps its contents: '%.60s'", slurp(victim));
	check(!strcmp(slurp(victim2), "precious too\n"),
	      "write: a symlink at FILE is replaced, its target kept: '%.60s'", slurp(victim2));
	mode = mode_of(file);
	check(S_ISREG(mode) && (mode & 07777) == 0644,
	      "write: FILE a regular file, 0644 whatever the umask (mode %o)", mode);
	check(!strcmp(slurp(file), render(rep)), "write: FILE holds the report");
	check(!strcmp(listing(dir), want), "write: nothing else in the directory: %s", listing(dir));
	check(p.err == 0 && p.failed == 0, "write: no failure counted (%d, %lu)", p.err, p.failed);
	top_prom_free(&p);
}

/* The streak of failed writes: said once, nothing left, the old FILE kept. */
static void test_failures(struct top_report *rep)
{
	struct top_prom p = { .file = file };
	char old[1 << 16], names[8192];
	int rc;

	rep->lost = 1;
	rc = write_said(&p, rep);
	snprintf(old, sizeof(old), "%s", slurp(file));
	snprintf(names, sizeof(names), "%s", listing(dir));
	check(rc == 0 && !strcmp(old, render(rep)), "failures: a first write (%d)", rc);

	rep->lost = 2;
	write_budget = 100;
	write_errno = ENOSPC;
	rc = write_said(&p, rep);
	check(rc == -ENOSPC, "failures: ENOSPC after 100 bytes: -ENOSPC (%d)", rc);
	check(!strcmp(slurp(file), old), "failures: FILE keeps the last report, whole: '%.80s'",
	      slurp(file));
	check(!strcmp(listing(dir), names), "failures: no temporary file left: %s", listing(dir));
	check(strstr(said, file) && strstr(said, "No space left on device") &&
	      strstr(said, "again"), "failures: said, with the file, the reason, a retry: '%s'",
	      said);

	/* The next intervals: the same, said no more. */
	rc = write_said(&p, rep);
	check(rc == -ENOSPC && !*said && p.failed == 2,
	      "failures: a second ENOSPC in a row is not said again (%d, %lu, said '%s')",
	      rc, p.failed, said);
	write_budget = -1;
	fsync_errno = EIO;
	rc = write_said(&p, rep);
	check(rc == -EIO && !*said && p.failed == 3,
	      "failures: fsync's EIO in the same streak not said either (%d, %lu, said '%s')",
	      rc, p.failed, said);
	check(!strcmp(slurp(file), old) && !strcmp(listing(dir), names),
	      "failures: after fsync's failure, the old FILE and nothing else: %s", listing(dir));
	fsync_errno = 0;

	/* It works again: the new report, and said so. */
	n_fsync = 0;
	rc = write_said(&p, rep);
	check(rc == 0 && !strcmp(slurp(file), render(rep)),
	      "failures: the next write replaces FILE (%d)", rc);
	check(n_fsync >= 1, "failures: the new file fsync'd before the rename (%lu)", n_fsync);
	check(strstr(said, file) && strstr(said, "3") && p.failed == 0 && p.err == 0,
	      "failures: the write that works says so, with the failed count: '%s'", said);
	check(!strcmp(listing(dir), names), "failures: nothing else in the directory: %s",
	      listing(dir));
	rc = write_said(&p, rep);
	check(rc == 0 && !*said, "failures: then quiet (said '%s')", said);
	mode_t mode = mode_of(file);
	check(S_ISREG(mode) && (mode & 07777) == 0644, "failures: FILE still 0644 (%o)", mode);
	top_prom_free(&p);
}

/* The directory goes away while it runs, and comes back. */
static void test_dir_gone(struct top_report *rep)
{
	char sub[4200], subfile[4300];
	struct top_prom p = { .file = subfile };
	int rc;

	snprintf(sub, sizeof(sub), "%s/sub", dir);
	snprintf(subfile, sizeof(subfile), "%s/iolat.prom", sub);
	mkdir(sub, 0755);
	rc = write_said(&p, rep);
	check(rc == 0, "dir gone: a first write (%d, said '%s')", rc, said);
	unlink(subfile);
	rmdir(sub);
	rc = write_said(&p, rep);
	check(rc == -ENOENT && strstr(said, subfile),
	      "dir gone: -ENOENT, said with the file (%d, '%s')", rc, said);
	rc = write_said(&p, rep);
	check(rc == -ENOENT && !*said, "dir gone: not said again (%d, '%s')", rc, said);
	mkdir(sub, 0755);
	rc = write_said(&p, rep);
	check(rc == 0 && !strcmp(slurp(subfile), render(rep)) && *said,
	      "dir gone: back, written and said (%d, '%s')", rc, said);
	check(!strcmp(listing(sub), "iolat.prom"), "dir gone: only the file: %s", listing(sub));
	unlink(subfile);
	rmdir(sub);
	top_prom_free(&p);
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * @text with each metric's samples sorted (malloc'ed): the kept rows
 * keep their first order, a fresh render has the model's.
 */
static char *canonical(const char *text)
{
	char *copy = strdup(text), *out = malloc(strlen(text) + 2), **lines, *l;
	size_t n = 0, i, start = 0, at = 0;

	lines = malloc((strlen(text) + 1) * sizeof(*lines));
	for (l = strtok(copy, "\n"); l; l = strtok(NULL, "\n"))
		lines[n++] = l;
	for (i = 0; i <= n; i++) {
		if (i < n && lines[i][0] != '#')
			continue;
		qsort(lines + start, i - start, sizeof(*lines), by_line);
		start = i + 1;
	}
	out[0] = '\0';
	for (i = 0; i < n; i++)
		at += sprintf(out + at, "%s\n", lines[i]);
	free(lines);
	free(copy);
	return out;
}

/* Row @i of test_kept()'s model, as it starts: every kind of sample. */
static void kept_row(struct top_row *r, size_t i, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->dev = i % 2 ? 0x800010 : 0x1030000;	/* rows in pairs: a cgroup on two devices */
	r->cgid = 100 + i / 2;
	r->path = path;
	r->target_us = 1000 + i;
	r->has_group = i % 3 != 0;
	r->g.has_window = i % 4 != 0;
	r->g.ssd = i % 2;
	r->g.last_samples = 10 + i;
	r->g.last_missed = i % 5;
	r->g.last_mean_ns = 1234567 * i;
	r->g.windows = 9;
	r->has_parent = i % 7 == 0;
	r->p.cookie = 1000000;
	r->psi_some = i / 2 % 3 ? 0 : 1.25;	/* a cgroup's: the same on its rows */
	r->psi_full = NAN;
}

/*
 * -P's kept lines: after every change a report can bring (a value, its
 * length, a sample that comes or goes, rows moved, added, gone, renamed,
 * a path copied to another pointer, one pair in two rows), the file has
 * the lines a fresh render makes, each metric's in the order rows came.
 */
static void test_kept(void)
{
	enum { MAXROWS = 48, STEPS = 600 };
	static char names[MAXROWS * 4][32];
	struct top_model m = { .mode = TOP_MODE_EVENTS, .mode_reason = "", .debug_stats = 1 };
	struct top_report rep = { .m = &m, .secs = 1, .rows = 100, .batch = true };
	struct top_prom p = { .file = file };
	struct top_row v[MAXROWS], save;
	size_t n = 32, i, j, nnames = 0, bad = 0, first_bad = 0;
	int kind, first_kind = -1, step, dup = -1;
	char *fresh, *kept;
	double some;

	for (i = 0; i < n; i++) {
		if (i % 2 == 0)
			snprintf(names[nnames++], sizeof(names[0]), "/t/g%zu", i / 2);
		kept_row(&v[i], i, names[nnames - 1]);
	}
	m.v = v;
	m.n = n;
	srand(28);
	for (step = 0; step < STEPS; step++) {
		i = rand() % n;
		j = rand() % n;
		kind = dup >= 0 ? -1 : rand() % 10;
		switch (kind) {
		case -1:	/* the duplicate of the last step, undone */
			v[dup] = save;
			dup = -1;
			break;
		case 0:		/* a cgroup's, on each of its rows */
			some = (double[]){ 0, 0.5, 12.34, NAN }[rand() % 4];
			for (j = 0; j < n; j++)
				if (v[j].cgid == v[i].cgid)
					v[j].psi_some = some;
			break;
		case 1:
			v[i].target_us = rand() % 3 ? 1000 + rand() % 100000 : 0;
			break;
		case 2:
			v[i].has_group = !v[i].has_group;
			v[i].g.windows += rand() % 2 ? 1 : 1000;
			break;
		case 3:
			save = v[i];
			v[i] = v[j];
			v[j] = save;
			break;
		case 4:
			if (n > 4) {
				memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof(*v));
				n--;
			}
			break;
		case 5:
			if (n < MAXROWS && nnames < MAXROWS * 4) {
				snprintf(names[nnames], sizeof(names[0]), "/t/new%d", step);
				kept_row(&v[n], 2 * (50 + step), names[nnames++]);
				n++;
			}
			break;
		case 6:		/* renamed: the cgroup's rows */
		case 7:		/* its path, read again elsewhere */
			if (nnames == MAXROWS * 4)
				break;
			if (kind == 6)
				snprintf(names[nnames], sizeof(names[0]), "/t/renamed%d", step);
			else
				snprintf(names[nnames], sizeof(names[0]), "%s", v[i].path);
			for (j = 0; j < n; j++)
				if (v[j].cgid == v[i].cgid && j != i)
					v[j].path = names[nnames];
			v[i].path = names[nnames++];
			break;
		case 8:
			if (i != j) {
				save = v[j];
				v[j].dev = v[i].dev;
				v[j].cgid = v[i].cgid;
				dup = j;
			}
			break;
		case 9:
			v[i].has_parent = !v[i].has_parent;
			v[i].p.cookie = 999990 + rand() % 20;
			v[i].g.depth = rand() % 2 ? IOLAT_DEPTH_MAX : 1 + (unsigned int)rand() % 64;
			v[i].g.has_depth = rand() % 2;
			break;
		}
		m.n = n;
		if (top_prom_write(&p, &rep))
			break;
		fresh = canonical(render(&rep));
		kept = canonical(slurp(file));
		if (strcmp(kept, fresh) && !bad++) {
			if (getenv("KEPT_DEBUG"))
				fprintf(stderr, "--- kept\n%s--- fresh\n%s", kept, fresh);
			first_bad = step;
			first_kind = kind;
		}
		free(fresh);
		free(kept);
	}
	check(step == STEPS && !bad, "kept: %d reports of %d, each the fresh render "
	      "(%zu differ, the first at report %zu, after a change of kind %d)",
	      step, STEPS, bad, first_bad, first_kind);
	top_prom_free(&p);
	unlink(file);
}

/* At the start: what the tool refuses before loading anything. */
static void test_check(void)
{
	char path[4300];
	int rc;

	snprintf(path, sizeof(path), "%s/nowhere/iolat.prom", dir);
	rc = check_said(path);
	check(rc == -ENOENT && strstr(said, path) && strstr(said, "No such file"),
	      "check: a directory that does not exist: -ENOENT, said (%d, '%s')", rc, said);
	rc = check_said(dir);
	check(rc == -EISDIR && strstr(said, "directory"),
	      "check: a directory as FILE: -EISDIR, said (%d, '%s')", rc, said);
	snprintf(path, sizeof(path), "%s/new.prom", dir);
	rc = check_said(path);
	check(rc == 0 && mode_of(path) == 0 && !strstr(listing(dir), "new.prom"),
	      "check: creates neither FILE nor a temporary file (%d): %s", rc, listing(dir));
}

int main(int argc, char **argv)
{
	struct top_model m = { .mode = TOP_MODE_EVENTS, .mode_reason = "", .debug_stats = 1 };
	struct top_report rep = { .m = &m, .secs = 1, .rows = 100, .batch = true };

	if (argc != 2) {
		fprintf(stderr, "usage: %s EMPTY-DIR\n", argv[0]);
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/textfile", argv[1]);
	snprintf(file, sizeof(file), "%s/iolat.prom", dir);
	snprintf(victim, sizeof(victim), "%s/victim", argv[1]);
	if (mkdir(dir, 0755)) {
		perror(dir);
		return 2;
	}
	/* The file is for another user (node_exporter) whatever ours says. */
	umask(077);
	test_symlinks(&rep);
	test_failures(&rep);
	test_dir_gone(&rep);
	test_check();
	test_kept();
	return check_done();
}
