/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lab_taskset_rta: the analysis side of the task-set lab, a pure function
 * of the set (lab_taskset.h): utilisation, Liu and Layland's bound,
 * response-time analysis with a blocking term, and the parser of a set
 * given on the command line. Nothing here reads a clock.
 *
 * The blocking term follows the classic result for one shared lock: under
 * priority inheritance a task is blocked at most once per lock by a lower
 * task's critical section (directly, or pushed through when the holder has
 * inherited a priority above it), and under the ceiling protocol at most
 * once in all; with one lock both give the longest lower critical section
 * on a lock whose ceiling is at or above the task. A plain mutex gives no
 * bound: while a lower user holds the lock, every task between it and the
 * waiter runs first.
 */
#include "lab_taskset.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_err.h"

const char *const taskset_lock_names[TASKSET_NLOCKS + 1] = {
	"none", "plain", "inherit", "ceiling", NULL,
};

enum taskset_verdict taskset_rta(const struct taskset_task *t, unsigned int i,
				 uint64_t blocking_us, uint64_t *r)
{
	uint64_t base = (uint64_t)t[i].wcet_us + blocking_us, next = base;

	for (unsigned int j = 0; j < i; j++)
		next += t[j].wcet_us;
	for (;;) {
		uint64_t w = base;

		*r = next;
		if (next > t[i].period_us)
			return TASKSET_MISSES;
		for (unsigned int j = 0; j < i; j++)
			w += (next + t[j].period_us - 1) / t[j].period_us * t[j].wcet_us;
		if (w == next)
			return TASKSET_MEETS;
		next = w;
	}
}

uint64_t taskset_blocking(const struct taskset_spec *s, unsigned int i, bool *unbounded)
{
	unsigned int top = s->n, last_lower = s->n;
	uint64_t b = 0;

	if (unbounded)
		*unbounded = false;
	if (s->lock == TASKSET_LOCK_NONE)
		return 0;
	for (unsigned int j = 0; j < s->n; j++) {
		if (!s->t[j].cs_us)
			continue;
		if (top == s->n)
			top = j;
		if (j > i) {
			last_lower = j;
			if (s->t[j].cs_us > b)
				b = s->t[j].cs_us;
		}
	}
	if (top > i || last_lower == s->n)
		return 0;	/* the lock's ceiling is below @i, or no lower user */
	if (s->lock != TASKSET_LOCK_PLAIN)
		return b;
	/* Plain: only a user waits, and bounded only when nobody sits between. */
	if (!s->t[i].cs_us)
		return 0;
	if (unbounded)
		*unbounded = last_lower > i + 1;
	return b;
}

enum taskset_verdict taskset_analyse(const struct taskset_spec *s, unsigned int i,
				     uint64_t *r, uint64_t *b)
{
	bool unbounded;
	uint64_t block = taskset_blocking(s, i, &unbounded);

	if (b)
		*b = block;
	if (unbounded) {
		*r = 0;
		return TASKSET_UNBOUNDED;
	}
	return taskset_rta(s->t, i, block, r);
}

double taskset_ll_bound(unsigned int n)
{
	return n <= 1 ? 1.0 : n * (pow(2.0, 1.0 / n) - 1.0);
}

double taskset_utilisation(const struct taskset_spec *s)
{
	double u = 0;

	for (unsigned int i = 0; i < s->n; i++)
		u += (double)s->t[i].wcet_us / s->t[i].period_us;
	return u;
}

int taskset_prio(unsigned int n, unsigned int i)
{
	return TASKSET_PRIO_LOWEST + (int)(n - 1 - i) * TASKSET_PRIO_STEP;
}

/* ---- A set from the command line ------------------------------------------------- */

/* A decimal number of milliseconds into microseconds, 0..@max_us; the end into @end. */
static int ms_to_us(const char *p, char **end, uint32_t max_us, uint32_t *out)
{
	double v;

	errno = 0;
	v = strtod(p, end);
	if (*end == p || errno || !(v >= 0) || v * 1000.0 > max_us)
		return -EINVAL;
	*out = (uint32_t)llround(v * 1000.0);
	return 0;
}

int taskset_parse(const char *text, struct taskset_spec *s, char **cause)
{
	const char *p = text;
	unsigned int n = 0;

	memset(s->t, 0, sizeof(s->t));
	while (*p) {
		struct taskset_task t = { 0 };
		char *end;

		if (n == TASKSET_MAX)
			return rt_err(cause, -EINVAL, "--tasks: at most %u tasks", TASKSET_MAX);
		if (ms_to_us(p, &end, TASKSET_PERIOD_MAX_US, &t.period_us) || *end != ':' ||
		    ms_to_us(end + 1, &end, TASKSET_PERIOD_MAX_US, &t.wcet_us))
			return rt_err(cause, -EINVAL, "--tasks: task %u is not T:C or T:C:CS in "
				      "milliseconds (\"%s\")", n + 1, text);
		if (*end == ':' && (ms_to_us(end + 1, &end, TASKSET_PERIOD_MAX_US, &t.cs_us) ||
				    !t.cs_us))
			return rt_err(cause, -EINVAL, "--tasks: task %u's critical section is "
				      "not a duration above 0 ms", n + 1);
		if (*end && *end != ',')
			return rt_err(cause, -EINVAL, "--tasks: '%c' after task %u (tasks are "
				      "separated by commas)", *end, n + 1);
		/* Rate monotonic: insert after every task of a shorter or equal period. */
		unsigned int k = n;

		while (k > 0 && s->t[k - 1].period_us > t.period_us) {
			s->t[k] = s->t[k - 1];
			k--;
		}
		s->t[k] = t;
		n++;
		p = *end ? end + 1 : end;
	}
	if (!n)
		return rt_err(cause, -EINVAL, "--tasks: name at least one task, T:C in ms");
	s->n = n;
	return 0;
}

int taskset_check(const struct taskset_spec *s, char **cause)
{
	unsigned int users = 0;
	double u = taskset_utilisation(s);

	for (unsigned int i = 0; i < s->n; i++) {
		const struct taskset_task *t = &s->t[i];

		if (t->period_us < TASKSET_PERIOD_MIN_US)
			return rt_err(cause, -EINVAL, "task %u: period %.3g ms is below 1 ms "
				      "(the machine's noise would be most of it)", i + 1,
				      t->period_us / 1000.0);
		if (t->wcet_us < TASKSET_WCET_MIN_US || t->wcet_us > t->period_us)
			return rt_err(cause, -EINVAL, "task %u: C must be 0.1 ms to its period "
				      "(%.3g ms)", i + 1, t->period_us / 1000.0);
		if (t->cs_us > t->wcet_us)
			return rt_err(cause, -EINVAL, "task %u: its critical section is longer "
				      "than its C", i + 1);
		users += t->cs_us ? 1 : 0;
	}
	if (u > TASKSET_UTIL_MAX + 1e-9)
		return rt_err(cause, -EINVAL, "the set's utilisation is %.1f %%, above %.0f %%: "
			      "the tasks would take the CPU from everything else on it (and the "
			      "kernel's RT throttle would cut in)", 100 * u,
			      100 * TASKSET_UTIL_MAX);
	if (s->lock != TASKSET_LOCK_NONE && users < 2)
		return rt_err(cause, -EINVAL, "--lock %s: give two tasks a critical section "
			      "(T:C:CS)", taskset_lock_names[s->lock]);
	if (s->lock == TASKSET_LOCK_NONE && users)
		return rt_err(cause, -EINVAL, "a task has a critical section but --lock is "
			      "none: say plain, inherit or ceiling");
	return 0;
}
