// SPDX-License-Identifier: GPL-2.0
/* Front-end helpers shared by the iolat tools. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "iolat.h"
#include "iolat-common.h"

volatile sig_atomic_t iolat_exiting;
bool iolat_verbose;

static void on_signal(int sig)
{
	iolat_exiting = 1;
}

void iolat_handle_signals(void)
{
	/*
	 * SA_RESTART: a write blocked on a full pipe goes on when the signal
	 * comes, so the last record is never cut short.  Sleeps and polls
	 * are never restarted: they end early, and the loops see the flag.
	 */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed reader is EPIPE: iolat_flush() */
}

int iolat_libbpf_print(enum libbpf_print_level level, const char *fmt,
		       va_list args)
{
	if (level == LIBBPF_DEBUG && !iolat_verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* The series' events, all of which the tools attach to: io.latency's, and
 * blk-cgroup's for the sleeps of induced delay. */
static const char *const iolat_events[] = {
	"iolatency_window", "iolatency_target", "iolatency_enable",
	"iolatency_scale_cookie", "iolatency_scale_grp_clear",
	"iolatency_scale_reset", "iolatency_scale_skip", "iolatency_depth",
	"iolatency_throttle", "iolatency_use_delay", "iolatency_delay_charge",
	"blkcg_delay_pay",
};

int iolat_events_check(const struct btf *btf, char *why, size_t len)
{
	char name[64], missing[512] = "";
	size_t i, n = 0, nr = sizeof(iolat_events) / sizeof(*iolat_events);
	int v2;

	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", iolat_events[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0)
			continue;
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
			 "%s%s", n++ ? ", " : "", iolat_events[i]);
	}
	if (n == nr) {
		snprintf(why, len, "this kernel has no iolatency tracepoints");
		return IOLAT_EXIT_UNSUPPORTED;
	}
	if (n) {
		/* Another version of the series, or a partial backport. */
		snprintf(why, len, "this kernel has only some of the iolatency "
			 "tracepoints, not %s", missing);
		return IOLAT_EXIT_UNSUPPORTED;
	}
	/* The events' second version passes the window as this struct. */
	v2 = btf__find_by_name_kind(btf, "iolatency_window_info", BTF_KIND_STRUCT);
	if (v2 < 0) {
		snprintf(why, len, "this kernel has an older version of the "
			 "iolatency tracepoints");
		return IOLAT_EXIT_UNSUPPORTED;
	}
	if (len)
		why[0] = '\0';
	return IOLAT_EXIT_OK;
}

int iolat_preflight_btf(const char *tool, const struct btf *btf)
{
	char why[640];
	int err = iolat_events_check(btf, why, sizeof(why));

	if (err)
		fprintf(stderr, "%s: %s; build it with the series in patches/ "
			"(see README.md)\n", tool, why);
	return err;
}

int iolat_preflight_root(const char *tool)
{
	if (geteuid() != 0) {
		fprintf(stderr, "%s: must be run as root (it loads BPF programs)\n",
			tool);
		return IOLAT_EXIT_UNSUPPORTED;
	}
	return IOLAT_EXIT_OK;
}

int iolat_events_available(char *why, size_t len)
{
	struct btf *btf;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len, "the kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return IOLAT_EXIT_UNSUPPORTED;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(why, len, "cannot read the kernel BTF: %s", strerror(errno));
		return IOLAT_EXIT_UNSUPPORTED;
	}
	err = iolat_events_check(btf, why, len);
	btf__free(btf);
	return err;
}

const char *const iolat_fn_names[IOLAT_FN_NR] = {
	"blkcg_add_delay", "blkcg_maybe_throttle_current",
};

static const char *kallsyms = "/proc/kallsyms";

void iolat_kallsyms_set(const char *path)
{
	kallsyms = path ?: "/proc/kallsyms";
}

const char *iolat_kallsyms_path(void)
{
	return kallsyms;
}

int iolat_fns_check(const struct btf *btf, struct iolat_fns *fns)
{
	bool listed[IOLAT_FN_NR] = {};
	char line[512], name[256];
	int i, n = 0, err = 0;
	FILE *f;

	memset(fns, 0, sizeof(*fns));
	/* "ffffffff81231202 T blkcg_add_delay" (a module's: "\t[mod]" after) */
	f = fopen(kallsyms, "r");
	if (!f)
		err = errno;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*s %255s", name) == 1)
			for (i = 0; i < IOLAT_FN_NR; i++)
				listed[i] |= !strcmp(name, iolat_fn_names[i]);
	if (f)
		fclose(f);
	fns->kallsyms_unread = err != 0;
	for (i = 0; i < IOLAT_FN_NR; i++) {
		if (btf__find_by_name_kind(btf, iolat_fn_names[i], BTF_KIND_FUNC) < 0)
			snprintf(fns->why[i], sizeof(fns->why[i]), "not in the kernel's BTF");
		else if (!err && !listed[i])
			snprintf(fns->why[i], sizeof(fns->why[i]), "not in %s (inlined)",
				 kallsyms);
		else
			n++;
	}
	return n;
}

int iolat_fns_probe(struct iolat_fns *fns, bool off)
{
	struct btf *btf;
	int i, n;

	memset(fns, 0, sizeof(*fns));
	if (off) {
		for (i = 0; i < IOLAT_FN_NR; i++)
			snprintf(fns->why[i], sizeof(fns->why[i]), "off (--no-functions)");
		return 0;
	}
	btf = access("/sys/kernel/btf/vmlinux", R_OK) ? NULL : btf__load_vmlinux_btf();
	if (!btf) {
		for (i = 0; i < IOLAT_FN_NR; i++)
			snprintf(fns->why[i], sizeof(fns->why[i]), "no kernel BTF");
		return 0;
	}
	n = iolat_fns_check(btf, fns);
	btf__free(btf);
	return n;
}

int iolat_fns_attached(const struct iolat_fns *fns)
{
	int i, n = 0;

	for (i = 0; i < IOLAT_FN_NR; i++)
		n += fns->attached[i];
	return n;
}

const char *iolat_fns_text(const struct iolat_fns *fns, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < IOLAT_FN_NR && n < len; i++) {
		if (fns->attached[i])
			n += snprintf(buf + n, len - n, "%s%s attached", i ? "; " : "",
				      iolat_fn_names[i]);
		else
			n += snprintf(buf + n, len - n, "%s%s not attached: %s", i ? "; " : "",
				      iolat_fn_names[i], fns->why[i][0] ? fns->why[i] : "?");
	}
	return buf;
}

int iolat_load_attach(const char *tool, struct bpf_object_skeleton *skel)
{
	int err = bpf_object__load_skeleton(skel);

	if (err) {
		fprintf(stderr, "%s: failed to load BPF object: %s\n", tool,
			strerror(-err));
		return IOLAT_EXIT_ERROR;
	}
	err = bpf_object__attach_skeleton(skel);
	if (err) {
		fprintf(stderr, "%s: failed to attach BPF programs: %s\n", tool,
			strerror(-err));
		return IOLAT_EXIT_ERROR;
	}
	return IOLAT_EXIT_OK;
}

int iolat_parse_regex(const char *tool, const char *arg, regex_t *re)
{
	int err = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	char msg[128];

	if (!err)
		return IOLAT_EXIT_OK;
	regerror(err, re, msg, sizeof(msg));
	fprintf(stderr, "%s: invalid regex '%s': %s\n", tool, arg, msg);
	return IOLAT_EXIT_USAGE;
}

int iolat_parse_interval(const char *tool, const char *arg, double *secs)
{
	char *end;

	errno = 0;
	*secs = strtod(arg, &end);
	if (errno || end == arg || *end || !(*secs > 0) || *secs > 86400) {
		fprintf(stderr, "%s: invalid interval '%s': want seconds, "
			"more than 0 and at most 86400\n", tool, arg);
		return IOLAT_EXIT_USAGE;
	}
	return IOLAT_EXIT_OK;
}

int iolat_parse_count(const char *tool, const char *arg, long *count)
{
	char *end;

	errno = 0;
	*count = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *count < 1) {
		fprintf(stderr, "%s: invalid count '%s': want a whole number >= 1\n",
			tool, arg);
		return IOLAT_EXIT_USAGE;
	}
	return IOLAT_EXIT_OK;
}

static const char *sys_block = "/sys/dev/block";

void iolat_sys_block_set(const char *dir)
{
	sys_block = dir ?: "/sys/dev/block";
}

/*
 * io.latency works on whole disks, and its events name the disk a
 * partition's bios went to: -d on a partition would match nothing.
 * Refuse it, naming the disk (the partition's parent in sysfs).
 */
static int refuse_partition(const char *tool, const char *arg, __u32 dev)
{
	char path[PATH_MAX], target[PATH_MAX], *slash;
	ssize_t len;

	snprintf(path, sizeof(path), "%s/%u:%u/partition", sys_block,
		 IOLAT_MAJOR(dev), IOLAT_MINOR(dev));
	if (access(path, F_OK))
		return IOLAT_EXIT_OK;
	snprintf(path, sizeof(path), "%s/%u:%u", sys_block, IOLAT_MAJOR(dev),
		 IOLAT_MINOR(dev));
	len = readlink(path, target, sizeof(target) - 1);
	target[len > 0 ? len : 0] = '\0';
	slash = strrchr(target, '/');
	if (slash)
		*slash = '\0';
	slash = strrchr(target, '/');
	fprintf(stderr, "%s: '%s' is a partition; io.latency works on whole "
		"disks: use -d %s\n", tool, arg,
		slash ? slash + 1 : target[0] ? target : "DISK");
	return IOLAT_EXIT_USAGE;
}

int iolat_parse_dev(const char *tool, const char *arg, __u32 *dev)
{
	unsigned int ma, mi;
	char path[PATH_MAX], extra;
	struct stat st;

	if (sscanf(arg, "%u:%u%c", &ma, &mi, &extra) == 2) {
		snprintf(path, sizeof(path), "%s/%u:%u", sys_block, ma, mi);
		if (access(path, F_OK)) {
			fprintf(stderr, "%s: no block device %s\n", tool, arg);
			return IOLAT_EXIT_USAGE;
		}
		*dev = IOLAT_MKDEV(ma, mi);
		return refuse_partition(tool, arg, *dev);
	}
	if (strchr(arg, '/'))
		snprintf(path, sizeof(path), "%s", arg);
	else
		snprintf(path, sizeof(path), "/dev/%s", arg);
	if (stat(path, &st) || !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "%s: no block device '%s' (%s)\n", tool, arg,
			path);
		return IOLAT_EXIT_USAGE;
	}
	*dev = IOLAT_MKDEV(major(st.st_rdev), minor(st.st_rdev));
	return refuse_partition(tool, arg, *dev);
}

#define DEV_CACHE 64
static struct {
	__u32 dev;
	int rot;
	int bio_based;
	char name[32];
	char below[96];
} dev_cache[DEV_CACHE];
static int dev_cache_n;

void iolat_dev_cache_reset(void)
{
	dev_cache_n = 0;
}

/* 1 rotational, 0 not, -1 unknown; -EMFILE or -ENFILE: no descriptor. */
static int dev_rotational_read(__u32 dev)
{
	char path[PATH_MAX];
	FILE *f;
	int rot = -1;

	snprintf(path, sizeof(path), "%s/%u:%u/queue/rotational", sys_block,
		 IOLAT_MAJOR(dev), IOLAT_MINOR(dev));
	f = fopen(path, "r");
	if (!f)
		return errno == EMFILE || errno == ENFILE ? -errno : -1;
	if (fscanf(f, "%d", &rot) != 1)
		rot = -1;
	fclose(f);
	return rot;
}

/*
 * blk-mq gives each request-based disk an mq/ directory; a bio-based one
 * (device mapper's linear, crypt, ...; md; null_blk's queue_mode 0) has
 * none, and no rq_qos policy sees its bios.  1 bio-based, 0 not, -1
 * unknown (its directory could not be read).
 */
static int dev_bio_based_read(__u32 dev)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%u:%u/queue", sys_block,
		 IOLAT_MAJOR(dev), IOLAT_MINOR(dev));
	if (stat(path, &st))
		return -1;
	snprintf(path, sizeof(path), "%s/%u:%u/mq", sys_block,
		 IOLAT_MAJOR(dev), IOLAT_MINOR(dev));
	if (!stat(path, &st))
		return 0;
	return errno == ENOENT ? 1 : -1;
}

/* The disks @dev is stacked on (its slaves/), comma-separated, sorted. */
static void dev_below_read(__u32 dev, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct dirent **v;
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%u:%u/slaves", sys_block,
		 IOLAT_MAJOR(dev), IOLAT_MINOR(dev));
	n = scandir(path, &v, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *d = v[i]->d_name;

		if (d[0] != '.' && used + strlen(d) + 2 < len)
			used += snprintf(buf + used, len - used, "%s%s", used ? "," : "", d);
		free(v[i]);
	}
	if (n > 0)
		free(v);
}

/*
 * The cache slot of @dev, filled from sysfs; -ENOENT when it is gone,
 * another -errno when that cannot be told (out of descriptors).
 */
static int dev_lookup(__u32 dev)
{
	char link[PATH_MAX], target[PATH_MAX];
	ssize_t len;
	int i, slot, rot;

	for (i = 0; i < dev_cache_n; i++)
		if (dev_cache[i].dev == dev)
			return i;
	snprintf(link, sizeof(link), "%s/%u:%u", sys_block,
		 IOLAT_MAJOR(dev), IOLAT_MINOR(dev));
	len = readlink(link, target, sizeof(target) - 1);
	if (len <= 0)	/* gone: do not cache a stale name */
		return len < 0 && errno != ENOENT ? -errno : -ENOENT;
	target[len] = '\0';
	rot = dev_rotational_read(dev);
	if (rot < -1)
		return rot;	/* not cached: ask again next time */
	slot = dev_cache_n < DEV_CACHE ? dev_cache_n++ : (int)(dev % DEV_CACHE);
	dev_cache[slot].dev = dev;
	dev_cache[slot].rot = rot;
	dev_cache[slot].bio_based = dev_bio_based_read(dev);
	dev_below_read(dev, dev_cache[slot].below, sizeof(dev_cache[slot].below));
	snprintf(dev_cache[slot].name, sizeof(dev_cache[slot].name), "%s",
		 strrchr(target, '/') + 1);
	return slot;
}

const char *iolat_dev_name(__u32 dev)
{
	static char fallback[32];
	int slot = dev_lookup(dev);

	if (slot >= 0)
		return dev_cache[slot].name;
	snprintf(fallback, sizeof(fallback), "%u:%u", IOLAT_MAJOR(dev),
		 IOLAT_MINOR(dev));
	return fallback;
}

int iolat_dev_rotational(__u32 dev)
{
	int slot = dev_lookup(dev);

	return slot >= 0 ? dev_cache[slot].rot : -1;
}

int iolat_dev_bio_based(__u32 dev)
{
	int slot = dev_lookup(dev);

	return slot >= 0 ? dev_cache[slot].bio_based : -1;
}

const char *iolat_dev_below(__u32 dev)
{
	int slot = dev_lookup(dev);

	return slot >= 0 ? dev_cache[slot].below : "";
}

int iolat_dev_check(__u32 dev)
{
	int slot = dev_lookup(dev);

	return slot >= 0 ? 1 : slot == -ENOENT ? 0 : slot;
}

void iolat_raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

void iolat_lost_explain(const char *tool, const struct iolat_lost *l)
{
	if (!l->total)
		return;
	fprintf(stderr, "%s: %llu events lost: %llu with the ring buffer full, "
		"%llu map updates refused", tool, (unsigned long long)l->total,
		(unsigned long long)l->ringbuf, (unsigned long long)l->update);
	if (l->update)
		fprintf(stderr, " (the last: %s)", strerror((int)-l->update_err));
	fprintf(stderr, ", %llu entries deleted between their creation and use\n",
		(unsigned long long)l->deleted);
}

void iolat_json_begin(FILE *f, const char *tool, double t, int decimals)
{
	fprintf(f, "{\"schema\":%d,\"tool\":\"%s\",\"time\":%.*f",
		IOLAT_JSON_SCHEMA, tool, decimals, t);
}

const char *iolat_action_name(int action)
{
	static const char *const names[IOLAT_ACT_NR] = {
		"ok", "hold", "few", "up", "not_owner", "down", "tighter", "offline",
	};

	return action >= 0 && action < IOLAT_ACT_NR ? names[action] : "?";
}

const char *iolat_scale_by_name(int by)
{
	static const char *const names[IOLAT_BY_NR] = {
		"window", "timer", "target", "offline",
	};

	return by >= 0 && by < IOLAT_BY_NR ? names[by] : "?";
}

/* iolat-snoop's words for the same: direction, or its event's type. */
const char *iolat_scale_kind_name(int kind)
{
	static const char *const names[IOLAT_SCALE_NR] = {
		"down", "up", "culprit_forgotten", "scale_reset",
	};

	return kind >= 0 && kind < IOLAT_SCALE_NR ? names[kind] : "?";
}

/* A hex digit's value, 16 for anything else. */
static unsigned hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 16;	/* iolat_esc() writes lower case only: one spelling */
}

/*
 * How many bytes of @s make one UTF-8 character that may be shown as it
 * is, 0 when its first byte must be escaped: C0 controls, DEL, C1
 * controls (U+0080-U+009F), the bidirectional and line-breaking format
 * characters that make a terminal show text out of order, and every byte
 * of no valid sequence (overlong, surrogate, past U+10FFFF, cut short).
 */
static size_t esc_keep(const unsigned char *s)
{
	unsigned cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* the NUL too */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp <= 0x9f ||			/* C1 */
	    (cp >= 0x200e && cp <= 0x200f) ||	/* LRM, RLM */
	    (cp >= 0x2028 && cp <= 0x202e) ||	/* LS, PS, embeddings */
	    (cp >= 0x2066 && cp <= 0x2069))	/* isolates */
		return 0;
	return n;
}

/*
 * The escaped text of the character at @s into @out (at most 5 bytes
 * and a NUL): how many bytes of @s it stands for.
 */
static size_t esc_unit(const char *s, char out[6])
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t n = esc_keep(u);

	if (*s == '\\') {
		strcpy(out, "\\\\");
		return 1;
	}
	if (n) {
		memcpy(out, s, n);
		out[n] = '\0';
		return n;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[u[0] >> 4];
	out[3] = hex[u[0] & 15];
	out[4] = '\0';
	return 1;
}

const char *iolat_esc(char *buf, size_t size, const char *s)
{
	size_t n = 0, len;
	char unit[6];

	if (!size)
		return buf;
	while (*s) {
		/* Printable ASCII, nearly every name whole, as a run. */
		for (len = 0; (unsigned char)(s[len] - 0x20) < 0x5f && s[len] != '\\'; len++)
			;
		if (len) {
			if (n + len >= size)
				len = size - n - 1;
			memcpy(buf + n, s, len);
			n += len;
			s += len;
			if (n + 1 >= size)
				break;
			continue;
		}
		s += esc_unit(s, unit);
		len = strlen(unit);
		if (n + len >= size)	/* cut between characters, never inside */
			break;
		memcpy(buf + n, unit, len);
		n += len;
	}
	buf[n] = '\0';
	return buf;
}

int iolat_unesc(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s; n++) {
		unsigned hi, lo;
		char c = *s;

		if (n + 1 >= size)
			return -ENAMETOOLONG;
		if (c != '\\') {
			s++;
		} else if (s[1] == '\\') {
			s += 2;
		} else if (s[1] == 'x' && (hi = hexval(s[2])) < 16 &&
			   (lo = hexval(s[3])) < 16 && (hi || lo)) {
			c = hi << 4 | lo;
			s += 4;
		} else {
			return -EINVAL;
		}
		buf[n] = c;
	}
	buf[n] = '\0';
	return 0;
}

const char *iolat_shell_quote(char *buf, size_t size, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_./:@%+=,-";
	bool plain = true;
	const char *p;
	char unit[6];
	size_t n, k;

	if (size < IOLAT_SHELL_LEN(strlen(s))) {
		snprintf(buf, size, "%s", size ? "''" : "");
		return NULL;
	}
	if (*s && strspn(s, safe) == strlen(s))
		return strcpy(buf, s);
	/* '...' holds printable text as it is; $'...' the rest as \xNN. */
	for (p = s; *p && plain; p += k)
		plain = (k = esc_keep((const unsigned char *)p)) > 0;
	n = sprintf(buf, "%s'", plain ? "" : "$");
	while (*s) {
		const char *put = unit;

		if (plain) {
			unit[0] = *s++;
			unit[1] = '\0';
			if (unit[0] == '\'')
				put = "'\\''";
		} else {
			s += esc_unit(s, unit);
			if (unit[0] == '\'')
				put = "\\'";
		}
		n += sprintf(buf + n, "%s", put);
	}
	strcpy(buf + n, "'");
	return buf;
}

/*
 * @s escaped (iolat_esc()) and then for a "..." of JSON or Prometheus.
 * A run of characters that need neither escape is written whole, where
 * a call a character took the stream's lock for each: some 300 calls a
 * row of -P's file.
 */
static void put_quoted(FILE *f, const char *s, bool esc)
{
	char unit[6];
	const char *u, *run;
	size_t n;

	while (*s) {
		for (run = s; *s != '"' && *s != '\\'; s += n) {
			n = esc ? esc_keep((const unsigned char *)s) : (unsigned char)*s >= 0x20;
			if (!n)
				break;	/* the NUL too */
		}
		if (s > run)
			fwrite(run, 1, s - run, f);
		if (!*s)
			break;
		if (esc) {
			s += esc_unit(s, unit);
		} else {
			unit[0] = *s++;
			unit[1] = '\0';
		}
		for (u = unit; *u; u++) {
			unsigned char c = *u;

			if (c == '"' || c == '\\')
				fprintf(f, "\\%c", c);
			else if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
}

void iolat_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	put_quoted(f, s, true);
	fputc('"', f);
}

void iolat_json_text(FILE *f, const char *s)
{
	fputc('"', f);
	put_quoted(f, s, false);
	fputc('"', f);
}

void iolat_prom_label(FILE *f, const char *s)
{
	put_quoted(f, s, true);
}

/* The @len bytes at @s into @buf of @size as snprintf() cuts them; @len. */
static int fmt_put(char *buf, size_t size, const char *s, int len)
{
	size_t n = (size_t)len < size ? (size_t)len : size - 1;

	if (!size)
		return len;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return len;
}

int iolat_fmt_u64(char *buf, size_t size, unsigned long long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	return fmt_put(buf, size, p, tmp + sizeof(tmp) - p);
}

int iolat_fmt_fixed(char *buf, size_t size, double v, int prec)
{
	static const __u64 scale[] = { 1, 10, 100, 1000 };
	char tmp[32], *p = tmp + sizeof(tmp);
	__u64 bits, mant, q, rem, half;
	int exp, shift, i;

	memcpy(&bits, &v, sizeof(bits));
	exp = (int)(bits >> 52) & 0x7ff;
	if (bits >> 63 || exp >= 1023 + 52 || prec < 0 || prec > 3)
		return snprintf(buf, size, "%.*f", prec, v);
	/* @v is @mant / 2^@shift exactly, @shift >= 1 (below 2^52). */
	mant = bits & ((1ULL << 52) - 1);
	if (exp)
		mant |= 1ULL << 52;
	else
		exp = 1;	/* subnormal */
	shift = 1075 - exp;
	mant *= scale[prec];	/* below 2^63 */
	if (shift >= 64) {
		q = 0;		/* below 2^63 / 2^64: under a half */
	} else {
		q = mant >> shift;
		rem = mant & ((1ULL << shift) - 1);
		half = 1ULL << (shift - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	for (i = 0; i < prec; i++) {
		*--p = '0' + q % 10;
		q /= 10;
	}
	if (prec)
		*--p = '.';
	do {
		*--p = '0' + q % 10;
		q /= 10;
	} while (q);
	return fmt_put(buf, size, p, tmp + sizeof(tmp) - p);
}

const char *iolat_clock(double t)
{
	static char buf[32];
	time_t secs = (time_t)t;
	struct tm tm;
	size_t len;

	localtime_r(&secs, &tm);
	len = strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	snprintf(buf + len, sizeof(buf) - len, ".%03d", (int)((t - secs) * 1000));
	return buf;
}

static double clock_secs(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double iolat_now(void)
{
	return clock_secs(CLOCK_REALTIME);
}

double iolat_mono(void)
{
	return clock_secs(CLOCK_MONOTONIC);
}

double iolat_thread_cpu(void)
{
	return clock_secs(CLOCK_THREAD_CPUTIME_ID);
}

double iolat_next_tick(double tick, double interval, double now)
{
	double k = floor((now - tick) / interval) + 1;

	return tick + (k < 1 ? 1 : k) * interval;
}

int iolat_sleep_until(double t)
{
	struct timespec ts;
	int err;

	if (t < 0)
		t = 0;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return err ? -err : 0;
}

static bool output_reported;

int iolat_flush(const char *tool, FILE *f)
{
	int err;

	errno = 0;
	if (!fflush(f) && !ferror(f))
		return 0;
	err = errno ? -errno : -EIO;
	if (err != -EPIPE && !output_reported) {
		fprintf(stderr, "%s: cannot write the output: %s\n", tool,
			strerror(-err));
		output_reported = true;
	}
	return err;
}

static const char *exit_tool;

static void check_stdout(void)
{
	int err = iolat_flush(exit_tool, stdout);

	if (err && err != -EPIPE)
		_exit(IOLAT_EXIT_ERROR);
}

void iolat_check_stdout_at_exit(const char *tool)
{
	/*
	 * A write that fails inside stdio's own flush (the buffer filled)
	 * leaves only the error flag, not its errno: iolat_flush() would say
	 * EIO for a full disk.  A 64 KiB buffer holds --help and a report of
	 * a few hundred rows, so their error comes from our flush, with its
	 * reason.  (A terminal keeps its line buffering.)
	 */
	static char buf[65536];	/* glibc ignores the size without a buffer */

	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	exit_tool = tool;
	signal(SIGPIPE, SIG_IGN);
	atexit(check_stdout);
}

int iolat_grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (size && ncap > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}
