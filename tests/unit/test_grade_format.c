/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_grade_format: grades with points and their printed forms. A report
 * built with grade_report_append() counts points and leaves skipped checks
 * out of the score; grade_outcome_json() gives rtlab.grade/1; the text,
 * TAP, JUnit and CSV forms escape what comes from outside (a reason with a
 * terminal escape, XML specials, a comma in a name) and count right. Then
 * students named to attack each form: a spreadsheet formula, a '#' that
 * TAP would read as a TODO, control bytes, U+FFFE (not XML 1.0), UTF-8
 * that must keep the summary's columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grade/grade_format.h"
#include "grade/grade_outcome.h"
#include "labs/lab.h"

static void fill(struct grade_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->lab = strdup("toy");
	o->student = strdup("o'neil, jr");
	o->code = true;
	o->build_ok = true;
	o->build_log = strdup("");
	assert_int_equal(grade_report_append(&o->rep, &(struct grade_check){ .name = "sum",
		.status = GRADE_PASS, .max_points = 3, .detail = "passed", .part = "code" }), 0);
	assert_int_equal(grade_report_append(&o->rep, &(struct grade_check){ .name = "max",
		.status = GRADE_FAIL, .max_points = 2, .part = "code",
		.detail = "expected <40> & got \"3\"\x1b[2J", .hint = "start from v[0]" }), 0);
	assert_int_equal(grade_report_append(&o->rep, &(struct grade_check){ .name = "lock",
		.status = GRADE_SKIP, .max_points = 5, .part = "code",
		.detail = "needs mlock", .hint = "not shown: skipped" }), 0);
	assert_int_equal(grade_report_add(&o->rep, "integrity", true, "as rtlab wrote it"), 0);
}

static void test_points(void **state)
{
	struct grade_report r = { 0 };

	(void)state;
	assert_false(grade_report_passed(&r));
	assert_int_equal(grade_report_append(&r, &(struct grade_check){ .name = "a",
		.status = GRADE_SKIP, .max_points = 4 }), 0);
	assert_false(grade_report_passed(&r));	/* nothing counted yet */
	assert_true(r.score == 0);
	assert_int_equal(grade_report_append(&r, &(struct grade_check){ .name = "b",
		.status = GRADE_PASS, .max_points = 1 }), 0);
	assert_int_equal(grade_report_append(&r, &(struct grade_check){ .name = "c",
		.status = GRADE_FAIL, .max_points = 3 }), 0);
	assert_true(r.points == 1 && r.max_points == 4 && r.score == 25);
	assert_int_equal(r.nskipped, 1);
	assert_int_equal(r.npassed, 1);
	assert_false(grade_report_passed(&r));
	assert_int_equal(grade_report_append(&r, &(struct grade_check){ .status = GRADE_PASS }),
			 -EINVAL);
	assert_int_equal(grade_report_append(&r, &(struct grade_check){ .name = "d",
		.max_points = -1 }), -EINVAL);
	assert_int_equal(r.nchecks, 3);
	assert_string_equal(r.checks[1].detail, "");	/* no detail: empty, never NULL */
	grade_report_fini(&r);
	/* grade_report_add(): one point a check, the share passed, as before. */
	assert_int_equal(grade_report_add(&r, "x", true, "%d", 1), 0);
	assert_int_equal(grade_report_add(&r, "y", false, "no"), 0);
	assert_true(r.score == 50);
	grade_report_fini(&r);
}

static void test_json(void **state)
{
	struct grade_outcome o;
	json_t *g, *c;

	(void)state;
	fill(&o);
	g = grade_outcome_json(&o);
	assert_non_null(g);
	assert_string_equal(json_string_value(json_object_get(g, "schema")), "rtlab.grade/1");
	assert_true(json_number_value(json_object_get(g, "score_pct")) == 66.7);	/* 4 of 6 */
	assert_true(json_number_value(json_object_get(g, "max_points")) == 6);
	assert_int_equal(json_integer_value(json_object_get(g, "checks_skipped")), 1);
	assert_false(json_is_true(json_object_get(g, "passed")));
	c = json_array_get(json_object_get(g, "checks"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "status")), "fail");
	assert_string_equal(json_string_value(json_object_get(c, "hint")), "start from v[0]");
	c = json_array_get(json_object_get(g, "checks"), 2);
	assert_true(json_is_null(json_object_get(c, "hint")));	/* hints only for failures */
	c = json_object_get(json_object_get(g, "parts"), "code");
	assert_true(json_number_value(json_object_get(c, "points")) == 3);
	assert_true(json_number_value(json_object_get(c, "max_points")) == 5);
	assert_non_null(json_object_get(json_object_get(g, "parts"), "results"));
	assert_true(json_is_true(json_object_get(json_object_get(g, "build"), "ok")));
	json_decref(g);
	grade_outcome_fini(&o);

	g = grade_outcome_json_error("toy", "amy", "nothing handed in");
	assert_string_equal(json_string_value(json_object_get(g, "error")), "nothing handed in");
	assert_false(json_is_true(json_object_get(g, "passed")));
	json_decref(g);
}

/*
 * Review 31: a document with two questions not answered printed "score:
 * 100% (5 of 5 points; 5 of 7 checks passed)" and exited 1. The score line
 * names what keeps it from passing.
 */
static void test_text_unanswered(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	json_t *g = json_pack("{s:s, s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:b, s:["
			      "{s:s, s:s, s:i, s:i, s:s},"
			      "{s:s, s:s, s:i, s:i, s:s},"
			      "{s:s, s:s, s:i, s:i, s:s},"
			      "{s:s, s:s, s:i, s:i, s:s}]}",
			      "lab", "hypervisor", "score_pct", 100.0, "points", 2.0,
			      "max_points", 2.0, "checks_passed", 2, "checks_failed", 2,
			      "checks_skipped", 0, "checks_review", 0, "passed", 0, "checks",
			      "id", "a", "status", "pass", "points", 1, "max_points", 1, "reason", "ok",
			      "id", "b", "status", "pass", "points", 1, "max_points", 1, "reason", "ok",
			      "id", "why-x", "status", "fail", "points", 0, "max_points", 0,
			      "reason", "not answered (rtlab lab answer hypervisor why-x TEXT)",
			      "id", "what-y", "status", "fail", "points", 0, "max_points", 0,
			      "reason", "not answered (rtlab lab answer hypervisor what-y TEXT)");

	(void)state;
	assert_non_null(g);
	assert_int_equal(grade_format_text(g, false, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "score: 100% of the points (2 of 2 points; "
			       "2 of 4 checks passed), but 2 questions not answered: why-x, "
			       "what-y\n"));
	rt_buf_fini(&b);
	json_decref(g);
}

static json_t *grades(void)
{
	struct grade_outcome o;
	json_t *a = json_array();

	fill(&o);
	json_array_append_new(a, grade_outcome_json(&o));
	grade_outcome_fini(&o);
	json_array_append_new(a, grade_outcome_json_error("toy", "bo<b>", "no folder"));
	return a;
}

static void test_text_and_tap(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	json_t *a = grades();
	const char *s;

	(void)state;
	assert_int_equal(grade_format_text(json_array_get(a, 0), false, &b), 0);
	s = rt_buf_str(&b);
	assert_non_null(strstr(s, "  PASS sum"));
	assert_non_null(strstr(s, "  FAIL max"));
	assert_non_null(strstr(s, "hint: start from v[0]"));
	assert_non_null(strstr(s, "  SKIP lock"));
	assert_null(strstr(s, "not shown"));
	assert_null(strchr(s, '\x1b'));		/* escaped for the terminal */
	assert_non_null(strstr(s, "\\x1b[2J"));
	assert_non_null(strstr(s, "score: 66.7% (4 of 6 points; 2 of 3 checks passed, 1 skipped)"));
	rt_buf_reset(&b);
	assert_int_equal(grade_format_tap(a, &b), 0);
	s = rt_buf_str(&b);
	assert_true(strncmp(s, "TAP version 13\n1..5\n", 20) == 0);
	assert_non_null(strstr(s, "ok 1 - o'neil, jr/toy/sum (3/3)\n"));
	assert_non_null(strstr(s, "not ok 2 - o'neil, jr/toy/max (0/2)\n"));
	assert_non_null(strstr(s, "ok 3 - o'neil, jr/toy/lock # SKIP needs mlock\n"));
	assert_non_null(strstr(s, "not ok 5 - bo<b>/toy\n# not graded: no folder\n"));
	rt_buf_fini(&b);
	json_decref(a);
}

static void test_junit_and_csv(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	json_t *a = grades();
	const char *s;

	(void)state;
	assert_int_equal(grade_format_junit(a, &b), 0);
	s = rt_buf_str(&b);
	/* No "skipped" on the root: the Jenkins schema refuses it there. */
	assert_non_null(strstr(s, "<testsuites name=\"rtlab grade\" tests=\"5\" failures=\"1\" "
				  "errors=\"1\">"));
	assert_non_null(strstr(s, "<testsuite name=\"o&apos;neil, jr/toy\" tests=\"4\" "
				  "failures=\"1\" errors=\"0\" skipped=\"1\""));
	assert_non_null(strstr(s, "<failure message=\"expected &lt;40&gt; &amp; got "
				  "&quot;3&quot;\xef\xbf\xbd[2J\" type=\"code\">start from v[0]"
				  "</failure>"));
	assert_non_null(strstr(s, "<skipped message=\"needs mlock\"/>"));
	assert_non_null(strstr(s, "<testsuite name=\"bo&lt;b&gt;/toy\" tests=\"1\" failures=\"0\" "
				  "errors=\"1\""));
	assert_null(strchr(s, '\x1b'));
	rt_buf_reset(&b);
	assert_int_equal(grade_format_csv(a, &b), 0);
	s = rt_buf_str(&b);
	assert_non_null(strstr(s, "student,lab,score_pct,points,max_points,passed,failed,"
				  "skipped,build,error\r\n\"o'neil, jr\",toy,66.7,4,6,2,1,1,ok,\r\n"
				  "bo<b>,toy,,0,0,0,0,0,,no folder\r\n"));
	rt_buf_reset(&b);
	assert_int_equal(grade_format_summary(a, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "1 graded, 0 at 100%, 1 not graded; average 66.7%"));
	rt_buf_fini(&b);
	json_decref(a);
}

/* One grade of @student: one failed check "max". */
static json_t *hostile(const char *student)
{
	struct grade_outcome o = { 0 };
	json_t *g;

	o.lab = strdup("toy");
	o.student = strdup(student);
	assert_int_equal(grade_report_append(&o.rep, &(struct grade_check){ .name = "max",
		.status = GRADE_FAIL, .max_points = 2, .part = "code", .detail = "wrong" }), 0);
	g = grade_outcome_json(&o);
	assert_non_null(g);
	grade_outcome_fini(&o);
	return g;
}

static json_t *hostile_class(void)
{
	static const char *const names[] = {
		"=HYPERLINK(\"http://x\",\"y\")", "@SUM(1+1)", "+1", "-2", " =1", "\tx",
		"a;=1", "x # TODO", "y \\# TODO", "esc\x1b[2J bel\x07", "c1 \xc2\x9b",
		"no \xef\xbf\xbe char", "Zo\xc3\xab", "ok",
	};
	json_t *a = json_array();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_int_equal(json_array_append_new(a, hostile(names[i])), 0);
	return a;
}

static void test_hostile_csv(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	json_t *a = hostile_class();
	const char *s;

	(void)state;
	assert_int_equal(grade_format_csv(a, &b), 0);
	s = rt_buf_str(&b);
	/* A formula is text after a "'" in a quoted cell; the numbers stay numbers. */
	assert_non_null(strstr(s, "\r\n\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\","
				  "toy,0,0,2,0,1,0,,\r\n"));
	assert_non_null(strstr(s, "\r\n\"'@SUM(1+1)\",toy,"));
	assert_non_null(strstr(s, "\r\n\"'+1\",toy,"));
	assert_non_null(strstr(s, "\r\n\"'-2\",toy,"));
	assert_non_null(strstr(s, "\r\n\"' =1\",toy,"));
	/* A TAB starts a formula too; it is a control character, so U+FFFD. */
	assert_non_null(strstr(s, "\r\n\"'\xef\xbf\xbdx\",toy,"));
	assert_non_null(strstr(s, "\r\n\"a;=1\",toy,"));
	assert_non_null(strstr(s, "\r\nx # TODO,toy,"));
	assert_non_null(strstr(s, "\r\nesc\xef\xbf\xbd[2J bel\xef\xbf\xbd,toy,"));
	assert_non_null(strstr(s, "\r\nc1 \xef\xbf\xbd,toy,"));
	assert_non_null(strstr(s, "\r\nno \xef\xbf\xbd char,toy,"));
	assert_non_null(strstr(s, "\r\nZo\xc3\xab,toy,"));
	assert_non_null(strstr(s, "\r\nok,toy,0,0,2,0,1,0,,\r\n"));
	for (const char *p = s; *p; p++)
		assert_true((unsigned char)*p >= 0x20 || (*p == '\r' && p[1] == '\n') ||
			    (*p == '\n' && p > s && p[-1] == '\r'));
	json_decref(a);
	rt_buf_fini(&b);
}

static void test_hostile_tap_junit_summary(void **state)
{
	struct rt_buf b = RT_BUF_INIT;
	json_t *a = hostile_class();
	const char *s, *zoe, *ok;

	(void)state;
	assert_int_equal(grade_format_tap(a, &b), 0);
	s = rt_buf_str(&b);
	/* '#' and '\' escaped, so TAP::Parser sees no directive: a failure stays one. */
	assert_non_null(strstr(s, "\nnot ok 8 - x \\# TODO/toy/max (0/2)\n"));
	assert_non_null(strstr(s, "\nnot ok 9 - y \\\\\\# TODO/toy/max (0/2)\n"));
	assert_non_null(strstr(s, "\nnot ok 10 - esc\\x1b[2J bel\\x07/toy/max (0/2)\n"));
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\x07'));
	rt_buf_reset(&b);

	assert_int_equal(grade_format_junit(a, &b), 0);
	s = rt_buf_str(&b);
	assert_null(strstr(s, "\xef\xbf\xbe"));	/* U+FFFE: not a character in XML 1.0 */
	assert_non_null(strstr(s, "<testsuite name=\"no \xef\xbf\xbd char/toy\""));
	assert_null(strstr(s, "\xc2\x9b"));		/* C1 */
	assert_null(strchr(s, '\x1b'));
	rt_buf_reset(&b);

	assert_int_equal(grade_format_summary(a, &b), 0);
	s = rt_buf_str(&b);
	assert_null(strchr(s, '\x1b'));
	assert_null(strchr(s, '\t'));
	/* The lab column lines up: "Zoë" takes 4 bytes but 3 columns, so its
	 * " toy " is one byte further on than in the row of "ok". */
	zoe = strstr(s, "\nZo\xc3\xab ");
	ok = strstr(s, "\nok ");
	assert_non_null(zoe);
	assert_non_null(ok);
	assert_int_equal(strstr(zoe, " toy ") - zoe, strstr(ok, " toy ") - ok + 1);
	rt_buf_fini(&b);
	json_decref(a);
}

static void test_format_names(void **state)
{
	enum grade_format f;

	(void)state;
	assert_int_equal(grade_format_parse("junit", &f), 0);
	assert_int_equal(f, GRADE_FORMAT_JUNIT);
	assert_int_equal(grade_format_parse("JUnit", &f), -EINVAL);
	assert_int_equal(grade_format_parse("", &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text_and_tap),
		cmocka_unit_test(test_text_unanswered),
		cmocka_unit_test(test_junit_and_csv),
		cmocka_unit_test(test_hostile_csv),
		cmocka_unit_test(test_hostile_tap_junit_summary),
		cmocka_unit_test(test_format_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
