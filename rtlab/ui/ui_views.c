/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_views: the pane that shows a document's views (ui_views.h). The lines
 * come from report_lines(), already escaped for a terminal and aligned; this
 * only keeps them with their kind (title, headings, row, note) for the
 * colours, and scrolls. A cell marked as resting on too few samples
 * (RT_HIST_FEW_MARK) is drawn dimmed.
 */
#include "ui_views.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_hist.h"
#include "report/report.h"
#include "ui_frame.h"
#include "ui_text.h"
#include "ui_theme.h"

#define SCROLL_COLS 8

struct ui_views_line {
	enum report_line kind;
	char *text;
};

/* One screen row: bytes [off, off + len) of a line, indented by @indent columns. */
struct ui_views_row {
	size_t line;
	size_t off;
	size_t len;
	int indent;
};

static int add_line(void *priv, enum report_line kind, const char *text, size_t len)
{
	struct ui_views *v = priv;
	struct ui_views_line *l;
	int w;

	l = realloc(v->lines, (v->nlines + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	v->lines = l;
	l += v->nlines;
	l->kind = kind;
	l->text = strndup(text, len);
	if (!l->text)
		return -ENOMEM;
	v->nlines++;
	w = ui_text_width(l->text);
	if (kind != REPORT_LINE_NOTE && w > v->width)
		v->width = w;
	v->rows_cols = 0;	/* the rows are made again at the next draw */
	return 0;
}

static int add_row(struct ui_views *v, size_t line, size_t off, size_t len, int indent)
{
	struct ui_views_row *r = realloc(v->rows, (v->nrows + 1) * sizeof(*r));

	if (!r)
		return -ENOMEM;
	v->rows = r;
	v->rows[v->nrows++] = (struct ui_views_row){ line, off, len, indent };
	return 0;
}

/*
 * The rows for a pane @cols wide: a note wrapped, its later rows under the
 * text after "note: "; any other line one row, scrolled sideways instead.
 */
static int make_rows(struct ui_views *v, int cols)
{
	v->nrows = 0;
	v->rows_cols = cols;
	for (size_t i = 0; i < v->nlines; i++) {
		const char *t = v->lines[i].text;
		size_t off = 0, next, len;
		int indent = 0;

		if (v->lines[i].kind != REPORT_LINE_NOTE || cols < 20) {
			if (add_row(v, i, 0, strlen(t), 0))
				return -ENOMEM;
			continue;
		}
		do {
			len = ui_text_wrap(t + off, cols - indent, &next);
			if (add_row(v, i, off, len, indent))
				return -ENOMEM;
			if (!off && !strncmp(t, "note: ", 6))
				indent = 6;
			off += next;
		} while (next && t[off]);
	}
	return 0;
}

int ui_views_load(struct ui_views *v, const struct rt_result *res)
{
	int ret = 0;

	ui_views_fini(v);
	if (res)
		ret = report_lines(res, add_line, v);
	if (ret)
		ui_views_fini(v);
	return ret;
}

static enum ui_role role_of(enum report_line kind)
{
	switch (kind) {
	case REPORT_LINE_TITLE:
		return UI_ROLE_SECTION;
	case REPORT_LINE_HEADING:
		return UI_ROLE_LABEL;
	case REPORT_LINE_NOTE:
		return UI_ROLE_DIM;
	default:
		return UI_ROLE_NORMAL;
	}
}

/*
 * A table cell that ends in RT_HIST_FEW_MARK holds a percentile resting on
 * too few samples: draw it again, value and mark, dimmed. @skip bytes of
 * @text are scrolled off to the left.
 */
static void dim_few(WINDOW *win, int y, int x, int cols, const char *text, size_t skip)
{
	const size_t mlen = strlen(RT_HIST_FEW_MARK);

	for (const char *m = strstr(text + skip, RT_HIST_FEW_MARK); m;
	     m = strstr(m + mlen, RT_HIST_FEW_MARK)) {
		const char *start = m;
		int col = 0;

		/* Back over the blank before the mark and the value before that. */
		if (start > text + skip && start[-1] == ' ')
			start--;
		while (start > text + skip && start[-1] != ' ')
			start--;
		ui_text_fit(text + skip, (size_t)(start - text - skip), INT_MAX, &col);
		if (col >= cols)
			break;
		wattron(win, ui_theme_attr(UI_ROLE_DIM));
		ui_text_putn(win, y, x + col, start, (size_t)(m + mlen - start), cols - col);
		wattroff(win, ui_theme_attr(UI_ROLE_DIM));
	}
}

void ui_views_draw(struct ui_views *v, WINDOW *win, int y, int x, int h, int cols)
{
	int row;

	if (v->rows_cols != cols - 2 && make_rows(v, cols - 2))
		v->nrows = 0;	/* out of memory: draw nothing rather than half */
	v->rows_shown = h > 0 ? h : 0;
	if (v->top + (size_t)v->rows_shown > v->nrows)
		v->top = v->nrows > (size_t)v->rows_shown ? v->nrows - (size_t)v->rows_shown : 0;
	for (row = 0; row < h && v->top + (size_t)row < v->nrows; row++) {
		const struct ui_views_row *r = &v->rows[v->top + (size_t)row];
		const struct ui_views_line *l = &v->lines[r->line];
		size_t skip = 0;
		int skipped = 0;

		if (l->kind == REPORT_LINE_NOTE) {
			wattron(win, ui_theme_attr(role_of(l->kind)));
			ui_text_putn(win, y + row, x + 1 + r->indent, l->text + r->off, r->len,
				     cols - 2 - r->indent);
			wattroff(win, ui_theme_attr(role_of(l->kind)));
			continue;
		}
		if (v->left > 0)
			skip = ui_text_fit(l->text, r->len, v->left, &skipped);
		ui_frame_put(win, y + row, x + 1, l->text + skip, cols - 2, role_of(l->kind));
		if (l->kind == REPORT_LINE_ROW)
			dim_few(win, y + row, x + 1, cols - 2, l->text, skip);
	}
	ui_frame_scroll_marks(win, y, x, h, cols, (int)v->top,
			      (int)(v->nrows - v->top) - (row < h ? row : h));
}

bool ui_views_key(struct ui_views *v, int key)
{
	size_t page = v->rows_shown > 1 ? (size_t)v->rows_shown - 1 : 1;

	switch (key) {
	case KEY_UP:
		if (v->top)
			v->top--;
		return true;
	case KEY_DOWN:
		if (v->top + (size_t)v->rows_shown < v->nrows)
			v->top++;
		return true;
	case KEY_PPAGE:
		v->top = v->top > page ? v->top - page : 0;
		return true;
	case KEY_NPAGE:
		v->top += page;		/* clamped when drawn */
		return true;
	case KEY_HOME:
		v->top = 0;
		v->left = 0;
		return true;
	case KEY_END:
		v->top = v->nrows;	/* clamped when drawn */
		return true;
	case KEY_LEFT:
		v->left = v->left > SCROLL_COLS ? v->left - SCROLL_COLS : 0;
		return true;
	case KEY_RIGHT:
		if (v->left + SCROLL_COLS < v->width)
			v->left += SCROLL_COLS;
		return true;
	default:
		return false;
	}
}

void ui_views_fini(struct ui_views *v)
{
	for (size_t i = 0; i < v->nlines; i++)
		free(v->lines[i].text);
	free(v->lines);
	free(v->rows);
	memset(v, 0, sizeof(*v));
}
