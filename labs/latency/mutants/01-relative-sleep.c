/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mutant: sleeps for one period (no TIMER_ABSTIME) instead of until the planned time */
/* replaces: probe_loop.c */
/* caught-by: absolute-sleep,no-drift */
/*
 * probe_loop.c: the measuring loop of a cyclictest-like latency probe, the
 * reference solution (teachers only). probe_loop.h says what each function
 * must do; lesson 03 explains why.
 */
#include "probe_loop.h"

#include <errno.h>
#include <sys/mman.h>

void probe_ts_add_ns(struct timespec *ts, long long ns)
{
	long long nsec = (long long)ts->tv_nsec + ns % PROBE_NSEC_PER_SEC;

	ts->tv_sec += ns / PROBE_NSEC_PER_SEC;
	if (nsec >= PROBE_NSEC_PER_SEC) {
		nsec -= PROBE_NSEC_PER_SEC;
		ts->tv_sec++;
	}
	ts->tv_nsec = nsec;
}

long long probe_ts_diff_ns(const struct timespec *a, const struct timespec *b)
{
	return ((long long)a->tv_sec - (long long)b->tv_sec) * PROBE_NSEC_PER_SEC +
	       ((long long)a->tv_nsec - (long long)b->tv_nsec);
}

/*
 * Not inlined, so the array is really on the stack below the caller's frame;
 * volatile, so the compiler cannot drop the writes. One write per page is
 * enough to make each page present.
 */
static __attribute__((noinline)) void prefault_stack(void)
{
	volatile unsigned char buf[PROBE_PREFAULT_STACK];

	for (size_t i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

int probe_memory_prepare(void)
{
	int ret = 0;

	/* MCL_FUTURE too: the stack grows and buffers come after this call. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
		ret = -errno;
	prefault_stack();
	return ret;
}

int probe_loop_run(clockid_t clk, long long period_ns, size_t loops, long long *latency_ns)
{
	struct timespec next, now, len = { period_ns / PROBE_NSEC_PER_SEC,
					   period_ns % PROBE_NSEC_PER_SEC };
	int err;

	if (period_ns <= 0 || (loops && !latency_ns))
		return -EINVAL;
	if (clock_gettime(clk, &next) != 0)
		return -errno;
	for (size_t i = 0; i < loops; i++) {
		/* From the previous plan, never from now: no drift. */
		probe_ts_add_ns(&next, period_ns);
		do
			err = clock_nanosleep(clk, 0, &len, NULL);
		while (err == EINTR);
		if (err)
			return -err;
		if (clock_gettime(clk, &now) != 0)
			return -errno;
		latency_ns[i] = probe_ts_diff_ns(&now, &next);
	}
	return 0;
}
