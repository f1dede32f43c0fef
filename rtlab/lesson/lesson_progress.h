/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lesson_progress: the learner's progress through lessons and quizzes, as
 * the front ends (the ncurses reader, `rtlab quiz`, `rtlab lesson show`)
 * record it. A thin layer over rt_progress that applies each change with
 * rt_progress_update(), so a second rtlab in another terminal never loses or
 * tears the learner's progress.
 *
 * Lessons are identified by their two-digit number as a string ("03"), so a
 * lesson keeps its progress if its file is renamed.
 */
#ifndef RTLAB_LESSON_LESSON_PROGRESS_H
#define RTLAB_LESSON_LESSON_PROGRESS_H

#include <stdbool.h>

struct quiz;
struct quiz_answer;
struct quiz_verdict;

/* "03" for lesson 3; @buf must hold at least 3 bytes. */
void lesson_progress_id(unsigned int number, char buf[static 3]);

/**
 * lesson_progress_mark - record the reading position of lesson @id
 * @path: the progress file; NULL means the default ($XDG_STATE_HOME/rtlab/progress.json)
 * @line: the source line (in the Markdown file) at the top of the pager
 * @read: also mark the lesson read (the learner reached its end)
 *
 * Returns 0 or a negative errno with @cause set.
 */
int lesson_progress_mark(const char *path, const char *id, unsigned long line, bool read,
			 char **cause);

/**
 * lesson_progress_position - where the learner left lesson @id
 *
 * Returns the source line to reopen at (0 when unknown or on error: a
 * broken progress file must never stop the learner from reading).
 */
unsigned long lesson_progress_position(const char *path, const char *id);

/**
 * lesson_progress_answer - record the answer to @q and its verdict
 * @text: the answer as the learner gave it, for the record (e.g. "b", "a,c", "95")
 *
 * Single, multi and numeric questions store the answer and score 1 or 0
 * (multi: 1 only for exactly the right set). Predict questions store the
 * number as a prediction (value + unit) for the lab to compare with later,
 * and also as an answer with score 0, so progress shows them as answered.
 */
int lesson_progress_answer(const char *path, const char *id, const struct quiz *q,
			   const char *text, const struct quiz_verdict *v, char **cause);

/* Forget everything about lesson @id. */
int lesson_progress_reset(const char *path, const char *id, char **cause);

#endif
