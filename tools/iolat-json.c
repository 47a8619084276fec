// SPDX-License-Identifier: GPL-2.0
/* JSON lines of iolat-snoop -j and iolat-top -j.  See iolat-json.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "iolat-common.h"
#include "iolat-json.h"

/* ---- the parser: RFC 8259, whole values, depth-limited ---- */

#define IJ_MAX_DEPTH 32
/* Values a block holds; a container with more has a block of its own. */
#define IJ_BLOCK_VALUES 4096
/* What ij_feed_line() keeps for the next line, at most: a big line's worth. */
#define IJ_ARENA_KEEP (256UL << 20)

struct ij_block {
	struct ij_block *next;
	size_t cap, used;
	struct ij_value v[];
};

/*
 * Where a parsed value lives: malloc() and free() per container were
 * most of the time on a 10,000-group iolat-top line.  A container's items
 * are collected on a stack while it is open (its children's in turn above
 * them), then copied into a block where they stay, next to each other.
 * Every string, keys too, is cut from one buffer as long as the text:
 * decoded, none is longer than it was with its quotes.  ij_feed_line()
 * keeps its arena from line to line.
 */
struct ij_arena {
	struct ij_block *blocks, *cur;
	struct ij_value *stack;
	size_t sn, scap;
	char *strings;
	size_t slen;
	size_t bytes;		/* held, for IJ_ARENA_KEEP */
};

struct ij_parser {
	const char *s;
	char *err;
	size_t errlen;
	int depth;
	struct ij_arena *a;
	size_t used;		/* of a->strings */
};

static int ij_fail(struct ij_parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err && !p->err[0]) {
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void arena_free(struct ij_arena *a)
{
	struct ij_block *b, *next;

	for (b = a->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a->stack);
	free(a->strings);
	memset(a, 0, sizeof(*a));
}

/* Room for @n items next to each other, until the arena's next parse. */
static struct ij_value *arena_items(struct ij_arena *a, size_t n)
{
	struct ij_block *b = a->cur, *nb;
	size_t cap;

	while (b && b->cap - b->used < n && b->next) {
		b = b->next;
		b->used = 0;	/* last used by an earlier parse */
	}
	if (!b || b->cap - b->used < n) {
		cap = n > IJ_BLOCK_VALUES ? n : IJ_BLOCK_VALUES;
		nb = malloc(sizeof(*nb) + cap * sizeof(nb->v[0]));
		if (!nb)
			return NULL;
		nb->next = NULL;
		nb->cap = cap;
		nb->used = 0;
		a->bytes += sizeof(*nb) + cap * sizeof(nb->v[0]);
		if (b)
			b->next = nb;
		else
			a->blocks = nb;
		b = nb;
	}
	a->cur = b;
	b->used += n;
	return b->v + b->used - n;
}

static int arena_push(struct ij_arena *a, const struct ij_value *v)
{
	if (a->sn == a->scap) {
		size_t cap = a->scap ? a->scap * 2 : 256;
		struct ij_value *s = realloc(a->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		a->bytes += (cap - a->scap) * sizeof(*s);
		a->stack = s;
		a->scap = cap;
	}
	a->stack[a->sn++] = *v;
	return 0;
}

/* Ready for a text of @len bytes: 0 or -ENOMEM. */
static int arena_reset(struct ij_arena *a, size_t len)
{
	a->cur = a->blocks;
	if (a->cur)
		a->cur->used = 0;
	a->sn = 0;
	if (len + 1 > a->slen) {
		char *s = malloc(len + 1);

		if (!s)
			return -ENOMEM;
		free(a->strings);
		a->bytes += len + 1 - a->slen;
		a->strings = s;
		a->slen = len + 1;
	}
	return 0;
}

static void ij_space(struct ij_parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int ij_value(struct ij_parser *p, struct ij_value *v);

static int hex4(const char *s, unsigned *out)
{
	unsigned u = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		u <<= 4;
		if (c >= '0' && c <= '9')
			u |= c - '0';
		else if (c >= 'a' && c <= 'f')
			u |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			u |= c - 'A' + 10;
		else
			return -1;
	}
	*out = u;
	return 0;
}

/* Code point @u as UTF-8 into @d; bytes written. */
static int utf8(char *d, unsigned u)
{
	if (u < 0x80) {
		d[0] = u;
		return 1;
	}
	if (u < 0x800) {
		d[0] = 0xc0 | (u >> 6);
		d[1] = 0x80 | (u & 0x3f);
		return 2;
	}
	if (u < 0x10000) {
		d[0] = 0xe0 | (u >> 12);
		d[1] = 0x80 | ((u >> 6) & 0x3f);
		d[2] = 0x80 | (u & 0x3f);
		return 3;
	}
	d[0] = 0xf0 | (u >> 18);
	d[1] = 0x80 | ((u >> 12) & 0x3f);
	d[2] = 0x80 | ((u >> 6) & 0x3f);
	d[3] = 0x80 | (u & 0x3f);
	return 4;
}

static int ij_string(struct ij_parser *p, char **out)
{
	const char *s = p->s + 1, *end;
	char *d = p->a->strings + p->used;
	unsigned char c;

	/*
	 * Most strings have no escape: copied as they are scanned.  Any
	 * other byte than plain text starts over on the way that decodes.
	 */
	*out = d;
	while ((c = *s) >= 0x20 && c != '"' && c != '\\') {
		*d++ = c;
		s++;
	}
	if (c == '"') {
		*d = '\0';
		p->used = d + 1 - p->a->strings;
		p->s = s + 1;
		return 0;
	}
	s = p->s + 1;
	d = *out;
	/* The decoded string is never longer than the escaped one. */
	for (end = s; *end && *end != '"'; end++)
		if (*end == '\\' && end[1])
			end++;
	if (*end != '"')
		return ij_fail(p, "unterminated string");
	while (s < end) {
		unsigned u, lo;

		c = *s++;
		if (c < 0x20)
			return ij_fail(p, "control character in a string");
		if (c != '\\') {
			*d++ = c;
			continue;
		}
		c = *s++;
		switch (c) {
		case '"': case '\\': case '/': *d++ = c; break;
		case 'b': *d++ = '\b'; break;
		case 'f': *d++ = '\f'; break;
		case 'n': *d++ = '\n'; break;
		case 'r': *d++ = '\r'; break;
		case 't': *d++ = '\t'; break;
		case 'u':
			if (end - s < 4 || hex4(s, &u))
				return ij_fail(p, "bad \\u escape");
			s += 4;
			if (u >= 0xd800 && u < 0xdc00 && end - s >= 6 && s[0] == '\\' &&
			    s[1] == 'u' && !hex4(s + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
			if (!u)		/* a NUL would cut the string: drop it */
				break;
			d += utf8(d, u);
			break;
		default:
			return ij_fail(p, "bad escape \\%c", c);
		}
	}
	*d = '\0';
	p->used = d + 1 - p->a->strings;	/* escapes make it shorter */
	p->s = end + 1;
	return 0;
}

static int ij_container(struct ij_parser *p, struct ij_value *v, char close)
{
	struct ij_arena *a = p->a;
	size_t base = a->sn;
	struct ij_value item;
	char *key = NULL;
	int err;

	if (++p->depth > IJ_MAX_DEPTH)
		return ij_fail(p, "nested too deep");
	p->s++;
	ij_space(p);
	if (*p->s == close) {
		p->s++;
		p->depth--;
		return 0;
	}
	for (;;) {
		ij_space(p);
		if (v->type == IJ_OBJ) {
			if (*p->s != '"')
				return ij_fail(p, "expected a key");
			err = ij_string(p, &key);
			if (err)
				return err;
			ij_space(p);
			if (*p->s++ != ':')
				return ij_fail(p, "expected ':'");
			ij_space(p);
		}
		/* its own items go on the stack above, and off it, first */
		err = ij_value(p, &item);
		if (err)
			return err;
		item.key = key;
		if (arena_push(a, &item))
			return -ENOMEM;
		ij_space(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s != close)
			return ij_fail(p, "expected ',' or '%c'", close);
		p->s++;
		p->depth--;
		v->n = a->sn - base;
		v->items = arena_items(a, v->n);
		if (!v->items)
			return -ENOMEM;
		memcpy(v->items, a->stack + base, v->n * sizeof(*v->items));
		a->sn = base;
		return 0;
	}
}

/*
 * A number as strtod() reads it, to the bit: the tools print integers
 * and %.3f decimals, and strtod() was a tenth of the time on them.  Up
 * to 2^53 with at most 22 decimals both the digits and the power of ten
 * are exact doubles, and one division rounds as strtod() does.  Anything
 * else (an exponent, more digits, what strtod() takes beyond JSON) is
 * left to it.  0 when left.
 */
static int ij_fast_number(const char *s, double *num, const char **end)
{
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	bool neg = *s == '-';
	const char *d = s + neg, *dot = NULL;
	__u64 mant = 0;
	int digits = 0, frac = 0;

	for (;; d++) {
		if (*d >= '0' && *d <= '9') {
			if (++digits > 19)
				return 0;
			mant = mant * 10 + (*d - '0');
			frac += !!dot;
		} else if (*d == '.' && !dot && digits) {
			dot = d;
		} else {
			break;
		}
	}
	/* a point with no digit after it, an exponent, hex: strtod()'s */
	if (!digits || (dot && d == dot + 1) || mant > (1ULL << 53) || frac > 22 ||
	    *d == 'e' || *d == 'E' || *d == 'x' || *d == 'X' || *d == 'p' || *d == 'P')
		return 0;
	*num = (double)mant / pow10[frac];
	if (neg)
		*num = -*num;
	*end = d;
	return 1;
}

static int ij_value(struct ij_parser *p, struct ij_value *v)
{
	const char *fend;
	char *end;

	memset(v, 0, sizeof(*v));
	switch (*p->s) {
	case '{':
		v->type = IJ_OBJ;
		return ij_container(p, v, '}');
	case '[':
		v->type = IJ_ARR;
		return ij_container(p, v, ']');
	case '"':
		v->type = IJ_STR;
		return ij_string(p, &v->str);
	case 't':
		if (strncmp(p->s, "true", 4))
			break;
		v->type = IJ_BOOL;
		v->b = true;
		p->s += 4;
		return 0;
	case 'f':
		if (strncmp(p->s, "false", 5))
			break;
		v->type = IJ_BOOL;
		p->s += 5;
		return 0;
	case 'n':
		if (strncmp(p->s, "null", 4))
			break;
		v->type = IJ_NULL;
		p->s += 4;
		return 0;
	default:
		if (*p->s != '-' && (*p->s < '0' || *p->s > '9'))
			break;
		v->type = IJ_NUM;
		if (ij_fast_number(p->s, &v->num, &fend)) {
			p->s = fend;
			return 0;
		}
		v->num = strtod(p->s, &end);
		if (end == p->s || !isfinite(v->num))
			return ij_fail(p, "bad number");
		p->s = end;
		return 0;
	}
	return ij_fail(p, "unexpected '%.10s'", p->s);
}

/* ij_parse() in arena @a, which holds the value until its next parse. */
static int ij_parse_in(struct ij_arena *a, const char *text, struct ij_value *v,
		       char *err, size_t errlen)
{
	struct ij_parser p = { .s = text, .err = err, .errlen = errlen, .a = a };
	int ret;

	if (err && errlen)
		err[0] = '\0';
	memset(v, 0, sizeof(*v));
	if (arena_reset(a, strlen(text)))
		return -ENOMEM;
	ij_space(&p);
	ret = ij_value(&p, v);
	if (ret)
		return ret;
	ij_space(&p);
	if (*p.s)
		return ij_fail(&p, "trailing text after the value");
	return 0;
}

void ij_free(struct ij_value *v)
{
	if (!v)
		return;
	if (v->arena) {
		arena_free(v->arena);
		free(v->arena);
	}
	memset(v, 0, sizeof(*v));
}

int ij_parse(const char *text, struct ij_value *v, char *err, size_t errlen)
{
	struct ij_arena *a = calloc(1, sizeof(*a));
	int ret;

	if (!a) {
		memset(v, 0, sizeof(*v));
		return -ENOMEM;
	}
	ret = ij_parse_in(a, text, v, err, errlen);
	v->arena = a;
	return ret;
}

const struct ij_value *ij_get(const struct ij_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != IJ_OBJ)
		return NULL;
	/* The last of duplicate keys wins, as with most readers. */
	for (i = obj->n; i-- > 0;)
		if (obj->items[i].key[0] == key[0] && !strcmp(obj->items[i].key, key))
			return &obj->items[i];
	return NULL;
}

/* ---- the recordings' keys: every key name the analysis uses is below ---- */

static double num_v(const struct ij_value *v, double dflt)
{
	return v && v->type == IJ_NUM ? v->num : dflt;
}

static __u64 u64_v(const struct ij_value *v)
{
	double d = num_v(v, 0);

	return d > 0 ? (__u64)d : 0;
}

static bool bool_v(const struct ij_value *v)
{
	return v && v->type == IJ_BOOL && v->b;
}

static const char *str_v(const struct ij_value *v)
{
	return v && v->type == IJ_STR ? v->str : NULL;
}

static double num_or(const struct ij_value *o, const char *key, double dflt)
{
	return num_v(ij_get(o, key), dflt);
}

static __u64 u64_of(const struct ij_value *o, const char *key)
{
	return u64_v(ij_get(o, key));
}

static bool bool_of(const struct ij_value *o, const char *key)
{
	return bool_v(ij_get(o, key));
}

static const char *str_of(const struct ij_value *o, const char *key)
{
	return str_v(ij_get(o, key));
}

/* The "schema" of the line being read; 0 when it has none, or a string. */
static int line_schema;

/*
 * A name (cgroup, culprit, device) as the model keeps it and the findings
 * print it: iolat_esc()'d.  From schema 2 on the tools write names so;
 * earlier recordings hold the bytes themselves.  Either way the line's
 * text goes back to the bytes and is escaped again, so that a control a
 * crafted "\u001b" decodes to is escaped as well.  Text that no
 * iolat_esc() writes, in a schema 2 line, is taken as bytes.
 */
static int copy_name(char *dst, size_t len, const char *s)
{
	char *raw;

	if (!s || line_schema < 2 || !strchr(s, '\\')) {
		iolat_esc(dst, len, s ?: "");
		return 0;
	}
	raw = malloc(strlen(s) + 1);
	if (!raw)
		return -ENOMEM;
	iolat_esc(dst, len, iolat_unesc(raw, strlen(s) + 1, s) ? s : raw);
	free(raw);
	return 0;
}

/* The disk names of a row's "below", escaped, comma-separated, as fit. */
static void below_names(const struct ij_value *a, char *out, size_t len)
{
	char name[WHY_DEV_LEN];
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < a->n; i++) {
		if (a->items[i].type != IJ_STR)
			continue;
		iolat_esc(name, sizeof(name), a->items[i].str);
		if (used + strlen(name) + 2 > len)
			break;
		used += snprintf(out + used, len - used, "%s%s", used ? "," : "", name);
	}
}

static int name_index(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static const char *const ev_names[WHY_EV_NR] = {
	"window", "target", "cookie", "culprit_forgotten", "depth",
	"throttle", "use_delay", "delay_charge", "delay_pay", "enable",
	"scale_reset", "scale_skip", "charge", "sleep",
};

static const char *const skip_names[WHY_SKIP_NR] = { "raced", "protected", "few_ios" };

static enum why_by by_of(const struct ij_value *o)
{
	static const char *const names[] = { "window", "timer", "target", "offline", "user" };
	int i = name_index(str_of(o, "by"), names, 5);

	return i < 0 ? WHY_BY_OTHER : (enum why_by)i;
}

static enum why_action action_of(const char *s)
{
	int i = name_index(s, why_action_names, WHY_ACT_NR);

	return i < 0 ? WHY_ACT_OK : (enum why_action)i;
}

/* A depth: a number, or "max" for unlimited (null before schema 1). */
static __u32 depth_of(const struct ij_value *v)
{
	if (v && v->type == IJ_NUM && v->num >= 0 && v->num < WHY_DEPTH_MAX)
		return (__u32)v->num;
	return WHY_DEPTH_MAX;
}

/* Has array @key of @o the string @s? */
static bool array_has(const struct ij_value *o, const char *key, const char *s)
{
	const struct ij_value *a = ij_get(o, key);
	size_t i;

	for (i = 0; a && a->type == IJ_ARR && i < a->n; i++)
		if (a->items[i].type == IJ_STR && !strcmp(a->items[i].str, s))
			return true;
	return false;
}

/* Is function @name "attached" in object "functions" of @o? */
static bool fn_attached(const struct ij_value *o, const char *name)
{
	return !strcmp(str_of(ij_get(o, "functions"), name) ?: "", "attached");
}

static int feed_snoop(struct why_model *m, const struct ij_value *o,
		      char *err, size_t errlen)
{
	static struct why_event e;
	const char *type = str_of(o, "event");
	int t = name_index(type, ev_names, WHY_EV_NR);

	if (type && !strcmp(type, "lost")) {
		/* Not a decision: how many the BPF side could not record. */
		why_model_lost(m, WHY_SRC_SNOOP, u64_of(o, "lost_events"));
		return 0;
	}
	if (type && !strcmp(type, "mode")) {
		const struct ij_value *ns = ij_get(o, "cgroupns");

		if (ns && ns->type == IJ_BOOL && m->cgroupns != 1)
			m->cgroupns = ns->b;
		/* Without the events: which records the functions give. */
		if (strcmp(str_of(o, "mode") ?: "functions", "events"))
			why_model_functions(m, WHY_SRC_SNOOP, array_has(o, "logs", "charge"),
					    array_has(o, "logs", "sleep"));
		return 0;
	}
	if (t < 0)
		return 0;	/* an event kind from a newer tool: skipped */
	/*
	 * A change between two samples of the state (without the events):
	 * not an event, and no rule reads these yet; iolat-top's recording
	 * carries the same samples, which the rules do read.
	 */
	if (!strcmp(str_of(o, "source") ?: "", "sampled"))
		return 0;
	memset(&e, 0, offsetof(struct why_event, device));
	e.device[0] = e.cgroup[0] = e.culprit[0] = '\0';
	e.type = t;
	e.time = num_or(o, "time", 0);
	if (copy_name(e.device, sizeof(e.device), str_of(o, "device")) ||
	    copy_name(e.cgroup, sizeof(e.cgroup), str_of(o, "cgroup")))
		goto oom;
	e.cgroup_id = u64_of(o, "cgroup_id");
	switch (e.type) {
	case WHY_EV_WINDOW:
		e.met = bool_of(o, "met");
		e.win_met = bool_of(o, "win_met");
		e.target_us = u64_of(o, "target_us");
		e.win_ms = u64_of(o, "win_ms");
		e.samples = u64_of(o, "samples");
		/* "stat": "missed" on non-rotational devices, "mean" else */
		e.ssd = !ij_get(o, "mean_us") &&
			(ij_get(o, "missed") || !strcmp(str_of(o, "stat") ?: "", "missed"));
		e.missed = u64_of(o, "missed");
		e.mean_us = u64_of(o, "mean_us");
		e.action = action_of(str_of(o, "action"));
		e.cookie = u64_of(o, "cookie");
		e.scale_lat_us = u64_of(o, "scale_lat_us");
		break;
	case WHY_EV_TARGET:
		e.old = u64_of(o, "old_us");
		e.new = u64_of(o, "new_us");
		e.win_ms = u64_of(o, "win_ms");
		e.by = by_of(o);
		break;
	case WHY_EV_COOKIE:
	case WHY_EV_FORGOT:
	case WHY_EV_RESET:
		e.old = u64_of(o, "old");
		e.new = u64_of(o, "new");
		if (copy_name(e.culprit, sizeof(e.culprit), str_of(o, "culprit")))
			goto oom;
		e.culprit_id = u64_of(o, "culprit_id");
		e.scale_lat_us = u64_of(o, "scale_lat_us");
		e.idle_ms = u64_of(o, "idle_ms");
		e.by = by_of(o);
		break;
	case WHY_EV_SKIP:
		e.old = u64_of(o, "old");
		e.new = u64_of(o, "new");
		t = name_index(str_of(o, "reason"), skip_names, WHY_SKIP_NR);
		e.reason = t < 0 ? WHY_SKIP_RACED : (enum why_skip)t;
		e.target_us = u64_of(o, "target_us");
		e.scale_lat_us = u64_of(o, "scale_lat_us");
		e.samples = u64_of(o, "samples");
		break;
	case WHY_EV_DEPTH:
		e.old = depth_of(ij_get(o, "old"));
		e.new = depth_of(ij_get(o, "new"));
		e.cookie = u64_of(o, "cookie");
		e.nr_requests = u64_of(o, "nr_requests");
		break;
	case WHY_EV_USE_DELAY:
		e.ud_old = (__s64)num_or(o, "old", 0);
		e.ud_new = (__s64)num_or(o, "new", 0);
		e.delay_us = u64_of(o, "delay_us");
		break;
	case WHY_EV_CHARGE:
	case WHY_EV_FN_CHARGE:
		e.charge_us = u64_of(o, "charge_us");
		e.delay_us = u64_of(o, "delay_us");
		break;
	case WHY_EV_PAY:
	case WHY_EV_FN_SLEEP:
		e.slept_us = u64_of(o, "slept_us");
		e.delay_us = u64_of(o, "delay_us");
		break;
	default:
		break;
	}
	if (why_model_event(m, &e))
		goto oom;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/*
 * The keys of a row and of its objects, each row's read in one pass:
 * looked up one by one, ij_get() over its 25 keys was a fifth of the
 * time on 10,000 rows an interval.  As with ij_get(), the last of
 * duplicate keys is the one read.
 */
enum {
	R_DEVICE, R_CGROUP, R_CGROUP_ID, R_ROTATIONAL, R_TARGET_US, R_WINDOW,
	R_WINDOWS, R_WINDOWS_MISSED, R_IOPS, R_READ_MBPS, R_WRITE_MBPS, R_DEPTH,
	R_STATE, R_USE_DELAY, R_CHARGED_MS, R_PAID_MS, R_IOSTAT_DEBUG,
	R_SCALE_SKIPS, R_CHILDREN, R_BIO_BASED, R_BELOW, R_THROTTLED_PER_S,
	R_SAMPLE,
	/* window */
	W_MET, W_WIN_MET, W_SAMPLES, W_STAT, W_MISSED, W_MEAN_US, W_ACTION,
	W_ACTION_NAME,
	/* iostat_debug */
	D_TOTAL, D_MISSED, D_AVG_LAT_US,
	/* scale_skips */
	S_RACED, S_PROTECTED, S_FEW_IOS,
	/* children */
	C_COOKIE, C_CULPRIT, C_CULPRIT_ID, C_SCALE_DOWNS, C_SCALE_UPS,
	C_TIMER_UPS, C_FORGOTTEN, C_RESETS, C_CULPRIT_STATUS,
	/* sample */
	M_ACC_SAMPLES, M_ACC_MISSED, M_ACC_MEAN_US,
	ROW_KEYS,
};

static const char *const row_keys[ROW_KEYS] = {
	"device", "cgroup", "cgroup_id", "rotational", "target_us", "window",
	"windows", "windows_missed", "iops", "read_mbps", "write_mbps", "depth",
	"state", "use_delay", "delay_charged_ms", "delay_paid_ms", "iostat_debug",
	"scale_skips", "children", "bio_based", "below", "throttled_bios_per_s",
	"sample",
	"met", "win_met", "samples", "stat", "missed", "mean_us", "action",
	"action_name",
	"total", "missed", "avg_lat_us",
	"raced", "protected", "few_ios",
	"cookie", "culprit", "culprit_id", "scale_downs", "scale_ups",
	"timer_ups", "culprits_forgotten", "resets", "culprit_status",
	"acc_samples", "acc_missed", "acc_mean_us",
};

/* The objects of a row, and their keys' span of the enum. */
enum { OBJ_ROW, OBJ_WINDOW, OBJ_DEBUG, OBJ_SKIPS, OBJ_CHILDREN, OBJ_SAMPLE, OBJ_NR };
static const int obj_keys[OBJ_NR + 1] = {
	R_DEVICE, W_MET, D_TOTAL, S_RACED, C_COOKIE, M_ACC_SAMPLES, ROW_KEYS,
};

#define KEY_SLOTS 128

static __u32 key_hash(const char *s)
{
	__u32 h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * The key each place held in the last object of a kind, and which it is
 * (-1: one not read): the tools print their keys in one order, so it is
 * nearly always that one again, known by one strcmp().
 */
struct key_at {
	char key[24];
	signed char k;
};

/* Members of @o, an object of kind @obj, by key into @out; NULL: absent. */
static void row_fields(const struct ij_value *o, int obj, const struct ij_value **out)
{
	/* each kind's keys by hash: their enum + 1, 0 empty */
	static unsigned char slots[OBJ_NR][KEY_SLOTS];
	static bool built[OBJ_NR];
	static struct key_at last_at[OBJ_NR][KEY_SLOTS];
	unsigned char *slot = slots[obj];
	struct key_at *at = last_at[obj];
	int first = obj_keys[obj], last = obj_keys[obj + 1], k;
	size_t i;

	memset(out + first, 0, (last - first) * sizeof(*out));
	if (!o || o->type != IJ_OBJ)
		return;
	if (!built[obj]) {
		for (k = first; k < last; k++) {
			__u32 j = key_hash(row_keys[k]) % KEY_SLOTS;

			while (slot[j])
				j = (j + 1) % KEY_SLOTS;
			slot[j] = k + 1;
		}
		built[obj] = true;
	}
	for (i = 0; i < o->n; i++) {
		const char *key = o->items[i].key;
		__u32 j;

		if (i < KEY_SLOTS && at[i].key[0] && !strcmp(at[i].key, key)) {
			if (at[i].k >= 0)
				out[at[i].k] = &o->items[i];
			continue;
		}
		k = -1;
		for (j = key_hash(key) % KEY_SLOTS; slot[j]; j = (j + 1) % KEY_SLOTS)
			if (!strcmp(row_keys[slot[j] - 1], key)) {
				k = slot[j] - 1;
				out[k] = &o->items[i];
				break;
			}
		if (i < KEY_SLOTS && strlen(key) < sizeof(at[i].key)) {
			strcpy(at[i].key, key);
			at[i].k = k;
		}
	}
}

static int feed_top(struct why_model *m, const struct ij_value *o,
		    char *err, size_t errlen)
{
	static struct why_row r;
	const struct ij_value *rows = ij_get(o, "cgroups");
	double time = num_or(o, "time", 0), secs = num_or(o, "interval_s", 0);
	const struct ij_value *v;
	size_t i;

	/* "mode": "iostat": no events behind the rows (absent before it: events) */
	bool iostat_mode = !strcmp(str_of(o, "mode") ?: "events", "iostat");

	why_model_lost(m, WHY_SRC_TOP, u64_of(o, "lost_events"));
	v = ij_get(o, "cgroupns");
	if (v && v->type == IJ_BOOL && m->cgroupns != 1)
		m->cgroupns = v->b;
	/* io.stat mode on the controller's functions: which counters they fill */
	if (iostat_mode && ij_get(o, "functions") &&
	    ij_get(o, "functions")->type == IJ_OBJ)
		why_model_functions(m, WHY_SRC_TOP, fn_attached(o, "blkcg_add_delay"),
				    fn_attached(o, "blkcg_maybe_throttle_current"));
	for (i = 0; i < rows->n; i++) {
		const struct ij_value *c = &rows->items[i], *k[ROW_KEYS];

		if (c->type != IJ_OBJ)
			continue;
		row_fields(c, OBJ_ROW, k);
		memset(&r, 0, offsetof(struct why_row, device));
		r.device[0] = r.cgroup[0] = r.culprit[0] = '\0';
		r.time = time;
		r.interval_s = secs;
		if (copy_name(r.device, sizeof(r.device), str_v(k[R_DEVICE])) ||
		    copy_name(r.cgroup, sizeof(r.cgroup), str_v(k[R_CGROUP])))
			goto oom;
		r.cgroup_id = u64_v(k[R_CGROUP_ID]);
		r.rotational = bool_v(k[R_ROTATIONAL]);
		r.bio_based = bool_v(k[R_BIO_BASED]);
		if (r.bio_based && k[R_BELOW] && k[R_BELOW]->type == IJ_ARR)
			below_names(k[R_BELOW], r.below, sizeof(r.below));
		r.target_us = u64_v(k[R_TARGET_US]);
		if (k[R_WINDOW] && k[R_WINDOW]->type == IJ_OBJ) {
			row_fields(k[R_WINDOW], OBJ_WINDOW, k);
			r.has_window = true;
			r.met = bool_v(k[W_MET]);
			r.win_met = bool_v(k[W_WIN_MET]);
			r.samples = u64_v(k[W_SAMPLES]);
			r.ssd = !strcmp(str_v(k[W_STAT]) ?: "", "missed");
			r.missed = u64_v(k[W_MISSED]);
			r.mean_us = u64_v(k[W_MEAN_US]);
			/* Schema 1 names the action; before it, a number and action_name. */
			r.action = action_of(str_v(k[W_ACTION]) ?: str_v(k[W_ACTION_NAME]));
		}
		r.windows = u64_v(k[R_WINDOWS]);
		r.windows_missed = u64_v(k[R_WINDOWS_MISSED]);
		r.iops = num_v(k[R_IOPS], NAN);
		r.read_mbps = num_v(k[R_READ_MBPS], NAN);
		r.write_mbps = num_v(k[R_WRITE_MBPS], NAN);
		r.throttled_per_s = num_v(k[R_THROTTLED_PER_S], NAN);
		v = k[R_DEPTH];
		r.depth_known = v && v->type != IJ_NULL;
		r.depth = depth_of(v);
		r.unknown_state = !strcmp(str_v(k[R_STATE]) ?: "", "unknown");
		r.use_delay = (__s64)num_v(k[R_USE_DELAY], 0);
		r.charged_ms = num_v(k[R_CHARGED_MS], 0);
		r.paid_ms = num_v(k[R_PAID_MS], 0);
		r.iostat_mode = iostat_mode;
		if (k[R_IOSTAT_DEBUG] && k[R_IOSTAT_DEBUG]->type == IJ_OBJ) {
			r.has_iostat_debug = true;
			row_fields(k[R_IOSTAT_DEBUG], OBJ_DEBUG, k);
			r.has_io_missed = k[D_TOTAL] && k[D_TOTAL]->type == IJ_NUM;
			r.io_missed = u64_v(k[D_MISSED]);
			r.io_total = u64_v(k[D_TOTAL]);
			r.has_avg_lat = k[D_AVG_LAT_US] && k[D_AVG_LAT_US]->type == IJ_NUM;
			r.avg_lat_us = u64_v(k[D_AVG_LAT_US]);
		}
		/* the state reader's: its accumulated window */
		if (k[R_SAMPLE] && k[R_SAMPLE]->type == IJ_OBJ) {
			row_fields(k[R_SAMPLE], OBJ_SAMPLE, k);
			r.has_sample = true;
			r.acc_samples = u64_v(k[M_ACC_SAMPLES]);
			r.acc_missed = u64_v(k[M_ACC_MISSED]);
			r.has_acc_mean = k[M_ACC_MEAN_US] && k[M_ACC_MEAN_US]->type == IJ_NUM;
			r.acc_mean_us = u64_v(k[M_ACC_MEAN_US]);
		}
		row_fields(k[R_SCALE_SKIPS], OBJ_SKIPS, k);
		r.skips[WHY_SKIP_RACED] = u64_v(k[S_RACED]);
		r.skips[WHY_SKIP_PROTECTED] = u64_v(k[S_PROTECTED]);
		r.skips[WHY_SKIP_FEW_IOS] = u64_v(k[S_FEW_IOS]);
		if (k[R_CHILDREN] && k[R_CHILDREN]->type == IJ_OBJ) {
			row_fields(k[R_CHILDREN], OBJ_CHILDREN, k);
			r.has_children = true;
			r.child_cookie = u64_v(k[C_COOKIE]);
			if (copy_name(r.culprit, sizeof(r.culprit), str_v(k[C_CULPRIT])))
				goto oom;
			r.culprit_id = u64_v(k[C_CULPRIT_ID]);
			r.scale_downs = u64_v(k[C_SCALE_DOWNS]);
			r.scale_ups = u64_v(k[C_SCALE_UPS]);
			r.timer_ups = u64_v(k[C_TIMER_UPS]);
			r.forgotten = u64_v(k[C_FORGOTTEN]);
			r.resets = u64_v(k[C_RESETS]);
			r.culprit_gone = !strcmp(str_v(k[C_CULPRIT_STATUS]) ?: "", "gone");
		}
		if (why_model_row(m, &r))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

enum ij_line ij_feed_line(struct why_model *m, const char *line, char *err,
			  size_t errlen)
{
	static struct ij_arena arena;
	struct ij_value v;
	const struct ij_value *rows;
	enum ij_line kind = IJ_LINE_BAD;
	const char *s = line;
	double schema;
	int ret;

	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	if (!*s)
		return IJ_LINE_EMPTY;
	ret = ij_parse_in(&arena, s, &v, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (ret)
		goto out;
	if (v.type != IJ_OBJ) {
		snprintf(err, errlen, "not a JSON object");
		goto out;
	}
	/*
	 * iolat-top's lines hold an array of rows, iolat-snoop's name their
	 * event.  A "schema" or "version" key is accepted and not checked:
	 * the keys read are looked up by name, absent ones read as unknown.
	 */
	schema = num_or(&v, "schema", 0);
	line_schema = schema > 0 && schema < 1000 ? (int)schema : 0;
	rows = ij_get(&v, "cgroups");
	if (rows && rows->type == IJ_ARR) {
		if (!feed_top(m, &v, err, errlen))
			kind = IJ_LINE_TOP;
	} else if (str_of(&v, "event")) {
		if (!feed_snoop(m, &v, err, errlen))
			kind = IJ_LINE_SNOOP;
	} else {
		snprintf(err, errlen, "neither an iolat-snoop -j event nor an iolat-top -j report");
	}
out:
	if (arena.bytes > IJ_ARENA_KEEP)
		arena_free(&arena);
	return kind;
}
