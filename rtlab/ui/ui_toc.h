/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_toc: the table of contents overlay of the lesson reader. It lists the
 * headings of one lesson, indented by level, with the section the learner
 * is reading selected; Enter asks the reader to jump to the chosen one.
 */
#ifndef RTLAB_UI_UI_TOC_H
#define RTLAB_UI_UI_TOC_H

#include <stddef.h>

#include <curses.h>

struct lesson_doc;

struct ui_toc {
	const struct lesson_doc *doc;	/* borrowed; its toc[] is the list */
	size_t sel;			/* selected heading */
	size_t top;			/* first heading on screen */
	int page;			/* headings on screen at the last draw */
};

enum ui_toc_action {
	UI_TOC_NONE,
	UI_TOC_CLOSE,		/* leave without moving */
	UI_TOC_JUMP,		/* go to doc->toc[sel] */
};

/*
 * Start with the heading of the section that holds source line @src_line
 * selected. Nothing to free: the overlay only borrows @doc.
 */
void ui_toc_init(struct ui_toc *t, const struct lesson_doc *doc, unsigned int src_line);

/* Draw the overlay centred in the @h x @cols area at (@y, @x). */
void ui_toc_draw(struct ui_toc *t, WINDOW *win, int y, int x, int h, int cols);

enum ui_toc_action ui_toc_key(struct ui_toc *t, int key);

#endif
