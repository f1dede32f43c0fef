/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_reader: the lesson pager. It shows one lesson of the index as laid out
 * by lesson_doc_layout() at the window width, with a title bar (number,
 * title, how far in), a status line and a footer of keys. The learner
 * scrolls, searches, follows the numbered links, jumps through the table of
 * contents (ui_toc) and answers the quiz questions (ui_quiz) without leaving
 * it; next/previous lesson and links to other lessons switch the lesson in
 * place.
 *
 * The reading position is the source line of the top line, so a resize
 * (a new layout) and a restart (lesson_progress) both come back to the same
 * paragraph. The position is saved when the learner leaves a lesson, and
 * the lesson is marked read once its end has been on screen.
 */
#ifndef RTLAB_UI_UI_READER_H
#define RTLAB_UI_UI_READER_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "ui_help.h"
#include "ui_quiz.h"
#include "ui_theme.h"
#include "ui_toc.h"

struct lesson_doc;
struct lesson_index;
struct lesson_layout;
struct lesson_line;
struct rt_progress;

#define UI_READER_INPUT_MAX 96
#define UI_READER_HISTORY 16

enum ui_reader_mode {
	UI_READER_PAGE,		/* reading */
	UI_READER_SEARCH,	/* typing a search after '/' */
	UI_READER_LINK,		/* typing a link number (after 'f' or a digit) */
	UI_READER_TOC,		/* the table of contents is open */
	UI_READER_QUIZ,		/* a quiz question is open */
};

/* A line drawn above the lesson: the problems of a broken lesson file. */
struct ui_reader_note {
	char *text;		/* owned; one wrapped line */
	enum ui_role role;
};

/* Where a followed link came from, for Backspace. */
struct ui_reader_place {
	size_t entry;
	unsigned int src_line;
};

struct ui_reader {
	const struct lesson_index *idx;	/* borrowed; must outlive the reader */
	size_t entry;			/* the lesson shown: index into idx->entries */
	char id[3];			/* progress id ("03"); "" for the glossary */
	struct lesson_doc *doc;		/* owned; NULL when the file could not be read */
	struct lesson_layout *lay;	/* owned; NULL until the first draw */
	char *load_error;		/* owned; why doc is NULL */
	struct ui_reader_note *notes;	/* owned; problem lines above the lesson */
	size_t nnotes;
	struct rt_progress *progress;	/* owned; snapshot for the quiz verdicts, may be NULL */

	size_t top;			/* first line on screen (notes first, then layout) */
	unsigned int anchor_src;	/* source line of the top line's block... */
	unsigned int anchor_off;	/* ...and how many lines into that block */
	bool anchor_valid;		/* the anchor must be applied at the next layout */
	int page;			/* text lines on screen at the last draw */
	bool end_seen;			/* the last line has been on screen */
	bool read_saved;		/* ...and that was recorded */

	enum ui_reader_mode mode;
	char input[UI_READER_INPUT_MAX];	/* the search or link number being typed */
	size_t ninput;
	char *needle;			/* owned; the last search, NULL before one */
	long match;			/* layout line of the current match, -1 if none */
	char msg[320];			/* one-shot message for the status line */
	enum ui_role msg_role;

	struct ui_toc toc;		/* valid in UI_READER_TOC */
	struct ui_quiz quiz;		/* valid in UI_READER_QUIZ */
	struct ui_reader_place back[UI_READER_HISTORY];
	size_t nback;
};

enum ui_reader_action {
	UI_READER_NONE,
	UI_READER_CLOSE,	/* back to the menu; call ui_reader_fini() */
	UI_READER_HELP,		/* show the help of ui_reader_help_topic() */
};

/**
 * ui_reader_open - open lesson @entry of @idx at its saved position
 * @idx: the lesson index (borrowed; must outlive the reader)
 * @entry: index into @idx->entries
 *
 * A lesson file that cannot be read or has problems still opens: what is
 * wrong is listed above the text. Returns 0 or -ENOMEM. Release the reader
 * with ui_reader_fini(), which saves the reading position.
 */
int ui_reader_open(struct ui_reader *r, const struct lesson_index *idx, size_t entry);

/* Save the reading position and release everything @r owns. */
void ui_reader_fini(struct ui_reader *r);

/* Draw the whole @h x @cols screen at (@y, @x): title bar, text, status, footer. */
void ui_reader_draw(struct ui_reader *r, WINDOW *win, int y, int x, int h, int cols);

/* React to @key. */
enum ui_reader_action ui_reader_key(struct ui_reader *r, int key);

/* The help to show for UI_READER_HELP: the quiz keys while a question is open. */
enum ui_help_topic ui_reader_help_topic(const struct ui_reader *r);

/* ---- Shared with ui_quiz ------------------------------------------------- */

/**
 * ui_reader_put_line - draw one laid-out line at (@y, @x), styles mapped to attributes
 * @hl: pairs of display columns [start, end) to draw as search matches (may be NULL)
 * @nhl: number of pairs
 */
void ui_reader_put_line(WINDOW *win, int y, int x, const struct lesson_line *ln,
			const unsigned int *hl, size_t nhl);

/**
 * ui_reader_layout_inline - lay out a short piece of inline Markdown
 * @md: text such as a quiz question or option (code spans, emphasis)
 * @width: display columns, at least LESSON_LAYOUT_MIN_WIDTH
 * @doc: on success the parsed text, @lay its layout; free both (layout first)
 *
 * Returns 0, -EINVAL or -ENOMEM.
 */
int ui_reader_layout_inline(const char *md, unsigned int width, struct lesson_doc **doc,
			    struct lesson_layout **lay);

#endif
