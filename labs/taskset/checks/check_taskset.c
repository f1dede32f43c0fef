/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_taskset: the trusted checks of the task-set exercise, one cmocka
 * test per check of exercise.json (the C name's '_' is the id's '-'). Each
 * check writes requests to the subject (subject.c linked with the
 * learner's rta.c) and judges its answers here.
 *
 * The expected answers do not come from a second copy of the iteration:
 * the worst-case response time is the smallest t > 0 with
 * W(t) = c + b + sum ceil(t / t_j) c_j <= t (W never decreases, so that t
 * is the recurrence's least fixed point), which model_response() finds by
 * trying every t up to the deadline. Inputs are drawn from the run's seed
 * (rtlab_check_seed(); RTLAB_CHECK_SEED=N repeats a run), the lesson's
 * worked example scaled by a drawn factor, and sets built with their
 * deadline exactly at R and one below it, so that only the rule passes.
 * Every failure names the seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab_check.h"

#define MAX_TASKS 6
#define why rtlab_check_seed_reason

struct task {
	unsigned long long c, t, d;
};

/* ---- The rule ------------------------------------------------------------------------ */

/* The smallest t in [1, d] whose demand fits, or 0 when none does. */
static unsigned long long model_response(const struct task *ts, unsigned int i,
					 unsigned long long b)
{
	for (unsigned long long t = 1; t <= ts[i].d; t++) {
		unsigned long long w = ts[i].c + b;

		for (unsigned int j = 0; j < i && w <= t; j++)
			w += (t / ts[j].t + (t % ts[j].t != 0)) * ts[j].c;
		if (w <= t)
			return t;
	}
	return 0;
}

/* ---- The subject ----------------------------------------------------------------------- */

struct request {
	char text[4096];
	size_t len;
};

static void add_set(struct request *q, const struct task *ts, unsigned int n,
		    unsigned long long b)
{
	q->len += (size_t)snprintf(q->text + q->len, sizeof(q->text) - q->len, "rta %llu %u",
				   b, n);
	for (unsigned int k = 0; k < n; k++)
		q->len += (size_t)snprintf(q->text + q->len, sizeof(q->text) - q->len,
					   " %llu %llu %llu", ts[k].c, ts[k].t, ts[k].d);
	q->len += (size_t)snprintf(q->text + q->len, sizeof(q->text) - q->len, "\n");
}

/* Run the subject on @q; its answer lines into @lines (each NUL-terminated in r->out). */
static unsigned int ask(const struct request *q, struct rtlab_run *r, char **lines,
			unsigned int max)
{
	struct rtlab_run_opts o = { .stdin_data = q->text, .stdin_len = q->len };
	unsigned int n = 0;
	char *save = NULL, *l;

	if (rtlab_run_subject(&o, r))
		rtlab_fail("the grader could not run your code");
	if (!rtlab_run_ok(r))
		rtlab_fail("your code did not finish normally: %s", r->reason);
	for (l = strtok_r(r->out, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

/* Judge one answer of a set against the rule. */
static void judge(const char *line, const struct task *ts, unsigned int n,
		  unsigned long long b, const char *what)
{
	unsigned long long want = model_response(ts, n - 1, b), got = 0;
	const struct task *me = &ts[n - 1];
	char verdict[16] = "";

	if (!line || sscanf(line, "%15s %llu", verdict, &got) != 2) {
		why("%s: no answer of the form \"meets R\" or \"misses R\" (got \"%s\")", what,
		    line ? line : "nothing");
		fail();
	}
	if (want && (strcmp(verdict, "meets") || got != want)) {
		why("%s: task %u (C %llu, D %llu, blocking %llu, %u higher tasks) has R = %llu "
		    "within its deadline; your code said %s %llu", what, n, me->c, me->d, b,
		    n - 1, want, verdict, got);
		fail();
	}
	if (!want && (strcmp(verdict, "misses") || got <= me->d)) {
		why("%s: task %u (C %llu, D %llu, blocking %llu, %u higher tasks) has no R "
		    "within its deadline: expected misses with an iterate above %llu; your "
		    "code said %s %llu", what, n, me->c, me->d, b, n - 1, me->d, verdict, got);
		fail();
	}
}

/* Random sets from @g: n tasks, periods 10 .. 400, utilisation 40 .. 110 %. */
static unsigned int draw_set(struct rtlab_rng *g, struct task *ts)
{
	unsigned int n = 2 + (unsigned int)rtlab_rng_below(g, MAX_TASKS - 1);
	unsigned int target = 40 + (unsigned int)rtlab_rng_below(g, 71);

	for (unsigned int k = 0; k < n; k++) {
		ts[k].t = 10 + rtlab_rng_below(g, 391);
		ts[k].c = 1 + ts[k].t * target / 100 / n * (50 + rtlab_rng_below(g, 101)) / 100;
		ts[k].d = ts[k].t - rtlab_rng_below(g, ts[k].t / 4 + 1);
		if (ts[k].c > ts[k].d)
			ts[k].c = ts[k].d;
	}
	/* Rate monotonic: the shortest period first (any order is analysable). */
	for (unsigned int a = 1; a < n; a++)
		for (unsigned int k = a; k > 0 && ts[k - 1].t > ts[k].t; k--) {
			struct task x = ts[k];

			ts[k] = ts[k - 1];
			ts[k - 1] = x;
		}
	return n;
}

/* ---- The checks ---------------------------------------------------------------------- */

static void ll_bound(void **state)
{
	struct rtlab_rng g = rtlab_rng_named("ll-bound");
	struct request q = { .len = 0 };
	struct rtlab_run r;
	unsigned int ns[6] = { 1, 2, 3 };
	char *lines[6];

	(void)state;
	for (int k = 3; k < 6; k++)
		ns[k] = 4 + (unsigned int)rtlab_rng_below(&g, 60);
	for (int k = 0; k < 6; k++)
		q.len += (size_t)snprintf(q.text + q.len, sizeof(q.text) - q.len, "ll %u\n", ns[k]);
	if (ask(&q, &r, lines, 6) != 6)
		rtlab_fail("expected 6 answers to ll N, got fewer");
	for (int k = 0; k < 6; k++) {
		double want = ns[k] * (pow(2.0, 1.0 / ns[k]) - 1.0), got = atof(lines[k]);

		if (fabs(got - want) > 1e-9) {
			why("the bound for %u tasks is %.6f; your code said %s", ns[k], want,
			    lines[k]);
			fail();
		}
	}
	rtlab_run_fini(&r);
}

static void single_task(void **state)
{
	struct rtlab_rng g = rtlab_rng_named("single-task");
	struct request q = { .len = 0 };
	struct task ts[4][1];
	unsigned long long b[4];
	struct rtlab_run r;
	char *lines[4];

	(void)state;
	for (int k = 0; k < 4; k++) {
		ts[k][0].t = 50 + rtlab_rng_below(&g, 1000);
		ts[k][0].c = 1 + rtlab_rng_below(&g, ts[k][0].t / 2);
		ts[k][0].d = ts[k][0].t;
		b[k] = k == 0 ? 0 : k == 3 ? ts[k][0].t : 1 + rtlab_rng_below(&g, ts[k][0].c);
		add_set(&q, ts[k], 1, b[k]);
	}
	if (ask(&q, &r, lines, 4) != 4)
		rtlab_fail("expected 4 answers, got fewer");
	for (int k = 0; k < 4; k++)
		judge(lines[k], ts[k], 1, b[k], "one task alone");
	rtlab_run_fini(&r);
}

/* Lesson 15: T 4, 6, 12 and C 1, 2, 3: task 3 iterates 6, 7, 9, 10, 10. Scaled by k. */
static void worked_example(void **state)
{
	struct rtlab_rng g = rtlab_rng_named("worked-example");
	unsigned long long k = 1 + rtlab_rng_below(&g, 999);
	struct task ts[3] = { { 1 * k, 4 * k, 4 * k }, { 2 * k, 6 * k, 6 * k },
			      { 3 * k, 12 * k, 12 * k } };
	struct request q = { .len = 0 };
	struct rtlab_run r;
	char *lines[3];

	(void)state;
	for (unsigned int n = 1; n <= 3; n++)
		add_set(&q, ts, n, 0);
	if (ask(&q, &r, lines, 3) != 3)
		rtlab_fail("expected 3 answers, got fewer");
	for (unsigned int n = 1; n <= 3; n++)
		judge(lines[n - 1], ts, n, 0, "the lesson's worked example, times scaled");
	rtlab_run_fini(&r);
}

/* Random sets with and without blocking: every task of each. */
static void check_random(const char *name, bool blocking)
{
	struct rtlab_rng g = rtlab_rng_named(name);
	struct task sets[24][MAX_TASKS];
	unsigned int ns[24];
	unsigned long long bs[24];
	struct request q = { .len = 0 };
	struct rtlab_run r;
	char *lines[24 * MAX_TASKS];
	unsigned int asked = 0, got;

	for (int s = 0; s < 24 && q.len < sizeof(q.text) - 600; s++) {
		ns[s] = draw_set(&g, sets[s]);
		bs[s] = blocking ? 1 + rtlab_rng_below(&g, sets[s][0].t / 2) : 0;
		for (unsigned int n = 1; n <= ns[s] && q.len < sizeof(q.text) - 200; n++) {
			add_set(&q, sets[s], n, bs[s]);
			asked++;
		}
	}
	got = ask(&q, &r, lines, 24 * MAX_TASKS);
	if (got != asked)
		rtlab_fail("expected %u answers, got %u", asked, got);
	asked = 0;
	for (int s = 0; asked < got; s++)
		for (unsigned int n = 1; n <= ns[s] && asked < got; n++)
			judge(lines[asked++], sets[s], n, bs[s], blocking ?
			      "a random set with a blocking term" : "a random set");
	rtlab_run_fini(&r);
}

static void random_sets(void **state)
{
	(void)state;
	check_random("random-sets", false);
}

static void blocking(void **state)
{
	(void)state;
	check_random("blocking", true);
}

/* The deadline set exactly at R meets; one below R misses. */
static void deadline_edge(void **state)
{
	struct rtlab_rng g = rtlab_rng_named("deadline-edge");
	struct task sets[8][MAX_TASKS];
	unsigned int ns[8];
	struct request q = { .len = 0 };
	struct rtlab_run r;
	char *lines[16];
	int made = 0;

	(void)state;
	while (made < 8) {
		unsigned int n = draw_set(&g, sets[made]);
		struct task *me = &sets[made][n - 1];
		unsigned long long rr;

		me->d = me->t;
		rr = model_response(sets[made], n - 1, 0);
		if (!rr || rr < 2 || rr == me->c)
			continue;	/* an edge needs an R that interference made */
		me->d = rr;
		ns[made] = n;
		add_set(&q, sets[made], n, 0);
		me->d = rr - 1;
		add_set(&q, sets[made], n, 0);
		me->d = rr;
		made++;
	}
	if (ask(&q, &r, lines, 16) != 16)
		rtlab_fail("expected 16 answers, got fewer");
	for (int s = 0; s < 8; s++) {
		struct task *me = &sets[s][ns[s] - 1];

		judge(lines[2 * s], sets[s], ns[s], 0, "a deadline exactly at R");
		me->d--;
		judge(lines[2 * s + 1], sets[s], ns[s], 0, "a deadline one below R");
		me->d++;
	}
	rtlab_run_fini(&r);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(ll_bound),
		cmocka_unit_test(single_task),
		cmocka_unit_test(worked_example),
		cmocka_unit_test(random_sets),
		cmocka_unit_test(blocking),
		cmocka_unit_test(deadline_edge),
	};

	(void)rtlab_check_seed();
	return rtlab_check_main("taskset", tests, sizeof(tests) / sizeof(tests[0]));
}
