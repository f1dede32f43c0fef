/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe_loop.c: the measuring loop of a cyclictest-like latency probe. Your
 * part of the latency lab's exercise (labs/latency/README.md, "Exercise").
 *
 * probe_loop.h says what each function must do; lesson 03 ("How cyclictest
 * measures") shows the loop. Write the four functions below, then run
 * `rtlab grade latency` (or `rtlab grade latency --work DIR`): each check
 * that fails says what it expected and gives a hint.
 */
#include "probe_loop.h"

#include <errno.h>
#include <sys/mman.h>

void probe_ts_add_ns(struct timespec *ts, long long ns)
{
	/* TODO: add @ns to @ts; keep 0 <= tv_nsec < PROBE_NSEC_PER_SEC. */
	(void)ts;
	(void)ns;
}

long long probe_ts_diff_ns(const struct timespec *a, const struct timespec *b)
{
	/* TODO: a - b in nanoseconds. */
	(void)a;
	(void)b;
	return 0;
}

int probe_memory_prepare(void)
{
	/* TODO: lock memory (now and later), then touch PROBE_PREFAULT_STACK of stack. */
	return -ENOSYS;
}

int probe_loop_run(clockid_t clk, long long period_ns, size_t loops, long long *latency_ns)
{
	/*
	 * TODO: read the clock once; then, @loops times: move the planned time
	 * on by one period, sleep until it, read the clock, record the latency.
	 */
	(void)clk;
	(void)period_ns;
	(void)loops;
	(void)latency_ns;
	return -ENOSYS;
}
