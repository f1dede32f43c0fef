/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for lesson_labs: lab names in lessons are checked through the
 * lookup the program gives; without one, a lab link and a quiz's `lab:` key
 * are problems that say so (never accepted, never a crash); with the real
 * registry, known, planned and unknown labs come out as lab_find() says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/lesson_doc.h"
#include "lesson/lesson_labs.h"
#include "lesson/quiz.h"
#include "lesson_labs_fixture.h"

static unsigned int lookups;

/* Two labs: "alpha" ready, "beta" planned. */
static bool fake_lookup(const char *name, bool *planned)
{
	lookups++;
	if (!strcmp(name, "alpha") || !strcmp(name, "beta")) {
		*planned = !strcmp(name, "beta");
		return true;
	}
	return false;
}

static const char predict_block[] =
	"id: p\nkind: predict\nquestion: q\nlab: %s\nmetric: max_us\nscenario: s\n"
	"unit: us\nexplain: e\n";

static int parse_predict(const char *lab, char **cause)
{
	char body[256];
	struct quiz *q = NULL;
	int ret;

	snprintf(body, sizeof(body), predict_block, lab);
	ret = quiz_parse_block(body, 2, "t.md", &q, cause);
	if (!ret)
		assert_string_equal(q->lab, lab);
	quiz_free(q);
	return ret;
}

static struct lesson_doc *parse(const char *md)
{
	struct lesson_doc *doc = NULL;

	assert_int_equal(lesson_doc_parse(md, strlen(md), "t.md", &doc, NULL), 0);
	return doc;
}

static void test_find(void **state)
{
	bool planned = true;

	(void)state;
	lesson_labs_set(fake_lookup);
	assert_int_equal(lesson_labs_find("alpha", &planned), 0);
	assert_false(planned);
	assert_int_equal(lesson_labs_find("beta", &planned), 0);
	assert_true(planned);
	assert_int_equal(lesson_labs_find("beta", NULL), 0);
	planned = true;
	assert_int_equal(lesson_labs_find("gamma", &planned), -ENOENT);
	assert_true(planned);	/* left alone */
	assert_int_equal(lesson_labs_find(NULL, NULL), -ENOENT);
	lesson_labs_set(NULL);
	lookups = 0;
	assert_int_equal(lesson_labs_find("alpha", &planned), -ENODATA);
	assert_int_equal(lookups, 0);
}

static void test_quiz_lab_key(void **state)
{
	char *cause = NULL;

	(void)state;
	lesson_labs_set(fake_lookup);
	assert_int_equal(parse_predict("beta", &cause), 0);
	assert_null(cause);
	assert_int_equal(parse_predict("gamma", &cause), -EINVAL);
	assert_string_equal(cause, "t.md:5: unknown lab 'gamma'");
	free(cause);
	cause = NULL;

	/* No list: the block is refused with a reason, not taken on trust. */
	lesson_labs_set(NULL);
	assert_int_equal(parse_predict("alpha", &cause), -EINVAL);
	assert_string_equal(cause, "t.md:5: lab 'alpha' not checked: no list of labs was given "
				   "(lesson_labs_set())");
	free(cause);
}

static void test_lab_links(void **state)
{
	static const char md[] =
		"# Links\n\n[a](rtlab:lab/alpha) [b](rtlab:lab/beta) [g](rtlab:lab/gamma)\n";
	struct lesson_doc *doc;

	(void)state;
	lesson_labs_set(fake_lookup);
	doc = parse(md);
	assert_int_equal(doc->nlinks, 3);
	assert_true(doc->links[0].resolved);
	assert_false(doc->links[0].planned);
	assert_true(doc->links[1].resolved);
	assert_true(doc->links[1].planned);
	assert_string_equal(doc->links[1].label, "beta lab (coming)");
	assert_false(doc->links[2].resolved);
	assert_int_equal(doc->nproblems, 1);
	assert_string_equal(doc->problems[0].msg, "t.md:3: unknown lab 'gamma' in link");
	lesson_doc_free(doc);

	lesson_labs_set(NULL);
	doc = parse(md);
	assert_int_equal(doc->nlinks, 3);
	for (size_t i = 0; i < doc->nlinks; i++)
		assert_false(doc->links[i].resolved);
	assert_int_equal(doc->nproblems, 3);
	assert_string_equal(doc->problems[0].msg, "t.md:3: lab 'alpha' in link not checked: no "
				   "list of labs was given (lesson_labs_set())");
	assert_string_equal(doc->links[0].label, "lab alpha (unknown)");
	lesson_doc_free(doc);
}

/* The fixture the other tests use is the real registry. */
static void test_real_registry(void **state)
{
	bool planned = false;
	char *cause = NULL;

	(void)state;
	fixture_lesson_labs_init();
	assert_int_equal(lesson_labs_find("latency", &planned), 0);
	assert_false(planned);
	assert_int_equal(lesson_labs_find("hypervisor", &planned), 0);
	assert_false(planned);	/* every lab of the course has landed */
	assert_int_equal(lesson_labs_find("Latency", &planned), -ENOENT);
	assert_int_equal(parse_predict("latency", &cause), 0);
	lesson_labs_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_quiz_lab_key),
		cmocka_unit_test(test_lab_links),
		cmocka_unit_test(test_real_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
