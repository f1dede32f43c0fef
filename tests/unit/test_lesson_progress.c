/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lesson_progress: lesson ids are two digits; the reading
 * position and the read flag round-trip through the file (and "read" is
 * never taken back by a later position); answers are scored 1/0 per kind
 * (multi only for the exact set), predictions are stored with their unit and
 * also count as answered with score 0; reset forgets one lesson and keeps
 * the others; a missing or corrupt file reads as position 0; bad arguments
 * and unwritable paths fail with a cause; writers in several processes do
 * not lose each other's answers.
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
#include <sys/wait.h>
#include <unistd.h>

#include "core/rt_file.h"
#include "core/rt_log.h"
#include "core/rt_progress.h"
#include "lesson/lesson_progress.h"
#include "lesson/quiz.h"
#include "lesson_labs_fixture.h"

struct fixture {
	char dir[64];
	char path[128];		/* <dir>/progress.json */
	struct quiz *single, *multi, *numeric, *predict;
};

static const char single_src[] =
	"id: s-1\nkind: single\nquestion: Pick b.\n- [ ] a\n- [x] b\n- [ ] c\nexplain: b.\n";
static const char multi_src[] =
	"id: m-1\nkind: multi\nquestion: Pick a and c.\n- [x] a\n- [ ] b\n- [x] c\n"
	"explain: a and c.\n";
static const char numeric_src[] =
	"id: n-1\nkind: numeric\nquestion: How many?\nanswer: 95\ntolerance: 0.5\n"
	"unit: slots\nexplain: 95.\n";
static const char predict_src[] =
	"id: p-1\nkind: predict\nquestion: Guess.\nlab: latency\nmetric: max_us\n"
	"scenario: load-other\nunit: us\nexplain: Compare.\n";

static void quiet(void *priv, enum rt_log_level level, const char *msg)
{
	(void)priv;
	(void)level;
	(void)msg;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *cause = NULL;

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/rtlab-test-lprog-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/progress.json", f->dir);
	if (quiz_parse_block(single_src, 2, "t.md", &f->single, &cause) ||
	    quiz_parse_block(multi_src, 20, "t.md", &f->multi, &cause) ||
	    quiz_parse_block(numeric_src, 40, "t.md", &f->numeric, &cause) ||
	    quiz_parse_block(predict_src, 60, "t.md", &f->predict, &cause)) {
		print_error("%s\n", cause ? cause : "quiz parse failed");
		free(cause);
		return -1;
	}
	rt_log_set_sink(quiet, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	rt_log_set_sink(NULL, NULL);
	quiz_free(f->single);
	quiz_free(f->multi);
	quiz_free(f->numeric);
	quiz_free(f->predict);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static struct rt_progress *load(const struct fixture *f)
{
	struct rt_progress *p = NULL;
	char *cause = NULL;

	assert_int_equal(rt_progress_load(f->path, &p, &cause), 0);
	assert_null(cause);
	assert_non_null(p);
	return p;
}

/* Judge @text against @q (as the CLI would) and record it. */
static int answer_text(const struct fixture *f, const char *lesson, const struct quiz *q,
		       const char *text, const unsigned int *choices, size_t n)
{
	struct quiz_answer a = { .text = text, .choices = choices, .nchoices = n };
	struct quiz_verdict v;
	char *cause = NULL;
	int ret;

	if (q->kind == QUIZ_SINGLE)
		a.choice = choices[0];
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	ret = lesson_progress_answer(f->path, lesson, q, text, &v, &cause);
	if (ret)
		print_error("%s\n", cause ? cause : "?");
	free(cause);
	return ret;
}

static void test_id(void **state)
{
	char buf[3];

	(void)state;
	lesson_progress_id(3, buf);
	assert_string_equal(buf, "03");
	lesson_progress_id(10, buf);
	assert_string_equal(buf, "10");
	lesson_progress_id(99, buf);
	assert_string_equal(buf, "99");
	lesson_progress_id(0, buf);
	assert_string_equal(buf, "00");
}

static void test_position_roundtrip(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p;
	char *cause = NULL;

	assert_int_equal(lesson_progress_position(f->path, "03"), 0);
	assert_int_equal(lesson_progress_mark(f->path, "03", 42, false, &cause), 0);
	assert_int_equal(lesson_progress_position(f->path, "03"), 42);
	assert_int_equal(lesson_progress_position(f->path, "04"), 0);
	p = load(f);
	assert_false(rt_progress_lesson_read(p, "03"));
	rt_progress_free(p);

	/* Reaching the end marks it read; scrolling back later keeps it read. */
	assert_int_equal(lesson_progress_mark(f->path, "03", 200, true, &cause), 0);
	assert_int_equal(lesson_progress_mark(f->path, "03", 7, false, &cause), 0);
	assert_null(cause);
	assert_int_equal(lesson_progress_position(f->path, "03"), 7);
	p = load(f);
	assert_true(rt_progress_lesson_read(p, "03"));
	assert_false(rt_progress_lesson_read(p, "04"));
	rt_progress_free(p);
}

static void test_default_path(void **state)
{
	struct fixture *f = *state;
	char state_dir[128], file[192], *cause = NULL;
	char *old = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;

	snprintf(state_dir, sizeof(state_dir), "%s/xdg", f->dir);
	snprintf(file, sizeof(file), "%s/rtlab/progress.json", state_dir);
	setenv("XDG_STATE_HOME", state_dir, 1);
	assert_int_equal(lesson_progress_mark(NULL, "05", 9, true, &cause), 0);
	assert_null(cause);
	assert_int_equal(access(file, F_OK), 0);
	assert_int_equal(lesson_progress_position(NULL, "05"), 9);
	if (old)
		setenv("XDG_STATE_HOME", old, 1);
	else
		unsetenv("XDG_STATE_HOME");
	free(old);
}

static void test_answers_scored(void **state)
{
	struct fixture *f = *state;
	struct rt_progress_quiz rq;
	struct rt_progress *p;
	double total = -1;
	unsigned int b = 1, wrong = 0, ac[] = { 0, 2 }, partial[] = { 0 };

	assert_int_equal(answer_text(f, "03", f->single, "b", &b, 1), 0);
	assert_int_equal(answer_text(f, "03", f->multi, "a", partial, 1), 0);
	assert_int_equal(answer_text(f, "03", f->numeric, "95.4", NULL, 0), 0);
	p = load(f);
	assert_int_equal(rt_progress_quiz_get(p, "03", "s-1", &rq), 0);
	assert_string_equal(rq.answer, "b");
	assert_true(rq.score == 1.0);
	assert_int_equal(rq.attempts, 1);
	assert_int_equal(rt_progress_quiz_get(p, "03", "m-1", &rq), 0);
	assert_string_equal(rq.answer, "a");
	assert_true(rq.score == 0.0);	/* a subset of the right set is wrong */
	assert_int_equal(rt_progress_quiz_get(p, "03", "n-1", &rq), 0);
	assert_string_equal(rq.answer, "95.4");
	assert_true(rq.score == 1.0);
	assert_int_equal(rt_progress_quiz_count(p, "03", &total), 3);
	assert_true(total == 2.0);
	assert_int_equal(rt_progress_prediction_count(p, "03"), 0);
	rt_progress_free(p);

	/* A second attempt replaces the answer and counts the attempt. */
	assert_int_equal(answer_text(f, "03", f->single, "a", &wrong, 1), 0);
	assert_int_equal(answer_text(f, "03", f->multi, "a,c", ac, 2), 0);
	p = load(f);
	assert_int_equal(rt_progress_quiz_get(p, "03", "s-1", &rq), 0);
	assert_string_equal(rq.answer, "a");
	assert_true(rq.score == 0.0);
	assert_int_equal(rq.attempts, 2);
	assert_int_equal(rt_progress_quiz_get(p, "03", "m-1", &rq), 0);
	assert_true(rq.score == 1.0);
	rt_progress_free(p);
}

static void test_prediction(void **state)
{
	struct fixture *f = *state;
	struct rt_progress_prediction pr;
	struct rt_progress_quiz rq;
	struct rt_progress *p;

	assert_int_equal(answer_text(f, "03", f->predict, " 250 ", NULL, 0), 0);
	p = load(f);
	assert_int_equal(rt_progress_prediction_get(p, "03", "p-1", &pr), 0);
	assert_true(pr.value == 250.0);
	assert_string_equal(pr.unit, "us");
	assert_int_equal(rt_progress_prediction_count(p, "03"), 1);
	assert_int_equal(rt_progress_quiz_get(p, "03", "p-1", &rq), 0);
	assert_true(rq.score == 0.0);
	assert_string_equal(rq.answer, " 250 ");
	rt_progress_free(p);
}

static void test_answer_without_text(void **state)
{
	struct fixture *f = *state;
	struct quiz_verdict v = { .correct = true, .value = 95 };
	struct rt_progress_quiz rq;
	struct rt_progress *p;
	char *cause = NULL;

	assert_int_equal(lesson_progress_answer(f->path, "08", f->numeric, NULL, &v, &cause), 0);
	p = load(f);
	assert_int_equal(rt_progress_quiz_get(p, "08", "n-1", &rq), 0);
	assert_string_equal(rq.answer, "95");
	assert_true(rq.score == 1.0);
	rt_progress_free(p);
}

static void test_reset(void **state)
{
	struct fixture *f = *state;
	struct rt_progress_prediction pr;
	struct rt_progress_quiz rq;
	struct rt_progress *p;
	unsigned int b = 1;
	char *cause = NULL;

	assert_int_equal(lesson_progress_mark(f->path, "03", 12, true, &cause), 0);
	assert_int_equal(answer_text(f, "03", f->single, "b", &b, 1), 0);
	assert_int_equal(answer_text(f, "03", f->predict, "100", NULL, 0), 0);
	assert_int_equal(lesson_progress_mark(f->path, "04", 5, true, &cause), 0);
	assert_int_equal(answer_text(f, "04", f->single, "b", &b, 1), 0);

	assert_int_equal(lesson_progress_reset(f->path, "03", &cause), 0);
	assert_null(cause);
	p = load(f);
	assert_false(rt_progress_lesson_read(p, "03"));
	assert_int_equal(rt_progress_lesson_position(p, "03"), 0);
	assert_int_equal(rt_progress_quiz_get(p, "03", "s-1", &rq), -ENOENT);
	assert_int_equal(rt_progress_prediction_get(p, "03", "p-1", &pr), -ENOENT);
	assert_true(rt_progress_lesson_read(p, "04"));
	assert_int_equal(rt_progress_quiz_get(p, "04", "s-1", &rq), 0);
	rt_progress_free(p);

	/* Resetting a lesson never seen is not an error. */
	assert_int_equal(lesson_progress_reset(f->path, "09", &cause), 0);
}

static void test_corrupt_file(void **state)
{
	struct fixture *f = *state;
	char *cause = NULL;

	assert_int_equal(rt_file_write_atomic(f->path, "{\"schema\": \"rtlab.progr", 23, 0600, NULL),
			 0);
	assert_int_equal(lesson_progress_position(f->path, "03"), 0);
	/* The corrupt file went aside, so a write now starts afresh. */
	assert_int_equal(lesson_progress_mark(f->path, "03", 3, false, &cause), 0);
	assert_null(cause);
	assert_int_equal(lesson_progress_position(f->path, "03"), 3);
}

static void test_bad_arguments(void **state)
{
	struct fixture *f = *state;
	struct quiz_verdict v = { .correct = true };
	char bad[160], *cause = NULL;

	assert_int_equal(lesson_progress_mark(f->path, "", 1, false, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(lesson_progress_answer(f->path, "03", NULL, "a", &v, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	/* A control character makes an invalid id for the store. */
	assert_int_equal(lesson_progress_mark(f->path, "0\n3", 1, false, &cause), -EINVAL);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "0\n3"));
	free(cause);
	cause = NULL;
	assert_int_equal(lesson_progress_reset(f->path, NULL, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(lesson_progress_position(f->path, NULL), 0);

	/* A path below a regular file cannot be written, even as root. */
	snprintf(bad, sizeof(bad), "%s/file", f->dir);
	assert_int_equal(rt_file_write_atomic(bad, "x", 1, 0600, NULL), 0);
	strncat(bad, "/progress.json", sizeof(bad) - strlen(bad) - 1);
	assert_true(lesson_progress_mark(bad, "03", 1, false, &cause) < 0);
	assert_non_null(cause);
	free(cause);
	assert_int_equal(lesson_progress_position(bad, "03"), 0);
}

static void test_concurrent_writers(void **state)
{
	struct fixture *f = *state;
	struct rt_progress *p;
	enum { NPROC = 4, NEACH = 10 };
	pid_t pids[NPROC];

	for (int i = 0; i < NPROC; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char id[3];
			int bad = 0;

			for (int k = 0; k < NEACH; k++) {
				lesson_progress_id((unsigned int)(i * NEACH + k + 1), id);
				bad |= lesson_progress_mark(f->path, id, (unsigned long)k + 1,
							    true, NULL);
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (int i = 0; i < NPROC; i++) {
		int st;

		assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	p = load(f);
	for (int i = 0; i < NPROC * NEACH; i++) {
		char id[3];

		lesson_progress_id((unsigned int)i + 1, id);
		assert_true(rt_progress_lesson_read(p, id));
		assert_int_equal(rt_progress_lesson_position(p, id), i % NEACH + 1);
	}
	rt_progress_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id),
		cmocka_unit_test_setup_teardown(test_position_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers_scored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prediction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_without_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
	};

	fixture_lesson_labs_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
