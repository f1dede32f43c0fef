/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_taskset: the task-set lab (lesson 15, labs/taskset/README.md). A set
 * of periodic tasks with rate-monotonic priorities, each task's worst-case
 * response time computed by response-time analysis (lab_taskset_rta.c, a
 * pure function of the set) and measured by running the set as SCHED_FIFO
 * threads pinned to one CPU (lab_taskset_run.c), optionally two of them
 * sharing a lock under one of three protocols.
 *
 * Times are microseconds in the set and the analysis, nanoseconds in the
 * measurement. A set lists its tasks in priority order, the highest first
 * (rate monotonic: the shortest period first); a task's deadline is its
 * period.
 */
#ifndef RTLAB_LABS_LAB_TASKSET_H
#define RTLAB_LABS_LAB_TASKSET_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct rt_journal;

#define TASKSET_MAX 8u			/* tasks in a set */
#define TASKSET_PERIOD_MIN_US 1000u	/* 1 ms .. 1 s */
#define TASKSET_PERIOD_MAX_US 1000000u
#define TASKSET_WCET_MIN_US 100u
#define TASKSET_UTIL_MAX 0.90		/* leaves the CPU's other work 10 % (the RT throttle's 5 %) */
#define TASKSET_BUSY_PCT 97u		/* a job spins this share of its C; the rest is the kernel's */
#define TASKSET_PRIO_LOWEST 10		/* SCHED_FIFO priority of the lowest task; +5 a rank */
#define TASKSET_PRIO_STEP 5

enum taskset_lock {
	TASKSET_LOCK_NONE,	/* no lock */
	TASKSET_LOCK_PLAIN,	/* PTHREAD_PRIO_NONE: no bound on the blocking */
	TASKSET_LOCK_INHERIT,	/* PTHREAD_PRIO_INHERIT */
	TASKSET_LOCK_CEILING,	/* PTHREAD_PRIO_PROTECT, ceiling = the highest user's priority */
	TASKSET_NLOCKS
};

/* "none", "plain", "inherit", "ceiling"; NULL-terminated (the option's words). */
extern const char *const taskset_lock_names[TASKSET_NLOCKS + 1];

struct taskset_task {
	uint32_t period_us;	/* T, also the deadline D */
	uint32_t wcet_us;	/* C: the execution time the analysis assumes */
	uint32_t cs_us;		/* time in the lock within C, or 0: it does not use the lock */
	int32_t offset_us;	/* its first release relative to the set's (the lowest lock
				 * user is released just before the others, in its section) */
};

struct taskset_spec {
	unsigned int n;				/* 1 .. TASKSET_MAX */
	struct taskset_task t[TASKSET_MAX];	/* highest priority first */
	enum taskset_lock lock;
};

/* ---- The analysis (lab_taskset_rta.c): pure, no clock, no I/O ------------------- */

/* What the analysis says about one task. */
enum taskset_verdict {
	TASKSET_MEETS,		/* R <= D: *r is the worst-case response time */
	TASKSET_MISSES,		/* the recurrence passed D: *r is the value past it */
	TASKSET_UNBOUNDED,	/* a plain lock: no bound on its blocking */
};

/*
 * taskset_rta - task @i's worst-case response time by response-time analysis
 * @t: the set, highest priority first; tasks 0 .. @i - 1 interfere with @i
 * @blocking_us: B, the longest a lower task can hold @i up (taskset_blocking())
 * @r: the fixed point of R = C + B + sum_{j<i} ceil(R / T_j) C_j, starting
 *     from C + B + sum C_j; or, when an iterate passes D = T, that iterate
 *
 * Returns TASKSET_MEETS or TASKSET_MISSES. R equal to D meets.
 */
enum taskset_verdict taskset_rta(const struct taskset_task *t, unsigned int i,
				 uint64_t blocking_us, uint64_t *r);

/*
 * taskset_blocking - the blocking term B of task @i under @s's lock: the
 * longest critical section of a task below @i on a lock whose ceiling (its
 * highest user's priority) is at or above @i, once: what both inheritance
 * and the ceiling protocol bound it to with one lock. 0 without a lock or a
 * lower user. With a plain lock, @unbounded (may be NULL) says whether @i can
 * be held up without bound: a lower user exists and the ceiling is at or
 * above @i, so every task between them may run while @i waits.
 */
uint64_t taskset_blocking(const struct taskset_spec *s, unsigned int i, bool *unbounded);

/* The verdict for task @i of @s, its blocking term into @b (may be NULL). */
enum taskset_verdict taskset_analyse(const struct taskset_spec *s, unsigned int i,
				     uint64_t *r, uint64_t *b);

/* taskset_ll_bound - Liu and Layland's bound for @n tasks, n (2^(1/n) - 1); 1 for n <= 1 */
double taskset_ll_bound(unsigned int n);

/* taskset_utilisation - sum C / T */
double taskset_utilisation(const struct taskset_spec *s);

/* The SCHED_FIFO priority of task @i of an @n-task set: TASKSET_PRIO_LOWEST for the last. */
int taskset_prio(unsigned int n, unsigned int i);

/*
 * taskset_parse - "T:C[:CS],..." in milliseconds (decimals allowed) into @s's
 * tasks, sorted rate monotonic (shortest period first, stable); a CS marks a
 * lock user. Returns 0 or -EINVAL with @cause naming what is wrong.
 */
int taskset_parse(const char *text, struct taskset_spec *s, char **cause);

/* taskset_check - refuse a set the lab cannot run honestly; 0 or -EINVAL with @cause */
int taskset_check(const struct taskset_spec *s, char **cause);

/* ---- The measurement (lab_taskset_run.c) ---------------------------------------- */

struct taskset_measured {
	uint64_t jobs, misses;		/* jobs completed, those past their deadline */
	uint64_t resp_max_ns, resp_sum_ns;
};

/* What a screen sees while a set runs: written by the run, read with relaxed loads. */
struct taskset_live {
	char scenario[32];
	unsigned int n;
	uint32_t period_us[TASKSET_MAX];
	uint64_t jobs[TASKSET_MAX], misses[TASKSET_MAX], resp_max_ns[TASKSET_MAX];
};

struct taskset_run_opts {
	uint64_t duration_ns;		/* releases stop after this long */
	int cpu;			/* the CPU every task is pinned to; -1: the last online */
	struct rt_journal *journal;	/* the threads' scheduling goes through it; may be NULL */
	const volatile sig_atomic_t *stop;
	struct taskset_live *live;	/* may be NULL */
};

/* taskset_can - may this process run tasks at SCHED_FIFO? 0 or -EPERM with what is missing */
int taskset_can(unsigned int n, char **cause);

/**
 * taskset_run - run @s's tasks as SCHED_FIFO threads on one CPU
 * @m: @s->n entries, filled
 * @cpu: the CPU used
 *
 * Returns 0 (also when stopped early) or a negative errno with @cause.
 */
int taskset_run(const struct taskset_spec *s, const struct taskset_run_opts *o,
		struct taskset_measured *m, int *cpu, char **cause);

#endif
