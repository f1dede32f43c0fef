/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for trace_hog: parameters are checked and clamped to the
 * bounds; as root, a SCHED_FIFO spin hog on CPU 0 really stalls an ordinary
 * thread pinned there for about its burst length, and its counters agree;
 * the fault storm really faults (the child's minflt count); the syscall
 * burst runs; stop ends the child by pid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "core/rt_time.h"
#include "trace/trace_hog.h"

#define skip_because(why) do { print_message("[  SKIP    ] %s\n", why); skip(); } while (0)

static void test_params(void **state)
{
	struct trace_hog_params p = { .kind = TRACE_HOG_FIFO_SPIN, .cpu = -1, .prio = 0,
				      .burst_us = 100 };

	(void)state;
	errno = 0;
	assert_null(trace_hog_start(&p, NULL));	/* FIFO spin needs a priority */
	assert_int_equal(errno, EINVAL);
	p.prio = 99;
	assert_null(trace_hog_start(&p, NULL));
	p.prio = 5;
	p.burst_us = 0;
	assert_null(trace_hog_start(&p, NULL));
	p.kind = 7;
	p.burst_us = 10;
	assert_null(trace_hog_start(&p, NULL));
	assert_null(trace_hog_start(NULL, NULL));
	assert_string_equal(trace_hog_function(TRACE_HOG_FIFO_SPIN), "trace_hog_fifo_spin");
	assert_string_equal(trace_hog_function(TRACE_HOG_FAULT_STORM), "trace_hog_fault_storm");
	assert_string_equal(trace_hog_function(TRACE_HOG_SYSCALL_BURST),
			    "trace_hog_syscall_burst");
	assert_int_equal(trace_hog_stop(NULL, NULL), 0);
}

static void test_clamped(void **state)
{
	struct trace_hog_params p = { .kind = TRACE_HOG_SYSCALL_BURST, .cpu = -1,
				      .burst_us = 50000, .period_us = 1, .count = 1 };
	struct trace_hog_stats st;
	struct trace_hog *h;

	(void)state;
	h = trace_hog_start(&p, NULL);
	assert_non_null(h);
	assert_int_equal(trace_hog_params(h)->burst_us, TRACE_HOG_MAX_BURST_US);
	assert_int_equal(trace_hog_params(h)->period_us, TRACE_HOG_MAX_BURST_US * 10);
	assert_int_equal(trace_hog_wait(h, 5000), 0);
	assert_int_equal(trace_hog_stop(h, &st), 0);
	assert_int_equal(st.events, 1);
	assert_true(st.work > 0);
	/* At most the cap, plus scheduling noise of a loaded host. */
	assert_true(st.max_event_ns >= TRACE_HOG_MAX_BURST_US * 1000ull);
	assert_true(st.max_event_ns < 3 * TRACE_HOG_MAX_BURST_US * 1000ull);
}

struct spinner {
	volatile int stop;
	uint64_t max_gap_ns;
};

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	cpu_set_t set;
	uint64_t last, t;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	last = rt_time_now_ns();
	while (!s->stop) {
		t = rt_time_now_ns();
		if (t - last > s->max_gap_ns)
			s->max_gap_ns = t - last;
		last = t;
	}
	return NULL;
}

static void test_fifo_spin_stalls(void **state)
{
	struct trace_hog_params p = { .kind = TRACE_HOG_FIFO_SPIN, .cpu = 0, .prio = 10,
				      .burst_us = 3000, .period_us = 30000, .count = 5 };
	struct spinner s = { 0 };
	struct trace_hog_stats st;
	struct trace_hog *h;
	pthread_t th;
	char *cause = NULL;

	(void)state;
	if (geteuid() != 0)
		skip_because("SCHED_FIFO needs root");
	assert_int_equal(pthread_create(&th, NULL, spinner_main, &s), 0);
	usleep(20000);
	h = trace_hog_start(&p, &cause);
	if (!h)
		fail_msg("trace_hog_start: %s", cause);
	assert_int_equal(trace_hog_wait(h, 5000), 0);
	s.stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(trace_hog_stop(h, &st), 0);
	print_message("fifo spin: %llu events, longest %.0f us; an ordinary thread on CPU 0 "
		      "stalled for up to %.0f us\n", (unsigned long long)st.events,
		      st.max_event_ns / 1e3, s.max_gap_ns / 1e3);
	assert_int_equal(st.events, 5);
	assert_true(st.max_event_ns >= 3000000 && st.max_event_ns < 20000000);
	assert_true(s.max_gap_ns >= 2500000);
	free(cause);
}

static unsigned long long minflt_of(pid_t pid)
{
	char path[64], *text = NULL, *p;
	unsigned long long v = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (rt_file_read(path, 4096, &text, NULL))
		return 0;
	p = strrchr(text, ')');
	/* After ") " come state(3) ppid pgrp session tty tpgid flags minflt(10). */
	if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %llu", &v) != 1)
		v = 0;
	free(text);
	return v;
}

static void test_fault_storm_and_syscalls(void **state)
{
	struct trace_hog_params p = { .kind = TRACE_HOG_FAULT_STORM, .cpu = -1, .burst_us = 2000,
				      .period_us = 20000 };
	struct trace_hog_stats st;
	struct trace_hog *h;
	unsigned long long flt;
	pid_t pid;

	(void)state;
	h = trace_hog_start(&p, NULL);
	assert_non_null(h);
	pid = trace_hog_pid(h);
	/*
	 * How many pages a 2 ms burst touches depends on how much of it the CPU gave the
	 * child: on a loaded machine, wait for the work rather than for a number of bursts.
	 * The 30 s bound is only a guard against a hang.
	 */
	for (int i = 0; i < 3000; i++) {
		usleep(10000);
		trace_hog_stats(h, &st);
		if (st.events >= 3 && st.work > 100)
			break;
	}
	flt = minflt_of(pid);
	print_message("fault storm: %llu events, %llu pages touched, child minflt %llu\n",
		      (unsigned long long)st.events, (unsigned long long)st.work, flt);
	assert_true(st.work > 100);
	assert_true(flt >= st.work);
	assert_int_equal(trace_hog_stop(h, NULL), 0);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);

	p.kind = TRACE_HOG_SYSCALL_BURST;
	p.count = 2;
	h = trace_hog_start(&p, NULL);
	assert_non_null(h);
	assert_int_equal(trace_hog_wait(h, 5000), 0);
	assert_int_equal(trace_hog_stop(h, &st), 0);
	assert_int_equal(st.events, 2);
	assert_true(st.work > 100);
	assert_true(st.busy_ns >= 4000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_clamped),
		cmocka_unit_test(test_fifo_spin_stalls),
		cmocka_unit_test(test_fault_storm_and_syscalls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
