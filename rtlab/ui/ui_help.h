/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_help: the overlay that lists every key, opened with '?' from any
 * screen. Its key table is the one place where keys are documented, so the
 * footer hints and this list cannot disagree for long.
 */
#ifndef RTLAB_UI_UI_HELP_H
#define RTLAB_UI_UI_HELP_H

#include <stdbool.h>

#include <curses.h>

/* Which keys to list: the screen the help was opened from. */
enum ui_help_topic {
	UI_HELP_MENU,		/* the menu and its details pane */
	UI_HELP_READER,		/* the lesson reader */
	UI_HELP_QUIZ,		/* a quiz question inside the reader */
	UI_HELP_TRACE,		/* the trace viewer (rtlab trace view, the ftrace lab) */
};

/*
 * One line of a help list: a group heading when @keys is NULL; a list ends
 * with { NULL, NULL }. A lab screen keeps its own list (ui_lab_screen.h).
 */
struct ui_help_line {
	const char *keys;
	const char *what;
};

/* The list of @topic. */
const struct ui_help_line *ui_help_lines(enum ui_help_topic topic);

/* Draw @lines, then the keys that work anywhere, centred in the @h x @cols area at (@y, @x). */
void ui_help_draw_lines(WINDOW *win, const struct ui_help_line *lines, int y, int x, int h,
			int cols);

/* Draw the keys of @topic centred in the @h x @cols area at (@y, @x). */
void ui_help_draw(WINDOW *win, enum ui_help_topic topic, int y, int x, int h, int cols);

/* True when @key closes the help (any real key does; a resize does not). */
bool ui_help_key(int key);

#endif
