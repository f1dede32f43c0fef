/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_menu: rows that cannot be selected (headings, notes, gaps) are skipped
 * by every movement key. When the selection moves up to the first entry of a
 * section, the list scrolls far enough to show that section's heading too,
 * so the learner always sees which list an entry belongs to.
 */
#include "ui_menu.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_log.h"
#include "core/rt_progress.h"
#include "labs/lab.h"
#include "lesson/lesson_index.h"
#include "lesson/lesson_progress.h"
#include "lesson/lesson_quizzes.h"
#include "ui_text.h"
#include "ui_theme.h"

#define KEY_CTRL(c) ((c) & 0x1f)

static bool selectable(const struct ui_row *r)
{
	return r->kind == UI_ROW_LESSON || r->kind == UI_ROW_LAB;
}

static struct ui_row *add_row(struct ui_menu *m, size_t *cap, enum ui_row_kind kind)
{
	struct ui_row *r;

	if (m->nrows == *cap) {
		size_t ncap = *cap ? *cap * 2 : 32;
		struct ui_row *n = realloc(m->rows, ncap * sizeof(*n));

		if (!n)
			return NULL;
		m->rows = n;
		*cap = ncap;
	}
	r = &m->rows[m->nrows++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	return r;
}

static int build_rows(struct ui_menu *m, size_t *cap)
{
	struct ui_row *r;
	size_t nlabs = 0;

	if (!(r = add_row(m, cap, UI_ROW_SECTION)))
		return -ENOMEM;
	r->text = "Lessons";
	if (m->lessons && m->lessons->count) {
		for (size_t i = 0; i < m->lessons->count; i++) {
			if (!(r = add_row(m, cap, UI_ROW_LESSON)))
				return -ENOMEM;
			r->lesson = &m->lessons->entries[i];
		}
	} else {
		if (!(r = add_row(m, cap, UI_ROW_NOTE)))
			return -ENOMEM;
		r->text = m->lessons_note;
	}
	if (!add_row(m, cap, UI_ROW_GAP) || !(r = add_row(m, cap, UI_ROW_SECTION)))
		return -ENOMEM;
	r->text = "Labs";
	for (const struct lab_ops *const *l = lab_table; *l; l++, nlabs++) {
		if (!(r = add_row(m, cap, UI_ROW_LAB)))
			return -ENOMEM;
		r->lab = *l;
	}
	if (!nlabs) {
		if (!(r = add_row(m, cap, UI_ROW_NOTE)))
			return -ENOMEM;
		r->text = "(no labs are registered in this build)";
	}
	return 0;
}

int ui_menu_init(struct ui_menu *m, struct lesson_index *lessons, const char *lessons_cause)
{
	size_t cap = 0;
	int ret;

	memset(m, 0, sizeof(*m));
	m->lessons = lessons;
	if (!lessons)
		ret = asprintf(&m->lessons_note, "(cannot list the lessons: %s)",
			       lessons_cause ? lessons_cause : "unknown error");
	else
		ret = asprintf(&m->lessons_note, "(no lessons installed in %s)", lessons->dir);
	if (ret < 0) {
		m->lessons_note = NULL;
		ret = -ENOMEM;
		goto out_fini;
	}
	ret = build_rows(m, &cap);
	if (ret < 0)
		goto out_fini;
	if (lessons && lessons->count) {
		m->marks = calloc(lessons->count, sizeof(*m->marks));
		if (!m->marks) {
			ret = -ENOMEM;
			goto out_fini;
		}
		for (size_t i = 0; i < lessons->count; i++)
			m->marks[i].graded = -1;
		ui_menu_refresh(m);
	}
	m->sel = m->nrows;
	for (size_t i = 0; i < m->nrows; i++) {
		if (selectable(&m->rows[i])) {
			m->sel = i;
			break;
		}
	}
	return 0;

out_fini:
	ui_menu_fini(m);
	return ret;
}

void ui_menu_fini(struct ui_menu *m)
{
	lesson_index_free(m->lessons);
	free(m->marks);
	free(m->lessons_note);
	free(m->rows);
	memset(m, 0, sizeof(*m));
}

/* Questions with a right answer in lesson @e (predictions have none); -1 if unreadable. */
static int count_graded(const struct lesson_entry *e)
{
	struct lesson_quizzes qs;
	int n;

	if (lesson_quizzes_load(e->path, &qs, NULL) < 0)
		return -1;
	n = (int)qs.graded;
	lesson_quizzes_fini(&qs);
	return n;
}

void ui_menu_refresh(struct ui_menu *m)
{
	struct rt_progress *p = NULL;
	char *cause = NULL;

	if (!m->marks)
		return;
	if (rt_progress_load(NULL, &p, &cause) < 0) {
		rt_log(RT_LOG_WARN, "cannot read your progress: %s", cause ? cause : "unknown");
		p = NULL;
	}
	free(cause);
	for (size_t i = 0; i < m->lessons->count; i++) {
		const struct lesson_entry *e = &m->lessons->entries[i];
		struct ui_menu_mark *k = &m->marks[i];
		double points = 0;
		size_t answered;
		char id[3];

		if (e->glossary || e->problem)
			continue;
		if (k->graded < 0)
			k->graded = count_graded(e);
		lesson_progress_id(e->number, id);
		k->read = p && rt_progress_lesson_read(p, id);
		answered = p ? rt_progress_quiz_count(p, id, &points) : 0;
		if (p)
			answered -= rt_progress_prediction_count(p, id) < answered ?
				    rt_progress_prediction_count(p, id) : answered;
		k->answered = (unsigned int)answered;
		k->right = points > 0 ? (unsigned int)(points + 0.5) : 0;
	}
	rt_progress_free(p);
}

const struct ui_row *ui_menu_selected(const struct ui_menu *m)
{
	return m->sel < m->nrows ? &m->rows[m->sel] : NULL;
}

size_t ui_menu_lesson_count(const struct ui_menu *m)
{
	size_t n = 0;

	for (size_t i = 0; m->lessons && i < m->lessons->count; i++)
		n += !m->lessons->entries[i].glossary;
	return n;
}

size_t ui_menu_lab_count(const struct ui_menu *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nrows; i++)
		n += m->rows[i].kind == UI_ROW_LAB;
	return n;
}

const char *ui_menu_lab_state(const struct lab_ops *lab)
{
	return lab->state == LAB_STATE_READY ? "ready" : "coming";
}

/* ---- Movement ------------------------------------------------------------- */

/* The nearest selectable row from @from in direction @dir (+1/-1), or @fallback. */
static size_t find_selectable(const struct ui_menu *m, size_t from, int dir, size_t fallback)
{
	for (size_t i = from; i < m->nrows; i += (size_t)(long)dir) {
		if (selectable(&m->rows[i]))
			return i;
		if (dir < 0 && i == 0)
			break;
	}
	return fallback;
}

static void move_by(struct ui_menu *m, long delta)
{
	size_t target;

	if (m->sel >= m->nrows)
		return;
	if (delta > 0) {
		target = m->sel + (size_t)delta;
		if (target >= m->nrows)
			target = m->nrows - 1;
		/* Land on the next entry at or after the target, else the last one before it. */
		m->sel = find_selectable(m, target, +1, find_selectable(m, target, -1, m->sel));
	} else {
		target = (size_t)-delta > m->sel ? 0 : m->sel - (size_t)-delta;
		m->sel = find_selectable(m, target, -1, find_selectable(m, target, +1, m->sel));
	}
}

enum ui_menu_action ui_menu_key(struct ui_menu *m, int key)
{
	long page = m->page > 2 ? m->page - 1 : 1;

	switch (key) {
	case KEY_DOWN:
	case 'j':
		if (m->sel < m->nrows)
			m->sel = find_selectable(m, m->sel + 1, +1, m->sel);
		break;
	case KEY_UP:
	case 'k':
		if (m->sel < m->nrows && m->sel > 0)
			m->sel = find_selectable(m, m->sel - 1, -1, m->sel);
		break;
	case KEY_NPAGE:
	case KEY_CTRL('f'):
		move_by(m, page);
		break;
	case KEY_PPAGE:
	case KEY_CTRL('b'):
		move_by(m, -page);
		break;
	case KEY_HOME:
	case 'g':
		m->sel = find_selectable(m, 0, +1, m->sel);
		break;
	case KEY_END:
	case 'G':
		if (m->nrows)
			m->sel = find_selectable(m, m->nrows - 1, -1, m->sel);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'l':
		return m->sel < m->nrows ? UI_MENU_OPEN : UI_MENU_NONE;
	case 'i':
		return m->sel < m->nrows ? UI_MENU_INFO : UI_MENU_NONE;
	case '?':
		return UI_MENU_HELP;
	case 'q':
		return UI_MENU_QUIT;
	default:
		break;
	}
	return UI_MENU_NONE;
}

/* ---- Drawing -------------------------------------------------------------- */

/* Scroll so the selection is on screen, with its section heading when it fits. */
static void menu_scroll(struct ui_menu *m, int h)
{
	size_t page = (size_t)h;

	m->page = h;
	if (m->nrows <= page) {
		m->top = 0;
		return;
	}
	if (m->top > m->nrows - page)
		m->top = m->nrows - page;	/* the window grew: no blank space at the end */
	if (m->sel >= m->nrows)
		return;
	if (m->sel < m->top) {
		m->top = m->sel;
		while (m->top > 0 && !selectable(&m->rows[m->top - 1]) &&
		       m->sel - (m->top - 1) < page)
			m->top--;
	} else if (m->sel >= m->top + page) {
		m->top = m->sel - page + 1;
	}
	if (find_selectable(m, 0, +1, m->nrows) == m->sel)
		m->top = 0;
}

static void fill(WINDOW *win, int y, int x, int cols)
{
	wmove(win, y, x);
	for (int c = 0; c < cols; c++)
		waddch(win, ' ');
}

/* Draw @s with @role unless the row is selected, when the row's look wins. */
static int put(WINDOW *win, int y, int x, const char *s, int cols, enum ui_role role, bool sel)
{
	attr_t a = sel ? ui_theme_attr(UI_ROLE_SELECTED) : ui_theme_attr(role);
	int n;

	if (sel && (role == UI_ROLE_PROBLEM || role == UI_ROLE_READY))
		a |= A_BOLD;
	wattron(win, a);
	n = ui_text_put(win, y, x, s, cols);
	wattroff(win, a);
	return n;
}

/*
 * The progress column on the right: a tick once the lesson was read to its
 * end, and the quiz score once a graded question was answered.
 */
static int draw_mark(const struct ui_menu_mark *k, WINDOW *win, int y, int x, int cols, bool sel)
{
	char score[32] = "";
	int sx = x + cols - 2 - 7;

	if (!k || (!k->read && !k->answered))
		return 0;
	if (k->answered && k->graded > 0)
		snprintf(score, sizeof(score), "%u/%d", k->right, k->graded);
	if (k->read)
		put(win, y, sx - 3, ui_text_glyph("\xe2\x9c\x93", "*"), 1, UI_ROLE_READY, sel);
	put(win, y, sx, score, 7, k->graded > 0 && k->right >= (unsigned int)k->graded ?
	    UI_ROLE_READY : UI_ROLE_NORMAL, sel);
	return 12;
}

static void draw_lesson(const struct lesson_entry *e, const struct ui_menu_mark *k, WINDOW *win,
			int y, int x, int cols, bool sel)
{
	char num[8] = "";
	int tx = x + 8;

	if (!e->glossary)
		snprintf(num, sizeof(num), "%02u", e->number);
	put(win, y, x + 4, num, 2, UI_ROLE_NUMBER, sel);
	if (!e->problem)
		cols -= draw_mark(k, win, y, x, cols, sel);
	if (e->problem) {
		tx += put(win, y, tx, ui_text_glyph("\xe2\x9a\xa0 ", "! "), 2, UI_ROLE_PROBLEM, sel);
		put(win, y, tx, e->problem, x + cols - 2 - tx, UI_ROLE_PROBLEM, sel);
	} else {
		put(win, y, tx, e->title ? e->title : e->slug, x + cols - 2 - tx, UI_ROLE_NORMAL,
		    sel);
	}
}

/*
 * The state column starts a little after the longest lab title, so on a
 * wide terminal it stays next to the titles instead of drifting to the far
 * edge; on a narrow one it is right-aligned and the titles give way.
 */
static void draw_lab(const struct lab_ops *lab, WINDOW *win, int y, int x, int cols,
		     int title_cols, bool sel)
{
	char state[64];
	int sw, sx, tx = x + 4;

	if (lab->state == LAB_STATE_PLANNED && lab->issue)
		snprintf(state, sizeof(state), "%s %s issue #%u", ui_menu_lab_state(lab),
			 ui_text_glyph("\xc2\xb7", "-"), lab->issue);
	else
		snprintf(state, sizeof(state), "%s", ui_menu_lab_state(lab));
	sw = ui_text_width(state);
	sx = tx + title_cols + 4;
	if (sx > x + cols - 2 - sw)
		sx = x + cols - 2 - sw;
	put(win, y, tx, lab->title, sx - 2 - tx, UI_ROLE_NORMAL, sel);
	put(win, y, sx, state, sw, lab->state == LAB_STATE_READY ? UI_ROLE_READY : UI_ROLE_COMING,
	    sel);
}

void ui_menu_draw(struct ui_menu *m, WINDOW *win, int y, int x, int h, int cols)
{
	attr_t dim = ui_theme_attr(UI_ROLE_DIM);
	int title_cols = 0;

	if (h < 1 || cols < 20)
		return;
	menu_scroll(m, h);
	for (size_t i = 0; i < m->nrows; i++) {
		if (m->rows[i].kind == UI_ROW_LAB) {
			int w = ui_text_width(m->rows[i].lab->title);

			title_cols = w > title_cols ? w : title_cols;
		}
	}
	for (int r = 0; r < h && m->top + (size_t)r < m->nrows; r++) {
		size_t i = m->top + (size_t)r;
		const struct ui_row *row = &m->rows[i];
		bool sel = i == m->sel;

		if (sel) {
			wattron(win, ui_theme_attr(UI_ROLE_SELECTED));
			fill(win, y + r, x, cols);
			wattroff(win, ui_theme_attr(UI_ROLE_SELECTED));
			put(win, y + r, x + 1, ui_text_glyph("\xe2\x96\xb8", ">"), 1,
			    UI_ROLE_SELECTED, true);
		}
		switch (row->kind) {
		case UI_ROW_SECTION:
			put(win, y + r, x + 1, row->text, cols - 2, UI_ROLE_SECTION, false);
			break;
		case UI_ROW_NOTE:
			put(win, y + r, x + 4, row->text, cols - 6, UI_ROLE_DIM, false);
			break;
		case UI_ROW_GAP:
			break;
		case UI_ROW_LESSON:
			draw_lesson(row->lesson, m->marks ? &m->marks[row->lesson -
					    m->lessons->entries] : NULL, win, y + r, x, cols, sel);
			break;
		case UI_ROW_LAB:
			draw_lab(row->lab, win, y + r, x, cols, title_cols, sel);
			break;
		}
	}
	/* Marks on the right edge when there is more above or below. */
	wattron(win, dim | A_BOLD);
	if (m->top > 0)
		ui_text_put(win, y, x + cols - 1, ui_text_glyph("\xe2\x96\xb2", "^"), 1);
	if (m->top + (size_t)h < m->nrows)
		ui_text_put(win, y + h - 1, x + cols - 1, ui_text_glyph("\xe2\x96\xbc", "v"), 1);
	wattroff(win, dim | A_BOLD);
}
