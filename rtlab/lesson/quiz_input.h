/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * quiz_input: turn one line that a learner typed into a quiz answer.
 *
 * The plain-text quiz (`rtlab quiz`) asks for a letter ("b"), a set of
 * letters ("a, c" or "a c"), or a number ("95", in the unit the prompt
 * shows). This module parses that line strictly, says in words why a line
 * was refused so the learner can try again, and produces a struct
 * quiz_answer ready for quiz_check_answer() plus a canonical text for the
 * progress record ("a,c"). Pure: no I/O, no globals; fuzzed by
 * tests/fuzz/fuzz_quiz_input.c.
 */
#ifndef RTLAB_LESSON_QUIZ_INPUT_H
#define RTLAB_LESSON_QUIZ_INPUT_H

#include <stddef.h>

#include "lesson/quiz.h"

/* Options are named by one letter, 'a' to 'z'; a question with more cannot be typed. */
#define QUIZ_INPUT_MAX_OPTIONS 26
/* Longest line considered; longer ones are refused, never cut. */
#define QUIZ_INPUT_MAX_LINE 256

struct quiz_input {
	struct quiz_answer answer;	/* points into this struct; valid while it lives */
	unsigned int choices[QUIZ_INPUT_MAX_OPTIONS];	/* multi: ticked indices, ascending */
	char text[QUIZ_INPUT_MAX_LINE + 1];	/* canonical: "b", "a,c", or the number as typed */
};

/**
 * quiz_input_parse - parse the learner's @line for question @q
 * @line: one line without its newline (a trailing "\r" or "\n" is ignored)
 * @in: filled on success; it must not be moved while @in->answer is used
 * @why: on -EINVAL, a short reason for the learner, e.g. "'d' is not one of
 *       a to c" (caller frees); may be NULL
 *
 * single: exactly one letter. multi: one or more letters separated by
 * commas and/or spaces; repeats count once. numeric and predict: a plain
 * decimal number (quiz_parse_number()); a unit typed after it is accepted
 * when it is the question's unit ("350 us"). Letters are case-insensitive.
 *
 * Returns 0, -EINVAL for an answer that cannot be accepted (ask again),
 * -ENOTSUP for a question with more than QUIZ_INPUT_MAX_OPTIONS options, or
 * -ENOMEM.
 */
int quiz_input_parse(const struct quiz *q, const char *line, struct quiz_input *in,
		     char **why);

/* The letter of option @i ('a' for 0), or '?' beyond QUIZ_INPUT_MAX_OPTIONS. */
char quiz_input_letter(size_t i);

#endif
