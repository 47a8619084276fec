// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-why's JSON reader (tools/iolat-json.c) on its own: numbers as
 * strtod() reads them, to the bit; strings, keys, nesting and errors; a
 * line parsed after a bigger one; an iolat-top row with duplicate keys
 * and every key read, as the model gets it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "iolat-json.h"
#include "check.h"

static int same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/* @text as a number: the parser's double is strtod()'s, or both refuse it. */
static int num_as_strtod(const char *text)
{
	struct ij_value v;
	char err[128], *end;
	double want = strtod(text, &end);
	int ret = ij_parse(text, &v, err, sizeof(err));
	int ok;

	if (end == text || *end || !isfinite(want))
		ok = ret == -EINVAL;
	else
		ok = !ret && v.type == IJ_NUM && same_double(v.num, want);
	if (!ok)
		printf("  %s: parser %d %.17g, strtod %.17g (%s)\n", text, ret,
		       ret ? 0 : v.num, want, err);
	ij_free(&v);
	return ok;
}

static void numbers(void)
{
	static const char *const nums[] = {
		"0", "-0", "1", "-1", "7", "00012", "0.000", "-0.0", "3.906", "390.625",
		"0.781", "100000.0", "1764892800.000", "1764892801.123", "0.1", "0.2",
		"0.3", "2.5", "1e3", "1E3", "1e-3", "1.5e+2", "-2.5E-2", "1.", "-.5",
		"9007199254740991", "9007199254740992", "9007199254740993",
		"18446744073709551615", "18446744073709551616", "123456789012345678901",
		"0.1234567890123456789", "1234567890.1234567890", "4503599627370497.5",
		"0.0000000000000000000001", "0.00000000000000000000001",
		"12345678901234567.5", "1.7976931348623157e308", "4.9e-324", "1e999",
		"-1e999", "1e-999", "-", "-x", "0x10", "-inf", "-nan", "2.2250738585072011e-308",
		"99999999999999999999999", "0.99999999999999999999", "1.00000000000000011102230246251565404236316680908203125",
	};
	unsigned seed = 1;
	size_t i, bad = 0;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		bad += !num_as_strtod(nums[i]);
	check(!bad, "%zu numbers as strtod() reads them, to the bit: %zu differ",
	      sizeof(nums) / sizeof(nums[0]), bad);
	/* what the tools print (%.3f, %.1f, integers) and longer */
	for (i = bad = 0; i < 200000; i++) {
		char text[64];
		int ilen = 1 + rand_r(&seed) % 20, flen = rand_r(&seed) % 26, k, n = 0;

		if (rand_r(&seed) % 4 == 0)
			text[n++] = '-';
		for (k = 0; k < ilen; k++)
			text[n++] = '0' + rand_r(&seed) % 10;
		if (flen) {
			text[n++] = '.';
			for (k = 0; k < flen; k++)
				text[n++] = '0' + rand_r(&seed) % 10;
		}
		text[n] = '\0';
		bad += !num_as_strtod(text);
	}
	check(!bad, "200,000 random decimals as strtod() reads them: %zu differ", bad);
}

static void parse_err(const char *text, const char *want)
{
	struct ij_value v;
	char err[128];
	int ret = ij_parse(text, &v, err, sizeof(err));

	check(ret == -EINVAL && strstr(err, want), "'%.30s' refused: '%s' (want '%s')",
	      text, ret ? err : "accepted", want);
	ij_free(&v);
}

static void values(void)
{
	struct ij_value v;
	const struct ij_value *x, *a;
	char err[128], *big;
	size_t i, n, len;
	int ret, ok;

	ret = ij_parse(" {\"a\":1,\"s\":\"x\\\"y\\\\z\\u00e9\\ud83d\\ude00\\n\",\"a\":2,"
		       "\"t\":true,\"f\":false,\"n\":null,\"o\":{\"k\":[1,[2,{}],[]]},"
		       "\"\\u006bey\":\"v\"} ", &v, err, sizeof(err));
	check(!ret && v.type == IJ_OBJ, "an object parsed (%s)", ret ? err : "");
	x = ij_get(&v, "a");
	check(x && x->type == IJ_NUM && x->num == 2, "of duplicate keys the last is read");
	x = ij_get(&v, "s");
	check(x && x->type == IJ_STR && !strcmp(x->str, "x\"y\\z\xc3\xa9\xf0\x9f\x98\x80\n"),
	      "a string's escapes decoded: '%s'", x ? x->str : "");
	check(ij_get(&v, "t")->b && ij_get(&v, "t")->type == IJ_BOOL &&
	      !ij_get(&v, "f")->b && ij_get(&v, "n")->type == IJ_NULL, "true, false, null");
	a = ij_get(ij_get(&v, "o"), "k");
	check(a && a->type == IJ_ARR && a->n == 3 && a->items[0].num == 1 &&
	      a->items[1].n == 2 && a->items[1].items[0].num == 2 &&
	      a->items[1].items[1].type == IJ_OBJ && !a->items[1].items[1].n &&
	      a->items[2].type == IJ_ARR && !a->items[2].n, "nested arrays and objects");
	x = ij_get(&v, "key");
	check(x && !strcmp(x->str, "v"), "an escaped key");
	check(!ij_get(&v, "missing") && !ij_get(x, "a"), "no such key; not an object");
	ij_free(&v);

	parse_err("\"abc", "unterminated string");
	parse_err("\"a\tb\"", "control character in a string");
	parse_err("\"\\q\"", "bad escape \\q");
	parse_err("\"\\u12x4\"", "bad \\u escape");
	parse_err("{\"a\" 1}", "expected ':'");
	parse_err("{1:2}", "expected a key");
	parse_err("[1 2]", "expected ',' or ']'");
	parse_err("[1,2", "expected ',' or ']'");
	parse_err("{\"a\":1,}", "expected a key");
	parse_err("[1] x", "trailing text after the value");
	parse_err("tru", "unexpected 'tru'");
	parse_err("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "nested too deep");

	/* a line of many values, then a small one, then the big one again */
	n = 300000;
	big = malloc(n * 32 + 16);
	if (!big) {
		check(0, "out of memory");
		return;
	}
	len = sprintf(big, "[");
	for (i = 0; i < n; i++)
		len += sprintf(big + len, "%s{\"i\":%zu,\"s\":\"%zu\"}", i ? "," : "", i, i);
	sprintf(big + len, "]");
	for (int round = 0; round < 2; round++) {
		ret = ij_parse(big, &v, err, sizeof(err));
		ok = !ret && v.type == IJ_ARR && v.n == n;
		for (i = 0; ok && i < n; i++) {
			char s[32];

			snprintf(s, sizeof(s), "%zu", i);
			x = &v.items[i];
			ok = x->type == IJ_OBJ && x->n == 2 && ij_get(x, "i")->num == i &&
			     !strcmp(ij_get(x, "s")->str, s);
		}
		check(ok, "a line of %zu objects, each one's values (round %d)", n, round);
		ij_free(&v);
		ret = ij_parse("[1,{\"a\":[true]}]", &v, err, sizeof(err));
		check(!ret && v.n == 2 && ij_get(&v.items[1], "a")->items[0].b,
		      "a small line after it");
		ij_free(&v);
	}
	free(big);
}

/* An iolat-top line through ij_feed_line(): each key a row has, read. */
static void top_row(void)
{
	struct why_model *m = why_model_new();
	char err[160];
	const struct why_cg *c, *p;
	enum ij_line kind;

	kind = ij_feed_line(m,
		"{\"schema\":2,\"tool\":\"iolat-top\",\"time\":100.5,\"interval_s\":2.0,"
		"\"lost_events\":7,\"cgroups\":["
		"{\"device\":\"nullb0\",\"cgroup\":\"/p\",\"cgroup_id\":2,\"depth\":\"max\","
		"\"children\":{\"cookie\":999990,\"culprit\":\"/p/a\\\\x1b\",\"culprit_id\":3,"
		"\"scale_downs\":4,\"scale_ups\":1,\"timer_ups\":1}},"
		"{\"device\":\"nullb0\",\"cgroup\":\"/p/a\\\\x1b\",\"cgroup_id\":3,"
		"\"target_us\":100,\"target_us\":500,\"rotational\":false,"
		"\"window\":{\"met\":false,\"win_met\":false,\"samples\":20,\"stat\":\"missed\","
		"\"missed\":12,\"action\":\"down\"},\"windows\":10,\"windows_missed\":9,"
		"\"iops\":250.5,\"read_mbps\":1.0,\"write_mbps\":2.0,\"depth\":4,"
		"\"state\":\"ok\",\"use_delay\":2,\"delay_charged_ms\":1.5,\"delay_paid_ms\":0.5,"
		"\"scale_skips\":{\"raced\":1,\"protected\":2,\"few_ios\":3}}]}",
		err, sizeof(err));
	check(kind == IJ_LINE_TOP, "an iolat-top line read (%s)", kind == IJ_LINE_BAD ? err : "");
	c = why_cg_by_id(m, "nullb0", 3);
	p = why_cg_by_id(m, "nullb0", 2);
	check(m->rows == 2 && m->lost[WHY_SRC_TOP] == 7 && m->first == 100.5,
	      "rows, lost events, time");
	check(c && !strcmp(c->path, "/p/a\\x1b"), "an escaped name kept as written: '%s'",
	      c ? c->path : "");
	check(c && c->target_us == 500, "the last target_us of two: %llu",
	      c ? (unsigned long long)c->target_us : 0);
	check(c && c->wt.n == 1 && c->wt.v[0].samples == 20 && c->wt.v[0].missed == 12 &&
	      c->wt.v[0].ssd && c->wt.v[0].verdict_missed && c->wt.v[0].action == WHY_ACT_DOWN,
	      "its window");
	check(c && c->top_windows == 10 && c->top_missed == 9 && c->iops_sum == 250.5 &&
	      c->max_use_delay == 2 && c->charged_ms == 1.5 && c->paid_ms == 0.5 &&
	      c->dn == 1 && c->dv[0].depth == 4 && c->write_mb_delayed == 4.0,
	      "counters, rates, depth, use_delay, delay");
	check(p && p->is_parent && p->sn == 1 && p->sv[0].culprit_id == 3 && p->sv[0].named &&
	      p->sv[0].downs == 4 && p->sv[0].ups == 1 && p->sv[0].new == 999990 &&
	      p->dn == 1 && p->dv[0].depth == WHY_DEPTH_MAX, "the parent's children and depth max");
	why_model_free(m);
}

/* Names as the model keeps them: escaped by iolat_esc(), plain ones as they are. */
static void names(void)
{
	static const struct { const char *json, *kept; } t[] = {
		{ "/svc00/c01 plain~name", "/svc00/c01 plain~name" },
		{ "/caf\\u00e9/\xc3\xa9", "/caf\xc3\xa9/\xc3\xa9" },
		{ "/a\\u007fb", "/a\\x7fb" },
		{ "/x\\u001by", "/x\\x1by" },
		{ "/x\\\\x1by", "/x\\x1by" },
		{ "/back\\\\\\\\slash", "/back\\\\slash" },
		{ "/c1\\u0085", "/c1\\xc2\\x85" },
	};
	char line[512], err[160];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct why_model *m = why_model_new();
		const struct why_cg *c;

		snprintf(line, sizeof(line), "{\"schema\":2,\"tool\":\"iolat-top\",\"time\":1,"
			 "\"cgroups\":[{\"device\":\"d\",\"cgroup\":\"%s\",\"cgroup_id\":5}]}",
			 t[i].json);
		c = ij_feed_line(m, line, err, sizeof(err)) == IJ_LINE_TOP ?
		    why_cg_by_id(m, "d", 5) : NULL;
		check(c && !strcmp(c->path, t[i].kept), "name \"%s\" kept as '%s' (want '%s')",
		      t[i].json, c ? c->path : err, t[i].kept);
		why_model_free(m);
	}
	/* longer than the model keeps: cut, as iolat_esc() cuts */
	{
		struct why_model *m = why_model_new();
		size_t len = 20000, n;
		char *big = malloc(len + 200);
		const struct why_cg *c;

		if (!big || !m) {
			check(0, "out of memory");
			return;
		}
		n = sprintf(big, "{\"schema\":2,\"tool\":\"iolat-top\",\"time\":1,\"cgroups\":"
			    "[{\"device\":\"d\",\"cgroup_id\":5,\"cgroup\":\"/");
		memset(big + n, 'a', len);
		strcpy(big + n + len, "\"}]}");
		c = ij_feed_line(m, big, err, sizeof(err)) == IJ_LINE_TOP ?
		    why_cg_by_id(m, "d", 5) : NULL;
		check(c && strlen(c->path) == WHY_NAME_LEN - 1 && c->path[0] == '/' &&
		      strspn(c->path + 1, "a") == WHY_NAME_LEN - 2,
		      "a name of %zu bytes kept as its first %d", len + 1, WHY_NAME_LEN - 1);
		free(big);
		why_model_free(m);
	}
}

static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * Lines of 10,000 rows read 100 times, every other one with more keys a
 * row: what the reader keeps from one line to the next is reused, and
 * memory stays where the first lines left it.
 */
static void lines_reused(void)
{
	struct why_model *m = why_model_new();
	size_t n = 10000, i, len[2];
	char *line[2], err[160];
	long after4 = 0, grew;
	int k, j, bad = 0;

	for (j = 0; j < 2; j++) {
		line[j] = malloc(n * 128 + 256);
		if (!line[j] || !m) {
			check(0, "out of memory");
			return;
		}
		len[j] = sprintf(line[j], "{\"tool\":\"iolat-top\",\"time\":1,\"cgroups\":[");
		for (i = 0; i < n; i++)
			len[j] += sprintf(line[j] + len[j], "%s{\"device\":\"d\",\"cgroup\":\"/g%zu\","
					  "\"cgroup_id\":%zu%s}", i ? "," : "", i, i + 2,
					  j ? ",\"iops\":1,\"depth\":1,\"use_delay\":0,\"state\":\"ok\"" : "");
		sprintf(line[j] + len[j], "]}");
	}
	for (k = 0; k < 100; k++) {
		bad += ij_feed_line(m, line[k % 2], err, sizeof(err)) != IJ_LINE_TOP;
		if (k == 3)
			after4 = maxrss_kb();
	}
	grew = maxrss_kb() - after4;
	check(!bad && m->rows == 100 * n && grew < 4096,
	      "lines of %zu rows read 100 times: %ld KiB more after the fourth, %zu rows",
	      n, grew, m->rows);
	for (j = 0; j < 2; j++)
		free(line[j]);
	why_model_free(m);
}

int main(void)
{
	numbers();
	values();
	top_row();
	names();
	lines_reused();
	return check_done();
}
