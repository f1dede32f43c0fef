/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_quizzes: the questions of one lesson, for the front ends that only
 * count or look them up (the menu's "right of graded" marks, `rtlab
 * progress`), so that they neither parse lessons nor walk the document
 * model themselves.
 *
 * Only well-formed quiz blocks are listed (a broken one is a problem of the
 * lesson, see lesson_lint); links are not resolved, so loading is just
 * reading and parsing the one file.
 */
#ifndef RTLAB_LESSON_LESSON_QUIZZES_H
#define RTLAB_LESSON_LESSON_QUIZZES_H

#include <stddef.h>

struct quiz;

struct lesson_quizzes {
	struct quiz **quizzes;	/* owned; in the order of the lesson */
	size_t count;
	unsigned int graded;	/* questions with a right answer: every kind but predict */
	unsigned int predict;	/* predict questions (count - graded) */
};

/**
 * lesson_quizzes_load - the quiz questions of the lesson file @path
 * @out: filled on success; release it with lesson_quizzes_fini()
 * @cause: on failure, why (caller frees)
 *
 * Returns 0, or a negative errno when the file cannot be read (as
 * lesson_doc_load(): -EFBIG for a file larger than a lesson may be), or
 * -ENOMEM; @out is then empty.
 */
int lesson_quizzes_load(const char *path, struct lesson_quizzes *out, char **cause);

/* Release what @qs owns and empty it. */
void lesson_quizzes_fini(struct lesson_quizzes *qs);

/* The question with id @id, borrowed from @qs, or NULL (also when @qs is NULL). */
const struct quiz *lesson_quizzes_find(const struct lesson_quizzes *qs, const char *id);

#endif
