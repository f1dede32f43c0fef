/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the ftrace exercise's driver, linked with the learner's
 * latency_trace.c and wake_match.c. It reads traces on stdin, calls the
 * learner's function on each and prints what came back, one fact per line;
 * check_ftrace.c judges. It trusts nothing the learner's code returns
 * beyond its type: strings are cut and cleaned before they are printed.
 *
 * `subject run`: stdin holds one or more traces, each after a line
 * "KIND NAME PID LEN [MAX]", then LEN bytes. It prints "begin", then for
 * each trace "file NAME", then
 * for KIND
 *
 *   lt   (a latency trace; PID is 0) "rc R", "tracer S", "latency N",
 *        "started S", "ended S", "entries N", "gap LINE US", "cause S" (an
 *        empty string as "-")
 *   wm   (a trace of sched_waking, sched_wakeup and sched_switch in the
 *        normal format; PID is the task to follow) "events N", "rc R",
 *        "counts MATCHED UNMATCHED PENDING" and
 *        "wake WAKE_NS RUN_NS LATENCY_NS" per wake-up written; wm_match()
 *        gets room for MAX wake-ups (without MAX: one per sched_switch
 *        and one more), right before an unmapped page
 *
 * lt_parse() gets each trace exactly as long as it is, right before an
 * unmapped page: code that reads past the end (looking for a NUL that is
 * not there) stops with SIGSEGV instead of reading garbage.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftrace_exercise.h"

#define MAX_INPUT (8u << 20)	/* one trace */
#define MAX_EVENTS 1000000u

/*
 * The next trace on stdin: its header line (kind "lt" or "wm"), then *len
 * bytes (malloc'ed); *max is -1 when the line names no MAX.
 * NULL at the end of the input or on a broken frame (*len is then -1).
 */
static char *read_next(char *kind, char *name, size_t name_len, int *pid, long *len, long *max)
{
	char line[256], fmt[40];
	char *buf;
	int n;

	*len = -1;
	*max = -1;
	if (!fgets(line, sizeof(line), stdin)) {
		*len = 0;
		return NULL;
	}
	snprintf(fmt, sizeof(fmt), "%%2s %%%zus %%d %%ld %%ld", name_len - 1);
	n = sscanf(line, fmt, kind, name, pid, len, max);
	if (n < 4 || *len < 0 || *len > (long)MAX_INPUT || (n == 5 && (*max < 0 ||
	    *max > (long)MAX_EVENTS)))
		return NULL;
	buf = malloc((size_t)*len + 1);
	if (!buf || fread(buf, 1, (size_t)*len, stdin) != (size_t)*len) {
		free(buf);
		*len = -1;
		return NULL;
	}
	return buf;
}

/* @len bytes of memory ending right before a page that cannot be touched. */
static void *guarded(size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t span = (len + (size_t)page - 1) / (size_t)page * (size_t)page;
	char *map = mmap(NULL, span + (size_t)page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (map == MAP_FAILED || mprotect(map + span, (size_t)page, PROT_NONE))
		return NULL;
	return map + span - len;
}

/* @len bytes of @src ending right before a page that cannot be read. */
static const char *guarded_copy(const char *src, size_t len)
{
	char *copy = guarded(len);

	if (copy)
		memcpy(copy, src, len);
	return copy;
}

/* A string of the learner's, at most LT_NAME_MAX - 1 characters, printable. */
static void put_name(const char *tag, const char *s)
{
	char clean[LT_NAME_MAX];
	size_t n = 0;

	while (n < LT_NAME_MAX - 1 && s[n]) {
		clean[n] = isgraph((unsigned char)s[n]) ? s[n] : '?';
		n++;
	}
	clean[n] = '\0';
	printf("%s %s\n", tag, n ? clean : "-");
}

static void one_lt(const char *buf, size_t len)
{
	struct lt_worst w;
	const char *text = guarded_copy(buf, len);
	int rc;

	if (!text) {
		printf("rc subject-out-of-memory\n");
		return;
	}
	memset(&w, 0, sizeof(w));
	rc = lt_parse(text, len, &w);
	printf("rc %d\n", rc);
	/* Whatever the learner left in the arrays, they end here. */
	w.tracer[LT_NAME_MAX - 1] = w.started_at[LT_NAME_MAX - 1] = '\0';
	w.ended_at[LT_NAME_MAX - 1] = w.cause[LT_NAME_MAX - 1] = '\0';
	put_name("tracer", w.tracer);
	printf("latency %ld\n", w.latency_us);
	put_name("started", w.started_at);
	put_name("ended", w.ended_at);
	printf("entries %u\n", w.entries);
	printf("gap %u %ld\n", w.gap_line, w.gap_us);
	put_name("cause", w.cause);
}

/* The value after "key=" in @s (a number), or -1. */
static long long field(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/*
 * One line of a trace in the normal format:
 *   "  comm-pid  [cpu] flags  secs.frac: sched_xxx: fields"
 * The task name may hold spaces, dashes and brackets, so the line is read
 * from the event's name backwards and forwards, never from its start.
 */
static int parse_event(const char *line, struct wm_event *e)
{
	static const struct { const char *name; enum wm_kind kind; } names[] = {
		{ ": sched_waking: ", WM_WAKING },
		{ ": sched_wakeup: ", WM_WAKEUP },
		{ ": sched_switch: ", WM_SWITCH },
	};
	const char *ev = NULL, *p, *dot, *br;
	unsigned long long secs, frac = 0;
	int digits = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !ev; i++) {
		ev = strstr(line, names[i].name);
		e->kind = names[i].kind;
	}
	if (!ev || line[0] == '#')
		return 0;
	/* The time stamp ends at ev: "secs.frac". */
	for (dot = ev; dot > line && dot[-1] != '.'; dot--)
		if (!isdigit((unsigned char)dot[-1]))
			return -1;
	if (dot == line || dot == ev)
		return -1;
	for (p = dot; p < ev && digits < 9; p++, digits++)
		frac = frac * 10 + (unsigned long long)(*p - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	for (p = dot - 1; p > line && isdigit((unsigned char)p[-1]); p--)
		;
	secs = strtoull(p, NULL, 10);
	e->ts_ns = secs * 1000000000ull + frac;
	/* The CPU: the last "[NNN]" before the time stamp. */
	for (br = p; br > line && br[-1] != '['; br--)
		;
	e->cpu = br > line ? atoi(br) : -1;
	ev = strchr(ev + 2, ':') + 2;
	if (e->kind == WM_SWITCH) {
		e->prev_pid = (int)field(ev, " prev_pid=");
		e->pid = (int)field(ev, " next_pid=");
	} else {
		e->prev_pid = 0;
		e->pid = (int)field(ev, " pid=");
	}
	return e->pid < 0 || e->prev_pid < 0 ? -1 : 1;
}

/*
 * The events of @buf (NUL-terminated), one per line that is one; room for
 * @room wake-ups (-1: one per switch and one more), and not one byte more:
 * code that writes past it stops with SIGSEGV.
 */
static int one_wm(char *buf, int pid, long room)
{
	static struct wm_event ev[MAX_EVENTS];
	struct wm_wakeup *out;
	struct wm_counts c;
	size_t n = 0, nswitch = 0, max;
	char *line, *save = NULL;
	int rc;

	for (line = strtok_r(buf, "\n", &save); line && n < MAX_EVENTS;
	     line = strtok_r(NULL, "\n", &save)) {
		int r = parse_event(line, &ev[n]);

		if (r < 0)
			return -1;	/* a broken fixture: the checks say so */
		if (r > 0)
			nswitch += ev[n++].kind == WM_SWITCH;
	}
	max = room < 0 ? nswitch + 1 : (size_t)room;
	out = guarded(max * sizeof(*out));
	if (!out)
		return -1;
	memset(&c, 0, sizeof(c));
	printf("events %zu\n", n);
	fflush(stdout);
	rc = wm_match(ev, n, pid, out, max, &c);
	printf("rc %d\n", rc);
	printf("counts %zu %zu %zu\n", c.matched, c.unmatched_switches, c.pending);
	for (size_t i = 0; i < c.matched && i < max; i++)
		printf("wake %llu %llu %lld\n", out[i].wake_ns, out[i].run_ns, out[i].latency_ns);
	return 0;
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];
	char kind[3], name[64];
	char *buf;
	long len, max;
	int pid;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* Whatever the learner's code printed before main() stays above this line. */
	printf("begin\n");
	if (argc != 2 || strcmp(argv[1], "run"))
		return 2;
	while ((buf = read_next(kind, name, sizeof(name), &pid, &len, &max))) {
		printf("file %s\n", name);
		/* What comes before a crash must reach the check program. */
		fflush(stdout);
		if (!strcmp(kind, "lt")) {
			one_lt(buf, (size_t)len);
		} else {
			buf[len] = '\0';
			if (strcmp(kind, "wm") || one_wm(buf, pid, max))
				return 4;
		}
		fflush(stdout);
		free(buf);
	}
	return len ? 3 : 0;
}
