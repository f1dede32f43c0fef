/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_views: a results document's views on screen, the same tables
 * `rtlab lab run` prints (report_lines()), in a pane that scrolls both
 * ways: a lab's summary screen shows its outcome without knowing the
 * document's schema, and a table wider than the terminal is still all
 * there, a Left/Right away. Notes are wrapped at the pane's width instead:
 * they are sentences, and a sentence cut with an ellipsis is lost.
 */
#ifndef RTLAB_UI_UI_VIEWS_H
#define RTLAB_UI_UI_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

struct rt_result;

struct ui_views_line;
struct ui_views_row;

struct ui_views {
	struct ui_views_line *lines;	/* owned */
	size_t nlines;
	struct ui_views_row *rows;	/* owned: the lines as drawn, notes wrapped */
	size_t nrows;
	int rows_cols;			/* the width the rows were made for */
	size_t top;			/* first row shown */
	int left;			/* columns scrolled off to the left (not notes) */
	int width;			/* the widest line but the notes, in columns */
	int rows_shown;			/* rows the last draw had room for */
};

/**
 * ui_views_load - lay out @res's views (replacing what @v held)
 *
 * Returns 0 or a negative errno (@v is then empty). @res may be NULL: empty.
 */
int ui_views_load(struct ui_views *v, const struct rt_result *res);

/* Draw the lines that fit in the @h x @cols area at (@y, @x), with scroll marks. */
void ui_views_draw(struct ui_views *v, WINDOW *win, int y, int x, int h, int cols);

/* Up, Down, PgUp, PgDn, Home, End, Left, Right scroll: true when @key was one of them. */
bool ui_views_key(struct ui_views *v, int key);

/* Free; @v is zeroed. */
void ui_views_fini(struct ui_views *v);

#endif
