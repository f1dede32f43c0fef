/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_grade_book: what a class's grades become beyond the teacher's
 * table. The code print is blind to whitespace, comments and names but
 * not to the code; identical prints and results documents group into
 * hints (the starter left out); the LMS gradebook has a row per student,
 * blank cells where nothing was handed in, a formula-safe name and a
 * course total weighed by the course file with its due dates; feedback
 * holds one student's grades only, escaped in HTML; a re-grade's merge
 * keeps the others in their place; a course file is checked.
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
#include <unistd.h>

#include "core/rt_buf.h"
#include "grade/grade_book.h"
#include "grade/grade_similar.h"

static void print(const char *src, char out[RT_SHA256_HEX])
{
	grade_code_print(src, strlen(src), out);
}

static void test_code_print(void **state)
{
	char a[RT_SHA256_HEX], b[RT_SHA256_HEX], c[RT_SHA256_HEX], d[RT_SHA256_HEX];

	(void)state;
	print("int sum(const int *v, int n)\n{\n\tint s = 0; // total\n"
	      "\tfor (int i = 0; i < n; i++) s += v[i];\n\treturn s;\n}\n", a);
	print("/* mine */ int add_all(const int *arr,int count){int total=0;\n"
	      "for(int k=0;k<count;k++)\n  total+=arr[k];   return total; }", b);
	print("int sum(const int *v, int n)\n{\n\tint s = 1;\n"
	      "\tfor (int i = 0; i < n; i++) s += v[i];\n\treturn s;\n}\n", c);
	print("int sum(const int *v, int n) { int s = 0; while (n--) s += v[n]; return s; }", d);
	assert_string_equal(a, b);		/* names, spaces and comments only */
	assert_string_not_equal(a, c);		/* a constant changed */
	assert_string_not_equal(a, d);		/* another loop */
	print("char *m = \"/* not a comment */\";", c);
	print("char *m = \"\";", d);
	assert_string_not_equal(c, d);		/* a string's content counts */
}

static json_t *grade(const char *student, const char *lab, double score, const char *extra)
{
	json_t *g = json_pack("{s:s, s:s, s:f}", "student", student, "lab", lab, "score_pct",
			      score);

	if (extra) {
		json_t *x = json_loads(extra, 0, NULL);

		assert_non_null(x);
		json_object_update(g, x);
		json_decref(x);
	}
	return g;
}

static void test_hints(void **state)
{
	json_t *gs = json_array(), *h;
	char *s;

	(void)state;
	json_array_append_new(gs, grade("ann", "nop", 100, "{\"code_print\": \"p1\", "
					"\"results_sha256\": \"r1\"}"));
	json_array_append_new(gs, grade("bob", "nop", 100, "{\"code_print\": \"p1\", "
					"\"results_sha256\": \"r2\"}"));
	json_array_append_new(gs, grade("cy", "nop", 0, "{\"code_print\": \"p0\", "
					"\"code_is_starter\": true, \"results_sha256\": \"r1\"}"));
	json_array_append_new(gs, grade("dee", "nop", 0, "{\"code_print\": \"p0\", "
					"\"code_is_starter\": true}"));
	json_array_append_new(gs, grade("eve", "toy", 0, "{\"code_print\": \"p1\"}"));
	h = grade_similar_hints(gs);
	s = json_dumps(h, JSON_COMPACT);
	assert_string_equal(s, "[{\"kind\":\"results\",\"lab\":\"nop\",\"students\":[\"ann\",\"cy\"]},"
			    "{\"kind\":\"code\",\"lab\":\"nop\",\"students\":[\"ann\",\"bob\"]}]");
	free(s);
	json_decref(h);
	json_decref(gs);
}

static json_t *class_grades(void)
{
	json_t *gs = json_array();

	json_array_append_new(gs, grade("=1+1", "nop", 80, NULL));
	json_array_append_new(gs, grade("=1+1", "toy", 50, NULL));
	json_array_append_new(gs, grade("Zoë Jansen_4242_assignsubmission_file", "nop", 100, NULL));
	json_array_append_new(gs, grade("Zoë Jansen_4242_assignsubmission_file", "toy", 0,
					"{\"handed_in\": false, \"score_pct\": null}"));
	json_array_append_new(gs, grade("ann", "nop", 0, "{\"error\": \"the job died\"}"));
	json_array_append_new(gs, grade("ann", "toy", 40, NULL));
	return gs;
}

static void test_lms(void **state)
{
	json_t *gs = class_grades();
	struct rt_buf b = RT_BUF_INIT;
	struct grade_course course = { .n = 3, .v = {
		{ .lab = "toy", .weight = 3, .due = "2026-01-10" },
		{ .lab = "nop", .weight = 1, .due = "" },
		{ .lab = "later", .weight = 9, .due = "2026-02-01" } } };

	(void)state;
	assert_int_equal(grade_book_lms(gs, NULL, "2026-01-15", false, &b), 0);
	assert_string_equal(rt_buf_str(&b),
			    "student,nop,toy,course_total\r\n"
			    "\"'=1+1\",80,50,65.0\r\n"
			    "Zoë Jansen_4242_assignsubmission_file,100,,100.0\r\n"
			    "ann,,40,40.0\r\n");
	rt_buf_reset(&b);
	/* toy weighs 3 and is past due: Zoë's missing toy counts 0 there. */
	assert_int_equal(grade_book_lms(gs, &course, "2026-01-15", true, &b), 0);
	assert_string_equal(rt_buf_str(&b),
			    "\xef\xbb\xbfstudent,toy,nop,later,course_total\r\n"
			    "\"'=1+1\",50,80,,57.5\r\n"
			    "Zoë Jansen_4242_assignsubmission_file,,100,,25.0\r\n"
			    "ann,40,,,40.0\r\n");
	rt_buf_reset(&b);
	/* Before toy's due date it is left out. */
	assert_int_equal(grade_book_lms(gs, &course, "2026-01-05", false, &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "Zoë Jansen_4242_assignsubmission_file,,100,,100.0\r\n"));
	rt_buf_fini(&b);
	json_decref(gs);
}

/* doc/grading.md's worked example, as printed there. */
static void test_lms_doc_example(void **state)
{
	json_t *gs = json_array();
	struct rt_buf b = RT_BUF_INIT;
	struct grade_course course = { .n = 3, .v = {
		{ .lab = "latency", .weight = 2, .due = "2026-10-15" },
		{ .lab = "nop", .weight = 1, .due = "2026-11-01" },
		{ .lab = "ftrace", .weight = 3, .due = "2026-12-10" } } };
	const char *none = "{\"handed_in\": false, \"score_pct\": null}";
	const char *zoe = "Zoë Jansen_4242_assignsubmission_file";

	(void)state;
	json_array_append_new(gs, grade("=1+1", "latency", 80, NULL));
	json_array_append_new(gs, grade("=1+1", "nop", 50, NULL));
	json_array_append_new(gs, grade("=1+1", "ftrace", 0, none));
	json_array_append_new(gs, grade(zoe, "latency", 0, none));
	json_array_append_new(gs, grade(zoe, "nop", 100, NULL));
	json_array_append_new(gs, grade(zoe, "ftrace", 0, none));
	json_array_append_new(gs, grade("ann", "latency", 90, NULL));
	json_array_append_new(gs, grade("ann", "nop", 0, none));
	json_array_append_new(gs, grade("ann", "ftrace", 95, NULL));
	assert_int_equal(grade_book_lms(gs, &course, "2026-11-20", false, &b), 0);
	assert_string_equal(rt_buf_str(&b),
			    "student,latency,nop,ftrace,course_total\r\n"
			    "\"'=1+1\",80,50,,70.0\r\n"
			    "Zoë Jansen_4242_assignsubmission_file,,100,,33.3\r\n"
			    "ann,90,,95,77.5\r\n");
	rt_buf_fini(&b);
	json_decref(gs);
}

static void test_feedback(void **state)
{
	json_t *gs = class_grades();
	struct rt_buf b = RT_BUF_INIT;

	(void)state;
	json_array_append_new(gs, grade("<script>x</script>", "toy", 10,
					"{\"checks\": [{\"id\": \"sum\", \"status\": \"fail\", "
					"\"points\": 0, \"max_points\": 3, \"reason\": \"got <1> & \\\"2\\\"\", "
					"\"hint\": \"add 'em\"}], \"work\": \"/home/teacher/x\"}"));
	assert_int_equal(grade_book_feedback_html(gs, "<script>x</script>", &b), 0);
	assert_null(strstr(rt_buf_str(&b), "<script>"));
	assert_null(strstr(rt_buf_str(&b), "/home/teacher"));
	assert_null(strstr(rt_buf_str(&b), "ann"));
	assert_non_null(strstr(rt_buf_str(&b), "&lt;script&gt;x&lt;/script&gt;"));
	assert_non_null(strstr(rt_buf_str(&b), "got &lt;1&gt; &amp; &quot;2&quot;"));
	assert_non_null(strstr(rt_buf_str(&b), "add &#39;em"));
	rt_buf_reset(&b);
	assert_int_equal(grade_book_feedback_text(gs, "ann", &b), 0);
	assert_non_null(strstr(rt_buf_str(&b), "== nop =="));
	assert_non_null(strstr(rt_buf_str(&b), "== toy =="));
	assert_null(strstr(rt_buf_str(&b), "Zo"));
	rt_buf_fini(&b);
	json_decref(gs);
}

static void test_merge(void **state)
{
	json_t *gs = class_grades(), *fresh = json_array(), *m;
	char *s;

	(void)state;
	json_array_append_new(fresh, grade("Zoë Jansen_4242_assignsubmission_file", "nop", 1, NULL));
	m = grade_book_merge(gs, fresh, "Zoë Jansen_4242_assignsubmission_file");
	assert_int_equal(json_array_size(m), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 2), "student")),
			    "Zoë Jansen_4242_assignsubmission_file");
	assert_int_equal(json_number_value(json_object_get(json_array_get(m, 2), "score_pct")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(m, 3), "student")),
			    "ann");
	json_decref(m);
	/* A student new to the class: where the name sorts. */
	json_object_set_new(json_array_get(fresh, 0), "student", json_string("zed"));
	m = grade_book_merge(gs, fresh, "zed");
	assert_int_equal(json_array_size(m), 7);
	s = json_dumps(json_object_get(json_array_get(m, 6), "student"), JSON_ENCODE_ANY);
	assert_string_equal(s, "\"zed\"");
	free(s);
	json_decref(m);
	json_decref(fresh);
	json_decref(gs);
}

static void test_course(void **state)
{
	char path[] = "/tmp/test_grade_book.XXXXXX", *cause = NULL;
	struct grade_course c;
	int fd = mkstemp(path);
	static const char good[] = "{\"schema\": \"rtlab.course/1\", \"labs\": [{\"lab\": \"nop\", "
				   "\"weight\": 2, \"due\": \"2026-12-01\"}, {\"lab\": \"toy\"}]}";
	static const char *const bad[] = {
		"{\"schema\": \"rtlab.course/2\", \"labs\": [{\"lab\": \"nop\"}]}",
		"{\"schema\": \"rtlab.course/1\", \"labs\": []}",
		"{\"schema\": \"rtlab.course/1\", \"labs\": [{\"lab\": \"nop\", \"weight\": 0}]}",
		"{\"schema\": \"rtlab.course/1\", \"labs\": [{\"lab\": \"nop\", \"due\": \"1.12.\"}]}",
		"{\"schema\": \"rtlab.course/1\", \"labs\": [{\"lab\": \"nop\"}, {\"lab\": \"nop\"}]}",
	};

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, good, strlen(good)), (ssize_t)strlen(good));
	close(fd);
	assert_int_equal(grade_course_load(path, &c, &cause), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.v[0].due, "2026-12-01");
	assert_true(c.v[0].weight == 2 && c.v[1].weight == 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FILE *f = fopen(path, "w");

		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(grade_course_load(path, &c, &cause), -EINVAL);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_print),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_lms),
		cmocka_unit_test(test_lms_doc_example),
		cmocka_unit_test(test_feedback),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_course),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
