/*
 * check_cookie: the trusted checks of the cookie exercise, one cmocka test
 * per check of exercise.json. Each runs the subject (subject.c linked with
 * the learner's cookie.c) and judges what it printed: the real threads'
 * exact tally, the shares' fairness, the replays of the interleavings
 * known to break the racy plate, and the exhaustive search.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtlab_check.h"

#define QUICK_WALL_S 3u		/* replays and searches: a few milliseconds of work */
#define FAIR_WALL_S 15u		/* four threads, 100,000 hand-overs */

/*
 * One run of the subject that must end normally. @wall_s: its limit, 0 for
 * the manifest's (the ten-million run's, sized for a loaded machine); the
 * other runs take well under a second and get a short one, so code that
 * hangs costs the class little.
 */
static void run(const char *const *argv, unsigned int wall_s, struct rtlab_run *r)
{
	struct rtlab_run_opts o = { .argv = argv, .wall_s = wall_s };

	memset(r, 0, sizeof(*r));
	if (rtlab_run_subject(&o, r))
		rtlab_fail("the subject could not be run: %s", r->reason);
	if (!rtlab_run_ok(r)) {
		rtlab_check_reason("the subject did not finish normally: %s", r->reason);
		rtlab_run_fini(r);
		fail();
	}
}

/* The number after "@key " in @out, or -1. */
static long long fact(const char *out, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* The diners' shares from "eaten N N ...": how many, into @x. */
static unsigned int shares(const char *out, double *x, unsigned int max)
{
	const char *p = strstr(out, "eaten ");
	unsigned int n = 0;
	char *end;

	if (!p)
		return 0;
	p += 6;
	while (n < max) {
		double v = strtod(p, &end);

		if (end == p)
			break;
		x[n++] = v;
		p = end;
	}
	return n;
}

static void ten_million(void **state)
{
	static const char *const first[] = { "threads", "2", "100000", NULL };
	static const char *const argv[] = { "threads", "2", "10000000", NULL };
	struct rtlab_run r;
	long long lost, dup, cons, left;

	(void)state;
	/*
	 * A racy plate loses cookies within the first hundred thousand: then
	 * the ten million cannot come out right either, and the long run (two
	 * CPUs for seconds, in a class one student at a time) is not needed.
	 */
	run(first, FAIR_WALL_S, &r);
	lost = fact(r.out, "lost");
	dup = fact(r.out, "duplicated");
	rtlab_run_fini(&r);
	if (lost != 0 || dup != 0)
		rtlab_fail("100,000 cookies on 2 threads already went wrong (%lld lost, %lld eaten "
			   "twice), so 10,000,000 cannot all be right: the long run was not needed",
			   lost, dup);
	run(argv, 0, &r);
	lost = fact(r.out, "lost");
	dup = fact(r.out, "duplicated");
	cons = fact(r.out, "consumed");
	left = fact(r.out, "left");
	rtlab_run_fini(&r);
	if (lost != 0 || dup != 0)
		rtlab_fail("10,000,000 cookies on 2 threads: expected 0 lost and 0 eaten twice, "
			   "got %lld lost and %lld eaten twice", lost, dup);
	if (cons + left != 10000000)
		rtlab_fail("10,000,000 cookies baked, but %lld eaten and %lld left on the plate",
			   cons, left);
}

static void fair_four(void **state)
{
	static const char *const argv[] = { "threads", "4", "100000", NULL };
	struct rtlab_run r;
	double x[4], s = 0, s2 = 0, jain;
	long long lost, dup;
	unsigned int n;

	(void)state;
	run(argv, FAIR_WALL_S, &r);
	n = shares(r.out, x, 4);
	lost = fact(r.out, "lost");
	dup = fact(r.out, "duplicated");
	rtlab_run_fini(&r);
	if (n != 4)
		rtlab_fail("expected the shares of 4 diners, the subject printed %u", n);
	if (lost != 0 || dup != 0)
		rtlab_fail("4 diners: expected 0 lost and 0 eaten twice, got %lld and %lld", lost,
			   dup);
	for (unsigned int i = 0; i < 4; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	jain = s2 > 0 ? s * s / (4 * s2) : 0;
	if (jain < 0.99)
		rtlab_fail("4 diners ate %.0f, %.0f, %.0f and %.0f cookies: Jain's index %.3f, "
			   "expected at least 0.99", x[0], x[1], x[2], x[3], jain);
}

static void replay_known_bad(void **state)
{
	/* Each loses or duplicates a cookie on the racy plate (found by rtlab's search). */
	static const char *const bad[] = { "01", "0101", "0110", "1010", "001101", "0*3 1*3 0 1" };
	const char *argv[] = { "replay", NULL, NULL };
	struct rtlab_run r;
	double x[2];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long long lost, dup;

		argv[1] = bad[i];
		run(argv, QUICK_WALL_S, &r);
		lost = fact(r.out, "lost");
		dup = fact(r.out, "duplicated");
		rtlab_run_fini(&r);
		if (lost != 0 || dup != 0)
			rtlab_fail("the schedule %s: expected 0 lost and 0 eaten twice, got %lld "
				   "lost and %lld eaten twice", bad[i], lost, dup);
	}
	/* And the plate still goes round: 40 turns each, alternating. */
	argv[1] = "01*1 0101010101010101010101010101010101010101010101010101010101010101"
		  "01010101010101010101010101010101010101010101010101010101010101010101";
	run(argv, QUICK_WALL_S, &r);
	if (shares(r.out, x, 2) != 2 || x[0] < 5 || x[1] < 5) {
		rtlab_check_reason("on 140 alternating steps both diners should eat (at least 5 "
				   "each); they ate %.0f and %.0f", x[0], x[1]);
		rtlab_run_fini(&r);
		fail();
	}
	rtlab_run_fini(&r);
}

static void search_none(void **state)
{
	static const char *const two[] = { "search", "2", "10", NULL };
	static const char *const three[] = { "search", "3", "7", NULL };
	const char *const *argv[] = { two, three };
	struct rtlab_run r;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		run(argv[i], QUICK_WALL_S, &r);
		if (strncmp(r.out, "none", 4)) {
			rtlab_check_reason("%s diners: expected no schedule to go wrong, the search "
					   "found one: %.*s", argv[i][1],
					   (int)strcspn(r.out, "\n"), r.out);
			rtlab_run_fini(&r);
			fail();
		}
		rtlab_run_fini(&r);
	}
}

int main(void)
{
	static const struct CMUnitTest t[] = {
		cmocka_unit_test(replay_known_bad),
		cmocka_unit_test(search_none),
		cmocka_unit_test(fair_four),
		cmocka_unit_test(ten_million),
	};

	return rtlab_check_main("cookie", t, sizeof(t) / sizeof(t[0]));
}
