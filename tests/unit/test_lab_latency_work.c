/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lab_latency_work: every workload runs for a short time and counts
 * operations (how many is not asserted: the machine may be loaded, only that
 * some work was done and that ops_per_s is ops over the time measured), a
 * stop flag ends a run that would last an hour at once, nothing outlives a
 * run (no thread, no child, no descriptor), bad arguments are refused with a
 * cause, the names, and the statistics of repeats on known values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "core/rt_time.h"
#include "labs/lab_latency_work.h"

/* Entries in a /proc/self directory, "." and ".." left out. */
static unsigned int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	unsigned int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * count_entries() of /proc/self/task once it is down to @want, waiting up to
 * 2 s: pthread_join() returns when the thread's exit wakes it, a moment
 * before the kernel takes the thread out of the group's task list.
 */
static unsigned int threads_settled(unsigned int want)
{
	unsigned int n = count_entries("/proc/self/task");

	for (int i = 0; i < 200 && n > want; i++) {
		struct timespec ts = { 0, 10 * 1000000L };

		nanosleep(&ts, NULL);
		n = count_entries("/proc/self/task");
	}
	return n;
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(latency_work_find("msg"), LATENCY_WORK_MSG);
	assert_int_equal(latency_work_find("pipe"), LATENCY_WORK_PIPE);
	assert_int_equal(latency_work_find("fork"), LATENCY_WORK_FORK);
	assert_int_equal(latency_work_find("cpu"), LATENCY_WORK_CPU);
	assert_int_equal(latency_work_find("hackbench"), -1);
	assert_int_equal(latency_work_find(NULL), -1);
	for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++) {
		const struct latency_work_info *i = latency_work_info(k);

		assert_non_null(i);
		assert_int_equal(latency_work_find(i->name), (int)k);
		assert_true(i->unit[0] && i->what[0]);
		/* Only the control stays out of the kernel. */
		assert_int_equal(i->kernel, k != LATENCY_WORK_CPU);
	}
	assert_null(latency_work_info(LATENCY_WORK_NKINDS));
}

static void test_each_workload_counts(void **state)
{
	unsigned int threads = count_entries("/proc/self/task");
	unsigned int fds = count_entries("/proc/self/fd");

	(void)state;
	for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++) {
		/* A loaded machine may not run a workload's peer within 50 ms: allow longer. */
		static const unsigned int ms[] = { 50, 250, 1000 };
		struct latency_work_run r;
		char *cause = NULL;
		int ret = 0;

		for (unsigned int t = 0; t < sizeof(ms) / sizeof(ms[0]) && !ret; t++) {
			ret = latency_work_run(k, ms[t], -1, NULL, &r, &cause);
			if (!ret && r.ops > 0)
				break;
		}
		if (ret)
			print_error("%s: %d: %s\n", latency_work_info(k)->name, ret, cause);
		assert_int_equal(ret, 0);
		assert_null(cause);
		print_message("%s: %llu %s in %.3f s\n", latency_work_info(k)->name,
			      (unsigned long long)r.ops, latency_work_info(k)->unit, r.elapsed_s);
		assert_true(r.ops > 0);
		assert_true(r.elapsed_s >= 0.05);
		assert_true(fabs(r.ops_per_s - (double)r.ops / r.elapsed_s) <= 1e-6 * r.ops_per_s);
		assert_false(r.stopped);
		/* Nothing outlives the run. */
		assert_int_equal(threads_settled(threads), threads);
		assert_int_equal(count_entries("/proc/self/fd"), fds);
		assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
		assert_int_equal(errno, ECHILD);
	}
}

/* On one CPU: every worker runs there, and the caller gets its own mask back. */
static void test_one_cpu(void **state)
{
	cpu_set_t before, after;
	int cpu = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
		if (CPU_ISSET(c, &before))
			cpu = c;
	for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++) {
		struct latency_work_run r;
		char *cause = NULL;

		assert_int_equal(latency_work_run(k, 50, cpu, NULL, &r, &cause), 0);
		assert_true(r.ops > 0);
		assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
		assert_true(CPU_EQUAL(&before, &after));
	}
	/* A CPU this thread may not use is refused with a cause, and the mask is kept. */
	{
		struct latency_work_run r;
		char *cause = NULL;
		int bad = -1;

		for (int c = 0; c < CPU_SETSIZE && bad < 0; c++)
			if (!CPU_ISSET(c, &before))
				bad = c;
		assert_true(latency_work_run(LATENCY_WORK_CPU, 50, bad, NULL, &r, &cause) < 0);
		assert_non_null(strstr(cause, "cannot run on CPU"));
		free(cause);
		cause = NULL;
		assert_int_equal(latency_work_run(LATENCY_WORK_CPU, 50, CPU_SETSIZE, NULL, &r, &cause),
				 -EINVAL);
		free(cause);
		assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
		assert_true(CPU_EQUAL(&before, &after));
	}
}

static void test_stop_ends_at_once(void **state)
{
	volatile sig_atomic_t stop = 1;

	(void)state;
	for (unsigned int k = 0; k < LATENCY_WORK_NKINDS; k++) {
		struct latency_work_run r;
		char *cause = NULL;
		uint64_t t0 = rt_time_now_ns();

		/* An hour unless the flag ends it; the bound only catches a hang. */
		assert_int_equal(latency_work_run(k, LATENCY_WORK_MAX_MS, -1, &stop, &r, &cause), 0);
		assert_true(rt_time_now_ns() - t0 < 60 * RT_TIME_NS_PER_S);
		assert_true(r.stopped);
		free(cause);
	}
}

static void test_bad_arguments(void **state)
{
	struct latency_work_run r;
	char *cause = NULL;

	(void)state;
	assert_int_equal(latency_work_run(LATENCY_WORK_CPU, LATENCY_WORK_MIN_MS - 1, -1, NULL, &r, &cause),
			 -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "lasts"));
	free(cause);
	cause = NULL;
	assert_int_equal(latency_work_run(LATENCY_WORK_CPU, LATENCY_WORK_MAX_MS + 1, -1, NULL, &r, &cause),
			 -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(latency_work_run(LATENCY_WORK_NKINDS, 50, -1, NULL, &r, &cause), -EINVAL);
	assert_non_null(strstr(cause, "no throughput workload"));
	free(cause);
}

static void test_stats(void **state)
{
	const double three[] = { 3, 1, 2 }, four[] = { 4, 1, 3, 2 }, one[] = { 7 };
	struct latency_work_stats s;
	double many[100];

	(void)state;
	latency_work_stats(three, 3, &s);
	assert_int_equal(s.n, 3);
	assert_true(s.median == 2 && s.min == 1 && s.max == 3 && s.mean == 2);
	assert_true(fabs(s.cv_pct - 50) < 1e-9);	/* sample sd 1 over mean 2 */
	assert_true(fabs(s.range_pct - 100) < 1e-9);
	assert_true(three[0] == 3 && three[1] == 1);	/* not sorted in place */

	latency_work_stats(four, 4, &s);
	assert_true(s.median == 2.5 && s.min == 1 && s.max == 4 && s.mean == 2.5);
	assert_true(fabs(s.range_pct - 120) < 1e-9);

	latency_work_stats(one, 1, &s);
	assert_true(s.median == 7 && s.cv_pct == 0 && s.range_pct == 0);

	latency_work_stats(NULL, 0, &s);
	assert_true(s.n == 0 && s.median == 0 && s.max == 0);

	/* More values than the stack copy holds. */
	for (unsigned int i = 0; i < 100; i++)
		many[i] = 100 - i;
	latency_work_stats(many, 100, &s);
	assert_int_equal(s.n, 100);
	assert_true(s.median == 50.5 && s.min == 1 && s.max == 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_each_workload_counts),
		cmocka_unit_test(test_one_cpu),
		cmocka_unit_test(test_stop_ends_at_once),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
