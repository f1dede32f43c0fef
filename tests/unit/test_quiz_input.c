/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for quiz_input: letters for single and multi questions (case,
 * commas and spaces, repeats, letters run together, out of range), numbers
 * with and without the question's unit, and the reasons given for refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/quiz.h"
#include "lesson/quiz_input.h"
#include "lesson_labs_fixture.h"

struct fixture {
	struct quiz *single, *multi, *numeric, *predict;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f ||
	    quiz_parse_block("id: s\nkind: single\nquestion: Q\n- [ ] a\n- [x] b\n- [ ] c\n"
			     "explain: E\n", 2, "t.md", &f->single, NULL) ||
	    quiz_parse_block("id: m\nkind: multi\nquestion: Q\n- [x] a\n- [ ] b\n- [x] c\n"
			     "- [ ] d\nexplain: E\n", 2, "t.md", &f->multi, NULL) ||
	    quiz_parse_block("id: n\nkind: numeric\nquestion: Q\nanswer: 350\ntolerance: 0\n"
			     "unit: us\nexplain: E\n", 2, "t.md", &f->numeric, NULL) ||
	    quiz_parse_block("id: p\nkind: predict\nquestion: Q\nlab: latency\nmetric: max_us\n"
			     "scenario: idle-other\nunit: us\nexplain: E\n", 2, "t.md",
			     &f->predict, NULL))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	quiz_free(f->single);
	quiz_free(f->multi);
	quiz_free(f->numeric);
	quiz_free(f->predict);
	free(f);
	return 0;
}

/* Parses @line, expecting success; returns the verdict's correctness. */
static bool accepted(const struct quiz *q, const char *line, const char *canon)
{
	struct quiz_input in;
	struct quiz_verdict v;
	char *why = NULL;

	assert_int_equal(quiz_input_parse(q, line, &in, &why), 0);
	assert_null(why);
	assert_string_equal(in.text, canon);
	assert_int_equal(quiz_check_answer(q, &in.answer, &v), 0);
	return v.correct;
}

/* Parses @line, expecting a refusal whose reason contains @reason. */
static void refused(const struct quiz *q, const char *line, const char *reason)
{
	struct quiz_input in;
	char *why = NULL;

	assert_int_equal(quiz_input_parse(q, line, &in, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, reason))
		fail_msg("reason '%s' does not contain '%s'", why, reason);
	free(why);
}

static void test_single(void **state)
{
	struct fixture *f = *state;

	assert_true(accepted(f->single, "b", "b"));
	assert_true(accepted(f->single, "  B \r\n", "b"));
	assert_false(accepted(f->single, "a", "a"));
	refused(f->single, "", "one letter");
	refused(f->single, "d", "'d' is not one of a to c");
	refused(f->single, "a b", "one letter only");
	refused(f->single, "ab", "one letter only");
	refused(f->single, "a,b", "',' is not a letter");
	refused(f->single, "1", "'1' is not a letter");
	refused(f->single, "\033[2J", "type only letters");
}

static void test_multi(void **state)
{
	struct fixture *f = *state;
	struct quiz_input in;

	assert_true(accepted(f->multi, "a,c", "a,c"));
	assert_true(accepted(f->multi, "c a", "a,c"));
	assert_true(accepted(f->multi, "A, c, a", "a,c"));
	assert_false(accepted(f->multi, "a", "a"));
	assert_false(accepted(f->multi, "a,b,c", "a,b,c"));
	assert_int_equal(quiz_input_parse(f->multi, "d , b", &in, NULL), 0);
	assert_int_equal(in.answer.nchoices, 2);
	assert_int_equal(in.choices[0], 1);
	assert_int_equal(in.choices[1], 3);
	refused(f->multi, " , ", "one or more letters");
	refused(f->multi, "ac", "separate the letters");
	refused(f->multi, "a,e", "'e' is not one of a to d");
}

static void test_numbers(void **state)
{
	struct fixture *f = *state;
	struct quiz_input in;
	char line[400];

	assert_true(accepted(f->numeric, "350", "350"));
	assert_true(accepted(f->numeric, "350 us", "350"));
	assert_true(accepted(f->numeric, "350US", "350"));
	assert_true(accepted(f->numeric, " 350.0 ", "350.0"));
	assert_false(accepted(f->numeric, "-3", "-3"));
	refused(f->numeric, "", "type a number in us");
	refused(f->numeric, "us", "not a plain number");
	refused(f->numeric, "3e2", "'3e2' is not a plain number");
	refused(f->numeric, "350 ms", "plain number");
	refused(f->numeric, "0x10", "not a plain number");
	refused(f->numeric, "\033]0;x\007", "type a plain number");
	assert_true(accepted(f->predict, "250", "250"));
	assert_int_equal(quiz_input_parse(f->predict, "12.5us", &in, NULL), 0);
	assert_string_equal(in.answer.text, "12.5");
	memset(line, '1', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	refused(f->predict, line, "too long");
}

static void test_too_many_options(void **state)
{
	struct quiz *q = NULL;
	struct quiz_input in;
	char src[1024] = "id: big\nkind: single\nquestion: Q\n", *why = NULL;

	(void)state;
	for (int i = 0; i < 27; i++)
		strcat(src, i == 3 ? "- [x] o\n" : "- [ ] o\n");
	strcat(src, "explain: E\n");
	assert_int_equal(quiz_parse_block(src, 2, "t.md", &q, NULL), 0);
	assert_int_equal(quiz_input_parse(q, "a", &in, &why), -ENOTSUP);
	assert_non_null(why);
	free(why);
	quiz_free(q);
	assert_int_equal(quiz_input_letter(0), 'a');
	assert_int_equal(quiz_input_letter(25), 'z');
	assert_int_equal(quiz_input_letter(26), '?');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
		cmocka_unit_test(test_too_many_options),
	};

	fixture_lesson_labs_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
