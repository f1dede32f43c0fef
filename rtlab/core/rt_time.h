/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_time: the monotonic clock, sleeps and deadlines for everything that is
 * not the latency probe's own loop.
 *
 * Every time here is CLOCK_MONOTONIC, so a wall-clock step (NTP, a learner
 * setting the date) never stretches or cuts a timeout. Deadlines are
 * absolute nanosecond counts on that clock (rt_time_deadline_ms()), which
 * keeps a loop that waits in several steps from drifting: each step asks
 * how much is left. Sleeps resume after a signal, unless the caller's stop
 * flag is set by then; so Ctrl-C ends a wait at once while an unrelated
 * signal (SIGCHLD, SIGWINCH) does not cut it short.
 *
 * Every function here only reads the clock and sleeps: they are
 * async-signal-safe, and a forked child may call them before exec.
 */
#ifndef RTLAB_CORE_RT_TIME_H
#define RTLAB_CORE_RT_TIME_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define RT_TIME_NS_PER_MS 1000000ull
#define RT_TIME_NS_PER_S 1000000000ull

/* The monotonic clock in nanoseconds, milliseconds and seconds. */
uint64_t rt_time_now_ns(void);
uint64_t rt_time_now_ms(void);
double rt_time_now_s(void);

/**
 * rt_time_sleep_ns - sleep for @ns nanoseconds
 * @stop: if not NULL, a flag a signal handler sets to end the sleep early
 *
 * A signal that interrupts the sleep ends it only when *@stop is set by
 * then; otherwise the sleep goes on for the time that is left. Returns 0
 * after the whole time, or -EINTR when *@stop was (or became) set.
 */
int rt_time_sleep_ns(uint64_t ns, const volatile sig_atomic_t *stop);

/* rt_time_sleep_ns() in milliseconds. */
int rt_time_sleep_ms(unsigned int ms, const volatile sig_atomic_t *stop);

/**
 * rt_time_sleep_until_ns - sleep until the monotonic clock reads @deadline_ns
 * @stop: as for rt_time_sleep_ns()
 *
 * An absolute sleep: a loop that adds its period to the last deadline keeps
 * its rate however long each round took. Returns 0 (at once when the
 * deadline has passed), or -EINTR when *@stop was (or became) set.
 */
int rt_time_sleep_until_ns(uint64_t deadline_ns, const volatile sig_atomic_t *stop);

/* The deadline @ms milliseconds from now, in monotonic nanoseconds. */
uint64_t rt_time_deadline_ms(unsigned int ms);

/* Whether the monotonic clock has reached @deadline_ns. */
bool rt_time_passed(uint64_t deadline_ns);

/**
 * rt_time_left_ms - milliseconds until @deadline_ns
 *
 * Rounded up, so a wait of that length never wakes before the deadline;
 * 0 once it has passed and at most INT_MAX, so it can go straight to poll().
 */
int rt_time_left_ms(uint64_t deadline_ns);

#endif
