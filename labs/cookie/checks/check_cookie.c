/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_cookie: the trusted checks of the cookie exercise, one cmocka test
 * per check of exercise.json. Each runs the subject (subject.c linked with
 * the learner's cookie.c) and judges what it printed: the replays of the
 * interleavings known to break the racy plate and of rounds round the
 * table, the exhaustive search and random schedules, the shares of four
 * diners, and the real threads' exact tally.
 *
 * Every verdict is a count, never a time: the replays are the same on
 * every machine, and the threaded runs judge what was eaten, not how fast.
 * A loaded machine only makes the threaded runs do less work (the subject
 * stops at a floor of cookies once its time is up, see subject.c), so it
 * changes how long grading takes, never what it says.
 *
 * checks/ is installed where a learner can read it, so the inputs that are
 * not the documented ones (the schedules known to break the racy plate)
 * come from a seed drawn when the program starts: getrandom(), or
 * RTLAB_CHECK_SEED to repeat a run; every failure names it. The seed picks
 * the rounds' lengths, the random schedules, a table of 3 to 8 seats and
 * the threaded runs' cookie counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rtlab_check.h"

/*
 * Wall-clock limits, for code that hangs only: a correct protocol needs
 * milliseconds of CPU for a replay or a search and a second or two for a
 * threaded run, even on a loaded machine (which makes the threaded runs do
 * less work, not take longer).
 */
#define QUICK_WALL_S 10u
#define THREADS_WALL_S 60u

#define SEATS_MAX 8u		/* the stepper's (cookie_step.h) */
#define SCHED_MAX 4096u		/* steps in one schedule (COOKIE_SCHEDULE_MAX) */
#define ROUNDS_PER_SEAT 32u	/* a round-robin replay: 32 rounds a seat (at most 4096 steps) */
#define RANDOM_STEPS 4000u	/* fair-four's random schedule */

/* ten-million: up to ten million cookies, at least TM_FLOOR, about TM_MS when loaded. */
#define TM_COOKIES 10000000ull
#define TM_FLOOR 200000ull
#define TM_MS 1500u
/* fair-four on threads: about 100,000 cookies, at least FF_FLOOR. */
#define FF_COOKIES 100000ull
#define FF_FLOOR 20000ull
#define FF_MS 500u

/* ---- The seed of this run ---------------------------------------------------- */

static uint32_t check_seed;

/* RTLAB_CHECK_SEED when it is a number, else one from getrandom(); 32 bits, short to quote. */
static void seed_init(void)
{
	const char *s = getenv("RTLAB_CHECK_SEED");
	char *end;

	if (s && *s) {
		errno = 0;
		check_seed = (uint32_t)strtoul(s, &end, 0);
		if (!errno && !*end)
			return;
	}
	if (getrandom(&check_seed, sizeof(check_seed), 0) != (ssize_t)sizeof(check_seed))
		check_seed = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
}

/* splitmix64: one stream of numbers per use, from the seed and a salt. */
struct rng {
	uint64_t s;
};

static struct rng rng_for(uint64_t salt)
{
	struct rng g = { check_seed ^ (salt * 0x9e3779b97f4a7c15ull) };

	return g;
}

static uint64_t rng_next(struct rng *g)
{
	uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A number in [lo, hi]. */
static unsigned long long rng_range(struct rng *g, unsigned long long lo, unsigned long long hi)
{
	return lo + rng_next(g) % (hi - lo + 1);
}

/*
 * The reason the current check fails, with the seed that made its inputs
 * (the harness keeps 600 bytes of a reason: the seed goes first).
 */
static void __attribute__((format(printf, 1, 2))) seed_reason(const char *fmt, ...)
{
	char text[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rtlab_check_reason("[seed %u; RTLAB_CHECK_SEED=%u repeats it] %s", check_seed, check_seed,
			   text);
}

#undef rtlab_fail
#define rtlab_fail(...) do { seed_reason(__VA_ARGS__); fail(); } while (0)

/* ---- Running the subject ------------------------------------------------------- */

/* One run of the subject that must end normally, within @wall_s (for code that hangs). */
static void run(const char *const *argv, unsigned int wall_s, struct rtlab_run *r)
{
	struct rtlab_run_opts o = { .argv = argv, .wall_s = wall_s };

	memset(r, 0, sizeof(*r));
	if (rtlab_run_subject(&o, r))
		rtlab_fail("the subject could not be run: %s", r->reason);
	if (!rtlab_run_ok(r)) {
		seed_reason("the subject (%s %s ...) did not finish normally: %s", argv[0], argv[1],
			    r->reason);
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

/* The numbers after "eaten " in @p (up to the line's end), into @x: how many. */
static unsigned int shares(const char *p, double *x, unsigned int max)
{
	unsigned int n = 0;
	char *end;

	p = p ? strstr(p, "eaten ") : NULL;
	if (!p)
		return 0;
	p += 6;
	while (n < max && *p != '\n') {
		double v = strtod(p, &end);

		if (end == p)
			break;
		x[n++] = v;
		p = end;
	}
	return n;
}

/* Jain's fairness index of @n shares: 1 when equal, 1/n when one diner ate everything. */
static double jain(const double *x, unsigned int n)
{
	double s = 0, s2 = 0;

	for (unsigned int i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	return s2 > 0 ? s * s / (n * s2) : 0;
}

/* One schedule's line of "replay SEATS SCHEDULE...". */
struct replay {
	unsigned long long steps, consumed, lost, dup, misreported;
	unsigned int n;
	double eaten[SEATS_MAX];
};

/* The "replay ..." lines of @out into @res, in order: how many. */
static size_t replays(const char *out, struct replay *res, size_t max)
{
	size_t k = 0;

	for (const char *p = out; p && *p && k < max; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		struct replay *x = &res[k];

		if (strncmp(p, "replay ", 7) ||
		    sscanf(p + 7, "%llu %llu %llu %llu %llu", &x->steps, &x->consumed, &x->lost,
			   &x->dup, &x->misreported) != 5)
			continue;
		x->n = shares(p, x->eaten, SEATS_MAX);
		k++;
	}
	return k;
}

/* Replay @n schedules on @seats diners: their lines into @res (the check fails without). */
static void replay_run(unsigned int seats, const char *const *sched, size_t n, struct replay *res)
{
	const char *argv[16];
	char nseats[8];
	struct rtlab_run r;
	size_t got;

	snprintf(nseats, sizeof(nseats), "%u", seats);
	argv[0] = "replay";
	argv[1] = nseats;
	for (size_t i = 0; i < n; i++)
		argv[2 + i] = sched[i];
	argv[2 + n] = NULL;
	run(argv, QUICK_WALL_S, &r);
	got = replays(r.out, res, n);
	if (got != n) {
		seed_reason("replaying %zu schedules on %u diners, the subject printed %zu "
			    "results: %.80s", n, seats, got, r.out);
		rtlab_run_fini(&r);
		fail();
	}
	for (size_t i = 0; i < n; i++)
		if (res[i].n != seats) {
			seed_reason("a replay on %u diners printed the shares of %u", seats,
				    res[i].n);
			rtlab_run_fini(&r);
			fail();
		}
	rtlab_run_fini(&r);
}

/* ---- Schedules ----------------------------------------------------------------- */

/*
 * @rounds rounds of the table in seat order, each seat stepped 1 or 2 times
 * in its slot: every diner gets a step in every round. Into @buf; its length.
 */
static size_t sched_rounds(char *buf, unsigned int seats, unsigned int rounds, struct rng *g)
{
	size_t k = 0;

	for (unsigned int r = 0; r < rounds; r++)
		for (unsigned int s = 0; s < seats; s++) {
			unsigned int steps = (unsigned int)rng_range(g, 1, 2);

			for (; steps && k < SCHED_MAX; steps--)
				buf[k++] = (char)('0' + s);
		}
	buf[k] = '\0';
	return k;
}

/* @len steps, each of a seat drawn uniformly. */
static void sched_random(char *buf, unsigned int seats, size_t len, struct rng *g)
{
	for (size_t k = 0; k < len; k++)
		buf[k] = (char)('0' + rng_range(g, 0, seats - 1));
	buf[len] = '\0';
}

/* The first @n characters of a schedule, for a reason. */
#define SCHED_QUOTE 24

/* ---- The checks --------------------------------------------------------------- */

/*
 * Every replay must lose nothing, eat nothing twice, and each turn must
 * return the cookies it ate; @what names the replay for the reason.
 */
static void replay_sound(const struct replay *x, const char *what, const char *sched)
{
	if (x->lost || x->dup)
		rtlab_fail("%s (%.*s%s): expected 0 lost and 0 eaten twice, got %llu lost and %llu "
			   "eaten twice", what, SCHED_QUOTE, sched,
			   strlen(sched) > SCHED_QUOTE ? "..." : "", x->lost, x->dup);
	if (x->misreported)
		rtlab_fail("%s (%.*s%s): %llu turns of diner_turn() returned something other than "
			   "the cookies they ate (0 or 1)", what, SCHED_QUOTE, sched,
			   strlen(sched) > SCHED_QUOTE ? "..." : "", x->misreported);
}

/*
 * Rounds of the table (every diner stepped once or twice a round): a
 * protocol that hands the plate on needs at most 4 of its holder's
 * operations and a round to reach the next seat, so every diner eats once
 * every 5 rounds of the table or more often; at least once in 8 is asked.
 */
static void rounds_eat(const struct replay *x, unsigned int seats, unsigned int rounds,
		       const char *sched)
{
	unsigned int need = rounds / (8 * seats);

	for (unsigned int i = 0; i < seats; i++)
		if (x->eaten[i] < need)
			rtlab_fail("%u rounds of %u diners (%.*s...): each diner should eat at "
				   "least %u times, diner %u ate %.0f (%llu cookies in all)",
				   rounds, seats, SCHED_QUOTE, sched, need, i, x->eaten[i],
				   x->consumed);
}

static void replay_known_bad(void **state)
{
	/* Each loses or duplicates a cookie on the racy plate (found by rtlab's search). */
	static const char *const bad[] = { "01", "0101", "0110", "1010", "001101", "0*3 1*3 0 1" };
	static char two[SCHED_MAX + 1], more[SCHED_MAX + 1];
	const char *sched[sizeof(bad) / sizeof(bad[0]) + 1];
	struct replay res[sizeof(bad) / sizeof(bad[0]) + 1];
	const size_t nbad = sizeof(bad) / sizeof(bad[0]);
	struct rng g = rng_for(1);
	unsigned int seats = (unsigned int)rng_range(&g, 3, SEATS_MAX);

	(void)state;
	for (size_t i = 0; i < nbad; i++)
		sched[i] = bad[i];
	sched_rounds(two, 2, ROUNDS_PER_SEAT * 2, &g);
	sched[nbad] = two;
	replay_run(2, sched, nbad + 1, res);
	for (size_t i = 0; i < nbad; i++)
		replay_sound(&res[i], "a schedule that breaks the racy plate", bad[i]);
	replay_sound(&res[nbad], "rounds of 2 diners", two);
	rounds_eat(&res[nbad], 2, ROUNDS_PER_SEAT * 2, two);

	/* And round a larger table, whose size the code cannot know in advance. */
	sched_rounds(more, seats, ROUNDS_PER_SEAT * seats, &g);
	sched[0] = more;
	replay_run(seats, sched, 1, res);
	replay_sound(&res[0], "rounds of a larger table", more);
	rounds_eat(&res[0], seats, ROUNDS_PER_SEAT * seats, more);
}

static void search_none(void **state)
{
	static const char *const two[] = { "search", "2", "10", NULL };
	static const char *const three[] = { "search", "3", "7", NULL };
	static char buf[3][SCHED_MAX + 1];
	const char *const *argv[] = { two, three };
	const char *sched[3];
	struct replay res[3];
	struct rng g = rng_for(2);
	unsigned int seats = (unsigned int)rng_range(&g, 2, SEATS_MAX);
	struct rtlab_run r;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		run(argv[i], QUICK_WALL_S, &r);
		if (strncmp(r.out, "none", 4)) {
			seed_reason("%s diners: expected no schedule to go wrong, the search found "
				    "one: %.*s", argv[i][1], (int)strcspn(r.out, "\n"), r.out);
			rtlab_run_fini(&r);
			fail();
		}
		rtlab_run_fini(&r);
	}
	/* Longer schedules than a search can try, at random. */
	for (size_t i = 0; i < 3; i++) {
		sched_random(buf[i], seats, (size_t)rng_range(&g, 1000, SCHED_MAX), &g);
		sched[i] = buf[i];
	}
	replay_run(seats, sched, 3, res);
	for (size_t i = 0; i < 3; i++)
		if (res[i].lost || res[i].dup)
			rtlab_fail("a random schedule of %u diners, %zu steps (%.*s...): expected "
				   "0 lost and 0 eaten twice, got %llu lost and %llu eaten twice",
				   seats, strlen(buf[i]), SCHED_QUOTE, buf[i], res[i].lost,
				   res[i].dup);
}

/*
 * Four diners, twice: on a random schedule of the replay (the same shares
 * on every machine) and on real threads (the shares the scheduler gives).
 * Both are counts of cookies: the protocol's fairness, not its speed.
 */
static void fair_four(void **state)
{
	static char buf[RANDOM_STEPS + 1];
	const char *sched[1] = { buf };
	struct rng g = rng_for(3);
	unsigned long long cookies = FF_COOKIES + rng_range(&g, 0, 9999);
	char ncookies[24], nfloor[24], nms[16];
	const char *argv[] = { "threads", "4", ncookies, nfloor, nms, NULL };
	/* A protocol that hands on the plate eats once in 16 steps; half of that is asked. */
	const double need = RANDOM_STEPS / 16.0 / 4 / 2;
	struct replay res;
	struct rtlab_run r;
	long long lost, dup, stall, made;
	double x[4], j;
	unsigned int n;

	(void)state;
	sched_random(buf, 4, RANDOM_STEPS, &g);
	replay_run(4, sched, 1, &res);
	if (res.lost || res.dup)
		rtlab_fail("4 diners, a random schedule (%.*s...): expected 0 lost and 0 eaten "
			   "twice, got %llu and %llu", SCHED_QUOTE, buf, res.lost, res.dup);
	j = jain(res.eaten, 4);
	if (j < 0.99 || res.eaten[0] < need || res.eaten[1] < need || res.eaten[2] < need ||
	    res.eaten[3] < need)
		rtlab_fail("4 diners, %u random steps (%.*s...): they ate %.0f, %.0f, %.0f and "
			   "%.0f cookies (Jain's index %.3f); expected at least %.0f each and an "
			   "index of 0.99", RANDOM_STEPS, SCHED_QUOTE, buf, res.eaten[0],
			   res.eaten[1], res.eaten[2], res.eaten[3], j, need);

	snprintf(ncookies, sizeof(ncookies), "%llu", cookies);
	snprintf(nfloor, sizeof(nfloor), "%llu", FF_FLOOR);
	snprintf(nms, sizeof(nms), "%u", FF_MS);
	run(argv, THREADS_WALL_S, &r);
	n = shares(r.out, x, 4);
	lost = fact(r.out, "lost");
	dup = fact(r.out, "duplicated");
	stall = fact(r.out, "stalled");
	made = fact(r.out, "produced");
	rtlab_run_fini(&r);
	if (stall)
		rtlab_fail("4 diners on threads: the plate went missing (every diner was told "
			   "\"not here\" and no seat had it), %lld cookies were baked", made);
	if (n != 4)
		rtlab_fail("expected the shares of 4 diners, the subject printed %u", n);
	if (lost != 0 || dup != 0)
		rtlab_fail("4 diners on threads: expected 0 lost and 0 eaten twice, got %lld and "
			   "%lld", lost, dup);
	if (made < (long long)FF_FLOOR || made > (long long)cookies)
		rtlab_fail("4 diners on threads: expected %llu to %llu cookies baked, the subject "
			   "says %lld", FF_FLOOR, cookies, made);
	j = jain(x, 4);
	if (j < 0.99)
		rtlab_fail("4 diners on threads ate %.0f, %.0f, %.0f and %.0f cookies: Jain's "
			   "index %.3f, expected at least 0.99", x[0], x[1], x[2], x[3], j);
}

/*
 * Two diners on real threads, up to ten million cookies. On a loaded
 * machine the subject stops once TM_FLOOR are baked and TM_MS have passed:
 * what is judged is the tally, exact whatever the count.
 */
static void ten_million(void **state)
{
	struct rng g = rng_for(4);
	unsigned long long cookies = TM_COOKIES - rng_range(&g, 0, 99999);
	char ncookies[24], nfloor[24], nms[16];
	const char *argv[] = { "threads", "2", ncookies, nfloor, nms, NULL };
	long long lost, dup, cons, left, made, stall, mis;
	struct rtlab_run r;

	(void)state;
	snprintf(ncookies, sizeof(ncookies), "%llu", cookies);
	snprintf(nfloor, sizeof(nfloor), "%llu", TM_FLOOR);
	snprintf(nms, sizeof(nms), "%u", TM_MS);
	run(argv, THREADS_WALL_S, &r);
	lost = fact(r.out, "lost");
	dup = fact(r.out, "duplicated");
	cons = fact(r.out, "consumed");
	left = fact(r.out, "left");
	made = fact(r.out, "produced");
	stall = fact(r.out, "stalled");
	mis = fact(r.out, "misreported");
	rtlab_run_fini(&r);
	if (stall)
		rtlab_fail("2 diners on threads: the plate went missing (both were told \"not "
			   "here\" and no seat had it) after %lld cookies", made);
	if (made < (long long)TM_FLOOR || made > (long long)cookies)
		rtlab_fail("2 diners on threads: expected %llu to %llu cookies baked, the subject "
			   "says %lld", TM_FLOOR, cookies, made);
	if (lost != 0 || dup != 0)
		rtlab_fail("%lld cookies on 2 threads: expected 0 lost and 0 eaten twice, got %lld "
			   "lost and %lld eaten twice", made, lost, dup);
	if (cons + left != made)
		rtlab_fail("%lld cookies baked, but %lld eaten and %lld left on the plate", made,
			   cons, left);
	if (mis)
		rtlab_fail("%lld cookies on 2 threads: %lld turns of diner_turn() returned "
			   "something other than the cookies they ate (0 or 1)", made, mis);
}

int main(void)
{
	static const struct CMUnitTest t[] = {
		cmocka_unit_test(replay_known_bad),
		cmocka_unit_test(search_none),
		cmocka_unit_test(fair_four),
		cmocka_unit_test(ten_million),
	};

	seed_init();
	return rtlab_check_main("cookie", t, sizeof(t) / sizeof(t[0]));
}
