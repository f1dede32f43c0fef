/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quiz: one question of a lesson, parsed from a ```quiz fenced block, and the
 * checking of a learner's answer against it.
 *
 * The block format is described in lessons/FORMAT.md: "key: value" lines
 * (id, kind, question, explain, answer, tolerance, unit, lab, metric,
 * scenario) and options "- [ ] wrong" / "- [x] right". Every mistake is
 * reported as "name:line: message" with the line number inside the Markdown
 * file, so a lesson author can jump straight to it. The parser does no I/O
 * and reads no global but the list of labs given to lesson_labs_set() (for
 * the `lab` key), so it is unit-tested and fuzzed directly.
 */
#ifndef RTLAB_LESSON_QUIZ_H
#define RTLAB_LESSON_QUIZ_H

#include <stdbool.h>
#include <stddef.h>

enum quiz_kind {
	QUIZ_SINGLE,	/* pick one option; right if it is the [x] one */
	QUIZ_MULTI,	/* tick a set; right if it is exactly the set of [x] options */
	QUIZ_NUMERIC,	/* type a number; right if |x - answer| <= tolerance */
	QUIZ_PREDICT,	/* type a number that a lab run is compared with later */
};

struct quiz_option {
	char *text;		/* owned; inline CommonMark as written */
	bool right;		/* written as [x] */
	unsigned int line;	/* line in the Markdown file */
};

struct quiz {
	char *id;		/* owned */
	enum quiz_kind kind;
	char *question;		/* owned */
	char *explain;		/* owned */
	struct quiz_option *options;	/* owned; single and multi only */
	size_t noptions;
	double answer;		/* numeric only */
	double tolerance;	/* numeric only, >= 0 */
	char *unit;		/* owned; numeric and predict, NULL otherwise */
	char *lab;		/* owned; predict only: a lab lesson_labs_find() knows */
	char *metric;		/* owned; predict only: a results summary key, e.g. "p99_us" */
	char *scenario;		/* owned; predict only */
	char *when;		/* owned; predict only, optional: the run the question
				 * means, as quiz_when_next() reads it; NULL: any run */
	unsigned int line;	/* line of the opening ```quiz fence */
};

/* What the learner gave. Only the member that matches the quiz kind is read. */
struct quiz_answer {
	unsigned int choice;		/* single: index into options */
	const unsigned int *choices;	/* multi: indices of the ticked options (a set) */
	size_t nchoices;
	const char *text;		/* numeric and predict: what the learner typed */
};

struct quiz_verdict {
	bool correct;		/* predict: always true once the value parsed */
	double value;		/* numeric and predict: the parsed number */
	unsigned int right_chosen;	/* single, multi: [x] options ticked */
	unsigned int wrong_chosen;	/* single, multi: [ ] options ticked */
	unsigned int right_missed;	/* single, multi: [x] options not ticked */
};

/**
 * quiz_parse_block - parse the body of one ```quiz fenced block
 * @body: the lines between the fences, NUL-terminated
 * @first_line: line number (1-based) of the body's first line in the Markdown
 *              file; the opening fence is taken to be the line before it.
 *              Problems of the block as a whole (a missing key) are reported
 *              at the fence line.
 * @name: file name used in messages
 * @out: on success, the quiz; free it with quiz_free()
 * @cause: on failure, "name:line: message" (caller frees)
 *
 * Returns 0, -EINVAL for a malformed block (the first problem is reported),
 * or -ENOMEM.
 */
int quiz_parse_block(const char *body, unsigned int first_line, const char *name,
		     struct quiz **out, char **cause);

/* Releases @q and everything it owns. quiz_free(NULL) does nothing. */
void quiz_free(struct quiz *q);

/**
 * quiz_check_answer - judge @answer against @q
 * @verdict: filled on success
 *
 * Returns 0, or -EINVAL when the answer cannot be judged: an option index out
 * of range, or a numeric/predict text that is not a plain decimal number
 * (see quiz_parse_number()). The caller should ask again in that case.
 */
int quiz_check_answer(const struct quiz *q, const struct quiz_answer *answer,
		      struct quiz_verdict *verdict);

/**
 * quiz_parse_number - parse a plain decimal number strictly
 * @text: optional sign, digits, optional fraction ("95", "-0.5", ".5", "95.");
 *        white space around it is allowed, nothing else is (no exponent, no
 *        unit, no hex, no "nan" or "inf")
 * @value: the number, finite
 *
 * Returns 0 or -EINVAL (also for an empty string or an overflow to infinity).
 */
int quiz_parse_number(const char *text, double *value);

/* "single", "multi", "numeric", "predict" */
const char *quiz_kind_name(enum quiz_kind kind);

/**
 * struct quiz_when_cond - one condition of a predict question's `when`
 * @section: "params" or "env": the results document's object it reads;
 *           "scenario": the question's scenario in extra.scenarios
 * @key: a key of that object, e.g. "spike_us"
 * @value: what it must be, as text: a number, true/false, a string, or the
 *         elements of an array joined by single spaces
 */
struct quiz_when_cond {
	char section[12];
	char key[64];
	char value[128];
};

/**
 * quiz_when_next - the next condition of a `when` value
 * @p: in: where to read (the value at first); out: after the condition
 * @c: filled
 *
 * A `when` value is "section.key=value" conditions separated by commas, e.g.
 * "params.spike_us=100, env.realtime=true, scenario.load=fork". Returns 1 with @c filled, 0 at
 * the end, or -EINVAL for a malformed condition (@p then points at it).
 */
int quiz_when_next(const char **p, struct quiz_when_cond *c);

#endif
