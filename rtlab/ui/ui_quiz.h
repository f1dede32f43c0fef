/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_quiz: one quiz question, opened from the lesson reader. The learner
 * picks an option (single), ticks a set (multi) or types a number (numeric,
 * predict); the answer is judged with quiz_check_answer(), recorded with
 * lesson_progress_answer(), and the verdict and the explanation are shown
 * until the next key. The question, the options and the explanation are
 * inline Markdown, laid out by lesson_doc like the lesson itself.
 */
#ifndef RTLAB_UI_UI_QUIZ_H
#define RTLAB_UI_UI_QUIZ_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "lesson/quiz.h"

#define UI_QUIZ_INPUT_MAX 24

struct ui_quiz {
	const struct quiz *q;		/* borrowed from the lesson document */
	char lesson[3];			/* progress id of the lesson, "03" */
	unsigned int cur;		/* highlighted option */
	bool *ticked;			/* owned; multi: one flag per option */
	unsigned int chosen;		/* single: the option submitted */
	char input[UI_QUIZ_INPUT_MAX];	/* numeric and predict: what is typed */
	size_t ninput;
	bool done;			/* answered: showing the verdict */
	bool saved;			/* the answer reached the progress file */
	struct quiz_verdict verdict;
	char *error;			/* owned; "not a number", "cannot save: ..." */
};

enum ui_quiz_action {
	UI_QUIZ_NONE,
	UI_QUIZ_CLOSE,		/* back to the lesson; call ui_quiz_fini() */
	UI_QUIZ_HELP,
};

/**
 * ui_quiz_init - open question @q of lesson @lesson ("03")
 *
 * Returns 0 or -ENOMEM. Release with ui_quiz_fini().
 */
int ui_quiz_init(struct ui_quiz *z, const struct quiz *q, const char *lesson);

void ui_quiz_fini(struct ui_quiz *z);

/* Draw the question in a box centred in the @h x @cols area at (@y, @x). */
void ui_quiz_draw(struct ui_quiz *z, WINDOW *win, int y, int x, int h, int cols);

enum ui_quiz_action ui_quiz_key(struct ui_quiz *z, int key);

#endif
