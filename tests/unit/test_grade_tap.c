/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_grade_tap: the verdicts of a check program's output. cmocka's TAP
 * as it prints it (passes, failures with its "# " messages after them,
 * skips), rtlab_fail()'s reason lines before a failure, names with '_' for
 * '-', a name printed twice, and junk that must change nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "grade/grade_tap.h"

static void test_cmocka_output(void **state)
{
	static const char text[] =
		"1..5\n"
		"ok 1 - sum\n"
		"# rtlab-reason: expected \"max 40\", got \"max 3\"\n"
		"not ok 2 - max\n"
		"# check_toy.c:40: error: Failure!\n"
		"not ok 3 - sum_empty\n"
		"# 0x3 != 0x4\n"
		"# check_toy.c:9: error: Failure!\n"
		"not ok 4 # SKIP lock\n"
		"ok 5 - sum_large\n"
		"# not ok - toy\n"
		"# stray comment after the summary\n";
	const struct grade_verdict *v;
	struct grade_tap t;

	(void)state;
	assert_int_equal(grade_tap_parse(text, strlen(text), &t), 0);
	assert_int_equal(t.plan, 5);
	assert_int_equal(t.n, 5);
	v = grade_tap_find(&t, "sum");
	assert_int_equal(v->status, GRADE_PASS);
	v = grade_tap_find(&t, "max");
	assert_int_equal(v->status, GRADE_FAIL);
	assert_string_equal(v->reason, "expected \"max 40\", got \"max 3\"");
	v = grade_tap_find(&t, "sum-empty");
	assert_non_null(v);
	assert_int_equal(v->status, GRADE_FAIL);
	assert_string_equal(v->reason, "0x3 != 0x4; check_toy.c:9: error: Failure!");
	assert_int_equal(grade_tap_find(&t, "lock")->status, GRADE_SKIP);
	assert_int_equal(grade_tap_find(&t, "sum-large")->status, GRADE_PASS);
	assert_null(grade_tap_find(&t, "nope"));
	grade_tap_fini(&t);
}

static void test_first_verdict_wins_and_junk(void **state)
{
	static const char text[] =
		"ok 1 - a\n"
		"not ok 2 - a\n"
		"ok - b\n"
		"okay 3 - c\n"
		"not ok x - d\n"
		"not ok 4 e\n"
		"\n"
		"ok 5 - \n"
		"# rtlab-reason: \x1b[2J\xff\n"
		"not ok 6 - f\r\n"
		"ok 7 - g";
	struct grade_tap t;

	(void)state;
	assert_int_equal(grade_tap_parse(text, strlen(text), &t), 0);
	assert_int_equal(t.plan, -1);
	assert_int_equal(t.n, 3);
	assert_int_equal(grade_tap_find(&t, "a")->status, GRADE_PASS);
	assert_null(grade_tap_find(&t, "b"));
	assert_null(grade_tap_find(&t, "c"));
	assert_null(grade_tap_find(&t, "e"));
	/* Control characters and bad UTF-8 arrive escaped, never raw. */
	assert_string_equal(grade_tap_find(&t, "f")->reason, "\\x1b[2J\\xff");
	assert_int_equal(grade_tap_find(&t, "g")->status, GRADE_PASS);
	grade_tap_fini(&t);
	assert_int_equal(grade_tap_parse("", 0, &t), 0);
	assert_int_equal(t.n, 0);
	grade_tap_fini(&t);
}

static void test_long_reason_is_cut(void **state)
{
	char text[4096];
	struct grade_tap t;

	(void)state;
	strcpy(text, "# rtlab-reason: ");
	memset(text + strlen(text), 'x', 3000);
	strcpy(text + 16 + 3000, "\nnot ok 1 - a\n");
	assert_int_equal(grade_tap_parse(text, strlen(text), &t), 0);
	assert_int_equal(strlen(grade_tap_find(&t, "a")->reason), GRADE_REASON_MAX);
	grade_tap_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmocka_output),
		cmocka_unit_test(test_first_verdict_wins_and_junk),
		cmocka_unit_test(test_long_reason_is_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
