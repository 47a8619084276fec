// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of iolat-top's model, cgroup reader and outputs: no
 * kernel, no BPF.  A fake cgroup tree (directories with io.stat and
 * io.latency files) under argv[1], fake map entries, and the checks.
 * Prints "ok"/"FAIL" per check; exits 1 if any failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "check.h"
#include "iolat-common.h"
#include "iolat-cgroup.h"
#include "iolat-top-model.h"
#include "iolat-top-output.h"
#include "iolat-map.h"

static char root[4096];

/*
 * The system calls of the readers, counted: 06-model.sh links with
 * --wrap for these, so that every call the tools' code makes to them
 * comes here first (stdio's own reads do not).
 */
static unsigned long n_open, n_read, n_pread, n_close;

/*
 * Which cgroup's io.pressure the calls touched, for the fake tree's
 * /pq/gK (K from 1; /pq's own is 0): psi_touch[K] gets 1 for an open,
 * 2 for a pread, while psi_touch is set.  A descriptor's K, while open.
 */
static unsigned char *psi_touch;
static size_t psi_touch_n;
static unsigned int fd_cg[1 << 16];	/* K + 1; 0: not one of those */

/* The K of @path, ROOT/pq/gK/io.pressure or ROOT/pq/io.pressure; -1 if neither. */
static long pq_of(const char *path)
{
	size_t len = strlen(root);
	unsigned long k;
	int end = 0;

	if (strncmp(path, root, len))
		return -1;
	path += len;
	if (!strcmp(path, "/pq/io.pressure"))
		return 0;
	if (sscanf(path, "/pq/g%lu/io.pressure%n", &k, &end) == 1 && end &&
	    !path[end] && k < psi_touch_n)
		return k;
	return -1;
}

int __real_open(const char *path, int flags, ...);
ssize_t __real_read(int fd, void *buf, size_t len);
ssize_t __real_pread(int fd, void *buf, size_t len, off_t off);
int __real_close(int fd);

int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	long k;
	int fd;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	n_open++;
	fd = __real_open(path, flags, mode);
	if (psi_touch && (k = pq_of(path)) >= 0) {
		psi_touch[k] |= 1;
		if (fd >= 0 && fd < (int)(sizeof(fd_cg) / sizeof(*fd_cg)))
			fd_cg[fd] = k + 1;
	}
	return fd;
}

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	n_read++;
	return __real_read(fd, buf, len);
}

ssize_t __wrap_pread(int fd, void *buf, size_t len, off_t off)
{
	n_pread++;
	if (psi_touch && fd >= 0 && fd < (int)(sizeof(fd_cg) / sizeof(*fd_cg)) && fd_cg[fd])
		psi_touch[fd_cg[fd] - 1] |= 2;
	return __real_pread(fd, buf, len, off);
}

int __wrap_close(int fd)
{
	n_close++;
	if (fd >= 0 && fd < (int)(sizeof(fd_cg) / sizeof(*fd_cg)))
		fd_cg[fd] = 0;
	return __real_close(fd);
}

/*
 * The writers' calls into stdio that cost per call (printf's parsing and
 * floating point, a lock a character), counted the same way; a build
 * with _FORTIFY_SOURCE would call __fprintf_chk instead (06-model.sh
 * turns it off).
 */
static unsigned long n_fprintf, n_fputc;

int __real_fputc(int c, FILE *f);

int __wrap_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	n_fprintf++;
	va_start(ap, fmt);
	n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int __wrap_fputc(int c, FILE *f)
{
	n_fputc++;
	return __real_fputc(c, f);
}

/* The counted calls since the last look. */
static unsigned long calls_since(void)
{
	static unsigned long last;
	unsigned long now = n_open + n_read + n_pread + n_close, d = now - last;

	last = now;
	return d;
}

/* Write @text to ROOT/@path (a cgroup-relative file). */
static void put(const char *path, const char *fmt, ...)
{
	char fn[8192];
	va_list ap;
	FILE *f;

	snprintf(fn, sizeof(fn), "%s%s", root, path);
	f = fopen(fn, "w");
	if (!f) {
		perror(fn);
		exit(2);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* Give the fake tree's cgroup @cg a latency target of @us on @dev. */
static void put_target(const char *cg, __u32 dev, unsigned int us)
{
	char fn[4096];

	snprintf(fn, sizeof(fn), "%s/io.latency", cg);
	put(fn, "%u:%u target=%u\n", IOLAT_MAJOR(dev), IOLAT_MINOR(dev), us);
}

static void mkcg(const char *path)
{
	char fn[8192];

	snprintf(fn, sizeof(fn), "%s%s", root, path);
	if (mkdir(fn, 0755) && errno != EEXIST) {
		perror(fn);
		exit(2);
	}
	snprintf(fn, sizeof(fn), "%s/io.stat", path);
	put(fn, "");
}

/* Fake devices: majors no host has, so their names are "MAJ:MIN". */
#define DEV1 IOLAT_MKDEV(4000U, 1U)
#define DEV2 IOLAT_MKDEV(4000U, 2U)

static __u64 cgid(const struct iolat_cgroups *cgs, const char *path)
{
	size_t i;

	for (i = 0; i < cgs->n; i++)
		if (!strcmp(cgs->v[i].path, path))
			return cgs->v[i].id;
	fprintf(stderr, "no cgroup %s in the fake tree\n", path);
	exit(2);
}

static struct top_row *row(struct top_model *m, __u32 dev, const char *path)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].dev == dev && !strcmp(m->v[i].path, path))
			return &m->v[i];
	return NULL;
}

/* @rep's output as a string (static, until the next call). */
static const char *render(void (*print)(FILE *, const struct top_report *),
			  const struct top_report *rep)
{
	static char *buf;
	static size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	print(f, rep);
	fclose(f);
	return buf;
}

/* From @key in @out up to @end, or to the end (static, until the next call). */
static const char *excerpt(const char *out, const char *key, const char *end)
{
	static char buf[4096];
	const char *s, *e;

	s = strstr(out, key);
	if (!s)
		return "(no row)";
	e = strstr(s, end);
	snprintf(buf, sizeof(buf), "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
	return buf;
}

/* The JSON object of @path's row in @out. */
static const char *json_row(const char *out, const char *path)
{
	char key[512];

	snprintf(key, sizeof(key), "\"cgroup\":\"%s\"", path);
	return excerpt(out, key, "},{");
}

/* The text line of @path's row on 4000:1 in @out. */
static const char *text_row(const char *out, const char *path)
{
	char key[512];

	snprintf(key, sizeof(key), "4000:1   %-28s ", path);
	return excerpt(out, key, "\n");
}

struct fixture {
	struct iolat_cgroups cgs;
	struct iolat_targets targets;
	struct top_model m;
	regex_t re;		/* the rows' filter, m.re, if set */
};

static void scan(struct fixture *fx)
{
	if (iolat_cgroups_scan(&fx->cgs) || iolat_targets_read(&fx->cgs, &fx->targets)) {
		fprintf(stderr, "cannot scan the fake tree\n");
		exit(2);
	}
}

/* A check that @text (a row, an excerpt) has @want in it. */
static void check_has(const char *text, const char *want, const char *what)
{
	check(strstr(text, want) != NULL, "%s: %s", what, text);
}

/* Only the rows whose path matches @pattern, as -c @pattern. */
static void fixture_filter(struct fixture *fx, const char *pattern)
{
	if (regcomp(&fx->re, pattern, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "bad pattern %s\n", pattern);
		exit(2);
	}
	fx->m.re = &fx->re;
}

/* The map key of the fake tree's cgroup @path on @dev. */
static struct iolat_key key(const struct fixture *fx, const char *path, __u32 dev)
{
	return (struct iolat_key){ .cgroup_id = cgid(&fx->cgs, path), .dev = dev };
}

/* One interval: targets, @ng groups and @np parents, io.stat, compute. */
static int interval(struct fixture *fx, const struct iolat_key *gk,
		    const struct iolat_group *g, int ng,
		    const struct iolat_key *pk, const struct iolat_parent *p,
		    int np, double secs)
{
	int i, err;

	top_model_begin(&fx->m, &fx->cgs);
	err = top_model_add_targets(&fx->m, &fx->targets);
	for (i = 0; !err && i < ng; i++)
		err = top_model_add_entry(&fx->m, &gk[i], &g[i], false, true) < 0;
	for (i = 0; !err && i < np; i++)
		err = top_model_add_entry(&fx->m, &pk[i], &p[i], true, true) < 0;
	if (!err)
		err = top_model_add_io(&fx->m);
	if (!err)
		err = top_model_compute(&fx->m, secs);
	top_model_sort(&fx->m, TOP_SORT_PATH);
	return err;
}

/*
 * The cgroups @paths (to NULL), each with a 1 us target on @dev, in
 * that order, scanned, and one interval with no map entries: a row for
 * each, on @dev alone.
 */
static void targets_only(struct fixture *fx, __u32 dev, const char *const *paths)
{
	for (; *paths; paths++) {
		mkcg(*paths);
		put_target(*paths, dev, 1);
	}
	scan(fx);
	fx->m.dev = dev;
	interval(fx, NULL, NULL, 0, NULL, NULL, 0, 1);
}

static void fixture_free(struct fixture *fx)
{
	if (fx->m.re)
		regfree(&fx->re);
	top_model_free(&fx->m);
	iolat_cgroups_free(&fx->cgs);
	free(fx->targets.v);
	memset(fx, 0, sizeof(*fx));
}

static const char *iostat_line(__u32 dev, unsigned long long rb,
			       unsigned long long ios, const char *extra)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%u:%u rbytes=%llu wbytes=0 rios=%llu wios=0 "
		 "dbytes=0 dios=0%s%s\n", IOLAT_MAJOR(dev), IOLAT_MINOR(dev),
		 rb, ios, extra ? " " : "", extra ?: "");
	return buf;
}

/* The reader: tree order, ids, io.stat and io.latency parsing. */
static void test_reader(void)
{
	struct iolat_iostat io[2] = {};
	__u32 devs[2] = { DEV1, DEV2 };
	struct fixture fx = {};
	char text[512];

	mkcg("/r");
	mkcg("/r/a");
	put_target("/r/a", DEV1, 2000);
	scan(&fx);
	check(fx.cgs.n >= 3 && !strcmp(fx.cgs.v[0].path, "/"),
	      "reader: the root first (%zu cgroups)", fx.cgs.n);
	check(iolat_cgroups_path(&fx.cgs, cgid(&fx.cgs, "/r/a")) != NULL,
	      "reader: a cgroup found by its id");
	check(fx.targets.n == 1 && fx.targets.v[0].dev == DEV1 &&
	      fx.targets.v[0].us == 2000, "reader: io.latency target=2000 on 4000:1");
	snprintf(text, sizeof(text), "%s", iostat_line(DEV1, 4096, 3, "use_delay=2 depth=4"));
	strcat(text, iostat_line(DEV2, 0, 0, "depth=max"));
	iolat_iostat_parse(text, devs, 2, io);
	check(io[0].has_io && io[0].rbytes == 4096 && io[0].ios == 3 &&
	      io[0].has_depth && io[0].depth == 4 && io[0].use_delay == 2,
	      "reader: io.stat of 4000:1 parsed (rbytes %llu ios %llu depth %u use_delay %d)",
	      (unsigned long long)io[0].rbytes, (unsigned long long)io[0].ios,
	      io[0].depth, io[0].use_delay);
	check(io[1].has_depth && io[1].depth == IOLAT_DEPTH_MAX, "reader: depth=max");
	fixture_free(&fx);
}

/* The model: rows from targets, maps and io.stat; rates over an interval. */
static void test_rates(void)
{
	struct fixture fx = {};
	struct iolat_key k;
	struct iolat_group g = { .depth = IOLAT_DEPTH_MAX };
	struct top_report rep;
	struct top_row *r;
	const char *out;

	mkcg("/t");
	mkcg("/t/p");
	put("/t/io.stat", "%s", iostat_line(DEV1, 1000000, 100, NULL));
	put("/t/p/io.stat", "%s", iostat_line(DEV1, 1000000, 100, NULL));
	put_target("/t/p", DEV1, 1000);
	scan(&fx);
	k = key(&fx, "/t/p", DEV1);
	check(!interval(&fx, &k, &g, 1, NULL, NULL, 0, 1), "model: first interval");
	put("/t/io.stat", "%s", iostat_line(DEV1, 3000000, 300, NULL));
	put("/t/p/io.stat", "%s", iostat_line(DEV1, 3000000, 300, NULL));
	check(!interval(&fx, &k, &g, 1, NULL, NULL, 0, 2), "model: second interval");
	r = row(&fx.m, DEV1, "/t/p");
	check(r && r->target_us == 1000 && r->has_group, "model: /t/p has its target and group");
	check(r && r->iops == 100 && r->rmbps == 1, "model: /t/p 100 IOPS, 1 MB/s (%.1f, %.3f)",
	      r ? r->iops : -1, r ? r->rmbps : -1);
	rep = (struct top_report){ .m = &fx.m, .secs = 2, .rows = 100, .batch = true };
	out = render(top_print_json, &rep);
	check(strstr(out, "\"cgroup\":\"/t/p\"") && strstr(out, "\"iops\":100.0,") &&
	      strstr(out, "\"target_us\":1000"), "json: /t/p with its target and IOPS");
	out = render(top_print_text, &rep);
	check(strstr(out, " TARGETus ") && strstr(text_row(out, "/t/p"), "/t/p ") &&
	      strstr(text_row(out, "/t/p"), "     1000 "),
	      "text: a row for /t/p, its target in us as the header says: %s", text_row(out, "/t/p"));
	out = render(top_print_prom, &rep);
	check(strstr(out, "iolat_target_seconds{device=\"4000:1\",cgroup=\"/t/p\"} 0.001\n") != NULL,
	      "prometheus: /t/p's target");
	fixture_free(&fx);
}

static void rmdir_cg(const char *path)
{
	char fn[8192];

	snprintf(fn, sizeof(fn), "%s%s/io.stat", root, path);
	unlink(fn);
	snprintf(fn, sizeof(fn), "%s%s/io.latency", root, path);
	unlink(fn);
	snprintf(fn, sizeof(fn), "%s%s", root, path);
	if (rmdir(fn)) {
		perror(fn);
		exit(2);
	}
}

/* stderr of @fn(@arg) into @said. */
static int said_by(int (*fn)(void *), void *arg, char *said, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), rc;
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	rc = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(said, 1, len - 1, tmp);
	said[n] = '\0';
	fclose(tmp);
	return rc;
}

/* iolat_targets_tell_bio_based() twice: the note comes once. */
static int tell_bio_based_twice(void *targets)
{
	iolat_targets_tell_bio_based("iolat-top", targets);
	iolat_targets_tell_bio_based("iolat-top", targets);
	return 0;
}

/*
 * A bio-based disk (device mapper: a queue/, no mq/) and one with a
 * request queue: JSON's bio_based and, on the first, the disks below it
 * (slaves/); iolat-top's note on stderr names them, once.
 */
static void test_bio_based(void)
{
	static char sys[8192];
	static const char *const dirs[] = { "fake1", "fake1/queue", "fake1/mq", "dm-3",
		"dm-3/queue", "dm-3/slaves", "dm-3/slaves/fake1", NULL };
	struct fixture fx = {};
	struct top_report rep;
	char fn[8300], said[512];
	const char *out;
	int i;

	snprintf(sys, sizeof(sys), "%s/../sysblk-bio", root);
	mkdir(sys, 0755);
	for (i = 0; dirs[i]; i++) {
		snprintf(fn, sizeof(fn), "%s/%s", sys, dirs[i]);
		mkdir(fn, 0755);
	}
	snprintf(fn, sizeof(fn), "%s/4000:1", sys);
	symlink("./fake1", fn);
	snprintf(fn, sizeof(fn), "%s/4000:3", sys);
	symlink("./dm-3", fn);
	iolat_sys_block_set(sys);
	iolat_dev_cache_reset();
	mkcg("/bb");
	put("/bb/io.latency", "4000:1 target=1000\n4000:3 target=5000\n");
	scan(&fx);
	fixture_filter(&fx, "^/bb$");
	check(!interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1), "bio-based: an interval");
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
	out = render(top_print_json, &rep);
	if (records)
		fputs(out, records);
	check(strstr(out, "{\"device\":\"dm-3\",\"rotational\":false,\"bio_based\":true,"
		     "\"below\":[\"fake1\"],\"cgroup\":\"/bb\"") &&
	      strstr(out, "{\"device\":\"fake1\",\"rotational\":false,\"bio_based\":false,"
		     "\"cgroup\":\"/bb\""),
	      "bio-based: json: dm-3's row bio-based, fake1 below it; fake1's not: %s", out);
	said_by(tell_bio_based_twice, &fx.targets, said, sizeof(said));
	check(!strcmp(said, "iolat-top: dm-3 (4000:3) is bio-based: io.latency takes a target "
		      "there and never acts on it; set it on fake1\n"),
	      "bio-based: said once on stderr, naming the disk below: '%s'", said);
	fixture_free(&fx);
	rmdir_cg("/bb");
	iolat_sys_block_set(NULL);
	iolat_dev_cache_reset();
}

/*
 * A row's rates against its own baseline when the rows come in another
 * order than in the interval before (a target gone, a row added before
 * the others): the baseline is found where the row was then (the rows
 * in the same places: a row's own place), else by its key.
 */
static void test_rates_rows_moved(void)
{
	static const char *const paths[] = { "/mv/a", "/mv/b", "/mv/c" };
	struct fixture fx = {};
	struct iolat_targets all, but_a;	/* but the first */
	struct top_row *r;
	char fn[64];
	size_t t;
	int i, pass, good = 0;

	mkcg("/mv");
	put("/mv/io.stat", "%s", iostat_line(DEV1, 4096, 3000, NULL));
	for (i = 0; i < 3; i++) {
		mkcg(paths[i]);
		put_target(paths[i], DEV1, 1000 + i);
		snprintf(fn, sizeof(fn), "%s/io.stat", paths[i]);
		put(fn, "%s", iostat_line(DEV1, 4096, 1000, NULL));
	}
	scan(&fx);
	fixture_filter(&fx, "^/mv/");
	all = fx.targets;
	/* Without the first of the three's targets (the walk's order). */
	but_a = (struct iolat_targets){ .v = malloc(all.n * sizeof(*all.v)) };
	for (t = 0, i = 0; t < all.n; t++) {
		if (!i && !strncmp(fx.cgs.v[all.v[t].cgroup].path, "/mv/", 4)) {
			i = 1;
			continue;
		}
		but_a.v[but_a.n++] = all.v[t];
	}
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	for (pass = 1; pass <= 2; pass++) {
		/* Pass 1: a target gone, its row last; pass 2: back first. */
		fx.targets = pass == 1 ? but_a : all;
		put("/mv/io.stat", "%s", iostat_line(DEV1, 4096, 3000 + pass * 600, NULL));
		for (i = 0; i < 3; i++) {
			snprintf(fn, sizeof(fn), "%s/io.stat", paths[i]);
			put(fn, "%s", iostat_line(DEV1, 4096, 1000 + pass * 100 * (i + 1), NULL));
		}
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
		for (i = 0; i < 3; i++) {
			r = row(&fx.m, DEV1, paths[i]);
			good += r && r->iops == 100 * (i + 1);
		}
	}
	fx.targets = all;
	free(but_a.v);
	check(good == 6 && but_a.n == all.n - 1, "rates: rows in other places than the interval before: each against "
	      "its own baseline (%d of 6 rates right)", good);
	fixture_free(&fx);
}

/*
 * A counter that went backwards, or an io.stat that could not be read,
 * gives an unknown rate for the interval (JSON null), never a wrapped one.
 */
static void test_unknown_rates(void)
{
	struct fixture fx = {};
	struct iolat_key k;
	struct iolat_group g = { .depth = IOLAT_DEPTH_MAX, .throttled = 10 };
	struct top_report rep;
	struct top_row *r;
	const char *line;
	char fn[8192];

	mkcg("/u");
	put("/u/io.stat", "%s", iostat_line(DEV1, 1000000, 300, NULL));
	put_target("/u", DEV1, 1000);
	scan(&fx);
	k = key(&fx, "/u", DEV1);
	interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	/* The counters went backwards (a cgroup re-created, a map entry reset). */
	put("/u/io.stat", "%s", iostat_line(DEV1, 500000, 50, NULL));
	g.throttled = 5;
	interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/u");
	check(r && isnan(r->iops) && isnan(r->rmbps) && isnan(r->waits),
	      "rates: counters went backwards: unknown (iops %g, MB/s %g, waits %g)",
	      r ? r->iops : 0, r ? r->rmbps : 0, r ? r->waits : 0);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
	line = json_row(render(top_print_json, &rep), "/u");
	check(strstr(line, "\"iops\":null,\"read_mbps\":null,\"write_mbps\":null") &&
	      strstr(line, "\"throttled_bios_per_s\":null"),
	      "rates: counters went backwards: JSON null: %s", line);
	line = text_row(render(top_print_text, &rep), "/u");
	check(!strstr(line, "1844674"), "rates: counters went backwards: text: %s", line);
	/* io.stat unreadable for an interval (EISDIR here), then back. */
	snprintf(fn, sizeof(fn), "%s/u/io.stat", root);
	unlink(fn);
	mkdir(fn, 0755);
	scan(&fx);
	interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/u");
	check(r && isnan(r->iops), "rates: io.stat unreadable: unknown (iops %g)",
	      r ? r->iops : 0);
	rmdir(fn);
	put("/u/io.stat", "%s", iostat_line(DEV1, 600000, 60, NULL));
	scan(&fx);
	interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/u");
	check(r && isnan(r->iops), "rates: the interval after an unreadable io.stat: unknown (iops %g)",
	      r ? r->iops : 0);
	put("/u/io.stat", "%s", iostat_line(DEV1, 700000, 70, NULL));
	interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/u");
	check(r && r->iops == 10, "rates: then known again (iops %g)", r ? r->iops : 0);
	fixture_free(&fx);
}

/* A window that ended during the refresh, after its start, is not idle. */
static void test_window_idle(void)
{
	struct top_row r = { .g = { .has_window = 1 } };
	__u64 now = 100000000000ULL;

	r.g.last_window_ns = now - 6000000000ULL;
	check(top_window_idle(&r, now), "idle: no window for 6 s");
	r.g.last_window_ns = now - 1000000000ULL;
	check(!top_window_idle(&r, now), "idle: a window 1 s ago is not");
	r.g.last_window_ns = now + 1000000;
	check(!top_window_idle(&r, now), "idle: a window 1 ms after the refresh began is not");
}

/*
 * A group throttled before the tool started, with no event since and no
 * blkcg_debug_stats keys in io.stat: its depth is unknown, and so is its
 * state.  With the keys, io.stat tells.
 */
static void test_state_unknown(void)
{
	struct fixture fx = {};
	struct iolat_key k[3];
	struct iolat_group g[3] = { { .depth = IOLAT_DEPTH_MAX } };
	struct top_report rep;
	struct top_row *r;

	mkcg("/s");
	mkcg("/s/nodebug");
	mkcg("/s/debug");
	mkcg("/s/relaxed");
	put("/s/io.stat", "%s", iostat_line(DEV2, 8192, 2, NULL));
	put("/s/nodebug/io.stat", "%s", iostat_line(DEV2, 4096, 1, NULL));
	put("/s/debug/io.stat", "%s", iostat_line(DEV2, 4096, 1, "use_delay=0 depth=1"));
	put("/s/relaxed/io.stat", "%s", iostat_line(DEV2, 4096, 1, "use_delay=0 depth=max"));
	scan(&fx);
	k[0] = key(&fx, "/s/nodebug", DEV2);
	k[1] = key(&fx, "/s/debug", DEV2);
	k[2] = key(&fx, "/s/relaxed", DEV2);
	g[1] = g[2] = g[0];
	interval(&fx, k, g, 3, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV2, "/s/nodebug");
	check(r && !strcmp(r->state, "unknown"),
	      "state: depth unknown (no event, no debug keys): unknown, not '%s'",
	      r ? r->state : "(no row)");
	r = row(&fx.m, DEV2, "/s/debug");
	check(r && !strcmp(r->state, "throttled"), "state: io.stat depth=1: throttled (%s)",
	      r ? r->state : "(no row)");
	r = row(&fx.m, DEV2, "/s/relaxed");
	check(r && !strcmp(r->state, "ok"), "state: io.stat depth=max: ok (%s)",
	      r ? r->state : "(no row)");
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
	check(strstr(json_row(render(top_print_json, &rep), "/s/nodebug"),
		     "\"depth\":null,\"cookie\":null,\"state\":\"unknown\"") != NULL,
	      "state: JSON: %s", json_row(render(top_print_json, &rep), "/s/nodebug"));
	check(strstr(json_row(render(top_print_json, &rep), "/s/nodebug"),
		     "\"use_delay\":null") != NULL,
	      "state: use_delay unknown: JSON null, not 0: %s",
	      json_row(render(top_print_json, &rep), "/s/nodebug"));
	check(strstr(json_row(render(top_print_json, &rep), "/s/debug"),
		     "\"use_delay\":0") != NULL,
	      "state: use_delay=0 in io.stat: JSON 0: %s",
	      json_row(render(top_print_json, &rep), "/s/debug"));
	fixture_free(&fx);
}

/*
 * Is @s valid UTF-8 with no C0 but '\n', no DEL and no C1: what a terminal,
 * a JSON parser and node_exporter's textfile parser all take.  0, or the
 * offset of the first bad byte plus one.
 */
static size_t bad_text(const char *s)
{
	const unsigned char *u = (const unsigned char *)s, *p = u;

	while (*p) {
		int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
			(*p & 0xf8) == 0xf0 ? 4 : 0;
		int i;

		if (!n || (n == 1 && ((*p < 0x20 && *p != '\n') || *p == 0x7f)) ||
		    (n == 2 && (*p < 0xc2 || (*p == 0xc2 && p[1] < 0xa0))))
			return p - u + 1;
		for (i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return p - u + 1;
		p += n;
	}
	return 0;
}

/*
 * Cgroup names are anyone's with a delegated subtree: control characters,
 * C1 controls, bytes of no UTF-8 character.  One reversible escape in
 * text, JSON and Prometheus labels: no raw byte a terminal or a parser
 * chokes on, and two names that differ in a bad byte stay two.
 */
static void test_text_escape(void)
{
	struct fixture fx = {};
	struct iolat_key k[6], pk;
	struct iolat_group g[6] = { { .depth = 1, .has_depth = 1 } };
	struct iolat_parent p = { .cookie = 999990 };
	static const char *const names[6] = {
		"/x/\033[2Jevil", "/x/tab\there", "/x/c1\xc2\x85here", "/x/a\xff",
		"/x/a\xfe", "/x/back\\slash",
	};
	struct top_report rep;
	const char *out;
	size_t i, bad;

	mkcg("/x");
	for (i = 0; i < 6; i++) {
		g[i] = g[0];
		mkcg(names[i]);
	}
	scan(&fx);
	for (i = 0; i < 6; i++)
		k[i] = key(&fx, names[i], DEV1);
	pk = key(&fx, "/x", DEV1);
	p.culprit_id = k[0].cgroup_id;
	interval(&fx, k, g, 6, &pk, &p, 1, 1);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
	out = render(top_print_text, &rep);
	bad = bad_text(out);
	check(!bad, "text: no raw control, C1 or invalid byte (at %zu: %.40s)", bad,
	      bad ? out + bad - 1 : "");
	check(strstr(out, "/x/\\x1b[2Jevil ") && strstr(out, "/x/tab\\x09here ") &&
	      strstr(out, "scaled for /x/\\x1b[2Jevil,") && strstr(out, "/x/c1\\xc2\\x85here ") &&
	      strstr(out, "/x/a\\xff ") && strstr(out, "/x/a\\xfe ") &&
	      strstr(out, "/x/back\\\\slash "),
	      "text: names escaped as \\xNN, '\\' doubled, the culprit's too: %s", out);
	out = render(top_print_json, &rep);
	bad = bad_text(out);
	check(!bad, "json: valid UTF-8 (at %zu: %.40s)", bad, bad ? out + bad - 1 : "");
	check(strstr(out, "\"/x/\\\\x1b[2Jevil\"") && strstr(out, "\"/x/a\\\\xff\"") &&
	      strstr(out, "\"/x/a\\\\xfe\"") && strstr(out, "\"/x/c1\\\\xc2\\\\x85here\"") &&
	      strstr(out, "\"/x/back\\\\\\\\slash\""),
	      "json: the same escaped text, as JSON strings: %s", out);
	out = render(top_print_prom, &rep);
	bad = bad_text(out);
	check(!bad, "prometheus: valid UTF-8 (at %zu: %.40s)", bad, bad ? out + bad - 1 : "");
	check(strstr(out, "cgroup=\"/x/a\\\\xff\"") && strstr(out, "cgroup=\"/x/a\\\\xfe\"") &&
	      strstr(out, "cgroup=\"/x/\\\\x1b[2Jevil\""),
	      "prometheus: the same escaped text as label values, two series");
	fixture_free(&fx);
}

/* Rows in tree order: /o, /o/child, then /o-x and /o.b. */
static void test_tree_order(void)
{
	static const char *const want[] = { "/o", "/o/child", "/o/child/z", "/o-x", "/o.b", NULL };
	struct fixture fx = {};
	char got[512] = "";
	size_t i, n = 0;

	targets_only(&fx, DEV2, want);
	for (i = 0; i < fx.m.n; i++) {
		strcat(got, " ");
		strcat(got, fx.m.v[i].path);
		if (n < 5 && !strcmp(fx.m.v[i].path, want[n]))
			n++;
	}
	check(n == 5, "sort: tree order /o /o/child /o/child/z /o-x /o.b:%s", got);
	fixture_free(&fx);
}

/*
 * A report with every shape of row: a window of each statistic, a
 * parent with its culprit, a row from io.stat alone; written to the
 * records for 06-model.sh's check of the README's keys.
 */
static void test_schema_rows(void)
{
	struct fixture fx = {};
	struct iolat_key k[2], pk;
	struct iolat_group g[2] = {
		{ .has_window = 1, .ssd = 1, .last_samples = 40, .last_missed = 40,
		  .acc_samples = 40, .acc_missed = 40, .win_ns = 100000000,
		  .last_action = IOLAT_ACT_DOWN, .windows = 3, .windows_missed = 3,
		  .depth = IOLAT_DEPTH_MAX, .has_depth = 1, .cookie = 999996,
		  .has_use_delay = 1 },
		{ .has_window = 1, .last_samples = 30, .last_mean_ns = 2500000,
		  .acc_samples = 30, .acc_mean_ns = 2400000, .win_ns = 400000000,
		  .last_met = 1, .last_win_met = 1, .last_action = IOLAT_ACT_HOLD,
		  .depth = 2, .has_depth = 1, .use_delay = 1, .has_use_delay = 1 },
	};
	struct iolat_parent p = { .cookie = 999996, .scale_downs = 1,
				  .scale_lat_ns = 1000000 };
	struct top_report rep;
	const char *out;

	fixture_filter(&fx, "^/j");
	mkcg("/j");
	mkcg("/j/ssd");
	mkcg("/j/rot");
	mkcg("/j/io");
	put_target("/j", DEV1, 5000);
	put_target("/j/ssd", DEV1, 1000);
	put("/j/io/io.stat", "%s", iostat_line(DEV1, 4096, 1, NULL));
	scan(&fx);
	k[0] = key(&fx, "/j/ssd", DEV1);
	k[1] = key(&fx, "/j/rot", DEV1);
	pk = key(&fx, "/j", DEV1);
	p.culprit_id = k[0].cgroup_id;
	interval(&fx, k, g, 2, &pk, &p, 1, 1);
	interval(&fx, k, g, 2, &pk, &p, 1, 1);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true,
				   .time = 1764763200.5 };
	out = render(top_print_json, &rep);
	if (records)
		fputs(out, records);
	check(strstr(out, "{\"schema\":2,\"tool\":\"iolat-top\",\"time\":") == out &&
	      strstr(out, "\"action\":\"down\"") && !strstr(out, "action_name"),
	      "json: schema 2, actions as strings: %.100s", out);
	check(strstr(out, "\"mode\":\"events\",\"mode_reason\":null,\"debug_stats\":false,\"cgroupns\":false,"
		     "\"functions\":null,") != NULL,
	      "json: events mode: no functions (null): %.200s", out);
	out = render(top_print_prom, &rep);
	check(strstr(out, "iolat_mode_info{mode=\"events\",reason=\"\"} 1\n") == strstr(out, "\niolat_") + 1 &&
	      !strstr(out, "iolat_function_attached") &&
	      strstr(out, "iolat_delay_charged_seconds_total{device=\"4000:1\",cgroup=\"/j/ssd\"} 0\n"),
	      "-P, events mode: the mode first, no functions, the counters:\n%.400s", out);
	fixture_free(&fx);
}

/*
 * What happened during the interval, not only the state at its end:
 * windows and misses, bios throttled and their mean wait, a parent's
 * scalings, from the growth of the counters since the last report.
 */
static void test_interval_view(void)
{
	struct fixture fx = {};
	struct iolat_key k, pk;
	struct iolat_group g = { .has_window = 1, .ssd = 1, .windows = 3,
				 .windows_missed = 3, .throttled = 10,
				 .throttled_wait_ns = 5000000, .depth = 1, .has_depth = 1 };
	struct iolat_parent p = { .cookie = 999990, .scale_downs = 1 };
	struct top_report rep;
	const char *line;

	fixture_filter(&fx, "^/iv");
	mkcg("/iv");
	mkcg("/iv/loose");
	scan(&fx);
	k = key(&fx, "/iv/loose", DEV1);
	pk = key(&fx, "/iv", DEV1);
	interval(&fx, &k, &g, 1, &pk, &p, 1, 1);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
	line = json_row(render(top_print_json, &rep), "/iv/loose");
	check_has(line, "\"interval\":null",
		  "interval: the first report has no baseline: null");
	g.windows = 8;
	g.windows_missed = 5;
	g.throttled = 30;
	g.throttled_wait_ns = 5000000 + 2000000;	/* 20 bios, 2 ms */
	p.scale_downs = 4;
	p.scale_ups = 1;
	interval(&fx, &k, &g, 1, &pk, &p, 1, 1);
	line = json_row(render(top_print_json, &rep), "/iv/loose");
	check_has(line, "\"interval\":{\"windows\":5,\"windows_missed\":2,"
		  "\"throttled_bios\":20,\"throttled_wait_mean_us\":100.0,",
		  "interval: 5 windows, 2 missed, 20 bios throttled for 100 us");
	line = json_row(render(top_print_json, &rep), "/iv");
	check_has(line, "\"scale_downs\":3,\"scale_ups\":1,",
		  "interval: the parent scaled its children down 3 times, up once");
	line = text_row(render(top_print_text, &rep), "/iv/loose");
	check(strstr(line, " 2/5") && strstr(line, " 100 "),
	      "interval: text: 2/5 windows missed, 100 us mean wait: %s", line);
	line = excerpt(render(top_print_text, &rep), "`- children's", "\n");
	check_has(line, "4 down / 1 up (3 / 1 in the interval)",
		  "interval: text: the parent's scalings in the interval");
	line = excerpt(render(top_print_prom, &rep),
		       "iolat_throttled_wait_seconds_total{device=\"4000:1\",cgroup=\"/iv/loose\"}", "\n");
	check_has(line, "} 0.007",
		  "interval: prometheus: the wait as a counter, in seconds");
	fixture_free(&fx);
}

/*
 * The interval's lowest depth and share of time limited, from the BPF
 * side's depth slots and limited-time counter: a group that went max -> 2
 * -> max -> 4 within an interval shows 2 and its share, though a refresh
 * sees depth 4 at its instant.  The last window's action and verdict, and
 * a parent's last scale with its reason.
 */
static void test_interval_depth(void)
{
	struct fixture fx = {};
	struct iolat_key k, pk;
	struct iolat_group g = { .has_window = 1, .ssd = 1, .has_depth = 1,
				 .depth = IOLAT_DEPTH_MAX };
	struct iolat_parent p = { .cookie = 1000000 };
	struct top_report rep;
	const char *out, *line;

	fixture_filter(&fx, "^/dm");
	mkcg("/dm");
	mkcg("/dm/flap");
	mkcg("/dm/debug");
	put("/dm/io.stat", "%s", iostat_line(DEV1, 4096, 1, NULL));
	put("/dm/debug/io.stat", "%s", iostat_line(DEV1, 4096, 1, "depth=3 use_delay=0"));
	scan(&fx);
	k = key(&fx, "/dm/flap", DEV1);
	pk = key(&fx, "/dm", DEV1);
	fx.m.start_ns = 9000000000ULL;
	fx.m.epoch = 0;
	fx.m.now_ns = 10000000000ULL;
	interval(&fx, &k, &g, 1, &pk, &p, 1, 1);
	/* Epoch 1: max -> 2 at 10.2 s, -> max at 10.6 s, -> 4 at 10.8 s. */
	g.depth_slot[1] = (struct iolat_depth_slot){ .epoch = 1, .start = IOLAT_DEPTH_MAX,
						     .min = 2 };
	g.limited_ns = 400000000ULL;
	g.limited_since_ns = 10800000000ULL;
	g.depth = 4;
	g.windows = 5;
	g.windows_missed = 3;
	g.last_action = IOLAT_ACT_DOWN;
	p.scale_downs = 2;
	p.cookie = 999990;
	p.last_scale = IOLAT_SCALE_DOWN;
	p.last_by = IOLAT_BY_WINDOW;
	p.has_scale = 1;
	fx.m.epoch = 1;
	fx.m.now_ns = 11000000000ULL;
	interval(&fx, &k, &g, 1, &pk, &p, 1, 1);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
	out = render(top_print_json, &rep);
	line = json_row(out, "/dm/flap");
	check(strstr(line, "\"depth\":4,") &&
	      strstr(line, "\"depth_min\":2,\"limited_pct\":60.0,\"action\":\"down\","
		     "\"verdict\":\"missed\"}"),
	      "interval depth: at 4 now, down to 2, limited 60%%, last action down (missed): %s",
	      line);
	line = json_row(out, "/dm/debug");
	check_has(line, "\"depth_min\":3,\"limited_pct\":100.0,\"action\":null",
		  "interval depth: io.stat's depth 3, no event: 3, limited throughout");
	line = json_row(out, "/dm");
	check_has(line, "\"last_scale\":\"down\",\"last_scale_by\":\"window\"",
		  "interval depth: the parent's last scale and its reason");
	line = text_row(render(top_print_text, &rep), "/dm/flap");
	check(strstr(line, " missed  down ") && strstr(line, "     4      2      60 "),
	      "interval depth: text: action down, depth 4, lowest 2, 60%% limited: %s", line);
	line = excerpt(render(top_print_text, &rep), "`- children's", "\n");
	check_has(line, ", last down by window",
		  "interval depth: text: the parent's last scale");
	out = render(top_print_prom, &rep);
	line = excerpt(out, "iolat_depth_min{device=\"4000:1\",cgroup=\"/dm/flap\"}", "\n");
	check(strstr(line, "} 2") != NULL, "interval depth: prometheus: the lowest a gauge: %s", line);
	line = excerpt(out, "iolat_depth_limited_seconds_total{device=\"4000:1\",cgroup=\"/dm/flap\"}",
		       "\n");
	check(strstr(line, "} ") && fabs(strtod(strstr(line, "} ") + 2, NULL) - 0.6) < 1e-9,
	      "interval depth: prometheus: time limited a counter, in seconds: %s", line);
	/*
	 * Epoch 2: no change; one right after the refresh bumped the epoch
	 * (4 -> 1, in epoch 3) must not count: the interval stayed at 4.
	 */
	g.depth_slot[1] = (struct iolat_depth_slot){ .epoch = 3, .start = 4, .min = 1 };
	g.depth = 1;
	fx.m.epoch = 2;
	fx.m.now_ns = 12000000000ULL;
	interval(&fx, &k, &g, 1, &pk, &p, 1, 1);
	line = json_row(render(top_print_json, &rep), "/dm/flap");
	check_has(line, "\"depth_min\":4,\"limited_pct\":100.0,\"action\":null,"
		  "\"verdict\":null}",
		  "interval depth: a change after the refresh began is the next interval's");
	fixture_free(&fx);
}

static __u64 inode_of(const char *path)
{
	char fn[8192];
	struct stat st;

	snprintf(fn, sizeof(fn), "%s%s", root, path);
	if (stat(fn, &st)) {
		perror(fn);
		exit(2);
	}
	return st.st_ino;
}

static void mv(const char *from, const char *to)
{
	char a[8192], b[8192];

	snprintf(a, sizeof(a), "%s%s", root, from);
	snprintf(b, sizeof(b), "%s%s", root, to);
	if (rename(a, b)) {
		perror(a);
		exit(2);
	}
}

/*
 * A fake of the kernel's open_by_handle_at() and /proc/self/fd for the
 * fake tree: the directory below the root with inode @id, by its
 * absolute path, as the kernel names it in this mount namespace; "/" for
 * an id of fake_outside[] (a cgroup above our namespace's root, which
 * d_path() names "/"), fake_resolve_err when set, and ENOENT (ESTALE)
 * for an id nowhere.  fake_resolved counts the calls.
 */
static __u64 fake_outside[4];
static int fake_resolve_err;
static unsigned long fake_resolved;
static __u64 ftw_id;
static char ftw_found[8192];

static int ftw_match(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_D && st->st_ino == ftw_id) {
		snprintf(ftw_found, sizeof(ftw_found), "%s", path);
		return 1;
	}
	return 0;
}

static int fake_resolve(__u64 id, char *abs, size_t size)
{
	size_t i;

	fake_resolved++;
	if (fake_resolve_err)
		return fake_resolve_err;
	for (i = 0; i < sizeof(fake_outside) / sizeof(*fake_outside); i++)
		if (fake_outside[i] && fake_outside[i] == id) {
			snprintf(abs, size, "/");
			return 0;
		}
	ftw_id = id;
	if (nftw(root, ftw_match, 16, FTW_PHYS) != 1)
		return -ENOENT;
	snprintf(abs, size, "%s", ftw_found);
	return 0;
}

/*
 * The tree follows cgroup_mkdir and cgroup_rmdir by id, without a walk.
 * cgroup_mkdir fires before the directory can be seen: the walk missed
 * such a cgroup, nothing walked again (the tree's generation had moved
 * already), and its map entries were deleted every interval.  Here the
 * directory is hidden (renamed away) when its mkdir is applied.
 */
static void test_cgroup_changes(void)
{
	struct fixture fx = {};
	struct iolat_key k;
	struct iolat_group g = { .depth = IOLAT_DEPTH_MAX };
	__u64 id, pid, cid, other;
	const char *path;
	int ret, i;
	bool kept;

	iolat_cgroup_id_resolver_set(fake_resolve);
	mkcg("/cc");
	scan(&fx);
	mkcg("/cc/new");
	put_target("/cc/new", DEV1, 2000);
	id = inode_of("/cc/new");
	mv("/cc/new", "/cc/.not-yet");
	iolat_cgroups_tick(&fx.cgs);
	ret = iolat_cgroups_mkdir(&fx.cgs, id, cgid(&fx.cgs, "/cc"), "new");
	check(ret == 0, "cgroups: mkdir before its directory is visible: pending (%d)", ret);
	/* Its map entry is no row, and stays. */
	top_model_begin(&fx.m, &fx.cgs);
	k = (struct iolat_key){ .cgroup_id = id, .dev = DEV1 };
	ret = top_model_add_entry(&fx.m, &k, &g, false, true);
	kept = iolat_cgroups_keep(&fx.cgs, id);
	check(ret == TOP_ENTRY_STALE && kept,
	      "cgroups: its map entries are kept while it is pending (%d, %s)", ret,
	      kept ? "kept" : "deleted");
	/* Visible at the next interval: added without a walk. */
	mv("/cc/.not-yet", "/cc/new");
	mkcg("/cc/no-event");	/* a walk would find it */
	ret = iolat_cgroups_tick(&fx.cgs);
	path = iolat_cgroups_path(&fx.cgs, id);
	check(ret == 1 && path && !strcmp(path, "/cc/new"),
	      "cgroups: the pending cgroup added at the next tick (%d, %s)", ret, path ?: "unknown");
	check(!iolat_cgroups_path(&fx.cgs, inode_of("/cc/no-event")),
	      "cgroups: no tree walk: a cgroup with no event is not found");
	fx.targets.n = 0;
	iolat_targets_read_one(&fx.cgs, iolat_cgroups_find(&fx.cgs, id), &fx.targets);
	check(fx.targets.n == 1 && fx.targets.v[0].us == 2000,
	      "cgroups: the new cgroup's target read (%zu)", fx.targets.n);
	/*
	 * A child's event before its parent's (the parent's came into the
	 * map while it was being read): the child is placed by its id, in
	 * our view below a parent not known yet: pending, and added once
	 * its parent is.
	 */
	mkcg("/cc/p");
	mkcg("/cc/p/c");
	pid = inode_of("/cc/p");
	cid = inode_of("/cc/p/c");
	ret = iolat_cgroups_mkdir(&fx.cgs, cid, pid, "c");
	check(ret == 0 && !fx.cgs.stale,
	      "cgroups: a child before its parent: pending, no walk asked for (%d)", ret);
	iolat_cgroups_mkdir(&fx.cgs, pid, cgid(&fx.cgs, "/cc"), "p");
	iolat_cgroups_tick(&fx.cgs);
	path = iolat_cgroups_path(&fx.cgs, cid);
	check(path && !strcmp(path, "/cc/p/c") &&
	      fx.cgs.v[iolat_cgroups_find(&fx.cgs, cid)].parent == iolat_cgroups_find(&fx.cgs, pid),
	      "cgroups: a child whose event came first, under its parent (%s)", path ?: "unknown");
	/* rmdir: gone now, its entries too; no row from its target. */
	iolat_cgroups_tick(&fx.cgs);
	iolat_cgroups_rmdir(&fx.cgs, id);
	kept = iolat_cgroups_keep(&fx.cgs, id);
	check(!iolat_cgroups_path(&fx.cgs, id) && !kept && iolat_cgroups_gone(&fx.cgs) == 1,
	      "cgroups: rmdir: unknown, its entries deleted (%s)", kept ? "kept" : "deleted");
	top_model_begin(&fx.m, &fx.cgs);
	top_model_add_targets(&fx.m, &fx.targets);
	check(fx.m.n == 0, "cgroups: a removed cgroup's target makes no row (%zu rows)", fx.m.n);
	/* An id nobody announced: kept for a few intervals, then deleted. */
	other = 0x7fffffffffULL;
	for (i = 0; i < IOLAT_CGROUP_UNKNOWN_TICKS + 1; i++) {
		kept = iolat_cgroups_keep(&fx.cgs, other);
		if (i < IOLAT_CGROUP_UNKNOWN_TICKS && !kept)
			break;
		iolat_cgroups_tick(&fx.cgs);
	}
	check(i == IOLAT_CGROUP_UNKNOWN_TICKS + 1 && !kept,
	      "cgroups: an unknown id kept %d intervals, then deleted (%d, %s)",
	      IOLAT_CGROUP_UNKNOWN_TICKS, i, kept ? "kept" : "deleted");
	/* A mkdir whose directory never shows: the tree is stale, walk it. */
	iolat_cgroups_mkdir(&fx.cgs, 0x7ffffffff0ULL, cgid(&fx.cgs, "/cc"), "never");
	for (i = 0; i < IOLAT_CGROUP_PENDING_TICKS && !fx.cgs.stale; i++)
		iolat_cgroups_tick(&fx.cgs);
	check(fx.cgs.stale, "cgroups: a cgroup that never showed up asks for a walk");
	scan(&fx);
	check(!fx.cgs.stale && iolat_cgroups_path(&fx.cgs, inode_of("/cc/no-event")) &&
	      iolat_cgroups_path(&fx.cgs, cid),
	      "cgroups: the walk finds every cgroup");
	iolat_cgroup_id_resolver_set(NULL);
	fixture_free(&fx);
}

static int mkdir_said(void *arg)
{
	const __u64 *a = arg;

	return iolat_cgroups_mkdir((struct iolat_cgroups *)(uintptr_t)a[0], a[1], a[2], "");
}

/* The host's cgroup2 mount, from /proc/self/mounts; NULL: none. */
static const char *host_cgroup2(void)
{
	static char dir[4096];
	char line[8192], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return NULL;
	*dir = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", dir, type) == 2 && !strcmp(type, "cgroup2"))
			break;
		else
			*dir = '\0';
	fclose(f);
	return *dir ? dir : NULL;
}

/*
 * Inside a cgroup namespace the cgroup2 mount shows the namespace's root
 * as "/", while the kernel's paths start at the hierarchy's root: the
 * mkdir record's path ("/outer/ns/a") was looked for at ROOT/outer/ns/a,
 * never found, and every mkdir ended in a walk of the whole tree 5
 * intervals later; cgroups outside the namespace too.  Now a new cgroup
 * is placed below its parent by id, and a parent we cannot see means
 * "outside": no walk.  The fake tree is the namespace's view.  Paths
 * past 255 bytes (the record's path was cut there) are whole, from names.
 */
static void test_cgroup_namespace(void)
{
	struct fixture fx = {};
	char lname[256], lpath[600], buf[8192], said[1024];
	struct iolat_key k, pk;
	struct iolat_group g = { .depth = 4, .has_depth = 1 };
	struct iolat_parent p = { .culprit_id = 0, .cookie = 999990 };
	__u64 id, rootid, arg[3];
	const char *path, *out;
	struct top_report rep = { .secs = 1, .rows = 100, .batch = true };
	int ret, i, err;

	iolat_cgroup_id_resolver_set(fake_resolve);
	scan(&fx);
	rootid = fx.cgs.v[0].id;
	/* A child of the namespace's root: the kernel's path would be "/outer/ns/nsa". */
	mkcg("/nsa");
	id = inode_of("/nsa");
	fake_resolved = 0;
	ret = iolat_cgroups_mkdir(&fx.cgs, id, rootid, "nsa");
	path = iolat_cgroups_path(&fx.cgs, id);
	check(ret == 1 && path && !strcmp(path, "/nsa") && !fake_resolved,
	      "namespace: a new child of our root, by its parent's id: /nsa at once, "
	      "not opened by id (%d, %s)", ret, path ?: "unknown");
	/* A cgroup outside the namespace, below a parent we do not see. */
	fake_outside[0] = 0x7f00000001ULL;
	fake_outside[1] = 0x7f00000002ULL;
	ret = iolat_cgroups_mkdir(&fx.cgs, fake_outside[1], fake_outside[0], "elsewhere");
	check(ret == IOLAT_CGROUP_ELSEWHERE && fx.cgs.npending == 0 && fake_resolved == 1,
	      "namespace: a cgroup outside our view (its parent unknown, opened by id: "
	      "outside the mount): not ours, not pending (%d, %zu pending)", ret,
	      fx.cgs.npending);
	for (i = 0; i < IOLAT_CGROUP_PENDING_TICKS + 1; i++)
		iolat_cgroups_tick(&fx.cgs);
	check(!fx.cgs.stale, "namespace: no walk asked for, %d intervals later",
	      IOLAT_CGROUP_PENDING_TICKS + 1);
	/* Removed before we looked (ESTALE): not ours either. */
	ret = iolat_cgroups_mkdir(&fx.cgs, 0x7f00000003ULL, 0x7f00000004ULL, "gone");
	check(ret == IOLAT_CGROUP_ELSEWHERE && !fx.cgs.npending,
	      "namespace: a cgroup already removed: not pending (%d)", ret);
	/* A record with no name: by its id alone, in our view. */
	mkcg("/nsa/noname");
	id = inode_of("/nsa/noname");
	ret = iolat_cgroups_mkdir(&fx.cgs, id, 0, "");
	path = iolat_cgroups_path(&fx.cgs, id);
	check(ret == 1 && path && !strcmp(path, "/nsa/noname") &&
	      fx.cgs.v[iolat_cgroups_find(&fx.cgs, id)].parent == iolat_cgroups_find(&fx.cgs, inode_of("/nsa")),
	      "namespace: a record without a name placed by its id, under its parent (%d, %s)",
	      ret, path ?: "unknown");
	/* When the kernel cannot open by id (no CAP_DAC_READ_SEARCH): outside, said once. */
	fake_resolve_err = -EPERM;
	arg[0] = (uintptr_t)&fx.cgs;
	arg[1] = 0x7f00000005ULL;
	arg[2] = 0x7f00000006ULL;
	ret = said_by(mkdir_said, arg, said, sizeof(said));
	check(ret == IOLAT_CGROUP_ELSEWHERE && strstr(said, "cannot open cgroups by id") &&
	      strstr(said, "not permitted"),
	      "namespace: opening by id refused: taken for outside, said (%d): %s", ret, said);
	arg[1]++;
	ret = said_by(mkdir_said, arg, said, sizeof(said));
	check(ret == IOLAT_CGROUP_ELSEWHERE && !*said, "namespace: ... said once (%d, '%s')",
	      ret, said);
	fake_resolve_err = 0;

	/* Names of 250 bytes: paths of 251 and 502 bytes, never cut at 255. */
	memset(lname, 'a', 250);
	lname[250] = '\0';
	snprintf(lpath, sizeof(lpath), "/%s", lname);
	mkcg(lpath);
	ret = iolat_cgroups_mkdir(&fx.cgs, inode_of(lpath), rootid, lname);
	memset(lname, 'b', 250);
	snprintf(lpath + 251, sizeof(lpath) - 251, "/%s", lname);
	mkcg(lpath);
	put_target(lpath, DEV1, 3000);
	id = inode_of(lpath);
	lpath[251] = '\0';
	pk = (struct iolat_key){ .cgroup_id = inode_of(lpath), .dev = DEV1 };
	lpath[251] = '/';
	ret = iolat_cgroups_mkdir(&fx.cgs, id, pk.cgroup_id, lname);
	path = iolat_cgroups_path(&fx.cgs, id);
	check(ret == 1 && path && strlen(path) == 502 && !strcmp(path, lpath),
	      "long paths: a 502-byte path whole (%d, %zu bytes)", ret, path ? strlen(path) : 0);
	/* Its row and a parent's culprit: by id, the whole path. */
	fx.targets.n = 0;
	iolat_targets_read(&fx.cgs, &fx.targets);
	k = (struct iolat_key){ .cgroup_id = id, .dev = DEV1 };
	p.culprit_id = id;
	err = interval(&fx, &k, &g, 1, &pk, &p, 1, 1);
	rep.m = &fx.m;
	out = render(top_print_json, &rep);
	snprintf(buf, sizeof(buf), "\"cgroup\":\"%s\"", lpath);
	check(!err && strstr(out, buf) && strstr(out, "\"target_us\":3000"),
	      "long paths: its row in JSON, the whole path and its target");
	snprintf(buf, sizeof(buf), "\"culprit\":\"%s\"", lpath);
	check(strstr(out, buf) != NULL, "long paths: the parent's culprit, by id, the whole path");
	fixture_free(&fx);

	/* The path translation of what the kernel names a cgroup by its id. */
	scan(&fx);
	mkcg("/nsa/t");
	fake_resolve_err = 0;
	err = iolat_cgroup_id_path(inode_of("/nsa/t"), buf, sizeof(buf));
	check(!err && !strcmp(buf, "/nsa/t"), "by id: ROOT/nsa/t is /nsa/t (%d, %s)", err, buf);
	err = iolat_cgroup_id_path(fx.cgs.v[0].id, buf, sizeof(buf));
	check(!err && !strcmp(buf, "/"), "by id: ROOT is / (%d, %s)", err, buf);
	fixture_free(&fx);
	iolat_cgroup_id_resolver_set(NULL);
}

/*
 * iolat-snoop's paths by id: ours, not the kernel's.  Decisions carry the
 * kernel's path, from the hierarchy's root and cut at 255 bytes; iolat-snoop
 * showed that, and for per-bio events and culprits the same learned from
 * earlier decisions.  Now the cgroup's id places it in our view, once;
 * the kernel's path only for one that cannot be placed.
 */
/* What the translation makes of the kernel's names, and the host's own cgroup2. */
static const char *resolve_as;
static int resolve_fixed(__u64 id, char *abs, size_t size)
{
	snprintf(abs, size, "%s", resolve_as);
	return 0;
}

static void test_cgroup_by_id(void)
{
	char buf[8192], fn[8300];
	__u64 id;
	const char *cg2;
	int err;

	mkcg("/byid");
	id = inode_of("/byid");
	iolat_cgroup_id_resolver_set(resolve_fixed);
	snprintf(fn, sizeof(fn), "%s2/byid", root);
	resolve_as = fn;	/* ROOT2/byid: the root's path is a prefix, not a parent */
	err = iolat_cgroup_id_path(id, buf, sizeof(buf));
	check(err == -EXDEV, "by id: ROOT2/byid is outside ROOT (%d)", err);
	resolve_as = "/";	/* above the mount: d_path() says "/" */
	err = iolat_cgroup_id_path(id, buf, sizeof(buf));
	check(err == -EXDEV, "by id: \"/\" (above the mount) is outside (%d)", err);
	snprintf(fn, sizeof(fn), "%s/byid (deleted)", root);
	resolve_as = fn;	/* removed: d_path() adds " (deleted)" */
	err = iolat_cgroup_id_path(id, buf, sizeof(buf));
	check(err == -ENOENT, "by id: a removed one is gone (%d)", err);
	snprintf(fn, sizeof(fn), "%s/r", root);
	resolve_as = fn;	/* another id there (reused name) */
	err = iolat_cgroup_id_path(id, buf, sizeof(buf));
	check(err == -ENOENT, "by id: a path whose directory has another id is no answer (%d)",
	      err);
	iolat_cgroup_id_resolver_set(NULL);

	/* The kernel's answer on the host's own cgroup2 mount: its root, and no such id. */
	cg2 = host_cgroup2();
	if (!cg2) {
		printf("skip: no cgroup2 mount on this host for open_by_handle_at()\n");
		return;
	}
	iolat_cgroup_root_set(cg2);
	{
		struct stat st;

		id = stat(cg2, &st) ? 0 : st.st_ino;
	}
	err = iolat_cgroup_id_path(id, buf, sizeof(buf));
	/* Not for want of a right answer: no handles here, or not allowed. */
	if (err == -EPERM || err == -EACCES || err == -EOPNOTSUPP || err == -ENOSYS) {
		printf("skip: open_by_handle_at() on %s: %s\n", cg2, strerror(-err));
	} else {
		check(!err && !strcmp(buf, "/"),
		      "by id, the kernel: %s's root (id %llu) is / (%d, %s)", cg2,
		      (unsigned long long)id, err, err ? "" : buf);
		err = iolat_cgroup_id_path(0x7ffffffffffULL, buf, sizeof(buf));
		check(err == -ENOENT, "by id, the kernel: an id no cgroup has: ENOENT (%d)", err);
	}
	iolat_cgroup_root_set(root);
}

/* -r cuts the rows shown, and the report says how many there were. */
static void test_truncation(void)
{
	struct fixture fx = {};
	struct top_report rep;
	const char *out, *c;
	int objects = 0;

	fixture_filter(&fx, "^/cut");
	targets_only(&fx, DEV2, (const char *const[]){ "/cut", "/cut/a", "/cut/b", NULL });
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 2, .batch = true };
	out = render(top_print_json, &rep);
	for (c = out; (c = strstr(c, "{\"device\":")); c++)
		objects++;
	check(fx.m.n == 3 && objects == 2 && strstr(out, "\"rows_total\":3,\"rows_shown\":2,"),
	      "rows: -r 2 of 3: JSON says so (%d objects): %.120s", objects, out);
	out = render(top_print_text, &rep);
	check(strstr(out, "3 rows (2 shown, -r)") != NULL,
	      "rows: -r 2 of 3: text says so: %.100s", out);
	rep.rows = 100;
	out = render(top_print_json, &rep);
	check(strstr(out, "\"rows_total\":3,\"rows_shown\":3,") != NULL,
	      "rows: all 3 shown: %.120s", out);
	fixture_free(&fx);
}

struct parse_dev_arg {
	const char *arg;
	__u32 *dev;
};

static int parse_dev_call(void *p)
{
	struct parse_dev_arg *a = p;

	return iolat_parse_dev("iolat-top", a->arg, a->dev);
}

/* iolat_parse_dev(@arg)'s status, what it said in @said, the dev in *@dev. */
static int parse_dev(const char *arg, __u32 *dev, char *said, size_t len)
{
	struct parse_dev_arg a = { .arg = arg, .dev = dev };

	return said_by(parse_dev_call, &a, said, len);
}

/*
 * -d on a partition: io.latency works on whole disks, and the events name
 * the disk, so a partition would match nothing.  Refused, naming the disk.
 * A fake /sys/dev/block: 4001:0 the disk fake0, 4001:1 its partition.
 */
static void test_dev_partition(void)
{
	char sys[8192], fn[8300], said[1024];
	__u32 dev = 0;
	int rc;

	snprintf(sys, sizeof(sys), "%s/../sys", root);
	mkdir(sys, 0755);
	snprintf(fn, sizeof(fn), "%s/devices", sys);
	mkdir(fn, 0755);
	snprintf(fn, sizeof(fn), "%s/devices/fake0", sys);
	mkdir(fn, 0755);
	snprintf(fn, sizeof(fn), "%s/devices/fake0/fake0p1", sys);
	mkdir(fn, 0755);
	snprintf(fn, sizeof(fn), "%s/devices/fake0/fake0p1/partition", sys);
	close(creat(fn, 0644));
	snprintf(fn, sizeof(fn), "%s/block", sys);
	mkdir(fn, 0755);
	snprintf(fn, sizeof(fn), "%s/block/4001:0", sys);
	symlink("../devices/fake0", fn);
	snprintf(fn, sizeof(fn), "%s/block/4001:1", sys);
	symlink("../devices/fake0/fake0p1", fn);
	snprintf(fn, sizeof(fn), "%s/block", sys);
	iolat_sys_block_set(fn);
	rc = parse_dev("4001:0", &dev, said, sizeof(said));
	check(rc == 0 && dev == IOLAT_MKDEV(4001U, 0U), "-d: a disk: ok (%d, '%s')", rc, said);
	rc = parse_dev("4001:1", &dev, said, sizeof(said));
	check(rc == IOLAT_EXIT_USAGE && strstr(said, "partition") && strstr(said, "-d fake0"),
	      "-d: a partition: exit 2, naming its disk (%d, '%s')", rc, said);
	iolat_sys_block_set(NULL);
	iolat_dev_cache_reset();
}

/* A fake kernel BTF with the events of @names (NULL-terminated). */
static struct btf *fake_btf(const char *const *names, bool v2)
{
	struct btf *btf = btf__new_empty();
	char name[64];
	int id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);

	for (; *names; names++) {
		snprintf(name, sizeof(name), "btf_trace_%s", *names);
		btf__add_typedef(btf, name, id);
	}
	if (v2) {
		btf__add_struct(btf, "iolatency_window_info", 4);
		btf__add_field(btf, "target_ns", id, 0, 0);
	}
	return btf;
}

static int preflight_call(void *btf)
{
	return iolat_preflight_btf("iolat-top", btf);
}

/* iolat_preflight_btf(@btf)'s status; what it said in @said. */
static int preflight(struct btf *btf, char *said, size_t len)
{
	int rc = said_by(preflight_call, btf, said, len);

	btf__free(btf);
	return rc;
}

/* A kernel with some of the events is as unsupported as one with none. */
static void test_preflight(void)
{
	static const char *const all[] = {
		"iolatency_window", "iolatency_target", "iolatency_enable",
		"iolatency_scale_cookie", "iolatency_scale_grp_clear",
		"iolatency_scale_reset", "iolatency_scale_skip", "iolatency_depth",
		"iolatency_throttle", "iolatency_use_delay", "iolatency_delay_charge",
		"blkcg_delay_pay", NULL,
	};
	static const char *const some[] = {
		"iolatency_window", "iolatency_target", "iolatency_enable",
		"iolatency_scale_cookie", "iolatency_depth", "iolatency_use_delay",
		NULL,
	};
	static const char *const none[] = { "block_rq_issue", NULL };
	char said[1024];
	int rc;

	rc = preflight(fake_btf(all, true), said, sizeof(said));
	check(rc == 0 && !*said, "preflight: every event: ok (%d, '%s')", rc, said);
	rc = preflight(fake_btf(none, true), said, sizeof(said));
	check(rc == IOLAT_EXIT_UNSUPPORTED && strstr(said, "no iolatency tracepoints"),
	      "preflight: no event: exit 3 (%d, '%s')", rc, said);
	rc = preflight(fake_btf(some, true), said, sizeof(said));
	check(rc == IOLAT_EXIT_UNSUPPORTED && strstr(said, "iolatency_throttle") &&
	      strstr(said, "blkcg_delay_pay") && !strstr(said, "iolatency_depth,"),
	      "preflight: 6 of 12 events: exit 3, naming the missing (%d, '%s')", rc, said);
	rc = preflight(fake_btf(all, false), said, sizeof(said));
	check(rc == IOLAT_EXIT_UNSUPPORTED && strstr(said, "older version"),
	      "preflight: the first version: exit 3 (%d, '%s')", rc, said);
}

/* The refresh clock: absolute ticks, missed ones skipped, never negative. */
static void test_ticks(void)
{
	double t0, took;
	int err;

	check(iolat_next_tick(10, 1, 10.2) == 11, "ticks: the next one");
	check(iolat_next_tick(10, 1, 11) == 12, "ticks: on a tick, the one after");
	check(iolat_next_tick(10, 1, 13.5) == 14, "ticks: a refresh of 3.5 s skips 3 (%g)",
	      iolat_next_tick(10, 1, 13.5));
	check(iolat_next_tick(10, 0.25, 10.1) == 10.25, "ticks: fractions");
	t0 = iolat_mono();
	err = iolat_sleep_until(t0 - 5);
	took = iolat_mono() - t0;
	check(!err && took < 0.05, "ticks: a tick 5 s past returns at once (%.3f s)", took);
	t0 = iolat_mono();
	err = iolat_sleep_until(t0 + 0.05);
	took = iolat_mono() - t0;
	check(!err && took >= 0.05 && took < 1, "ticks: 50 ms ahead sleeps 50 ms (%.3f s)", took);
}

/* A report to @f, flushed through the tools' output check. */
static int report_to(FILE *f)
{
	struct top_model m = {};
	struct top_report rep = { .m = &m, .secs = 1, .rows = 100, .batch = true };

	top_print_json(f, &rep);
	return iolat_flush("iolat-top", f);
}

/* Run @fn in a child; its exit status, or 128 + the signal that ended it. */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(fn());
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* A reader that went away: EPIPE, quietly, and no SIGPIPE. */
static int closed_pipe(void)
{
	int fds[2], err;
	FILE *f;

	iolat_handle_signals();
	if (pipe(fds))
		return 2;
	close(fds[0]);
	f = fdopen(fds[1], "w");
	err = report_to(f);
	return err == -EPIPE ? 0 : 1;
}

/* SIGINT twice while a long record waits in a full pipe. */
#define LONG_RECORD (256 * 1024)
static int long_record(void)
{
	static char buf[LONG_RECORD];

	memset(buf, 'x', sizeof(buf));
	iolat_handle_signals();
	fwrite(buf, 1, sizeof(buf), stdout);
	return iolat_flush("iolat-top", stdout) ? 1 : 0;
}

static void test_output_errors(void)
{
	int fds[2], status, rc;
	struct sigaction sa;
	ssize_t got, len = 0;
	char buf[65536];
	FILE *f;
	pid_t pid;

	f = fopen("/dev/full", "w");
	rc = report_to(f);
	check(rc == -ENOSPC, "output: /dev/full fails with ENOSPC and says so (%d)", rc);
	fclose(f);
	rc = in_child(closed_pipe);
	check(rc == 0, "output: a closed pipe ends quietly, no SIGPIPE (child status %d%s)",
	      rc, rc == 128 + SIGPIPE ? ": killed by SIGPIPE" : "");
	iolat_handle_signals();
	sigaction(SIGINT, NULL, &sa);
	check(sa.sa_flags & SA_RESTART, "output: SIGINT's handler has SA_RESTART");
	sigaction(SIGPIPE, NULL, &sa);
	check(sa.sa_handler == SIG_IGN, "output: SIGPIPE ignored");
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* The last record is never cut short by the signal that ends the tool. */
	if (pipe(fds))
		return;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		_exit(long_record());
	}
	close(fds[1]);
	usleep(100000);
	kill(pid, SIGINT);
	usleep(100000);
	kill(pid, SIGINT);
	usleep(100000);
	while ((got = read(fds[0], buf, sizeof(buf))) > 0)
		len += got;
	close(fds[0]);
	waitpid(pid, &status, 0);
	check(len == LONG_RECORD && WIFEXITED(status) && !WEXITSTATUS(status),
	      "output: SIGINT during a write: %zd of %d bytes written, status %d",
	      len, LONG_RECORD, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1;	/* the directory's own */
}

/* A block device this host has, from /sys/dev/block; 0 if none. */
static __u32 real_dev(void)
{
	DIR *d = opendir("/sys/dev/block");
	struct dirent *de;
	unsigned int ma, mi;
	__u32 dev = 0;

	while (d && !dev && (de = readdir(d)))
		if (sscanf(de->d_name, "%u:%u", &ma, &mi) == 2)
			dev = IOLAT_MKDEV(ma, mi);
	if (d)
		closedir(d);
	return dev;
}

/* What iolat-top decides of a map entry's device: 1 there, 0 gone, -errno. */
static int dev_state(__u32 dev)
{
	return iolat_dev_check(dev);
}

/* RLIMIT_NOFILE's soft limit raised to the hard one. */
static int raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max < 64)
		return 2;
	rl.rlim_cur = 32;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 2;
	iolat_raise_nofile();
	getrlimit(RLIMIT_NOFILE, &rl);
	printf("     RLIMIT_NOFILE soft %llu, hard %llu\n",
	       (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
	fflush(stdout);
	return rl.rlim_cur != rl.rlim_max;
}

/* With no descriptor left, a device that is there is never "gone". */
static int dev_check_emfile(void)
{
	__u32 dev = real_dev();
	struct rlimit rl;
	int fd, state;

	/* Use every descriptor up to a low limit. */
	rl.rlim_cur = rl.rlim_max = 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 2;
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		;
	iolat_dev_cache_reset();
	state = dev_state(dev);
	printf("     device %u:%u with no descriptor left: %s\n", IOLAT_MAJOR(dev),
	       IOLAT_MINOR(dev), state > 0 ? "there" : state ? strerror(-state) : "gone");
	fflush(stdout);
	return state == 0;
}

/*
 * io.stat descriptors: none kept open from one interval to the next.  A
 * device check that runs out of descriptors is an error, never "gone"
 * (iolat-top deleted map entries of devices it took for gone).
 */
static void test_descriptors(void)
{
	struct fixture fx = {};
	struct iolat_key k;
	struct iolat_group g = { .depth = IOLAT_DEPTH_MAX };
	char path[64];
	int i, before, rc;

	mkcg("/f");
	put("/f/io.stat", "%s", iostat_line(DEV1, 4096, 1, NULL));
	for (i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "/f/c%d", i);
		mkcg(path);
		snprintf(path, sizeof(path), "/f/c%d/io.stat", i);
		put(path, "%s", iostat_line(DEV1, 4096, 1, NULL));
	}
	scan(&fx);
	k = key(&fx, "/f", DEV1);
	before = open_fds();
	interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	check(row(&fx.m, DEV1, "/f/c49") != NULL, "descriptors: io.stat of 50 cgroups read");
	check(open_fds() == before, "descriptors: none kept open (%d before, %d after)",
	      before, open_fds());
	fixture_free(&fx);
	fflush(stdout);
	rc = in_child(raise_nofile);
	check(rc == 0, "descriptors: RLIMIT_NOFILE raised to the hard limit (%d)", rc);
	if (!real_dev()) {
		printf("skip: no block device on this host for the EMFILE check\n");
		return;
	}
	fflush(stdout);
	rc = in_child(dev_check_emfile);
	check(rc == 0, "descriptors: EMFILE in a device check is not \"device gone\" (%d)", rc);
}


/* Whitespace field @k (0-based) of @line, in a static buffer. */
static const char *field(const char *line, int k)
{
	static char buf[64];
	const char *s = line;
	int i, len;

	for (i = 0; *s; i++) {
		while (*s == ' ')
			s++;
		len = strcspn(s, " \n");
		if (i == k) {
			snprintf(buf, sizeof(buf), "%.*s", len, s);
			return buf;
		}
		s += len;
	}
	return "(none)";
}

/*
 * The text columns only the events fill, by their field index in a row
 * (the path has no space): ACCLAT VERDICT ACTION MINDEP LIMIT% COOKIE
 * CHG/s PAID/s WAIT/s WAITus MISSED.
 */
static const int events_only_cols[] = { 4, 6, 7, 11, 12, 13, 15, 16, 17, 18, 19 };
/* JSON keys that only the events fill: null in the io.stat mode. */
static const char *const events_only_keys[] = {
	"\"window\":null", "\"cookie\":null", "\"delay_charged_ms_per_s\":null",
	"\"delay_paid_ms_per_s\":null", "\"throttled_bios_per_s\":null",
	"\"delay_charged_ms\":null", "\"delay_paid_ms\":null", "\"throttled_bios\":null",
	"\"interval\":null",
};

/* The columns and keys of the delay charged and paid (the functions'). */
static bool delay_col(int col)
{
	return col == 15 || col == 16;
}

static bool delay_key(const char *key)
{
	return !strncmp(key, "\"delay_", 7);
}

/*
 * Every events-only cell of @path's row is unknown, never 0 or ok; with
 * @but_delay, those of the delay charged and paid aside (the functions
 * attached fill them).
 */
static void check_unknowns_but(const char *text, const char *json, const char *path,
			       const char *what, bool but_delay)
{
	char line[1024], obj[4096], bad[256] = "";
	size_t i;

	/* text_row() and json_row() share a buffer: copies */
	snprintf(line, sizeof(line), "%s", text_row(text, path));
	snprintf(obj, sizeof(obj), "%s", json_row(json, path));
	for (i = 0; i < sizeof(events_only_cols) / sizeof(*events_only_cols); i++)
		if (strcmp(field(line, events_only_cols[i]), "?") &&
		    !(but_delay && delay_col(events_only_cols[i])))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " col%d=%s",
				 events_only_cols[i], field(line, events_only_cols[i]));
	check(!*bad, "fallback %s: %s's events-only columns are '?'%s: %s", what, path,
	      bad, line);
	*bad = '\0';
	for (i = 0; i < sizeof(events_only_keys) / sizeof(*events_only_keys); i++)
		if (!strstr(obj, events_only_keys[i]) &&
		    !(but_delay && delay_key(events_only_keys[i])))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " %s",
				 events_only_keys[i]);
	check(!*bad && !strstr(obj, "\"state\":\"ok\"") && !strstr(obj, "scale_skips") &&
	      !strstr(obj, "\"windows\""),
	      "fallback %s: %s's events-only keys null (missing:%s): %s", what, path,
	      *bad ? bad : " none", obj);
}

static void check_unknowns(const char *text, const char *json, const char *path,
			   const char *what)
{
	check_unknowns_but(text, json, path, what, false);
}

/*
 * The io.stat mode (a kernel without the events, or --no-events): rows
 * from io.latency and io.stat alone.  With blkcg_debug_stats on, io.stat
 * tells depth, use_delay, the pending delay and a window figure; off, it
 * tells rates only.  PSI where io.pressure is there.  What only the
 * events tell is unknown: '?' in text, null in JSON, absent in -P.
 */
static void test_fallback(void)
{
	struct fixture fx = {};
	struct top_report rep;
	const char *text, *json, *prom;
	struct top_row *r;
	char fn[8192];
	int pass;

	mkcg("/fb");
	mkcg("/fb/tight");
	mkcg("/fb/loose");
	mkcg("/fb/rot");
	put_target("/fb/tight", DEV1, 1000);
	put("/fb/tight/io.pressure", "some avg10=12.50 avg60=3.00 avg300=1.00 total=123\n"
	    "full avg10=3.25 avg60=1.00 avg300=0.50 total=45\n");
	scan(&fx);
	fx.m.mode = TOP_MODE_IOSTAT;
	fx.m.mode_reason = "this kernel has no iolatency tracepoints";
	fx.m.debug_stats = 1;
	fx.m.start_ns = 1;
	/* Neither function can be traced: no BPF at all. */
	snprintf(fx.m.fns.why[IOLAT_FN_ADD_DELAY], sizeof(fx.m.fns.why[0]), "not in the kernel's BTF");
	snprintf(fx.m.fns.why[IOLAT_FN_THROTTLE], sizeof(fx.m.fns.why[0]),
		 "not in /proc/kallsyms (inlined)");
	for (pass = 0; pass < 2; pass++) {
		put("/fb/io.stat", "%s", iostat_line(DEV1, 8192 * (pass + 1), 3 * (pass + 1), NULL));
		put("/fb/tight/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1,
			   " missed=9 total=10 depth=max"));
		put("/fb/loose/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), 2 * (pass + 1),
			   " missed=0 total=50 depth=1 use_delay=3 delay_nsec=2000000"));
		put("/fb/rot/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1,
			   " depth=max avg_lat=2500 win=400"));
		fx.m.now_ns = 1000000000ULL * (pass + 2);
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
		top_model_add_pressure(&fx.m, fx.m.n);
	}
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true,
				   .time = 1764763200.5, .lost = 7 };
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	prom = strdup(render(top_print_prom, &rep));
	if (records)
		fputs(json, records);
	check(strstr(text, "mode: io.stat only (this kernel has no iolatency tracepoints)") &&
	      !strstr(text, "lost 7") && !strstr(text, "blkcg_debug_stats"),
	      "fallback debug on: the header says the mode and why, no lost count:\n%.300s", text);
	check(strstr(json, "\"mode\":\"iostat\",\"mode_reason\":\"this kernel has no "
		     "iolatency tracepoints\",\"debug_stats\":true") &&
	      strstr(json, "\"lost_events\":null"),
	      "fallback debug on: JSON mode, reason, debug_stats, lost_events null: %.200s", json);
	check(strstr(json, "\"functions\":{\"blkcg_add_delay\":\"not in the kernel's BTF\","
		     "\"blkcg_maybe_throttle_current\":\"not in /proc/kallsyms (inlined)\"}") &&
	      strstr(text, "  functions: blkcg_add_delay not attached: not in the kernel's BTF; "
		     "blkcg_maybe_throttle_current not attached: not in /proc/kallsyms (inlined)\n") &&
	      strstr(text, "LIMIT% COOKIE CHG/s PAID/s WAIT/s"),
	      "fallback no function: JSON and the header say why each is not attached:\n%.500s",
	      text);
	check(strstr(prom, "iolat_mode_info{mode=\"iostat\",reason=\"this kernel has no "
		     "iolatency tracepoints\"} 1\n") && strstr(prom, "iolat_debug_stats_enabled 1\n") &&
	      strstr(prom, "iolat_function_attached{function=\"blkcg_add_delay\"} 0\n") &&
	      strstr(prom, "iolat_io_pressure_some_ratio{cgroup=\"/fb/tight\"} 0.125\n") &&
	      !strstr(prom, "iolat_delay_paid_seconds_total{"),
	      "fallback no function: -P: the mode, debug stats, functions 0, PSI, no delay:\n%s",
	      prom);
	r = row(&fx.m, DEV1, "/fb/tight");
	check(r && !strcmp(r->state, "unthrottled") && r->g.has_depth &&
	      r->g.depth == IOLAT_DEPTH_MAX && r->iops == 1,
	      "fallback debug on: tight: unthrottled, depth max, 1 IOPS (%s, %g)",
	      r ? r->state : "(no row)", r ? r->iops : -1);
	check(!strcmp(field(text_row(text, "/fb/tight"), 3), "90%miss") &&
	      !strcmp(field(text_row(text, "/fb/tight"), 5), "10") &&
	      !strcmp(field(text_row(text, "/fb/tight"), 20), "12.5/3.2"),
	      "fallback debug on: tight's WINLAT 90%%miss, SAMP 10 (io.stat missed/total), "
	      "PSI 12.5/3.2: %s", text_row(text, "/fb/tight"));
	check(strstr(json_row(json, "/fb/tight"), "\"io_pressure_some_pct\":12.50,"
		     "\"io_pressure_full_pct\":3.25,\"iostat_debug\":{\"delay_ms\":0.000,"
		     "\"avg_lat_us\":null,\"win_ms\":null,\"missed\":9,\"total\":10}") != NULL,
	      "fallback debug on: tight's PSI and io.stat debug keys: %s",
	      json_row(json, "/fb/tight"));
	check(strstr(json_row(json, "/fb/loose"), "\"depth\":1,\"cookie\":null,"
		     "\"state\":\"delayed\",\"use_delay\":3") &&
	      strstr(json_row(json, "/fb/loose"), "\"io_pressure_some_pct\":null") &&
	      strstr(json_row(json, "/fb/loose"), "\"delay_ms\":2.000"),
	      "fallback debug on: loose: depth 1, delayed, use_delay 3, 2 ms pending, no PSI: %s",
	      json_row(json, "/fb/loose"));
	check(!strcmp(field(text_row(text, "/fb/rot"), 3), "2500us") &&
	      !strcmp(field(text_row(text, "/fb/rot"), 5), "?"),
	      "fallback debug on: rot's WINLAT is io.stat's avg_lat, SAMP unknown: %s",
	      text_row(text, "/fb/rot"));
	check_unknowns(text, json, "/fb/tight", "debug on");
	check_unknowns(text, json, "/fb/loose", "debug on");
	check(strstr(prom, "iolat_depth{device=\"4000:1\",cgroup=\"/fb/loose\"} 1\n") &&
	      strstr(prom, "iolat_use_delay{device=\"4000:1\",cgroup=\"/fb/loose\"} 3\n") &&
	      !strstr(prom, "iolat_windows_total{") && !strstr(prom, "iolat_depth_limited_seconds_total{") &&
	      !strstr(prom, "iolat_delay_charged_seconds_total{") &&
	      !strstr(prom, "iolat_throttled_bios_total{") && !strstr(prom, "iolat_depth_min{") &&
	      !strstr(prom, "iolat_scale_cookie{") && !strstr(prom, "iolat_lost_events_total"),
	      "fallback debug on: -P has depth and use_delay, not the events' metrics");
	free((void *)text);
	free((void *)json);
	free((void *)prom);

	/* Debug stats off, no PSI anywhere: rates only. */
	snprintf(fn, sizeof(fn), "%s/fb/tight/io.pressure", root);
	unlink(fn);
	fx.m.debug_stats = 0;
	fx.m.mode_reason = "--no-events";
	for (pass = 2; pass < 4; pass++) {
		put("/fb/tight/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1, NULL));
		put("/fb/loose/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), 2 * (pass + 1), NULL));
		put("/fb/rot/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1, NULL));
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
		top_model_add_pressure(&fx.m, fx.m.n);
	}
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	prom = strdup(render(top_print_prom, &rep));
	if (records)
		fputs(json, records);
	check(strstr(text, "mode: io.stat only (--no-events)") &&
	      strstr(text, "blkcg_debug_stats off: ") &&
	      strstr(text, "echo 1 > /sys/module/blk_cgroup/parameters/blkcg_debug_stats"),
	      "fallback debug off: the header says so, and how to turn it on:\n%.400s", text);
	r = row(&fx.m, DEV1, "/fb/loose");
	check(r && !strcmp(r->state, "unknown") && !r->g.has_depth && r->iops == 2,
	      "fallback debug off: loose: state unknown, depth unknown, 2 IOPS (%s)",
	      r ? r->state : "(no row)");
	check(!strcmp(field(text_row(text, "/fb/loose"), 3), "?") &&
	      !strcmp(field(text_row(text, "/fb/loose"), 5), "?") &&
	      !strcmp(field(text_row(text, "/fb/loose"), 10), "?") &&
	      !strcmp(field(text_row(text, "/fb/loose"), 20), "?") &&
	      !strcmp(field(text_row(text, "/fb/loose"), 8), "2"),
	      "fallback debug off: WINLAT SAMP DEPTH PSI '?', IOPS 2: %s",
	      text_row(text, "/fb/loose"));
	check(strstr(json_row(json, "/fb/loose"), "\"depth\":null,\"cookie\":null,"
		     "\"state\":\"unknown\",\"use_delay\":null") &&
	      strstr(json_row(json, "/fb/loose"), "\"io_pressure_some_pct\":null,"
		     "\"io_pressure_full_pct\":null,\"iostat_debug\":null") &&
	      strstr(json, "\"debug_stats\":false"),
	      "fallback debug off: depth, use_delay, PSI, io.stat debug null: %s",
	      json_row(json, "/fb/loose"));
	check_unknowns(text, json, "/fb/tight", "debug off");
	check_unknowns(text, json, "/fb/loose", "debug off");
	check(!strstr(prom, "iolat_depth{device=\"4000:1\",cgroup=\"/fb/") &&
	      !strstr(prom, "iolat_use_delay{device=\"4000:1\",cgroup=\"/fb/") &&
	      strstr(prom, "iolat_target_seconds{device=\"4000:1\",cgroup=\"/fb/tight\"} 0.001"),
	      "fallback debug off: -P has the target, no depth or use_delay:\n%s", prom);
	free((void *)text);
	free((void *)json);
	free((void *)prom);
	fixture_free(&fx);
}

/*
 * The tree scanned, @filter's cgroups kept, the io.stat mode of
 * --no-events with debug stats off and the state sampled every 100 ms.
 */
static void fixture_sampled(struct fixture *fx, const char *filter)
{
	scan(fx);
	fixture_filter(fx, filter);
	fx->m.mode = TOP_MODE_IOSTAT;
	fx->m.mode_reason = "--no-events";
	fx->m.debug_stats = 0;
	fx->m.sample_ms = 100;
}

/* A record of the state reader's sample: @path's group on @dev. */
static struct iolat_state sample_rec(const struct fixture *fx, const char *path, __u32 dev,
				     __u32 depth, __u32 cookie)
{
	return (struct iolat_state){
		.cgroup_id = path ? cgid(&fx->cgs, path) : 987654321,	/* none */
		.dev = dev,
		.flags = IOLAT_STATE_SSD | IOLAT_STATE_ONLINE,
		.depth = depth,
		.cookie = cookie,
		.win_ns = 100000000,
		.children = { .cookie = TOP_DEFAULT_COOKIE },
	};
}

/*
 * One io.stat-mode interval: the fallback's map entries @d of @k (@nd),
 * the state reader's @ns records @s (NULL: no sample), then io.stat.
 */
static int interval_iostat(struct fixture *fx, const struct iolat_key *k,
			   const struct iolat_delay *d, int nd,
			   const struct iolat_state *s, size_t ns, double secs)
{
	int i, err;

	top_model_begin(&fx->m, &fx->cgs);
	err = top_model_add_targets(&fx->m, &fx->targets);
	if (!err && s)
		err = top_model_add_state(&fx->m, s, ns);
	for (i = 0; !err && i < nd; i++)
		err = top_model_add_delay(&fx->m, &k[i], &d[i], true) != TOP_ENTRY_ROW;
	if (!err)
		err = top_model_add_io(&fx->m);
	if (!err)
		err = top_model_compute(&fx->m, secs);
	top_model_sort(&fx->m, TOP_SORT_PATH);
	top_model_add_pressure(&fx->m, fx->m.n);
	return err;
}

/* One io.stat-mode interval with the state reader's @n records @s. */
static int interval_sample(struct fixture *fx, const struct iolat_state *s, size_t n,
			   double secs)
{
	return interval_iostat(fx, NULL, NULL, 0, s, n, secs);
}

/*
 * The io.stat mode with the state reader (a stock kernel with BTF and
 * its data symbols in kallsyms): canned records of a throttled pair as
 * the walk reads them, blkcg_debug_stats off.  DEPTH, use_delay, COOKIE,
 * STATE (throttling and ok known), ACCLAT (the accumulated statistic),
 * WINLAT's running average on a rotational queue, and the parent's
 * culprit, named on its line, first with it by state; a culprit gone or
 * unknown said as such; the rows of throttled groups and scaled parents
 * made as map entries make them; MINDEP and LIMIT% over the two
 * refreshes' samples.  What a sample cannot tell (windows, scalings,
 * waits) stays unknown, never 0.  Then the same tree with no sample
 * (--no-state): unknown again.
 */
static void test_fallback_sample(void)
{
	struct fixture fx = {};
	struct iolat_state st[8];
	struct top_report rep;
	const char *text, *json, *prom;
	char line[1024], obj[4096], bad[256] = "";
	struct top_row *r;
	size_t n = 0, i;
	int pass, err = 0;
	/* VERDICT ACTION CHG/s PAID/s WAIT/s WAITus MISSED */
	static const int unknown_cols[] = { 6, 7, 15, 16, 17, 18, 19 };

	mkcg("/smp");
	mkcg("/smp/tight");
	mkcg("/smp/loose");
	mkcg("/smp/rot");
	mkcg("/smp2");
	mkcg("/smp2/a");
	mkcg("/smp3");
	put_target("/smp/tight", DEV1, 1000);
	put_target("/smp2/a", DEV1, 5000);
	fixture_sampled(&fx, "^/smp");
	/* The hierarchy's root, unscaled: no row of its own. */
	st[n++] = sample_rec(&fx, "/", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	/* The parent, its children scaled for tight (resolved: its id). */
	st[n] = sample_rec(&fx, "/smp", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	st[n].flags |= IOLAT_STATE_CULPRIT;
	st[n].children = (struct iolat_state_children){ .cookie = 999990,
		.scale_lat_ns = 1000000, .culprit_id = cgid(&fx.cgs, "/smp/tight") };
	n++;
	/* tight: 18 of its 20 accumulated bios over target. */
	st[n] = sample_rec(&fx, "/smp/tight", DEV1, IOLAT_DEPTH_MAX, 999990);
	st[n].target_ns = 1000000;
	st[n].cur_samples = 20;
	st[n].cur_missed = 18;
	n++;
	/* loose: held at depth 1, delayed, nothing accumulated. */
	st[n] = sample_rec(&fx, "/smp/loose", DEV1, 1, 999990);
	st[n].use_delay = 2;
	st[n].delay_ns = 3000000;
	st[n].inflight = 1;
	n++;
	/* rot: a rotational queue's group, its running average and mean. */
	st[n] = sample_rec(&fx, "/smp/rot", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	st[n].flags = IOLAT_STATE_ONLINE;
	st[n].lat_avg_ns = 2500000;
	st[n].cur_samples = 4;
	st[n].cur_mean_ns = 3000000;
	n++;
	/* /st2's culprit freed (stale), /st3's not told (the walk dropped some). */
	st[n] = sample_rec(&fx, "/smp2", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	st[n].flags |= IOLAT_STATE_CULPRIT | IOLAT_STATE_CULPRIT_STALE;
	st[n].children = (struct iolat_state_children){ .cookie = 999995,
		.scale_lat_ns = 5000000 };
	n++;
	st[n] = sample_rec(&fx, "/smp3", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	st[n].flags |= IOLAT_STATE_CULPRIT | IOLAT_STATE_CULPRIT_UNKNOWN;
	st[n].children = (struct iolat_state_children){ .cookie = 999998,
		.scale_lat_ns = 2000000 };
	n++;
	/* A throttled group of a cgroup the tree does not know: no row. */
	st[n++] = sample_rec(&fx, NULL, DEV1, 2, 999990);
	for (pass = 0; pass < 2; pass++) {
		/* a parent's io.stat counts its children's IO */
		put("/smp/io.stat", "%s", iostat_line(DEV1, 16384 * (pass + 1), 4 * (pass + 1), NULL));
		put("/smp/tight/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1, NULL));
		put("/smp/loose/io.stat", "%s", iostat_line(DEV1, 8192 * (pass + 1), 2 * (pass + 1), NULL));
		put("/smp/rot/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1, NULL));
		err |= interval_sample(&fx, st, n, 1);
	}
	check(!err && fx.m.n == 7 && row(&fx.m, DEV1, "/smp2") && row(&fx.m, DEV1, "/smp3") &&
	      row(&fx.m, DEV1, "/smp/rot") && !row(&fx.m, DEV1, "/"),
	      "sample: rows of the targets, the IO, the scaled parents; none for the "
	      "unscaled root or an unknown cgroup (%zu rows)", fx.m.n);
	top_model_sort_first(&fx.m, TOP_SORT_STATE, 0);
	check(fx.m.n > 2 && !strcmp(fx.m.v[0].path, "/smp") &&
	      !strcmp(fx.m.v[1].path, "/smp/tight") && top_row_grouped(&fx.m, 1) &&
	      fx.m.v[1].culprit && !strcmp(fx.m.v[1].state, "throttling"),
	      "sample: by state, the parent first, then the culprit its line names, "
	      "throttling (%s, %s)", fx.m.n ? fx.m.v[0].path : "-",
	      fx.m.n > 1 ? fx.m.v[1].path : "-");
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true,
				   .time = 1764763200.5 };
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	prom = strdup(render(top_print_prom, &rep));
	if (records)
		fputs(json, records);
	check(strstr(text, "mode: io.stat + state (--no-events)\n") &&
	      strstr(text, "  blkcg_debug_stats off: io.stat's window in progress unknown "
		     "(WINLAT and SAMP on non-rotational queues)") &&
	      strstr(text, "  without the events: VERDICT ACTION CHG/s PAID/s "
		     "WAIT/s WAITus MISSED unknown (?); DEPTH ACCLAT COOKIE and culprits as "
		     "sampled at the refresh, MINDEP LIMIT% over samples every 100 ms at most\n"),
	      "sample: the header says the state is sampled, and what stays unknown:\n%.700s",
	      text);
	check(strstr(text, "   `- children's cookie 999990 (-10), scaled for /smp/tight, "
		     "? down / ? up\n") &&
	      strstr(text, "   `- children's cookie 999995 (-5), scaled for a group gone, "
		     "? down / ? up\n") &&
	      strstr(text, "   `- children's cookie 999998 (-2), scaled for a group the walk "
		     "left out, ? down / ? up\n"),
	      "sample: the parents' lines name the culprit, gone or unknown, no counts:\n%s",
	      text);
	snprintf(line, sizeof(line), "%s", text_row(text, "/smp/tight"));
	check(!strcmp(field(line, 4), "90%miss") && !strcmp(field(line, 10), "max") &&
	      !strcmp(field(line, 13), "999990") && !strcmp(field(line, 14), "throttling") &&
	      !strcmp(field(line, 3), "?") && !strcmp(field(line, 5), "?"),
	      "sample: tight's ACCLAT 90%%miss, DEPTH max, COOKIE, throttling; WINLAT, "
	      "SAMP unknown: %s", line);
	snprintf(line, sizeof(line), "%s", text_row(text, "/smp/loose"));
	check(!strcmp(field(line, 4), "-") && !strcmp(field(line, 10), "1") &&
	      !strcmp(field(line, 13), "999990") && !strcmp(field(line, 14), "delayed") &&
	      !strcmp(field(line, 11), "1") && !strcmp(field(line, 12), "100"),
	      "sample: loose's ACCLAT - (nothing accumulated), DEPTH 1, COOKIE, delayed, "
	      "MINDEP 1 and LIMIT%% 100 over both refreshes' samples: %s", line);
	for (i = 0; i < sizeof(unknown_cols) / sizeof(*unknown_cols); i++)
		if (strcmp(field(line, unknown_cols[i]), "?"))
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), " col%d=%s",
				 unknown_cols[i], field(line, unknown_cols[i]));
	check(!*bad, "sample: what a sample cannot tell is '?'%s: %s", bad, line);
	snprintf(line, sizeof(line), "%s", text_row(text, "/smp/rot"));
	check(!strcmp(field(line, 3), "2500us") && !strcmp(field(line, 4), "3000us") &&
	      !strcmp(field(line, 14), "ok"),
	      "sample: rot's WINLAT the running average, ACCLAT the mean, ok: %s", line);
	check(strstr(json, "\"functions\":{\"blkcg_add_delay\":\"not attached\","
		     "\"blkcg_maybe_throttle_current\":\"not attached\"},\"state_reader\":\"used\","
		     "\"sample_ms\":100,") != NULL,
	      "sample: JSON's state_reader used: %.300s", json);
	snprintf(obj, sizeof(obj), "%s", json_row(json, "/smp/loose"));
	check(strstr(obj, "\"depth\":1,\"cookie\":999990,\"state\":\"delayed\",\"use_delay\":2,") &&
	      strstr(obj, "\"iostat_debug\":null,\"sample\":{\"inflight\":1,\"delay_ms\":3.000,"
		     "\"win_ms\":100,\"lat_avg_us\":null,\"acc_samples\":0,\"acc_missed\":0,"
		     "\"acc_mean_us\":null,\"interval\":{\"samples\":2,\"depth_min\":1,"
		     "\"limited_pct\":100.0}},\"interval\":null") &&
	      strstr(obj, "\"window\":null") && strstr(obj, "\"throttled_bios\":null") &&
	      strstr(obj, "\"delay_charged_ms\":null") && !strstr(obj, "scale_skips"),
	      "sample: loose's depth, cookie, use_delay, its sample; no window or counter: %s",
	      obj);
	snprintf(obj, sizeof(obj), "%s", json_row(json, "/smp/rot"));
	check(strstr(obj, "\"sample\":{\"inflight\":0,\"delay_ms\":0.000,\"win_ms\":100,"
		     "\"lat_avg_us\":2500,\"acc_samples\":4,\"acc_missed\":null,"
		     "\"acc_mean_us\":3000,\"interval\":{\"samples\":2,\"depth_min\":\"max\","
		     "\"limited_pct\":0.0}}") != NULL,
	      "sample: rot's running average and accumulated mean: %s", obj);
	snprintf(obj, sizeof(obj), "%s", json_row(json, "/smp"));
	snprintf(line, sizeof(line), "\"children\":{\"cookie\":999990,\"culprit\":\"/smp/tight\","
		 "\"culprit_id\":%llu,\"scale_lat_us\":1000,\"culprit_status\":\"named\","
		 "\"scale_downs\":null,\"scale_ups\":null,\"timer_ups\":null,"
		 "\"culprits_forgotten\":null,\"resets\":null,\"last_scale\":null,"
		 "\"last_scale_by\":null}",
		 (unsigned long long)cgid(&fx.cgs, "/smp/tight"));
	check(strstr(obj, line) != NULL,
	      "sample: the parent's children: cookie, culprit, its id and target; counts null: %s",
	      obj);
	check(strstr(json_row(json, "/smp2"), "\"children\":{\"cookie\":999995,\"culprit\":null,"
		     "\"culprit_id\":null,\"scale_lat_us\":5000,\"culprit_status\":\"gone\",") &&
	      strstr(json_row(json, "/smp3"), "\"culprit_id\":null,\"scale_lat_us\":2000,"
		     "\"culprit_status\":\"unknown\","),
	      "sample: a culprit gone and one unknown: no id, the target, which: %s",
	      json_row(json, "/smp2"));
	check(strstr(prom, "iolat_state_sampled 1\n") &&
	      strstr(prom, "iolat_scale_cookie{device=\"4000:1\",cgroup=\"/smp/tight\"} 999990\n") &&
	      strstr(prom, "iolat_children_scale_cookie{device=\"4000:1\",cgroup=\"/smp\"} 999990\n") &&
	      strstr(prom, "iolat_depth{device=\"4000:1\",cgroup=\"/smp/loose\"} 1\n") &&
	      strstr(prom, "iolat_use_delay{device=\"4000:1\",cgroup=\"/smp/loose\"} 2\n") &&
	      !strstr(prom, "iolat_scale_downs_total{") && !strstr(prom, "iolat_windows_total{") &&
	      !strstr(prom, "iolat_depth_min{") && !strstr(prom, "iolat_depth_limited_seconds_total{"),
	      "sample: -P has depth, use_delay, cookies; no counts, nothing of the interval:\n%s",
	      prom);
	free((void *)text);
	free((void *)json);
	free((void *)prom);

	/* No sample (--no-state): as the io.stat mode was before the reader. */
	fx.m.state_why = "off (--no-state)";
	err = interval_sample(&fx, NULL, 0, 1);
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	prom = strdup(render(top_print_prom, &rep));
	if (records)
		fputs(json, records);
	r = row(&fx.m, DEV1, "/smp/loose");
	check(!err && row(&fx.m, DEV1, "/smp") && !row(&fx.m, DEV1, "/smp")->has_parent &&
	      !row(&fx.m, DEV1, "/smp2") && r && !r->st && !r->g.has_depth &&
	      !strcmp(r->state, "unknown") && strstr(text, "mode: io.stat only (--no-events)\n") &&
	      strstr(json, "\"state_reader\":\"off (--no-state)\",") &&
	      strstr(prom, "iolat_state_sampled 0\n"),
	      "no sample: no parent's children, no row of a parent without IO, loose unknown, said in the header, JSON and -P");
	check_unknowns(text, json, "/smp/tight", "no sample");
	check_unknowns(text, json, "/smp/loose", "no sample");
	check(strstr(json_row(json, "/smp/loose"), "\"sample\":null") != NULL,
	      "no sample: loose's sample null: %s", json_row(json, "/smp/loose"));
	free((void *)text);
	free((void *)json);
	free((void *)prom);
	fixture_free(&fx);
}

/*
 * The state sampled between refreshes: MINDEP and LIMIT% over the
 * interval's samples, the refreshes' at both ends among them.  loose is
 * at max at both refreshes and limited at three of the four samples
 * between, 1 at its lowest: a row (as a depth event would make one),
 * MINDEP 1, LIMIT% 50 (3 of 6).  The next interval starts from the
 * refresh's sample: no sample between, max at both ends, 0%.  Fewer than
 * two samples (a refresh without one): unknown.
 */
static void test_sample_between(void)
{
	struct fixture fx = {};
	struct iolat_state st[3], mid[3];
	struct top_report rep;
	const char *text, *json;
	char line[1024];
	struct top_row *r;
	static const __u32 depths[] = { 4, 1, IOLAT_DEPTH_MAX, 2 };
	size_t i;
	int err;

	mkcg("/btw");
	mkcg("/btw/tight");
	mkcg("/btw/loose");
	put_target("/btw/tight", DEV1, 1000);
	fixture_sampled(&fx, "^/btw");
	st[0] = sample_rec(&fx, "/btw", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	st[1] = sample_rec(&fx, "/btw/tight", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	st[2] = sample_rec(&fx, "/btw/loose", DEV1, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
	memcpy(mid, st, sizeof(mid));
	err = interval_sample(&fx, st, 3, 1);
	for (i = 0; i < sizeof(depths) / sizeof(*depths); i++) {
		mid[2].depth = depths[i];
		err |= top_model_add_between(&fx.m, mid, 3);
	}
	err |= interval_sample(&fx, st, 3, 1);
	r = row(&fx.m, DEV1, "/btw/loose");
	check(!err && r && r->sampled_in.samples == 6 && r->sampled_in.depth_min == 1 &&
	      r->sampled_in.limited_share == 0.5,
	      "between: loose over 6 samples (2 refreshes, 4 between), lowest 1, 3 limited: "
	      "%u samples, lowest %u, share %.2f", r ? r->sampled_in.samples : 0,
	      r ? r->sampled_in.depth_min : 0, r ? r->sampled_in.limited_share : -1);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true,
				   .time = 1764763200.5 };
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	snprintf(line, sizeof(line), "%s", text_row(text, "/btw/loose"));
	check(!strcmp(field(line, 10), "max") && !strcmp(field(line, 11), "1") &&
	      !strcmp(field(line, 12), "50"),
	      "between: loose's DEPTH max now, MINDEP 1, LIMIT%% 50: %s", line);
	check(strstr(json_row(json, "/btw/loose"), "\"interval\":{\"samples\":6,\"depth_min\":1,"
		     "\"limited_pct\":50.0}") != NULL,
	      "between: loose's sample's interval in JSON: %s", json_row(json, "/btw/loose"));
	snprintf(line, sizeof(line), "%s", text_row(text, "/btw/tight"));
	check(!strcmp(field(line, 11), "max") && !strcmp(field(line, 12), "0"),
	      "between: tight never limited, MINDEP max, LIMIT%% 0: %s", line);
	free((void *)text);
	free((void *)json);

	/* The next interval: the refresh's sample and the next, no more. */
	put_target("/btw/loose", DEV1, 10000);	/* a row of its own from now on */
	err = iolat_targets_read(&fx.cgs, &fx.targets);
	err |= interval_sample(&fx, st, 3, 1);
	r = row(&fx.m, DEV1, "/btw/loose");
	check(!err && r && r->sampled_in.samples == 2 &&
	      r->sampled_in.depth_min == IOLAT_DEPTH_MAX && r->sampled_in.limited_share == 0,
	      "between: the next interval from the refresh on: 2 samples at max, %u samples",
	      r ? r->sampled_in.samples : 0);
	/* A refresh without a sample, then one with: one sample, unknown. */
	err = interval_sample(&fx, NULL, 0, 1);
	err |= interval_sample(&fx, st, 3, 1);
	text = strdup(render(top_print_text, &rep));
	snprintf(line, sizeof(line), "%s", text_row(text, "/btw/loose"));
	check(!err && !strcmp(field(line, 11), "?") && !strcmp(field(line, 12), "?") &&
	      strstr(render(top_print_json, &rep), "\"interval\":null}") != NULL,
	      "between: one sample in the interval: MINDEP and LIMIT%% unknown: %s", line);
	free((void *)text);
	fixture_free(&fx);
}

/* One io.stat-mode interval with the fallback's map entries @d of @k. */
static int interval_fb(struct fixture *fx, const struct iolat_key *k,
		       const struct iolat_delay *d, int n, double secs)
{
	return interval_iostat(fx, k, d, n, NULL, 0, secs);
}

/*
 * The io.stat mode with the controller's functions attached: the delay
 * charged (blkcg_add_delay) and slept (blkcg_maybe_throttle_current)
 * fill CHG/s, PAID/s and their JSON keys and metrics; a row with no
 * entry of theirs shows 0, not unknown; what the events alone tell stays
 * unknown.  With one function attached, the other's column is unknown.
 */
static void test_fallback_functions(void)
{
	struct fixture fx = {};
	struct iolat_key k[2], gone;
	struct iolat_delay d[2] = {
		{ .charged_ns = 10000000, .charges = 4, .paid_ns = 4000000, .pays = 2 },
		{ .paid_ns = 250000000, .pays = 1 },
	};
	struct top_report rep;
	const char *text, *json, *prom;
	char line[1024];
	int pass, ret;

	mkcg("/fn");
	mkcg("/fn/tight");
	mkcg("/fn/loose");
	mkcg("/fn/sleeper");
	/* tight on two devices: its PSI, a cgroup's, is one series */
	put("/fn/tight/io.latency", "4000:1 target=1000\n4000:2 target=1000\n");
	put("/fn/tight/io.pressure", "some avg10=12.50 avg60=3.00 avg300=1.00 total=123\n"
	    "full avg10=3.25 avg60=1.00 avg300=0.50 total=45\n");
	put_target("/fn/loose", DEV1, 10000);
	scan(&fx);
	fixture_filter(&fx, "^/fn");
	fx.m.mode = TOP_MODE_IOSTAT;
	fx.m.mode_reason = "this kernel has no iolatency tracepoints";
	fx.m.debug_stats = 0;
	fx.m.fns.attached[IOLAT_FN_ADD_DELAY] = true;
	fx.m.fns.attached[IOLAT_FN_THROTTLE] = true;
	k[0] = key(&fx, "/fn/loose", DEV1);
	k[1] = key(&fx, "/fn/sleeper", DEV1);
	for (pass = 0; pass < 2; pass++) {
		put("/fn/tight/io.stat", "%s", iostat_line(DEV1, 4096 * (pass + 1), pass + 1, NULL));
		put("/fn/loose/io.stat", "%s", iostat_line(DEV1, 8192 * (pass + 1), 2 * (pass + 1), NULL));
		interval_fb(&fx, k, d, 2, 1);
		d[0].charged_ns += 20000000;	/* 20 ms charged, 10 ms slept in a second */
		d[0].paid_ns += 10000000;
		d[0].charges += 8;
		d[0].pays += 1;
	}
	d[0].charged_ns -= 20000000;
	d[0].paid_ns -= 10000000;
	/* A cgroup gone: its entry is stale. */
	gone = (struct iolat_key){ .cgroup_id = 987654321, .dev = DEV1 };
	ret = top_model_add_delay(&fx.m, &gone, &d[0], true);
	check(ret == TOP_ENTRY_STALE, "fallback functions: an entry of a cgroup gone is stale (%d)",
	      ret);
	interval_fb(&fx, k, d, 2, 1);	/* the report's: nothing new in it */
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true,
				   .time = 1764763200.5, .lost = 2 };
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	prom = strdup(render(top_print_prom, &rep));
	if (records)
		fputs(json, records);
	check(strstr(text, "lost 2 events  mode: io.stat + functions (this kernel has no "
		     "iolatency tracepoints)\n  functions: blkcg_add_delay attached; "
		     "blkcg_maybe_throttle_current attached\n") &&
	      strstr(text, "without the events: ACCLAT VERDICT ACTION MINDEP LIMIT% COOKIE "
		     "WAIT/s WAITus MISSED and culprits unknown (?)\n"),
	      "fallback functions: the header names the functions, CHG/s PAID/s not unknown:\n%.600s",
	      text);
	check(strstr(json, "\"debug_stats\":false,\"cgroupns\":false,\"functions\":{\"blkcg_add_delay\":\"attached\","
		     "\"blkcg_maybe_throttle_current\":\"attached\"},\"state_reader\":\"not read\","
		     "\"sample_ms\":null,\"interval_s\":1.000,\"lost_events\":2,") != NULL,
	      "fallback functions: JSON functions attached, lost_events counted: %.300s", json);
	check(strstr(json_row(json, "/fn/loose"), "\"delay_charged_ms_per_s\":0.000,"
		     "\"delay_paid_ms_per_s\":0.000,\"throttled_bios_per_s\":null,"
		     "\"delay_charged_ms\":30.000,\"delay_paid_ms\":14.000,\"throttled_bios\":null") != NULL,
	      "fallback functions: loose's counters, rates over an interval with none: %s",
	      json_row(json, "/fn/loose"));
	check(strstr(json_row(json, "/fn/tight"), "\"delay_charged_ms\":0.000,"
		     "\"delay_paid_ms\":0.000,\"throttled_bios\":null") != NULL,
	      "fallback functions: tight, no entry: 0 charged and paid, not null: %s",
	      json_row(json, "/fn/tight"));
	check(strstr(json_row(json, "/fn/sleeper"), "\"delay_charged_ms\":0.000,"
		     "\"delay_paid_ms\":250.000") != NULL,
	      "fallback functions: a cgroup with nothing but a sleep has its row: %s",
	      json_row(json, "/fn/sleeper"));
	check_unknowns_but(text, json, "/fn/loose", "functions attached", true);
	check(strstr(prom, "iolat_delay_charged_seconds_total{device=\"4000:1\",cgroup=\"/fn/loose\"} 0.03\n") &&
	      strstr(prom, "iolat_delay_paid_seconds_total{device=\"4000:1\",cgroup=\"/fn/tight\"} 0\n") &&
	      strstr(prom, "iolat_function_attached{function=\"blkcg_add_delay\"} 1\n") &&
	      strstr(prom, "iolat_function_attached{function=\"blkcg_maybe_throttle_current\"} 1\n") &&
	      strstr(prom, "iolat_mode_info{mode=\"iostat\",reason=\"this kernel has no iolatency "
		     "tracepoints\"} 1\n") && strstr(prom, "iolat_debug_stats_enabled 0\n") &&
	      strstr(prom, "\niolat_lost_events_total 2\n") &&
	      !strstr(prom, "iolat_throttled_bios_total{") && !strstr(prom, "iolat_windows_total{"),
	      "fallback functions: -P has the delay counters, the functions, the mode, lost:\n%s",
	      prom);
	{
		const char *a = strstr(prom, "iolat_io_pressure_some_ratio{cgroup=\"/fn/tight\"} 0.125\n");

		check(a && !strstr(a + 1, "iolat_io_pressure_some_ratio{cgroup=\"/fn/tight\"}") &&
		      strstr(prom, "iolat_io_pressure_full_ratio{cgroup=\"/fn/tight\"} 0.0325") &&
		      strstr(prom, "iolat_target_seconds{device=\"4000:2\",cgroup=\"/fn/tight\"}") &&
		      !strstr(prom, "iolat_io_pressure_some_ratio{cgroup=\"/fn/loose\"}"),
		      "-P: PSI avg10 as a ratio, once per cgroup (two devices), none without it");
	}
	free((void *)text);
	free((void *)json);
	free((void *)prom);

	/* Sleeps inlined: PAID/s and delay_paid_ms unknown, and said why. */
	fx.m.fns.attached[IOLAT_FN_THROTTLE] = false;
	snprintf(fx.m.fns.why[IOLAT_FN_THROTTLE], sizeof(fx.m.fns.why[0]),
		 "not in /proc/kallsyms (inlined)");
	interval_fb(&fx, k, d, 1, 1);
	d[0].charged_ns += 5000000;
	interval_fb(&fx, k, d, 1, 1);
	text = strdup(render(top_print_text, &rep));
	json = strdup(render(top_print_json, &rep));
	prom = strdup(render(top_print_prom, &rep));
	if (records)
		fputs(json, records);
	snprintf(line, sizeof(line), "%s", text_row(text, "/fn/loose"));
	check(strstr(text, "functions: blkcg_add_delay attached; blkcg_maybe_throttle_current "
		     "not attached: not in /proc/kallsyms (inlined)\n") &&
	      strstr(text, "LIMIT% COOKIE PAID/s WAIT/s") &&
	      !strcmp(field(line, 15), "5.0") && !strcmp(field(line, 16), "?") &&
	      !strcmp(field(line, 17), "?"),
	      "fallback one function: CHG/s 5.0, PAID/s and WAIT/s unknown, said why: %s\n%.500s",
	      line, text);
	check(strstr(json, "\"blkcg_maybe_throttle_current\":\"not in /proc/kallsyms (inlined)\"") &&
	      strstr(json_row(json, "/fn/loose"), "\"delay_charged_ms_per_s\":5.000,"
		     "\"delay_paid_ms_per_s\":null,\"throttled_bios_per_s\":null,"
		     "\"delay_charged_ms\":35.000,\"delay_paid_ms\":null"),
	      "fallback one function: JSON: charged known, paid null, and why: %s",
	      json_row(json, "/fn/loose"));
	check(strstr(prom, "iolat_delay_charged_seconds_total{device=\"4000:1\",cgroup=\"/fn/loose\"}") &&
	      !strstr(prom, "iolat_delay_paid_seconds_total{") &&
	      strstr(prom, "iolat_function_attached{function=\"blkcg_maybe_throttle_current\"} 0\n"),
	      "fallback one function: -P: charged, no paid, the function 0");
	free((void *)text);
	free((void *)json);
	free((void *)prom);
	fixture_free(&fx);
}

/*
 * Which functions can be traced: a FUNC in the kernel's BTF and a line
 * in kallsyms, by its exact name (a .cold part or a clone is not it).
 */
static void test_fns_check(void)
{
	struct btf *btf = btf__new_empty();
	struct iolat_fns fns;
	char fn[8192];
	int id, n;

	id = btf__add_func_proto(btf, 0);
	btf__add_func(btf, "blkcg_add_delay", BTF_FUNC_GLOBAL, id);
	btf__add_func(btf, "blkcg_maybe_throttle_current", BTF_FUNC_GLOBAL, id);
	snprintf(fn, sizeof(fn), "%s/kallsyms", root);
	put("/kallsyms", "ffffffff81231202 T blkcg_add_delay\n"
	    "ffffffff81230f5d t blkcg_maybe_throttle_current.cold\n"
	    "ffffffffc0000000 t blkcg_maybe_throttle_current_x\t[mod]\n");
	iolat_kallsyms_set(fn);
	n = iolat_fns_check(btf, &fns);
	check(n == 1 && !fns.why[IOLAT_FN_ADD_DELAY][0] &&
	      strstr(fns.why[IOLAT_FN_THROTTLE], "kallsyms (inlined)") &&
	      !fns.attached[IOLAT_FN_ADD_DELAY],
	      "functions: one in kallsyms, the other inlined (%d, '%s')", n,
	      fns.why[IOLAT_FN_THROTTLE]);
	put("/kallsyms", "ffffffff81231202 T blkcg_add_delay\n"
	    "ffffffff81230f5d T blkcg_maybe_throttle_current\n");
	n = iolat_fns_check(btf, &fns);
	check(n == 2, "functions: both in BTF and kallsyms (%d)", n);
	btf__free(btf);
	btf = btf__new_empty();
	id = btf__add_func_proto(btf, 0);
	btf__add_func(btf, "blkcg_maybe_throttle_current", BTF_FUNC_GLOBAL, id);
	n = iolat_fns_check(btf, &fns);
	check(n == 1 && !strcmp(fns.why[IOLAT_FN_ADD_DELAY], "not in the kernel's BTF"),
	      "functions: one not in the BTF (%d, '%s')", n, fns.why[IOLAT_FN_ADD_DELAY]);
	check(!fns.kallsyms_unread, "functions: kallsyms read");
	unlink(fn);
	n = iolat_fns_check(btf, &fns);
	check(n == 1 && fns.kallsyms_unread && !fns.why[IOLAT_FN_THROTTLE][0] &&
	      !strcmp(fns.why[IOLAT_FN_ADD_DELAY], "not in the kernel's BTF"),
	      "functions: kallsyms unreadable (systemd hides it): those in the BTF are "
	      "tried (%d, '%s')", n, fns.why[IOLAT_FN_THROTTLE]);
	iolat_kallsyms_set(NULL);
	btf__free(btf);
	n = iolat_fns_probe(&fns, true);
	check(n == 0 && !strcmp(fns.why[0], "off (--no-functions)") &&
	      !strcmp(fns.why[1], "off (--no-functions)"),
	      "functions: --no-functions: none, said so (%d, '%s')", n, fns.why[0]);
}

/*
 * A fake BPF hash map, standing in for the kernel's calls (struct
 * iolat_map_ops) as kernel/bpf/hashtab.c answers them: entries sit in
 * buckets of @bucket slots; a batch hands over whole buckets while they
 * fit (0 with fewer than asked: more to come), ENOSPC when the first one
 * does not, ENOENT with the last of them; the position between calls is
 * a bucket number.  A deleted entry leaves its slot empty.
 */
#define FAKE_MAX 64
struct fake_map {
	size_t ks, vs;
	size_t n;			/* slots used, deleted ones included */
	unsigned char keys[FAKE_MAX][16], vals[FAKE_MAX][512];	/* a group, a cgroup change */
	bool live[FAKE_MAX];
	__u32 bucket;			/* slots a bucket */
	int refuse;			/* what the batch calls answer, when not 0 */
	unsigned long batches, singles;	/* calls of each kind */
	__u32 largest;			/* the most entries one batch handed over */
	/* After batch call @drop_after, the slots from @drop_from are deleted. */
	unsigned long drop_after;
	size_t drop_from;
};

static long fake_find(struct fake_map *f, const void *key)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->live[i] && !memcmp(f->keys[i], key, f->ks))
			return i;
	return -1;
}

static int fake_lookup_batch(void *ctx, void *in, void *out, void *keys,
			     void *vals, __u32 *count, bool del)
{
	struct fake_map *f = ctx;
	__u32 b = in ? *(__u32 *)in : 0, max = *count, total = 0, got, nb;
	size_t i;
	int ret = 0;

	f->batches++;
	*count = 0;
	if (f->refuse)
		return f->refuse;
	if (f->drop_after && f->batches == f->drop_after + 1)
		for (i = f->drop_from; i < f->n; i++)
			f->live[i] = false;	/* by someone else, between two calls */
	nb = (f->n + f->bucket - 1) / f->bucket;
	for (; b < nb; b++) {
		for (got = 0, i = b * f->bucket; i < (b + 1) * f->bucket && i < f->n; i++)
			got += f->live[i];
		if (got > max - total) {
			ret = total ? 0 : -ENOSPC;
			break;
		}
		for (i = b * f->bucket; i < (b + 1) * f->bucket && i < f->n; i++) {
			if (!f->live[i])
				continue;
			memcpy((char *)keys + total * f->ks, f->keys[i], f->ks);
			memcpy((char *)vals + total * f->vs, f->vals[i], f->vs);
			f->live[i] = !del;
			total++;
		}
	}
	if (b >= nb)
		ret = -ENOENT;
	*(__u32 *)out = b;
	*count = total;
	if (total > f->largest)
		f->largest = total;
	return ret;
}

static int fake_delete_batch(void *ctx, const void *keys, __u32 *count)
{
	struct fake_map *f = ctx;
	__u32 i;
	long at;

	f->batches++;
	if (f->refuse) {
		*count = 0;
		return f->refuse;
	}
	for (i = 0; i < *count; i++) {
		at = fake_find(f, (const char *)keys + i * f->ks);
		if (at < 0) {
			*count = i;
			return -ENOENT;
		}
		f->live[at] = false;
	}
	return 0;
}

static int fake_next_key(void *ctx, const void *key, void *next)
{
	struct fake_map *f = ctx;
	long i = key ? fake_find(f, key) : -1;

	f->singles++;
	/* A key that is not there: the first one, as the kernel does. */
	for (i = i < 0 ? 0 : i + 1; (size_t)i < f->n; i++)
		if (f->live[i]) {
			memcpy(next, f->keys[i], f->ks);
			return 0;
		}
	return -ENOENT;
}

static int fake_lookup(void *ctx, const void *key, void *val, bool del)
{
	struct fake_map *f = ctx;
	long i = fake_find(f, key);

	f->singles++;
	if (i < 0)
		return -ENOENT;
	memcpy(val, f->vals[i], f->vs);
	f->live[i] = !del;
	return 0;
}

static int fake_delete(void *ctx, const void *key)
{
	struct fake_map *f = ctx;
	long i = fake_find(f, key);

	f->singles++;
	if (i < 0)
		return -ENOENT;
	f->live[i] = false;
	return 0;
}

static const struct iolat_map_ops fake_ops = {
	fake_lookup_batch, fake_delete_batch, fake_next_key, fake_lookup, fake_delete,
};

static void fake_put(struct fake_map *f, const void *key, const void *val)
{
	memcpy(f->keys[f->n], key, f->ks);
	memcpy(f->vals[f->n], val, f->vs);
	f->live[f->n++] = true;
}

static size_t fake_live(const struct fake_map *f)
{
	size_t i, n = 0;

	for (i = 0; i < f->n; i++)
		n += f->live[i];
	return n;
}

/* An iolat_map over @f, asking @batch entries a call (0: max_entries). */
static void fake_map_open(struct iolat_map *m, struct fake_map *f, __u32 batch)
{
	memset(m, 0, sizeof(*m));
	m->tool = "iolat-top";
	m->name = "fake";
	m->ops = &fake_ops;
	m->ctx = f;
	m->key_size = f->ks;
	m->val_size = f->vs;
	m->max_entries = FAKE_MAX;
	m->batch = batch;
	f->batches = f->singles = f->largest = 0;
}

/*
 * iolat-snoop's names, as iolat-top's rows: by id, from the tree kept
 * current by the cgroup_mkdir records (a fake map of them), never the
 * kernel's path.  Inside a cgroup namespace (the fake tree is its view)
 * a cgroup created after the start was named by the event's path, from
 * the hierarchy's root (/outer/ns/b), when it could not be opened by id
 * (no CONFIG_FHANDLE), and one outside the namespace by its path there.
 */
static void names_mkdir(struct fake_map *f, __u64 id, __u64 parent_id, __u32 level,
			const char *name)
{
	struct iolat_cgroup_change c = { .parent_id = parent_id, .level = level };

	snprintf(c.name, sizeof(c.name), "%s", name);
	fake_put(f, &id, &c);
}

static void test_names(void)
{
	struct iolat_names nm = {};
	struct fake_map f = { .ks = sizeof(__u64), .vs = sizeof(struct iolat_cgroup_change),
			      .bucket = 1 };
	struct iolat_map m;
	char lname[256], lpath[300];
	const char *p;
	__u64 lost = 0, id, lid, out_parent = 0x7f00000020ULL;
	unsigned long before;
	int err;

	iolat_cgroup_id_resolver_set(fake_resolve);
	fake_resolve_err = -ENOSYS;	/* the guest's: no CONFIG_FHANDLE */
	fake_map_open(&m, &f, 0);
	nm.changes = &m;
	nm.lost = &lost;
	mkcg("/nm");
	err = iolat_names_update(&nm, true);	/* the walk at the start */
	id = inode_of("/nm");
	p = iolat_names_path(&nm, id);
	check(!err && p && !strcmp(p, "/nm"), "names: a cgroup there at the start, by id (%s)",
	      p ?: "none");
	/* Created after the start: its mkdir record places it below its parent. */
	mkcg("/nm/b");
	names_mkdir(&f, inode_of("/nm/b"), id, 2, "b");
	p = iolat_names_path(&nm, inode_of("/nm/b"));
	check(p && !strcmp(p, "/nm/b") && fake_live(&f) == 0,
	      "names: a cgroup created after the start, below its parent's id, as we see "
	      "it, not opened by id (%s)", p ?: "none");
	before = fake_resolved;
	p = iolat_names_path(&nm, inode_of("/nm/b"));
	check(p && !strcmp(p, "/nm/b") && fake_resolved == before,
	      "names: ... kept, not looked up again (%s)", p ?: "none");
	/* A 254-byte path (the record's path is cut at 255 bytes): whole. */
	memset(lname, 'c', 250);
	lname[250] = '\0';
	snprintf(lpath, sizeof(lpath), "/nm/%s", lname);
	mkcg(lpath);
	lid = inode_of(lpath);
	names_mkdir(&f, lid, id, 2, lname);
	p = iolat_names_path(&nm, lid);
	check(p && !strcmp(p, lpath), "names: a 254-byte path whole (%zu bytes)",
	      p ? strlen(p) : 0);
	/* Outside our namespace: its parent unknown, not openable: no path. */
	names_mkdir(&f, 0x7f00000021ULL, out_parent, 1, "iolat-out");
	p = iolat_names_path(&nm, 0x7f00000021ULL);
	check(!p && nm.tree.npending == 0,
	      "names: a cgroup outside our namespace: no path, never the kernel's (%s)",
	      p ?: "none");
	before = fake_resolved;
	p = iolat_names_path(&nm, 0x7f00000021ULL);
	check(!p && fake_resolved == before, "names: ... known not ours, not looked up again");
	fake_resolve_err = 0;
	iolat_names_free(&nm);
	iolat_cgroup_id_resolver_set(NULL);
}

/*
 * A fake /sys/dev/block with 4000:1 and 4000:2 (fake1, fake2) there.  The
 * path is static: iolat_sys_block_set() keeps the pointer.
 */
static void fake_sys_block(void)
{
	static char sys[8192];
	char fn[8300], to[16];
	int i;

	snprintf(sys, sizeof(sys), "%s/../sysblk", root);
	mkdir(sys, 0755);
	for (i = 1; i <= 2; i++) {
		snprintf(fn, sizeof(fn), "%s/fake%d", sys, i);
		mkdir(fn, 0755);
		snprintf(fn, sizeof(fn), "%s/4000:%d", sys, i);
		snprintf(to, sizeof(to), "./fake%d", i);
		symlink(to, fn);
	}
	iolat_sys_block_set(sys);
	iolat_dev_cache_reset();
}

/*
 * The rows one interval makes of @f's entries read through @m (groups),
 * as JSON with the time left out; the fixture's model starts afresh, so
 * that runs compare.  Static, until the next call.
 */
static const char *map_rows(struct fixture *fx, struct iolat_map *m, int *err)
{
	static char *out;
	struct top_report rep = { .secs = 1, .rows = 1000, .batch = true };
	const char *s;

	top_model_free(&fx->m);
	top_model_begin(&fx->m, &fx->cgs);
	*err = top_model_add_targets(&fx->m, &fx->targets);
	if (!*err)
		*err = top_model_add_map(&fx->m, m, TOP_MAP_GROUPS, &fx->cgs);
	if (!*err)
		*err = top_model_compute(&fx->m, 1);
	top_model_sort(&fx->m, TOP_SORT_PATH);
	rep.m = &fx->m;
	free(out);
	s = render(top_print_json, &rep);
	s = strstr(s, "\"cgroups\":");
	out = strdup(s ?: "(no cgroups)");
	return out;
}

static int read_map(void *m)
{
	return iolat_map_read(m, false);
}

/*
 * The maps are read in batches, a few system calls for all of a map's
 * entries where a lookup per key cost two per entry; the rows are the
 * same either way.  With a last batch that is partial, one that ends
 * exactly at the map's end (the next call: none and ENOENT), a batch cut
 * short at a bucket (fewer than asked, more to come), a bucket bigger
 * than the batch (ENOSPC: ask for more), and a kernel that refuses batch
 * calls (EINVAL before 5.6, ENOTSUPP for a map type): one entry a call,
 * said once on stderr.  Stale entries go in one batch delete.
 */
static void test_map_batch(void)
{
	static const struct { __u32 batch, bucket; const char *what; } cases[] = {
		{ 0, 1, "one call for the whole map" },
		{ 7, 1, "batches of 7, the last partial (20 = 7+7+6, ENOENT with 6)" },
		{ 5, 1, "batches of 5, the map's end a batch's end (ENOENT with the last 5)" },
		{ 7, 3, "buckets of 3: batches cut short at a bucket (6 of 7)" },
		{ 2, 4, "buckets of 4 in batches of 2: ENOSPC, asked for more" },
	};
	struct fake_map f = { .ks = sizeof(struct iolat_key),
			      .vs = sizeof(struct iolat_group), .bucket = 1 };
	struct fixture fx = {};
	struct iolat_map m;
	struct iolat_key k, gone[2];
	struct iolat_group g = { .depth = IOLAT_DEPTH_MAX };
	char path[64], said[1024], *per_key;
	const char *rows;
	size_t c;
	int i, err, rc;

	fake_sys_block();
	mkcg("/mb");
	for (i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/mb/c%d", i);
		mkcg(path);
		if (i % 3 == 0)
			put_target(path, DEV1, 1000 + i);
	}
	scan(&fx);
	for (i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/mb/c%d", i);
		k = key(&fx, path, i % 2 ? DEV2 : DEV1);
		g.windows = 100 + i;
		g.throttled = i;
		g.depth = i % 4 ? IOLAT_DEPTH_MAX : (__u32)i;
		g.has_depth = 1;
		fake_put(&f, &k, &g);
	}
	/* The per-key path, as before batches: the reference. */
	fake_map_open(&m, &f, 0);
	m.no_lookup_batch = true;
	rows = map_rows(&fx, &m, &err);
	per_key = strdup(rows);
	check(!err && f.batches == 0 && f.singles == 2 * 20 + 1 && strstr(per_key, "/mb/c19"),
	      "maps: one entry a call: %lu calls for 20 entries (%d)", f.singles, err);
	for (c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		f.bucket = cases[c].bucket;
		fake_map_open(&m, &f, cases[c].batch);
		rows = map_rows(&fx, &m, &err);
		check(!err && !strcmp(rows, per_key) && f.singles == 0 && m.n == 20,
		      "maps: %s: the same rows as one by one (%lu batch calls, %zu entries, "
		      "at most %u a call)", cases[c].what, f.batches, m.n, f.largest);
		iolat_map_free(&m);
	}
	f.bucket = 1;
	/* Calls: 7+7+6 is 3, the last with ENOENT; 5+5+5+5 is 4. */
	fake_map_open(&m, &f, 7);
	iolat_map_read(&m, false);
	i = f.batches;
	fake_map_open(&m, &f, 5);
	iolat_map_read(&m, false);
	check(i == 3 && f.batches == 4, "maps: 3 calls for 7+7+6, 4 for 5+5+5+5 (%d, %lu)",
	      i, f.batches);
	/*
	 * The last bucket's entries deleted by someone else between two
	 * calls: the last call brings none, and ENOENT.
	 */
	f.drop_after = 2;
	f.drop_from = 14;
	fake_map_open(&m, &f, 7);
	err = iolat_map_read(&m, false);
	check(!err && m.n == 14 && f.batches == 3,
	      "maps: the last call brings 0 entries and ENOENT: 14 entries, 3 calls (%d, %zu, %lu)",
	      err, m.n, f.batches);
	for (i = 14; i < 20; i++)
		f.live[i] = true;
	f.drop_after = 0;
	/* An empty map: one call, 0 and ENOENT. */
	{
		struct fake_map empty = { .ks = f.ks, .vs = f.vs, .bucket = 1 };

		fake_map_open(&m, &empty, 0);
		err = iolat_map_read(&m, false);
		check(!err && m.n == 0 && empty.batches == 1,
		      "maps: an empty map: one call, no entry (%d, %zu)", err, m.n);
	}
	iolat_map_free(&m);

	/* Refused: one by one, the same rows, said once. */
	for (i = 0; i < 2; i++) {
		f.refuse = i ? -IOLAT_ENOTSUPP : -EINVAL;
		fake_map_open(&m, &f, 0);
		rc = said_by(read_map, &m, said, sizeof(said));
		check(rc == 0 && m.n == 20 && m.no_lookup_batch && f.batches == 1 &&
		      f.singles == 41 && (i ? !*said : strstr(said, "one system call per entry") &&
					  strstr(said, "EINVAL")),
		      "maps: batches refused (%s): one entry a call, %s (%lu calls): '%s'",
		      i ? "ENOTSUPP" : "EINVAL", i ? "not said again" : "said on stderr",
		      f.singles, said);
		rows = map_rows(&fx, &m, &err);
		check(!err && !strcmp(rows, per_key) && f.batches == 1,
		      "maps: batches refused (%s): the same rows, no batch call tried again",
		      i ? "ENOTSUPP" : "EINVAL");
		iolat_map_free(&m);
	}
	/* Any other error is an error, not a reason to fall back. */
	f.refuse = -EPERM;
	fake_map_open(&m, &f, 0);
	err = iolat_map_read(&m, false);
	check(err == -EPERM && !m.no_lookup_batch && f.singles == 0,
	      "maps: EPERM from a batch call is an error, no fallback (%d)", err);
	f.refuse = 0;
	iolat_map_free(&m);

	/*
	 * Entries of a removed cgroup and of a device that is gone: deleted,
	 * in one batch; the rest stay.
	 */
	gone[0] = key(&fx, "/mb/c4", DEV1);
	gone[1] = (struct iolat_key){ .cgroup_id = cgid(&fx.cgs, "/mb/c6"),
				      .dev = IOLAT_MKDEV(4000U, 9U) };
	fake_put(&f, &gone[1], &g);
	iolat_cgroups_tick(&fx.cgs);
	iolat_cgroups_rmdir(&fx.cgs, gone[0].cgroup_id);
	fake_map_open(&m, &f, 0);
	rows = map_rows(&fx, &m, &err);
	check(!err && fake_find(&f, &gone[0]) < 0 && fake_find(&f, &gone[1]) < 0 &&
	      fake_live(&f) == 19 && f.batches == 2 && f.singles == 0 && !strstr(rows, "/mb/c4\""),
	      "maps: a removed cgroup's and a gone device's entries deleted, one batch "
	      "(%lu batch calls, %zu left)", f.batches, fake_live(&f));
	iolat_map_free(&m);
	/* A key gone meanwhile stops the kernel's batch: the rest still go. */
	{
		struct iolat_key three[3] = { key(&fx, "/mb/c10", DEV1),
					      { .cgroup_id = 1, .dev = DEV1 },
					      key(&fx, "/mb/c12", DEV1) };

		fake_map_open(&m, &f, 0);
		err = iolat_map_delete(&m, three, 3);
		check(!err && fake_find(&f, &three[0]) < 0 && fake_find(&f, &three[2]) < 0 &&
		      fake_live(&f) == 17,
		      "maps: delete: a key already gone (ENOENT) skipped, the others deleted "
		      "(%d, %zu left, %lu calls)", err, fake_live(&f), f.batches);
	}
	/* Read and delete (the cgroup changes): all taken, map empty. */
	fake_map_open(&m, &f, 4);
	err = iolat_map_read(&m, true);
	check(!err && m.n == 17 && fake_live(&f) == 0 && f.singles == 0,
	      "maps: read and delete in batches of 4: 17 entries taken, none left (%d, %lu calls)",
	      err, f.batches);
	iolat_map_free(&m);

	/*
	 * The fallback's map (the io.stat mode, the controller's functions
	 * attached) through the same reader, in batches cut at buckets: each
	 * entry's delay in its row; the removed cgroup's entry deleted.
	 */
	{
		struct fake_map fd = { .ks = sizeof(struct iolat_key),
				       .vs = sizeof(struct iolat_delay), .bucket = 2 };
		struct iolat_delay d = { 0 };
		struct top_report rep = { .secs = 1, .rows = 1000, .batch = true };
		const char *json, *row;
		char want[128];
		bool rows_ok = true;

		for (i = 1; i <= 5; i++) {
			snprintf(path, sizeof(path), "/mb/c%d", i);
			k = i == 4 ? gone[0] : key(&fx, path, DEV1);	/* c4: removed above */
			d.charged_ns = i * 1000000ULL;
			d.charges = i;
			d.paid_ns = i * 500000ULL;
			d.pays = 1;
			fake_put(&fd, &k, &d);
		}
		fake_map_open(&m, &fd, 3);
		top_model_free(&fx.m);
		fx.m.mode = TOP_MODE_IOSTAT;
		fx.m.fns.attached[IOLAT_FN_ADD_DELAY] = true;
		fx.m.fns.attached[IOLAT_FN_THROTTLE] = true;
		top_model_begin(&fx.m, &fx.cgs);
		err = top_model_add_map(&fx.m, &m, TOP_MAP_DELAYS, &fx.cgs);
		if (!err)
			err = top_model_compute(&fx.m, 1);
		top_model_sort(&fx.m, TOP_SORT_PATH);
		rep.m = &fx.m;
		json = render(top_print_json, &rep);
		for (i = 1; i <= 5; i++) {
			if (i == 4)
				continue;
			snprintf(path, sizeof(path), "/mb/c%d", i);
			snprintf(want, sizeof(want), "\"delay_charged_ms\":%d.000,"
				 "\"delay_paid_ms\":%d.%d00,", i, i / 2, i % 2 ? 5 : 0);
			row = json_row(json, path);
			if (!strstr(row, want)) {
				rows_ok = false;
				fprintf(stderr, "  %s: no %s in %s\n", path, want, row);
			}
		}
		check(!err && rows_ok && fx.m.n == 4 && !strstr(json, "/mb/c4\"") &&
		      fd.singles == 0 && fd.largest <= 3 && fake_find(&fd, &gone[0]) < 0 &&
		      fake_live(&fd) == 4,
		      "maps: the fallback's delays in batches: 4 rows with their delay, the "
		      "removed cgroup's entry deleted (%d, %zu rows, %lu batch calls, %zu left)",
		      err, fx.m.n, fd.batches, fake_live(&fd));
		iolat_map_free(&m);
	}
	free(per_key);
	iolat_sys_block_set(NULL);
	iolat_dev_cache_reset();
	fixture_free(&fx);
}

/*
 * The io.stat mode with the functions attached, refreshed as iolat-top
 * does it (iolat-top.c's refresh() and rescan() without the events: a
 * tick and a walk, the targets, the fallback's map read whole, io.stat,
 * the rates), over eight intervals of tools/07-fallback's swap row:
 * loose's entry in the map keeps growing, and its row shows the map's
 * counters every interval, since the start, and the growth as the rates;
 * its entry is never deleted, nor its counters started again.  A cgroup
 * removed meanwhile (its directory gone from the walk) has its entry
 * deleted, IOLAT_CGROUP_UNKNOWN_TICKS intervals later.  (The 6.1 run
 * whose last report had loose's paid at 0 and charged at one interval's
 * rate was not a reset: tests/host/18-jq-checks says why.)
 */
static void test_fallback_counters_kept(void)
{
	struct fake_map f = { .ks = sizeof(struct iolat_key),
			      .vs = sizeof(struct iolat_delay), .bucket = 2 };
	struct top_report rep = { .secs = 1, .rows = 1000, .batch = true };
	struct fixture fx = {};
	struct iolat_map m;
	struct iolat_key kl, kg;
	struct iolat_delay dl = { 0 }, dg = { .charged_ns = 7000000, .charges = 1 };
	char fn[8192], want[256];
	const char *json, *row;
	bool rows_ok = true, kept = true;
	int i, err = 0, gone_at = -1;
	long at;

	fake_sys_block();
	mkcg("/fk");
	mkcg("/fk/loose");
	mkcg("/fk/tight");
	mkcg("/fk/gone");
	put_target("/fk/loose", DEV1, 10000);
	put_target("/fk/tight", DEV1, 1000);
	scan(&fx);
	kl = key(&fx, "/fk/loose", DEV1);
	kg = key(&fx, "/fk/gone", DEV1);
	fake_put(&f, &kl, &dl);
	fake_put(&f, &kg, &dg);
	fake_map_open(&m, &f, 0);
	fx.m.mode = TOP_MODE_IOSTAT;
	fx.m.fns.attached[IOLAT_FN_ADD_DELAY] = true;
	fx.m.fns.attached[IOLAT_FN_THROTTLE] = true;
	fx.m.dev = DEV1;			/* -d */
	fixture_filter(&fx, "^/fk");
	for (i = 0; i < 8 && !err; i++) {
		if (i == 2) {			/* rmdir'd: the next walks lack it */
			snprintf(fn, sizeof(fn), "%s/fk/gone/io.stat", root);
			unlink(fn);
			snprintf(fn, sizeof(fn), "%s/fk/gone", root);
			rmdir(fn);
		}
		/* A second of charges and sleeps (none in the first). */
		if (i) {
			dl.charged_ns += 1708730000;
			dl.charges += 200;
			dl.paid_ns += 250000000;
			dl.pays += 1;
			at = fake_find(&f, &kl);
			if (at >= 0)
				memcpy(f.vals[at], &dl, sizeof(dl));
		}
		/* rescan() without the events, then refresh()'s steps */
		if (iolat_cgroups_tick(&fx.cgs) < 0)
			err = 1;
		scan(&fx);
		iolat_dev_cache_reset();
		top_model_begin(&fx.m, &fx.cgs);
		err = err || top_model_add_targets(&fx.m, &fx.targets) ||
			top_model_add_map(&fx.m, &m, TOP_MAP_DELAYS, &fx.cgs) ||
			top_model_add_io(&fx.m) || top_model_compute(&fx.m, 1);
		top_model_sort(&fx.m, TOP_SORT_PATH);
		rep.m = &fx.m;
		json = render(top_print_json, &rep);
		row = json_row(json, "/fk/loose");
		/* The first interval has no baseline: no rates. */
		if (!i)
			snprintf(want, sizeof(want), "\"delay_charged_ms_per_s\":null,"
				 "\"delay_paid_ms_per_s\":null,\"throttled_bios_per_s\":null,"
				 "\"delay_charged_ms\":%.3f,\"delay_paid_ms\":%.3f,",
				 dl.charged_ns / 1e6, dl.paid_ns / 1e6);
		else
			snprintf(want, sizeof(want), "\"delay_charged_ms_per_s\":%.3f,"
				 "\"delay_paid_ms_per_s\":%.3f,\"throttled_bios_per_s\":null,"
				 "\"delay_charged_ms\":%.3f,\"delay_paid_ms\":%.3f,",
				 1708.73, 250.0, dl.charged_ns / 1e6, dl.paid_ns / 1e6);
		if (!strstr(row, want)) {
			rows_ok = false;
			fprintf(stderr, "  interval %d: no %s in %s\n", i, want, row);
		}
		kept &= fake_find(&f, &kl) >= 0;
		if (gone_at < 0 && fake_find(&f, &kg) < 0)
			gone_at = i;
	}
	if (records)
		fputs(json, records);
	check(!err && rows_ok && kept && dl.paid_ns == 1750000000,
	      "fallback counters: 8 intervals read through the map: loose's row has the "
	      "map's counters since the start each interval and their growth as the "
	      "rates, its entry never deleted (%d)", err);
	check(gone_at == 2 + IOLAT_CGROUP_UNKNOWN_TICKS,
	      "fallback counters: a removed cgroup's entry deleted %d intervals after its "
	      "walk lost it (interval %d, want %d)", IOLAT_CGROUP_UNKNOWN_TICKS, gone_at,
	      2 + IOLAT_CGROUP_UNKNOWN_TICKS);
	iolat_map_free(&m);
	iolat_sys_block_set(NULL);
	iolat_dev_cache_reset();
	fixture_free(&fx);
}

static int cmp_rowkey(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->cgid < y->cgid ? -1 : x->cgid > y->cgid;
}

/*
 * Thousands of rows: each (device, cgroup) once, found again through the
 * model's table as it grows (a row per target, then map entries and
 * io.stat finding the same rows), the culprit by id.  The rows were
 * searched one by one: 10,000 cgroups cost 100 ms of CPU an interval in
 * those searches alone (on the host; more under TCG).
 */
static void test_many_rows(void)
{
	enum { N = 1500 };
	struct fixture fx = {};
	static struct iolat_key gk[2 * N / 10];
	static struct iolat_group g[2 * N / 10];
	struct iolat_key pk;
	struct iolat_parent p = { .culprit_id = 0, .cookie = 999990 };
	struct top_row *sorted, *r;
	char path[64];
	size_t i, dups = 0, ng = 0, throttling = 0;
	int err;

	mkcg("/many");
	for (i = 1; i <= N; i++) {
		snprintf(path, sizeof(path), "/many/g%zu", i);
		mkcg(path);
		put_target(path, DEV1, 1000 + i);
		if (i % 10 == 0) {
			snprintf(path, sizeof(path), "/many/g%zu/io.stat", i);
			put(path, "%s", iostat_line(DEV1, 4096 * i, i, NULL));
		}
	}
	put("/many/io.stat", "%s", iostat_line(DEV1, 4096, 1, NULL));
	scan(&fx);
	fixture_filter(&fx, "^/many");	/* the other tests' cgroups did IO too */
	for (i = 10; i <= N; i += 10) {
		snprintf(path, sizeof(path), "/many/g%zu", i);
		gk[ng] = key(&fx, path, DEV1);
		g[ng++] = (struct iolat_group){ .depth = IOLAT_DEPTH_MAX, .windows = i };
		gk[ng] = key(&fx, path, DEV2);
		g[ng++] = (struct iolat_group){ .depth = 2, .has_depth = 1 };
	}
	pk = key(&fx, "/many", DEV1);
	p.culprit_id = cgid(&fx.cgs, "/many/g30");
	err = interval(&fx, gk, g, ng, &pk, &p, 1, 1);
	sorted = malloc(fx.m.n * sizeof(*sorted));
	memcpy(sorted, fx.m.v, fx.m.n * sizeof(*sorted));
	qsort(sorted, fx.m.n, sizeof(*sorted), cmp_rowkey);
	for (i = 1; i < fx.m.n; i++)
		dups += !cmp_rowkey(&sorted[i - 1], &sorted[i]);
	free(sorted);
	for (i = 0; i < fx.m.n; i++)
		throttling += !strcmp(fx.m.v[i].state, "throttling");
	check(!err && fx.m.n == N + N / 10 + 1 && !dups,
	      "many rows: %d targets, %d entries on a second device, a parent: %zu rows, "
	      "%zu twice (want %d, 0)", N, N / 10, fx.m.n, dups, N + N / 10 + 1);
	r = row(&fx.m, DEV1, "/many/g30");
	check(r && !strcmp(r->state, "throttling") && throttling == 1 && r->has_group &&
	      r->target_us == 1030 && r->g.windows == 30,
	      "many rows: the culprit's row found by id, its target and entry on it (%s, %zu)",
	      r ? r->state : "no row", throttling);
	put("/many/g1500/io.stat", "%s", iostat_line(DEV1, 4096 * 1500 + 4096 * 50, 1550, NULL));
	err = interval(&fx, gk, g, ng, &pk, &p, 1, 1);
	r = row(&fx.m, DEV1, "/many/g1500");
	check(!err && fx.m.n == N + N / 10 + 1 && r && r->iops == 50,
	      "many rows: the next interval, the same rows, a rate against the last (%.1f IOPS)",
	      r ? r->iops : -1);
	/*
	 * -P's io.pressure, a cgroup's whatever the device: once for each
	 * cgroup, its two rows far apart (sorted by depth), found by a table
	 * of ids where a search through the rows before each was quadratic.
	 */
	{
		struct top_report rep = { .m = &fx.m, .secs = 1, .rows = 100000, .batch = true,
					  .time = 1764763200.5 };
		const char *prom, *a;
		size_t lines = 0, twice = 0;
		char want[128];

		for (i = 5; i <= N; i += 5) {
			snprintf(path, sizeof(path), "/many/g%zu/io.pressure", i);
			put(path, "some avg10=%zu.00 avg60=0.00 avg300=0.00 total=1\n"
			    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", i % 100);
		}
		top_model_add_pressure(&fx.m, fx.m.n);
		top_model_sort(&fx.m, TOP_SORT_DEPTH);
		prom = render(top_print_prom, &rep);
		for (a = prom; (a = strstr(a, "\niolat_io_pressure_some_ratio{")); a++)
			lines++;
		for (i = 10; i <= N; i += 10) {
			snprintf(want, sizeof(want), "iolat_io_pressure_some_ratio{cgroup=\"/many/g%zu\"}", i);
			a = strstr(prom, want);
			twice += !a || strstr(a + 1, want);
		}
		snprintf(want, sizeof(want), "iolat_io_pressure_some_ratio{cgroup=\"/many/g1250\"} 0.5\n");
		check(lines == N / 5 && !twice && strstr(prom, want),
		      "many rows: -P's io.pressure once per cgroup: %zu lines for %d cgroups, "
		      "%zu of those with two rows not once", lines, N / 5, twice);
	}
	fixture_free(&fx);
}

/* A record of the cgroup iterator's walk: @path's counters on @dev. */
static struct iolat_iostat_rec walk_rec(const struct fixture *fx, const char *path, __u32 dev,
					__u64 rb, __u64 wb, __u64 rios, __u64 wios)
{
	return (struct iolat_iostat_rec){
		.cgroup_id = path ? cgid(&fx->cgs, path) : 0x7ffffffffffULL,	/* none */
		.dev = dev,
		.bytes = { rb, wb, 4096 },
		.ios = { rios, wios, 1 },
	};
}

/* The end record a walk of @n records reads back. */
static struct iolat_iostat_end walk_end(__u32 n, __u32 dropped, int top_level)
{
	return (struct iolat_iostat_end){ .magic = IOLAT_IOSTAT_MAGIC, .nrecs = n,
					  .dropped = dropped, .top_level = top_level,
					  .visited = 100 };
}

/*
 * The cgroup iterator's records, decoded: a record per (cgroup, device)
 * into the rows io.stat's files would make, the same counters for the
 * same text; a device no row is about and a cgroup the tree does not
 * know make no row; a short, foreign or overflowing walk is refused, for
 * the files.  With the walk, no io.stat file is read (debug stats off),
 * and with blkcg_debug_stats only the files of the rows that need its
 * keys.
 */
static void test_iostat_walk(void)
{
	struct fixture fx = {};
	struct iolat_iostat_set set = {};
	struct iolat_iostat_rec recs[8];
	struct iolat_iostat_end end;
	struct iolat_iostat from_files[4], from_walk[4];
	struct iolat_key k;
	struct iolat_group g = { .depth = 4, .has_depth = 1, .use_delay = 0, .has_use_delay = 1 };
	struct top_report rep;
	struct top_row *r;
	const char *out;
	const char *const paths[] = { "/it", "/it/a", "/it/a/x", "/it/b" };
	unsigned long n;
	int err, i, rows_files;

	mkcg("/it");
	mkcg("/it/a");
	mkcg("/it/a/x");
	mkcg("/it/b");
	put_target("/it/a", DEV1, 2000);
	put_target("/it/b", DEV1, 3000);
	scan(&fx);
	fixture_filter(&fx, "^/it");
	/* The files first: the counters as iolat_iostat_parse() gives them. */
	put("/it/io.stat", "4000:1 rbytes=9000 wbytes=8192 rios=3 wios=2 dbytes=4096 dios=1\n"
	    "4000:2 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
	put("/it/a/io.stat", "4000:1 rbytes=5000 wbytes=8192 rios=2 wios=2 dbytes=4096 dios=1\n"
	    "4000:2 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
	put("/it/a/x/io.stat", "4000:1 rbytes=5000 wbytes=0 rios=2 wios=0 dbytes=4096 dios=1\n");
	put("/it/b/io.stat", "4000:1 depth=max\n");
	err = interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	rows_files = fx.m.n;
	for (i = 0; i < 4; i++) {
		r = row(&fx.m, DEV1, paths[i]);
		from_files[i] = r ? r->io : (struct iolat_iostat){ .depth = 77 };
	}
	check(!err && rows_files == 4 && !row(&fx.m, DEV2, "/it/a"),
	      "walk: the files make 4 rows on 4000:1 (%d), none on 4000:2", rows_files);

	/* The same counters from a walk; the files say otherwise now. */
	recs[0] = walk_rec(&fx, "/it", DEV1, 9000, 8192, 3, 2);
	recs[1] = walk_rec(&fx, "/it/a", DEV1, 5000, 8192, 2, 2);
	recs[2] = walk_rec(&fx, "/it/a", DEV2, 4096, 0, 1, 0);	/* no row is about 4000:2 */
	recs[3] = walk_rec(&fx, "/it/a/x", DEV1, 5000, 0, 2, 0);
	recs[4] = walk_rec(&fx, NULL, DEV1, 1, 1, 1, 1);	/* a cgroup the tree does not know */
	recs[5] = walk_rec(&fx, "/it/b", DEV1, 0, 0, 0, 0);	/* no IO: no rbytes= line */
	recs[5].bytes[2] = recs[5].ios[2] = 0;
	end = walk_end(6, 0, 0);
	err = iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8);
	check(!err && set.n == 6 && set.top_level == 0, "walk: 6 records decoded (%d, %zu)",
	      err, set.n);
	put("/it/io.stat", "4000:1 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=1 dios=1\n");
	put("/it/a/io.stat", "4000:1 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=1 dios=1\n");
	put("/it/a/x/io.stat", "4000:1 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=1 dios=1\n");
	put("/it/b/io.stat", "4000:1 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=1 dios=1 depth=7\n");
	fx.m.iostat = &set;
	fx.m.iostat_debug = false;
	calls_since();
	top_model_begin(&fx.m, &fx.cgs);
	top_model_add_targets(&fx.m, &fx.targets);
	n = calls_since();
	err = top_model_add_io(&fx.m);
	n = calls_since();
	top_model_compute(&fx.m, 1);
	top_model_sort(&fx.m, TOP_SORT_PATH);
	check(!err && n == 0, "walk: no io.stat file read (%lu system calls)", n);
	for (i = 0; i < 4; i++) {
		r = row(&fx.m, DEV1, paths[i]);
		from_walk[i] = r ? r->io : (struct iolat_iostat){ .depth = 99 };
		/* The debug keys are the files' alone (/it/b's depth=max). */
		iolat_iostat_merge_debug(&from_walk[i], &from_files[i]);
		check(r && !memcmp(&from_walk[i], &from_files[i], sizeof(from_walk[i])),
		      "walk: %s's counters as its io.stat gave them (rbytes %llu wbytes %llu "
		      "ios %llu rios %llu wios %llu dbytes %llu dios %llu has_io %d)", paths[i],
		      (unsigned long long)from_walk[i].rbytes, (unsigned long long)from_walk[i].wbytes,
		      (unsigned long long)from_walk[i].ios, (unsigned long long)from_walk[i].rios,
		      (unsigned long long)from_walk[i].wios, (unsigned long long)from_walk[i].dbytes,
		      (unsigned long long)from_walk[i].dios, from_walk[i].has_io);
	}
	check(fx.m.n == 4 && !row(&fx.m, DEV2, "/it/a"),
	      "walk: the same 4 rows: none for the unknown cgroup, none on 4000:2 (%zu)", fx.m.n);
	rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true,
				   .time = 1764763200.5 };
	out = render(top_print_json, &rep);
	if (records)
		fputs(out, records);
	check(strstr(out, "\"iostat_source\":\"iterator\"") &&
	      strstr(json_row(out, "/it/b"), "\"iostat\":{\"rbytes\":0,\"wbytes\":0,"
		     "\"rios\":0,\"wios\":0,\"dbytes\":0,\"dios\":0}"),
	      "walk: JSON's source, and 0 for a row without IO: %s", json_row(out, "/it/b"));
	check_has(json_row(out, "/it/a"), "\"iostat\":{\"rbytes\":5000,\"wbytes\":8192,"
		  "\"rios\":2,\"wios\":2,\"dbytes\":4096,\"dios\":1}",
		  "walk: JSON's iostat counters");

	/* The next walk: rates against this one. */
	recs[1] = walk_rec(&fx, "/it/a", DEV1, 5000 + 4096 * 10, 8192, 12, 2);
	end = walk_end(6, 0, 0);
	iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8);
	err = interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 2);
	r = row(&fx.m, DEV1, "/it/a");
	check(!err && r && r->iops == 5 && fabs(r->rmbps - 0.02048) < 1e-9,
	      "walk: rates over the interval (%.1f IOPS, %.5f MB/s)", r ? r->iops : -1,
	      r ? r->rmbps : -1);

	/*
	 * blkcg_debug_stats on, with the events: only a row whose depth or
	 * use_delay came from no event needs its file (/it/b, and the new
	 * rows /it and /it/a/x); /it/a has both from its group, until -j
	 * shows it (top_model_add_iostat_debug()).
	 */
	put("/it/a/io.stat", "4000:1 rbytes=1 wbytes=1 rios=1 wios=1 dbytes=1 dios=1 "
	    "depth=4 missed=3 total=30\n");
	fx.m.iostat_debug = true;
	k = key(&fx, "/it/a", DEV1);
	calls_since();
	n_open = 0;
	err = interval(&fx, &k, &g, 1, NULL, NULL, 0, 1);
	n = n_open;
	r = row(&fx.m, DEV1, "/it/b");
	check(!err && n == 3 && r && r->io.has_depth && r->io.depth == 7 && r->io.rbytes == 0 &&
	      !r->io.has_io && r->io_file,
	      "walk, debug stats: 3 files read (%lu): /it/b's depth from its file (%u), "
	      "its counters from the walk (rbytes %llu)", n, r ? r->io.depth : 0,
	      r ? (unsigned long long)r->io.rbytes : 0);
	r = row(&fx.m, DEV1, "/it/a");
	check(r && !r->io_file && !r->io.has_missed && r->io.rbytes == 5000 + 4096 * 10,
	      "walk, debug stats: /it/a's file not read: its depth came from an event");
	n_open = 0;
	top_model_add_iostat_debug(&fx.m, fx.m.n);
	check(n_open == 1 && r && r->io_file && r->io.has_missed && r->io.total == 30 &&
	      r->io.rbytes == 5000 + 4096 * 10,
	      "walk, debug stats: -j's rows: /it/a's file read for its debug keys (%lu), "
	      "its counters kept", n_open);
	fx.m.iostat_debug = false;

	/* Refused walks: the files, then. */
	end = walk_end(6, 0, 0);
	check(iolat_iostat_set_fill(&set, &end, sizeof(end) - 1, recs, 8) == -EPROTO,
	      "walk: a short read of the end record is refused");
	end.magic = 0;
	check(iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8) == -EPROTO,
	      "walk: a foreign end record is refused");
	end = walk_end(9, 0, 0);
	check(iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8) == -EPROTO,
	      "walk: more records than the array holds is refused");
	end = walk_end(6, 2, 0);
	check(iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8) == -EOVERFLOW,
	      "walk: blkgs left out (array full) is refused");
	end = walk_end(6, 0, 0);
	end.bad_layout = 1;
	check(iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8) == -ERANGE,
	      "walk: a blkcg_gq the program could not read is refused");
	/* The hierarchy's root is no blkg's: its file; a namespace's root is. */
	end = walk_end(0, 0, 0);
	iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8);
	i = iolat_iostat_set_has(&set, true) * 2 + iolat_iostat_set_has(&set, false);
	end = walk_end(0, 0, 3);
	iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8);
	check(i == 1 && iolat_iostat_set_has(&set, true) && iolat_iostat_set_has(&set, false),
	      "walk: the root's counters from its file at level 0, from the walk in a namespace");
	fx.m.iostat = NULL;
	iolat_iostat_set_free(&set);
	fixture_free(&fx);
}

/*
 * Between walks: a cgroup's io.stat text made into the records a walk
 * would give (lines with counters only, the -d device only when set,
 * sorted), and those put in place of the re-read cgroups' old records,
 * the others kept, the order kept: a cgroup re-read with no line
 * loses its records, a new one gains them.
 */
static void test_iostat_update(void)
{
	struct iolat_iostat_rec recs[8], fresh[8], *v;
	struct iolat_iostat_set set = {};
	struct iolat_iostat_end end;
	char text[256];
	__u64 ids[] = { 30, 10, 30, 40 };
	size_t nids = 4, i;
	int n, err;
	bool sorted = true;

	strcpy(text, "4000:2 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=512 dios=3\n"
	       "4000:3 depth=max\n"
	       "4000:1 rbytes=10 wbytes=20 rios=30 wios=40 dbytes=0 dios=0 depth=4\n");
	n = iolat_iostat_recs_parse(text, 10, 0, fresh, 8);
	check(n == 2 && fresh[0].dev == DEV1 && fresh[1].dev == DEV2 &&
	      fresh[0].cgroup_id == 10 && fresh[0].bytes[0] == 10 && fresh[0].bytes[1] == 20 &&
	      fresh[0].ios[0] == 30 && fresh[0].ios[1] == 40 &&
	      fresh[1].bytes[2] == 512 && fresh[1].ios[2] == 3,
	      "update: io.stat's lines with counters as records, sorted (%d)", n);
	strcpy(text, "4000:2 rbytes=1 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n"
	       "4000:1 rbytes=2 wbytes=0 rios=2 wios=0 dbytes=0 dios=0\n");
	n = iolat_iostat_recs_parse(text, 20, DEV2, fresh + 2, 6);
	check(n == 1 && fresh[2].dev == DEV2 && fresh[2].cgroup_id == 20,
	      "update: only -d's device (%d)", n);
	strcpy(text, "4000:2 rbytes=1 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n"
	       "4000:1 rbytes=2 wbytes=0 rios=2 wios=0 dbytes=0 dios=0\n");
	check(iolat_iostat_recs_parse(text, 20, 0, fresh, 1) == -EOVERFLOW,
	      "update: more devices than room is refused");

	check(iolat_iostat_set_update(&set, ids, 0, NULL, 0) == -EINVAL,
	      "update: no walk yet, nothing to update");
	/* The walk: 10 on two devices, 20, 30 on one. */
	memset(recs, 0, sizeof(recs));
	recs[0] = (struct iolat_iostat_rec){ .cgroup_id = 30, .dev = DEV1, .ios = { 3 } };
	recs[1] = (struct iolat_iostat_rec){ .cgroup_id = 10, .dev = DEV2, .ios = { 2 } };
	recs[2] = (struct iolat_iostat_rec){ .cgroup_id = 10, .dev = DEV1, .ios = { 1 } };
	recs[3] = (struct iolat_iostat_rec){ .cgroup_id = 20, .dev = DEV1, .ios = { 5 } };
	end = walk_end(4, 0, 0);
	err = iolat_iostat_set_fill(&set, &end, sizeof(end), recs, 8);
	check(!err && set.n == 4 && set.walked, "update: the walk's 4 records (%d)", err);
	/* 10 re-read on one device now, 30 with no line, 40 new. */
	iolat_iostat_ids_sort(ids, &nids);
	check(nids == 3 && ids[0] == 10 && ids[1] == 30 && ids[2] == 40,
	      "update: ids sorted, each once (%zu)", nids);
	fresh[0] = (struct iolat_iostat_rec){ .cgroup_id = 10, .dev = DEV1, .ios = { 11 } };
	fresh[1] = (struct iolat_iostat_rec){ .cgroup_id = 40, .dev = DEV1, .ios = { 44 } };
	fresh[2] = (struct iolat_iostat_rec){ .cgroup_id = 40, .dev = DEV2, .ios = { 45 } };
	err = iolat_iostat_set_update(&set, ids, nids, fresh, 3);
	v = set.v;
	for (i = 1; i < set.n; i++)
		sorted &= v[i - 1].cgroup_id < v[i].cgroup_id ||
			  (v[i - 1].cgroup_id == v[i].cgroup_id && v[i - 1].dev < v[i].dev);
	check(!err && !set.walked && set.n == 4 && sorted &&
	      v[0].cgroup_id == 10 && v[0].ios[0] == 11 &&
	      v[1].cgroup_id == 20 && v[1].ios[0] == 5 &&
	      v[2].cgroup_id == 40 && v[2].dev == DEV1 && v[2].ios[0] == 44 &&
	      v[3].cgroup_id == 40 && v[3].dev == DEV2 && v[3].ios[0] == 45,
	      "update: re-read cgroups' records replaced, others kept, sorted (%d, %zu)",
	      err, set.n);
	iolat_iostat_set_free(&set);
}

/*
 * io.pressure: read for the rows a report shows, each file kept open and
 * read again at offset 0 (one call a row), closed when its row is no
 * longer shown; read once a refresh for a cgroup's rows on two devices.
 */
static void test_psi_files(void)
{
	struct fixture fx = {};
	struct top_row *a, *b;
	unsigned long n1, n2, n3;
	int before, kept, after;

	mkcg("/ps");
	mkcg("/ps/a");
	mkcg("/ps/b");
	/* Rows by device, then path: a on 4000:1, a and b on 4000:2. */
	put("/ps/a/io.latency", "4000:1 target=1000\n4000:2 target=1000\n");
	put_target("/ps/b", DEV2, 1000);
	put("/ps/a/io.pressure", "some avg10=1.00 avg60=0.00 avg300=0.00 total=1\n"
	    "full avg10=0.50 avg60=0.00 avg300=0.00 total=1\n");
	put("/ps/b/io.pressure", "some avg10=2.00 avg60=0.00 avg300=0.00 total=1\n"
	    "full avg10=1.00 avg60=0.00 avg300=0.00 total=1\n");
	scan(&fx);
	fixture_filter(&fx, "^/ps/");
	before = open_fds();
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	calls_since();
	fx.m.now_ns = 1000000000ULL;
	top_model_add_pressure(&fx.m, 2);	/* -r 2: a's two rows */
	n1 = calls_since();
	a = row(&fx.m, DEV1, "/ps/a");
	b = row(&fx.m, DEV2, "/ps/b");
	kept = open_fds() - before;
	check(fx.m.n == 3 && a && a->psi_some == 1 && row(&fx.m, DEV2, "/ps/a")->psi_some == 1 &&
	      b && isnan(b->psi_some) && n1 == 2 && kept == 1,
	      "psi: the 2 rows shown, one cgroup: its file opened and read (%lu calls), "
	      "kept (%d open), the row not shown unread", n1, kept);
	put("/ps/a/io.pressure", "some avg10=3.00 avg60=0.00 avg300=0.00 total=1\n"
	    "full avg10=1.50 avg60=0.00 avg300=0.00 total=1\n");
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	calls_since();
	fx.m.now_ns = 3000000000ULL;
	top_model_add_pressure(&fx.m, fx.m.n);	/* -P: every row */
	n2 = calls_since();
	a = row(&fx.m, DEV1, "/ps/a");
	b = row(&fx.m, DEV2, "/ps/b");
	check(a && a->psi_some == 3 && a->psi_full == 1.5 && b && b->psi_some == 2 && n2 == 3 &&
	      open_fds() - before == 2,
	      "psi: the next refresh, 2 s on, every row: a's file read again at 0 (new "
	      "figures), b's opened (%lu calls), 2 open", n2);
	/* Within IOLAT_PSI_REREAD_NS: the kernel's averages have not moved. */
	put("/ps/a/io.pressure", "some avg10=5.00 avg60=0.00 avg300=0.00 total=1\n"
	    "full avg10=2.50 avg60=0.00 avg300=0.00 total=1\n");
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	calls_since();
	fx.m.now_ns = 4000000000ULL;
	top_model_add_pressure(&fx.m, fx.m.n);
	n2 = calls_since();
	a = row(&fx.m, DEV1, "/ps/a");
	check(a && a->psi_some == 3 && a->psi_full == 1.5 && n2 == 0 && open_fds() - before == 2,
	      "psi: 1 s later, every row: no file read again (%lu calls), a's last figures "
	      "(%.1f), both kept open", n2, a ? a->psi_some : -1);
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	top_model_add_pressure(&fx.m, 0);	/* nothing shown */
	calls_since();
	top_model_begin(&fx.m, &fx.cgs);	/* the next refresh */
	n3 = calls_since();
	after = open_fds() - before;
	check(after == 0 && n3 == 2, "psi: files of rows no longer shown closed (%d open, "
	      "%lu closes)", after, n3);
	fixture_free(&fx);
	check(open_fds() == before, "psi: none left open after the model is freed");
}

/*
 * What a refresh costs in the calls counted, with 1,000 cgroups with
 * targets and IO in a tenth of them, 100 rows shown: each cgroup's
 * io.stat and each row's io.pressure (the files, as before the walk),
 * against the walk's records and the shown rows' kept files.
 */
static void test_refresh_calls(void)
{
	enum { N = 1000 };
	struct fixture fx = {};
	static struct iolat_iostat_rec recs[N / 10 + 1];
	struct iolat_iostat_set set = {};
	struct iolat_iostat_end end;
	unsigned long files, walk[3];
	char path[64];
	size_t i, nrec = 0;
	int pass;

	mkcg("/sc");
	for (i = 1; i <= N; i++) {
		snprintf(path, sizeof(path), "/sc/g%zu", i);
		mkcg(path);
		put_target(path, DEV1, 1000 + i);
		snprintf(path, sizeof(path), "/sc/g%zu/io.pressure", i);
		put(path, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
		    "full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n");
		if (i % 10)
			continue;
		snprintf(path, sizeof(path), "/sc/g%zu/io.stat", i);
		put(path, "%s", iostat_line(DEV1, 4096 * i, i, NULL));
	}
	put("/sc/io.stat", "%s", iostat_line(DEV1, 4096 * N, N, NULL));
	scan(&fx);
	fixture_filter(&fx, "^/sc");
	for (i = 0; i < fx.cgs.n; i++) {
		const char *p = fx.cgs.v[i].path;
		unsigned long k;

		if (sscanf(p, "/sc/g%lu", &k) == 1 && k % 10 == 0)
			recs[nrec++] = walk_rec(&fx, p, DEV1, 4096 * k, 0, k, 0);
	}
	recs[nrec++] = walk_rec(&fx, "/sc", DEV1, 4096 * N, 0, N, 0);
	for (i = 0; i < nrec; i++)
		recs[i].bytes[2] = recs[i].ios[2] = 0;
	end = walk_end(nrec, 0, 0);
	iolat_iostat_set_fill(&set, &end, sizeof(end), recs, nrec);
	/* A refresh as iolat-top makes it, -r 100, 1 s apart; the second of each kind. */
	for (pass = 0; pass < 2; pass++) {
		calls_since();
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
		fx.m.now_ns = 1000000000ULL * (pass + 1);
		top_model_add_pressure(&fx.m, 100);
		files = calls_since();
	}
	fx.m.iostat = &set;
	for (pass = 0; pass < 3; pass++) {
		calls_since();
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
		fx.m.now_ns = 1000000000ULL * (pass + 3);
		top_model_add_pressure(&fx.m, 100);
		walk[pass] = calls_since();
	}
	printf("     a refresh of %zu rows (1,000 cgroups with targets, IO in 100; %zu in "
	       "the fake tree), 100 shown: %lu calls with the files, %lu with the walk\n",
	       fx.m.n, fx.cgs.n, files, walk[2]);
	/* Each row's counters its record's, found among the 1,000 cgroups. */
	for (i = 0, nrec = 0; i < fx.m.n; i++) {
		const struct top_row *r = &fx.m.v[i];
		unsigned long k = 0;

		if (sscanf(r->path, "/sc/g%lu", &k) != 1)
			continue;	/* /sc */
		nrec += k % 10 ? r->io.has_io || r->io.rbytes : !r->io.has_io ||
			r->io.rbytes != 4096 * k || r->io.ios != k;
	}
	check(!nrec, "calls: with the walk, the 100 busy cgroups' rows have their records' "
	      "counters, the others none: %zu rows wrong", nrec);
	/*
	 * The walk: no pread for the rows shown, whose counters stand still
	 * and whose pressure was 0 at the files' first refresh, 2 to 4 s
	 * before (IOLAT_PSI_QUIET_NS; test_psi_quiet() has the busy ones),
	 * and each time the open of /sc's io.pressure, which the fake tree
	 * lacks.
	 */
	check(fx.m.n == N + 1 && files >= 3 * N && walk[0] == 1 && walk[1] == 1 &&
	      walk[2] == 1,
	      "calls: a refresh with the walk makes no call for rows shown that are idle at "
	      "0 pressure (%lu, %lu, %lu), none per cgroup; with the files %lu", walk[0],
	      walk[1], walk[2], files);
	fx.m.iostat = NULL;
	iolat_iostat_set_free(&set);
	fixture_free(&fx);
}

#define PQ_ZERO "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n" \
	"full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
#define PQ_SOME "some avg10=0.40 avg60=0.00 avg300=0.00 total=9\n" \
	"full avg10=0.00 avg60=0.00 avg300=0.00 total=9\n"

/* /pq/gK's role in test_psi_quiet(): busy (IO, delay paid, use_delay, IO on its 2nd device). */
static bool pq_busy(size_t k)
{
	return k == 0 || k % 100 == 3 || k == 205 || k == 305 || k == 405;
}

/*
 * -P reads every row's io.pressure: at 10,000 cgroups most of them
 * idle and past the files kept open.  1,200 cgroups, 300 files kept:
 * the first refresh reads all; the next ones read only a cgroup busy on
 * some device (IO, delay paid, use_delay) or whose last pressure was
 * not 0, kept open or not, until IOLAT_PSI_QUIET_NS after an idle one's
 * last read, which a change in between waits for.
 */
static void test_psi_quiet(void)
{
	enum { N = 1200, MAX = 300, PASSES = 5 };
	static const double at_s[PASSES] = { 1, 3, 5, 10.5, 12.5 };
	static unsigned char touched[N + 1];
	struct fixture fx = {};
	struct iolat_key gk[2];
	struct iolat_group g[2] = {};
	unsigned long calls[PASSES];
	size_t k, i, wrong[PASSES] = {}, nread[PASSES] = {}, kept_read = 0, unkept_read = 0;
	size_t bad_psi = 0;
	double g500[PASSES];
	char path[64], line[2][128];
	int before, pass;

	mkcg("/pq");
	put("/pq/io.pressure", PQ_ZERO);
	for (k = 1; k <= N; k++) {
		snprintf(path, sizeof(path), "/pq/g%zu", k);
		mkcg(path);
		if (k == 405) {
			snprintf(path, sizeof(path), "/pq/g%zu/io.latency", k);
			put(path, "4000:1 target=1000\n4000:2 target=1000\n");
		} else {
			put_target(path, DEV1, 1000);
		}
		snprintf(path, sizeof(path), "/pq/g%zu/io.pressure", k);
		put(path, "%s", k % 100 == 7 ? PQ_SOME : PQ_ZERO);
	}
	scan(&fx);
	fixture_filter(&fx, "^/pq");
	fx.m.psi.max = MAX;
	fx.m.psi.max_set = true;
	gk[0] = key(&fx, "/pq/g205", DEV1);	/* pays delay, no IO */
	gk[1] = key(&fx, "/pq/g305", DEV1);	/* use_delay on, no IO */
	g[1].use_delay = 1;
	g[1].has_use_delay = 1;
	before = open_fds();
	for (pass = 0; pass < PASSES; pass++) {
		/* IO: /pq (its children are read for it) and a tenth of a tenth. */
		put("/pq/io.stat", "%s", iostat_line(DEV1, 4096ULL * N * (pass + 1),
						     (unsigned long long)N * (pass + 1), NULL));
		for (k = 3; k <= N; k += 100) {
			snprintf(path, sizeof(path), "/pq/g%zu/io.stat", k);
			put(path, "%s", iostat_line(DEV1, 4096ULL * (pass + 1), pass + 1, NULL));
		}
		/* 405: its 4000:1 row idle, the 4000:2 one (sorted after) busy. */
		snprintf(line[0], sizeof(line[0]), "%s", iostat_line(DEV1, 4096, 1, NULL));
		snprintf(line[1], sizeof(line[1]), "%s", iostat_line(DEV2, 4096ULL * (pass + 1),
								   pass + 1, NULL));
		put("/pq/g405/io.stat", "%s%s", line[0], line[1]);
		g[0].paid_ns = 1000000ULL * (pass + 1);
		/* Pressure without its own IO: seen once the idle one's last read is old enough. */
		if (pass == 2)
			put("/pq/g500/io.pressure", PQ_SOME);
		interval(&fx, gk, g, 2, NULL, NULL, 0, 1);
		fx.m.now_ns = (__u64)(at_s[pass] * 1e9);
		memset(touched, 0, sizeof(touched));
		psi_touch = touched;
		psi_touch_n = N + 1;
		calls_since();
		top_model_add_pressure(&fx.m, fx.m.n);
		calls[pass] = calls_since();
		psi_touch = NULL;
		for (k = 0; k <= N; k++) {
			bool want = pass == 0 || pass == PASSES - 1 || pq_busy(k) || k % 100 == 7;

			nread[pass] += touched[k] != 0;
			wrong[pass] += !touched[k] != !want;
			if (pass == 1 && touched[k] == 2)
				kept_read++;
			else if (pass == 1 && touched[k] == 3)
				unkept_read++;
		}
		g500[pass] = row(&fx.m, DEV1, "/pq/g500") ? row(&fx.m, DEV1, "/pq/g500")->psi_some : -1;
		/* Every row has what its file says (g500's aside), read or not. */
		for (i = 0; i < fx.m.n; i++) {
			const struct top_row *r = &fx.m.v[i];

			if (sscanf(r->path, "/pq/g%zu", &k) != 1)
				k = 0;
			if (k != 500)
				bad_psi += r->psi_some != (k % 100 == 7 ? 0.4 : 0) ||
					r->psi_full != 0;
		}
	}
	printf("     io.pressure of %zu rows (%d cgroups, %d files kept), refreshes at "
	       "1, 3, 5, 10.5, 12.5 s: %lu %lu %lu %lu %lu calls, %zu %zu %zu %zu %zu "
	       "cgroups read\n", fx.m.n, N + 1, MAX, calls[0], calls[1], calls[2], calls[3],
	       calls[4], nread[0], nread[1], nread[2], nread[3], nread[4]);
	check(!wrong[0] && nread[0] == N + 1,
	      "psi quiet: the first refresh reads every cgroup (%zu of %d, %lu calls)",
	      nread[0], N + 1, calls[0]);
	check(!wrong[1] && !wrong[2] && nread[1] < 50 && calls[1] < 150 && calls[2] < 150,
	      "psi quiet: the next two read only the busy cgroups and those under pressure "
	      "(%zu, %zu cgroups wrong; %zu read, %lu and %lu calls)", wrong[1], wrong[2],
	      nread[1], calls[1], calls[2]);
	check(kept_read && unkept_read,
	      "psi quiet: of those, kept files read again (%zu) and files past the limit "
	      "opened again (%zu)", kept_read, unkept_read);
	check(!wrong[3] && g500[2] == 0 && g500[3] == 0,
	      "psi quiet: an idle cgroup at 0 not read again 9.5 s after its last read (%zu "
	      "wrong), its new pressure not seen yet (%.2f, %.2f)", wrong[3], g500[2], g500[3]);
	check(!wrong[4] && nread[4] == N + 1 && g500[4] == 0.4,
	      "psi quiet: 11.5 s after it, every cgroup read again (%zu of %d), g500's "
	      "pressure seen (%.2f)", nread[4], N + 1, g500[4]);
	check(!bad_psi, "psi quiet: every row's pressure as its file says, read or kept: "
	      "%zu rows wrong", bad_psi);
	check(iolat_psi_open(&fx.m.psi) == MAX && open_fds() - before == MAX,
	      "psi quiet: %d files kept open (%zu said, %d open), the rest opened when read",
	      MAX, iolat_psi_open(&fx.m.psi), open_fds() - before);
	fixture_free(&fx);
	check(open_fds() == before, "psi quiet: none left open after the model is freed");
}

/*
 * -P's values: an integer in [0, 2^53) written without printf, with the
 * digits "%.17g" writes (what readers parsed before), anything else by
 * printf; the labels escaped as before.  No printf and no call a
 * character per row: at 10,000 rows those were most of a refresh's cost.
 */
static void test_prom_numbers(void)
{
	enum { N = 1000, FEW = 10 };
	static const double psi[] = {
		0, -0.0, 100, 50, 1e-7, 1e22, 900719925474099100.0, 900719925474099200.0,
		-100, 33.333, 9.95, 1e-300, 5e-324, INFINITY, 1.5, 1e17, 4503599627370495.5,
		NAN,
	};
	static const unsigned long long wins[] = {
		0, 1, 9, 10, 4294967296ULL, 9007199254740991ULL, 9007199254740992ULL,
		9007199254740993ULL, 18446744073709551615ULL, 1000000000000000ULL, 123456789,
	};
	static const int delays[] = { -1, 0, 1, 2147483647, -2147483647 - 1 };
	const size_t npsi = sizeof(psi) / sizeof(*psi), nwin = sizeof(wins) / sizeof(*wins);
	const size_t ndel = sizeof(delays) / sizeof(*delays);
	struct fixture fx = {};
	struct top_report rep = {};
	const char *out;
	char path[128], want[512], first[600] = "";
	unsigned long fp[2], fc[2];
	size_t i, lines[2], bad = 0;
	int pass;

	mkcg("/pn");
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/pn/a-rather-longer-name-%04zu", i);
		mkcg(path);
		put_target(path, DEV1, 1000);
	}
	scan(&fx);
	fixture_filter(&fx, "^/pn/");
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	rep.m = &fx.m;
	for (i = 0; i < fx.m.n; i++) {
		struct top_row *r = &fx.m.v[i];

		r->has_group = true;
		r->g.windows = wins[i % nwin];
		r->g.has_use_delay = 1;
		r->g.use_delay = delays[i % ndel];
		r->psi_some = psi[i % npsi];
	}
	out = render(top_print_prom, &rep);
	for (i = 0; i < fx.m.n; i++) {
		const struct top_row *r = &fx.m.v[i];
		char v[64];
		int k;

		for (k = 0; k < 3; k++) {
			double d = k == 1 ? r->g.use_delay : r->psi_some / 100;
			double h = round(r->psi_some * 100);

			if (k == 0) {
				/* A counter: its exact digits. */
				snprintf(v, sizeof(v), "%llu", (unsigned long long)r->g.windows);
			} else if (k == 2 && r->psi_some >= 0 && r->psi_some <= 100 &&
				   fabs(r->psi_some * 100 - h) < 1e-6) {
				/* A pressure in hundredths of a percent: exact. */
				snprintf(v, sizeof(v), "%.4f", fabs(h) / 10000);
				while (strchr(v, '.') && (v[strlen(v) - 1] == '0' ||
							  v[strlen(v) - 1] == '.'))
					v[strlen(v) - 1] = '\0';
			} else if (isinf(d)) {
				snprintf(v, sizeof(v), "+Inf");
			} else {
				snprintf(v, sizeof(v), "%.17g", d);
			}
			if (k == 2)
				snprintf(want, sizeof(want),
					 "\niolat_io_pressure_some_ratio{cgroup=\"%s\"} %s\n",
					 r->path, v);
			else
				snprintf(want, sizeof(want), "\n%s{device=\"4000:1\",cgroup=\"%s\"} %s\n",
					 k ? "iolat_use_delay" : "iolat_windows_total", r->path, v);
			/* A NaN pressure is no metric. */
			if (k == 2 && isnan(d)) {
				snprintf(want, sizeof(want), "\niolat_io_pressure_some_ratio{cgroup="
					 "\"%s\"}", r->path);
				if (strstr(out, want) && !bad++)
					snprintf(first, sizeof(first), "NaN written: %s", want + 1);
				continue;
			}
			if (!strstr(out, want) && !bad++)
				snprintf(first, sizeof(first), "%s", want + 1);
		}
	}
	check(!bad, "prom numbers: counters' exact digits (0, 2^53 + 1, 2^64 - 1, ...), "
	      "pressures in hundredths exact (0.0995, 1), others as \"%%.17g\" writes them "
	      "(-1, 0.33333, 1e20, +Inf, ...): %zu wrong%s%s", bad,
	      bad ? ", first: " : "", first);
	/* Integers all: the calls the writer makes for 1,000 rows and for 10. */
	for (i = 0; i < fx.m.n; i++) {
		fx.m.v[i].g.windows = i * 1000003ULL;
		fx.m.v[i].g.use_delay = 0;
		fx.m.v[i].psi_some = i % 2 ? 100 : 0;
	}
	for (pass = 0; pass < 2; pass++) {
		size_t n = fx.m.n;
		const char *s;

		if (pass)
			fx.m.n = FEW;
		fp[pass] = n_fprintf;
		fc[pass] = n_fputc;
		out = render(top_print_prom, &rep);
		fp[pass] = n_fprintf - fp[pass];
		fc[pass] = n_fputc - fc[pass];
		for (s = out, lines[pass] = 0; (s = strchr(s, '\n')); s++)
			lines[pass]++;
		fx.m.n = n;
	}
	printf("     -P of %d rows: %zu lines, %lu fprintf() and %lu fputc() calls; of %d "
	       "rows: %zu lines, %lu and %lu\n", N, lines[0], fp[0], fc[0], FEW, lines[1],
	       fp[1], fc[1]);
	check(fp[0] == fp[1] && fc[0] - fc[1] <= lines[0] - lines[1],
	      "prom numbers: integers and plain labels cost no printf a row (%lu calls for "
	      "%d rows, %lu for %d) and at most a fputc() a line (%lu more for %zu more lines)",
	      fp[0], N, fp[1], FEW, fc[0] - fc[1], lines[0] - lines[1]);
	fixture_free(&fx);
}

/*
 * -P keeps each path's label value from one report to the next, by the
 * path's address: a walk frees the paths, and a new one may get an old
 * one's address, as here, where the row's path is made another in place
 * and the tree's paths_gen moves on as a walk's would.  The label must
 * be the new path's.
 */
static void test_prom_label_kept(void)
{
	struct fixture fx = {};
	struct top_report rep = {};
	const char *out;
	bool first, second;

	mkcg("/lk");
	mkcg("/lk/old-name");
	put_target("/lk/old-name", DEV1, 1000);
	scan(&fx);
	fixture_filter(&fx, "^/lk/");
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	rep.m = &fx.m;
	out = render(top_print_prom, &rep);
	first = fx.m.n == 1 && strstr(out, "cgroup=\"/lk/old-name\"} 0.001\n");
	if (fx.m.n == 1)
		memcpy((char *)fx.m.v[0].path, "/lk/new-name", strlen("/lk/new-name"));
	fx.cgs.paths_gen++;
	out = render(top_print_prom, &rep);
	second = strstr(out, "cgroup=\"/lk/new-name\"} 0.001\n") && !strstr(out, "old-name");
	check(first && second, "prom labels kept: a new path at an old path's address, "
	      "after a walk, has its own label");
	fixture_free(&fx);
}

/*
 * The one escape, for Prometheus labels and JSON strings, where a run of
 * plain bytes is written whole: the same bytes as one escape at a time.
 */
static void test_label_runs(void)
{
	static const struct {
		const char *in, *label, *json;
	} cases[] = {
		{ "", "", "\"\"" },
		{ "/plain/path-0", "/plain/path-0", "\"/plain/path-0\"" },
		{ "/a\"b\\c", "/a\\\"b\\\\\\\\c", "\"/a\\\"b\\\\\\\\c\"" },
		{ "\x01/d\xc3\xa9" "e\xff" "z\x7f", "\\\\x01/d\xc3\xa9" "e\\\\xffz\\\\x7f",
		  "\"\\\\x01/d\xc3\xa9" "e\\\\xffz\\\\x7f\"" },
		{ "x\xc2\x85y\xe2\x80\xaez\"", "x\\\\xc2\\\\x85y\\\\xe2\\\\x80\\\\xaez\\\"",
		  "\"x\\\\xc2\\\\x85y\\\\xe2\\\\x80\\\\xaez\\\"\"" },
		{ "\xe6\x97\xa5\xe6\x9c\xac/\t", "\xe6\x97\xa5\xe6\x9c\xac/\\\\x09",
		  "\"\xe6\x97\xa5\xe6\x9c\xac/\\\\x09\"" },
	};
	size_t i, bad = 0;
	char got[2][512], *buf;
	size_t len;
	FILE *f;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		f = open_memstream(&buf, &len);
		iolat_prom_label(f, cases[i].in);
		fclose(f);
		snprintf(got[0], sizeof(got[0]), "%s", buf);
		free(buf);
		f = open_memstream(&buf, &len);
		iolat_json_str(f, cases[i].in);
		fclose(f);
		snprintf(got[1], sizeof(got[1]), "%s", buf);
		free(buf);
		if (strcmp(got[0], cases[i].label) || strcmp(got[1], cases[i].json)) {
			bad++;
			printf("     case %zu: label '%s' json '%s'\n", i, got[0], got[1]);
		}
	}
	/* Its own text: JSON's escapes alone. */
	f = open_memstream(&buf, &len);
	iolat_json_text(f, "a\x01\"b\\c\x1f\xc3\xa9");
	fclose(f);
	check(!bad && !strcmp(buf, "\"a\\u0001\\\"b\\\\c\\u001f\xc3\xa9\""),
	      "labels: escaped names in runs, the same bytes (%zu wrong); own text: %s", bad, buf);
	free(buf);
}

/*
 * A report of -r K rows sorts only its K first (a selection, then a
 * sort of those): the same K rows in the same order as a sort of all,
 * every row still there once; by path (two devices, their names from
 * the same buffer as they are gone) and by a value.
 */
static void test_sort_first(void)
{
	enum { N = 400 };
	struct fixture fx = {};
	struct top_row *full;
	char path[64];
	size_t i, k, j, bad, missing, ks[] = { 1, 37, 200, 399, 400, 1000 };
	int key;

	mkcg("/sf");
	for (i = 0; i < N / 2; i++) {
		snprintf(path, sizeof(path), "/sf/c%zu", (i * 7919) % 1000);
		mkcg(path);
		snprintf(path, sizeof(path), "/sf/c%zu/io.latency", (i * 7919) % 1000);
		put(path, "4000:2 target=1000\n4000:1 target=%zu\n", i);
	}
	scan(&fx);
	fixture_filter(&fx, "^/sf/");
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	for (key = 0; key < 2; key++) {
		enum top_sort sort = key ? TOP_SORT_IOPS : TOP_SORT_PATH;

		for (j = 0; j < sizeof(ks) / sizeof(*ks); j++) {
			k = ks[j];
			for (i = 0; i < fx.m.n; i++)	/* a value, ties among them */
				fx.m.v[i].iops = (fx.m.v[i].cgid * 31 + fx.m.v[i].dev) % 97;
			top_model_sort(&fx.m, sort);
			full = malloc(fx.m.n * sizeof(*full));
			memcpy(full, fx.m.v, fx.m.n * sizeof(*full));
			/* Shuffle, then the first k alone. */
			for (i = fx.m.n - 1; i > 0; i--) {
				struct top_row t = fx.m.v[i];
				size_t o = (i * 2654435761U) % (i + 1);

				fx.m.v[i] = fx.m.v[o];
				fx.m.v[o] = t;
			}
			top_model_sort_first(&fx.m, sort, k);
			for (i = bad = 0; i < k && i < fx.m.n; i++)
				bad += full[i].dev != fx.m.v[i].dev || full[i].cgid != fx.m.v[i].cgid;
			for (i = missing = 0; i < fx.m.n; i++)
				missing += row(&fx.m, full[i].dev, full[i].path) == NULL;
			check(fx.m.n == N && !bad && !missing && full[0].dev == (key ? full[0].dev : DEV1),
			      "sort: the %zu first of %zu rows by %s as a whole sort has them "
			      "(%zu differ, %zu missing)", k, fx.m.n, top_sort_names[sort], bad, missing);
			free(full);
		}
	}
	fixture_free(&fx);
	/* Gone devices by name, where the numbers say otherwise: 4000:10 first. */
	mkcg("/sg");
	put("/sg/io.latency", "4000:9 target=1000\n4000:10 target=1000\n");
	scan(&fx);
	fixture_filter(&fx, "^/sg$");
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	check(fx.m.n == 2 && fx.m.v[0].dev == IOLAT_MKDEV(4000U, 10U),
	      "sort: devices by name (4000:10 before 4000:9), both gone: %s first",
	      fx.m.n ? iolat_dev_name(fx.m.v[0].dev) : "none");
	fixture_free(&fx);
}

/*
 * The text report's numbers without printf: iolat_fmt_fixed() writes
 * what "%.*f" writes, to the byte, cut where snprintf() cuts: ties (a
 * half exactly: to the even digit), the decimals that are not quite
 * what they say (0.05, 9.95, 99.95 are a little above or below), the
 * widths they change (9.95 -> "10.0"), zero and the smallest doubles;
 * what it leaves to snprintf() (negative, -0, NAN, inf, 2^52 and over,
 * four decimals); values from 0.001 apart to random bit patterns.
 * Then a row with such values, as the text shows it.
 */
static void test_text_numbers(void)
{
	static const double special[] = {
		0, 0.5, 1.5, 2.5, 0.125, 0.375, 0.05, 0.15, 0.25, 0.35, 0.45, 0.95, 9.95,
		99.95, 999.95, 2.675, 1.005, 0.9995, 5e-324, 1e-300, 4503599627370495.5,
		4503599627370496.0, 1e300, -0.0, -1.5, NAN, INFINITY, -INFINITY,
	};
	char a[400], b[400];
	size_t sizes[] = { sizeof(a), 5, 1 }, bad = 0, n = 0, i, s;
	unsigned long long x = 88172645463325252ULL;
	double v;
	int prec, la, lb;

	for (i = 0; i < 400000; i++) {
		if (i < sizeof(special) / sizeof(*special))
			v = special[i];
		else if (i < 150000)
			v = i / 1000.0;			/* every x.xx5 */
		else if (i < 250000)
			v = nextafter((i - 150000 + 0.5) / 100.0, i % 2 ? 0 : 1e9);
		else {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (i % 2)
				memcpy(&v, &x, sizeof(v));	/* any double */
			else
				v = (double)(x >> 11) / (1ULL << (x % 60));
		}
		for (prec = 0; prec <= 4; prec++) {
			for (s = 0; s < sizeof(sizes) / sizeof(*sizes); s++) {
				memset(a, 'x', sizeof(a));
				memset(b, 'x', sizeof(b));
				la = snprintf(a, sizes[s], "%.*f", prec, v);
				lb = iolat_fmt_fixed(b, sizes[s], v, prec);
				n++;
				if (la == lb && !memcmp(a, b, sizes[s]))
					continue;
				if (!bad++)
					printf("     %.17g, %d decimals, %zu bytes: printf '%s', "
					       "iolat_fmt_fixed '%s'\n", v, prec, sizes[s], a, b);
			}
		}
		snprintf(a, sizeof(a), "%llu", x + i);
		lb = iolat_fmt_u64(b, sizeof(b), x + i);
		n++;
		bad += lb != (int)strlen(a) || strcmp(a, b);
	}
	check(!bad, "text numbers: iolat_fmt_fixed() and iolat_fmt_u64() write what "
	      "snprintf() writes: %zu of %zu differ", bad, n);

	/* A row whose figures round: the cells as printf made them. */
	{
		struct fixture fx = {};
		struct top_report rep;
		struct top_row *r;
		const char *line;

		mkcg("/tn");
		put_target("/tn", DEV1, 1000);
		scan(&fx);
		fixture_filter(&fx, "^/tn$");
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
		r = row(&fx.m, DEV1, "/tn");
		if (r) {
			r->iops = 2.5;		/* a tie: to 2 */
			r->rmbps = 9.9;
			r->wmbps = 0.05;	/* 9.95000000000000106...: 10.0 */
			r->charged = 99.95;	/* 99.9500000000000028...: 100.0 */
			r->paid = 0.25;		/* a tie: 0.2 */
			r->waits = 3.5;		/* a tie: 4 */
			r->psi_some = 9.95;	/* 9.949999999999999289...: 9.9 */
			r->psi_full = 0.05;	/* 0.1 */
		}
		rep = (struct top_report){ .m = &fx.m, .secs = 1, .rows = 100, .batch = true };
		line = text_row(render(top_print_text, &rep), "/tn");
		check(r && strstr(line, "     1000 ") &&
		      strstr(line, "       2    10.0 ") && strstr(line, " 100.0    0.2      4 ") &&
		      strstr(line, "     9.9/0.1"),
		      "text numbers: a row's rates and PSI rounded as printf does: %s", line);
		fixture_free(&fx);
	}
}

/* A refresh of the targets as iolat-top's, its @k first rows by path. */
static void refresh_sorted(struct fixture *fx, size_t k)
{
	top_model_begin(&fx->m, &fx->cgs);
	top_model_add_targets(&fx->m, &fx->targets);
	top_model_add_io(&fx->m);
	top_model_compute(&fx->m, 1);
	top_model_sort_first(&fx->m, TOP_SORT_PATH, k);
}

/*
 * A sort by path keeps its order for the next refresh with the same
 * rows in the same places (no comparison then): the same order again;
 * and not when a device's name changed (a disk gone, another at its
 * number), which the order by path rests on.
 */
static void test_sort_memo(void)
{
	static const char *const paths[] = { "/sm/a", "/sm/b", "/sm/c", NULL };
	struct fixture fx = {};
	char first[512] = "", again[512] = "", fn[8400], sys[8300];
	size_t i;
	int k;

	fake_sys_block();
	mkcg("/sm");
	for (i = 0; paths[i]; i++) {
		mkcg(paths[i]);
		snprintf(fn, sizeof(fn), "%s/io.latency", paths[i]);
		put(fn, "4000:1 target=1000\n4000:2 target=2000\n");
	}
	scan(&fx);
	fixture_filter(&fx, "^/sm/");
	for (k = 0; k < 2; k++) {
		refresh_sorted(&fx, 4);
		for (i = 0; i < fx.m.n; i++)
			snprintf(k ? again + strlen(again) : first + strlen(first), 64, " %s:%s",
				 iolat_dev_name(fx.m.v[i].dev), fx.m.v[i].path);
	}
	check(fx.m.n == 6 && !strcmp(first, again) && strstr(first, " fake1:/sm/a fake1:/sm/b"),
	      "sort memo: the same rows, the same order:%s", again);
	/* 4000:1 is "zfake" now: its rows after fake2's. */
	snprintf(sys, sizeof(sys), "%s/../sysblk", root);
	snprintf(fn, sizeof(fn), "%s/zfake", sys);
	mkdir(fn, 0755);
	snprintf(fn, sizeof(fn), "%s/4000:1", sys);
	unlink(fn);
	symlink("./zfake", fn);
	iolat_dev_cache_reset();
	refresh_sorted(&fx, 4);
	check(fx.m.n == 6 && fx.m.v[0].dev == DEV2 && fx.m.v[3].dev == DEV1,
	      "sort memo: a device's new name reorders its rows (%s first)",
	      fx.m.n ? iolat_dev_name(fx.m.v[0].dev) : "none");
	unlink(fn);
	symlink("./fake1", fn);
	iolat_sys_block_set(NULL);
	iolat_dev_cache_reset();
	fixture_free(&fx);
}

/* The paths of @m's first @n rows, each after a space (static). */
static const char *paths_of(const struct top_model *m, size_t n)
{
	static char buf[8192];
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < m->n && at < sizeof(buf); i++)
		at += snprintf(buf + at, sizeof(buf) - at, " %s", m->v[i].path);
	return buf;
}

/* The paths of the rows of a JSON report or a text one, in their order (static). */
static const char *paths_in(const char *out, bool json)
{
	static char buf[8192];
	const char *key = json ? "\"cgroup\":\"" : "\n4000:1   ", *s, *e;
	size_t at = 0;

	buf[0] = '\0';
	for (s = out; (s = strstr(s, key)) && at < sizeof(buf); s = e) {
		s += strlen(key);
		e = s + strcspn(s, json ? "\"" : " \n");
		at += snprintf(buf + at, sizeof(buf) - at, " %.*s", (int)(e - s), s);
	}
	return buf;
}

/*
 * The default order, by state: what needs a look first, whatever its
 * path.  A tree where 50 idle groups sort before the rest by path: a
 * group missing its windows (its parent /st names it culprit), a
 * throttled sibling, a delayed one, two doing IO; /su throttled, its
 * line naming /su/q.  Missing, throttled and delayed come first, each
 * culprit right after the parent that names it, then by IO, the idle
 * last; -r never shows a parent without the culprit its line names;
 * IOPS that jitter (the same states) move no row.
 */
static void test_state_order(void)
{
	enum { IDLE = 50 };
	static const char *const busy[] = { "/st/m", "/st/t", "/st/d", "/st/io1", "/st/io2",
					    "/su", "/su/q" };
	static const char *const want_cut4 = " /st /st/m /su /su/q";
	char want[4096], first[4096], path[64];
	struct fixture fx = {};
	struct iolat_key gk[4], pk[2];
	struct iolat_group g[4] = {
		{ .has_window = 1, .last_met = 0, .last_action = IOLAT_ACT_DOWN,
		  .windows = 3, .windows_missed = 3, .depth = IOLAT_DEPTH_MAX, .has_depth = 1,
		  .depth_slot = { { 0, IOLAT_DEPTH_MAX, IOLAT_DEPTH_MAX } } },
		{ .depth = 2, .has_depth = 1, .depth_slot = { { 0, 2, 2 } } },
		{ .use_delay = 1, .has_use_delay = 1, .depth = IOLAT_DEPTH_MAX, .has_depth = 1,
		  .depth_slot = { { 0, IOLAT_DEPTH_MAX, IOLAT_DEPTH_MAX } } },
		{ .depth = 4, .has_depth = 1, .depth_slot = { { 0, 4, 4 } } },
	};
	struct iolat_parent p[2] = { { .cookie = 999990 }, { .cookie = TOP_DEFAULT_COOKIE } };
	struct top_report rep = { .secs = 1, .rows = 1000, .batch = true };
	/* IOPS of io1 and io2 each refresh: 50 and 300, then across 100 both ways. */
	static const unsigned int iops[3][2] = { { 0, 0 }, { 50, 300 }, { 110, 95 } };
	unsigned long long ios[2] = { 0, 0 };
	const char *out;
	size_t i;
	int r, err = 0;

	mkcg("/st");
	mkcg("/su");
	for (i = 0; i < IDLE; i++) {
		snprintf(path, sizeof(path), "/st/a%02zu", i);
		mkcg(path);
		put_target(path, DEV1, 1000);
	}
	for (i = 0; i < sizeof(busy) / sizeof(*busy); i++) {
		mkcg(busy[i]);
		put_target(busy[i], DEV1, 2000);
	}
	scan(&fx);
	fixture_filter(&fx, "^/s[tu](/|$)");
	gk[0] = key(&fx, "/st/m", DEV1);
	gk[1] = key(&fx, "/st/t", DEV1);
	gk[2] = key(&fx, "/st/d", DEV1);
	gk[3] = key(&fx, "/su", DEV1);
	pk[0] = key(&fx, "/st", DEV1);
	pk[1] = key(&fx, "/su", DEV1);
	p[0].culprit_id = cgid(&fx.cgs, "/st/m");
	p[1].culprit_id = cgid(&fx.cgs, "/su/q");
	rep.m = &fx.m;
	snprintf(want, sizeof(want), " /st /st/m /st/t /su /su/q /st/d /st/io2 /st/io1");
	for (i = 0; i < IDLE; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), " /st/a%02zu", i);
	for (r = 0; r < 3; r++) {
		ios[0] += iops[r][0];
		ios[1] += iops[r][1];
		put("/st/io1/io.stat", "%s", iostat_line(DEV1, 4096 * ios[0], ios[0], NULL));
		put("/st/io2/io.stat", "%s", iostat_line(DEV1, 4096 * ios[1], ios[1], NULL));
		put("/st/io.stat", "%s", iostat_line(DEV1, 4096 * (ios[0] + ios[1]),
						     ios[0] + ios[1], NULL));
		err |= interval(&fx, gk, g, 4, pk, p, 2, 1);
		top_model_sort_first(&fx.m, TOP_SORT_DEFAULT, 1000);
		if (r == 1)
			snprintf(first, sizeof(first), "%s", paths_of(&fx.m, fx.m.n));
	}
	check(!err && fx.m.n == IDLE + 8 && !strcmp(first, want),
	      "state order: missing, throttled, delayed, then by IO, the idle last, a "
	      "culprit after its parent:%.200s (want%.200s)", first, want);
	check(!strcmp(paths_of(&fx.m, fx.m.n), first),
	      "state order: IOPS across 100 both ways (50 -> 110, 300 -> 95), the same "
	      "states: no row moves:%.200s", paths_of(&fx.m, fx.m.n));
	out = render(top_print_json, &rep);
	check(!strcmp(paths_in(out, true), first), "state order: JSON's rows in it:%.200s",
	      paths_in(out, true));
	out = render(top_print_text, &rep);
	check(!strcmp(paths_in(out, false), first), "state order: the text's rows in it:%.200s",
	      paths_in(out, false));
	/* -r 5: the first five; -r 4 would end between /su and its culprit. */
	top_model_sort_first(&fx.m, TOP_SORT_DEFAULT, 5);
	rep.rows = 5;
	out = render(top_print_json, &rep);
	check(!strcmp(paths_in(out, true), " /st /st/m /st/t /su /su/q") &&
	      strstr(out, "\"rows_shown\":5,"),
	      "state order, -r 5: the two culprits and their parents:%s", paths_in(out, true));
	top_model_sort_first(&fx.m, TOP_SORT_DEFAULT, 4);
	rep.rows = 4;
	out = render(top_print_json, &rep);
	check(!strcmp(paths_in(out, true), want_cut4),
	      "state order, -r 4: /su/q, which /su's line names, shown in /st/t's place:%s",
	      paths_in(out, true));
	out = render(top_print_text, &rep);
	check(!strcmp(paths_in(out, false), want_cut4) && strstr(out, "scaled for /st/m") &&
	      strstr(out, "scaled for /su/q"),
	      "state order, -r 4: the text's rows, and the parents' lines:%s",
	      paths_in(out, false));
	/* By path, as before: the tree. */
	top_model_sort(&fx.m, TOP_SORT_PATH);
	check(!strcmp(fx.m.v[0].path, "/st") && !strcmp(fx.m.v[1].path, "/st/a00"),
	      "sort by path: the tree order still (%s, %s first)", fx.m.v[0].path,
	      fx.m.v[1].path);
	/* The terminal: a screen of 10 lines, 60 columns. */
	top_model_sort(&fx.m, TOP_SORT_DEFAULT);
	rep.rows = 1000;
	rep.batch = false;
	rep.lines = 10;
	rep.cols = 60;
	{
		size_t fit10 = top_text_fit(&rep), fit9, fit_r2, lines = 0, wide = 0;
		const char *s, *e;

		rep.lines = 9;
		fit9 = top_text_fit(&rep);
		rep.rows = 2;
		fit_r2 = top_text_fit(&rep);
		rep.rows = 1000;
		/* 2 header lines, 1 for the cursor; /st and /su take 2 lines each. */
		check(fit10 == 5 && fit9 == 3 && fit_r2 == 2,
		      "terminal: rows that fit in 10 lines (5: two with a parent's line), 9 "
		      "(3: /su would lose its culprit), 9 with -r 2 (2): %zu %zu %zu",
		      fit10, fit9, fit_r2);
		out = render(top_print_text, &rep);
		out = strstr(out, "\033[2J") ? strstr(out, "\033[2J") + 4 : out;
		for (s = out; *s; s = *e ? e + 1 : e) {
			e = s + strcspn(s, "\n");
			lines++;
			wide += e - s > 60;
		}
		/* The title, the names, /st and its line, /st/m, /st/t. */
		check(lines == 6 && !wide && strstr(out, "(3 shown") &&
		      !strcmp(paths_in(out, false), " /st /st/m /st/t"),
		      "terminal: 9 lines, 60 columns: %zu lines, %zu wider, rows%s", lines, wide,
		      paths_in(out, false));
		rep.lines = rep.cols = 0;
		rep.batch = true;
		out = render(top_print_text, &rep);
		check(strlen(text_row(out, "/st/t")) > 150 && !strcmp(paths_in(out, false), first),
		      "terminal: none (a pipe): every row, whole lines: %s", text_row(out, "/st/t"));
	}
	check(top_text_room(&fx.m, 24) == 21 && top_text_room(&fx.m, 3) == 0 &&
	      top_text_room(&fx.m, 0) == (size_t)-1,
	      "terminal: room for 21 rows in 24 lines, none in 3, no limit without one: "
	      "%zu %zu %zu", top_text_room(&fx.m, 24), top_text_room(&fx.m, 3),
	      top_text_room(&fx.m, 0));
	fx.m.mode = TOP_MODE_IOSTAT;
	fx.m.debug_stats = 0;
	check(top_text_room(&fx.m, 24) == 18,
	      "terminal: the io.stat mode's 3 more header lines counted: %zu",
	      top_text_room(&fx.m, 24));
	fx.m.mode = TOP_MODE_EVENTS;
	fixture_free(&fx);
}

/*
 * The state order at scale: 10,000 rows, every refresh.  A quiet refresh
 * (the same rows, the same states) compares no row; one where the
 * states moved sorts again, O(n) for the first k and O(k log k) for
 * their order.  Neither allocates once the buffers are there.
 */
/* Milliseconds since *@t, and *@t now. */
static double ms_lap(struct timespec *t)
{
	struct timespec now;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - t->tv_sec) * 1e3 + (now.tv_nsec - t->tv_nsec) / 1e6;
	*t = now;
	return ms;
}

/* A refresh of the targets, @setup(m) before its computation. */
static void refresh_rows(struct fixture *fx, void (*setup)(struct top_model *))
{
	top_model_begin(&fx->m, &fx->cgs);
	top_model_add_targets(&fx->m, &fx->targets);
	if (setup)
		setup(&fx->m);
	top_model_compute(&fx->m, 1);
}

/* Every tenth row throttled. */
static void tenth_throttled(struct top_model *m)
{
	size_t i;

	for (i = 0; i < m->n; i += 10) {
		m->v[i].g.depth = 3;
		m->v[i].g.has_depth = 1;
	}
}

/*
 * The state order at scale: 10,000 rows, every refresh.  A quiet refresh
 * (the same rows, the same ranks) compares no row, as by path; one where
 * the states moved selects again, O(n) for the first k and O(k log k)
 * for their order.  Neither allocates once the buffers are there.  The
 * times are printed beside the order by path's, for the record.
 */
static void test_state_order_scale(void)
{
	enum { N = 10000, K = 1000 };
	struct fixture fx = {};
	char path[64];
	struct timespec t;
	double path_first, path_quiet, first, quiet, moved;
	size_t i;
	void *v, *order;
	bool ok, first_ok;

	mkcg("/so");
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/so/g%05zu", (i * 7919) % N);
		mkcg(path);
		put_target(path, DEV1, 1000);
	}
	scan(&fx);
	fixture_filter(&fx, "^/so/");
	refresh_rows(&fx, NULL);
	ms_lap(&t);
	top_model_sort_first(&fx.m, TOP_SORT_PATH, K);
	path_first = ms_lap(&t);
	refresh_rows(&fx, NULL);
	ms_lap(&t);
	top_model_sort_first(&fx.m, TOP_SORT_PATH, K);
	path_quiet = ms_lap(&t);
	refresh_rows(&fx, NULL);
	ms_lap(&t);
	top_model_sort_first(&fx.m, TOP_SORT_DEFAULT, K);
	first = ms_lap(&t);
	v = fx.m.v;
	order = fx.m.order;
	refresh_rows(&fx, NULL);
	ms_lap(&t);
	top_model_sort_first(&fx.m, TOP_SORT_DEFAULT, K);
	quiet = ms_lap(&t);
	first_ok = !strcmp(fx.m.v[0].path, "/so/g00000") && !strcmp(fx.m.v[1].path, "/so/g00001");
	/* Every tenth throttled now: they come first, in path order. */
	refresh_rows(&fx, tenth_throttled);
	ms_lap(&t);
	top_model_sort_first(&fx.m, TOP_SORT_DEFAULT, K);
	moved = ms_lap(&t);
	ok = fx.m.n == N && first_ok;
	for (i = 0; ok && i < K; i++)
		ok = !strcmp(fx.m.v[i].state, "throttled") &&
		     (!i || strcmp(fx.m.v[i - 1].path, fx.m.v[i].path) < 0);
	printf("     %d rows, %d first: by path %.2f ms, %.2f ms quiet; by state %.2f ms "
	       "(all idle), %.2f ms quiet, %.2f ms after a tenth changed state\n",
	       N, K, path_first, path_quiet, first, quiet, moved);
	check(ok && fx.m.order == order && (fx.m.v == v || fx.m.spare == v),
	      "state order at %d rows: by path while all are idle, then the throttled "
	      "first in path order (%s first), no buffer made again", N, fx.m.v[0].path);
	fixture_free(&fx);
}

/*
 * The sample at scale: 10,000 rows, 20,000 records (two devices), each
 * row's group found through the records' table, in about the time a
 * refresh takes without them.  A search of the records for each row
 * would be 2 x 10^8 comparisons a refresh.
 */
static void test_sample_scale(void)
{
	enum { N = 10000 };
	struct fixture fx = {};
	struct iolat_state *st = calloc(2 * N, sizeof(*st));
	struct timespec t;
	double without, with;
	char path[64];
	size_t i, found = 0;

	mkcg("/ss");
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/ss/g%05zu", i);
		mkcg(path);
		put_target(path, DEV1, 1000);
	}
	scan(&fx);
	fixture_filter(&fx, "^/ss/");
	fx.m.mode = TOP_MODE_IOSTAT;
	for (i = 0; i < N; i++) {
		snprintf(path, sizeof(path), "/ss/g%05zu", (i * 7919) % N);
		st[2 * i] = sample_rec(&fx, path, DEV2, IOLAT_DEPTH_MAX, TOP_DEFAULT_COOKIE);
		st[2 * i + 1] = sample_rec(&fx, path, DEV1, 1 + i % 8, 999990);
	}
	refresh_rows(&fx, NULL);	/* the buffers made once */
	ms_lap(&t);
	refresh_rows(&fx, NULL);
	without = ms_lap(&t);
	top_model_begin(&fx.m, &fx.cgs);
	top_model_add_targets(&fx.m, &fx.targets);
	top_model_add_state(&fx.m, st, 2 * N);
	top_model_compute(&fx.m, 1);
	with = ms_lap(&t);
	for (i = 0; i < fx.m.n; i++)
		found += fx.m.v[i].st && fx.m.v[i].st->dev == DEV1 &&
			 fx.m.v[i].st->cgroup_id == fx.m.v[i].cgid && fx.m.v[i].g.depth < 9;
	printf("     %d rows, %d records: a refresh %.2f ms without the sample, %.2f ms with\n",
	       N, 2 * N, without, with);
	check(fx.m.n == N && found == N && with < without + 50,
	      "sample at %d rows: each row's record found (%zu), %.2f ms more than without",
	      N, found, with - without);
	free(st);
	fixture_free(&fx);
}

/* blk_cgroup's parameter read as on, off, unknown; io.pressure parsed. */
static void test_debug_param(void)
{
	char fn[8192];
	double some = -1, full = -1;
	int on, off, gone, rc;

	snprintf(fn, sizeof(fn), "%s/param", root);
	iolat_debug_stats_path_set(fn);
	put("/param", "Y\n");
	on = iolat_debug_stats();
	put("/param", "N\n");
	off = iolat_debug_stats();
	unlink(fn);
	gone = iolat_debug_stats();
	iolat_debug_stats_path_set(NULL);
	check(on == 1 && off == 0 && gone == -1,
	      "blkcg_debug_stats: Y on, N off, no file unknown (%d %d %d)", on, off, gone);
	mkcg("/psi");
	put("/psi/io.pressure", "some avg10=0.50 avg60=0.10 avg300=0.00 total=9\n"
	    "full avg10=0.25 avg60=0.00 avg300=0.00 total=3\n");
	rc = iolat_pressure_read("/psi", &some, &full);
	check(!rc && some == 0.5 && full == 0.25, "io.pressure: some 0.5, full 0.25 (%d)", rc);
	/*
	 * The kernel's "%lu.%02lu", read without strtod(): the same double
	 * (the one nearest the decimal) for every value 0.00 to 100.99;
	 * other forms as sscanf() reads them.
	 */
	{
		static const char *const odd[] = { "1.5e1", "12.345678901234567", "7", " 3.25",
						   "0.125", "inf", "99.95x" };
		char text[64];
		int i, bad = 0;

		for (i = 0; i <= 10099; i++) {
			snprintf(text, sizeof(text), "%d.%02d", i / 100, i % 100);
			put("/psi/io.pressure", "some avg10=%s avg60=0.10 avg300=0.00 total=9\n"
			    "full avg10=%d.%d avg60=0.00 avg300=0.00 total=3\n", text, i % 7, i);
			rc = iolat_pressure_read("/psi", &some, &full);
			snprintf(fn, sizeof(fn), "%d.%d", i % 7, i);
			bad += rc || some != strtod(text, NULL) || full != strtod(fn, NULL);
		}
		for (i = 0; i < (int)(sizeof(odd) / sizeof(*odd)); i++) {
			put("/psi/io.pressure", "some avg10=%s avg60=0.10\nfull avg10=1.00\n", odd[i]);
			rc = iolat_pressure_read("/psi", &some, &full);
			bad += rc || sscanf(odd[i], "%lf", &full) != 1 || some != full;
		}
		check(!bad, "io.pressure: avg10 read as strtod() reads it: %d of %d values differ",
		      bad, 10100 + i);
	}
	put("/psi/io.pressure", "garbage\n");
	check(iolat_pressure_read("/psi", &some, &full) < 0, "io.pressure: no avg10: none");
	check(iolat_pressure_read("/", &some, &full) < 0 &&
	      iolat_pressure_read("/nonesuch", &some, &full) < 0,
	      "io.pressure: the root's and a missing one: none");
}

/*
 * A row's first interval has no baseline to take a rate against: its
 * rates are unknown (JSON null, text "?"), never 0; the next interval's
 * are numbers.  The first refresh's rows, and a row that appears later
 * (a cgroup that started doing IO).
 */
static void test_first_interval(void)
{
	struct fixture fx = {};
	struct top_report rep = { .secs = 1, .rows = 100, .batch = true };
	struct top_row *r;
	char text[1024], json[4096];

	mkcg("/fi");
	mkcg("/fi/a");
	mkcg("/fi/b");
	put_target("/fi/a", DEV1, 1000);
	/* A parent's io.stat counts its children's IO (none: not read). */
	put("/fi/io.stat", "%s", iostat_line(DEV1, 1000000, 100, NULL));
	put("/fi/a/io.stat", "%s", iostat_line(DEV1, 1000000, 100, NULL));
	scan(&fx);
	fixture_filter(&fx, "^/fi/");
	fx.m.dev = DEV1;
	rep.m = &fx.m;
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/fi/a");
	check(r && isnan(r->iops) && isnan(r->rmbps) && isnan(r->wmbps) &&
	      isnan(r->charged) && isnan(r->paid) && isnan(r->waits),
	      "first interval: /fi/a's rates unknown (iops %g, MB/s %g, CHG/s %g, WAIT/s %g)",
	      r ? r->iops : -1, r ? r->rmbps : -1, r ? r->charged : -1, r ? r->waits : -1);
	snprintf(json, sizeof(json), "%s", json_row(render(top_print_json, &rep), "/fi/a"));
	snprintf(text, sizeof(text), "%s", text_row(render(top_print_text, &rep), "/fi/a"));
	check(strstr(json, "\"iops\":null,\"read_mbps\":null,\"write_mbps\":null,") &&
	      strstr(json, "\"delay_charged_ms_per_s\":null,\"delay_paid_ms_per_s\":null,"
		     "\"throttled_bios_per_s\":null,"),
	      "first interval: JSON rates null: %s", json);
	check(!strcmp(field(text, 8), "?") && !strcmp(field(text, 9), "?") &&
	      !strcmp(field(text, 15), "?") && !strcmp(field(text, 17), "?"),
	      "first interval: text IOPS, MB/s, CHG/s, WAIT/s '?': %s", text);

	/* The second: /fi/a's rates; /fi/b's first (its IO makes it a row). */
	put("/fi/io.stat", "%s", iostat_line(DEV1, 8000000, 800, NULL));
	put("/fi/a/io.stat", "%s", iostat_line(DEV1, 3000000, 300, NULL));
	put("/fi/b/io.stat", "%s", iostat_line(DEV1, 5000000, 500, NULL));
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/fi/a");
	check(r && r->iops == 200 && r->rmbps == 2 && r->charged == 0,
	      "second interval: /fi/a's rates (iops %g, MB/s %g, CHG/s %g)",
	      r ? r->iops : -1, r ? r->rmbps : -1, r ? r->charged : -1);
	snprintf(json, sizeof(json), "%s", json_row(render(top_print_json, &rep), "/fi/a"));
	snprintf(text, sizeof(text), "%s", text_row(render(top_print_text, &rep), "/fi/a"));
	check(strstr(json, "\"iops\":200.0,\"read_mbps\":2.000,\"write_mbps\":0.000,") &&
	      !strcmp(field(text, 8), "200") && !strcmp(field(text, 9), "2.0"),
	      "second interval: /fi/a's rates as numbers: %s | %s", json, text);
	r = row(&fx.m, DEV1, "/fi/b");
	snprintf(json, sizeof(json), "%s", json_row(render(top_print_json, &rep), "/fi/b"));
	check(r && isnan(r->iops) && strstr(json, "\"iops\":null,\"read_mbps\":null,"),
	      "second interval: /fi/b's first, its rates null: %s", json);
	put("/fi/io.stat", "%s", iostat_line(DEV1, 9000000, 900, NULL));
	put("/fi/b/io.stat", "%s", iostat_line(DEV1, 6000000, 600, NULL));
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	r = row(&fx.m, DEV1, "/fi/b");
	check(r && r->iops == 100 && r->rmbps == 1,
	      "third interval: /fi/b's rates (iops %g, MB/s %g)",
	      r ? r->iops : -1, r ? r->rmbps : -1);
	fixture_free(&fx);
}

/*
 * The BPF maps' size, from what the walk finds at the start: twice the
 * (device, cgroup) pairs of every cgroup on every device with a target,
 * a power of two, never below the 10,240 they had, capped.
 */
static void test_map_entries(void)
{
	__u32 n = top_map_entries(10000, 2);

	check(n >= 2 * 10000 * 2 && !(n & (n - 1)) && n <= TOP_MAP_ENTRIES_MAX,
	      "map entries: 10,000 cgroups on 2 devices: %u, twice the 20,000 pairs", n);
	check(top_map_entries(0, 0) == IOLAT_MAX_GROUPS &&
	      top_map_entries(100, 1) == IOLAT_MAX_GROUPS &&
	      top_map_entries(2560, 2) == IOLAT_MAX_GROUPS,
	      "map entries: small trees keep %u (%u, %u, %u)", IOLAT_MAX_GROUPS,
	      top_map_entries(0, 0), top_map_entries(100, 1), top_map_entries(2560, 2));
	check(top_map_entries(2561, 2) == 16384 && top_map_entries(6000, 0) == 16384,
	      "map entries: 10,244 pairs' worth -> 16384 (%u), no device with a target "
	      "counts as one (%u)", top_map_entries(2561, 2), top_map_entries(6000, 0));
	check(top_map_entries(1000000, 4) == TOP_MAP_ENTRIES_MAX &&
	      top_map_entries((size_t)-1 / 2, (size_t)-1 / 2) == TOP_MAP_ENTRIES_MAX,
	      "map entries: capped at %u (%u, %u)", TOP_MAP_ENTRIES_MAX,
	      top_map_entries(1000000, 4), top_map_entries((size_t)-1 / 2, (size_t)-1 / 2));
}

/*
 * One refresh's steps over a fake map of @kind, its full counter @full,
 * and the parents' map @pm (if not NULL) and its counter @pfull.
 */
static int interval_map(struct fixture *fx, struct iolat_map *m, enum top_map kind,
			__u64 full, struct iolat_map *pm, __u64 pfull)
{
	int err;

	iolat_dev_cache_reset();
	top_model_begin(&fx->m, &fx->cgs);
	fx->m.maps[kind].full = full;
	fx->m.maps[TOP_MAP_PARENTS].full = pfull;
	err = top_model_add_targets(&fx->m, &fx->targets) ||
		top_model_add_map(&fx->m, m, kind, &fx->cgs) ||
		(pm && top_model_add_map(&fx->m, pm, TOP_MAP_PARENTS, &fx->cgs)) ||
		top_model_add_io(&fx->m) || top_model_compute(&fx->m, 1);
	top_model_sort(&fx->m, TOP_SORT_PATH);
	return err;
}

/*
 * A full map drops the events of the (device, cgroup) pairs it has no
 * entry for: whole rows, not events of a row.  Counted apart from the
 * events lost (its own counter per map), and the rows the targets say
 * should be there and have no entry are named: in JSON (rows_missing,
 * maps), in the text's header (the first three, then how many more),
 * with -P (iolat_rows_missing, iolat_map_full_events_total).  Once the
 * map has room and drops nothing, none is missing.
 */
static void test_map_full(void)
{
	static const char *const paths[] = {
		"/mf/a", "/mf/b", "/mf/c", "/mf/d", "/mf/e", "/mf/f",
	};
	struct fake_map f = { .ks = sizeof(struct iolat_key),
			      .vs = sizeof(struct iolat_group), .bucket = 1 };
	struct fake_map fd = { .ks = sizeof(struct iolat_key),
			       .vs = sizeof(struct iolat_delay), .bucket = 1 };
	struct fake_map fp = { .ks = sizeof(struct iolat_key),
			       .vs = sizeof(struct iolat_parent), .bucket = 1 };
	struct iolat_parent p = { .cookie = TOP_DEFAULT_COOKIE };
	struct top_report rep = { .secs = 1, .rows = 100, .batch = true, .lost = 1 };
	struct iolat_group g = { .depth = IOLAT_DEPTH_MAX, .has_depth = 1 };
	struct iolat_delay d = { .charged_ns = 1000 };
	struct fixture fx = {};
	struct iolat_key k;
	struct iolat_map m, pm;
	char want[512];
	const char *out, *s;
	size_t i;
	int err;

	fake_sys_block();
	mkcg("/mf");
	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		mkcg(paths[i]);
		put_target(paths[i], DEV1, 1000);
	}
	scan(&fx);
	fixture_filter(&fx, "^/mf/");
	fx.m.dev = DEV1;
	k = key(&fx, "/mf/a", DEV1);
	fake_put(&f, &k, &g);
	k = key(&fx, "/mf/b", DEV1);
	fake_put(&f, &k, &g);
	fake_map_open(&m, &f, 0);
	m.name = "groups";
	m.max_entries = 2;
	k = key(&fx, "/mf", DEV1);
	fake_put(&fp, &k, &p);
	fake_map_open(&pm, &fp, 0);
	pm.name = "parents";
	pm.max_entries = 1;
	rep.m = &fx.m;
	err = interval_map(&fx, &m, TOP_MAP_GROUPS, 0, &pm, 0);
	err = err || interval_map(&fx, &m, TOP_MAP_GROUPS, 7, &pm, 1);
	check(!err && fx.m.nmissing == 4 && !strcmp(fx.m.missing[0].path, "/mf/c") &&
	      !strcmp(fx.m.missing[3].path, "/mf/f") &&
	      fx.m.missing[0].map == TOP_MAP_GROUPS,
	      "map full: the 4 rows with a target and no entry are missing (%zu, %s)",
	      fx.m.nmissing, fx.m.nmissing ? fx.m.missing[0].path : "none");
	out = render(top_print_json, &rep);
	if (records)
		fputs(out, records);
	snprintf(want, sizeof(want), "\"rows_missing\":[{\"device\":\"fake1\",\"cgroup\":\"/mf/c\","
		 "\"cgroup_id\":%llu,\"map\":\"groups\"},",
		 (unsigned long long)cgid(&fx.cgs, "/mf/c"));
	check(strstr(out, "\"lost_events\":1,") &&
	      strstr(out, "\"maps\":{\"groups\":{\"entries\":2,\"max_entries\":2,"
		     "\"full_events\":7},\"parents\":{\"entries\":1,\"max_entries\":1,"
		     "\"full_events\":1}}") &&
	      strstr(out, want) && strstr(out, "\"cgroup\":\"/mf/f\",") &&
	      !strstr(out, "\"cgroup\":\"/mf/b\",\"cgroup_id\":0"),
	      "map full: JSON has the lost events, the map's counter and the rows "
	      "missing: %.700s", out);
	out = render(top_print_text, &rep);
	s = strstr(out, "DEVICE ");
	check(strstr(out, "lost 1 events") &&
	      strstr(out, "\n  map full: groups 2/2 entries, 7 events dropped; "
		     "parents 1/1 entries, 1 events dropped") &&
	      strstr(out, "\n  rows missing (no map entry): 4: fake1 /mf/c, fake1 /mf/d, "
		     "fake1 /mf/e and 1 more\n") && s && strstr(out, "rows missing") < s,
	      "map full: the text's header names them:\n%.600s", out);
	out = render(top_print_prom, &rep);
	check(strstr(out, "\niolat_rows_missing{map=\"groups\"} 4\n") &&
	      strstr(out, "\niolat_map_full_events_total{map=\"groups\"} 7\n") &&
	      strstr(out, "\niolat_map_entries{map=\"groups\"} 2\n") &&
	      strstr(out, "\niolat_map_max_entries{map=\"groups\"} 2\n") &&
	      strstr(out, "\niolat_map_full_events_total{map=\"parents\"} 1\n") &&
	      !strstr(out, "iolat_rows_missing{map=\"parents\"}") &&
	      strstr(out, "\niolat_lost_events_total 1\n") &&
	      strstr(out, "# TYPE iolat_rows_missing gauge\n") &&
	      strstr(out, "# TYPE iolat_map_full_events_total counter\n"),
	      "map full: -P has the rows missing and the map's counter apart from "
	      "the events lost:\n%s", strstr(out, "iolat_lost") ?: out);
	/* Room again, nothing more dropped: nothing missing. */
	m.max_entries = 64;
	err = interval_map(&fx, &m, TOP_MAP_GROUPS, 7, NULL, 1);
	out = render(top_print_json, &rep);
	check(!err && !fx.m.nmissing && strstr(out, "\"rows_missing\":[]") &&
	      !strstr(render(top_print_text, &rep), "rows missing"),
	      "map full: with room and no more dropped, none missing (%zu)", fx.m.nmissing);

	/* The io.stat mode's map of the functions' delays, the same way. */
	fx.m.mode = TOP_MODE_IOSTAT;
	fx.m.mode_reason = "--no-events";
	fx.m.fns.attached[IOLAT_FN_ADD_DELAY] = true;
	fx.m.fns.attached[IOLAT_FN_THROTTLE] = true;
	k = key(&fx, "/mf/a", DEV1);
	fake_put(&fd, &k, &d);
	iolat_map_free(&m);
	fake_map_open(&m, &fd, 0);
	m.name = "delays";
	m.max_entries = 1;
	err = interval_map(&fx, &m, TOP_MAP_DELAYS, 0, NULL, 0);
	err = err || interval_map(&fx, &m, TOP_MAP_DELAYS, 3, NULL, 0);
	out = render(top_print_json, &rep);
	if (records)
		fputs(out, records);
	check(!err && fx.m.nmissing == 5 &&
	      strstr(out, "\"maps\":{\"delays\":{\"entries\":1,\"max_entries\":1,"
		     "\"full_events\":3}}") &&
	      strstr(out, "\"cgroup\":\"/mf/b\",\"cgroup_id\":") &&
	      strstr(out, "\"map\":\"delays\"}"),
	      "map full, io.stat mode: the delays map's rows missing (%zu): %.600s",
	      fx.m.nmissing, out);
	/* No BPF side: no map, nothing to miss. */
	fx.m.fns.attached[IOLAT_FN_ADD_DELAY] = false;
	fx.m.fns.attached[IOLAT_FN_THROTTLE] = false;
	interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	out = render(top_print_json, &rep);
	check(strstr(out, "\"lost_events\":null,") && strstr(out, "\"maps\":null,") &&
	      strstr(out, "\"rows_missing\":null,"),
	      "map full: without a BPF side, maps and rows_missing null: %.300s", out);
	iolat_map_free(&m);
	iolat_map_free(&pm);
	iolat_sys_block_set(NULL);
	iolat_dev_cache_reset();
	fixture_free(&fx);
}

/*
 * Rows on more devices than the model used to keep (64): each device's
 * io.stat is read, none dropped silently.
 */
static void test_many_devices(void)
{
	enum { NDEV = 70 };
	struct fixture fx = {};
	char lat[NDEV * 40], io[NDEV * 100];
	size_t n = 0, good = 0, pass, d;

	mkcg("/md");
	fixture_filter(&fx, "^/md$");
	for (pass = 0; pass < 2; pass++) {
		size_t l = 0, s = 0;

		for (d = 1; d <= NDEV; d++) {
			l += snprintf(lat + l, sizeof(lat) - l, "4001:%zu target=1000\n", d);
			s += snprintf(io + s, sizeof(io) - s, "%s",
				      iostat_line(IOLAT_MKDEV(4001U, (__u32)d),
						  (pass + 1) * d * 1000000, (pass + 1) * d, NULL));
		}
		put("/md/io.latency", "%s", lat);
		put("/md/io.stat", "%s", io);
		if (!pass)
			scan(&fx);
		interval(&fx, NULL, NULL, 0, NULL, NULL, 0, 1);
	}
	for (d = 1; d <= NDEV; d++) {
		struct top_row *r = row(&fx.m, IOLAT_MKDEV(4001U, (__u32)d), "/md");

		n += r != NULL;
		good += r && r->io.rbytes == 2 * d * 1000000 && r->iops == d;
	}
	check(n == NDEV && good == NDEV && fx.m.ndevs == NDEV,
	      "devices: %d devices with targets: %zu rows, %zu with their io.stat "
	      "and IOPS, %zu devices kept", NDEV, n, good, fx.m.ndevs);
	fixture_free(&fx);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s EMPTY-DIR [JSON-RECORDS]\n", argv[0]);
		return 2;
	}
	if (argc == 3 && check_records_open(argv[2]))
		return 2;
	snprintf(root, sizeof(root), "%s", argv[1]);
	iolat_cgroup_root_set(root);
	test_reader();
	test_rates();
	test_bio_based();
	test_unknown_rates();
	test_rates_rows_moved();
	test_window_idle();
	test_state_unknown();
	test_text_escape();
	test_tree_order();
	test_truncation();
	test_schema_rows();
	test_interval_view();
	test_interval_depth();
	test_cgroup_changes();
	test_cgroup_namespace();
	test_cgroup_by_id();
	test_names();
	test_preflight();
	test_dev_partition();
	test_ticks();
	test_output_errors();
	test_descriptors();
	test_fallback();
	test_fallback_functions();
	test_fallback_sample();
	test_sample_between();
	test_fns_check();
	test_debug_param();
	test_map_batch();
	test_fallback_counters_kept();
	test_many_rows();
	test_iostat_walk();
	test_iostat_update();
	test_psi_files();
	test_refresh_calls();
	test_psi_quiet();
	test_prom_numbers();
	test_label_runs();
	test_prom_label_kept();
	test_sort_first();
	test_text_numbers();
	test_sort_memo();
	test_first_interval();
	test_map_entries();
	test_map_full();
	test_many_devices();
	test_state_order();
	test_state_order_scale();
	test_sample_scale();
	return check_done();
}
