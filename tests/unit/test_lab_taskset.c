/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the task-set lab's analysis (lab_taskset_rta.c): response
 * times computed by hand for three-task sets (lesson 15's worked example
 * among them), the blocking term under each lock, Liu and Layland's bound,
 * and the parser and checks of a set from the command line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "labs/lab_taskset.h"

#define MS(t, c) { .period_us = (t) * 1000u, .wcet_us = (c) * 1000u }

static uint64_t rta_ok(const struct taskset_task *t, unsigned int i, uint64_t b)
{
	uint64_t r = 0;

	assert_int_equal(taskset_rta(t, i, b, &r), TASKSET_MEETS);
	return r;
}

/*
 * Lesson 15's worked example: T = 4, 6, 12 and C = 1, 2, 3. Task 3 iterates
 * 6, 7, 9, 10, 10: R = 10 <= 12, though U = 83 % is above the bound.
 */
static void test_lesson_example(void **state)
{
	struct taskset_task t[] = { MS(4, 1), MS(6, 2), MS(12, 3) };

	(void)state;
	assert_int_equal(rta_ok(t, 0, 0), 1000);
	assert_int_equal(rta_ok(t, 1, 0), 3000);
	assert_int_equal(rta_ok(t, 2, 0), 10000);
}

/* The lab's ll-above (the example doubled, C3 = 6): 12, 14, 18, 20, 20. */
static void test_ll_above(void **state)
{
	struct taskset_spec s = { .n = 3, .t = { MS(8, 2), MS(12, 4), MS(24, 6) } };
	uint64_t r;

	(void)state;
	assert_int_equal(rta_ok(s.t, 1, 0), 6000);
	assert_int_equal(rta_ok(s.t, 2, 0), 20000);
	assert_true(taskset_utilisation(&s) > taskset_ll_bound(3));
	assert_int_equal(taskset_analyse(&s, 2, &r, NULL), TASKSET_MEETS);
}

/* rta-miss: task 3 iterates 9, 11, 15 > 12: it misses, r the iterate past D. */
static void test_rta_miss(void **state)
{
	struct taskset_task t[] = { MS(8, 2), MS(10, 4), MS(12, 3) };
	uint64_t r = 0;

	(void)state;
	assert_int_equal(rta_ok(t, 1, 0), 6000);
	assert_int_equal(taskset_rta(t, 2, 0, &r), TASKSET_MISSES);
	assert_int_equal(r, 15000);
}

/* R equal to the deadline meets: T = 4, 8 and C = 2, 4 iterate 6, 8, 8. */
static void test_deadline_edge(void **state)
{
	struct taskset_task t[] = { MS(4, 2), MS(8, 4) };

	(void)state;
	assert_int_equal(rta_ok(t, 1, 0), 8000);
}

/* The lock set: B = 3 ms for high and for medium (pushed through), none for low. */
static void test_blocking(void **state)
{
	struct taskset_spec s = { .n = 3, .lock = TASKSET_LOCK_INHERIT, .t = {
		{ .period_us = 10000, .wcet_us = 2000, .cs_us = 500 },
		{ .period_us = 20000, .wcet_us = 7000 },
		{ .period_us = 50000, .wcet_us = 5000, .cs_us = 3000 } } };
	uint64_t r, b;
	bool unb;

	(void)state;
	assert_int_equal(taskset_blocking(&s, 0, &unb), 3000);
	assert_false(unb);
	assert_int_equal(taskset_blocking(&s, 1, &unb), 3000);
	assert_int_equal(taskset_blocking(&s, 2, &unb), 0);
	/* R1 = 2 + 3; R2 = 7 + 3 + 2 = 12, + 2 = 14; R3 = 5 + 2 + 7 = 14, + 2 = 16 */
	assert_int_equal(taskset_analyse(&s, 0, &r, &b), TASKSET_MEETS);
	assert_int_equal(r, 5000);
	assert_int_equal(taskset_analyse(&s, 1, &r, &b), TASKSET_MEETS);
	assert_int_equal(r, 14000);
	assert_int_equal(taskset_analyse(&s, 2, &r, &b), TASKSET_MEETS);
	assert_int_equal(r, 16000);
	assert_int_equal(b, 0);

	s.lock = TASKSET_LOCK_CEILING;
	assert_int_equal(taskset_blocking(&s, 1, NULL), 3000);

	/* Plain: high has no bound, medium is never blocked. */
	s.lock = TASKSET_LOCK_PLAIN;
	assert_int_equal(taskset_analyse(&s, 0, &r, &b), TASKSET_UNBOUNDED);
	assert_int_equal(taskset_analyse(&s, 1, &r, &b), TASKSET_MEETS);
	assert_int_equal(b, 0);
	assert_int_equal(r, 9000);

	s.lock = TASKSET_LOCK_NONE;
	assert_int_equal(taskset_blocking(&s, 0, NULL), 0);
}

/* A task above the lock's ceiling is never blocked; plain with no one between is bounded. */
static void test_blocking_ceiling(void **state)
{
	struct taskset_spec s = { .n = 3, .lock = TASKSET_LOCK_PLAIN, .t = {
		{ .period_us = 5000, .wcet_us = 1000 },
		{ .period_us = 10000, .wcet_us = 2000, .cs_us = 500 },
		{ .period_us = 20000, .wcet_us = 3000, .cs_us = 1500 } } };
	bool unb = true;

	(void)state;
	assert_int_equal(taskset_blocking(&s, 0, &unb), 0);
	assert_false(unb);
	assert_int_equal(taskset_blocking(&s, 1, &unb), 1500);
	assert_false(unb);
	s.lock = TASKSET_LOCK_CEILING;
	assert_int_equal(taskset_blocking(&s, 0, NULL), 0);
	assert_int_equal(taskset_blocking(&s, 1, NULL), 1500);
}

static void test_ll_bound(void **state)
{
	(void)state;
	assert_true(fabs(taskset_ll_bound(1) - 1.0) < 1e-12);
	assert_true(fabs(taskset_ll_bound(2) - 0.828427) < 1e-6);
	assert_true(fabs(taskset_ll_bound(3) - 0.779763) < 1e-6);
	assert_true(fabs(taskset_ll_bound(1000) - log(2.0)) < 1e-3);
}

static void test_prio(void **state)
{
	(void)state;
	assert_int_equal(taskset_prio(3, 2), TASKSET_PRIO_LOWEST);
	assert_int_equal(taskset_prio(3, 0), TASKSET_PRIO_LOWEST + 2 * TASKSET_PRIO_STEP);
}

static void test_parse(void **state)
{
	struct taskset_spec s = { 0 };
	char *cause = NULL;

	(void)state;
	assert_int_equal(taskset_parse("24:6,8:2:0.5,12:4", &s, &cause), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.t[0].period_us, 8000);
	assert_int_equal(s.t[0].cs_us, 500);
	assert_int_equal(s.t[1].period_us, 12000);
	assert_int_equal(s.t[2].wcet_us, 6000);
	s.lock = TASKSET_LOCK_NONE;
	assert_int_equal(taskset_check(&s, &cause), -EINVAL);	/* a section, no lock */
	assert_non_null(strstr(cause, "--lock"));
	free(cause);
	cause = NULL;
	assert_int_equal(taskset_parse("8:2,12:4,24:6", &s, &cause), 0);
	assert_int_equal(taskset_check(&s, &cause), 0);
	assert_int_equal(taskset_parse("8:2,12:4,24:9", &s, &cause), 0);
	assert_int_equal(taskset_check(&s, &cause), -EINVAL);	/* U 95.8 % */
	assert_non_null(strstr(cause, "utilisation"));
	free(cause);
	cause = NULL;
	assert_int_equal(taskset_parse("8", &s, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(taskset_parse("8:2;9:1", &s, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(taskset_parse("", &s, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(taskset_parse("1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:1", &s, &cause),
			 -EINVAL);
	free(cause);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lesson_example),
		cmocka_unit_test(test_ll_above),
		cmocka_unit_test(test_rta_miss),
		cmocka_unit_test(test_deadline_edge),
		cmocka_unit_test(test_blocking),
		cmocka_unit_test(test_blocking_ceiling),
		cmocka_unit_test(test_ll_bound),
		cmocka_unit_test(test_prio),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
