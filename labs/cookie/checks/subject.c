/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subject.c: the untrusted driver of the cookie exercise, linked with the
 * learner's cookie.c (protocol_start, diner_turn). One request on the
 * command line, the facts on stdout, one a line; check_cookie.c judges.
 *
 *   threads DINERS COOKIES [FLOOR MS]
 *       the diners on real threads until COOKIES are baked, or, with FLOOR
 *       and MS, until at least FLOOR are and MS milliseconds have passed
 *       (a loaded machine does less work, never too little): "produced N"
 *       (cookies baked), "consumed N", "lost N", "duplicated N", "left N",
 *       "stalled 0|1", "misreported N", "eaten N N ..."
 *   replay SEATS SCHEDULE...
 *       the replay stepper (cookie_step.h) on SEATS diners, each schedule
 *       from the start, one line each: "replay STEPS CONSUMED LOST
 *       DUPLICATED MISREPORTED eaten N N ..."
 *   search SEATS LEN
 *       every schedule of SEATS diners up to LEN steps: "bad SCHEDULE" or
 *       "none"
 *
 * "misreported" counts the turns whose return value was not the number of
 * cookies they ate. "stalled 1": the plate went missing (every diner was
 * told "not here" again and again, no seat had it in its inbox and no
 * cookie was baked for a while), so the run was ended instead of hanging.
 *
 * The plate for threads is built on C11 atomics only (no inline assembly),
 * so that the same file built with clang -fsanitize=thread (tsan.sh) lets
 * ThreadSanitizer see every access: a report is the learner's own shared
 * state, touched without an atomic or the hand-over between.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sched_setaffinity(), CPU_SET */
#endif
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cookie.h"
#include "cookie_step.h"

#define DINERS_MAX 16u
#define SPIN_TURNS 4096u	/* empty turns before a diner naps, when each has a CPU */
#define NAP_NS 2000000L		/* the longest nap waiting for the plate */
#define WATCH_NS 2000000L	/* the watchdog's period */
#define STALL_WATCHES 50u	/* watches without a cookie baked before a stall counts */
#define STALL_NAPS 3u		/* naps in a row each diner must have had then */

/* A seat of the threads' table, a cache line of its own. */
struct seat {
	_Atomic uint32_t inbox;		/* plates passed to the seat, not yet taken */
	_Atomic uint32_t napping;	/* its diner sleeps on the inbox */
	_Atomic uint32_t naps;		/* its diner's turns in a row that ended in a nap */
	uint64_t eaten;			/* written by its own diner only */
} __attribute__((aligned(64)));

struct thr_table {
	struct cookie_table t;
	_Atomic uint64_t plate;
	_Atomic uint64_t next_serial;
	_Atomic uint64_t baked;		/* cookies put on the plate, the first one too */
	_Atomic int done;
	_Atomic int stop;		/* floor met, time up: the next put ends the run */
	_Atomic int go;
	_Atomic uint16_t *tally;
	uint64_t cap;
	struct seat seat[DINERS_MAX];
};

struct diner {
	struct thr_table *tab;
	unsigned int seat;
	unsigned int spin;	/* empty turns before napping: 0 when diners outnumber CPUs */
	int cpu;		/* the CPU it keeps to, or -1 */
	uint64_t misreported;
};

/*
 * The diner of this thread, for the plate operations: plate_here() tells
 * it whether the turn found the plate missing (then the diner may sleep
 * until something is passed to its seat).
 */
static _Thread_local struct diner *me;
static _Thread_local bool told_no;

static long futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* The run is over: every diner leaves its loop, the napping ones woken. */
static void thr_end(struct thr_table *tab)
{
	atomic_store(&tab->done, 1);
	for (unsigned int i = 0; i < tab->t.seats; i++)
		futex(&tab->seat[i].inbox, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

static uint64_t thr_take(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	uint64_t s = atomic_load_explicit(&tab->plate, memory_order_relaxed);

	if (s && s < tab->cap) {
		atomic_fetch_add_explicit(&tab->tally[s], 1, memory_order_relaxed);
		if (seat < DINERS_MAX)
			tab->seat[seat].eaten++;
	}
	return s;
}

static void thr_put(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	uint64_t s = atomic_fetch_add_explicit(&tab->next_serial, 1, memory_order_relaxed);

	(void)seat;
	if (s >= tab->cap || atomic_load_explicit(&tab->stop, memory_order_relaxed)) {
		atomic_store_explicit(&tab->plate, 0, memory_order_relaxed);
		thr_end(tab);
		return;
	}
	atomic_fetch_add_explicit(&tab->baked, 1, memory_order_relaxed);
	atomic_store_explicit(&tab->plate, s, memory_order_relaxed);
}

static bool thr_here(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;

	if (seat >= DINERS_MAX ||
	    !atomic_load_explicit(&tab->seat[seat].inbox, memory_order_acquire)) {
		told_no = true;
		return false;
	}
	/*
	 * A holder is not waiting, however long it waited before: cleared
	 * before the plate leaves the inbox, as the watchdog (stalled()) reads
	 * the inboxes first.
	 */
	if (me && atomic_load_explicit(&tab->seat[me->seat].naps, memory_order_relaxed))
		atomic_store(&tab->seat[me->seat].naps, 0);
	atomic_fetch_sub(&tab->seat[seat].inbox, 1);
	return true;
}

static void thr_pass(struct cookie_table *t, unsigned int seat, unsigned int to)
{
	struct thr_table *tab = (struct thr_table *)t;

	(void)seat;
	if (to >= t->seats)
		return;
	/*
	 * Sequentially consistent, as the nap's store and load are: either the
	 * napper sees this plate before it sleeps or we see it napping.
	 */
	atomic_fetch_add(&tab->seat[to].inbox, 1);
	if (atomic_load(&tab->seat[to].napping))
		futex(&tab->seat[to].inbox, FUTEX_WAKE_PRIVATE, 1, NULL);
}

static const struct cookie_table_ops thr_ops = { thr_take, thr_put, thr_here, thr_pass };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/*
 * Sleep until a plate is passed to @seat (or NAP_NS, or the end). Asleep,
 * a diner leaves its CPU to whoever has the plate: on a loaded machine a
 * diner that spins or yields instead keeps the holder waiting for a CPU,
 * and each hand-over costs a scheduler time slice (a sched_yield() only
 * moves the yielder behind every other task, the holder and all the
 * machine's other work alike).
 */
static void nap(struct thr_table *tab, struct seat *s)
{
	static const struct timespec ts = { 0, NAP_NS };

	atomic_store(&s->napping, 1);
	if (!atomic_load(&s->inbox) && !atomic_load(&tab->done))
		futex(&s->inbox, FUTEX_WAIT_PRIVATE, 0, &ts);
	atomic_store(&s->napping, 0);
}

static void *diner_main(void *arg)
{
	struct diner *d = arg;
	struct thr_table *tab = d->tab;
	struct seat *s = &tab->seat[d->seat];
	unsigned int idle = 0;

	me = d;
	if (d->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(d->cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);	/* a hint: refused is fine */
	}
	while (!atomic_load(&tab->go))
		sched_yield();
	/*
	 * A turn without a cookie: while every diner has a CPU of its own, try
	 * again for a while (the plate is on its way from a diner running on
	 * another CPU: a hand-over costs a cache line, not a system call; and
	 * on a loaded machine a diner that spins is on its CPU when the plate
	 * comes, while one that naps must wait to be scheduled again), then nap
	 * until the plate comes. A turn that never asked for the plate (a
	 * protocol of its own) yields instead.
	 */
	while (!atomic_load_explicit(&tab->done, memory_order_relaxed)) {
		uint64_t before = s->eaten;
		long long ate;
		int r;

		told_no = false;
		r = diner_turn(&tab->t, d->seat);
		ate = (long long)(s->eaten - before);
		if (r != ate)
			d->misreported++;
		if ((r > 0 || ate > 0 || !told_no) &&
		    atomic_load_explicit(&s->naps, memory_order_relaxed))
			atomic_store(&s->naps, 0);
		if (r > 0 || ate > 0) {
			idle = 0;
			continue;
		}
		if (++idle < d->spin) {
			cpu_relax();
			continue;
		}
		idle = 0;
		if (told_no) {
			atomic_fetch_add(&s->naps, 1);
			nap(tab, s);
		} else {
			sched_yield();
		}
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The plate looks lost: no inbox holds it and every diner's last
 * STALL_NAPS turns or more were told "not here" and napped. A diner that
 * holds the plate never counts as napping (thr_here() clears its count
 * before it empties the inbox, and the inboxes are read first), so a
 * holder that waits for a CPU, however long, never looks lost.
 */
static bool stalled(struct thr_table *tab)
{
	for (unsigned int i = 0; i < tab->t.seats; i++)
		if (atomic_load(&tab->seat[i].inbox))
			return false;
	for (unsigned int i = 0; i < tab->t.seats; i++)
		if (atomic_load(&tab->seat[i].naps) < STALL_NAPS)
			return false;
	return true;
}

/*
 * The main thread watches while the diners eat: it ends a run whose plate
 * looked lost for STALL_WATCHES watches in a row with no cookie baked
 * (code that would hang fails in a fraction of a second instead), and,
 * given a floor, one that has baked at least the floor and lasted @ms.
 * Returns true when it ended a stalled run.
 */
static bool watch(struct thr_table *tab, uint64_t floor, unsigned int ms)
{
	static const struct timespec tick = { 0, WATCH_NS };
	double start = now_s();
	uint64_t last = atomic_load(&tab->next_serial);
	unsigned int still = 0;

	while (!atomic_load(&tab->done)) {
		uint64_t s;

		nanosleep(&tick, NULL);
		if (floor && !atomic_load(&tab->stop) && atomic_load(&tab->baked) >= floor &&
		    (now_s() - start) * 1000.0 >= ms)
			atomic_store(&tab->stop, 1);
		s = atomic_load(&tab->next_serial);
		if (s != last || !stalled(tab)) {
			last = s;
			still = 0;
		} else if (++still >= STALL_WATCHES) {
			thr_end(tab);
			return true;
		}
	}
	return false;
}

/* The CPUs this process may use, up to @max of them, into @cpus; how many. */
static unsigned int allowed_cpus(int *cpus, unsigned int max)
{
	cpu_set_t set;
	unsigned int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

static int run_threads(unsigned int diners, uint64_t cookies, uint64_t floor, unsigned int ms)
{
	struct thr_table *tab = aligned_alloc(64, sizeof(struct thr_table));
	struct diner d[DINERS_MAX];
	pthread_t th[DINERS_MAX];
	int cpus[DINERS_MAX];
	unsigned int ncpus = allowed_cpus(cpus, DINERS_MAX);
	uint64_t consumed = 0, distinct = 0, dup = 0, baked, last, misreported = 0;
	bool stall, left;

	if (!tab || diners < 2 || diners > DINERS_MAX || cookies < 2)
		return 2;
	memset(tab, 0, sizeof(*tab));
	tab->t.ops = &thr_ops;
	tab->t.seats = diners;
	tab->cap = cookies + 1;
	tab->tally = calloc(tab->cap, sizeof(*tab->tally));
	if (!tab->tally)
		return 2;
	atomic_store(&tab->plate, 1);
	atomic_store(&tab->next_serial, 2);
	atomic_store(&tab->baked, 1);
	protocol_start(&tab->t);
	/*
	 * When every diner can have a CPU, each keeps to its own: two diners
	 * the scheduler put on one CPU would only spin while the other waits
	 * to run.
	 */
	for (unsigned int i = 0; i < diners; i++) {
		bool own = ncpus >= diners;

		d[i] = (struct diner){ tab, i, own ? SPIN_TURNS : 0, own ? cpus[i] : -1, 0 };
		if (pthread_create(&th[i], NULL, diner_main, &d[i]))
			return 2;
	}
	atomic_store(&tab->go, 1);
	stall = watch(tab, floor < cookies ? floor : 0, ms);
	for (unsigned int i = 0; i < diners; i++) {
		pthread_join(th[i], NULL);
		misreported += d[i].misreported;
	}
	last = atomic_load(&tab->plate);
	baked = atomic_load(&tab->baked);
	for (uint64_t s = 1; s < tab->cap; s++) {
		unsigned int n = atomic_load_explicit(&tab->tally[s], memory_order_relaxed);

		consumed += n;
		distinct += n > 0;
		if (n > 1)
			dup += n - 1;
	}
	left = last && last < tab->cap && !atomic_load(&tab->tally[last]);
	printf("produced %llu\nconsumed %llu\nlost %llu\nduplicated %llu\nleft %d\n"
	       "stalled %d\nmisreported %llu\neaten",
	       (unsigned long long)baked, (unsigned long long)consumed,
	       (unsigned long long)(baked - distinct - left), (unsigned long long)dup, left,
	       stall, (unsigned long long)misreported);
	for (unsigned int i = 0; i < diners; i++)
		printf(" %llu", (unsigned long long)tab->seat[i].eaten);
	printf("\n");
	free(tab->tally);
	free(tab);
	return 0;
}

static const struct cookie_proto learner = { protocol_start, diner_turn };

static int run_replay(unsigned int seats, char **scheds, int n)
{
	static uint8_t sched[COOKIE_SCHEDULE_MAX];
	static struct cookie_step st;
	char why[128];
	int ret = 0;

	for (int k = 0; !ret && k < n; k++) {
		size_t len;

		if (cookie_schedule_parse(scheds[k], seats, sched, sizeof(sched), &len, why,
					  sizeof(why))) {
			printf("error %s\n", why);
			return 2;
		}
		ret = cookie_step_init(&st, &learner, seats, len + 2);
		if (!ret)
			ret = cookie_step_replay(&st, sched, len);
		if (ret == -ENOSPC)
			ret = 0;
		if (ret) {
			printf("error %d\n", ret);
			cookie_step_fini(&st);
			return 2;
		}
		printf("replay %llu %llu %llu %llu %llu eaten", (unsigned long long)st.steps,
		       (unsigned long long)st.consumed, (unsigned long long)st.lost,
		       (unsigned long long)st.duplicated, (unsigned long long)st.misreported);
		for (unsigned int i = 0; i < seats; i++)
			printf(" %llu", (unsigned long long)st.eaten_by[i]);
		printf("\n");
		cookie_step_fini(&st);
	}
	return 0;
}

static int run_search(unsigned int seats, unsigned int len)
{
	static struct cookie_step st;
	uint8_t s[24];
	size_t n = 0;
	int ret = cookie_step_init(&st, &learner, seats, len + 2);

	if (!ret)
		ret = cookie_step_search(&st, len, COOKIE_BAD_ANY, s, &n);
	if (ret < 0) {
		printf("error %d\n", ret);
		return 2;
	}
	if (ret) {
		printf("bad ");
		for (size_t i = 0; i < n; i++)
			printf("%u", s[i]);
		printf("\n");
	} else {
		printf("none\n");
	}
	cookie_step_fini(&st);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "threads"))
		return run_threads((unsigned int)atoi(argv[2]), strtoull(argv[3], NULL, 10),
				   argc == 6 ? strtoull(argv[4], NULL, 10) : 0,
				   argc == 6 ? (unsigned int)atoi(argv[5]) : 0);
	if (argc >= 4 && !strcmp(argv[1], "replay"))
		return run_replay((unsigned int)atoi(argv[2]), argv + 3, argc - 3);
	if (argc == 4 && !strcmp(argv[1], "search"))
		return run_search((unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[3]));
	fprintf(stderr, "usage: subject threads DINERS COOKIES [FLOOR MS] | "
		"replay SEATS SCHEDULE... | search SEATS LEN\n");
	return 2;
}
