// SPDX-License-Identifier: GPL-2.0
/*
 * iolat-why: say why io.latency's throttling misbehaves.  It reads what
 * iolat-snoop -j (the decisions) and iolat-top -j (depth, use_delay,
 * rates) print, from recordings or from the two tools run for a while as
 * its children, and prints findings: the device and cgroups, the numbers
 * that show it, and what to do.  Recordings and live runs take one path:
 * lines in, iolat-json.c decodes them, iolat-why-model.c puts them on each
 * group's timeline, iolat-why-rules.c concludes.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "iolat-cgroup.h"
#include "iolat-common.h"
#include "iolat-json.h"
#include "iolat-why-rules.h"
#include "iolat-why-suggest.h"

#define TOOL "iolat-why"

/* Exit statuses: see the doc string. */
#define WHY_EXIT_NONE		0
#define WHY_EXIT_FOUND		1
#define WHY_EXIT_USAGE		2
#define WHY_EXIT_INPUT		3
#define WHY_EXIT_ERROR		4

/*
 * The longest line read: iolat-top -j prints an interval on one line,
 * about 700 bytes a group (7 MiB at 10,000 groups).  A longer one is not
 * a recording, and is not read into memory whole.
 */
#define WHY_LINE_MAX		(64UL << 20)
#define WHY_LINE_MAX_TEXT	"64 MiB"

static struct env {
	const char *snoop_file;
	const char *top_file;
	const char *dev;
	double duration;
	bool json;
	bool no_events;		/* live: the tools' --no-events */
	bool suggest;		/* the targets the windows allow, not findings */
} env;

const char *argp_program_version = TOOL " 0.1";
const char *argp_program_bug_address = "the iolat issue tracker";
static const char doc[] =
"Say why io.latency's throttling misbehaves, with the evidence and the fix.\n"
"\n"
"USAGE: " TOOL " [-j] [-d DEV] [--suggest] --snoop FILE [--top FILE]\n"
"       " TOOL " [-j] [-d DEV] [--suggest] [--no-events] -D SECONDS\n"
"\n"
"It reads the decisions iolat-snoop -a -j prints (windows, scale events,\n"
"depth and delay changes) and the intervals iolat-top -j prints (depth,\n"
"use_delay, rates, the parents' culprits): recorded in files, or for\n"
"SECONDS from the two tools started as its children (found beside\n"
TOOL "'s binary, else in $PATH; that needs root).  Either file may be\n"
"given alone; iolat-snoop without -a lacks the windows that met their\n"
"target, which the 10% rule needs.  Each finding names the device and\n"
"the cgroups, quotes the numbers and says what to do:\n"
"\n"
"  unreachable_target   a group misses (nearly) every window although its\n"
"                       siblings sit at depth 1: the device is slower\n"
"  ten_percent_rule     a non-rotational window misses only at 10% of its\n"
"                       bios over target: a tail under that never counts\n"
"  no_charge_without_target  a delayed group without a target is never\n"
"                       charged for its root-issued IO (swap): it never sleeps\n"
"  flapping             the children's scaling goes down and up in turn\n"
"  slow_recovery        depth max again only long after the culprit stopped\n"
"  nothing_to_throttle  a missing group has no looser sibling doing IO\n"
"  cookie_at_floor      scale-downs at the cookie's floor change nothing\n"
"  tighter_sibling_owns_scaling  a tighter sibling's misses own the scaling\n"
"  depth_unknown        blkcg_debug_stats off: depth and use_delay unknown\n"
"  ghost_culprit        the children are scaled for a cgroup that is gone\n"
"  target_not_as_meant  a target that reads as a typo (us vs ms, ns)\n"
"  target_on_bio_device  a target on device mapper or md: never acted on\n"
"  equal_targets        a missing group's siblings with its target are\n"
"                       not throttled for it: equal targets protect each other\n"

"\n"
"On a kernel without the iolatency events (or with --no-events, passed to\n"
"the two tools), iolat-top runs in its io.stat mode and iolat-snoop logs\n"
"what the controller's functions show (delay charged and slept); the\n"
"findings that need the events are listed as not checked (\"unchecked\"\n"
"in -j).  If iolat-snoop cannot trace there at all, the findings rest on\n"
"iolat-top alone, said on stderr.\n"
"\n"
"--suggest answers \"what target should I set?\" instead: for each group\n"
"with a target, from its windows while a sibling was throttled the most, the\n"
"target it met there (rotational: 9 in 10 window means at or under it;\n"
"non-rotational: only whether the target in force is within reach, as a\n"
"window there says only how many bios were over it); exit status 0.\n"
"\n"
"EXIT STATUS: 0 no finding, 1 findings, 2 bad arguments, 3 nothing to read\n"
"(a file missing, empty or not a recording, or the tools could not trace:\n"
"not root, no BTF, no iolatency events), 4 run-time error (the output\n"
"cannot be written, a child tool failed).\n"
"\n"
"EXAMPLES:\n"
"    " TOOL " -D 30                       # watch for 30 s, then conclude\n"
"    " TOOL " -d nullb0 --top t.json      # one disk of a recording\n"
"    " TOOL " --snoop s.json --top t.json  # from recordings:\n"
"        iolat-snoop -a -j >s.json & iolat-top -j 1 >t.json\n"
"    " TOOL " -j --top scenario.json | jq '.findings[].rule'\n";

enum { OPT_SNOOP = 256, OPT_TOP, OPT_NO_EVENTS, OPT_SUGGEST };

static const struct argp_option opts[] = {
	{ "snoop", OPT_SNOOP, "FILE", 0, "iolat-snoop -j output ('-': stdin)", 0 },
	{ "top", OPT_TOP, "FILE", 0, "iolat-top -j output ('-': stdin)", 0 },
	{ "duration", 'D', "SECONDS", 0, "Run iolat-snoop and iolat-top for SECONDS", 0 },
	{ "device", 'd', "DEV", 0, "Only this disk, as recorded (nullb0 or /dev/nullb0); with -D also MAJ:MIN", 0 },
	{ "json", 'j', NULL, 0, "The findings as one JSON object", 0 },
	{ "no-events", OPT_NO_EVENTS, NULL, 0, "With -D: run both tools with --no-events, as on a kernel without the series", 0 },
	{ "suggest", OPT_SUGGEST, NULL, 0, "The target each group's windows allow, instead of findings", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_SNOOP:
		env.snoop_file = arg;
		break;
	case OPT_TOP:
		env.top_file = arg;
		break;
	case 'd':
		/*
		 * -d was the duration before it was the device, as in
		 * iolat-top and iolat-snoop.  No driver names a disk with
		 * digits and a point alone, so a number is still read as one.
		 */
		if (!arg[strspn(arg, "0123456789.")] && strpbrk(arg, "0123456789")) {
			fprintf(stderr, TOOL ": '-d %s' read as '-D %s': the duration is "
				"-D/--duration now, -d/--device the disk\n", arg, arg);
			if (iolat_parse_interval(TOOL, arg, &env.duration))
				argp_usage(state);
			break;
		}
		env.dev = strncmp(arg, "/dev/", 5) ? arg : arg + 5;
		break;
	case 'D':
		if (iolat_parse_interval(TOOL, arg, &env.duration))
			argp_usage(state);
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_NO_EVENTS:
		env.no_events = true;
		break;
	case OPT_SUGGEST:
		env.suggest = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, TOOL ": unrecognized positional argument '%s'\n", arg);
		argp_usage(state);
		break;
	case ARGP_KEY_END:
		if (!env.snoop_file && !env.top_file && !env.duration) {
			fprintf(stderr, TOOL ": give recordings (--snoop, --top) or a duration (-D)\n");
			argp_usage(state);
		}
		if ((env.snoop_file || env.top_file) && env.duration) {
			fprintf(stderr, TOOL ": -D runs the tools live: not with --snoop or --top\n");
			argp_usage(state);
		}
		if (env.no_events && !env.duration) {
			fprintf(stderr, TOOL ": --no-events is for the tools run live (-D)\n");
			argp_usage(state);
		}
		if (env.snoop_file && env.top_file && !strcmp(env.snoop_file, "-") &&
		    !strcmp(env.top_file, "-")) {
			fprintf(stderr, TOOL ": only one of --snoop and --top can be stdin\n");
			argp_usage(state);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- input: lines from a file descriptor, up to WHY_LINE_MAX ---- */

struct source {
	const char *name;	/* for messages */
	int fd;
	char *buf;
	size_t len, cap;
	size_t scanned;		/* of buf, known to hold no newline */
	unsigned long line;
	size_t records;
	bool eof;
};

/* Decode one line; a bad one is reported, and ends the run (status 3). */
static int feed(struct why_model *m, struct source *src, char *line, bool last)
{
	char err[160];
	enum ij_line kind;

	src->line++;
	kind = ij_feed_line(m, line, err, sizeof(err));
	if (kind == IJ_LINE_BAD && !strcmp(err, "out of memory")) {
		fprintf(stderr, TOOL ": out of memory\n");
		return WHY_EXIT_ERROR;
	}
	if (kind == IJ_LINE_BAD) {
		/* A recording cut short mid-line: say so, use the rest. */
		if (last) {
			fprintf(stderr, TOOL ": %s:%lu: the last line is cut short, ignored\n",
				src->name, src->line);
			return 0;
		}
		fprintf(stderr, TOOL ": %s:%lu: not an iolat-snoop -j or iolat-top -j line: %s\n",
			src->name, src->line, err);
		return WHY_EXIT_INPUT;
	}
	if (kind != IJ_LINE_EMPTY)
		src->records++;
	return 0;
}

static int too_long(struct source *src)
{
	fprintf(stderr, TOOL ": %s:%lu: a line longer than " WHY_LINE_MAX_TEXT
		": not an iolat-snoop -j or iolat-top -j line\n", src->name, src->line + 1);
	return WHY_EXIT_INPUT;
}

/* Read what @src has, feed its whole lines; at EOF the rest.  Status or 0. */
static int source_read(struct why_model *m, struct source *src)
{
	char *nl, *start;
	ssize_t n;
	int err;

	/* room for a whole line, its newline and a NUL; no more */
	if (src->cap - src->len < 65536 && src->cap < WHY_LINE_MAX + 65536 + 2) {
		size_t cap = src->cap ? src->cap * 2 : 1 << 20;
		char *buf;

		if (cap > WHY_LINE_MAX + 65536 + 2)
			cap = WHY_LINE_MAX + 65536 + 2;
		buf = realloc(src->buf, cap);

		if (!buf) {
			fprintf(stderr, TOOL ": out of memory\n");
			return WHY_EXIT_ERROR;
		}
		src->buf = buf;
		src->cap = cap;
	}
	n = read(src->fd, src->buf + src->len, src->cap - src->len - 1);
	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return 0;
		fprintf(stderr, TOOL ": cannot read %s: %s\n", src->name, strerror(errno));
		return WHY_EXIT_INPUT;
	}
	if (n == 0)
		src->eof = true;
	src->len += n;
	src->buf[src->len] = '\0';
	start = src->buf;
	nl = memchr(start + src->scanned, '\n', src->len - src->scanned);
	for (; nl; nl = memchr(start, '\n', src->buf + src->len - start)) {
		if ((size_t)(nl - start) > WHY_LINE_MAX)
			return too_long(src);
		*nl = '\0';
		err = feed(m, src, start, false);
		if (err)
			return err;
		start = nl + 1;
	}
	src->len -= start - src->buf;
	memmove(src->buf, start, src->len);
	src->buf[src->len] = '\0';
	src->scanned = src->len;
	if (src->len > WHY_LINE_MAX)
		return too_long(src);
	if (src->eof && src->len) {
		err = feed(m, src, src->buf, true);
		src->len = 0;
		if (err)
			return err;
	}
	return 0;
}

static int read_file(struct why_model *m, const char *file)
{
	struct source src = { .name = file };
	int err = 0;

	if (!strcmp(file, "-")) {
		src.fd = 0;
		src.name = "stdin";
	} else {
		src.fd = open(file, O_RDONLY | O_CLOEXEC);
		if (src.fd < 0) {
			fprintf(stderr, TOOL ": cannot open %s: %s\n", file, strerror(errno));
			return WHY_EXIT_INPUT;
		}
	}
	while (!src.eof && !err)
		err = source_read(m, &src);
	if (!err && !src.records) {
		fprintf(stderr, TOOL ": %s has no iolat-snoop -j or iolat-top -j records\n",
			src.name);
		err = WHY_EXIT_INPUT;
	}
	if (src.fd > 0)
		close(src.fd);
	free(src.buf);
	return err;
}

/*
 * -d names a device the recordings have nothing of: a typo, or a MAJ:MIN
 * where they name the disk.  Said, with the names they have, rather than
 * "no finding", which would read as a healthy device.
 */
static int no_device(const struct why_model *m)
{
	size_t i;

	fprintf(stderr, TOOL ": no record of device %s in the recordings (they name ",
		env.dev);
	for (i = 0; i < m->n_other_devs; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", m->other_devs[i]);
	fprintf(stderr, "%s)\n", !m->n_other_devs ? "no device" :
		m->more_other_devs ? ", ..." : "");
	return WHY_EXIT_INPUT;
}

/* ---- live: iolat-snoop and iolat-top as children ---- */

/* @tool beside our own binary, else its name for execvp()'s $PATH search. */
static const char *tool_path(const char *tool, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(buf, len, "%s/%s", self, tool) < len &&
			    !access(buf, X_OK))
				return buf;
		}
	}
	return tool;
}

static pid_t spawn(char *const argv[], int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		dup2(p[1], 1);
		/* SIGPIPE as the tools expect it: ignored, EPIPE ends them. */
		execvp(argv[0], argv);
		fprintf(stderr, TOOL ": cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

/*
 * A child's exit status as ours; its own in *@code (-1: killed, or it
 * cannot be told).
 */
static int child_status(const char *tool, pid_t pid, int *code)
{
	int status;

	*code = -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return WHY_EXIT_ERROR;
	if (WIFEXITED(status)) {
		*code = WEXITSTATUS(status);
		switch (WEXITSTATUS(status)) {
		case 0:
			return 0;
		case IOLAT_EXIT_UNSUPPORTED:
		case 127:
			return WHY_EXIT_INPUT;
		default:
			fprintf(stderr, TOOL ": %s exited with status %d\n", tool,
				WEXITSTATUS(status));
			return WHY_EXIT_ERROR;
		}
	}
	fprintf(stderr, TOOL ": %s was killed by signal %d\n", tool, WTERMSIG(status));
	return WHY_EXIT_ERROR;
}

static int run_live(struct why_model *m)
{
	char snoop_bin[PATH_MAX], top_bin[PATH_MAX], secs[32], count[32];
	char *snoop_argv[10], *top_argv[12];
	struct source src[2] = { { .name = "iolat-snoop" }, { .name = "iolat-top" } };
	pid_t pids[2];
	int n = 0, err = 0, i, st[2], code[2];

	snprintf(secs, sizeof(secs), "%g", env.duration);
	snprintf(count, sizeof(count), "%ld", (long)ceil(env.duration));
	snoop_argv[n++] = (char *)tool_path("iolat-snoop", snoop_bin, sizeof(snoop_bin));
	snoop_argv[n++] = "-a";
	snoop_argv[n++] = "-j";
	if (env.no_events)
		snoop_argv[n++] = "--no-events";
	if (env.dev) {
		snoop_argv[n++] = "-d";
		snoop_argv[n++] = (char *)env.dev;
	}
	snoop_argv[n++] = secs;
	snoop_argv[n] = NULL;
	n = 0;
	top_argv[n++] = (char *)tool_path("iolat-top", top_bin, sizeof(top_bin));
	top_argv[n++] = "-j";
	if (env.no_events)
		top_argv[n++] = "--no-events";
	if (env.dev) {
		top_argv[n++] = "-d";
		top_argv[n++] = (char *)env.dev;
	}
	top_argv[n++] = "1";
	top_argv[n++] = count;
	top_argv[n] = NULL;

	pids[0] = spawn(snoop_argv, &src[0].fd);
	pids[1] = pids[0] < 0 ? -1 : spawn(top_argv, &src[1].fd);
	if (pids[0] < 0 || pids[1] < 0) {
		fprintf(stderr, TOOL ": cannot start the tools: %s\n", strerror(errno));
		if (pids[0] > 0) {
			kill(pids[0], SIGINT);
			child_status("iolat-snoop", pids[0], &code[0]);
		}
		return WHY_EXIT_ERROR;
	}
	/* Ctrl-C reaches the children too: they end cleanly, we read the rest. */
	iolat_handle_signals();
	while (!err && (!src[0].eof || !src[1].eof)) {
		struct pollfd pfd[2];

		for (i = 0; i < 2; i++)
			pfd[i] = (struct pollfd){ src[i].eof ? -1 : src[i].fd, POLLIN, 0 };
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = WHY_EXIT_ERROR;
			break;
		}
		for (i = 0; i < 2 && !err; i++)
			if (pfd[i].revents)
				err = source_read(m, &src[i]);
	}
	for (i = 0; i < 2; i++) {
		if (err)	/* stop the other one; its status is not ours */
			kill(pids[i], SIGINT);
		close(src[i].fd);
		free(src[i].buf);
		st[i] = child_status(src[i].name, pids[i], &code[i]);
	}
	/*
	 * iolat-snoop cannot trace here (a kernel without the events where
	 * neither of the controller's functions can be traced nor the state
	 * read), iolat-top could: its io.stat mode is what there is.
	 */
	if (!err && code[0] == IOLAT_EXIT_UNSUPPORTED && !st[1] && src[1].records) {
		fprintf(stderr, TOOL ": iolat-snoop cannot trace on this kernel (above): "
			"the findings rest on iolat-top alone\n");
		st[0] = 0;
	}
	for (i = 0; i < 2; i++)
		if (!err || (st[i] && st[i] < err))
			err = err ?: st[i];
	return err;
}

/* ---- output ---- */

/* @text wrapped at 78 columns, each line after the first indented by @indent. */
static void wrap(const char *text, int col, int indent)
{
	const char *s = text;

	while (*s) {
		const char *end = s, *brk = NULL;

		while (*end && (end - s) + col < 78) {
			if (*end == ' ')
				brk = end;
			end++;
		}
		if (!*end || !brk)
			brk = *end ? strchr(end, ' ') : NULL;
		if (!brk || !*end) {
			printf("%s\n", s);
			return;
		}
		while (brk > s && brk[-1] == ' ')	/* "sentence.  Next" */
			brk--;
		printf("%.*s\n%*s", (int)(brk - s), s, indent, "");
		s = brk + strspn(brk, " ");
		col = indent;
	}
	printf("\n");
}

/*
 * Lost events: a scale event or window the rules never saw can hide a
 * finding or make one (a scale-down without its cookie event reads as
 * one at the floor).  Said, with the numbers, under the first line.
 */
static void print_lost(const struct why_findings *fs)
{
	const __u64 *l = fs->lost;
	char text[160];

	if (!l[WHY_SRC_SNOOP] && !l[WHY_SRC_TOP])
		return;
	snprintf(text, sizeof(text), TOOL ": the tools lost events (iolat-snoop %llu, "
		 "iolat-top %llu): findings may be missing, or wrong",
		 (unsigned long long)l[WHY_SRC_SNOOP], (unsigned long long)l[WHY_SRC_TOP]);
	wrap(text, 0, 3);
}

/*
 * The findings not checked: the recording is iolat-top's io.stat mode
 * (a kernel without the events), and they rest on what only the events
 * tell.  Said under the first line, so that "no finding" is read right.
 */
static void print_unchecked(const struct why_findings *fs)
{
	bool top = fs->iostat_mode, snoop = fs->fn_mode[WHY_SRC_SNOOP];
	char text[1024];
	size_t len;
	int r;

	if (!fs->unchecked)
		return;
	len = snprintf(text, sizeof(text), TOOL ": %s ran without the iolatency events "
		       "(%s%s), so these were not checked:",
		       top && snoop ? "iolat-top and iolat-snoop" : top ? "iolat-top" : "iolat-snoop",
		       top ? "io.stat mode" : "the controller's functions",
		       top && (fs->fn_charges || fs->fn_pays) ?
		       ", delay from the controller's functions" : "");
	for (r = 0; r < WHY_RULE_NR; r++)
		if (fs->unchecked & (1U << r))
			len += snprintf(text + len, sizeof(text) - len, " %s,",
					why_rule_names[r]);
	snprintf(text + len - 1, sizeof(text) - len + 1, "%s",
		 !(fs->unchecked & (1U << WHY_UNREACHABLE)) ? "" : top ?
		 " (blkcg_debug_stats was off: io.stat had neither windows nor depths)" :
		 " (no iolat-top recording: neither windows nor depths)");
	wrap(text, 0, 3);
}

static void print_text(const struct why_findings *fs)
{
	size_t i, n = fs->n;

	if (!n) {
		printf(TOOL ": no finding in %zu iolat-snoop events and %zu iolat-top rows "
		       "over %.0fs\n", fs->events, fs->rows, fs->last - fs->first);
		print_lost(fs);
		print_unchecked(fs);
		return;
	}
	printf(TOOL ": %zu finding%s in %zu iolat-snoop events and %zu iolat-top rows "
	       "over %.0fs\n", n, n == 1 ? "" : "s", fs->events, fs->rows,
	       fs->last - fs->first);
	print_lost(fs);
	print_unchecked(fs);
	for (i = 0; i < fs->n; i++) {
		const struct why_finding *f = &fs->v[i];

		printf("\n%zu. %s: %s %s\n   ", i + 1, why_rule_names[f->rule], f->device, f->name);
		wrap(f->summary, 3, 3);
		printf("   evidence: ");
		wrap(f->evidence, 13, 5);
		printf("   fix: ");
		wrap(f->advice, 8, 5);
		if (f->command[0])	/* whole, to be pasted */
			printf("     # %s\n", f->command);
		if (f->others[0]) {
			char *also = malloc(2 * strlen(f->others) + 1), *d = also;
			const char *o;

			for (o = f->others; also && *o; o++)	/* one a line: ", " */
				d = *o == '\n' ? stpcpy(d, ", ") : (*d = *o, d + 1);
			if (also)
				*d = '\0';
			printf("   also: ");
			wrap(also ?: f->others, 9, 5);
			free(also);
		}
	}
}

static void print_json(const struct why_findings *fs)
{
	size_t i, k = 0;

	printf("{\"schema\":%d,\"tool\":\"iolat-why\",\"events\":%zu,\"rows\":%zu,\"span_s\":%.3f,"
	       "\"snoop_lost_events\":%llu,\"top_lost_events\":%llu,",
	       IOLAT_JSON_SCHEMA, fs->events, fs->rows, fs->last - fs->first,
	       (unsigned long long)fs->lost[WHY_SRC_SNOOP],
	       (unsigned long long)fs->lost[WHY_SRC_TOP]);
	/* The rules not run on an io.stat-mode recording (no events). */
	printf("\"unchecked\":[");
	for (i = 0; i < WHY_RULE_NR; i++)
		if (fs->unchecked & (1U << i))
			printf("%s\"%s\"", k++ ? "," : "", why_rule_names[i]);
	printf("],\"findings\":[");
	k = 0;
	for (i = 0; i < fs->n; i++) {
		const struct why_finding *f = &fs->v[i];
		const char *s = f->others;

		printf("%s{\"rule\":\"%s\",\"device\":", k++ ? "," : "", why_rule_names[f->rule]);
		iolat_json_text(stdout, f->device);
		printf(",\"cgroup\":");
		iolat_json_text(stdout, f->cgroup);
		if (f->cgroup_id)
			printf(",\"cgroup_id\":%llu", (unsigned long long)f->cgroup_id);
		else
			printf(",\"cgroup_id\":null");
		printf(",\"others\":[");
		while (*s) {
			size_t len = strcspn(s, "\n");
			char *name = strndup(s, len);

			if (!name)
				break;	/* out of memory: iolat_flush() will not say it */
			if (s != f->others)
				printf(",");
			iolat_json_text(stdout, name);
			free(name);
			s += len + !!s[len];
		}
		printf("],\"summary\":");
		iolat_json_text(stdout, f->summary);
		printf(",\"evidence\":");
		iolat_json_text(stdout, f->evidence);
		printf(",\"advice\":");
		iolat_json_text(stdout, f->advice);
		printf(",\"command\":");
		iolat_json_text(stdout, f->command);
		printf("}");
	}
	printf("]}\n");
}

/* ---- --suggest ---- */

static const char *const sibs_text[WHY_SIBS_NR] = {
	"a sibling throttled the most", "siblings on their way down",
	"siblings at depth max", "siblings' depth unknown",
};
static const char *const sibs_key[WHY_SIBS_NR] = {
	"siblings_deepest", "siblings_partly", "siblings_free", "siblings_unknown",
};

static void print_suggest_text(const struct why_model *m, const struct why_suggestions *ss)
{
	size_t i;
	int k;

	if (!ss->n) {
		printf(TOOL ": no group with a target in %zu iolat-snoop events and %zu iolat-top "
		       "rows over %.0fs: nothing to suggest\n", m->events, m->rows,
		       m->last - m->first);
		return;
	}
	printf(TOOL ": the targets the windows allow, %zu group%s over %.0fs\n", ss->n,
	       ss->n == 1 ? "" : "s", m->last - m->first);
	for (i = 0; i < ss->n; i++) {
		const struct why_suggestion *s = &ss->v[i];
		char line[512];

		printf("\n%s on %s (%s), target %lluus\n", s->c->name, s->c->device,
		       s->rotational ? "rotational" : "non-rotational",
		       (unsigned long long)s->target_us);
		for (k = 0; k < WHY_SIBS_NR; k++) {
			const struct why_win_class *wc = &s->by[k];

			if (!wc->windows)
				continue;
			printf("   %s: %llu windows, %llu missed (%.0f%%)", sibs_text[k],
			       (unsigned long long)wc->windows, (unsigned long long)wc->missed,
			       100.0 * wc->missed / wc->windows);
			if (wc->mean_p90_us)
				printf(", window means: median %lluus, p90 %lluus",
				       (unsigned long long)wc->mean_p50_us,
				       (unsigned long long)wc->mean_p90_us);
			printf("\n");
		}
		switch (s->basis) {
		case WHY_BASIS_MEANS:
			snprintf(line, sizeof(line), "%lluus: 9 in 10 of its window means with a "
				 "sibling throttled the most were at or under it, and a rotational window "
				 "is judged by its mean", (unsigned long long)s->suggested_us);
			break;
		case WHY_BASIS_MISSED:
			if (s->keep_target)
				snprintf(line, sizeof(line), "%lluus is within reach: with a sibling "
					 "throttled the most at most 1 window in 10 missed, so 9 in 10 "
					 "of its bios took less (a window misses at 10%% over target); "
					 "how much tighter it could be the windows cannot say: they "
					 "count the bios over the target in force, not their latencies",
					 (unsigned long long)s->target_us);
			else
				snprintf(line, sizeof(line), "%lluus is out of reach: with a sibling "
					 "throttled the most more than 1 window in 10 missed, so over "
					 "a tenth of its bios took longer; how much looser it must be "
					 "the windows cannot say: they count the bios over the target in "
					 "force, not their latencies", (unsigned long long)s->target_us);
			break;
		default:
			snprintf(line, sizeof(line), "nothing: %llu windows with a sibling "
				 "throttled the most, fewer than %d", (unsigned long long)
				 s->by[WHY_SIBS_DEEPEST].windows, WHY_SUGGEST_MIN_WINDOWS);
		}
		printf("   suggest: ");
		wrap(line, 12, 5);
	}
}

static void print_suggest_json(const struct why_model *m, const struct why_suggestions *ss)
{
	static const char *const basis[] = { "window_means", "windows_missed", NULL };
	size_t i;
	int k;

	printf("{\"schema\":%d,\"tool\":\"iolat-why\",\"mode\":\"suggest\",\"events\":%zu,"
	       "\"rows\":%zu,\"span_s\":%.3f,\"groups\":[", IOLAT_JSON_SCHEMA, m->events, m->rows,
	       m->last - m->first);
	for (i = 0; i < ss->n; i++) {
		const struct why_suggestion *s = &ss->v[i];

		printf("%s{\"device\":", i ? "," : "");
		iolat_json_text(stdout, s->c->device);
		printf(",\"cgroup\":");
		iolat_json_text(stdout, s->c->path);
		if (s->c->id)
			printf(",\"cgroup_id\":%llu", (unsigned long long)s->c->id);
		else
			printf(",\"cgroup_id\":null");
		printf(",\"rotational\":%s,\"target_us\":%llu", s->rotational ? "true" : "false",
		       (unsigned long long)s->target_us);
		for (k = 0; k < WHY_SIBS_NR; k++) {
			const struct why_win_class *wc = &s->by[k];

			printf(",\"%s\":{\"windows\":%llu,\"missed\":%llu", sibs_key[k],
			       (unsigned long long)wc->windows, (unsigned long long)wc->missed);
			if (wc->mean_p90_us)
				printf(",\"mean_p50_us\":%llu,\"mean_p90_us\":%llu}",
				       (unsigned long long)wc->mean_p50_us,
				       (unsigned long long)wc->mean_p90_us);
			else
				printf(",\"mean_p50_us\":null,\"mean_p90_us\":null}");
		}
		if (basis[s->basis])
			printf(",\"basis\":\"%s\"", basis[s->basis]);
		else
			printf(",\"basis\":null");
		if (s->suggested_us)
			printf(",\"suggested_us\":%llu", (unsigned long long)s->suggested_us);
		else
			printf(",\"suggested_us\":null");
		printf(",\"target_within_reach\":%s}", s->basis != WHY_BASIS_MISSED ? "null" :
		       s->keep_target ? "true" : "false");
	}
	printf("]}\n");
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct why_findings fs = {};
	struct why_model *m;
	int err;

	signal(SIGPIPE, SIG_IGN);	/* a closed reader is EPIPE, said by iolat_flush() */
	argp_err_exit_status = WHY_EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return WHY_EXIT_USAGE;
	m = why_model_new();
	if (!m) {
		fprintf(stderr, TOOL ": out of memory\n");
		return WHY_EXIT_ERROR;
	}
	if (env.duration) {
		/* The tools keep the device's records: they resolve MAJ:MIN. */
		err = run_live(m);
	} else {
		if (env.dev)
			why_model_only_device(m, env.dev);
		err = env.snoop_file ? read_file(m, env.snoop_file) : 0;
		if (!err && env.top_file)
			err = read_file(m, env.top_file);
		if (!err && env.dev && !m->events && !m->rows)
			err = no_device(m);
	}
	if (err)
		goto out;
	/* Recordings hold paths below the mount; the commands are for here. */
	if (iolat_cgroup2_mount())
		why_rules_cgroup_mount(iolat_cgroup2_mount());
	else
		fprintf(stderr, TOOL ": no cgroup2 mount here: the commands write under "
			"/sys/fs/cgroup\n");
	if (m->cgroupns == 1)
		fprintf(stderr, TOOL ": the recording was made inside a cgroup namespace: its "
			"paths start at that namespace's root, the commands at %s\n",
			iolat_cgroup_root());
	if (env.suggest) {
		struct why_suggestions ss;

		if (why_suggest(m, &ss)) {
			fprintf(stderr, TOOL ": out of memory\n");
			why_suggestions_free(&ss);
			err = WHY_EXIT_ERROR;
			goto out;
		}
		if (env.json)
			print_suggest_json(m, &ss);
		else
			print_suggest_text(m, &ss);
		why_suggestions_free(&ss);
		err = iolat_flush(TOOL, stdout);
		err = err && err != -EPIPE ? WHY_EXIT_ERROR : WHY_EXIT_NONE;
		goto out;
	}
	if (why_analyse(m, &fs)) {
		fprintf(stderr, TOOL ": out of memory\n");
		err = WHY_EXIT_ERROR;
		goto out;
	}
	if (env.json)
		print_json(&fs);
	else
		print_text(&fs);
	err = iolat_flush(TOOL, stdout);
	/* A reader that went away had what it wanted: the status still says. */
	if (err && err != -EPIPE)
		err = WHY_EXIT_ERROR;
	else
		err = fs.n ? WHY_EXIT_FOUND : WHY_EXIT_NONE;
out:
	why_findings_free(&fs);
	why_model_free(m);
	return err;
}
