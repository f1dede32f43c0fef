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
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem */
#endif
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

/* ---- Running the subject on framed traces ---------------------------------- */

/* The whole of a fixture, NUL-terminated (*len without it); NULL when unreadable. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, got;

	*len = 0;
	if (!f)
		return NULL;
	do {
		if (*len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + *len, 1, 4096, f);
		*len += got;
	} while (got);
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

/*
 * The subject's input for @n traces: each file of checks/data after a line
 * "KIND NAME PID LEN". NULL (with @why) when a fixture cannot be read.
 */
static char *frame_input(const char *const *kinds, const char *const *files, const int *pids,
			 size_t n, size_t *len, char *why, size_t why_len)
{
	char *in = NULL;

	*len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t flen;
		char *text = slurp(rtlab_check_data(files[i]), &flen), head[128], *nin;
		int hlen;

		if (!text) {
			snprintf(why, why_len, "checks/data/%s cannot be read (a broken "
				 "installation)", files[i]);
			free(in);
			return NULL;
		}
		hlen = snprintf(head, sizeof(head), "%s %s %d %zu\n", kinds[i], files[i], pids[i],
				flen);
		nin = realloc(in, *len + (size_t)hlen + flen + 1);
		if (!nin) {
			free(text);
			free(in);
			snprintf(why, why_len, "the check program ran out of memory");
			return NULL;
		}
		in = nin;
		memcpy(in + *len, head, (size_t)hlen);
		memcpy(in + *len + hlen, text, flen);
		*len += (size_t)hlen + flen;
		in[*len] = '\0';
		free(text);
	}
	return in;
}

/*
 * Run `subject run` on @n framed traces. On return, sections[i] points at
 * the subject's lines for trace i in r->out ("file NAME" excluded), or is
 * NULL when it never got there; why says what went wrong for those.
 */
static bool run_framed(const char *const *kinds, const char *const *files, const int *pids,
		       size_t n, struct rtlab_run *r, const char **sections, char *why,
		       size_t why_len)
{
	const char *argv[] = { "run", NULL };
	struct rtlab_run_opts o = { .argv = argv };
	size_t len;
	char *in = frame_input(kinds, files, pids, n, &len, why, why_len);
	const char *last = NULL, *pos;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		sections[i] = NULL;
	if (!in)
		return false;
	o.stdin_data = in;
	o.stdin_len = len;
	if (rtlab_run_subject(&o, r)) {
		snprintf(why, why_len, "the subject could not be run: %s", r->reason);
		free(in);
		return false;
	}
	free(in);
	/* In order, after the subject's "begin" (a file may come twice). */
	pos = rtlab_run_last(r, "begin\n");
	for (size_t i = 0; pos && i < n; i++) {
		char tag[96];
		const char *p;

		snprintf(tag, sizeof(tag), "file %s\n", files[i]);
		p = memmem(pos, (size_t)(r->out + r->out_len - pos), tag, strlen(tag));
		if (p) {
			sections[i] = p + strlen(tag);
			pos = sections[i];
			last = files[i];
		}
	}
	if (!rtlab_run_ok(r)) {
		/* The trace it was on when it stopped is the last one it named. */
		for (size_t i = n; i-- > 0;) {
			if (sections[i]) {
				sections[i] = NULL;
				break;
			}
		}
		snprintf(why, why_len, "the subject ended: %s%s%s%s", r->reason,
			 last ? " on this trace" : "",
			 r->signal == SIGSEGV ? " (reading past the end of the text? It is not "
			 "NUL-terminated: stop at text + len)" : "",
			 r->out_cut ? " (it printed too much)" : "");
	}
	return true;
}

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
		if (!strcmp(key, "file"))
			break;	/* the next trace's lines */
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

static void all_run(void);

/* Case @c's result from its @section of the run (NULL: none; @why: the run's end). */
static void lt_take(struct lt_case *c, const char *section, const char *why)
{
	c->ran = true;
	if (strncmp(c->file, "lt-", 3) == 0 && !lt_answer(c->file, &c->want))
		snprintf(c->failed, sizeof(c->failed), "checks/data/lt-answers.txt has no answer "
			 "for it (a broken installation)");
	else if (!section)
		snprintf(c->failed, sizeof(c->failed), "lt_parse() did not return: %s",
			 why[0] ? why : "the subject printed no result for this trace");
	else if (strncmp(section, "rc ", 3) || !lt_read(section, &c->got, false))
		snprintf(c->failed, sizeof(c->failed), "the subject's output does not read as "
			 "expected: \"%.80s\"", section);
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

static void lt_cause(const struct lt_case *c)
{
	/* A cause after the wrong gap is the gap's failure, not the cause's. */
	if (c->got.gap_line != c->want.gap_line)
		rtlab_fail("%s (%s): the cause belongs to the widest gap, and that was not found "
			   "(check widest-gap)", c->what, c->file);
	lt_same(c, "the cause", c->got.cause, c->want.cause);
}

static void lt_everything(const struct lt_case *c)
{
	lt_header(c);
	lt_gap(c);
	lt_same(c, "the cause", c->got.cause, c->want.cause);
}

/* Judge each of @cases with @judge (NULL: the return value only). */
static void lt_each(struct lt_case *cases, size_t n, void (*judge)(const struct lt_case *c))
{
	all_run();
	for (size_t i = 0; i < n; i++) {
		lt_need(&cases[i]);
		if (judge)
			judge(&cases[i]);
	}
}

static void header(void **state)
{
	(void)state;
	lt_each(lt_cases, N_OF(lt_cases), lt_header);
}

static void widest_gap(void **state)
{
	(void)state;
	lt_each(lt_cases, N_OF(lt_cases), lt_gap);
}

static void cause(void **state)
{
	(void)state;
	lt_each(lt_cases, N_OF(lt_cases), lt_cause);
}

static void no_section(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(lt_none); i++)
		lt_none[i].want.rc = -ENOENT;
	lt_each(lt_none, N_OF(lt_none), NULL);
}

static void truncated(void **state)
{
	(void)state;
	lt_each(lt_cut, N_OF(lt_cut), lt_everything);
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

/* wake-match: 0..2, wake-preempted: 3, wake-both-events: 4..5. */
static struct wm_case wm_all[] = {
	{ .name = "plain", .what = "a periodic task, its own events only" },
	{ .name = "busy", .what = "a periodic task among every task on its CPU" },
	{ .name = "plain-cut", .what = "a trace that ends inside a wake-up" },
	{ .name = "hog", .what = "a task that computes and is preempted by others" },
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
		if (!strncmp(p, "file ", 5))
			break;	/* the next trace's lines */
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

/* The answer of @c (its pid first of all); false with c->failed set. */
static bool wm_answer(struct wm_case *c)
{
	char file[64], *answer;
	size_t len;

	snprintf(file, sizeof(file), "wm-%s.answer", c->name);
	answer = slurp(rtlab_check_data(file), &len);
	if (!answer || !wm_read(answer, &c->want, 100000) || c->want.pid <= 0) {
		free(answer);
		snprintf(c->failed, sizeof(c->failed), "checks/data/%s is missing or broken (a "
			 "broken installation)", file);
		return false;
	}
	free(answer);
	return true;
}

/* Case @c's result from its @section of the run (NULL: none; @why: the run's end). */
static void wm_take(struct wm_case *c, const char *section, const char *why)
{
	const char *rc;

	c->ran = true;
	if (c->failed[0])
		return;
	if (!section) {
		snprintf(c->failed, sizeof(c->failed), "wm_match() did not return: %s",
			 why[0] ? why : "the subject printed no result for this trace");
		return;
	}
	rc = strstr(section, "rc ");
	if (sscanf(section, "events %zu", &c->events) != 1 || !rc ||
	    sscanf(rc + 3, "%d", &c->rc) != 1 || !wm_read(rc, &c->got, c->events + 1))
		snprintf(c->failed, sizeof(c->failed), "the subject's output does not read as "
			 "expected: \"%.80s\"", section);
}

#define N_ALL (N_OF(lt_cases) + N_OF(wm_all) + N_OF(lt_none) + N_OF(lt_cut))

/*
 * One run of the subject for every check: the latency traces with a section,
 * the event traces, those without a section, the cut ones (what most likely
 * crashes, last: what came before a crash is still judged).
 */
static void all_run(void)
{
	static bool ran;
	const char *kinds[N_ALL], *files[N_ALL], *sections[N_ALL];
	char names[N_OF(wm_all)][64], why[400] = "";
	int pids[N_ALL] = { 0 };
	struct rtlab_run r;
	size_t n = 0;

	if (ran)
		return;
	ran = true;
	for (size_t i = 0; i < N_OF(lt_cases); i++, n++) {
		kinds[n] = "lt";
		files[n] = lt_cases[i].file;
	}
	for (size_t i = 0; i < N_OF(wm_all); i++, n++) {
		kinds[n] = "wm";
		snprintf(names[i], sizeof(names[i]), "wm-%s.txt", wm_all[i].name);
		files[n] = names[i];
		pids[n] = wm_answer(&wm_all[i]) ? wm_all[i].want.pid : 1;
	}
	for (size_t i = 0; i < N_OF(lt_none); i++, n++) {
		kinds[n] = "lt";
		files[n] = lt_none[i].file;
	}
	for (size_t i = 0; i < N_OF(lt_cut); i++, n++) {
		kinds[n] = "lt";
		files[n] = lt_cut[i].file;
	}
	if (!run_framed(kinds, files, pids, n, &r, sections, why, sizeof(why)))
		for (size_t i = 0; i < n; i++)
			sections[i] = NULL;
	n = 0;
	for (size_t i = 0; i < N_OF(lt_cases); i++)
		lt_take(&lt_cases[i], sections[n++], why);
	for (size_t i = 0; i < N_OF(wm_all); i++)
		wm_take(&wm_all[i], sections[n++], why);
	for (size_t i = 0; i < N_OF(lt_none); i++)
		lt_take(&lt_none[i], sections[n++], why);
	for (size_t i = 0; i < N_OF(lt_cut); i++)
		lt_take(&lt_cut[i], sections[n++], why);
	rtlab_run_fini(&r);
}

static void wm_judge(struct wm_case *c)
{
	const struct wm_result *g = &c->got, *w = &c->want;
	size_t n;

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
	all_run();
	for (size_t i = 0; i < 3; i++)
		wm_judge(&wm_all[i]);
}

static void wake_preempted(void **state)
{
	(void)state;
	all_run();
	wm_judge(&wm_all[3]);
}

static void wake_both_events(void **state)
{
	(void)state;
	all_run();
	for (size_t i = 4; i < 6; i++)
		wm_judge(&wm_all[i]);
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
