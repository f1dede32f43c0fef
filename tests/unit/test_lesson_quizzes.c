/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lesson_quizzes: the questions of one lesson file with
 * their counts (graded and predict), lookup by id, a broken block left
 * out, a file that cannot be read; and the shipped lessons, whose counts
 * must match the document model's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_doc.h"
#include "lesson/lesson_quizzes.h"
#include "lesson/quiz.h"
#include "lesson_labs_fixture.h"

static char *data_path(const char *rel)
{
	const char *src = getenv("SRCDIR");
	char *p;

	assert_true(asprintf(&p, "%s/%s", src && *src ? src : ".", rel) > 0);
	return p;
}

static void test_counts_and_find(void **state)
{
	char *path = data_path("tests/data/predict/01-first.md"), *cause = NULL;
	struct lesson_quizzes qs;
	const struct quiz *q;

	(void)state;
	assert_int_equal(lesson_quizzes_load(path, &qs, &cause), 0);
	assert_null(cause);
	assert_int_equal(qs.count, 4);
	assert_int_equal(qs.graded, 2);
	assert_int_equal(qs.predict, 2);
	assert_string_equal(qs.quizzes[0]->id, "pick");
	assert_string_equal(qs.quizzes[3]->id, "num");
	q = lesson_quizzes_find(&qs, "guess-b");
	assert_non_null(q);
	assert_int_equal(q->kind, QUIZ_PREDICT);
	assert_string_equal(q->lab, "beta");
	assert_string_equal(q->scenario, "busy");
	assert_null(lesson_quizzes_find(&qs, "nope"));
	assert_null(lesson_quizzes_find(NULL, "pick"));
	lesson_quizzes_fini(&qs);
	assert_int_equal(qs.count, 0);
	assert_null(qs.quizzes);
	lesson_quizzes_fini(&qs);	/* twice is fine */
	free(path);
}

static void test_broken_block_left_out(void **state)
{
	char *path = data_path("tests/data/predict/02-second.md");
	struct lesson_quizzes qs;

	(void)state;
	assert_int_equal(lesson_quizzes_load(path, &qs, NULL), 0);
	assert_int_equal(qs.count, 2);
	assert_int_equal(qs.graded, 0);
	assert_int_equal(qs.predict, 2);
	assert_null(lesson_quizzes_find(&qs, "broken"));
	assert_non_null(lesson_quizzes_find(&qs, "slow"));
	lesson_quizzes_fini(&qs);
	free(path);
}

static void test_unreadable(void **state)
{
	struct lesson_quizzes qs;
	char *cause = NULL;

	(void)state;
	assert_int_equal(lesson_quizzes_load("/nonexistent/01-x.md", &qs, &cause), -ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "/nonexistent/01-x.md"));
	assert_int_equal(qs.count, 0);
	assert_null(qs.quizzes);
	free(cause);
}

/* The shipped lessons: the same questions as the document model finds. */
static void test_shipped_lessons(void **state)
{
	char *dir = data_path("lessons");
	unsigned int total = 0, graded = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		struct lesson_doc *doc = NULL;
		struct lesson_quizzes qs;
		unsigned int g = 0;
		char *path;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		assert_true(asprintf(&path, "%s/%s", dir, de->d_name) > 0);
		assert_int_equal(lesson_doc_load(path, &doc, NULL), 0);
		assert_int_equal(lesson_quizzes_load(path, &qs, NULL), 0);
		assert_int_equal(qs.count, doc->nquizzes);
		for (size_t i = 0; i < doc->nquizzes; i++) {
			assert_string_equal(qs.quizzes[i]->id, doc->quizzes[i]->id);
			g += doc->quizzes[i]->kind != QUIZ_PREDICT;
		}
		assert_int_equal(qs.graded, g);
		total += (unsigned int)qs.count;
		graded += qs.graded;
		lesson_quizzes_fini(&qs);
		lesson_doc_free(doc);
		free(path);
	}
	closedir(d);
	free(dir);
	assert_true(total > graded);
	assert_true(graded > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_find),
		cmocka_unit_test(test_broken_block_left_out),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_shipped_lessons),
	};

	/* The real labs for the shipped lessons, alpha and beta for tests/data/predict. */
	fixture_lesson_labs_init_fake();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
