/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ui_reader: the screen is a view on a list of lines: first the notes (what
 * is wrong with a broken lesson file, wrapped to the width), then the lines
 * of the layout. Only the layout belongs to lesson_doc; the reader adds the
 * notes, the search highlights and the quiz verdicts while drawing, so the
 * layout's line numbers stay valid for lesson_layout_search() and
 * lesson_layout_find_source_line().
 *
 * A new layout is made only when the text width changes. Before that, the
 * top line is turned into an anchor (the source line of its block and how
 * many lines into the block it is), and afterwards the anchor is turned back
 * into a top line, so a reflow keeps the paragraph being read at the top.
 * Opening a lesson sets the same anchor from the saved position.
 */
#include "ui_reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_buf.h"
#include "core/rt_log.h"
#include "core/rt_progress.h"
#include "labs/lab.h"
#include "lesson/lesson_doc.h"
#include "lesson/lesson_index.h"
#include "lesson/lesson_progress.h"
#include "ui_log.h"
#include "ui_text.h"

#define READER_KEY_ESC 27
#define READER_MAX_TEXT_COLS 100	/* wider lines are hard to read: centre them instead */
#define READER_MAX_HL 32		/* highlighted matches per line */
#define KEY_CTRL(c) ((c) & 0x1f)

/* ---- Lines: styles, highlights, inline layout ----------------------------- */

static attr_t emph_attr(void)
{
	/* Italics where the terminal has them, else underline (like man pages). */
	return (term_attrs() & A_ITALIC) ? A_ITALIC : A_UNDERLINE;
}

static attr_t span_attr(const struct lesson_line *ln, size_t k)
{
	const struct lesson_span *sp = &ln->spans[k];
	unsigned int st = sp->style;
	enum ui_role role = UI_ROLE_NORMAL;
	attr_t extra = 0;

	if (st & LESSON_STYLE_HEADING1)
		role = UI_ROLE_H1;
	else if (st & LESSON_STYLE_HEADING2)
		role = UI_ROLE_H2;
	else if (st & LESSON_STYLE_HEADING3)
		role = UI_ROLE_H3;
	else if (sp->role == LESSON_SPAN_FRAME)
		role = UI_ROLE_BORDER;
	else if (sp->role == LESSON_SPAN_QUOTE_BAR)
		role = UI_ROLE_QUOTE;
	else if (st & LESSON_STYLE_LINK)
		role = UI_ROLE_LINK;
	else if (st & (LESSON_STYLE_CODE | LESSON_STYLE_CODEBLOCK))
		role = UI_ROLE_CODE;
	else if (st & LESSON_STYLE_DIM)
		role = UI_ROLE_DIM;
	else if (ln->kind == LESSON_LINE_QUIZ && k == 0 && !strncmp(sp->text, "Quiz:", 5))
		role = UI_ROLE_QUIZ;
	if (st & LESSON_STYLE_BOLD)
		extra |= A_BOLD;
	if (st & LESSON_STYLE_EMPH)
		extra |= emph_attr();
	return ui_theme_attr(role) | extra;
}

void ui_reader_put_line(WINDOW *win, int y, int x, const struct lesson_line *ln,
			const unsigned int *hl, size_t nhl)
{
	unsigned int col = 0;

	for (size_t k = 0; k < ln->nspans; k++) {
		const struct lesson_span *sp = &ln->spans[k];
		size_t len = strlen(sp->text);
		unsigned int end = col + sp->cols, pos = col;
		attr_t base = span_attr(ln, k);

		/* Cut the span where a match starts or ends. */
		while (pos < end) {
			unsigned int seg_end = end;
			attr_t a = base;
			size_t b0, b1;

			for (size_t h = 0; h < nhl; h++) {
				unsigned int hs = hl[2 * h], he = hl[2 * h + 1];

				if (pos >= hs && pos < he) {
					seg_end = he < seg_end ? he : seg_end;
					a = ui_theme_attr(UI_ROLE_MATCH) | (base & A_BOLD);
					break;
				}
				if (hs > pos && hs < seg_end)
					seg_end = hs;
			}
			b0 = ui_text_fit(sp->text, len, (int)(pos - col), NULL);
			b1 = ui_text_fit(sp->text, len, (int)(seg_end - col), NULL);
			if (b1 > b0) {
				wattron(win, a);
				ui_text_putn(win, y, x + (int)pos, sp->text + b0, b1 - b0,
					     (int)(seg_end - pos));
				wattroff(win, a);
			}
			pos = seg_end;
		}
		col = end;
	}
}

int ui_reader_layout_inline(const char *md, unsigned int width, struct lesson_doc **doc,
			    struct lesson_layout **lay)
{
	char *cause = NULL;
	int ret;

	*doc = NULL;
	*lay = NULL;
	if (width < LESSON_LAYOUT_MIN_WIDTH)
		return -EINVAL;
	if (width > LESSON_LAYOUT_MAX_WIDTH)
		width = LESSON_LAYOUT_MAX_WIDTH;
	ret = lesson_doc_parse(md, strlen(md), "quiz", doc, &cause);
	free(cause);
	if (ret < 0)
		return ret;
	ret = lesson_doc_layout(*doc, width, lay);
	if (ret < 0) {
		lesson_doc_free(*doc);
		*doc = NULL;
	}
	return ret;
}

/* ---- The lesson: loading, notes, position -------------------------------- */

static size_t total_lines(const struct ui_reader *r)
{
	return r->nnotes + (r->lay ? r->lay->nlines : 0);
}

static size_t max_top(const struct ui_reader *r)
{
	size_t total = total_lines(r), page = r->page > 0 ? (size_t)r->page : 1;

	return total > page ? total - page : 0;
}

static void set_msg(struct ui_reader *r, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(struct ui_reader *r, enum ui_role role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->msg_role = role;
}

static const struct lesson_entry *cur_entry(const struct ui_reader *r)
{
	return &r->idx->entries[r->entry];
}

static void free_notes(struct ui_reader *r)
{
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i].text);
	free(r->notes);
	r->notes = NULL;
	r->nnotes = 0;
}

static int note_add(struct ui_reader *r, const char *s, size_t len, enum ui_role role)
{
	struct ui_reader_note *n = realloc(r->notes, (r->nnotes + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->notes = n;
	n[r->nnotes].text = strndup(s, len);
	if (!n[r->nnotes].text)
		return -ENOMEM;
	n[r->nnotes++].role = role;
	return 0;
}

/* @s wrapped to @width, the first line after @lead and the others indented as deep. */
static int note_wrapped(struct ui_reader *r, const char *lead, const char *s, int width,
			enum ui_role role)
{
	int lw = ui_text_width(lead);
	size_t off = 0, next;
	int ret = 0;

	while (!ret && s[off]) {
		size_t len = ui_text_wrap(s + off, width - lw, &next);
		char *line;

		if (asprintf(&line, "%*s%.*s", lw, "", (int)len, s + off) < 0)
			return -ENOMEM;
		if (!off)
			memcpy(line, lead, strlen(lead) <= (size_t)lw ? strlen(lead) : 0);
		ret = note_add(r, line, strlen(line), role);
		free(line);
		if (!next)
			break;
		off += next;
	}
	return ret;
}

/* What is wrong with the lesson file, above its text. */
static int build_notes(struct ui_reader *r, int width)
{
	char head[160];
	int ret = 0;

	free_notes(r);
	if (r->load_error) {
		ret = note_wrapped(r, "", "This lesson could not be opened:", width, UI_ROLE_WARN);
		if (!ret)
			ret = note_wrapped(r, "  ", r->load_error, width, UI_ROLE_PROBLEM);
	} else if (r->doc && r->doc->nproblems) {
		snprintf(head, sizeof(head), "%s This lesson file has %zu problem%s; the rest of "
			 "it is shown below as well as it can be:",
			 ui_text_glyph("\xe2\x9a\xa0", "!"), r->doc->nproblems,
			 r->doc->nproblems == 1 ? "" : "s");
		ret = note_wrapped(r, "", head, width, UI_ROLE_WARN);
		for (size_t i = 0; !ret && i < r->doc->nproblems; i++)
			ret = note_wrapped(r, ui_text_glyph("  \xe2\x80\xa2 ", "  - "),
					   r->doc->problems[i].msg, width, UI_ROLE_PROBLEM);
	} else {
		return 0;
	}
	if (!ret)
		ret = note_add(r, "", 0, UI_ROLE_NORMAL);
	return ret;
}

/* The top line as an anchor that survives a new layout. */
static void capture_anchor(struct ui_reader *r)
{
	size_t l, start;

	if (r->anchor_valid)
		return;
	r->anchor_valid = true;
	if (!r->lay || !r->lay->nlines || r->top < r->nnotes) {
		r->anchor_src = 0;
		r->anchor_off = (unsigned int)r->top;
		return;
	}
	l = r->top - r->nnotes;
	if (l >= r->lay->nlines)
		l = r->lay->nlines - 1;
	r->anchor_src = r->lay->lines[l].src_line;
	start = lesson_layout_find_source_line(r->lay, r->anchor_src);
	r->anchor_off = l >= start ? (unsigned int)(l - start) : 0;
}

static void apply_anchor(struct ui_reader *r)
{
	size_t start, end;

	if (!r->anchor_valid)
		return;
	r->anchor_valid = false;
	if (!r->anchor_src || !r->lay || !r->lay->nlines) {
		r->top = r->anchor_off;
	} else {
		start = lesson_layout_find_source_line(r->lay, r->anchor_src);
		end = start;
		while (end + 1 < r->lay->nlines &&
		       r->lay->lines[end + 1].src_line == r->lay->lines[start].src_line)
			end++;
		r->top = r->nnotes + start + (start + r->anchor_off <= end ? r->anchor_off :
					     end - start);
	}
}

/* Re-lay the lesson when the width changed. */
static void ensure_layout(struct ui_reader *r, unsigned int width)
{
	struct lesson_layout *lay = NULL;
	int ret;

	if (r->lay && r->lay->width == width && !r->anchor_valid)
		return;
	if (!r->lay || r->lay->width != width) {
		capture_anchor(r);
		if (r->doc) {
			ret = lesson_doc_layout(r->doc, width, &lay);
			if (ret < 0) {
				set_msg(r, UI_ROLE_WARN, "cannot lay out the lesson: %s",
					strerror(-ret));
				return;
			}
		}
		lesson_layout_free(r->lay);
		r->lay = lay;
		if (build_notes(r, (int)width) < 0)
			set_msg(r, UI_ROLE_WARN, "out of memory");
	}
	apply_anchor(r);
}

/* The source line at the top of the screen, for the progress file. */
static unsigned int top_src_line(const struct ui_reader *r)
{
	size_t l;

	if (r->anchor_valid || !r->lay || !r->lay->nlines)
		return r->anchor_src;
	l = r->top < r->nnotes ? 0 : r->top - r->nnotes;
	if (l >= r->lay->nlines)
		l = r->lay->nlines - 1;
	return r->lay->lines[l].src_line;
}

static void save_position(struct ui_reader *r)
{
	char *cause = NULL;

	if (!r->id[0] || !r->doc)
		return;
	if (lesson_progress_mark(NULL, r->id, top_src_line(r), r->end_seen, &cause) < 0)
		rt_log(RT_LOG_WARN, "%s", cause ? cause : "cannot save the reading position");
	else if (r->end_seen)
		r->read_saved = true;
	free(cause);
}

static void reload_progress(struct ui_reader *r)
{
	char *cause = NULL;

	rt_progress_free(r->progress);
	r->progress = NULL;
	if (rt_progress_load(NULL, &r->progress, &cause) < 0) {
		rt_log(RT_LOG_WARN, "cannot read your progress: %s", cause ? cause : "unknown");
		r->progress = NULL;
	}
	free(cause);
}

static void unload(struct ui_reader *r)
{
	if (r->mode == UI_READER_QUIZ)
		ui_quiz_fini(&r->quiz);
	r->mode = UI_READER_PAGE;
	lesson_layout_free(r->lay);
	r->lay = NULL;
	lesson_doc_free(r->doc);
	r->doc = NULL;
	free(r->load_error);
	r->load_error = NULL;
	free_notes(r);
}

/*
 * Show entry @entry at source line @src_line; a negative @src_line means
 * where the learner left it. The layout is made at the next draw.
 */
static int load_entry(struct ui_reader *r, size_t entry, long src_line)
{
	const struct lesson_entry *e = &r->idx->entries[entry];
	char *cause = NULL;
	int ret;

	unload(r);
	r->entry = entry;
	r->id[0] = '\0';
	if (!e->glossary)
		lesson_progress_id(e->number, r->id);
	ret = lesson_doc_load(e->path, &r->doc, &cause);
	if (ret < 0) {
		r->doc = NULL;
		if (ret == -ENOMEM) {
			free(cause);
			return ret;
		}
		r->load_error = cause ? cause : strdup(strerror(-ret));
		cause = NULL;
		if (!r->load_error)
			return -ENOMEM;
	}
	free(cause);
	r->top = 0;
	r->anchor_valid = true;
	r->anchor_off = 0;
	r->anchor_src = src_line >= 0 ? (unsigned int)src_line :
			r->id[0] ? (unsigned int)lesson_progress_position(NULL, r->id) : 0;
	r->end_seen = false;
	r->read_saved = false;
	r->match = -1;
	reload_progress(r);
	return 0;
}

int ui_reader_open(struct ui_reader *r, const struct lesson_index *idx, size_t entry)
{
	memset(r, 0, sizeof(*r));
	r->idx = idx;
	r->page = 1;
	r->match = -1;
	if (!idx || entry >= idx->count)
		return -EINVAL;
	return load_entry(r, entry, -1);
}

void ui_reader_fini(struct ui_reader *r)
{
	if (!r->idx)
		return;
	save_position(r);
	unload(r);
	rt_progress_free(r->progress);
	free(r->needle);
	memset(r, 0, sizeof(*r));
}

enum ui_help_topic ui_reader_help_topic(const struct ui_reader *r)
{
	return r->mode == UI_READER_QUIZ ? UI_HELP_QUIZ : UI_HELP_READER;
}

/* ---- Quizzes in the text -------------------------------------------------- */

enum quiz_state {
	QUIZ_STATE_OPEN,
	QUIZ_STATE_RIGHT,
	QUIZ_STATE_WRONG,
	QUIZ_STATE_PREDICTED,
};

/* How quiz @qi stands in the progress file; @note gets one line about it. */
static enum quiz_state quiz_state(const struct ui_reader *r, int qi, char *note, size_t size)
{
	const struct quiz *q;
	struct rt_progress_prediction pred;
	struct rt_progress_quiz got;
	const struct lab_ops *lab;

	if (note && size)
		note[0] = '\0';
	if (!r->doc || qi < 0 || (size_t)qi >= r->doc->nquizzes || !r->progress || !r->id[0])
		return QUIZ_STATE_OPEN;
	q = r->doc->quizzes[qi];
	if (q->kind == QUIZ_PREDICT) {
		if (rt_progress_prediction_get(r->progress, r->id, q->id, &pred) < 0)
			return QUIZ_STATE_OPEN;
		lab = q->lab ? lab_find(q->lab) : NULL;
		if (note)
			snprintf(note, size, "Prediction: %g %s %s the %s lab will show it next to "
				 "its %s", pred.value, pred.unit,
				 ui_text_glyph("\xc2\xb7", "-"), lab ? lab->name : q->lab, q->metric);
		return QUIZ_STATE_PREDICTED;
	}
	if (rt_progress_quiz_get(r->progress, r->id, q->id, &got) < 0)
		return QUIZ_STATE_OPEN;
	if (note)
		snprintf(note, size, "%s you answered %s: %s %s a answers again",
			 got.score >= 1 ? ui_text_glyph("\xe2\x9c\x93", "+") :
			 ui_text_glyph("\xe2\x9c\x97", "x"), got.answer ? got.answer : "?",
			 got.score >= 1 ? "right" : "not right", ui_text_glyph("\xc2\xb7", "-"));
	return got.score >= 1 ? QUIZ_STATE_RIGHT : QUIZ_STATE_WRONG;
}

/* The quiz that 'a' opens: the first unanswered one on screen, else the first one. */
static int target_quiz(const struct ui_reader *r)
{
	int first = -1;

	if (!r->lay)
		return -1;
	for (size_t v = r->top; v < r->top + (size_t)r->page && v < total_lines(r); v++) {
		const struct lesson_line *ln;

		if (v < r->nnotes)
			continue;
		ln = &r->lay->lines[v - r->nnotes];
		if (ln->kind != LESSON_LINE_QUIZ || ln->quiz < 0)
			continue;
		/* Only a quiz whose first line shows, where the mark is drawn. */
		if (v > r->nnotes && ln[-1].kind == LESSON_LINE_QUIZ && ln[-1].quiz == ln->quiz)
			continue;
		if (first < 0)
			first = ln->quiz;
		if (quiz_state(r, ln->quiz, NULL, 0) == QUIZ_STATE_OPEN)
			return ln->quiz;
	}
	return first;
}

/* ---- Drawing -------------------------------------------------------------- */

static unsigned int text_width(int cols)
{
	int w = cols - 4 < READER_MAX_TEXT_COLS ? cols - 4 : READER_MAX_TEXT_COLS;

	return w < LESSON_LAYOUT_MIN_WIDTH ? LESSON_LAYOUT_MIN_WIDTH : (unsigned int)w;
}

static void draw_bar(WINDOW *win, int y, int x, int cols, enum ui_role role)
{
	wattron(win, ui_theme_attr(role));
	mvwhline(win, y, x, ' ', cols);
	wattroff(win, ui_theme_attr(role));
}

static void draw_title(struct ui_reader *r, WINDOW *win, int y, int x, int cols)
{
	const struct lesson_entry *e = cur_entry(r);
	size_t total = total_lines(r);
	char left[64], right[64];
	unsigned int pct;
	int rw, lw;

	if (total <= (size_t)r->page || r->top >= max_top(r))
		pct = 100;
	else
		pct = (unsigned int)((r->top + (size_t)r->page) * 100 / total);
	snprintf(right, sizeof(right), "%s%s%u%% ",
		 r->progress && r->id[0] && rt_progress_lesson_read(r->progress, r->id) ?
		 ui_text_glyph("\xe2\x9c\x93 read  ", "read  ") : "", "", pct);
	if (e->glossary)
		snprintf(left, sizeof(left), " Glossary ");
	else
		snprintf(left, sizeof(left), " Lesson %02u %s ", e->number,
			 ui_text_glyph("\xc2\xb7", "-"));
	draw_bar(win, y, x, cols, UI_ROLE_TITLE);
	wattron(win, ui_theme_attr(UI_ROLE_TITLE));
	lw = ui_text_put(win, y, x, left, cols);
	rw = ui_text_width(right);
	if (!e->glossary)
		ui_text_put(win, y, x + lw, r->doc ? r->doc->title : e->title ? e->title : e->slug,
			    cols - lw - rw - 2);
	ui_text_put(win, y, x + cols - rw, right, rw);
	wattroff(win, ui_theme_attr(UI_ROLE_TITLE));
}

/* The text area: notes, layout lines, highlights and quiz verdicts. */
static void draw_text(struct ui_reader *r, WINDOW *win, int y, int x0, int width)
{
	unsigned int hl[2 * READER_MAX_HL];
	char note[256];
	int target = r->mode == UI_READER_PAGE ? target_quiz(r) : -1;
	const char *mark = ui_text_glyph("\xe2\x96\xb8", ">");

	for (int row = 0; row < r->page && r->top + (size_t)row < total_lines(r); row++) {
		size_t v = r->top + (size_t)row;
		const struct lesson_line *ln, *prev;
		size_t l, nhl = 0;
		enum quiz_state st;

		if (v < r->nnotes) {
			wattron(win, ui_theme_attr(r->notes[v].role));
			ui_text_put(win, y + row, x0, r->notes[v].text, width);
			wattroff(win, ui_theme_attr(r->notes[v].role));
			continue;
		}
		l = v - r->nnotes;
		ln = &r->lay->lines[l];
		prev = l > 0 ? &r->lay->lines[l - 1] : NULL;
		if (r->needle)
			nhl = lesson_layout_line_matches(r->lay, l, r->needle, hl, READER_MAX_HL);
		ui_reader_put_line(win, y + row, x0, ln, hl, nhl);
		if (r->needle && (long)l == r->match && x0 >= 2) {
			wattron(win, ui_theme_attr(UI_ROLE_MATCH));
			ui_text_put(win, y + row, x0 - 2, ui_text_glyph("\xe2\x96\xb6", ">"), 1);
			wattroff(win, ui_theme_attr(UI_ROLE_MATCH));
		}
		/* First line of a quiz: its verdict, and the mark of the one 'a' opens. */
		if (ln->kind == LESSON_LINE_QUIZ && ln->quiz >= 0 &&
		    (!prev || prev->kind != LESSON_LINE_QUIZ || prev->quiz != ln->quiz)) {
			st = quiz_state(r, ln->quiz, NULL, 0);
			if (st == QUIZ_STATE_RIGHT || st == QUIZ_STATE_WRONG) {
				enum ui_role role = st == QUIZ_STATE_RIGHT ? UI_ROLE_READY :
						    UI_ROLE_PROBLEM;

				struct lesson_line rest = *ln;
				unsigned int skip = 0;

				/*
				 * "Quiz ✓ " is a column wider than "Quiz: ": the rest of
				 * the line moves right, into the margin if need be.
				 */
				if (rest.nspans && !strncmp(rest.spans[0].text, "Quiz:", 5)) {
					skip = rest.spans[0].cols;
					rest.spans++;
					rest.nspans--;
				}
				mvwhline(win, y + row, x0, ' ', (int)ln->cols);
				wattron(win, ui_theme_attr(role) | A_BOLD);
				ui_text_put(win, y + row, x0, st == QUIZ_STATE_RIGHT ?
					    ui_text_glyph("Quiz \xe2\x9c\x93", "Quiz +") :
					    ui_text_glyph("Quiz \xe2\x9c\x97", "Quiz x"), 6);
				wattroff(win, ui_theme_attr(role) | A_BOLD);
				ui_reader_put_line(win, y + row, x0 + 1 + (int)skip, &rest, NULL, 0);
			}
			if (ln->quiz == target && x0 >= 2) {
				wattron(win, ui_theme_attr(UI_ROLE_QUIZ));
				ui_text_put(win, y + row, x0 - 2, mark, 1);
				wattroff(win, ui_theme_attr(UI_ROLE_QUIZ));
			}
		}
		/* The blank line after an answered quiz says what was answered. */
		if (ln->kind == LESSON_LINE_BLANK && prev && prev->kind == LESSON_LINE_QUIZ &&
		    quiz_state(r, prev->quiz, note, sizeof(note)) != QUIZ_STATE_OPEN) {
			wattron(win, ui_theme_attr(UI_ROLE_DIM));
			ui_text_put(win, y + row, x0 + 2, note, (int)r->lay->width - 2);
			wattroff(win, ui_theme_attr(UI_ROLE_DIM));
		}
	}
}

/* The prompt being typed, the last message, or a hint about what is on screen. */
static void draw_status(struct ui_reader *r, WINDOW *win, int y, int x, int cols)
{
	enum rt_log_level level;
	char buf[512];
	enum ui_role role = UI_ROLE_DIM;
	const char *s = buf;

	buf[0] = '\0';
	if (r->mode == UI_READER_SEARCH) {
		snprintf(buf, sizeof(buf), "/%s", r->input);
		role = UI_ROLE_NORMAL;
	} else if (r->mode == UI_READER_LINK) {
		snprintf(buf, sizeof(buf), "follow link [%s%s]  (Enter: follow, Esc: cancel)",
			 r->input, r->ninput ? "" : "number");
		role = UI_ROLE_NORMAL;
	} else if (r->msg[0]) {
		s = r->msg;
		role = r->msg_role;
	} else if (ui_log_last(buf, sizeof(buf), &level)) {
		role = level <= RT_LOG_WARN ? UI_ROLE_WARN : UI_ROLE_DIM;
	} else if (r->mode == UI_READER_PAGE && target_quiz(r) >= 0) {
		snprintf(buf, sizeof(buf), "%s a quiz is on screen: press a to answer it",
			 ui_text_glyph("\xe2\x96\xb8", ">"));
		role = UI_ROLE_QUIZ;
	}
	wattron(win, ui_theme_attr(role));
	ui_text_put(win, y, x + 1, s, cols - 2);
	wattroff(win, ui_theme_attr(role));
	if (r->mode == UI_READER_SEARCH || r->mode == UI_READER_LINK) {
		/* A block cursor where the next character goes. */
		int cx = x + 1 + ui_text_width(buf);

		if (r->mode == UI_READER_LINK)
			cx = x + 1 + (int)strlen("follow link [") + (int)r->ninput;
		if (cx < x + cols - 1)
			mvwchgat(win, y, cx, 1, A_REVERSE, 0, NULL);
	}
}

static void draw_footer(const struct ui_reader *r, WINDOW *win, int y, int x, int cols,
			bool quiz)
{
	static const char *const page_keys[] = {
		"\xe2\x86\x91\xe2\x86\x93", "^v", "scroll", "/", NULL, "search",
		"t", NULL, "contents", "]", NULL, "next", "a", NULL, "quiz",
		"?", NULL, "help", "q", NULL, "back",
	};
	static const char *const toc_keys[] = {
		"\xe2\x86\x91\xe2\x86\x93", "^v", "choose", "Enter", NULL, "go there",
		"Esc", NULL, "close",
	};
	static const char *const quiz_keys[] = {
		"Enter", NULL, "submit", "Esc", NULL, "not now", "?", NULL, "help",
	};
	static const char *const done_keys[] = {
		"any key", NULL, "back to the lesson",
	};
	const char *const *keys = page_keys;
	size_t n = sizeof(page_keys) / sizeof(page_keys[0]);
	int cx = x + 1;

	if (r->mode == UI_READER_TOC) {
		keys = toc_keys;
		n = sizeof(toc_keys) / sizeof(toc_keys[0]);
	} else if (r->mode == UI_READER_QUIZ && r->quiz.done) {
		keys = done_keys;
		n = sizeof(done_keys) / sizeof(done_keys[0]);
	} else if (r->mode == UI_READER_QUIZ) {
		keys = quiz_keys;
		n = sizeof(quiz_keys) / sizeof(quiz_keys[0]);
	}
	for (size_t i = 0; i + 2 < n && cx < x + cols - 2; i += 3) {
		const char *k = keys[i + 1] ? ui_text_glyph(keys[i], keys[i + 1]) : keys[i];

		if (keys == page_keys && !quiz && !strcmp(keys[i + 2], "quiz"))
			continue;
		wattron(win, ui_theme_attr(UI_ROLE_KEY));
		mvwaddch(win, y, cx, ' ');
		cx += 1 + ui_text_put(win, y, cx + 1, k, x + cols - cx - 2);
		waddch(win, ' ');
		cx++;
		wattroff(win, ui_theme_attr(UI_ROLE_KEY));
		wattron(win, ui_theme_attr(UI_ROLE_FOOTER));
		cx += 1 + ui_text_put(win, y, cx + 1, keys[i + 2], x + cols - cx - 2);
		wattroff(win, ui_theme_attr(UI_ROLE_FOOTER));
		cx += 2;
	}
}

static void mark_read_if_end(struct ui_reader *r)
{
	char *cause = NULL;

	if (r->top < max_top(r) || !r->doc)
		return;
	r->end_seen = true;
	if (r->read_saved || !r->id[0])
		return;
	r->read_saved = true;
	if (lesson_progress_mark(NULL, r->id, top_src_line(r), true, &cause) < 0)
		rt_log(RT_LOG_WARN, "%s", cause ? cause : "cannot mark the lesson read");
	free(cause);
	reload_progress(r);
}

void ui_reader_draw(struct ui_reader *r, WINDOW *win, int y, int x, int h, int cols)
{
	unsigned int width = text_width(cols);
	int x0 = x + (cols - (int)width) / 2;
	bool quiz;

	if (h < 6)
		return;
	r->page = h - 4;
	ensure_layout(r, width);
	if (r->top > max_top(r))
		r->top = max_top(r);
	mark_read_if_end(r);
	draw_title(r, win, y, x, cols);
	draw_text(r, win, y + 2, x0, (int)width);
	quiz = r->mode == UI_READER_PAGE && target_quiz(r) >= 0;
	draw_status(r, win, y + h - 2, x, cols);
	draw_footer(r, win, y + h - 1, x, cols, quiz);
	/* Scroll marks on the right edge. */
	wattron(win, ui_theme_attr(UI_ROLE_DIM) | A_BOLD);
	if (r->top > 0)
		ui_text_put(win, y + 2, x + cols - 1, ui_text_glyph("\xe2\x96\xb2", "^"), 1);
	if (r->top < max_top(r))
		ui_text_put(win, y + h - 3, x + cols - 1, ui_text_glyph("\xe2\x96\xbc", "v"), 1);
	wattroff(win, ui_theme_attr(UI_ROLE_DIM) | A_BOLD);
	if (r->mode == UI_READER_TOC)
		ui_toc_draw(&r->toc, win, y + 1, x, h - 3, cols);
	else if (r->mode == UI_READER_QUIZ)
		ui_quiz_draw(&r->quiz, win, y + 1, x, h - 3, cols);
}

/* ---- Keys ----------------------------------------------------------------- */

static void scroll_by(struct ui_reader *r, long delta)
{
	size_t mt = max_top(r);

	if (delta < 0)
		r->top = (size_t)-delta > r->top ? 0 : r->top - (size_t)-delta;
	else
		r->top = r->top + (size_t)delta > mt ? mt : r->top + (size_t)delta;
}

/* Scroll so layout line @l is on screen, a little below the top when it was not. */
static void show_line(struct ui_reader *r, size_t l)
{
	size_t v = r->nnotes + l;

	if (v >= r->top && v < r->top + (size_t)r->page)
		return;
	r->top = v > 2 ? v - 2 : 0;
	if (r->top > max_top(r))
		r->top = max_top(r);
}

static void search(struct ui_reader *r, int dir, bool fresh)
{
	size_t top_l = r->top > r->nnotes ? r->top - r->nnotes : 0, from, line, count;
	unsigned int col;
	int ret;

	if (!r->needle) {
		set_msg(r, UI_ROLE_DIM, "no search yet: press / and type a word");
		return;
	}
	if (!r->lay)
		return;
	if (fresh || r->match < 0)
		from = dir > 0 ? top_l : top_l - 1;	/* -1 wraps to the last line */
	else
		from = dir > 0 ? (size_t)r->match + 1 : (size_t)r->match - 1;
	if (from >= r->lay->nlines)
		from = dir > 0 ? 0 : r->lay->nlines - 1;
	ret = lesson_layout_search(r->lay, r->needle, from, dir, &line, &col);
	if (ret < 0) {
		r->match = -1;
		set_msg(r, UI_ROLE_WARN, "not found: %s", r->needle);
		return;
	}
	if (!fresh && dir > 0 && line < from)
		set_msg(r, UI_ROLE_WARN, "search hit BOTTOM, continuing at TOP");
	else if (!fresh && dir < 0 && line > from)
		set_msg(r, UI_ROLE_WARN, "search hit TOP, continuing at BOTTOM");
	else if (fresh && line < from)
		set_msg(r, UI_ROLE_WARN, "search hit BOTTOM, continuing at TOP");
	else {
		count = lesson_layout_match_count(r->lay, r->needle);
		set_msg(r, UI_ROLE_DIM, "/%s: %zu line%s match %s n next, N previous", r->needle,
			count, count == 1 ? "" : "s", ui_text_glyph("\xc2\xb7", "-"));
	}
	r->match = (long)line;
	show_line(r, line);
}

static void push_back(struct ui_reader *r)
{
	if (r->nback == UI_READER_HISTORY) {
		memmove(r->back, r->back + 1, (UI_READER_HISTORY - 1) * sizeof(r->back[0]));
		r->nback--;
	}
	r->back[r->nback].entry = r->entry;
	r->back[r->nback].src_line = top_src_line(r);
	r->nback++;
}

/* Leave the current lesson (saving where we were) for entry @entry. */
static void switch_to(struct ui_reader *r, size_t entry, long src_line)
{
	save_position(r);
	if (load_entry(r, entry, src_line) < 0)
		set_msg(r, UI_ROLE_WARN, "out of memory");
}

/* The next (@dir 1) or previous (-1) numbered lesson. */
static void step_lesson(struct ui_reader *r, int dir)
{
	size_t i = r->entry;

	for (;;) {
		if ((dir < 0 && i == 0) || (dir > 0 && i + 1 >= r->idx->count)) {
			set_msg(r, UI_ROLE_DIM, "this is the %s lesson", dir > 0 ? "last" : "first");
			return;
		}
		i = dir > 0 ? i + 1 : i - 1;
		if (!r->idx->entries[i].glossary)
			break;
	}
	r->nback = 0;
	switch_to(r, i, -1);
}

static void follow_link(struct ui_reader *r, unsigned int number)
{
	const struct lesson_link *lk = NULL;
	const struct lesson_entry *e;
	const struct lab_ops *lab;
	char target[128];
	unsigned int line;

	for (size_t i = 0; r->doc && i < r->doc->nlinks && !lk; i++)
		if (r->doc->links[i].number == number)
			lk = &r->doc->links[i];
	if (!lk) {
		set_msg(r, UI_ROLE_WARN, "there is no link [%u] in this lesson", number);
		return;
	}
	switch (lk->kind) {
	case LESSON_LINK_LESSON:
		e = lesson_index_find(r->idx, (unsigned int)strtoul(lk->target, NULL, 10));
		if (!e) {
			set_msg(r, UI_ROLE_WARN, "lesson %s is not installed", lk->target);
			return;
		}
		push_back(r);
		switch_to(r, (size_t)(e - r->idx->entries), 0);
		break;
	case LESSON_LINK_GLOSSARY:
		e = NULL;
		for (size_t i = 0; i < r->idx->count; i++)
			if (r->idx->entries[i].glossary)
				e = &r->idx->entries[i];
		if (!e) {
			set_msg(r, UI_ROLE_WARN, "the glossary is not installed");
			return;
		}
		snprintf(target, sizeof(target), "%s", lk->target);
		push_back(r);
		switch_to(r, (size_t)(e - r->idx->entries), 0);
		line = r->doc ? lesson_doc_anchor_line(r->doc, target) : 0;
		if (line) {
			r->anchor_src = line;
			return;
		}
		set_msg(r, UI_ROLE_WARN, "the glossary has no entry '%s'", target);
		break;
	case LESSON_LINK_LAB:
		lab = lab_find(lk->target);
		if (!lab)
			set_msg(r, UI_ROLE_WARN, "link [%u]: there is no lab called '%s'", number,
				lk->target);
		else if (lab->state == LAB_STATE_PLANNED && lab->issue)
			set_msg(r, UI_ROLE_COMING, "link [%u]: the %s lab: this lab is coming "
				"(issue #%u)", number, lab->title, lab->issue);
		else if (lab->state == LAB_STATE_PLANNED)
			set_msg(r, UI_ROLE_COMING, "link [%u]: the %s lab: this lab is coming",
				number, lab->title);
		else
			set_msg(r, UI_ROLE_NORMAL, "link [%u]: the %s lab: open it from the Labs "
				"list of the menu", number, lab->title);
		break;
	case LESSON_LINK_URL:
		set_msg(r, UI_ROLE_NORMAL, "link [%u]: %s", number, lk->url);
		break;
	case LESSON_LINK_BAD:
		set_msg(r, UI_ROLE_WARN, "link [%u] is broken: %s", number, lk->url);
		break;
	}
}

static void go_back(struct ui_reader *r)
{
	struct ui_reader_place p;

	if (!r->nback) {
		set_msg(r, UI_ROLE_DIM, "nothing to go back to (q returns to the menu)");
		return;
	}
	p = r->back[--r->nback];
	switch_to(r, p.entry, p.src_line);
}

/* The first question of the lesson not answered yet, wherever it is, or -1. */
static int first_open_quiz(const struct ui_reader *r)
{
	for (size_t q = 0; r->doc && q < r->doc->nquizzes; q++)
		if (quiz_state(r, (int)q, NULL, 0) == QUIZ_STATE_OPEN)
			return (int)q;
	return -1;
}

/*
 * Enter opens the quiz on screen (the first unanswered one there); 'a' also
 * reaches past the screen: with no unanswered question on it, the lesson's
 * first unanswered one opens, even one scrolled out of sight above.
 */
static void open_quiz(struct ui_reader *r, bool anywhere)
{
	int qi = target_quiz(r), open;

	if (anywhere && (qi < 0 || quiz_state(r, qi, NULL, 0) != QUIZ_STATE_OPEN) &&
	    (open = first_open_quiz(r)) >= 0)
		qi = open;
	if (qi < 0) {
		set_msg(r, UI_ROLE_DIM, "no quiz on screen: scroll to a line that starts with "
			"\"Quiz:\"");
		return;
	}
	if (!r->id[0])
		return;
	if (ui_quiz_init(&r->quiz, r->doc->quizzes[qi], r->id) < 0) {
		ui_quiz_fini(&r->quiz);
		set_msg(r, UI_ROLE_WARN, "out of memory");
		return;
	}
	r->mode = UI_READER_QUIZ;
}

static bool is_backspace(int key)
{
	return key == KEY_BACKSPACE || key == 127 || key == 8;
}

/* Typing after '/' or 'f': Enter runs it, Esc (or erasing everything) cancels. */
static void input_key(struct ui_reader *r, int key)
{
	bool link = r->mode == UI_READER_LINK;

	if (key == READER_KEY_ESC || (is_backspace(key) && !r->ninput)) {
		r->mode = UI_READER_PAGE;
		return;
	}
	if (is_backspace(key)) {
		/* Remove a whole UTF-8 character. */
		while (r->ninput > 0 && ((unsigned char)r->input[--r->ninput] & 0xc0) == 0x80)
			;
		r->input[r->ninput] = '\0';
		return;
	}
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		r->mode = UI_READER_PAGE;
		if (!r->ninput)
			return;
		if (link) {
			follow_link(r, (unsigned int)strtoul(r->input, NULL, 10));
			return;
		}
		free(r->needle);
		r->needle = strdup(r->input);
		search(r, 1, true);
		return;
	}
	if (key < 0x20 || key > 0xff || key == 0x7f)
		return;		/* a function key or a control character */
	if (link && (key < '0' || key > '9'))
		return;
	if (r->ninput + 1 < sizeof(r->input)) {
		r->input[r->ninput++] = (char)key;
		r->input[r->ninput] = '\0';
	}
}

static void start_input(struct ui_reader *r, enum ui_reader_mode mode, int first)
{
	r->mode = mode;
	r->ninput = 0;
	r->input[0] = '\0';
	if (first) {
		r->input[r->ninput++] = (char)first;
		r->input[r->ninput] = '\0';
	}
}

enum ui_reader_action ui_reader_key(struct ui_reader *r, int key)
{
	long page = r->page > 2 ? r->page - 1 : 1;

	if (key == KEY_RESIZE || key == ERR)
		return UI_READER_NONE;
	r->msg[0] = '\0';
	switch (r->mode) {
	case UI_READER_SEARCH:
	case UI_READER_LINK:
		input_key(r, key);
		return UI_READER_NONE;
	case UI_READER_TOC:
		switch (ui_toc_key(&r->toc, key)) {
		case UI_TOC_JUMP:
			r->anchor_src = r->doc->toc[r->toc.sel].line;
			r->anchor_off = 0;
			r->anchor_valid = true;
			apply_anchor(r);
			if (r->top > max_top(r))
				r->top = max_top(r);
			r->mode = UI_READER_PAGE;
			break;
		case UI_TOC_CLOSE:
			r->mode = UI_READER_PAGE;
			break;
		case UI_TOC_NONE:
			break;
		}
		return UI_READER_NONE;
	case UI_READER_QUIZ:
		switch (ui_quiz_key(&r->quiz, key)) {
		case UI_QUIZ_CLOSE:
			ui_quiz_fini(&r->quiz);
			r->mode = UI_READER_PAGE;
			reload_progress(r);
			break;
		case UI_QUIZ_HELP:
			return UI_READER_HELP;
		case UI_QUIZ_NONE:
			break;
		}
		return UI_READER_NONE;
	case UI_READER_PAGE:
		break;
	}

	switch (key) {
	case KEY_DOWN:
	case 'j':
		scroll_by(r, 1);
		break;
	case KEY_UP:
	case 'k':
		scroll_by(r, -1);
		break;
	case KEY_NPAGE:
	case ' ':
	case KEY_CTRL('f'):
		scroll_by(r, page);
		break;
	case KEY_PPAGE:
	case 'b':
	case KEY_CTRL('b'):
		scroll_by(r, -page);
		break;
	case KEY_HOME:
	case 'g':
		r->top = 0;
		break;
	case KEY_END:
	case 'G':
		r->top = max_top(r);
		break;
	case ']':
		step_lesson(r, 1);
		break;
	case '[':
		step_lesson(r, -1);
		break;
	case 't':
		if (!r->doc || !r->doc->ntoc) {
			set_msg(r, UI_ROLE_DIM, "this lesson has no headings");
			break;
		}
		ui_toc_init(&r->toc, r->doc, top_src_line(r));
		r->mode = UI_READER_TOC;
		break;
	case '/':
		start_input(r, UI_READER_SEARCH, 0);
		break;
	case 'n':
		search(r, 1, false);
		break;
	case 'N':
		search(r, -1, false);
		break;
	case 'f':
		start_input(r, UI_READER_LINK, 0);
		break;
	case 'a':
		open_quiz(r, true);
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		open_quiz(r, false);
		break;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		go_back(r);
		break;
	case '?':
		return UI_READER_HELP;
	case 'q':
	case READER_KEY_ESC:
		return UI_READER_CLOSE;
	default:
		if (key >= '0' && key <= '9')
			start_input(r, UI_READER_LINK, key);
		break;
	}
	return UI_READER_NONE;
}
