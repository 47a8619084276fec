/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host unit tests in C (06-model.c, 12-snoop.c) share: check()
 * prints "ok"/"FAIL" and the check, and counts; check_records_open() opens
 * the file every JSON record a test makes goes to, for the shell side's
 * schema check; check_done() closes it, prints the count and gives the
 * exit status, 1 if any check failed.  Included once, by the test's one
 * source file: the definitions are static.
 */
#ifndef IOLAT_TEST_CHECK_H
#define IOLAT_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int failed, checks;
static FILE *records;	/* every JSON record, for the schema check; or NULL */

static __attribute__((format(printf, 2, 3))) void check(int ok, const char *fmt, ...)
{
	va_list ap;

	checks++;
	failed += !ok;
	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Open @path for the JSON records; 0, or -1 said on stderr. */
static __attribute__((unused)) int check_records_open(const char *path)
{
	records = fopen(path, "w");
	if (!records) {
		perror(path);
		return -1;
	}
	return 0;
}

/* The test's exit status: 1 if any check failed, else 0. */
static int check_done(void)
{
	if (records)
		fclose(records);
	printf("%d checks, %d failed\n", checks, failed);
	return failed ? 1 : 0;
}

#endif
