// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-dbload: a database's commits, timed one by one.
 *
 * Small transactions against an SQLite database with synchronous=FULL,
 * as an OLTP database commits.  In WAL mode (the default) each COMMIT
 * appends to the write-ahead log and fdatasync()s it: the database's own
 * data, written and waited for.  In DELETE mode (-m delete) each COMMIT
 * creates, syncs and deletes a rollback journal beside the database: a
 * metadata change each time, so every fsync waits for a commit of the
 * filesystem's journal as well (ext4 data=ordered: which first writes out
 * the data other inodes dirtied in the same transaction).
 *
 * Runs for SECONDS (or until SIGINT/SIGTERM), then prints one JSON line:
 * transactions, seconds, tps and the commit latency's p50, p90, p99 and
 * max in microseconds.  -l FILE writes each commit's latency (us), a line
 * each, for a distribution of one's own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

#define TOOL "iolat-dbload"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u32(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The p-th percentile (0-100) of the sorted @v, nearest rank. */
static unsigned int pct(const unsigned int *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)(p / 100 * n + 0.999999);
	return v[(rank ? rank : 1) - 1];
}

static int exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	fprintf(stderr, TOOL ": %s: %s\n", sql, err ? err : sqlite3_errmsg(db));
	sqlite3_free(err);
	return -1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " TOOL " [-s SECONDS] [-b ROW_BYTES] [-m wal|delete] [-l LATENCY_FILE]\n"
		"                    DATABASE\n"
		"Commit small transactions (synchronous=FULL; WAL or a rollback journal) for\n"
		"SECONDS (default 10), then print their count, rate and commit latency\n"
		"percentiles as JSON.\n");
}

int main(int argc, char **argv)
{
	double secs = 10, t0, t1, end;
	long row_bytes = 1024;
	const char *lat_file = NULL, *mode = "wal";
	unsigned int *lat = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *ins = NULL;
	sqlite3 *db = NULL;
	char *endp, pragma[64];
	int c, rc = 1;

	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "row-bytes", required_argument, NULL, 'b' },
		{ "latencies", required_argument, NULL, 'l' },
		{ "journal-mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	while ((c = getopt_long(argc, argv, "s:b:l:m:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			secs = strtod(optarg, &endp);
			if (*endp || !(secs > 0)) {
				fprintf(stderr, TOOL ": invalid seconds '%s'\n", optarg);
				return 2;
			}
			break;
		case 'b':
			row_bytes = strtol(optarg, &endp, 10);
			if (*endp || row_bytes < 1 || row_bytes > 1 << 20) {
				fprintf(stderr, TOOL ": invalid row size '%s': 1 to 1048576\n", optarg);
				return 2;
			}
			break;
		case 'l':
			lat_file = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "wal") && strcmp(optarg, "delete")) {
				fprintf(stderr, TOOL ": invalid journal mode '%s': wal or delete\n",
					optarg);
				return 2;
			}
			mode = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (sqlite3_open(argv[optind], &db) != SQLITE_OK) {
		fprintf(stderr, TOOL ": cannot open %s: %s\n", argv[optind], sqlite3_errmsg(db));
		goto out;
	}
	snprintf(pragma, sizeof(pragma), "PRAGMA journal_mode=%s", mode);
	if (exec(db, pragma) || exec(db, "PRAGMA synchronous=FULL") ||
	    exec(db, "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)"))
		goto out;
	if (sqlite3_prepare_v2(db, "INSERT INTO t (v) VALUES (randomblob(?))", -1, &ins,
			       NULL) != SQLITE_OK) {
		fprintf(stderr, TOOL ": %s\n", sqlite3_errmsg(db));
		goto out;
	}
	t0 = now_s();
	end = t0 + secs;
	while (!stop && now_s() < end) {
		double a;

		if (exec(db, "BEGIN"))
			goto out;
		sqlite3_bind_int64(ins, 1, row_bytes);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			fprintf(stderr, TOOL ": insert: %s\n", sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(ins);
		a = now_s();
		if (exec(db, "COMMIT"))
			goto out;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			unsigned int *v = realloc(lat, ncap * sizeof(*v));

			if (!v) {
				fprintf(stderr, TOOL ": out of memory\n");
				goto out;
			}
			lat = v;
			cap = ncap;
		}
		lat[n++] = (unsigned int)((now_s() - a) * 1e6 + 0.5);
	}
	t1 = now_s();
	if (lat_file) {
		FILE *f = fopen(lat_file, "w");
		size_t i;

		if (!f) {
			fprintf(stderr, TOOL ": cannot write %s: %s\n", lat_file, strerror(errno));
			goto out;
		}
		for (i = 0; i < n; i++)
			fprintf(f, "%u\n", lat[i]);
		if (fclose(f)) {
			fprintf(stderr, TOOL ": cannot write %s: %s\n", lat_file, strerror(errno));
			goto out;
		}
	}
	qsort(lat, n, sizeof(*lat), cmp_u32);
	printf("{\"transactions\":%zu,\"seconds\":%.3f,\"tps\":%.1f,\"p50_us\":%u,"
	       "\"p90_us\":%u,\"p99_us\":%u,\"max_us\":%u}\n", n, t1 - t0,
	       n / (t1 - t0), pct(lat, n, 50), pct(lat, n, 90), pct(lat, n, 99),
	       n ? lat[n - 1] : 0);
	rc = fflush(stdout) ? 1 : 0;
out:
	sqlite3_finalize(ins);
	sqlite3_close(db);
	free(lat);
	return rc;
}
