/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_rt_task: the scheduling fields of /proc/.../stat lines, odd command
 * names included, and this process's own threads read back after a change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/rt_task.h"

/* A stat line of @comm with fields 39..41 set, the rest zeros. */
static void line(char *buf, size_t size, const char *comm, int cpu, int prio, int policy)
{
	size_t n = (size_t)snprintf(buf, size, "1234 (%s) S", comm);

	for (int f = 4; f <= 52; f++)
		n += (size_t)snprintf(buf + n, size - n, " %d",
				      f == 39 ? cpu : f == 40 ? prio : f == 41 ? policy :
				      f == 14 ? 700 : f == 15 ? 42 : 0);
	snprintf(buf + n, size - n, "\n");
}

static void test_parse(void **state)
{
	struct rt_task_sched s;
	char buf[512];

	(void)state;
	line(buf, sizeof(buf), "qemu-system-x86", 1, 0, SCHED_OTHER);
	assert_int_equal(rt_task_stat_parse(buf, strlen(buf), &s), 0);
	assert_int_equal(s.state, 'S');
	assert_int_equal(s.processor, 1);
	assert_int_equal(s.rt_priority, 0);
	assert_int_equal(s.policy, SCHED_OTHER);
	assert_int_equal(s.utime, 700);	/* fields 14 and 15: QEMU's CPU time */
	assert_int_equal(s.stime, 42);
	/* A vCPU thread's name has spaces and a ')' of its own. */
	line(buf, sizeof(buf), "CPU 0/TCG) x", 0, 80, SCHED_FIFO);
	assert_int_equal(rt_task_stat_parse(buf, strlen(buf), &s), 0);
	assert_int_equal(s.rt_priority, 80);
	assert_int_equal(s.policy, SCHED_FIFO);
	assert_int_equal(s.processor, 0);
	/* Not NUL-terminated: only len bytes count. */
	assert_int_equal(rt_task_stat_parse(buf, strlen(buf) - 1, &s), 0);
	/* Cut before field 41, no comm, garbage. */
	assert_int_equal(rt_task_stat_parse(buf, (size_t)(strstr(buf, " 80 ") - buf), &s),
			 -EINVAL);
	assert_int_equal(rt_task_stat_parse("1234 S 0 0", 10, &s), -EINVAL);
	assert_int_equal(rt_task_stat_parse("", 0, &s), -EINVAL);
	line(buf, sizeof(buf), "x", 0, 50, SCHED_FIFO);
	*strstr(buf, " 50 ") = 'z';
	assert_int_equal(rt_task_stat_parse(buf, strlen(buf), &s), -EINVAL);
}

static void test_read_self(void **state)
{
	struct sched_param sp = { .sched_priority = 0 };
	struct rt_task_sched s;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char *cause = NULL;

	(void)state;
	assert_int_equal(rt_task_sched_read(getpid(), tid, &s, &cause), 0);
	assert_int_equal(s.state, 'R');
	/* SCHED_BATCH needs no privilege: the change shows in /proc. */
	assert_int_equal(sched_setscheduler(0, SCHED_BATCH, &sp), 0);
	assert_int_equal(rt_task_sched_read(getpid(), tid, &s, &cause), 0);
	assert_int_equal(s.policy, SCHED_BATCH);
	assert_int_equal(sched_setscheduler(0, SCHED_OTHER, &sp), 0);
	assert_int_equal(rt_task_sched_read(getpid(), tid, &s, &cause), 0);
	assert_int_equal(s.policy, SCHED_OTHER);
	assert_int_equal(rt_task_sched_read(getpid(), 0x7ffffff0, &s, &cause), -ENOENT);
	assert_non_null(strstr(cause, "/task/"));
	free(cause);
}

/* The whole process's CPU time: it grows as this process spins, all threads counted. */
static void test_process_cpu(void **state)
{
	unsigned long long before, after;
	char *cause = NULL;
	volatile unsigned long x = 0;
	struct timespec t0, t;

	(void)state;
	assert_int_equal(rt_task_process_cpu_ms(getpid(), &before, &cause), 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {	/* 50 ms of our own CPU, however loaded the machine */
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 50);
	assert_int_equal(rt_task_process_cpu_ms(getpid(), &after, &cause), 0);
	assert_true(after >= before + 30);	/* ticks are 10 ms coarse */
	assert_int_equal(rt_task_process_cpu_ms(0x7ffffff0, &after, &cause), -ENOENT);
	free(cause);
}

static void test_schedstat(void **state)
{
	unsigned long long exec_ns = 0, wait_ns = 0;

	(void)state;
	assert_int_equal(rt_task_schedstat_parse("123456 7890 42\n", &exec_ns, &wait_ns), 0);
	assert_int_equal(exec_ns, 123456);
	assert_int_equal(wait_ns, 7890);
	assert_int_equal(rt_task_schedstat_parse("18446744073709551615 0 1", &exec_ns,
						   &wait_ns), 0);
	assert_int_equal(rt_task_schedstat_parse("1 2", &exec_ns, &wait_ns), 0);
	assert_int_equal(wait_ns, 2);
	assert_int_equal(rt_task_schedstat_parse("", &exec_ns, &wait_ns), -EINVAL);
	assert_int_equal(rt_task_schedstat_parse("12", &exec_ns, &wait_ns), -EINVAL);
	assert_int_equal(rt_task_schedstat_parse("12 x 3", &exec_ns, &wait_ns), -EINVAL);
	assert_int_equal(rt_task_schedstat_parse("12 3x", &exec_ns, &wait_ns), -EINVAL);
	assert_int_equal(rt_task_schedstat_parse("99999999999999999999999 1 1", &exec_ns,
						   &wait_ns), -EINVAL);
	assert_int_equal(rt_task_schedstat_read(getpid(), (pid_t)syscall(SYS_gettid), &exec_ns,
						&wait_ns, NULL), 0);
	assert_true(exec_ns > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_read_self),
		cmocka_unit_test(test_process_cpu),
		cmocka_unit_test(test_schedstat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
