/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_details: the pane that opens over the menu for the selected row. Its
 * model is a list of labelled fields built from a lesson entry or a lab
 * descriptor; drawing wraps the values to the pane width and scrolls when
 * they do not fit.
 */
#ifndef RTLAB_UI_UI_DETAILS_H
#define RTLAB_UI_UI_DETAILS_H

#include <stddef.h>

#include <curses.h>

#include "ui_theme.h"

struct lab_ops;
struct lesson_entry;
struct lesson_index;

struct ui_field {
	char *label;		/* owned */
	char *value;		/* owned; UTF-8, may contain '\n' */
	enum ui_role role;	/* how the value is drawn */
};

struct ui_details {
	char *title;		/* owned; the frame title */
	struct ui_field *fields;	/* owned */
	size_t nfields;
	int scroll;		/* first content line on screen */
	int nlines;		/* content lines at the last draw */
	int page;		/* content lines on screen at the last draw */
};

enum ui_details_action {
	UI_DETAILS_NONE,
	UI_DETAILS_CLOSE,
	UI_DETAILS_HELP,
};

/**
 * ui_details_init_lesson - describe one lesson (or the glossary)
 * @e: the entry (borrowed; only read during the call)
 *
 * Returns 0 or -ENOMEM. Release with ui_details_fini().
 */
int ui_details_init_lesson(struct ui_details *d, const struct lesson_entry *e);

/**
 * ui_details_init_lab - describe one lab: summary, state, needs, simulation
 * @idx: the lesson index, to name the lesson that teaches it (may be NULL)
 *
 * Returns 0 or -ENOMEM. Release with ui_details_fini().
 */
int ui_details_init_lab(struct ui_details *d, const struct lab_ops *lab,
			const struct lesson_index *idx);

void ui_details_fini(struct ui_details *d);

/* Draw the pane centred in the @h x @cols area at (@y, @x). */
void ui_details_draw(struct ui_details *d, WINDOW *win, int y, int x, int h, int cols);

enum ui_details_action ui_details_key(struct ui_details *d, int key);

/**
 * ui_details_needs_words - @needs (LAB_NEED_* bits) as a list of phrases
 *
 * One phrase per line, e.g. "real-time scheduling (root or CAP_SYS_NICE)".
 * Returns a string the caller frees, "" when @needs is 0, or NULL on ENOMEM.
 */
char *ui_details_needs_words(unsigned int needs);

#endif
