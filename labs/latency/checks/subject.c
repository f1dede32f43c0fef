/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the latency exercise's driver, linked with the learner's
 * probe_loop.c and -Wl,--wrap for the time functions (exercise.json). It
 * only runs the learner's functions and prints what happened, one fact per
 * line; check_latency.c judges. Everything here runs in the same process as
 * the learner's code, so nothing it prints is trusted beyond "this is what
 * the process said".
 *
 *   subject run          stdin: one command per line, run in order:
 *                          "add SEC NSEC NS"         -> "add SEC NSEC"
 *                          "diff ASEC ANSEC BSEC BNSEC" -> "diff NS"
 *                          "fake PERIOD LOOPS SEED T0SEC T0NSEC [INTR]": the
 *                          loop on a simulated clock that starts at T0
 *                          and moves only when the loop sleeps; each
 *                          sleep wakes a pseudo-random 2..50 us late (now
 *                          and then 300..400 us), never a whole period.
 *                          With INTR > 0, about one sleep in INTR is cut
 *                          short by a signal (EINTR) part of the way to
 *                          its time, never two in a row
 *                          "real PERIOD LOOPS": the loop on the real
 *                          CLOCK_MONOTONIC
 *   subject lock-base    maps 1 MiB, locks what is mapped itself, stops
 *                        itself (the runner reads VmLck): the baseline
 *   subject lock-now     maps 1 MiB, calls probe_memory_prepare(), stops
 *   subject lock-later   the same, then maps 2 MiB more and stops
 *   subject stack        locks all memory itself, calls
 *                        probe_memory_prepare(), stops itself
 *   subject stack-base   locks all memory itself and stops: the baseline
 *                        the stack check compares with
 *
 * Every mode first prints "begin". Each loop prints "run K" (1, 2, ...)
 * and "rc R", then one line per sleep it made:
 *   "P KIND CLOCK TARGET WOKE READ"
 * KIND A: clock_nanosleep with TIMER_ABSTIME, R: clock_nanosleep relative,
 * N: nanosleep, U: usleep, S: sleep, E: a sleep refused for an invalid time
 * (then TARGET is "SEC.NSEC" as asked, WOKE and READ are "-"); a, r, n: the
 * same sleeps interrupted (EINTR) at WOKE. TARGET is the
 * time the sleep was until (for a relative one, when it was called plus its
 * length), WOKE when it returned, READ what the first clock_gettime() after
 * it returned ("-": none), all in ns since T0 (fake) or since the loop was
 * called (real). Then "L N" per latency the loop recorded ("L -": never
 * written), and "reads N wrong-clock N" (clock reads, and those on another
 * clock than the loop was given). A read of another clock returns the
 * shim's time plus WRONG_CLOCK_OFFSET, as CLOCK_REALTIME would be far from
 * CLOCK_MONOTONIC: a loop that mixes clocks gets latencies of decades.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "probe_loop.h"

#define MAX_LOOPS 20000u
#define MAX_LINES 4096u
#define NS_PER_SEC 1000000000LL
/* Where "another clock" is: about 2023 as CLOCK_REALTIME, and not a round number. */
#define WRONG_CLOCK_OFFSET (1700000000LL * NS_PER_SEC + 123456789LL)

int __real_clock_gettime(clockid_t clk, struct timespec *ts);
int __real_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem);
int __real_nanosleep(const struct timespec *req, struct timespec *rem);
int __real_usleep(useconds_t us);
unsigned int __real_sleep(unsigned int s);

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem);
int __wrap_nanosleep(const struct timespec *req, struct timespec *rem);
int __wrap_usleep(useconds_t us);
unsigned int __wrap_sleep(unsigned int s);

enum shim_mode { SHIM_OFF, SHIM_FAKE, SHIM_REAL };

struct sleep_rec {
	char kind;		/* lower case: interrupted (EINTR) */
	int clk;
	long long target;	/* ns since the base; for 'E' the seconds asked */
	long long woke;		/* for 'E' the nanoseconds asked */
	long long read;
	int has_read;
};

static struct {
	enum shim_mode mode;
	clockid_t clk;		/* the clock the loop was given */
	long long base;		/* ns: T0 (fake) or the real time at the start */
	long long max_ahead;	/* real: the longest sleep slept, ns */
	long long now;		/* fake: the simulated time, ns */
	uint64_t rng;
	unsigned int intr;	/* fake: about one sleep in intr is interrupted; 0: none */
	int last_intr;		/* the last sleep was interrupted: the next one is not */
	struct sleep_rec *rec;
	size_t nrec, cap;
	int waiting_read;	/* the last sleep has no clock read yet */
	unsigned long long reads, wrong_clock, read_cap;
} shim;

static long long ts_ns(const struct timespec *ts)
{
	return (long long)ts->tv_sec * NS_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_ts(long long ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_SEC, .tv_nsec = ns % NS_PER_SEC };

	return ts;
}

static long long real_now(void)
{
	struct timespec ts;

	__real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}


/* Where a loop that runs away is abandoned: back in run_one(). */
static jmp_buf runaway_jmp;
static const char *runaway_what;

/* The loop made far more calls than asked: leave it (its frames are abandoned). */
static void shim_runaway(const char *what)
{
	shim.mode = SHIM_OFF;
	runaway_what = what;
	longjmp(runaway_jmp, 1);
}

/* xorshift64*: the same lateness for the same seed, no libc state. */
static uint64_t shim_random(void)
{
	uint64_t x = shim.rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	shim.rng = x;
	return x * 2685821657736338717ull;
}

static long long fake_lateness(void)
{
	uint64_t x = shim_random();

	if ((x >> 33) % 101 == 0)
		return 300000 + (long long)(x % 100000);
	return 2000 + (long long)(x % 48000);
}

static struct sleep_rec *shim_add(char kind, int clk)
{
	struct sleep_rec *r;

	if (shim.nrec >= shim.cap)
		shim_runaway("sleeps");
	r = &shim.rec[shim.nrec++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->clk = clk;
	return r;
}

/*
 * Fake mode with interruptions: whether this sleep until @target is cut
 * short by a signal. Then it wakes part of the way there, the record's kind
 * turns lower case, and true is returned: the caller reports EINTR.
 */
static bool shim_interrupted(struct sleep_rec *r, long long target)
{
	uint64_t x;

	if (shim.mode != SHIM_FAKE || !shim.intr || shim.last_intr || target <= shim.now) {
		shim.last_intr = 0;
		return false;
	}
	x = shim_random();
	if ((x >> 29) % shim.intr) {
		shim.last_intr = 0;
		return false;
	}
	shim.last_intr = 1;
	r->kind = (char)(r->kind - 'A' + 'a');
	r->target = target - shim.base;
	shim.now += (long long)((x >> 7) % (uint64_t)(target - shim.now));
	r->woke = shim.now - shim.base;
	shim.waiting_read = 1;
	return true;
}

/* One sleep until @target (ns, the shim's clock); returns when it woke. */
static long long shim_sleep_until(struct sleep_rec *r, long long target)
{
	long long woke;

	r->target = target - shim.base;
	if (shim.mode == SHIM_FAKE) {
		woke = (target > shim.now ? target : shim.now) + fake_lateness();
		shim.now = woke;
	} else {
		struct timespec ts = ns_ts(target);

		/*
		 * A sleep on another clock, or far beyond one period ahead, is
		 * recorded but not slept: it would only run into the time limit.
		 */
		if (r->clk == (int)shim.clk && target <= real_now() + shim.max_ahead)
			while (__real_clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
						      NULL) == EINTR)
				;
		woke = real_now();
	}
	r->woke = woke - shim.base;
	shim.waiting_read = 1;
	return woke;
}

static long long shim_now(void)
{
	return shim.mode == SHIM_FAKE ? shim.now : real_now();
}

static int bad_ts(const struct timespec *ts)
{
	return !ts || ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= NS_PER_SEC;
}

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	long long now;

	if (shim.mode == SHIM_OFF)
		return __real_clock_gettime(clk, ts);
	if (++shim.reads > shim.read_cap)
		shim_runaway("clock reads");
	if (clk != shim.clk)
		shim.wrong_clock++;
	if (!ts) {
		errno = EFAULT;
		return -1;
	}
	now = shim_now();
	*ts = ns_ts(clk == shim.clk ? now : now + WRONG_CLOCK_OFFSET);
	if (shim.waiting_read && shim.nrec) {
		shim.rec[shim.nrec - 1].read = now - shim.base;
		shim.rec[shim.nrec - 1].has_read = 1;
		shim.waiting_read = 0;
	}
	return 0;
}

int __wrap_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			   struct timespec *rem)
{
	struct sleep_rec *r;
	long long target;

	if (shim.mode == SHIM_OFF)
		return __real_clock_nanosleep(clk, flags, req, rem);
	if (bad_ts(req)) {
		r = shim_add('E', (int)clk);
		r->target = req ? (long long)req->tv_sec : 0;
		r->woke = req ? (long long)req->tv_nsec : 0;
		return req ? EINVAL : EFAULT;
	}
	r = shim_add(flags & TIMER_ABSTIME ? 'A' : 'R', (int)clk);
	target = flags & TIMER_ABSTIME ? ts_ns(req) : shim_now() + ts_ns(req);
	if (shim_interrupted(r, target)) {
		if (rem && !(flags & TIMER_ABSTIME))
			*rem = ns_ts(target - shim.now);
		return EINTR;
	}
	shim_sleep_until(r, target);
	return 0;
}

int __wrap_nanosleep(const struct timespec *req, struct timespec *rem)
{
	struct sleep_rec *r;
	long long target;

	if (shim.mode == SHIM_OFF)
		return __real_nanosleep(req, rem);
	if (bad_ts(req)) {
		r = shim_add('E', (int)CLOCK_MONOTONIC);
		r->target = req ? (long long)req->tv_sec : 0;
		r->woke = req ? (long long)req->tv_nsec : 0;
		errno = EINVAL;
		return -1;
	}
	r = shim_add('N', (int)CLOCK_MONOTONIC);
	target = shim_now() + ts_ns(req);
	if (shim_interrupted(r, target)) {
		if (rem)
			*rem = ns_ts(target - shim.now);
		errno = EINTR;
		return -1;
	}
	shim_sleep_until(r, target);
	return 0;
}

int __wrap_usleep(useconds_t us)
{
	if (shim.mode == SHIM_OFF)
		return __real_usleep(us);
	shim_sleep_until(shim_add('U', (int)CLOCK_MONOTONIC), shim_now() + (long long)us * 1000);
	return 0;
}

unsigned int __wrap_sleep(unsigned int s)
{
	if (shim.mode == SHIM_OFF)
		return __real_sleep(s);
	shim_sleep_until(shim_add('S', (int)CLOCK_MONOTONIC), shim_now() + (long long)s * NS_PER_SEC);
	return 0;
}

static void print_results(int rc, const long long *lat, size_t loops)
{
	if (rc != INT_MIN)
		printf("rc %d\n", rc);
	for (size_t i = 0; i < shim.nrec; i++) {
		const struct sleep_rec *r = &shim.rec[i];

		if (r->kind == 'E') {
			printf("P E %d %lld.%lld - -\n", r->clk, r->target, r->woke);
			continue;
		}
		printf("P %c %d %lld %lld ", r->kind, r->clk, r->target, r->woke);
		if (r->has_read)
			printf("%lld\n", r->read);
		else
			printf("-\n");
	}
	for (size_t i = 0; i < loops; i++) {
		if (lat[i] == LLONG_MIN)
			printf("L -\n");
		else
			printf("L %lld\n", lat[i]);
	}
	printf("reads %llu wrong-clock %llu\n", shim.reads, shim.wrong_clock);
}

/* One run of the learner's loop: "run K" and its lines. */
static int run_one(enum shim_mode mode, unsigned int k, long long period, unsigned long long loops,
		   unsigned long long seed, long long t0, unsigned int intr)
{
	long long *lat;
	int rc;

	if (period <= 0 || period > 10 * NS_PER_SEC || !loops || loops > MAX_LOOPS)
		return 2;
	lat = malloc(loops * sizeof(*lat));
	free(shim.rec);
	shim.cap = (intr ? 2 * loops : loops) + 64;	/* an interrupted sleep is repeated */
	shim.rec = calloc(shim.cap, sizeof(*shim.rec));
	if (!lat || !shim.rec)
		return 3;
	for (size_t i = 0; i < loops; i++)
		lat[i] = LLONG_MIN;
	shim.nrec = 0;
	shim.reads = shim.wrong_clock = 0;
	shim.waiting_read = 0;
	shim.clk = CLOCK_MONOTONIC;
	shim.rng = seed | 1;
	shim.intr = intr;
	shim.last_intr = 0;
	shim.read_cap = 16 * loops + 1024;
	shim.max_ahead = period + NS_PER_SEC / 10;
	shim.base = mode == SHIM_FAKE ? t0 : real_now();
	shim.now = t0;
	printf("run %u\n", k);
	if (setjmp(runaway_jmp)) {
		printf("runaway %s\n", runaway_what);
		print_results(INT_MIN, lat, 0);
		free(lat);
		return 0;	/* what the loop allocated is lost: bounded by the rlimits */
	}
	shim.mode = mode;
	rc = probe_loop_run(CLOCK_MONOTONIC, period, (size_t)loops, lat);
	shim.mode = SHIM_OFF;
	print_results(rc, lat, (size_t)loops);
	free(lat);
	return 0;
}

/*
 * "subject run": one command per line of stdin (at most MAX_LINES), run in
 * order. The results of "add" and "diff" are printed as they come; "fake"
 * and "real" each print "run K" and the loop's lines.
 */
static int run_commands(void)
{
	char line[256];
	unsigned int n = 0, k = 0;

	while (n++ < MAX_LINES && fgets(line, sizeof(line), stdin)) {
		long long a, b, c, d, e, f = 0;
		struct timespec x, y;
		int ret = 0;

		if (sscanf(line, "add %lld %lld %lld", &a, &b, &c) == 3) {
			x.tv_sec = (time_t)a;
			x.tv_nsec = (long)b;
			probe_ts_add_ns(&x, c);
			printf("add %lld %lld\n", (long long)x.tv_sec, (long long)x.tv_nsec);
		} else if (sscanf(line, "diff %lld %lld %lld %lld", &a, &b, &c, &d) == 4) {
			x.tv_sec = (time_t)a;
			x.tv_nsec = (long)b;
			y.tv_sec = (time_t)c;
			y.tv_nsec = (long)d;
			printf("diff %lld\n", probe_ts_diff_ns(&x, &y));
		} else if (sscanf(line, "fake %lld %lld %lld %lld %lld %lld", &a, &b, &c, &d, &e,
				  &f) >= 5) {
			if (f < 0 || f > 1000)
				return 2;
			ret = run_one(SHIM_FAKE, ++k, a, (unsigned long long)b,
				      (unsigned long long)c, d * NS_PER_SEC + e, (unsigned int)f);
		} else if (sscanf(line, "real %lld %lld", &a, &b) == 2) {
			ret = run_one(SHIM_REAL, ++k, a, (unsigned long long)b, 1, 0, 0);
		} else {
			return 2;
		}
		if (ret)
			return ret;
		/* What came before a crash must reach the check program. */
		fflush(stdout);
	}
	return 0;
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * The memory modes. Each stops itself (raise(SIGSTOP)) where the runner
 * reads VmLck; they print the same lines, so their heaps grow alike.
 */
static int run_memory(const char *what)
{
	int rc = 0;

	if (!strncmp(what, "lock-", 5)) {
		if (!map_anon(1u << 20))
			return 3;
		if (!strcmp(what, "lock-base"))
			rc = mlockall(MCL_CURRENT) ? -errno : 0;
		else if (!strcmp(what, "lock-now") || !strcmp(what, "lock-later"))
			rc = probe_memory_prepare();
		else
			return 2;
		printf("prepare %d\n", rc);
		if (!strcmp(what, "lock-later"))
			printf("map %s\n", map_anon(2u << 20) ? "ok" : "failed");
	} else {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
			printf("prepare %d\n", -errno);
			return 0;
		}
		if (!strcmp(what, "stack"))
			rc = probe_memory_prepare();
		else if (strcmp(what, "stack-base"))
			return 2;
		printf("prepare %d\n", rc);
	}
	fflush(stdout);
	raise(SIGSTOP);
	return 0;
}

int main(int argc, char **argv)
{
	static char outbuf[1 << 16];

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* Whatever the learner's code printed before main() stays above this line. */
	printf("begin\n");
	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "run"))
		return run_commands();
	return run_memory(argv[1]);
}
