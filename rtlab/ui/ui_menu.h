/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_menu: the main menu, one scrollable list in two sections: the lessons
 * found by lesson_index and the labs of lab_table. The model is a flat array
 * of rows (headings, notes, entries) built once; drawing only lays it out for
 * the current window size, so a resize keeps the selection.
 */
#ifndef RTLAB_UI_UI_MENU_H
#define RTLAB_UI_UI_MENU_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

struct lab_ops;
struct lesson_entry;
struct lesson_index;

enum ui_row_kind {
	UI_ROW_SECTION,		/* a heading, not selectable */
	UI_ROW_NOTE,		/* a dimmed remark, e.g. no lessons installed */
	UI_ROW_GAP,		/* an empty line between sections */
	UI_ROW_LESSON,		/* a lesson or the glossary */
	UI_ROW_LAB,
};

struct ui_row {
	enum ui_row_kind kind;
	const char *text;			/* borrowed; SECTION and NOTE */
	const struct lesson_entry *lesson;	/* borrowed from ui_menu.lessons */
	const struct lab_ops *lab;		/* borrowed from lab_table */
};

/* What the progress file says about one lesson, for its row. */
struct ui_menu_mark {
	bool read;		/* its end has been shown in the reader */
	unsigned int right;	/* points from its graded questions */
	unsigned int answered;	/* graded questions answered (predictions excluded) */
	int graded;		/* graded questions in the lesson; -1 before counting */
};

struct ui_menu {
	struct lesson_index *lessons;	/* owned; NULL when the folder was unreadable */
	struct ui_menu_mark *marks;	/* owned; one per lessons->entries, may be NULL */
	char *lessons_note;		/* owned; shown when there is no lesson row */
	struct ui_row *rows;		/* owned */
	size_t nrows;
	size_t sel;			/* index of the selected row; nrows when none */
	size_t top;			/* first row on screen */
	int page;			/* rows on screen at the last draw */
};

enum ui_menu_action {
	UI_MENU_NONE,
	UI_MENU_OPEN,		/* read the lesson, or show the lab, of ui_menu_selected() */
	UI_MENU_INFO,		/* show the details of ui_menu_selected() */
	UI_MENU_HELP,
	UI_MENU_QUIT,
};

/**
 * ui_menu_init - build the menu model
 * @lessons: the lesson index; ownership moves to @m (may be NULL)
 * @lessons_cause: why @lessons is NULL, for the note row (borrowed; may be NULL)
 *
 * Returns 0 or -ENOMEM; on failure @lessons has been freed. Release the
 * model with ui_menu_fini().
 */
int ui_menu_init(struct ui_menu *m, struct lesson_index *lessons, const char *lessons_cause);

void ui_menu_fini(struct ui_menu *m);

/**
 * ui_menu_refresh - re-read the progress file for the read marks and scores
 *
 * Call after the reader closes. A progress file that cannot be read leaves
 * the marks empty (the reason is logged); the menu works without them.
 */
void ui_menu_refresh(struct ui_menu *m);

/* Draw the list into the @h x @cols area at (@y, @x), scrolled to the selection. */
void ui_menu_draw(struct ui_menu *m, WINDOW *win, int y, int x, int h, int cols);

/* React to @key; says what the caller should do next. */
enum ui_menu_action ui_menu_key(struct ui_menu *m, int key);

/* The selected row (borrowed), or NULL when nothing can be selected. */
const struct ui_row *ui_menu_selected(const struct ui_menu *m);

/* Counts for the title bar: lesson files and labs in the model. */
size_t ui_menu_lesson_count(const struct ui_menu *m);
size_t ui_menu_lab_count(const struct ui_menu *m);

/* The one-word state of @lab for lists, e.g. "coming" or "ready" (static). */
const char *ui_menu_lab_state(const struct lab_ops *lab);

#endif
