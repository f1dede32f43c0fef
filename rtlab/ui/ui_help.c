/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_help: the list is grouped by where a key works. Any key closes the
 * overlay, so nobody gets stuck in it; a terminal resize does not count as
 * a key.
 */
#include "ui_help.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ui_frame.h"
#include "ui_text.h"
#include "ui_theme.h"

static const struct ui_help_line help_menu[] = {
	{ NULL, "In the menu" },
	{ "Up, k / Down, j", "move the selection" },
	{ "PgUp, ^B / PgDn, ^F", "move one page" },
	{ "Home, g / End, G", "first / last entry" },
	{ "Enter, Right, l", "read the lesson / run a lab (or details)" },
	{ "i", "details of the entry: file, problems, labs" },
	{ "q", "quit rtlab (after a lab run: y to confirm)" },
	{ NULL, "In a details pane" },
	{ "Up, k / Down, j", "scroll a line" },
	{ "PgUp / PgDn, Space", "scroll a page" },
	{ "Home, g / End, G", "top / bottom" },
	{ "Esc, Left, h, q", "close the pane" },
	{ NULL, NULL },
};

static const struct ui_help_line help_reader[] = {
	{ NULL, "In the lesson reader" },
	{ "Up, k / Down, j", "scroll a line" },
	{ "PgUp b / PgDn Space", "scroll a page" },
	{ "Home, g / End, G", "start / end of the lesson" },
	{ "] / [", "next / previous lesson" },
	{ "t", "table of contents: pick a heading, Enter" },
	{ "/ word Enter", "search; matches are highlighted" },
	{ "n / N", "next / previous match (wraps around)" },
	{ "Enter", "answer the first open quiz on screen" },
	{ "a", "answer the lesson's first open question, on screen or not" },
	{ "f 3 Enter, 3 Enter", "follow the link marked [3]" },
	{ "Backspace", "back to where you followed a link from" },
	{ "q, Esc", "back to the menu (your place is kept)" },
	{ NULL, NULL },
};

static const struct ui_help_line help_quiz[] = {
	{ NULL, "In a quiz question" },
	{ "Up, k / Down, j", "move between the options" },
	{ "a, b, c ...", "choose that option (one-answer questions)" },
	{ "Space", "tick or untick (several-answer questions)" },
	{ "Enter", "submit the answer" },
	{ "0-9 . - Backspace", "type a number (number questions)" },
	{ "Esc", "leave the question without answering" },
	{ "any key", "after the verdict: back to the lesson" },
	{ NULL, NULL },
};

static const struct ui_help_line help_trace[] = {
	{ NULL, "In the trace viewer" },
	{ "Up, k / Down, j", "previous / next line" },
	{ "PgUp, b / PgDn, Space", "one page up / down" },
	{ "Home, g / End, G", "first / last line" },
	{ "Left, h / Right, l", "scroll long lines sideways" },
	{ "/ word Enter", "search: task, function, any text" },
	{ "n / N", "next / previous match (wraps around)" },
	{ "m / M", "next / previous delay mark" },
	{ "w", "the widest delay mark" },
	{ "r", "raw file / decoded view" },
	{ "q, Esc", "close the viewer" },
	{ NULL, NULL },
};

static const struct ui_help_line help_anywhere[] = {
	{ NULL, "Anywhere" },
	{ "?", "this help; any key closes it" },
	{ "Ctrl-L", "redraw the screen" },
	{ "Ctrl-C", "leave rtlab (the terminal is restored)" },
	{ NULL, NULL },
};

#define HELP_KEY_COLS 21
#define HELP_MAX_LINES 32
#define HELP_MAX_ROWS 64		/* lines with their wrapped rows */

const struct ui_help_line *ui_help_lines(enum ui_help_topic topic)
{
	switch (topic) {
	case UI_HELP_READER:
		return help_reader;
	case UI_HELP_QUIZ:
		return help_quiz;
	case UI_HELP_TRACE:
		return help_trace;
	case UI_HELP_MENU:
		break;
	}
	return help_menu;
}

/* The lines of @first followed by the "Anywhere" group, as pointers into the tables. */
static int help_collect(const struct ui_help_line *first, const struct ui_help_line **out)
{
	const struct ui_help_line *groups[2] = { first, help_anywhere };
	int n = 0;

	for (int g = 0; g < 2; g++)
		for (const struct ui_help_line *l = groups[g]; (l->keys || l->what) &&
		     n < HELP_MAX_LINES; l++)
			out[n++] = l;
	return n;
}

void ui_help_draw(WINDOW *win, enum ui_help_topic topic, int y, int x, int h, int cols)
{
	ui_help_draw_lines(win, ui_help_lines(topic), y, x, h, cols);
}

/* One row of the box: a line's keys (on its first row only) and a piece of its text. */
struct help_row {
	const struct ui_help_line *line;
	bool first;
	const char *text;
	size_t len;
};

/* The rows of @lines with their text wrapped at @tw columns (a section: one row). */
static int help_rows(const struct ui_help_line *const *lines, int n, int tw,
		     struct help_row *rows, int max)
{
	int k = 0;

	for (int i = 0; i < n && k < max; i++) {
		const char *t = lines[i]->what ? lines[i]->what : "";
		bool first = true;

		do {
			size_t next = 0, len = lines[i]->keys ? ui_text_wrap(t, tw, &next) :
					       strlen(t);

			rows[k++] = (struct help_row){ lines[i], first, t, len };
			first = false;
			t = lines[i]->keys ? t + next : t + len;
		} while (*t && k < max);
	}
	return k;
}

void ui_help_draw_lines(WINDOW *win, const struct ui_help_line *first, int y, int x, int h,
			int cols)
{
	const struct ui_help_line *lines[HELP_MAX_LINES];
	struct help_row rows[HELP_MAX_ROWS];
	int n = help_collect(first, lines);
	int w = cols - 4 < 72 ? cols - 4 : 72;
	int tw = w - 9 - HELP_KEY_COLS;
	int nrows, pad, bh, by, bx, room;

	if (w < 30 || h < 5)
		return;
	/* Wrapped, never cut: a long line takes the rows it needs under its text. */
	nrows = help_rows(lines, n, tw, rows, HELP_MAX_ROWS);
	/* A blank row inside the frame above and below, unless the screen lacks them. */
	pad = nrows + 4 <= h ? 1 : 0;
	bh = nrows + 2 + 2 * pad < h ? nrows + 2 + 2 * pad : h;
	by = y + (h - bh) / 2;
	bx = x + (cols - w) / 2;
	room = bh - 2 - 2 * pad;
	ui_frame_clear(win, y, x, h, cols);
	ui_frame_draw(win, by, bx, bh, w, "Keys");
	for (int i = 0; i < nrows && i < room; i++) {
		const struct help_row *r = &rows[i];
		int ly = by + 1 + pad + i;

		if (!r->line->keys) {
			wattron(win, ui_theme_attr(UI_ROLE_SECTION));
			ui_text_putn(win, ly, bx + 3, r->text, r->len, w - 6);
			wattroff(win, ui_theme_attr(UI_ROLE_SECTION));
			continue;
		}
		if (r->first) {
			wattron(win, ui_theme_attr(UI_ROLE_LABEL));
			ui_text_put(win, ly, bx + 5, r->line->keys, HELP_KEY_COLS);
			wattroff(win, ui_theme_attr(UI_ROLE_LABEL));
		}
		ui_text_putn(win, ly, bx + 5 + HELP_KEY_COLS + 1, r->text, r->len, tw);
	}
	ui_frame_scroll_marks(win, by, bx, bh, w, 0, nrows > room);
}

bool ui_help_key(int key)
{
	return key != KEY_RESIZE && key != ERR;
}
