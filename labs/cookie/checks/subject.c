/*
 * subject.c: the untrusted driver of the cookie exercise, linked with the
 * learner's cookie.c (protocol_start, diner_turn). One request on the
 * command line, the facts on stdout, one a line; check_cookie.c judges.
 *
 *   threads DINERS COOKIES   the diners on real threads until COOKIES are
 *                            baked: "produced N", "consumed N", "lost N",
 *                            "duplicated N", "left N", "eaten N N ..."
 *   replay SCHEDULE          the replay stepper (cookie_step.h) on two
 *                            diners: "steps N", "consumed N", "lost N",
 *                            "duplicated N", "eaten N N"
 *   search SEATS LEN         every schedule of SEATS diners up to LEN
 *                            steps: "bad SCHEDULE" or "none"
 *
 * The plate for threads is built on C11 atomics only (no inline assembly),
 * so that the same file built with clang -fsanitize=thread (tsan.sh) lets
 * ThreadSanitizer see every access: a report is the learner's own shared
 * state, touched without an atomic or the hand-over between.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cookie.h"
#include "cookie_step.h"

#define DINERS_MAX 16u

struct thr_table {
	struct cookie_table t;
	_Atomic uint64_t plate;
	_Atomic uint64_t next_serial;
	_Atomic int done;
	_Atomic int go;
	_Atomic uint16_t *tally;
	uint64_t cap;
	_Atomic uint32_t inbox[DINERS_MAX];	/* plates passed to each seat, not yet taken */
	uint64_t eaten[DINERS_MAX];		/* each written by its own diner only */
};

static uint64_t thr_take(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	uint64_t s = atomic_load_explicit(&tab->plate, memory_order_relaxed);

	if (s && s < tab->cap) {
		atomic_fetch_add_explicit(&tab->tally[s], 1, memory_order_relaxed);
		tab->eaten[seat]++;
	}
	return s;
}

static void thr_put(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;
	uint64_t s = atomic_fetch_add_explicit(&tab->next_serial, 1, memory_order_relaxed);

	(void)seat;
	if (s >= tab->cap) {
		atomic_store_explicit(&tab->plate, 0, memory_order_relaxed);
		atomic_store(&tab->done, 1);
		return;
	}
	atomic_store_explicit(&tab->plate, s, memory_order_relaxed);
}

static bool thr_here(struct cookie_table *t, unsigned int seat)
{
	struct thr_table *tab = (struct thr_table *)t;

	if (seat >= DINERS_MAX || !atomic_load_explicit(&tab->inbox[seat], memory_order_acquire))
		return false;
	atomic_fetch_sub_explicit(&tab->inbox[seat], 1, memory_order_acq_rel);
	return true;
}

static void thr_pass(struct cookie_table *t, unsigned int seat, unsigned int to)
{
	struct thr_table *tab = (struct thr_table *)t;

	(void)seat;
	if (to < t->seats)
		atomic_fetch_add_explicit(&tab->inbox[to], 1, memory_order_release);
}

static const struct cookie_table_ops thr_ops = { thr_take, thr_put, thr_here, thr_pass };

#define SPIN_TURNS 32u	/* empty turns before a diner yields its CPU */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

struct diner {
	struct thr_table *tab;
	unsigned int seat;
	unsigned int spin;	/* empty turns before yielding: 0 when diners outnumber CPUs */
};

static void *diner_main(void *arg)
{
	struct diner *d = arg;

	unsigned int idle = 0;

	while (!atomic_load(&d->tab->go))
		sched_yield();
	/*
	 * A turn without a cookie: try again a few times when every diner has a
	 * CPU (the plate is on its way from a diner on another one), then let the
	 * others run: the holder may be waiting for a CPU. Yielding at once
	 * costs a system call per empty turn; spinning while diners wait for a
	 * CPU starves the holder.
	 */
	while (!atomic_load_explicit(&d->tab->done, memory_order_relaxed)) {
		if (diner_turn(&d->tab->t, d->seat) > 0) {
			idle = 0;
		} else if (++idle < d->spin) {
			cpu_relax();
		} else {
			idle = 0;
			sched_yield();
		}
	}
	return NULL;
}

static int run_threads(unsigned int diners, uint64_t cookies)
{
	struct thr_table *tab = calloc(1, sizeof(*tab));
	struct diner d[DINERS_MAX];
	pthread_t th[DINERS_MAX];
	uint64_t consumed = 0, lost = 0, dup = 0, last;

	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (!tab || diners < 2 || diners > DINERS_MAX || cookies < 2)
		return 2;
	tab->t.ops = &thr_ops;
	tab->t.seats = diners;
	tab->cap = cookies + 1;
	tab->tally = calloc(tab->cap, sizeof(*tab->tally));
	if (!tab->tally)
		return 2;
	atomic_store(&tab->plate, 1);
	atomic_store(&tab->next_serial, 2);
	protocol_start(&tab->t);
	for (unsigned int i = 0; i < diners; i++) {
		d[i] = (struct diner){ tab, i, (long)diners <= cpus ? SPIN_TURNS : 0 };
		if (pthread_create(&th[i], NULL, diner_main, &d[i]))
			return 2;
	}
	atomic_store(&tab->go, 1);
	for (unsigned int i = 0; i < diners; i++)
		pthread_join(th[i], NULL);
	last = atomic_load(&tab->plate);
	for (uint64_t s = 1; s < tab->cap; s++) {
		unsigned int n = atomic_load_explicit(&tab->tally[s], memory_order_relaxed);

		consumed += n;
		if (n > 1)
			dup += n - 1;
		else if (!n && s != last)
			lost++;
	}
	printf("produced %llu\nconsumed %llu\nlost %llu\nduplicated %llu\nleft %d\neaten",
	       (unsigned long long)cookies, (unsigned long long)consumed,
	       (unsigned long long)lost, (unsigned long long)dup,
	       last && !atomic_load(&tab->tally[last]));
	for (unsigned int i = 0; i < diners; i++)
		printf(" %llu", (unsigned long long)tab->eaten[i]);
	printf("\n");
	free(tab->tally);
	free(tab);
	return 0;
}

static const struct cookie_proto learner = { protocol_start, diner_turn };

static int run_replay(const char *text)
{
	static uint8_t sched[COOKIE_SCHEDULE_MAX];
	static struct cookie_step st;
	char why[128];
	size_t n;
	int ret;

	if (cookie_schedule_parse(text, 2, sched, sizeof(sched), &n, why, sizeof(why))) {
		printf("error %s\n", why);
		return 2;
	}
	ret = cookie_step_init(&st, &learner, 2, n + 2);
	if (!ret)
		ret = cookie_step_replay(&st, sched, n);
	if (ret && ret != -ENOSPC) {
		printf("error %d\n", ret);
		return 2;
	}
	printf("steps %llu\nconsumed %llu\nlost %llu\nduplicated %llu\neaten %llu %llu\n",
	       (unsigned long long)st.steps, (unsigned long long)st.consumed,
	       (unsigned long long)st.lost, (unsigned long long)st.duplicated,
	       (unsigned long long)st.eaten_by[0], (unsigned long long)st.eaten_by[1]);
	cookie_step_fini(&st);
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
	if (argc == 4 && !strcmp(argv[1], "threads"))
		return run_threads((unsigned int)atoi(argv[2]), strtoull(argv[3], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "replay"))
		return run_replay(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "search"))
		return run_search((unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[3]));
	fprintf(stderr, "usage: subject threads DINERS COOKIES | replay SCHEDULE | "
		"search SEATS LEN\n");
	return 2;
}
