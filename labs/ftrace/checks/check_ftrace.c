/*
 * check_ftrace: the checks of the ftrace lab's exercise (exercise.json), one
 * cmocka test per check. Each feeds traces with known answers (checks/data,
 * README.md there) to the subject (subject.c linked with the learner's
 * latency_trace.c and wake_match.c) through the harness, and compares what
 * it printed with the answers: lt-answers.txt for the latency traces, one
 * wm-NAME.answer per event trace. The answers were read from the same
 * traces by a second implementation (tests/cli/lib/exercise_ftrace_answers.py),
 * and make check holds the two together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab_check.h"

#define NAME_MAX_LEN 64		/* ftrace_exercise.h: LT_NAME_MAX */

/* ---- The latency traces --------------------------------------------------- */

/* What lt_parse() found in one trace: the subject's lines or the answer's. */
struct lt_result {
	int rc;
	char tracer[NAME_MAX_LEN], started[NAME_MAX_LEN], ended[NAME_MAX_LEN];
	char cause[NAME_MAX_LEN];
	long latency;
	unsigned int entries, gap_line;
	long gap_us;
};

struct lt_case {
	const char *file;	/* in checks/data */
	const char *what;	/* for a person */
	bool ran;
	char failed[512];	/* the subject's run could not be judged: why */
	struct lt_result got, want;
};

/* Sections with known answers; the last ones hold no section at all. */
static struct lt_case lt_cases[] = {
	{ .file = "lt-irqsoff.txt", .what = "irqsoff, lab kernel 6.12" },
	{ .file = "lt-irqsoff-ftrace.txt", .what = "irqsoff with function tracing, 6.12" },
	{ .file = "lt-preemptoff.txt", .what = "preemptoff, lab kernel 6.12" },
	{ .file = "lt-preemptoff-ftrace.txt", .what = "preemptoff with function tracing, 6.12" },
	{ .file = "lt-preemptirqsoff.txt", .what = "preemptirqsoff, lab kernel 6.12" },
	{ .file = "lt-preemptirqsoff-ftrace.txt",
	  .what = "preemptirqsoff with function tracing, 6.12" },
	{ .file = "lt-wakeup_rt.txt", .what = "wakeup_rt, lab kernel 6.12" },
	{ .file = "lt-wakeup_dl.txt", .what = "wakeup_dl, lab kernel 6.12" },
	{ .file = "lt-rt61-wakeup.txt", .what = "wakeup, Debian rt kernel 6.1" },
	{ .file = "lt-constructed-preemptoff-4x.txt", .what = "preemptoff in a 4.19 layout" },
	{ .file = "lt-constructed-preemptirqsoff-rt.txt",
	  .what = "preemptirqsoff in the old PREEMPT_RT layout" },
	{ .file = "lt-constructed-wakeup-ftrace.txt", .what = "wakeup with function tracing" },
};

static struct lt_case lt_none[] = {
	{ .file = "lt-timerlat.txt", .what = "a timerlat trace (no latency header)" },
	{ .file = "lt-tracer-only.txt", .what = "a trace that names its tracer and nothing else" },
	{ .file = "lt-empty.txt", .what = "an empty trace" },
	{ .file = "wm-plain.txt", .what = "a trace of scheduler events" },
};

static struct lt_case lt_cut[] = {
	{ .file = "lt-truncated-ftrace.txt",
	  .what = "an irqsoff trace cut off in the middle of an entry's time stamp" },
	{ .file = "lt-truncated-header.txt", .what = "a wakeup_rt trace cut off after its header" },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void copy_word(char *dst, const char *src)
{
	size_t n = strcspn(src, " \n");

	if (n >= NAME_MAX_LEN)
		n = NAME_MAX_LEN - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* "key value" lines (the subject's), or "key value key value ..." (an answer). */
static bool lt_read(const char *s, struct lt_result *r, bool one_line)
{
	int seen = 0;

	memset(r, 0, sizeof(*r));
	while (*s && *s != '\n') {
		char key[16];
		int n;

		if (sscanf(s, "%15s %n", key, &n) != 1)
			return false;
		s += n;
		if (!strcmp(key, "rc"))
			seen += sscanf(s, "%d", &r->rc);
		else if (!strcmp(key, "tracer"))
			copy_word(r->tracer, s), seen++;
		else if (!strcmp(key, "latency"))
			seen += sscanf(s, "%ld", &r->latency);
		else if (!strcmp(key, "started"))
			copy_word(r->started, s), seen++;
		else if (!strcmp(key, "ended"))
			copy_word(r->ended, s), seen++;
		else if (!strcmp(key, "entries"))
			seen += sscanf(s, "%u", &r->entries);
		else if (!strcmp(key, "gap"))
			seen += sscanf(s, "%u %ld", &r->gap_line, &r->gap_us) == 2;
		else if (!strcmp(key, "cause"))
			copy_word(r->cause, s), seen++;
		/* past the value(s) of this key */
		s += strcspn(s, " \n");
		if (!strcmp(key, "gap") && *s == ' ')
			s += 1 + strcspn(s + 1, " \n");
		if (*s == ' ')
			s++;
		else if (*s == '\n' && !one_line)
			s++;
		else if (*s == '\n')
			break;
	}
	return seen == 8;
}

/* The answer for @file from lt-answers.txt. */
static bool lt_answer(const char *file, struct lt_result *want)
{
	FILE *f = fopen(rtlab_check_data("lt-answers.txt"), "r");
	char line[1024];
	size_t n = strlen(file);
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f))
		if (!strncmp(line, file, n) && line[n] == ' ')
			ok = lt_read(line + n + 1, want, true);
	fclose(f);
	return ok;
}

/* Run the subject on @c's trace once; c->failed says when that went wrong. */
static struct lt_case *lt_run(struct lt_case *c)
{
	const char *argv[] = { "lt", NULL };
	struct rtlab_run r = { 0 };
	struct rtlab_run_opts o = { .argv = argv };

	if (c->ran)
		return c;
	c->ran = true;
	if (!strncmp(c->file, "lt-", 3) && !lt_answer(c->file, &c->want)) {
		snprintf(c->failed, sizeof(c->failed), "checks/data/lt-answers.txt has no "
			 "answer for %s (a broken installation)", c->file);
		return c;
	}
	o.stdin_path = rtlab_check_data(c->file);
	if (rtlab_run_subject(&o, &r))
		snprintf(c->failed, sizeof(c->failed), "the subject could not be run: %s",
			 r.reason);
	else if (!rtlab_run_ok(&r))
		snprintf(c->failed, sizeof(c->failed), "lt_parse() did not return: the subject "
			 "%s%s", r.reason, r.signal == SIGSEGV ? " (reading past the end of the "
			 "text? It is not NUL-terminated: stop at text + len)" : "");
	else if (!strstr(r.out, "rc ") || !lt_read(strstr(r.out, "rc "), &c->got, false))
		snprintf(c->failed, sizeof(c->failed), "the subject's output does not read as "
			 "expected: \"%.80s\"", r.out);
	rtlab_run_fini(&r);
	return c;
}

static void lt_need(const struct lt_case *c)
{
	if (c->failed[0])
		rtlab_fail("%s (%s): %s", c->what, c->file, c->failed);
	if (c->got.rc != c->want.rc)
		rtlab_fail("%s (%s): lt_parse() returned %d, expected %d%s", c->what, c->file,
			   c->got.rc, c->want.rc,
			   c->got.rc == -ENOSYS ? " (ENOSYS: not written yet?)" : "");
}

/* A string field: "-" is how both sides write "". */
static void lt_same(const struct lt_case *c, const char *field, const char *got,
		    const char *want)
{
	if (strcmp(got, want))
		rtlab_fail("%s (%s): %s is \"%s\", expected \"%s\"", c->what, c->file, field,
			   strcmp(got, "-") ? got : "", strcmp(want, "-") ? want : "");
}

static void lt_header(const struct lt_case *c)
{
	lt_same(c, "the tracer", c->got.tracer, c->want.tracer);
	if (c->got.latency != c->want.latency)
		rtlab_fail("%s (%s): the latency is %ld us, expected %ld us", c->what, c->file,
			   c->got.latency, c->want.latency);
	lt_same(c, "\"started at\"", c->got.started, c->want.started);
	lt_same(c, "\"ended at\"", c->got.ended, c->want.ended);
}

static void lt_gap(const struct lt_case *c)
{
	if (c->got.entries != c->want.entries)
		rtlab_fail("%s (%s): %u entry lines found, expected %u", c->what, c->file,
			   c->got.entries, c->want.entries);
	if (c->got.gap_line != c->want.gap_line || c->got.gap_us != c->want.gap_us)
		rtlab_fail("%s (%s): the widest gap found is %ld us after the entry on line %u; "
			   "expected %ld us after line %u", c->what, c->file, c->got.gap_us,
			   c->got.gap_line, c->want.gap_us, c->want.gap_line);
}

static void header(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(lt_cases); i++) {
		struct lt_case *c = lt_run(&lt_cases[i]);

		lt_need(c);
		lt_header(c);
	}
}

static void widest_gap(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(lt_cases); i++) {
		struct lt_case *c = lt_run(&lt_cases[i]);

		lt_need(c);
		lt_gap(c);
	}
}

static void cause(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(lt_cases); i++) {
		struct lt_case *c = lt_run(&lt_cases[i]);

		lt_need(c);
		/* A cause after the wrong gap is the gap's failure, not the cause's. */
		if (c->got.gap_line != c->want.gap_line)
			rtlab_fail("%s (%s): the cause belongs to the widest gap, and that was "
				   "not found (check widest-gap)", c->what, c->file);
		lt_same(c, "the cause", c->got.cause, c->want.cause);
	}
}

static void no_section(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(lt_none); i++) {
		struct lt_case *c = lt_run(&lt_none[i]);

		c->want.rc = -ENOENT;
		lt_need(c);
	}
}

static void truncated(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(lt_cut); i++) {
		struct lt_case *c = lt_run(&lt_cut[i]);

		lt_need(c);
		lt_header(c);
		lt_gap(c);
		lt_same(c, "the cause", c->got.cause, c->want.cause);
	}
}

/* ---- The event traces ----------------------------------------------------- */

struct wm_result {
	int pid;
	long long counts[3];	/* matched, unmatched switches, pending */
	size_t nwake;
	unsigned long long (*wake)[3];	/* wake, run, latency */
};

struct wm_case {
	const char *name;	/* wm-NAME.txt and wm-NAME.answer */
	const char *what;
	bool ran;
	char failed[512];
	int rc;
	size_t events;
	struct wm_result got, want;
};

static struct wm_case wm_plain[] = {
	{ .name = "plain", .what = "a periodic task, its own events only" },
	{ .name = "busy", .what = "a periodic task among every task on its CPU" },
	{ .name = "plain-cut", .what = "a trace that ends inside a wake-up" },
};

static struct wm_case wm_hog[] = {
	{ .name = "hog", .what = "a task that computes and is preempted by others" },
};

static struct wm_case wm_both[] = {
	{ .name = "both", .what = "sched_waking and sched_wakeup for every wake-up" },
	{ .name = "wakeup-only", .what = "sched_wakeup only" },
};

/* Parse "pid"/"counts"/"wake" lines; false when a line does not read. */
static bool wm_read(const char *s, struct wm_result *r, size_t max_wake)
{
	r->wake = calloc(max_wake ? max_wake : 1, sizeof(*r->wake));
	if (!r->wake)
		return false;
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "pid ", 4)) {
			if (sscanf(p + 4, "%d", &r->pid) != 1)
				return false;
		} else if (!strncmp(p, "counts ", 7)) {
			if (sscanf(p + 7, "%lld %lld %lld", &r->counts[0], &r->counts[1],
				   &r->counts[2]) != 3)
				return false;
		} else if (!strncmp(p, "wake ", 5)) {
			long long lat;

			if (r->nwake >= max_wake)
				return false;
			if (sscanf(p + 5, "%llu %llu %lld", &r->wake[r->nwake][0],
				   &r->wake[r->nwake][1], &lat) != 3)
				return false;
			r->wake[r->nwake++][2] = (unsigned long long)lat;
		}
	}
	return true;
}

/* The whole of a small file, NUL-terminated; NULL when unreadable. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, 4096, f);
		len += got;
	} while (got);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static struct wm_case *wm_run(struct wm_case *c)
{
	char file[64], pid[16], *answer;
	const char *argv[] = { "wm", pid, NULL };
	struct rtlab_run r = { 0 };
	struct rtlab_run_opts o = { .argv = argv };
	const char *p;

	if (c->ran)
		return c;
	c->ran = true;
	snprintf(file, sizeof(file), "wm-%s.answer", c->name);
	answer = slurp(rtlab_check_data(file));
	if (!answer || !wm_read(answer, &c->want, 100000) || c->want.pid <= 0) {
		free(answer);
		snprintf(c->failed, sizeof(c->failed), "checks/data/%s is missing or broken "
			 "(a broken installation)", file);
		return c;
	}
	free(answer);
	snprintf(pid, sizeof(pid), "%d", c->want.pid);
	snprintf(file, sizeof(file), "wm-%s.txt", c->name);
	o.stdin_path = rtlab_check_data(file);
	if (rtlab_run_subject(&o, &r))
		snprintf(c->failed, sizeof(c->failed), "the subject could not be run: %s",
			 r.reason);
	else if (!rtlab_run_ok(&r))
		snprintf(c->failed, sizeof(c->failed), "wm_match() did not return: the subject "
			 "%s", r.reason);
	else if (!(p = strstr(r.out, "rc ")) || sscanf(p + 3, "%d", &c->rc) != 1 ||
		 !strstr(r.out, "events ") || sscanf(strstr(r.out, "events ") + 7, "%zu",
						     &c->events) != 1 ||
		 !wm_read(p, &c->got, c->events + 1))
		snprintf(c->failed, sizeof(c->failed), "the subject's output does not read as "
			 "expected: \"%.80s\"", r.out);
	rtlab_run_fini(&r);
	return c;
}

static void wm_judge(struct wm_case *c)
{
	const struct wm_result *g = &c->got, *w = &c->want;
	size_t n;

	wm_run(c);
	if (c->failed[0])
		rtlab_fail("%s (wm-%s.txt): %s", c->what, c->name, c->failed);
	if (c->rc)
		rtlab_fail("%s (wm-%s.txt): wm_match() returned %d%s", c->what, c->name, c->rc,
			   c->rc == -ENOSYS ? " (ENOSYS: not written yet?)" : "");
	n = g->nwake < w->nwake ? g->nwake : w->nwake;
	for (size_t i = 0; i < n; i++) {
		if (!memcmp(g->wake[i], w->wake[i], sizeof(g->wake[i])))
			continue;
		rtlab_fail("%s (wm-%s.txt), following pid %d: wake-up %zu should run from the "
			   "waking at %llu ns to the switch at %llu ns (%lld ns); yours runs from "
			   "%llu to %llu (%lld ns)", c->what, c->name, w->pid, i + 1, w->wake[i][0],
			   w->wake[i][1], (long long)w->wake[i][2], g->wake[i][0], g->wake[i][1],
			   (long long)g->wake[i][2]);
	}
	if (g->counts[0] != w->counts[0] || g->nwake != w->nwake)
		rtlab_fail("%s (wm-%s.txt), following pid %d: %lld wake-ups found (%zu written), "
			   "expected %lld; the first %zu agree", c->what, c->name, w->pid,
			   g->counts[0], g->nwake, w->counts[0], n);
	if (g->counts[1] != w->counts[1])
		rtlab_fail("%s (wm-%s.txt): %lld unmatched switches counted, expected %lld",
			   c->what, c->name, g->counts[1], w->counts[1]);
	if (g->counts[2] != w->counts[2])
		rtlab_fail("%s (wm-%s.txt): pending is %lld, expected %lld", c->what, c->name,
			   g->counts[2], w->counts[2]);
}

static void wake_match(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(wm_plain); i++)
		wm_judge(&wm_plain[i]);
}

static void wake_preempted(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(wm_hog); i++)
		wm_judge(&wm_hog[i]);
}

static void wake_both_events(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(wm_both); i++)
		wm_judge(&wm_both[i]);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(header),
		cmocka_unit_test(widest_gap),
		cmocka_unit_test(cause),
		cmocka_unit_test(no_section),
		cmocka_unit_test(truncated),
		cmocka_unit_test(wake_match),
		cmocka_unit_test(wake_preempted),
		cmocka_unit_test(wake_both_events),
	};

	return rtlab_check_main("ftrace", tests, sizeof(tests) / sizeof(tests[0]));
}
