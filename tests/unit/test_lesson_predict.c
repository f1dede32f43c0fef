/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lesson_predict: the predict questions about one lab, from
 * a fixture tree (tests/data/predict: two labs, a broken block, a lesson
 * number used twice, a lesson without a title, a question in the glossary)
 * and from the shipped lessons, checked against a plain scan of their quiz
 * blocks; the installed-lessons entry point through RTLAB_DATADIR; no list
 * of labs; a folder that does not exist.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "lesson/lesson_labs.h"
#include "lesson/lesson_predict.h"
#include "lesson_labs_fixture.h"

static char *data_path(const char *rel)
{
	const char *src = getenv("SRCDIR");
	char *p;

	assert_true(asprintf(&p, "%s/%s", src && *src ? src : ".", rel) > 0);
	return p;
}

static void check_q(const struct lesson_predict_q *q, const char *lesson, const char *id,
		    const char *scenario, const char *metric, const char *unit, const char *prompt)
{
	assert_string_equal(q->lesson, lesson);
	assert_string_equal(q->id, id);
	assert_string_equal(q->scenario, scenario);
	assert_string_equal(q->metric, metric);
	assert_string_equal(q->unit, unit);
	assert_string_equal(q->prompt, prompt);
}

static void test_fixture_tree(void **state)
{
	char *dir = data_path("tests/data/predict"), *cause = NULL;
	struct lesson_predict_q *q = NULL;
	size_t n = 99;

	(void)state;
	fixture_lesson_labs_init_fake();
	assert_int_equal(lesson_predict_scan(dir, "alpha", &q, &n, &cause), 0);
	assert_null(cause);
	/* Not the broken block, the lesson 02 file listed second, 03 or the glossary. */
	assert_int_equal(n, 3);
	check_q(&q[0], "01", "guess-a", "idle", "max_us", "us", "How *late* on alpha?");
	check_q(&q[1], "02", "lost", "busy", "lost_count", "count",
		"How many wake-ups are lost?");
	check_q(&q[2], "02", "slow", "busy", "max_ms", "ms", "The slowest wake-up?");
	lesson_predict_list_free(q, n);

	assert_int_equal(lesson_predict_scan(dir, "beta", &q, &n, NULL), 0);
	assert_int_equal(n, 1);
	check_q(&q[0], "01", "guess-b", "busy", "p99_us", "us", "And on beta?");
	lesson_predict_list_free(q, n);

	/* A lab no lesson asks about, and one that does not exist. */
	assert_int_equal(lesson_predict_scan(dir, "latency", &q, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_null(q);
	assert_int_equal(lesson_predict_scan(dir, "gamma", &q, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_int_equal(lesson_predict_scan(dir, NULL, &q, &n, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	free(dir);
	lesson_predict_list_free(NULL, 0);
}

/* Without a list of labs no `lab:` key checks out, so there is no question. */
static void test_no_lab_list(void **state)
{
	char *dir = data_path("tests/data/predict");
	struct lesson_predict_q *q = NULL;
	size_t n = 99;

	(void)state;
	lesson_labs_set(NULL);
	assert_int_equal(lesson_predict_scan(dir, "alpha", &q, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_null(q);
	free(dir);
}

static void test_missing_folder(void **state)
{
	struct lesson_predict_q *q = NULL;
	size_t n = 99;

	(void)state;
	fixture_lesson_labs_init();
	assert_int_equal(lesson_predict_scan("/nonexistent/lessons", "latency", &q, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_null(q);
}

/*
 * "NN:id" of every predict block about @lab in the shipped lessons, found
 * by reading the blocks' lines, not by the parser under test.
 */
static size_t scan_by_hand(const char *dir, const char *lab, char out[][64], size_t max)
{
	struct dirent **names;
	size_t found = 0;
	int n = scandir(dir, &names, NULL, alphasort);

	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		char path[512], line[512], id[48] = "", want[64];
		bool in = false, predict = false, ours = false;
		FILE *f;

		if (names[i]->d_name[0] < '0' || names[i]->d_name[0] > '9') {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		snprintf(want, sizeof(want), "lab: %s\n", lab);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "```", 3)) {
				if (in && predict && ours && found < max)
					snprintf(out[found++], 64, "%.2s:%s", names[i]->d_name, id);
				in = !in && !strcmp(line, "```quiz\n");
				predict = ours = false;
			} else if (in && !strncmp(line, "id: ", 4)) {
				snprintf(id, sizeof(id), "%.*s", (int)strcspn(line + 4, "\n"), line + 4);
			} else if (in) {
				predict |= !strcmp(line, "kind: predict\n");
				ours |= !strcmp(line, want);
			}
		}
		fclose(f);
		free(names[i]);
	}
	free(names);
	return found;
}

static void test_shipped_lessons(void **state)
{
	static const char *const labs[] = { "latency", "hypervisor", "ftrace", "cookie" };
	char *dir = data_path("lessons"), want[32][64], got[80];
	struct lesson_predict_q *q = NULL;
	size_t n, total = 0;

	(void)state;
	fixture_lesson_labs_init();
	for (size_t l = 0; l < sizeof(labs) / sizeof(labs[0]); l++) {
		size_t nwant = scan_by_hand(dir, labs[l], want, 32);

		assert_int_equal(lesson_predict_scan(dir, labs[l], &q, &n, NULL), 0);
		if (n != nwant)
			fail_msg("lab %s: %zu questions, the files hold %zu", labs[l], n, nwant);
		for (size_t i = 0; i < n; i++) {
			snprintf(got, sizeof(got), "%s:%s", q[i].lesson, q[i].id);
			assert_string_equal(got, want[i]);
			assert_true(q[i].scenario[0] && q[i].metric[0] && q[i].unit[0] &&
				    q[i].prompt[0]);
		}
		total += n;
		lesson_predict_list_free(q, n);
	}
	/* The latency lab's questions exist, so the comparison above meant something. */
	assert_true(total >= 5);
	free(dir);
}

/* lesson_predict_list() reads the installed lessons: here, the source tree's. */
static void test_installed(void **state)
{
	char *src = data_path(""), *dir = data_path("lessons");
	struct lesson_predict_q *a = NULL, *b = NULL;
	size_t na, nb;

	(void)state;
	fixture_lesson_labs_init();
	assert_int_equal(setenv("RTLAB_DATADIR", src, 1), 0);
	assert_int_equal(lesson_predict_list("latency", &a, &na, NULL), 0);
	assert_int_equal(lesson_predict_scan(dir, "latency", &b, &nb, NULL), 0);
	assert_int_equal(na, nb);
	assert_true(na > 0);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(a[i].lesson, b[i].lesson);
		assert_string_equal(a[i].id, b[i].id);
	}
	lesson_predict_list_free(a, na);
	lesson_predict_list_free(b, nb);
	free(src);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_tree),
		cmocka_unit_test(test_no_lab_list),
		cmocka_unit_test(test_missing_folder),
		cmocka_unit_test(test_shipped_lessons),
		cmocka_unit_test(test_installed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
