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
#include <unistd.h>

#include "core/rt_task.h"

/* A stat line of @comm with fields 39..41 set, the rest zeros. */
static void line(char *buf, size_t size, const char *comm, int cpu, int prio, int policy)
{
	size_t n = (size_t)snprintf(buf, size, "1234 (%s) S", comm);

	for (int f = 4; f <= 52; f++)
		n += (size_t)snprintf(buf + n, size - n, " %d",
				      f == 39 ? cpu : f == 40 ? prio : f == 41 ? policy : 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_read_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
