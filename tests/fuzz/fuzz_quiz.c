/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_quiz: the quiz block parser on arbitrary bytes. The first byte picks
 * the starting line; the rest is the block body. A block that parses is then
 * checked against a few answers derived from the input, so the checker sees
 * every kind too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/quiz.h"
#include "../unit/lesson_labs_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct quiz_answer a = { 0 };
	struct quiz_verdict v;
	unsigned int set[3];
	struct quiz *q = NULL;
	char *body, *cause = NULL;

	fixture_lesson_labs_init();

	if (!size || size > 1 << 16)
		return 0;
	body = malloc(size);
	if (!body)
		return 0;
	memcpy(body, data + 1, size - 1);
	body[size - 1] = '\0';
	if (quiz_parse_block(body, 1 + data[0], "fuzz.md", &q, &cause) == 0) {
		set[0] = data[0] % 5;
		set[1] = data[0] % 3;
		set[2] = 0;
		a.choice = data[0] % 4;
		a.choices = set;
		a.nchoices = 3;
		a.text = q->explain;	/* any text: usually not a number */
		quiz_check_answer(q, &a, &v);
		a.text = "42";
		quiz_check_answer(q, &a, &v);
	}
	quiz_free(q);
	free(cause);
	free(body);
	return 0;
}
