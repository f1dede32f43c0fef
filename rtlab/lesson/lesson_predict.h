/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_predict: the predict questions the lessons ask about one lab.
 *
 * A predict question (lessons/FORMAT.md) asks the learner for a number
 * before a lab is run: the lab, its scenario, a metric of the results
 * summary and its unit. A lab run copies the learner's answers into its
 * results document next to what it measured, and the lab's screen shows
 * them; both get the questions here instead of parsing every lesson.
 */
#ifndef RTLAB_LESSON_LESSON_PREDICT_H
#define RTLAB_LESSON_LESSON_PREDICT_H

#include <stddef.h>

/* One predict question about the lab asked for. */
struct lesson_predict_q {
	char lesson[8];		/* the lesson's progress id: "03" for lesson 3 */
	char *id;		/* owned; the question's id, unique in its lesson */
	char *scenario;		/* owned; the lab scenario it is about */
	char *metric;		/* owned; a results summary key, e.g. "p99_us" */
	char *unit;		/* owned; the metric's unit, e.g. "us" */
	char *prompt;		/* owned; the question as written (inline CommonMark) */
	char *when;		/* owned; the run it means (quiz_when_next()); NULL: any */
};

/**
 * lesson_predict_list - the installed lessons' predict questions about @lab
 * @lab: a lab name as lessons write it in `lab:`, e.g. "latency"
 * @out: on success, an array the caller releases with lesson_predict_list_free(),
 *       NULL when there is no question
 * @n: its length
 * @cause: on failure, why (caller frees)
 *
 * The lessons are those of lesson_index_load(), in its order (by number),
 * and each lesson's questions in the order they are written. The glossary,
 * lessons the index lists with a problem (no title, a number used twice,
 * unreadable) and broken quiz blocks are skipped, as the menu and the
 * reader skip them; no lessons installed gives no question, not an error.
 * Quiz `lab:` keys are checked against the list given to lesson_labs_set(),
 * so without one there are no predict questions at all.
 *
 * Returns 0, or a negative errno when the lessons folder cannot be listed
 * or memory runs out.
 */
int lesson_predict_list(const char *lab, struct lesson_predict_q **out, size_t *n,
			char **cause);

/* lesson_predict_list() over the lessons folder @dir instead of the installed one. */
int lesson_predict_scan(const char *dir, const char *lab, struct lesson_predict_q **out,
			size_t *n, char **cause);

/* Release @q, an array of @n questions. lesson_predict_list_free(NULL, 0) does nothing. */
void lesson_predict_list_free(struct lesson_predict_q *q, size_t n);

#endif
