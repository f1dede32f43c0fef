/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the quiz block parser and answer checking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/quiz.h"
#include "lesson_labs_fixture.h"

static const char single_body[] =
	"id: rt-def\n"
	"kind: single\n"
	"question: Which one?\n"
	"- [ ] wrong one\n"
	"- [x] right: with a colon\n"
	"- [ ] another\n"
	"explain: Because.\n";

static void test_parse_single(void **state)
{
	struct quiz *q = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(quiz_parse_block(single_body, 11, "l.md", &q, &cause), 0);
	assert_null(cause);
	assert_string_equal(q->id, "rt-def");
	assert_int_equal(q->kind, QUIZ_SINGLE);
	assert_string_equal(q->question, "Which one?");
	assert_string_equal(q->explain, "Because.");
	assert_int_equal(q->noptions, 3);
	assert_false(q->options[0].right);
	assert_true(q->options[1].right);
	assert_string_equal(q->options[1].text, "right: with a colon");
	assert_int_equal(q->options[1].line, 15);
	assert_int_equal(q->line, 10);
	assert_null(q->unit);
	assert_null(q->lab);
	quiz_free(q);
}

static void test_parse_other_kinds(void **state)
{
	struct quiz *q = NULL;
	char *cause = NULL;

	(void)state;
	assert_int_equal(quiz_parse_block("id: m\nkind: multi\nquestion: q\n- [x] a\n"
					  "- [X] b\n- [ ] c\nexplain: e\n", 2, "l.md", &q, &cause),
			 0);
	assert_int_equal(q->kind, QUIZ_MULTI);
	assert_true(q->options[0].right && q->options[1].right && !q->options[2].right);
	quiz_free(q);

	assert_int_equal(quiz_parse_block("  id: n1 \n\n kind: numeric\nquestion: q\n"
					  "answer: -95.5\ntolerance: 0.25\nunit: slots\n"
					  "explain: e\n", 2, "l.md", &q, &cause), 0);
	assert_int_equal(q->kind, QUIZ_NUMERIC);
	assert_true(q->answer == -95.5);
	assert_true(q->tolerance == 0.25);
	assert_string_equal(q->unit, "slots");
	assert_int_equal(q->noptions, 0);
	quiz_free(q);

	assert_int_equal(quiz_parse_block("id: p\nkind: predict\nquestion: q\nlab: latency\n"
					  "metric: max_us\nscenario: load-other\nunit: us\n"
					  "explain: e\n", 2, "l.md", &q, &cause), 0);
	assert_int_equal(q->kind, QUIZ_PREDICT);
	assert_string_equal(q->lab, "latency");
	assert_string_equal(q->metric, "max_us");
	assert_string_equal(q->scenario, "load-other");
	assert_string_equal(q->unit, "us");
	quiz_free(q);
	assert_null(cause);
	quiz_free(NULL);
}

/* Every error kind, with the line it must be reported on. Body starts on line 20. */
static const struct {
	const char *body;
	const char *cause;
} bad[] = {
	{ "id: a\nkind: single\nquestion: q\n- [x] a\n- [ ] b\nexplain: e\nanwser: 3\n",
	  "f.md:26: unknown key 'anwser'" },
	{ "id: a\nkind: single\nid: b\n", "f.md:22: duplicate key 'id' (first on line 20)" },
	{ "id: a\nkind: single\nquestion: q\n- [x] a\n- [ ] b\n",
	  "f.md:19: missing key 'explain'" },
	{ "kind: single\nquestion: q\n- [x] a\n- [ ] b\nexplain: e\n",
	  "f.md:19: missing key 'id'" },
	{ "", "f.md:19: missing key 'id'" },
	{ "id: a\nquestion: q\nexplain: e\n", "f.md:19: missing key 'kind'" },
	{ "id: a\nkind: essay\n", "f.md:21: unknown kind 'essay' (single, multi, numeric or predict)" },
	{ "id: Bad_Id\n", "f.md:20: id 'Bad_Id' must be lower-case letters, digits and hyphens, "
			  "starting with a letter" },
	{ "id: 1abc\n", "f.md:20: id '1abc' must be lower-case letters, digits and hyphens, "
			"starting with a letter" },
	{ "id:\n", "f.md:20: key 'id' has no value" },
	{ "id: a\nthis is prose\n", "f.md:21: expected 'key: value' or an option '- [ ] text'" },
	{ "id: a\n- [y] maybe\n",
	  "f.md:21: malformed option: write '- [ ] text' or '- [x] text'" },
	{ "id: a\n- [x]\n", "f.md:21: option has no text" },
	{ "id: a\n-[x] tight\n",
	  "f.md:21: malformed option: write '- [ ] text' or '- [x] text'" },
	{ "id: a\nkind: single\nquestion: q\n- [x] only\nexplain: e\n",
	  "f.md:23: single question needs at least two options" },
	{ "id: a\nkind: multi\nquestion: q\nexplain: e\n",
	  "f.md:19: multi question needs at least two options" },
	{ "id: a\nkind: single\nquestion: q\n- [x] a\n- [x] b\nexplain: e\n",
	  "f.md:23: single question needs exactly one [x] option, has 2" },
	{ "id: a\nkind: single\nquestion: q\n- [ ] a\n- [ ] b\nexplain: e\n",
	  "f.md:23: single question needs exactly one [x] option, has 0" },
	{ "id: a\nkind: multi\nquestion: q\n- [ ] a\n- [ ] b\nexplain: e\n",
	  "f.md:23: multi question needs at least one [x] option" },
	{ "id: a\nkind: numeric\nquestion: q\nanswer: 3\ntolerance: 0\nunit: us\n- [x] 3\n"
	  "explain: e\n", "f.md:26: options do not apply to kind numeric" },
	{ "id: a\nkind: numeric\nquestion: q\nanswer: 3us\n",
	  "f.md:23: answer '3us' is not a decimal number" },
	{ "id: a\nkind: numeric\nquestion: q\nanswer: 1e3\n",
	  "f.md:23: answer '1e3' is not a decimal number" },
	{ "id: a\nkind: numeric\nquestion: q\nanswer: 3\ntolerance: -1\n",
	  "f.md:24: tolerance '-1' is negative" },
	{ "id: a\nkind: numeric\nquestion: q\nanswer: 3\ntolerance: nan\n",
	  "f.md:24: tolerance 'nan' is not a decimal number" },
	{ "id: a\nkind: numeric\nquestion: q\nanswer: 3\nunit: us\nexplain: e\n",
	  "f.md:19: missing key 'tolerance'" },
	{ "id: a\nkind: single\nquestion: q\n- [x] a\n- [ ] b\nanswer: 3\nexplain: e\n",
	  "f.md:25: key 'answer' does not apply to kind single" },
	{ "id: a\nkind: predict\nquestion: q\nlab: nosuchlab\n",
	  "f.md:23: unknown lab 'nosuchlab'" },
	{ "id: a\nkind: predict\nquestion: q\nlab: latency\nmetric: p99\n",
	  "f.md:24: metric 'p99' must be a summary key ending in a unit (_us, _ms, _pct, _count...)" },
	{ "id: a\nkind: predict\nquestion: q\nlab: latency\nmetric: p99_us\nscenario: x\n"
	  "unit: ms\nexplain: e\n", "f.md:26: unit 'ms' must match the unit suffix of the metric" },
	{ "id: a\nkind: predict\nquestion: q\nlab: latency\nmetric: p99_us\nunit: us\n"
	  "explain: e\n", "f.md:19: missing key 'scenario'" },
	{ "id: a\nkind: predict\nquestion: q\nlab: latency\nmetric: p99_us\nscenario: s\n"
	  "unit: us\nanswer: 3\nexplain: e\n",
	  "f.md:27: key 'answer' does not apply to kind predict" },
	{ "id: a\nkind: predict\nquestion: q\nlab: latency\nmetric: p99_us\nscenario: s\n"
	  "unit: us\n- [x] a\n- [ ] b\nexplain: e\n",
	  "f.md:27: options do not apply to kind predict" },
	{ "id: a\nkind: predict\nquestion: q\nscenario: Load Other\n",
	  "f.md:23: scenario 'Load Other' must be lower-case letters, digits and hyphens" },
};

static void test_parse_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct quiz *q = (struct quiz *)1;
		char *cause = NULL;

		print_message("case %zu\n", i);
		assert_int_equal(quiz_parse_block(bad[i].body, 20, "f.md", &q, &cause), -EINVAL);
		assert_null(q);
		assert_non_null(cause);
		assert_string_equal(cause, bad[i].cause);
		free(cause);
	}
}

static void test_check_single_multi(void **state)
{
	struct quiz_verdict v;
	struct quiz_answer a = { 0 };
	struct quiz *q = NULL;
	unsigned int set[4];

	(void)state;
	assert_int_equal(quiz_parse_block(single_body, 2, "l.md", &q, NULL), 0);
	a.choice = 1;
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	assert_int_equal(v.right_chosen, 1);
	a.choice = 0;
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_false(v.correct);
	assert_int_equal(v.wrong_chosen, 1);
	assert_int_equal(v.right_missed, 1);
	a.choice = 3;
	assert_int_equal(quiz_check_answer(q, &a, &v), -EINVAL);
	quiz_free(q);

	assert_int_equal(quiz_parse_block("id: m\nkind: multi\nquestion: q\n- [x] a\n- [ ] b\n"
					  "- [x] c\n- [ ] d\nexplain: e\n", 2, "l.md", &q, NULL), 0);
	a.choices = set;
	set[0] = 2;
	set[1] = 0;
	a.nchoices = 2;
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	set[2] = 2;	/* a repeated index is still the same set */
	a.nchoices = 3;
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	a.nchoices = 1;	/* only some of the right ones */
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_false(v.correct);
	assert_int_equal(v.right_missed, 1);
	set[1] = 0;
	set[2] = 1;	/* all right ones plus a wrong one */
	a.nchoices = 3;
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_false(v.correct);
	assert_int_equal(v.wrong_chosen, 1);
	a.nchoices = 0;
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_false(v.correct);
	set[0] = 4;
	a.nchoices = 1;
	assert_int_equal(quiz_check_answer(q, &a, &v), -EINVAL);
	quiz_free(q);
}

static void test_check_numeric(void **state)
{
	static const struct {
		const char *text;
		int ret;
		bool correct;
	} cases[] = {
		{ "95", 0, true }, { "95.0", 0, true }, { " 95 ", 0, true }, { "\t95\n", 0, true },
		{ "+95", 0, true }, { "95.5", 0, true }, { "94.5", 0, true }, { "95.50", 0, true },
		{ "95.51", 0, false }, { "94.49", 0, false }, { "-95", 0, false }, { "0", 0, false },
		{ "95abc", -EINVAL, false }, { "", -EINVAL, false }, { "  ", -EINVAL, false },
		{ "nan", -EINVAL, false }, { "inf", -EINVAL, false }, { "-inf", -EINVAL, false },
		{ "9 5", -EINVAL, false }, { "0x5f", -EINVAL, false }, { "1e2", -EINVAL, false },
		{ ".", -EINVAL, false }, { "-", -EINVAL, false }, { "95us", -EINVAL, false },
	};
	struct quiz_answer a = { 0 };
	struct quiz_verdict v;
	struct quiz *q = NULL;

	(void)state;
	assert_int_equal(quiz_parse_block("id: n\nkind: numeric\nquestion: q\nanswer: 95\n"
					  "tolerance: 0.5\nunit: slots\nexplain: e\n", 2, "l.md",
					  &q, NULL), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("answer '%s'\n", cases[i].text);
		a.text = cases[i].text;
		memset(&v, 0xff, sizeof(v));
		assert_int_equal(quiz_check_answer(q, &a, &v), cases[i].ret);
		if (!cases[i].ret)
			assert_int_equal(v.correct, cases[i].correct);
	}
	a.text = NULL;
	assert_int_equal(quiz_check_answer(q, &a, &v), -EINVAL);
	quiz_free(q);

	/* Tolerance 0: only the exact value; decimal edges are not lost to rounding. */
	assert_int_equal(quiz_parse_block("id: n\nkind: numeric\nquestion: q\nanswer: 0.3\n"
					  "tolerance: 0.1\nunit: ms\nexplain: e\n", 2, "l.md",
					  &q, NULL), 0);
	a.text = "0.4";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	a.text = "0.2";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	a.text = "0.41";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_false(v.correct);
	quiz_free(q);

	assert_int_equal(quiz_parse_block("id: n\nkind: numeric\nquestion: q\nanswer: 350\n"
					  "tolerance: 0\nunit: us\nexplain: e\n", 2, "l.md",
					  &q, NULL), 0);
	a.text = "350";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	assert_true(v.value == 350);
	a.text = "350.001";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_false(v.correct);
	quiz_free(q);
}

static void test_check_predict(void **state)
{
	struct quiz_answer a = { 0 };
	struct quiz_verdict v;
	struct quiz *q = NULL;

	(void)state;
	assert_int_equal(quiz_parse_block("id: p\nkind: predict\nquestion: q\nlab: latency\n"
					  "metric: max_us\nscenario: idle-other\nunit: us\n"
					  "explain: e\n", 2, "l.md", &q, NULL), 0);
	a.text = "12000";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	assert_true(v.value == 12000);
	a.text = " 0.5 ";
	assert_int_equal(quiz_check_answer(q, &a, &v), 0);
	assert_true(v.correct);
	assert_true(v.value == 0.5);
	a.text = "lots";
	assert_int_equal(quiz_check_answer(q, &a, &v), -EINVAL);
	quiz_free(q);
	assert_int_equal(quiz_check_answer(NULL, &a, &v), -EINVAL);
}

static void test_number_parser(void **state)
{
	double d;

	(void)state;
	assert_int_equal(quiz_parse_number(".5", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(quiz_parse_number("5.", &d), 0);
	assert_true(d == 5);
	assert_int_equal(quiz_parse_number("-0", &d), 0);
	assert_int_equal(quiz_parse_number("--1", &d), -EINVAL);
	assert_int_equal(quiz_parse_number("1.2.3", &d), -EINVAL);
	/* 400 digits overflow to infinity: rejected. */
	{
		char big[402];

		memset(big, '9', 400);
		big[400] = '\0';
		assert_int_equal(quiz_parse_number(big, &d), -EINVAL);
	}
	assert_string_equal(quiz_kind_name(QUIZ_PREDICT), "predict");
	assert_string_equal(quiz_kind_name(QUIZ_SINGLE), "single");
}

/* A predict question's `when`: conditions in order; a malformed one stops the reading. */
static void test_when_conditions(void **state)
{
	const char *w = " params.spike_us=100 , env.realtime=true,params.faults=crash@1ms:1,"
			"scenario.load=fork";
	static const char *const malformed[] = {
		"spike_us=100", "params.=1", "params.x=", "result.x=1", "params.X=1",
		"params.a=1,,params.b=2", "paramsx.a=1", "scenarios.a=1",
	};
	struct quiz_when_cond c;

	(void)state;
	assert_int_equal(quiz_when_next(&w, &c), 1);
	assert_string_equal(c.section, "params");
	assert_string_equal(c.key, "spike_us");
	assert_string_equal(c.value, "100");
	assert_int_equal(quiz_when_next(&w, &c), 1);
	assert_string_equal(c.section, "env");
	assert_string_equal(c.value, "true");
	assert_int_equal(quiz_when_next(&w, &c), 1);
	assert_string_equal(c.key, "faults");
	assert_string_equal(c.value, "crash@1ms:1");
	assert_int_equal(quiz_when_next(&w, &c), 1);
	assert_string_equal(c.section, "scenario");
	assert_string_equal(c.value, "fork");
	assert_int_equal(quiz_when_next(&w, &c), 0);
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		int r;

		w = malformed[i];
		while ((r = quiz_when_next(&w, &c)) > 0)
			;
		assert_int_equal(r, -EINVAL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_single),
		cmocka_unit_test(test_parse_other_kinds),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_check_single_multi),
		cmocka_unit_test(test_check_numeric),
		cmocka_unit_test(test_check_predict),
		cmocka_unit_test(test_number_parser),
		cmocka_unit_test(test_when_conditions),
	};

	fixture_lesson_labs_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
