/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for rt_time: the three clocks agree and never go back; a
 * sleep lasts at least what was asked even while signals keep
 * interrupting it, and ends early (-EINTR) once the stop flag is set; an
 * absolute sleep to a past deadline returns at once; the milliseconds left
 * round up and clamp. Bounds on how long something took are lower bounds,
 * plus upper bounds far above the request that only catch a hang.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "core/rt_time.h"

#define MS RT_TIME_NS_PER_MS

static volatile sig_atomic_t stop;
static volatile sig_atomic_t ticks;
static volatile sig_atomic_t stop_after;	/* ticks before the handler sets stop; 0: never */

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
	if (stop_after && ticks >= stop_after)
		stop = 1;
}

/* SIGALRM every @us microseconds (0: off). */
static void alarm_every(unsigned int us)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = 0, .tv_usec = us },
		.it_value = { .tv_sec = 0, .tv_usec = us },
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: sleeps do see EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static int setup(void **state)
{
	(void)state;
	stop = 0;
	ticks = 0;
	stop_after = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	alarm_every(0);
	signal(SIGALRM, SIG_DFL);
	return 0;
}

static void test_clocks(void **state)
{
	uint64_t ns = rt_time_now_ns(), ms = rt_time_now_ms();
	double s = rt_time_now_s();
	uint64_t prev = ns;

	(void)state;
	/* Read within a moment of each other: they agree to the millisecond (plus load). */
	assert_true(ms >= ns / MS && ms - ns / MS < 1000);
	assert_true(s >= (double)ns / 1e9 && s - (double)ns / 1e9 < 1.0);
	for (int i = 0; i < 1000; i++) {
		uint64_t now = rt_time_now_ns();

		assert_true(now >= prev);
		prev = now;
	}
}

static void test_sleep_lasts(void **state)
{
	uint64_t t0 = rt_time_now_ns(), took;

	(void)state;
	assert_int_equal(rt_time_sleep_ms(30, NULL), 0);
	took = rt_time_now_ns() - t0;
	assert_true(took >= 30 * MS);
	assert_true(took < 3000 * MS);

	t0 = rt_time_now_ns();
	assert_int_equal(rt_time_sleep_ns(5 * MS, &stop), 0);
	assert_true(rt_time_now_ns() - t0 >= 5 * MS);
	assert_int_equal(rt_time_sleep_ns(0, NULL), 0);
}

static void test_sleep_resumes_after_signals(void **state)
{
	uint64_t t0, took;

	(void)state;
	alarm_every(5000);	/* every 5 ms, the flag left alone */
	t0 = rt_time_now_ns();
	assert_int_equal(rt_time_sleep_ms(100, &stop), 0);
	took = rt_time_now_ns() - t0;
	alarm_every(0);
	assert_true(ticks >= 2);	/* it was interrupted, and went on */
	assert_true(took >= 100 * MS);
	assert_true(took < 3000 * MS);
}

static void test_stop_ends_sleep(void **state)
{
	uint64_t t0, took;

	(void)state;
	stop_after = 2;
	alarm_every(10000);
	t0 = rt_time_now_ns();
	assert_int_equal(rt_time_sleep_ms(5000, &stop), -EINTR);
	took = rt_time_now_ns() - t0;
	alarm_every(0);
	assert_true(stop);
	assert_true(took >= 10 * MS);
	assert_true(took < 3000 * MS);

	/* Already set: no sleep at all. */
	t0 = rt_time_now_ns();
	assert_int_equal(rt_time_sleep_ms(2000, &stop), -EINTR);
	assert_int_equal(rt_time_sleep_until_ns(rt_time_deadline_ms(2000), &stop), -EINTR);
	assert_true(rt_time_now_ns() - t0 < 1000 * MS);
}

static void test_deadlines(void **state)
{
	uint64_t d, t0;
	int left;

	(void)state;
	d = rt_time_deadline_ms(10000);
	assert_false(rt_time_passed(d));
	left = rt_time_left_ms(d);
	assert_true(left > 9000 && left <= 10000);

	/* Rounded up: half a millisecond left is one. */
	d = rt_time_now_ns() + 100 * MS + MS / 2;
	left = rt_time_left_ms(d);
	assert_true(left >= 1 && left <= 101);

	d = rt_time_now_ns() - 1;
	assert_true(rt_time_passed(d));
	assert_int_equal(rt_time_left_ms(d), 0);
	assert_int_equal(rt_time_left_ms(0), 0);
	assert_int_equal(rt_time_left_ms(UINT64_MAX), INT_MAX);

	/* An absolute sleep to the past returns at once; to the future, not before. */
	t0 = rt_time_now_ns();
	assert_int_equal(rt_time_sleep_until_ns(t0 - 1, NULL), 0);
	assert_int_equal(rt_time_sleep_until_ns(t0 + 20 * MS, NULL), 0);
	assert_true(rt_time_now_ns() >= t0 + 20 * MS);
	assert_true(rt_time_passed(t0 + 20 * MS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_lasts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sleep_resumes_after_signals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_ends_sleep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadlines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
