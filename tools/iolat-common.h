/* SPDX-License-Identifier: GPL-2.0 */
/* Front-end helpers shared by the iolat tools. */
#ifndef __IOLAT_COMMON_H
#define __IOLAT_COMMON_H

#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

/* Exit statuses, as documented in every tool's --help. */
#define IOLAT_EXIT_OK		0
#define IOLAT_EXIT_ERROR	1	/* run-time failure */
#define IOLAT_EXIT_USAGE	2	/* bad arguments */
#define IOLAT_EXIT_UNSUPPORTED	3	/* not root, no BTF, no iolatency events */

/*
 * Where @key starts in an open-addressing table of @cap slots (a power of
 * two, at most 2^32): Fibonacci hashing, the product's high half.
 */
static inline size_t iolat_hash_slot(__u64 key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/*
 * Room for @need elements of @size bytes in the array *@v of *@cap: the
 * capacity doubled (from 16) until it holds them.  0 or -ENOMEM, *@v
 * kept as it was on failure.
 */
int iolat_grow(void **v, size_t *cap, size_t need, size_t size);

extern volatile sig_atomic_t iolat_exiting;
extern bool iolat_verbose;

/*
 * SIGINT and SIGTERM set iolat_exiting; the poll loops then end cleanly.
 * SIGPIPE is ignored.
 */
void iolat_handle_signals(void);
int iolat_libbpf_print(enum libbpf_print_level level, const char *fmt,
		       va_list args);

struct btf;
/*
 * Its BTF part: every iolatency event of the series, in their second
 * version; says which are missing.  Returns an exit status.
 */
int iolat_preflight_btf(const char *tool, const struct btf *btf);
/*
 * The same without a word on stderr: IOLAT_EXIT_OK when @btf has every
 * event, else IOLAT_EXIT_UNSUPPORTED and why in @why ("this kernel has no
 * iolatency tracepoints").  iolat_events_available() asks the running
 * kernel (its BTF missing is a reason too).
 */
int iolat_events_check(const struct btf *btf, char *why, size_t len);
int iolat_events_available(char *why, size_t len);
/* Root, or say so: an exit status. */
int iolat_preflight_root(const char *tool);

/*
 * Without the events, the fallback traces the controller's functions
 * that the kernel does not inline (bpf/iolat-fallback.bpf.c): fentry and
 * fexit need each in the kernel's BTF as a FUNC and in kallsyms.
 */
enum iolat_fn { IOLAT_FN_ADD_DELAY, IOLAT_FN_THROTTLE, IOLAT_FN_NR };
extern const char *const iolat_fn_names[IOLAT_FN_NR];
#define IOLAT_FN_WHY_LEN 128
/*
 * What became of each function: attached, or why not (why[] "" when it
 * is).  kallsyms_unread: /proc/kallsyms could not be read (systemd's
 * ProtectKernelTunables hides it), so the functions in the BTF were
 * tried, and loading told which are there.
 */
struct iolat_fns {
	bool attached[IOLAT_FN_NR];
	char why[IOLAT_FN_NR][IOLAT_FN_WHY_LEN];
	bool kallsyms_unread;
};
/* Use @path for /proc/kallsyms (tests; NULL: back to it). */
void iolat_kallsyms_set(const char *path);
/* The file read for /proc/kallsyms. */
const char *iolat_kallsyms_path(void);
/*
 * Which functions @btf has as FUNC and kallsyms lists: why[] says why
 * not for the others, "" for these (attached[] is the loader's).
 * Returns how many can be traced.  When kallsyms cannot be read, those
 * in the BTF (kallsyms_unread set): the loader finds out.
 */
int iolat_fns_check(const struct btf *btf, struct iolat_fns *fns);
/*
 * The same of the running kernel; with @off (--no-functions) none, each
 * "off (--no-functions)".
 */
int iolat_fns_probe(struct iolat_fns *fns, bool off);
/* How many were attached. */
int iolat_fns_attached(const struct iolat_fns *fns);
/*
 * One line for people, in @buf: "blkcg_add_delay attached;
 * blkcg_maybe_throttle_current not attached: not in /proc/kallsyms
 * (inlined)".
 */
const char *iolat_fns_text(const struct iolat_fns *fns, char *buf, size_t len);

/* Load and attach a skeleton's programs, saying what failed. */
int iolat_load_attach(const char *tool, struct bpf_object_skeleton *skel);

/* -c REGEX: compile a POSIX extended regex, saying why it is bad. */
int iolat_parse_regex(const char *tool, const char *arg, regex_t *re);

/* Positionals: INTERVAL in seconds (> 0, fractions allowed), COUNT >= 1. */
int iolat_parse_interval(const char *tool, const char *arg, double *secs);
int iolat_parse_count(const char *tool, const char *arg, long *count);

/*
 * -d DEV: "nullb0", "/dev/nullb0" or "MAJ:MIN", to the kernel's dev_t.  A
 * partition is refused (exit 2), naming its disk.
 */
int iolat_parse_dev(const char *tool, const char *arg, __u32 *dev);
/* Use @dir instead of /sys/dev/block (tests; NULL: back to it). */
void iolat_sys_block_set(const char *dir);
/*
 * The disk name of @dev ("nullb0"), or "MAJ:MIN" once it is gone.  Names
 * and queue types are cached until iolat_dev_cache_reset(): call it once
 * an interval, as a device number can come back as another device.
 */
const char *iolat_dev_name(__u32 dev);
/* 1 rotational, 0 not, -1 unknown. */
int iolat_dev_rotational(__u32 dev);
/*
 * 1 if @dev's queue is bio-based (device mapper, md): io.latency accepts
 * a target there and never acts on it.  0 request-based, -1 unknown.
 */
int iolat_dev_bio_based(__u32 dev);
/* The disks below @dev ("nullb0,nullb1"; "" for none): where to set it. */
const char *iolat_dev_below(__u32 dev);
/*
 * 1 if @dev is there, 0 if it is gone, -errno when that cannot be told
 * (-EMFILE, -ENFILE): never take that for gone.
 */
int iolat_dev_check(__u32 dev);
/* Raise RLIMIT_NOFILE's soft limit to the hard one. */
void iolat_raise_nofile(void);
struct iolat_lost;
/* On stderr, when @l has any: how many events were lost, and why. */
void iolat_lost_explain(const char *tool, const struct iolat_lost *l);
void iolat_dev_cache_reset(void);

/*
 * Flush @f and check every write since the last call: 0, -EPIPE when the
 * reader went away (SIGPIPE is ignored; the tools then end quietly, exit
 * status 0), or another -errno, which it reports once.
 */
int iolat_flush(const char *tool, FILE *f);
/* First thing in main(): ignore SIGPIPE; at exit, a failed stdout exits 1. */
void iolat_check_stdout_at_exit(const char *tool);

/*
 * The JSON schema of both tools' -j records (README.md, "JSON records"):
 * raised when a key is renamed or removed, or its unit or type changes.
 */
#define IOLAT_JSON_SCHEMA 2
/* A record's first keys: {"schema":N,"tool":"@tool","time":@t (@decimals). */
void iolat_json_begin(FILE *f, const char *tool, double t, int decimals);
/* The name of an enum iolat_action ("down"), "?" when out of range. */
const char *iolat_action_name(int action);
/* enum iolat_scale_by and enum iolat_scale_kind by name, as in JSON. */
const char *iolat_scale_by_name(int by);
const char *iolat_scale_kind_name(int kind);
/*
 * Names (cgroup paths, task and device names) are whatever whoever made
 * them chose.  One reversible escape, the same in every output: '\\' as
 * "\\\\", and as "\\xNN" (lower case) each byte that is a C0 control,
 * DEL, part of a C1 control (U+0080-U+009F), of a character that reorders
 * or breaks a terminal's line (U+200E-F, U+2028-E, U+2066-9) or of no
 * valid UTF-8 sequence.  What is left is printable UTF-8: safe on a
 * terminal, valid in JSON and in Prometheus labels, and two names never
 * escape to one, so that iolat-why can give back the real path.
 *
 * iolat_esc(): @s escaped into @buf, cut between characters when @size is
 * short; IOLAT_ESC_LEN(strlen(s)) always holds it.  iolat_unesc(): the
 * inverse, 0, -EINVAL for text iolat_esc() does not write (a stray
 * backslash, "\\x00", upper-case hex), -ENAMETOOLONG when @size is short.
 */
#define IOLAT_ESC_LEN(n) (4 * (n) + 1)
const char *iolat_esc(char *buf, size_t size, const char *s);
int iolat_unesc(char *buf, size_t size, const char *s);
/*
 * @s as one word for the shell, in @buf: as it is when it holds only
 * characters no shell reads, else in '...', or in $'...' with
 * iolat_esc()'s \\xNN (and \\\\, \\') when it holds a byte a terminal
 * must not get.  NULL, and '' in @buf, when @size is below
 * IOLAT_SHELL_LEN(strlen(s)): never a word cut short.
 */
#define IOLAT_SHELL_LEN(n) (4 * (n) + 4)
const char *iolat_shell_quote(char *buf, size_t size, const char *s);
/* A name, iolat_esc()'d, as a JSON string, quotes included. */
void iolat_json_str(FILE *f, const char *s);
/*
 * The tools' own text (messages, findings, commands that already hold
 * escaped names) as a JSON string: JSON's escapes alone.
 */
void iolat_json_text(FILE *f, const char *s);
/* A name, iolat_esc()'d, as a Prometheus label value (no quotes). */
void iolat_prom_label(FILE *f, const char *s);
/*
 * Numbers for text reports, without printf (a row of iolat-top's text
 * cost about 20,000 instructions, most of them printf's floating point).
 *
 * iolat_fmt_fixed(): @v with @prec decimals (0 to 3), the very digits
 * printf's "%.*f" writes: the double's exact value (a 53-bit integer
 * times a power of two) times 10^@prec, rounded to the nearest integer,
 * a tie to the even one, as glibc rounds in the default rounding mode,
 * in 64-bit integers.  What that does not cover (negative or -0, not
 * finite, 2^52 and over, another @prec) goes to snprintf() itself.
 * iolat_fmt_u64(): "%llu".  Both write into @buf and return the length,
 * as snprintf(): at most @size - 1 bytes and a NUL (nothing when @size
 * is 0), the length it would have had.
 */
int iolat_fmt_fixed(char *buf, size_t size, double v, int prec);
int iolat_fmt_u64(char *buf, size_t size, unsigned long long v);

/* "HH:MM:SS.mmm" of @t (seconds since the epoch), local time. */
const char *iolat_clock(double t);
double iolat_now(void);	/* CLOCK_REALTIME in seconds */
double iolat_mono(void);	/* CLOCK_MONOTONIC in seconds */
double iolat_thread_cpu(void);	/* the calling thread's CPU time, seconds */
/*
 * The first tick @tick + k * @interval (k >= 1) after @now, all seconds of
 * CLOCK_MONOTONIC: ticks missed while a refresh ran long are skipped.
 */
double iolat_next_tick(double tick, double interval, double now);
/* Sleep until @t, CLOCK_MONOTONIC seconds (TIMER_ABSTIME): 0 or -EINTR. */
int iolat_sleep_until(double t);

#endif /* __IOLAT_COMMON_H */
