/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_grade_manifest: the exercise manifest (rtlab.exercise/1) is read
 * strictly: the toy exercise's manifest parses with its limits and checks,
 * defaults fill what is left out, and each kind of mistake is refused with
 * a message naming the field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_manifest.h"

#define HEAD "{\"schema\": \"rtlab.exercise/1\", \"lab\": \"toy\", \"title\": \"T\", " \
	     "\"sources\": [\"sum.c\"], \"subject\": \"subject.c\", \"program\": \"check.c\", "
#define ONE_CHECK "\"checks\": [{\"id\": \"a-b\", \"points\": 2, \"hint\": \"h\"}]"

static void test_toy_manifest(void **state)
{
	const char *srcdir = getenv("SRCDIR");
	struct grade_manifest m;
	char *cause = NULL, path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/data/exercise/toy/checks/exercise.json",
		 srcdir ? srcdir : ".");
	assert_int_equal(grade_manifest_load(path, &m, &cause), 0);
	assert_null(cause);
	assert_string_equal(m.lab, "toy");
	assert_int_equal(m.sources.n, 1);
	assert_string_equal(m.sources.v[0], "sum.c");
	assert_int_equal(m.headers.n, 1);
	assert_int_equal(m.limits.wall_s, 10);
	assert_int_equal(m.limits.cpu_s, 5);
	assert_int_equal(m.limits.output_kb, 64);
	assert_int_equal(m.nchecks, 6);
	assert_int_equal(grade_manifest_points(&m), 10);
	assert_int_equal(m.checks[4].needs, GRADE_NEED_MLOCK);
	assert_true(m.checks[5].timing);
	assert_ptr_equal(grade_manifest_check(&m, "sum_empty"), &m.checks[1]);
	assert_ptr_equal(grade_manifest_check(&m, "sum-empty"), &m.checks[1]);
	assert_null(grade_manifest_check(&m, "sum-empt"));
	assert_null(grade_manifest_check(&m, "sum-emptyy"));
	grade_manifest_fini(&m);
	grade_manifest_fini(&m);	/* twice is fine: zeroed */
}

static void test_defaults(void **state)
{
	static const char text[] = HEAD "\"limits\": {\"wall_s\": 4}, " ONE_CHECK "}";
	struct grade_manifest m;

	(void)state;
	assert_int_equal(grade_manifest_parse(text, strlen(text), "m", &m, NULL), 0);
	assert_int_equal(m.limits.wall_s, 4);
	assert_int_equal(m.limits.cpu_s, 4);	/* follows the wall clock when not given */
	assert_int_equal(m.limits.mem_mb, 256);
	assert_int_equal(m.limits.nproc, 16);
	assert_int_equal(m.limits.memlock_kb, 65536);
	assert_int_equal(m.checks[0].points, 2);
	assert_false(m.checks[0].timing);
	assert_int_equal(m.checks[0].needs, 0);
	assert_null(m.checks[0].title);
	/* No weights: the code alone (an exercise outside rtlab's labs). */
	assert_false(m.weights_given);
	assert_int_equal(m.weights[GRADE_PART_CODE], 100);
	assert_int_equal(m.weights[GRADE_PART_RESULTS] + m.weights[GRADE_PART_QUIZ], 0);
	grade_manifest_fini(&m);
}

static void test_memlock(void **state)
{
	static const char text[] = HEAD "\"limits\": {\"memlock_kb\": 8192}, " ONE_CHECK "}";
	static const char small[] = HEAD "\"limits\": {\"memlock_kb\": 63}, " ONE_CHECK "}";
	struct grade_manifest m;
	char *cause = NULL;

	(void)state;
	assert_int_equal(grade_manifest_parse(text, strlen(text), "m", &m, NULL), 0);
	assert_int_equal(m.limits.memlock_kb, 8192);
	grade_manifest_fini(&m);
	assert_int_equal(grade_manifest_parse(small, strlen(small), "m", &m, &cause), -EINVAL);
	assert_non_null(strstr(cause, "limits.memlock_kb"));
	free(cause);
}

static void expect_refused(const char *text, const char *needle)
{
	struct grade_manifest m;
	char *cause = NULL;

	assert_int_equal(grade_manifest_parse(text, strlen(text), "m", &m, &cause), -EINVAL);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("\"%s\" does not name \"%s\"", cause, needle);
	free(cause);
	assert_null(m.checks);
	assert_null(m.lab);
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused(HEAD ONE_CHECK ", \"limitz\": {}}", "limitz");
	expect_refused("{\"schema\": \"rtlab.exercise/2\"}", "schema");
	expect_refused("{\"lab\": \"x\"}", "schema: missing");
	expect_refused("[1]", "not a JSON object");
	expect_refused(HEAD "\"checks\": []}", "checks");
	expect_refused(HEAD "\"checks\": [{\"id\": \"A\", \"points\": 1, \"hint\": \"h\"}]}",
		       "checks[0].id");
	expect_refused(HEAD "\"checks\": [{\"id\": \"a\", \"points\": 0, \"hint\": \"h\"}]}",
		       "checks[0].points");
	expect_refused(HEAD "\"checks\": [{\"id\": \"a\", \"points\": 1}]}", "checks[0]: needs");
	expect_refused(HEAD "\"checks\": [{\"id\": \"a\", \"points\": 1, \"hint\": \"h\"}, "
		       "{\"id\": \"a\", \"points\": 1, \"hint\": \"h\"}]}", "used twice");
	expect_refused(HEAD "\"checks\": [{\"id\": \"a\", \"points\": 1, \"hint\": \"h\", "
		       "\"needs\": [\"gpu\"]}]}", "needs");
	expect_refused(HEAD "\"checks\": [{\"id\": \"a\", \"points\": 1, \"hint\": \"h\", "
		       "\"timing\": 1}]}", "timing");
	expect_refused(HEAD "\"cflags\": [\"-I/etc\"], " ONE_CHECK "}", "cflags[0]");
	expect_refused(HEAD "\"cflags\": [\"-include\"], " ONE_CHECK "}", "cflags[0]");
	expect_refused(HEAD "\"ldflags\": [\"@/tmp/x\"], " ONE_CHECK "}", "ldflags[0]");
	expect_refused(HEAD "\"ldflags\": [\"-lm -o x\"], " ONE_CHECK "}", "ldflags[0]");
	expect_refused(HEAD "\"headers\": [\"../x.h\"], " ONE_CHECK "}", "headers[0]");
	expect_refused(HEAD "\"headers\": [\"x.c\"], " ONE_CHECK "}", "headers[0]");
	expect_refused(HEAD "\"limits\": {\"wall_s\": 0}, " ONE_CHECK "}", "limits.wall_s");
	expect_refused(HEAD "\"limits\": {\"nproc\": 1e9}, " ONE_CHECK "}", "limits.nproc");
	expect_refused("{\"schema\": \"rtlab.exercise/1\", \"lab\": \"toy\", \"title\": \"T\", "
		       "\"sources\": [\"subject.c\"], \"subject\": \"subject.c\", \"program\": "
		       "\"check.c\", " ONE_CHECK "}", "trusted file");
	expect_refused("{\"schema\": \"rtlab.exercise/1\", \"lab\": \"toy\", \"title\": \"T\", "
		       "\"sources\": [\"a.h\"], \"subject\": \"subject.c\", \"program\": "
		       "\"check.c\", " ONE_CHECK "}", "no .c file");
	expect_refused("{\"schema\": \"rtlab.exercise/1\", \"lab\": \"toy\", \"title\": \"T\", "
		       "\"sources\": [\"a.c\", \"a.c\"], \"subject\": \"s.c\", \"program\": "
		       "\"check.c\", " ONE_CHECK "}", "named twice");
	expect_refused("{\"schema\": \"rtlab.exercise/1\", \"title\": \"T\"}", "needs lab");
	expect_refused("{\"schema\": \"rtlab.exercise/1\", \"schema\": \"x\"}", "m:");
}

/* Declared weights, read strictly: every part, adding up to 100. */
static void test_weights(void **state)
{
	static const char text[] = HEAD "\"weights\": {\"code\": 60, \"results\": 30, "
				   "\"quiz\": 10}, " ONE_CHECK "}";
	struct grade_manifest m;

	(void)state;
	assert_int_equal(grade_manifest_parse(text, strlen(text), "m", &m, NULL), 0);
	assert_true(m.weights_given);
	assert_int_equal(m.weights[GRADE_PART_CODE], 60);
	assert_int_equal(m.weights[GRADE_PART_RESULTS], 30);
	assert_int_equal(m.weights[GRADE_PART_QUIZ], 10);
	grade_manifest_fini(&m);
	expect_refused(HEAD "\"weights\": {\"code\": 60, \"results\": 30}, " ONE_CHECK "}",
		       "add up to 100");
	expect_refused(HEAD "\"weights\": {\"code\": 60, \"results\": 30, \"quiz\": 20}, "
		       ONE_CHECK "}", "add up to 100");
	expect_refused(HEAD "\"weights\": {\"code\": 100, \"results\": 0, \"quiz\": 0, "
		       "\"style\": 0}, " ONE_CHECK "}", "weights.style");
	expect_refused(HEAD "\"weights\": {\"code\": 101, \"results\": 0, \"quiz\": 0}, "
		       ONE_CHECK "}", "weights.code");
	expect_refused(HEAD "\"weights\": [60, 30, 10], " ONE_CHECK "}", "weights");
}

static void test_file_names(void **state)
{
	(void)state;
	assert_true(grade_file_name_ok("probe_loop.c"));
	assert_true(grade_file_name_ok("a-b.1.h"));
	assert_false(grade_file_name_ok(".hidden.c"));
	assert_false(grade_file_name_ok("a/b.c"));
	assert_false(grade_file_name_ok(""));
	assert_false(grade_file_name_ok("a b.c"));
	assert_string_equal(grade_need_name(GRADE_NEED_MLOCK), "mlock");
	assert_null(grade_need_name(8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toy_manifest),
		cmocka_unit_test(test_memlock),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_file_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
