/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_quiz_input: the parser of what a learner types at the quiz prompt.
 * The first byte picks the question (single with 4 options, multi with 26,
 * numeric with a unit, predict); the rest is the typed line. An accepted
 * line must be judgeable by quiz_check_answer(), and its canonical text must
 * parse again to the same answer; a refused one must say why.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/quiz.h"
#include "lesson/quiz_input.h"
#include "../unit/lesson_labs_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const blocks[] = {
	"id: s\nkind: single\nquestion: Q\n- [ ] a\n- [x] b\n- [ ] c\n- [ ] d\nexplain: E\n",
	"id: m\nkind: multi\nquestion: Q\n"
	"- [x] a\n- [ ] b\n- [x] c\n- [ ] d\n- [ ] e\n- [ ] f\n- [ ] g\n- [ ] h\n- [ ] i\n"
	"- [ ] j\n- [ ] k\n- [ ] l\n- [ ] m\n- [ ] n\n- [ ] o\n- [ ] p\n- [ ] q\n- [ ] r\n"
	"- [ ] s\n- [ ] t\n- [ ] u\n- [ ] v\n- [ ] w\n- [ ] x\n- [ ] y\n- [x] z\nexplain: E\n",
	"id: n\nkind: numeric\nquestion: Q\nanswer: 95\ntolerance: 0.5\nunit: us\nexplain: E\n",
	"id: p\nkind: predict\nquestion: Q\nlab: latency\nmetric: max_us\nscenario: idle-other\n"
	"unit: us\nexplain: E\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct quiz_input in, again;
	struct quiz_verdict v, v2;
	struct quiz *q = NULL;
	char *line, *why = NULL;
	int ret;

	fixture_lesson_labs_init();

	if (!size || size > 4096)
		return 0;
	if (quiz_parse_block(blocks[data[0] % 4], 2, "fuzz.md", &q, NULL))
		abort();
	line = malloc(size);
	if (!line)
		goto out;
	memcpy(line, data + 1, size - 1);
	line[size - 1] = '\0';
	ret = quiz_input_parse(q, line, &in, &why);
	if (ret == 0) {
		if (why || quiz_check_answer(q, &in.answer, &v))
			abort();
		if (quiz_input_parse(q, in.text, &again, NULL) ||
		    quiz_check_answer(q, &again.answer, &v2) || v.correct != v2.correct ||
		    strcmp(in.text, again.text))
			abort();
	} else if (ret == -EINVAL && !why) {	/* a refusal always says why */
		abort();
	}
	free(why);
	free(line);
out:
	quiz_free(q);
	return 0;
}
