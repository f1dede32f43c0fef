/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for trace_hog: parameters are checked and clamped to the
 * bounds; as root, a SCHED_FIFO spin hog on CPU 0 really stalls an ordinary
 * thread pinned there for at least its burst length, and its counters agree;
 * the fault storm really faults (the child's minflt count); the syscall
 * burst runs; stop ends the child by pid.
 *
 * The machine may be loaded (other work, other RT tasks): an event takes at
 * least its burst, and how much longer is the scheduler's business, so no
 * assertion puts an upper bound on a duration, and every wait is for the
 * effect itself under a deadline that only catches a hang (HANG_MS).
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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "core/rt_time.h"
#include "trace/trace_hog.h"

/* A bound on waits, against a hang only. */
#define HANG_MS 60000

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
	assert_int_equal(trace_hog_wait(h, HANG_MS), 0);
	assert_int_equal(trace_hog_stop(h, &st), 0);
	assert_int_equal(st.events, 1);
	assert_true(st.work > 0);
	/* The one event lasted at least the cap (the params above say it was not longer). */
	assert_true(st.max_event_ns >= TRACE_HOG_MAX_BURST_US * 1000ull);
	assert_true(st.busy_ns == st.max_event_ns);
}

struct spinner {
	volatile int stop;
	volatile int spinning;	/* pinned to CPU 0 and in its loop */
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
	s->spinning = 1;
	for (;;) {
		bool stop = s->stop;

		t = rt_time_now_ns();
		if (t - last > s->max_gap_ns)
			s->max_gap_ns = t - last;
		last = t;
		/*
		 * The last look too: a spinner that other work kept off the CPU
		 * until after the bursts was stalled across them all the same.
		 */
		if (stop)
			break;
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
	uint64_t deadline;

	(void)state;
	if (geteuid() != 0)
		skip_because("SCHED_FIFO needs root");
	assert_int_equal(pthread_create(&th, NULL, spinner_main, &s), 0);
	/* The spinner must be spinning before the first burst, however late it gets a CPU. */
	deadline = rt_time_deadline_ms(HANG_MS);
	while (!s.spinning && !rt_time_passed(deadline))
		rt_time_sleep_ms(1, NULL);
	assert_true(s.spinning);
	h = trace_hog_start(&p, &cause);
	if (!h)
		fail_msg("trace_hog_start: %s", cause);
	assert_int_equal(trace_hog_wait(h, HANG_MS), 0);
	s.stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(trace_hog_stop(h, &st), 0);
	print_message("fifo spin: %llu events, longest %.0f us; an ordinary thread on CPU 0 "
		      "stalled for up to %.0f us\n", (unsigned long long)st.events,
		      st.max_event_ns / 1e3, s.max_gap_ns / 1e3);
	/*
	 * Each burst spins for at least its 3 ms. The spinner's looks span the
	 * bursts (the first before the hog started, the last after its fifth
	 * burst) and none falls inside one, since the hog holds their CPU: two
	 * looks are at least a burst apart, whatever else ran. How much longer
	 * anything took depends on that (another RT task may preempt the hog).
	 */
	assert_int_equal(st.events, 5);
	assert_true(st.max_event_ns >= 3000000);
	assert_true(st.busy_ns >= 5 * 3000000ull && st.busy_ns >= st.max_event_ns);
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
	uint64_t deadline;
	pid_t pid;

	(void)state;
	h = trace_hog_start(&p, NULL);
	assert_non_null(h);
	pid = trace_hog_pid(h);
	/*
	 * How many pages a 2 ms burst touches depends on how much of it the CPU gave the
	 * child: on a loaded machine, wait for the work rather than for a number of bursts.
	 */
	deadline = rt_time_deadline_ms(HANG_MS);
	do {
		rt_time_sleep_ms(10, NULL);
		trace_hog_stats(h, &st);
	} while (!(st.events >= 3 && st.work > 100) && !rt_time_passed(deadline));
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
	assert_int_equal(trace_hog_wait(h, HANG_MS), 0);
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
