/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_time: clock_gettime() and clock_nanosleep() on CLOCK_MONOTONIC, with
 * the loop that resumes a sleep after a signal written once. Sleeps are
 * absolute (TIMER_ABSTIME) underneath, so resuming after an interruption
 * never adds the time already slept a second time.
 */
#include "rt_time.h"

#include <errno.h>
#include <limits.h>
#include <time.h>

uint64_t rt_time_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * RT_TIME_NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t rt_time_now_ms(void)
{
	return rt_time_now_ns() / RT_TIME_NS_PER_MS;
}

double rt_time_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rt_time_sleep_until_ns(uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / RT_TIME_NS_PER_S),
		.tv_nsec = (long)(deadline_ns % RT_TIME_NS_PER_S),
	};
	int err;

	for (;;) {
		if (stop && *stop)
			return -EINTR;
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (err != EINTR)
			return 0;
	}
}

int rt_time_sleep_ns(uint64_t ns, const volatile sig_atomic_t *stop)
{
	return rt_time_sleep_until_ns(rt_time_now_ns() + ns, stop);
}

int rt_time_sleep_ms(unsigned int ms, const volatile sig_atomic_t *stop)
{
	return rt_time_sleep_ns((uint64_t)ms * RT_TIME_NS_PER_MS, stop);
}

uint64_t rt_time_deadline_ms(unsigned int ms)
{
	return rt_time_now_ns() + (uint64_t)ms * RT_TIME_NS_PER_MS;
}

bool rt_time_passed(uint64_t deadline_ns)
{
	return rt_time_now_ns() >= deadline_ns;
}

int rt_time_left_ms(uint64_t deadline_ns)
{
	uint64_t now = rt_time_now_ns(), left;

	if (now >= deadline_ns)
		return 0;
	left = (deadline_ns - now + RT_TIME_NS_PER_MS - 1) / RT_TIME_NS_PER_MS;
	return left > INT_MAX ? INT_MAX : (int)left;
}
