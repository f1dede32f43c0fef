/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_toc: the lesson title (the level-1 heading) is listed too, so Home in
 * the list and "back to the start" are the same thing. The box is only as
 * tall as the list needs and scrolls when a lesson has more headings than
 * fit.
 */
#include "ui_toc.h"

#include "lesson/lesson_doc.h"
#include "ui_frame.h"
#include "ui_text.h"
#include "ui_theme.h"

void ui_toc_init(struct ui_toc *t, const struct lesson_doc *doc, unsigned int src_line)
{
	t->doc = doc;
	t->sel = 0;
	t->top = 0;
	t->page = 1;
	for (size_t i = 0; doc && i < doc->ntoc; i++)
		if (doc->toc[i].line <= src_line)
			t->sel = i;
}

void ui_toc_draw(struct ui_toc *t, WINDOW *win, int y, int x, int h, int cols)
{
	size_t n = t->doc ? t->doc->ntoc : 0;
	int w = cols - 8 < 76 ? cols - 8 : 76;
	int bh = (int)n + 4 < h ? (int)n + 4 : h;
	int by, bx, rows;

	if (bh < 5)
		bh = h < 5 ? h : 5;
	by = y + (h - bh) / 2;
	bx = x + (cols - w) / 2;
	rows = bh - 4;
	if (w < 30 || rows < 1)
		return;
	t->page = rows;
	if (t->sel < t->top)
		t->top = t->sel;
	else if (t->sel >= t->top + (size_t)rows)
		t->top = t->sel - (size_t)rows + 1;
	/*
	 * The rows behind the box, margins too: a reader line may reach into
	 * the margin (a quiz's verdict mark widens it), and its end would show
	 * beside the border. The last column keeps the reader's scroll marks.
	 */
	ui_frame_clear(win, by, x, bh, cols - 1);
	ui_frame_draw(win, by, bx, bh, w, "Contents");
	if (!n) {
		wattron(win, ui_theme_attr(UI_ROLE_DIM));
		ui_text_put(win, by + 2, bx + 3, "(this lesson has no headings)", w - 6);
		wattroff(win, ui_theme_attr(UI_ROLE_DIM));
	}
	for (int r = 0; r < rows && t->top + (size_t)r < n; r++) {
		size_t i = t->top + (size_t)r;
		const struct lesson_heading *hd = &t->doc->toc[i];
		int indent = hd->level <= 1 ? 0 : hd->level == 2 ? 2 : 4;
		bool sel = i == t->sel;
		attr_t a = sel ? ui_theme_attr(UI_ROLE_SELECTED) :
			   hd->level <= 1 ? ui_theme_attr(UI_ROLE_H1) :
			   hd->level == 2 ? A_NORMAL : ui_theme_attr(UI_ROLE_DIM);

		wattron(win, a);
		if (sel) {
			mvwhline(win, by + 2 + r, bx + 1, ' ', w - 2);
			ui_text_put(win, by + 2 + r, bx + 2, ui_text_glyph("\xe2\x96\xb8", ">"), 1);
		}
		ui_text_put(win, by + 2 + r, bx + 4 + indent, hd->text, w - 6 - indent);
		wattroff(win, a);
	}
	ui_frame_scroll_marks(win, by, bx, bh, w, t->top > 0, t->top + (size_t)rows < n);
}

enum ui_toc_action ui_toc_key(struct ui_toc *t, int key)
{
	size_t n = t->doc ? t->doc->ntoc : 0;
	size_t page = t->page > 1 ? (size_t)t->page - 1 : 1;

	switch (key) {
	case KEY_DOWN:
	case 'j':
		if (t->sel + 1 < n)
			t->sel++;
		break;
	case KEY_UP:
	case 'k':
		if (t->sel > 0)
			t->sel--;
		break;
	case KEY_NPAGE:
	case ' ':
		t->sel = t->sel + page < n ? t->sel + page : (n ? n - 1 : 0);
		break;
	case KEY_PPAGE:
	case 'b':
		t->sel = t->sel > page ? t->sel - page : 0;
		break;
	case KEY_HOME:
	case 'g':
		t->sel = 0;
		break;
	case KEY_END:
	case 'G':
		t->sel = n ? n - 1 : 0;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
		return n ? UI_TOC_JUMP : UI_TOC_CLOSE;
	case 27:
	case 'q':
	case 't':
	case KEY_LEFT:
		return UI_TOC_CLOSE;
	default:
		break;
	}
	return UI_TOC_NONE;
}
