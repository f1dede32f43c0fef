/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * probe_loop.h: what you write in probe_loop.c, the measuring loop of a
 * cyclictest-like latency probe (lesson 03, "How cyclictest measures").
 *
 * The probe wakes up once per period at a planned time, reads the clock as
 * soon as it runs, and records how late it woke: latency = now - planned.
 * Four pieces:
 *
 *   probe_ts_add_ns()       the planned time moves on by one period: timespec
 *                           arithmetic that keeps tv_nsec below one second;
 *   probe_ts_diff_ns()      the latency of one wake-up, in nanoseconds;
 *   probe_memory_prepare()  lock the process's memory and prefault the stack,
 *                           so that no page fault can hit the loop;
 *   probe_loop_run()        the loop itself.
 *
 * This header is the checks' copy: the grader uses it, not yours, so do not
 * change it (add helpers as static functions in probe_loop.c).
 */
#ifndef PROBE_LOOP_H
#define PROBE_LOOP_H

#include <stddef.h>
#include <time.h>

#define PROBE_NSEC_PER_SEC 1000000000LL

/* How much stack probe_memory_prepare() touches before the loop starts. */
#define PROBE_PREFAULT_STACK (512 * 1024)

/**
 * probe_ts_add_ns - move a time on by @ns nanoseconds
 * @ts: a normalised time (0 <= tv_nsec < PROBE_NSEC_PER_SEC), updated in place
 * @ns: what to add, 0 <= @ns (it may be longer than a second)
 *
 * The result is normalised again: whole seconds are carried into tv_sec and
 * tv_nsec stays below PROBE_NSEC_PER_SEC. clock_nanosleep() refuses a time
 * that is not normalised (EINVAL).
 */
void probe_ts_add_ns(struct timespec *ts, long long ns);

/**
 * probe_ts_diff_ns - @a - @b in nanoseconds
 * @a, @b: normalised times
 *
 * Negative when @a is earlier than @b. For a wake-up, @a is when the loop
 * read the clock and @b the planned time: the latency.
 */
long long probe_ts_diff_ns(const struct timespec *a, const struct timespec *b);

/**
 * probe_memory_prepare - keep page faults out of the loop
 *
 * Locks all of the process's memory, what is mapped now and what will be
 * mapped later, then touches PROBE_PREFAULT_STACK bytes of stack so that
 * those pages are present (and, being locked, stay present) before the first
 * measurement. Touch the stack even when locking fails.
 *
 * Returns 0, or the negative errno of the lock that failed.
 */
int probe_memory_prepare(void);

/**
 * probe_loop_run - measure @loops wake-ups, one per period
 * @clk: the clock to read and to sleep on (CLOCK_MONOTONIC)
 * @period_ns: the period in nanoseconds, > 0 (may be longer than a second)
 * @loops: how many wake-ups to measure
 * @latency_ns: @loops entries: latency_ns[i] is how late wake-up i came
 *
 * Reads @clk once at the start; wake-up i is planned for that time plus
 * (i + 1) periods. For each: sleep until the planned time with
 * clock_nanosleep() on @clk, read @clk with clock_gettime() as soon as the
 * sleep returns, record the latency (the time read minus the planned time).
 * Use only clock_gettime() and clock_nanosleep() for time: the checks run
 * the loop on a clock of their own.
 *
 * Returns 0, or a negative errno when a sleep failed (clock_nanosleep()
 * returns its error as a positive number; an interrupted sleep, EINTR, is
 * not a failure: sleep again until the same planned time).
 */
int probe_loop_run(clockid_t clk, long long period_ns, size_t loops, long long *latency_ns);

#endif
